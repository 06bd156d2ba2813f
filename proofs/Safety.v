(** * Type safety of full TeIL (TeIL Sec. 4.2; report Sec. 3.2.3, 3.3).

    The paper proves these results for Core-TeIL; here they are proved for
    full TeIL directly (every operator at any positions, DECISIONS 1-6).
    R-EV-20. *)

From Coq Require Import String List Arith Lia Bool.
From TeIL Require Import Util Scalar Syntax Typing Eval.
Import ListNotations.

(** ** Index flow: in-bounds indices are mapped to in-bounds indices *)

Lemma ib_insert : forall p t k m, p < length t ->
  in_bounds (remove_at p t) k -> 1 <= m <= nth p t 0 -> in_bounds t (insert_at p m k).
Proof.
  intros p t k m Hp Hk Hm. unfold in_bounds.
  rewrite <- (insert_remove p 0 t) by auto. apply Forall2_insert_at; auto.
Qed.

Lemma ib_swap : forall i j t k, i < length t -> j < length t ->
  in_bounds (swap_at 0 i j t) k -> in_bounds t (swap_at 0 i j k).
Proof.
  intros i j t k Hi Hj Hk. unfold in_bounds in *.
  rewrite <- (swap_at_involutive 0 i j t) by auto.
  apply Forall2_swap_at; auto; rewrite length_swap_at; auto.
Qed.

Lemma ib_expa : forall p n t k, p <= length t ->
  in_bounds (insert_at p n t) k -> in_bounds t (remove_at p k).
Proof.
  intros p n t k Hp Hk. unfold in_bounds in *.
  rewrite <- (remove_insert p n t) by auto. apply Forall2_remove_at; auto.
Qed.

Lemma ib_diag : forall pa pb t k, pa < pb -> pb < length t ->
  nth pa t 0 = nth pb t 0 ->
  in_bounds (remove_at pb t) k -> in_bounds t (insert_at pb (nth pa k 0) k).
Proof.
  intros pa pb t k H1 H2 Heq Hk. apply ib_insert; auto.
  assert (Hl : pa < length (remove_at pb t)) by (rewrite length_remove_at; lia).
  pose proof (Forall2_nth _ pa _ _ 0 0 Hk Hl) as Hn. simpl in Hn.
  rewrite nth_remove_at_lt in Hn by auto. lia.
Qed.

Lemma ib_contr : forall pa pb t k m, pa < pb -> pb < length t ->
  nth pa t 0 = nth pb t 0 ->
  in_bounds (remove_at pa (remove_at pb t)) k -> 1 <= m <= nth pa t 0 ->
  in_bounds t (insert_at pb m (insert_at pa m k)).
Proof.
  intros pa pb t k m H1 H2 Heq Hk Hm. apply ib_insert; auto; [|lia].
  apply ib_insert; auto.
  - rewrite length_remove_at; lia.
  - rewrite nth_remove_at_lt; auto.
Qed.

(** The two positions of [transp], [diag], [contr] in increasing order. *)
Lemma minmax_pos : forall i j (t : list nat), 1 <= i <= length t -> 1 <= j <= length t -> i <> j ->
  nth (i - 1) t 0 = nth (j - 1) t 0 ->
  Nat.min i j - 1 < Nat.max i j - 1 /\ Nat.max i j - 1 < length t /\
  nth (Nat.min i j - 1) t 0 = nth (Nat.max i j - 1) t 0.
Proof.
  intros i j t Hi Hj Hij Heq. destruct (le_lt_dec i j).
  - rewrite Nat.min_l, Nat.max_r by lia. repeat split; auto; lia.
  - rewrite Nat.min_r, Nat.max_l by lia. repeat split; auto; lia.
Qed.

Global Hint Resolve in_bounds_nil : core.

Section Safety.
Context {K : Scalar}.
Local Notation val := (val K).
Local Notation res := (res K).
Local Notation mem := (mem K).

(** ** Lemma 4.3 (well-definedness of [[e]]) / report Lemma 2 (i) *)

Lemma eval_defined : forall G (mu : mem) e t,
  has_type G e t -> mem_covers G mu ->
  forall k, in_bounds t k -> eval G mu e k <> None.
Proof.
  intros G mu e t H Hmu. induction H; intros k Hk; simpl;
    repeat match goal with
    | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
    end.
  - eapply Hmu; eauto.
  - auto.
  - apply rlift_defined; auto.
  - apply rlift_defined; auto.
  - destruct t.
    + apply in_bounds_nil_inv in Hk. subst. apply rlift_defined; auto.
    + apply rlift_defined; auto.
  - apply rlift_defined; auto.
  - destruct t.
    + apply in_bounds_nil_inv in Hk. subst. apply rlift_defined; auto.
    + apply rlift_defined; auto.
  - destruct t.
    + apply in_bounds_nil_inv in Hk. subst. apply rlift_defined; auto.
    + apply rlift_defined; auto.
  - apply in_bounds_app_inv in Hk. destruct Hk. apply rlift_defined; auto.
  - apply rsum_defined. intros m Hm. apply IHhas_type. apply ib_insert; auto; lia.
  - apply IHhas_type. apply ib_swap; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply IHhas_type. apply ib_diag; auto.
  - apply IHhas_type. eapply ib_expa; eauto. lia.
  - apply IHhas_type. apply ib_insert; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply rsum_defined. intros m Hm. apply IHhas_type. apply ib_contr; auto.
Qed.

(** TeIL Lemma 4.3 in the paper's form: for [μ ∼ μ_allocs]. *)
Theorem lemma_4_3_well_defined : forall ds inp (mu : mem) e t,
  has_type (ctx_of ds) e t -> mem_equiv mu (init_mem ds inp) ->
  forall k, in_bounds t k -> exists v, eval (ctx_of ds) mu e k = Some v.
Proof.
  intros ds inp mu e t Ht Heq k Hk.
  assert (Hc : mem_covers (ctx_of ds) mu).
  { apply mem_dom_covers. eapply mem_dom_equiv; [apply init_mem_dom|].
    apply mem_equiv_sym; eauto. }
  destruct (eval (ctx_of ds) mu e k) eqn:E; eauto.
  exfalso. eapply eval_defined; eauto.
Qed.

(** Report Lemma 2 (ii), (iii) and Corollary 1 (i). *)
Lemma ok_stmts_in : forall G ss x e, ok_stmts G ss -> In (x, e) ss ->
  exists t, lookup G x = Some t /\ has_type G e t.
Proof.
  intros G ss x e H Hin. apply ok_stmts_forall in H. rewrite Forall_forall in H.
  specialize (H _ Hin). inversion H; subst. eauto.
Qed.

(** ** Theorem 4.4: statements of well-formed programs have a unique type
    and well-defined right-hand sides (report Corollary 1). *)
Theorem thm_4_4_stmt_well_defined : forall ds ss inp (mu : mem) x e,
  ok_prog (mkProg ds ss) -> In (x, e) ss -> mem_equiv mu (init_mem ds inp) ->
  exists! t, lookup (ctx_of ds) x = Some t /\ has_type (ctx_of ds) e t /\
             forall k, in_bounds t k -> exists v, eval (ctx_of ds) mu e k = Some v.
Proof.
  intros ds ss inp mu x e Hok Hin Heq. inversion Hok; subst.
  destruct (ok_stmts_in _ _ _ _ H2 Hin) as [t [Hx He]].
  exists t. split.
  - repeat split; auto. intros k Hk. eapply lemma_4_3_well_defined; eauto.
  - intros t' [Hx' _]. congruence.
Qed.

(** ** Lemma 4.5: a well-formed statement can take a step, and the domain
    of the store does not change. *)
Lemma step_progress : forall G (mu : mem) s,
  ok_stmt G s -> mem_dom G mu -> exists mu', step G mu s mu' /\ mem_dom G mu'.
Proof.
  intros G mu s Hs Hd. inversion Hs as [x e t Hx He]; subst.
  exists (upd mu x t (eval G mu e)). split.
  - constructor; auto.
    + intros k Hk. apply Hd. eauto.
    + intros k Hk. eapply eval_defined; eauto. apply mem_dom_covers; auto.
  - apply upd_dom; auto. intros k Hk. eapply eval_defined; eauto. apply mem_dom_covers; auto.
Qed.

Theorem lemma_4_5_step : forall ds inp (mu : mem) x e,
  ok_stmt (ctx_of ds) (x, e) -> mem_equiv mu (init_mem ds inp) ->
  exists mu', step (ctx_of ds) mu (x, e) mu' /\ mem_equiv mu' (init_mem ds inp).
Proof.
  intros ds inp mu x e Hs Heq.
  assert (Hd : mem_dom (ctx_of ds) mu).
  { eapply mem_dom_equiv; [apply (init_mem_dom ds inp)|]. apply mem_equiv_sym; auto. }
  destruct (step_progress _ _ _ Hs Hd) as [mu' [Hst Hd']].
  exists mu'. split; auto. apply mem_dom_equiv2 with (G := ctx_of ds); auto. apply init_mem_dom.
Qed.

Lemma steps_progress : forall G ss (mu : mem),
  ok_stmts G ss -> mem_dom G mu -> exists mu', steps G mu ss mu' /\ mem_dom G mu'.
Proof.
  intros G ss. induction ss as [|s ss IH]; intros mu Hok Hd.
  - exists mu. split; auto. constructor.
  - inversion Hok; subst. destruct (step_progress _ _ _ H1 Hd) as [mu1 [H1' Hd1]].
    destruct (IH mu1 H2 Hd1) as [mu2 [H2' Hd2]]. exists mu2. split; auto. econstructor; eauto.
Qed.

(** ** Theorem 4.6 (type safety): a well-formed program evaluates, and the
    final store has the domain of the initial one.  Together with
    [prog_eval_deterministic] this is also report Theorem 1 for TeIL. *)
Theorem thm_4_6_type_safety : forall inp p,
  ok_prog p ->
  exists mu' : mem, prog_eval inp p mu' /\ mem_equiv mu' (init_mem (p_decls p) inp).
Proof.
  intros inp p Hok. inversion Hok as [ds ss Hds Hss]; subst. simpl.
  destruct (steps_progress _ _ (init_mem ds inp) Hss (init_mem_dom ds inp)) as [mu' [H1 H2]].
  exists mu'. split; [constructor; auto|].
  apply mem_dom_equiv2 with (G := ctx_of ds); auto. apply init_mem_dom.
Qed.

Theorem program_evaluation_unique : forall inp p,
  ok_prog p ->
  exists! mu' : mem, prog_eval inp p mu' /\ mem_dom (ctx_of (p_decls p)) mu'.
Proof.
  intros inp p Hok. destruct (thm_4_6_type_safety inp p Hok) as [mu' [H1 H2]].
  exists mu'. split.
  - split; auto. eapply mem_dom_equiv; [apply (init_mem_dom (p_decls p) inp)|]. apply mem_equiv_sym; auto.
  - intros mu'' [H3 _]. eapply prog_eval_deterministic; eauto.
Qed.

(** ** Safety: no out-of-bounds accesses (report Corollary 2)

    [reads G e k] lists the store accesses [(x, k')] made when evaluating
    [e] at [k]; [eval_reads] shows evaluation depends on nothing else, and
    [reads_in_bounds] that for well-typed [e] and in-bounds [k] every access
    is inside the declared bounds. *)

Fixpoint reads (G : ctx) (e : expr) (k : list nat) : list (name * list nat) :=
  match e with
  | EVar x => [(x, k)]
  | EParen e => reads G e k
  | EAdd e0 e1 | ESub e0 e1 => reads G e0 k ++ reads G e1 k
  | EMul e0 e1 =>
      match type_of G e0 with
      | Some [] => reads G e0 [] ++ reads G e1 k
      | Some _ => reads G e0 k ++ reads G e1 k
      | None => []
      end
  | EDiv e0 e1 =>
      match type_of G e1 with
      | Some [] => reads G e0 k ++ reads G e1 []
      | Some _ => reads G e0 k ++ reads G e1 k
      | None => []
      end
  | EProd e0 e1 =>
      match type_of G e0 with
      | Some t0 => reads G e0 (firstn (length t0) k) ++ reads G e1 (skipn (length t0) k)
      | None => []
      end
  | ERed i e =>
      match type_of G e with
      | Some t => flat_map (fun m => reads G e (insert_at (i - 1) m k)) (seq 1 (nth (i - 1) t 0))
      | None => []
      end
  | ETransp i j e => reads G e (swap_at 0 (i - 1) (j - 1) k)
  | EDiag i j e => reads G e (insert_at (Nat.max i j - 1) (nth (Nat.min i j - 1) k 0) k)
  | EExpa i n e => reads G e (remove_at (i - 1) k)
  | EProj i m e => reads G e (insert_at (i - 1) m k)
  | EContr i j e =>
      match type_of G e with
      | Some t => flat_map (fun m => reads G e (insert_at (Nat.max i j - 1) m
                                                 (insert_at (Nat.min i j - 1) m k)))
                           (seq 1 (nth (Nat.min i j - 1) t 0))
      | None => []
      end
  end.

Lemma in_flat_map_seq : forall {A} (f : nat -> list A) n a m,
  1 <= m <= n -> In a (f m) -> In a (flat_map f (seq 1 n)).
Proof.
  intros. apply in_flat_map. exists m. split; auto. apply in_seq. lia.
Qed.

Theorem eval_reads : forall G (mu1 mu2 : mem) e k,
  (forall x k', In (x, k') (reads G e k) -> mu1 x k' = mu2 x k') ->
  eval G mu1 e k = eval G mu2 e k.
Proof.
  intros G mu1 mu2 e. induction e; intros k H; simpl in *;
    try (rewrite IHe; auto; fail).
  - apply H. left; auto.
  - rewrite IHe1, IHe2; auto; intros; apply H; apply in_or_app; auto.
  - rewrite IHe1, IHe2; auto; intros; apply H; apply in_or_app; auto.
  - destruct (type_of G e1) as [[|]|]; auto;
      rewrite IHe1, IHe2; auto; intros; apply H; apply in_or_app; auto.
  - destruct (type_of G e2) as [[|]|]; auto;
      rewrite IHe1, IHe2; auto; intros; apply H; apply in_or_app; auto.
  - destruct (type_of G e1); auto.
    rewrite IHe1, IHe2; auto; intros; apply H; apply in_or_app; auto.
  - destruct (type_of G e); auto. apply rsum_ext. intros m Hm. apply IHe.
    intros. apply H. eapply in_flat_map_seq; eauto.
  - destruct (type_of G e); auto. apply rsum_ext. intros m Hm. apply IHe.
    intros. apply H. eapply in_flat_map_seq; eauto.
Qed.

Theorem reads_in_bounds : forall G e t, has_type G e t ->
  forall k, in_bounds t k ->
  forall x k', In (x, k') (reads G e k) -> exists tx, lookup G x = Some tx /\ in_bounds tx k'.
Proof.
  intros G e t H. induction H; intros k Hk y k' Hin; simpl in Hin;
    repeat match goal with
    | Ht : has_type G ?e _ |- _ =>
        match type of Hin with context [type_of G e] => rewrite (type_of_complete _ _ _ Ht) in Hin end
    end.
  - destruct Hin as [Hin|[]]. inversion Hin; subst. eauto.
  - eauto.
  - apply in_app_or in Hin. destruct Hin; eauto.
  - apply in_app_or in Hin. destruct Hin; eauto.
  - destruct t.
    + apply in_bounds_nil_inv in Hk. subst. apply in_app_or in Hin. destruct Hin; eauto.
    + apply in_app_or in Hin. destruct Hin; eauto.
  - apply in_app_or in Hin. destruct Hin; eauto.
  - destruct t.
    + apply in_bounds_nil_inv in Hk. subst. apply in_app_or in Hin. destruct Hin; eauto.
    + apply in_app_or in Hin. destruct Hin; eauto.
  - destruct t.
    + apply in_bounds_nil_inv in Hk. subst. apply in_app_or in Hin. destruct Hin; eauto.
    + apply in_app_or in Hin. destruct Hin; eauto.
  - apply in_bounds_app_inv in Hk. destruct Hk.
    apply in_app_or in Hin. destruct Hin; eauto.
  - apply in_flat_map in Hin. destruct Hin as [m [Hm Hin]]. apply in_seq in Hm.
    eapply IHhas_type; eauto. apply ib_insert; auto; lia.
  - eapply IHhas_type; eauto. apply ib_swap; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    eapply IHhas_type; eauto. apply ib_diag; auto.
  - eapply IHhas_type; eauto. eapply ib_expa; eauto. lia.
  - eapply IHhas_type; eauto. apply ib_insert; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply in_flat_map in Hin. destruct Hin as [m [Hm Hin]]. apply in_seq in Hm.
    eapply IHhas_type; eauto. apply ib_contr; auto; lia.
Qed.

(** Writes: a step changes the store only inside the bounds of the target. *)
Theorem step_writes_in_bounds : forall G (mu mu' : mem) x e,
  step G mu (x, e) mu' ->
  forall y k, mu' y k <> mu y k -> y = x /\ exists t, lookup G x = Some t /\ in_bounds t k.
Proof.
  intros G mu mu' x e H y k Hne. inversion H; subst. unfold upd in Hne.
  destruct (String.eqb y x) eqn:Ey; simpl in Hne; [|congruence].
  destruct (in_bounds_b t k) eqn:Ek; [|congruence].
  apply String.eqb_eq in Ey. apply in_bounds_b_spec in Ek. eauto.
Qed.

(** Report Corollary 2 (safety) for TeIL: in a well-formed program, for
    every statement [x = e] and every in-bounds index [k] of [x], every read
    made by evaluating [e] at [k] is inside the declared bounds, and every
    write made by the statement is inside the bounds of [x]. *)
Theorem cor_2_safety : forall ds ss x e,
  ok_prog (mkProg ds ss) -> In (x, e) ss ->
  exists t, lookup (ctx_of ds) x = Some t /\
    (forall k, in_bounds t k ->
       forall y k', In (y, k') (reads (ctx_of ds) e k) ->
       exists ty, lookup (ctx_of ds) y = Some ty /\ in_bounds ty k') /\
    (forall (mu mu' : mem), step (ctx_of ds) mu (x, e) mu' ->
       forall y k, mu' y k <> mu y k -> y = x /\ in_bounds t k).
Proof.
  intros ds ss x e Hok Hin. inversion Hok; subst.
  destruct (ok_stmts_in _ _ _ _ H2 Hin) as [t [Hx He]].
  exists t. split; auto. split.
  - intros. eapply reads_in_bounds; eauto.
  - intros mu mu' Hst y k Hne. destruct (step_writes_in_bounds _ _ _ _ _ Hst y k Hne) as [-> [t' [Ht' Hk]]].
    split; auto. congruence.
Qed.

End Safety.
