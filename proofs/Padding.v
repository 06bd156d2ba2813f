(** * Padding (report Sec. 4, Def. 7-9, Fig. 13-14, Lemma 5-6, Thm 2-3).

    Every extent [d] is rounded up to [round M d = ceil(d/M)*M]
    ([Util.round], report Def. 7, R-PAD-1).  The padded store gives every
    tensor the rounded domain, with padding positions 0 (R-PAD-2).  Padded
    evaluation [peval] follows R-PAD-3 with the zero-padding clause of
    DECISIONS item 10 / R-PAD-5: at a padding position of its type an
    expression is 0; at a real position the ordinary equations apply with
    sums over rounded extents.

    Theorem 2 ([thm_2_padded_program_evaluation]) holds for every scalar
    type.  Theorem 3 ([thm_3_simulation]) needs only [a + 0 = a] for
    numbers (hypothesis [add_zero_r]); it holds for the reals.  For IEEE
    doubles it holds except that [-0.0 + 0.0 = +0.0], i.e. a real position
    whose unpadded value is [-0.0] may read [+0.0] after padding. *)

From Coq Require Import String List Arith Lia Bool.
From TeIL Require Import Util Scalar Syntax Typing Eval Safety.
Import ListNotations.

Lemma round_0 : forall M, 1 <= M -> round M 0 = 0.
Proof.
  intros M HM. unfold round. simpl. rewrite Nat.div_small by lia. auto.
Qed.

Lemma nth_round_t : forall M p t, 1 <= M -> nth p (round_t M t) 0 = round M (nth p t 0).
Proof.
  intros M p t HM. unfold round_t. rewrite <- (round_0 M HM) at 1. apply map_nth.
Qed.

Lemma round_t_length : forall M t, length (round_t M t) = length t.
Proof. intros. apply map_length. Qed.

Definition round_ctx (M : nat) (G : ctx) : ctx := map (fun p => (fst p, round_t M (snd p))) G.

Lemma lookup_round_ctx : forall M G x, lookup (round_ctx M G) x = option_map (round_t M) (lookup G x).
Proof.
  induction G as [|[y t] G IH]; intros x; simpl; auto.
  destruct (String.eqb y x); simpl; auto.
Qed.

(** An index list outside the type but inside the rounded type. *)
Definition padding_pos (M : nat) (t k : list nat) : Prop :=
  in_bounds (round_t M t) k /\ ~ in_bounds t k.

Lemma insert_not_in_bounds : forall p t k m,
  p <= length k -> nth p t 0 < m -> ~ in_bounds t (insert_at p m k).
Proof.
  intros p t k m Hp Hm Hb.
  assert (Hl : p < length t).
  { apply in_bounds_length in Hb. rewrite length_insert_at in Hb by auto. lia. }
  pose proof (Forall2_nth _ p _ _ 0 0 Hb Hl) as Hn. simpl in Hn.
  rewrite nth_insert_at_same in Hn by auto. lia.
Qed.

Section Padding.
Context {K : Scalar}.
Local Notation val := (val K).
Local Notation res := (res K).
Local Notation mem := (mem K).

Variable M : nat.
Hypothesis HM : 1 <= M.

(** ** Padded evaluation (R-PAD-3, with (P0) = R-PAD-5)

    [pguard G e k body] is the value at [k] of an expression [e] whose
    equation at real positions is [body]: (P1) [body] at a real position,
    (P0) [0] at a padding position. *)
Definition pguard (G : ctx) (e : expr) (k : list nat) (body : unit -> res) : res :=
  match type_of G e with
  | None => None
  | Some t =>
      if in_bounds_b t k then body tt                                    (* (P1) *)
      else if in_bounds_b (round_t M t) k then Some vzero                 (* (P0) *)
      else None
  end.
Global Arguments pguard : simpl never.

Fixpoint peval (G : ctx) (mu : mem) (e : expr) (k : list nat) {struct e} : res :=
  pguard G e k (fun _ =>
    match e with
    | EVar x => mu x k
    | EParen e => peval G mu e k
    | EAdd e0 e1 => radd (peval G mu e0 k) (peval G mu e1 k)
    | ESub e0 e1 => rsub (peval G mu e0 k) (peval G mu e1 k)
    | EMul e0 e1 =>
        match type_of G e0 with
        | Some [] => rmul (peval G mu e0 []) (peval G mu e1 k)
        | Some _ => rmul (peval G mu e0 k) (peval G mu e1 k)
        | None => None
        end
    | EDiv e0 e1 =>
        match type_of G e1 with
        | Some [] => rdiv (peval G mu e0 k) (peval G mu e1 [])
        | Some _ => rdiv (peval G mu e0 k) (peval G mu e1 k)
        | None => None
        end
    | EProd e0 e1 =>
        match type_of G e0 with
        | Some t0 => rmul (peval G mu e0 (firstn (length t0) k)) (peval G mu e1 (skipn (length t0) k))
        | None => None
        end
    | ERed i e =>
        match type_of G e with
        | Some t => rsum (round M (nth (i - 1) t 0)) (fun m => peval G mu e (insert_at (i - 1) m k))
        | None => None
        end
    | ETransp i j e => peval G mu e (swap_at 0 (i - 1) (j - 1) k)
    | EDiag i j e => peval G mu e (insert_at (Nat.max i j - 1) (nth (Nat.min i j - 1) k 0) k)
    | EExpa i n e => peval G mu e (remove_at (i - 1) k)
    | EProj i m e => peval G mu e (insert_at (i - 1) m k)
    | EContr i j e =>
        match type_of G e with
        | Some t => rsum (round M (nth (Nat.min i j - 1) t 0))
                      (fun m => peval G mu e (insert_at (Nat.max i j - 1) m
                                                (insert_at (Nat.min i j - 1) m k)))
        | None => None
        end
    end).

Lemma pguard_real : forall G e t k body,
  type_of G e = Some t -> in_bounds t k -> pguard G e k body = body tt.
Proof.
  intros. unfold pguard. rewrite H. apply in_bounds_b_spec in H0. rewrite H0. auto.
Qed.

Lemma pguard_pad : forall G e t k body,
  type_of G e = Some t -> padding_pos M t k -> pguard G e k body = Some vzero.
Proof.
  intros G e t k body Ht [Hr Hn]. unfold pguard. rewrite Ht.
  apply in_bounds_b_false in Hn. apply in_bounds_b_spec in Hr. rewrite Hn, Hr. auto.
Qed.

Lemma peval_padding : forall G mu e t k,
  type_of G e = Some t -> padding_pos M t k -> peval G mu e k = Some vzero.
Proof.
  intros G mu e t k Ht Hp. destruct e; simpl; eapply pguard_pad; eauto.
Qed.

Lemma in_bounds_dec : forall t k, {in_bounds t k} + {~ in_bounds t k}.
Proof.
  intros. destruct (in_bounds_b t k) eqn:E.
  - left. apply in_bounds_b_spec; auto.
  - right. apply in_bounds_b_false; auto.
Qed.

(** ** Padded store (report Fig. 13, Lemma 4, Def. 9; R-PAD-2) *)
Definition pinit_mem (ds : list decl) (inp : name -> list nat -> val) : mem :=
  fun x k =>
    match find_decl ds x with
    | Some d => if in_bounds_b (d_type d) k
                then Some (if is_input ds d then inp x k else Undef)
                else if in_bounds_b (round_t M (d_type d)) k then Some vzero else None
    | None => None
    end.

(** ** Padded statements and programs (report Fig. 14) *)
Inductive pstep (G : ctx) : mem -> stmt -> mem -> Prop :=
| ev_pad_stmt : forall mu x e t,
    lookup G x = Some t ->
    (forall k, in_bounds (round_t M t) k -> mu x k <> None) ->
    (forall k, in_bounds (round_t M t) k -> peval G mu e k <> None) ->
    pstep G mu (x, e) (upd mu x (round_t M t) (peval G mu e)).

Inductive psteps (G : ctx) : mem -> list stmt -> mem -> Prop :=
| ev_pad_empty : forall mu, psteps G mu [] mu
| ev_pad_seq : forall mu mu' mu'' s ss,
    pstep G mu s mu' -> psteps G mu' ss mu'' -> psteps G mu (s :: ss) mu''.

Inductive pprog_eval (inp : name -> list nat -> val) : prog -> mem -> Prop :=
| ev_pad_prog : forall ds ss mu',
    psteps (ctx_of ds) (pinit_mem ds inp) ss mu' -> pprog_eval inp (mkProg ds ss) mu'.

(** Padding positions of every tensor hold 0. *)
Definition pad_zero (G : ctx) (mu : mem) : Prop :=
  forall x t k, lookup G x = Some t -> padding_pos M t k -> mu x k = Some vzero.

(** ** Report Lemma 4: the padded initial store *)
Lemma lemma_4_padded_store : forall ds inp,
  mem_dom (round_ctx M (ctx_of ds)) (pinit_mem ds inp) /\
  pad_zero (ctx_of ds) (pinit_mem ds inp) /\
  (forall x t k, lookup (ctx_of ds) x = Some t -> in_bounds t k ->
     pinit_mem ds inp x k = init_mem ds inp x k).
Proof.
  intros ds inp. unfold pinit_mem, init_mem. split; [|split].
  - intros x k. rewrite lookup_round_ctx, lookup_ctx_of.
    destruct (find_decl ds x) as [d|]; simpl; split; intros H.
    + destruct (in_bounds_b (d_type d) k) eqn:E1.
      * exists (round_t M (d_type d)). split; auto. apply in_bounds_round; auto.
        apply in_bounds_b_spec; auto.
      * destruct (in_bounds_b (round_t M (d_type d)) k) eqn:E2; [|congruence].
        exists (round_t M (d_type d)). split; auto. apply in_bounds_b_spec; auto.
    + destruct H as [t [Ht Hk]]. inversion Ht; subst. apply in_bounds_b_spec in Hk. rewrite Hk.
      destruct (in_bounds_b (d_type d) k); discriminate.
    + congruence.
    + destruct H as [t [Ht _]]. discriminate.
  - intros x t k Hx [Hr Hn]. rewrite lookup_ctx_of in Hx.
    destruct (find_decl ds x) as [d|]; simpl in Hx; inversion Hx; subst.
    apply in_bounds_b_false in Hn. apply in_bounds_b_spec in Hr. rewrite Hn, Hr. auto.
  - intros x t k Hx Hk. rewrite lookup_ctx_of in Hx.
    destruct (find_decl ds x) as [d|]; simpl in Hx; inversion Hx; subst.
    apply in_bounds_b_spec in Hk. rewrite Hk. auto.
Qed.

(** ** Report Lemma 5 (corrected, R-PAD-5): padded evaluation is defined on
    the whole rounded type (i), and is 0 at every padding position (ii).
    Part (ii) needs no assumption on the store. *)

Ltac preal H := simpl; erewrite pguard_real; [|apply type_of_complete; exact H|auto].

Lemma peval_defined : forall G (mu : mem) e t,
  has_type G e t -> mem_covers (round_ctx M G) mu ->
  forall k, in_bounds (round_t M t) k -> peval G mu e k <> None.
Proof.
  intros G mu e t H Hmu. induction H; intros k Hk;
    match type of Hk with in_bounds (round_t M ?T) k =>
      destruct (in_bounds_dec T k) as [Hreal|Hpad];
      [simpl; rewrite (pguard_real G _ T k); [|apply type_of_complete; econstructor; solve [eauto]|exact Hreal]
      |rewrite (peval_padding G mu _ T k);
        [discriminate|apply type_of_complete; econstructor; solve [eauto]|split; auto]]
    end;
    repeat match goal with
    | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
    end.
  - apply (Hmu x (round_t M t)); [rewrite lookup_round_ctx, H; reflexivity|apply in_bounds_round; auto].
  - apply IHhas_type. auto.
  - apply rlift_defined; auto.
  - apply rlift_defined; auto.
  - destruct t; [apply in_bounds_nil_inv in Hreal; subst|];
      (apply rlift_defined; [apply IHhas_type1|apply IHhas_type2]; apply in_bounds_round; auto).
  - apply rlift_defined; [apply IHhas_type1|apply IHhas_type2]; apply in_bounds_round; auto.
  - destruct t; [apply in_bounds_nil_inv in Hreal; subst|];
      (apply rlift_defined; [apply IHhas_type1|apply IHhas_type2]; apply in_bounds_round; auto).
  - destruct t; [apply in_bounds_nil_inv in Hreal; subst|];
      (apply rlift_defined; [apply IHhas_type1|apply IHhas_type2]; apply in_bounds_round; auto).
  - apply in_bounds_app_inv in Hreal. destruct Hreal.
    apply rlift_defined; [apply IHhas_type1|apply IHhas_type2]; apply in_bounds_round; auto.
  - apply rsum_defined. intros m Hm. apply IHhas_type.
    apply ib_insert.
    + rewrite round_t_length. lia.
    + unfold round_t. rewrite <- map_remove_at. apply in_bounds_round; auto.
    + rewrite nth_round_t; auto.
  - apply IHhas_type. apply in_bounds_round; auto. apply ib_swap; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply IHhas_type. apply in_bounds_round; auto. apply ib_diag; auto.
  - apply IHhas_type. apply in_bounds_round; auto. eapply ib_expa; eauto. lia.
  - apply IHhas_type. apply in_bounds_round; auto. apply ib_insert; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply rsum_defined. intros m Hm. apply IHhas_type.
    apply ib_contr; rewrite ?round_t_length, ?nth_round_t; auto; try lia.
    unfold round_t. rewrite <- !map_remove_at. apply in_bounds_round; auto.
Qed.

Theorem lemma_5_padded_eval : forall G (mu : mem) e t,
  has_type G e t -> mem_covers (round_ctx M G) mu ->
  (forall k, in_bounds (round_t M t) k -> exists v, peval G mu e k = Some v) /\
  (forall k, padding_pos M t k -> peval G mu e k = Some vzero).
Proof.
  intros G mu e t H Hmu. split.
  - intros k Hk. destruct (peval G mu e k) eqn:E; eauto.
    exfalso. eapply peval_defined; eauto.
  - intros k Hk. eapply peval_padding; eauto. apply type_of_complete; auto.
Qed.

(** ** Report Lemma 6 (simulation for expressions), R-PAD-7 *)

Hypothesis add_zero_r : forall a : scal K, s_add K a (s_zero K) = a.

Lemma radd_zero_r : forall r : res, radd r (Some vzero) = r.
Proof.
  intros [[a|]|]; simpl; auto. unfold vadd, vlift, vzero. rewrite add_zero_r. auto.
Qed.

Lemma rsum_round : forall n (f : nat -> res),
  (forall m, n < m <= round M n -> f m = Some vzero) -> rsum (round M n) f = rsum n f.
Proof.
  intros n f H. unfold rsum. apply sum_to_pad with (z' := Some vzero); auto.
  - apply radd_zero_r.
  - apply round_ge; auto.
Qed.

Lemma not_in_bounds_nth : forall p t k, p < length t -> nth p t 0 < nth p k 0 -> ~ in_bounds t k.
Proof.
  intros p t k Hp Hlt Hb. pose proof (Forall2_nth _ p _ _ 0 0 Hb Hp). simpl in H. lia.
Qed.

(** Stores that agree on the real positions of every declared tensor. *)
Definition agree (G : ctx) (mu1 mu2 : mem) : Prop :=
  forall x tx k, lookup G x = Some tx -> in_bounds tx k -> mu2 x k = mu1 x k.

Theorem lemma_6_simulation : forall G (mu1 mu2 : mem) e t,
  has_type G e t -> agree G mu1 mu2 ->
  forall k, in_bounds t k -> peval G mu2 e k = eval G mu1 e k.
Proof.
  intros G mu1 mu2 e t H Hag. induction H; intros k Hk;
    match goal with |- peval G mu2 ?E k = _ => match type of Hk with in_bounds ?T k =>
      simpl; rewrite (pguard_real G E T k); [|apply type_of_complete; econstructor; solve [eauto]|exact Hk]
    end end;
    repeat match goal with
    | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
    end.
  - eapply Hag; eauto.
  - auto.
  - rewrite IHhas_type1, IHhas_type2; auto.
  - rewrite IHhas_type1, IHhas_type2; auto.
  - destruct t; [apply in_bounds_nil_inv in Hk; subst|]; rewrite IHhas_type1, IHhas_type2; auto.
  - rewrite IHhas_type1, IHhas_type2; auto.
  - destruct t; [apply in_bounds_nil_inv in Hk; subst|]; rewrite IHhas_type1, IHhas_type2; auto.
  - destruct t; [apply in_bounds_nil_inv in Hk; subst|]; rewrite IHhas_type1, IHhas_type2; auto.
  - apply in_bounds_app_inv in Hk. destruct Hk. rewrite IHhas_type1, IHhas_type2; auto.
  - rewrite rsum_round.
    + apply rsum_ext. intros m Hm. apply IHhas_type. apply ib_insert; auto; lia.
    + intros m Hm. apply peval_padding with (t := t); [apply type_of_complete; auto|split].
      * apply ib_insert.
        -- rewrite round_t_length. lia.
        -- unfold round_t. rewrite <- map_remove_at. apply in_bounds_round; auto.
        -- rewrite nth_round_t; auto. lia.
      * apply not_in_bounds_nth with (p := i - 1); [lia|].
        rewrite nth_insert_at_same; [lia|].
        apply in_bounds_length in Hk. rewrite length_remove_at in Hk; lia.
  - apply IHhas_type. apply ib_swap; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply IHhas_type. apply ib_diag; auto.
  - apply IHhas_type. eapply ib_expa; eauto. lia.
  - apply IHhas_type. apply ib_insert; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    assert (Hlk : length k = length t - 2).
    { apply in_bounds_length in Hk. rewrite !length_remove_at in Hk; try lia.
      rewrite length_remove_at; lia. }
    rewrite rsum_round.
    + apply rsum_ext. intros m Hm. apply IHhas_type. apply ib_contr; auto.
    + intros m Hm. apply peval_padding with (t := t); [apply type_of_complete; auto|split].
      * apply ib_contr; rewrite ?round_t_length, ?nth_round_t; auto; try lia.
        unfold round_t. rewrite <- !map_remove_at. apply in_bounds_round; auto.
      * apply not_in_bounds_nth with (p := Nat.min i j - 1); [lia|].
        rewrite nth_insert_at_lt; [|lia|rewrite length_insert_at; lia].
        rewrite nth_insert_at_same; lia.
Qed.

(** ** Padded statements: progress, domain, zero padding *)

Lemma pstep_progress : forall G (mu : mem) s,
  ok_stmt G s -> mem_dom (round_ctx M G) mu -> pad_zero G mu ->
  exists mu', pstep G mu s mu' /\ mem_dom (round_ctx M G) mu' /\ pad_zero G mu'.
Proof.
  intros G mu s Hs Hd Hz. inversion Hs as [x e t Hx He]; subst.
  assert (Hx' : lookup (round_ctx M G) x = Some (round_t M t)) by (rewrite lookup_round_ctx, Hx; auto).
  assert (Hdef : forall k, in_bounds (round_t M t) k -> peval G mu e k <> None).
  { intros k Hk. eapply peval_defined; eauto. apply mem_dom_covers; auto. }
  exists (upd mu x (round_t M t) (peval G mu e)). split; [|split].
  - constructor; auto. intros k Hk. apply Hd. eauto.
  - apply upd_dom; auto.
  - intros y ty k Hy [Hr Hn]. unfold upd.
    destruct (String.eqb y x) eqn:Ey; simpl.
    + apply String.eqb_eq in Ey. subst. rewrite Hx in Hy. inversion Hy; subst.
      apply in_bounds_b_spec in Hr as Hr'. rewrite Hr'.
      apply peval_padding with (t := ty); [apply type_of_complete; auto|split; auto].
    + apply (Hz y ty k Hy). split; auto.
Qed.

Lemma psteps_progress : forall G ss (mu : mem),
  ok_stmts G ss -> mem_dom (round_ctx M G) mu -> pad_zero G mu ->
  exists mu', psteps G mu ss mu' /\ mem_dom (round_ctx M G) mu' /\ pad_zero G mu'.
Proof.
  intros G ss. induction ss as [|s ss IH]; intros mu Hok Hd Hz.
  - exists mu. split; [constructor|split; auto].
  - inversion Hok; subst. destruct (pstep_progress _ _ _ H1 Hd Hz) as [mu1 [H1' [Hd1 Hz1]]].
    destruct (IH mu1 H2 Hd1 Hz1) as [mu2 [H2' [Hd2 Hz2]]].
    exists mu2. split; [econstructor; eauto|split; auto].
Qed.

Lemma pstep_deterministic : forall G (mu : mem) s mu1 mu2, pstep G mu s mu1 -> pstep G mu s mu2 -> mu1 = mu2.
Proof. intros. inversion H; subst. inversion H0; subst. congruence. Qed.

Lemma psteps_deterministic : forall G (mu : mem) ss mu1 mu2, psteps G mu ss mu1 -> psteps G mu ss mu2 -> mu1 = mu2.
Proof.
  intros G mu ss mu1 mu2 H1. revert mu2. induction H1; intros mu2 H2; inversion H2; subst; auto.
  assert (mu' = mu'0) by (eapply pstep_deterministic; eauto). subst. auto.
Qed.

(** ** Report Theorem 2 (program evaluation with a padded store) and
    Corollary 3: a well-formed program evaluates with padding to a unique
    store, with the padded domain (so no out-of-bounds access), whose
    padding positions are all 0.  R-PAD-6. *)
Theorem thm_2_padded_program_evaluation : forall inp p,
  ok_prog p ->
  exists! mu' : mem, pprog_eval inp p mu' /\
    mem_dom (round_ctx M (ctx_of (p_decls p))) mu' /\ pad_zero (ctx_of (p_decls p)) mu'.
Proof.
  intros inp p Hok. inversion Hok as [ds ss Hds Hss]; subst. simpl.
  destruct (lemma_4_padded_store ds inp) as [Hd [Hz _]].
  destruct (psteps_progress _ _ _ Hss Hd Hz) as [mu' [H1 [H2 H3]]].
  exists mu'. split.
  - split; [constructor; auto|split; auto].
  - intros mu'' [H4 _]. inversion H4; subst. eapply psteps_deterministic; eauto.
Qed.

(** ** Report Theorem 3 (simulation), R-PAD-7: the padded run agrees with
    the unpadded run at every real position, and is 0 at every padding
    position.  (Hypothesis [add_zero_r]: [a + 0 = a].) *)

Lemma sim_step : forall G (mu1 mu2 mu1' mu2' : mem) x e,
  ok_stmt G (x, e) -> agree G mu1 mu2 ->
  step G mu1 (x, e) mu1' -> pstep G mu2 (x, e) mu2' -> agree G mu1' mu2'.
Proof.
  intros G mu1 mu2 mu1' mu2' x e Hs Hag H1 H2.
  inversion Hs as [x0 e0 t Hx Ht]; subst.
  inversion H1 as [m1 x1 e1 t1 Hx1 Hd1 He1]; subst.
  inversion H2 as [m2 x2 e2 t2 Hx2 Hd2 He2]; subst.
  rewrite Hx in Hx1, Hx2. inversion Hx1; inversion Hx2; subst.
  intros y ty k Hy Hk. unfold upd.
  destruct (String.eqb y x) eqn:Ey; simpl; [|exact (Hag y ty k Hy Hk)].
  apply String.eqb_eq in Ey. subst. rewrite Hx in Hy. inversion Hy; subst.
  apply in_bounds_b_spec in Hk as Hk'. rewrite Hk'.
  assert (Hr : in_bounds_b (round_t M ty) k = true) by (apply in_bounds_b_spec, in_bounds_round; auto).
  rewrite Hr. eapply lemma_6_simulation; eauto.
Qed.

Lemma sim_steps : forall G ss (mu1 mu2 mu1' mu2' : mem),
  ok_stmts G ss -> agree G mu1 mu2 ->
  steps G mu1 ss mu1' -> psteps G mu2 ss mu2' -> agree G mu1' mu2'.
Proof.
  intros G ss. induction ss as [|s ss IH]; intros mu1 mu2 mu1' mu2' Hok Hag H1 H2.
  - inversion H1; inversion H2; subst. auto.
  - inversion Hok as [|s' ss' Hs Hss]; subst.
    inversion H1 as [|m1 m1' m1'' s1 ss1 Hst1 Hsts1]; subst.
    inversion H2 as [|m2 m2' m2'' s2 ss2 Hst2 Hsts2]; subst.
    destruct s as [x e].
    apply (IH m1' m2'); auto. eapply sim_step; eauto.
Qed.

Theorem thm_3_simulation : forall inp p (mu1 mu2 : mem),
  ok_prog p -> prog_eval inp p mu1 -> pprog_eval inp p mu2 ->
  forall x t k, lookup (ctx_of (p_decls p)) x = Some t ->
    (in_bounds t k -> mu2 x k = mu1 x k) /\
    (padding_pos M t k -> mu2 x k = Some vzero).
Proof.
  intros inp p mu1 mu2 Hok H1 H2 x t k Hx. split.
  - inversion H1; subst. inversion H2; subst. inversion Hok; subst. simpl in Hx.
    destruct (lemma_4_padded_store ds inp) as [_ [_ Hinit]].
    intros Hk. eapply (sim_steps (ctx_of ds) ss); eauto.
  - destruct (thm_2_padded_program_evaluation inp p Hok) as [mu' [[H3 [H4 H5]] _]].
    assert (mu' = mu2).
    { inversion H3; subst. inversion H2; subst. eapply psteps_deterministic; eauto. }
    subst. intros Hp. eapply H5; eauto.
Qed.

End Padding.
