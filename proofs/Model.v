(** * The model language (report Fig. 1, 7-12) and its translation into TeIL.

    The model language has its own typing relation (report Fig. 9), typing
    function, evaluation function (report Fig. 12) and statement/program
    evaluation (report Fig. 10-11).  The translation [tr] (R-GR-6,
    DECISIONS 5) preserves typing ([tr_preserves_typing]) and meaning
    ([tr_preserves_eval], [tr_prog_eval]); the report's Theorem 1 and
    Corollary 2 for the model language follow. *)

From Coq Require Import String List Arith Lia Bool FunctionalExtensionality.
From TeIL Require Import Util Scalar Syntax Typing Eval Safety.
Import ListNotations.

Inductive mop : Type := MAdd | MSub | MMul | MDiv.

Inductive mexpr : Type :=
| MVar (x : name)                      (* x *)
| MParen (e : mexpr)                   (* ( e ) *)
| MBin (op : mop) (e0 e1 : mexpr)      (* e0 + e1, e0 - e1, e0 * e1, e0 / e1 *)
| MOuter (e0 e1 : mexpr)               (* e0 # e1 *)
| MContr (e : mexpr) (m n : nat)       (* e .[m n] *)
| MTransp (e : mexpr) (m n : nat).     (* e ^[m n] *)

(** Declarations [var [input] [output] x : [d1 ... dk]] are [decl]s. *)
Record mprog : Type := mkMProg {
  mp_decls : list decl;
  mp_stmts : list (name * mexpr)
}.

(** ** Typing (report Fig. 9; positions in either order, DECISIONS 5) *)

Inductive mhas_type (G : ctx) : mexpr -> list nat -> Prop :=
| t_var : forall x t, lookup G x = Some t -> mhas_type G (MVar x) t
| t_paren : forall e t, mhas_type G e t -> mhas_type G (MParen e) t
| t_prod : forall e0 e1 t0 t1,
    mhas_type G e0 t0 -> mhas_type G e1 t1 -> mhas_type G (MOuter e0 e1) (t0 ++ t1)
| t_trans : forall e m n t,
    mhas_type G e t -> 1 <= m <= length t -> 1 <= n <= length t -> m <> n ->
    mhas_type G (MTransp e m n) (swap_at 0 (m - 1) (n - 1) t)
| t_contr : forall e m n t,
    mhas_type G e t -> 1 <= m <= length t -> 1 <= n <= length t -> m <> n ->
    nth (m - 1) t 0 = nth (n - 1) t 0 ->
    mhas_type G (MContr e m n) (remove_at (Nat.min m n - 1) (remove_at (Nat.max m n - 1) t))
| t_elem : forall op e0 e1 t,
    mhas_type G e0 t -> mhas_type G e1 t -> mhas_type G (MBin op e0 e1) t
| t_smul : forall e0 e1 t,
    mhas_type G e0 [] -> mhas_type G e1 t -> mhas_type G (MBin MMul e0 e1) t
| t_sdiv : forall e0 e1 t,
    mhas_type G e0 t -> mhas_type G e1 [] -> mhas_type G (MBin MDiv e0 e1) t.

Fixpoint mtype_of (G : ctx) (e : mexpr) : option (list nat) :=
  match e with
  | MVar x => lookup G x
  | MParen e => mtype_of G e
  | MBin op e0 e1 =>
      obind (mtype_of G e0) (fun t0 => obind (mtype_of G e1) (fun t1 =>
        match op with
        | MAdd | MSub => ty_elem t0 t1
        | MMul => ty_mul t0 t1
        | MDiv => ty_div t0 t1
        end))
  | MOuter e0 e1 => obind (mtype_of G e0) (fun t0 => obind (mtype_of G e1) (fun t1 => Some (t0 ++ t1)))
  | MContr e m n => obind (mtype_of G e) (ty_contr m n)
  | MTransp e m n => obind (mtype_of G e) (ty_transp m n)
  end.

(** ** Translation into TeIL (R-GR-6).  The parentheses R-GR-6 adds around
    non-atomic operands are only needed for printing; on abstract syntax
    they are transparent (T-Paren, R-EV-5), so [tr] omits them. *)

Fixpoint tr (e : mexpr) : expr :=
  match e with
  | MVar x => EVar x
  | MParen e => EParen (tr e)
  | MBin MAdd e0 e1 => EAdd (tr e0) (tr e1)
  | MBin MSub e0 e1 => ESub (tr e0) (tr e1)
  | MBin MMul e0 e1 => EMul (tr e0) (tr e1)
  | MBin MDiv e0 e1 => EDiv (tr e0) (tr e1)
  | MOuter e0 e1 => EProd (tr e0) (tr e1)
  | MContr e m n => EContr m n (tr e)
  | MTransp e m n => ETransp m n (tr e)
  end.

Definition tr_prog (p : mprog) : prog :=
  mkProg (mp_decls p) (map (fun s => (fst s, tr (snd s))) (mp_stmts p)).

Lemma tr_type_of : forall G e, mtype_of G e = type_of G (tr e).
Proof.
  intros G e. induction e; simpl; auto.
  - destruct op; simpl; rewrite IHe1, IHe2; auto.
  - rewrite IHe1, IHe2; auto.
  - rewrite IHe; auto.
  - rewrite IHe; auto.
Qed.

Theorem tr_preserves_typing : forall G e t, mhas_type G e t <-> has_type G (tr e) t.
Proof.
  intros G e t. split.
  - induction 1; simpl; try (constructor; auto; fail).
    destruct op; constructor; auto.
  - revert t. induction e; intros t H; simpl in H.
    + inversion H; subst. constructor; auto.
    + inversion H; subst. constructor; auto.
    + destruct op; inversion H; subst.
      * apply t_elem; auto.
      * apply t_elem; auto.
      * apply t_elem; auto.
      * apply t_smul; auto.
      * apply t_elem; auto.
      * apply t_sdiv; auto.
    + inversion H; subst. constructor; auto.
    + inversion H; subst. constructor; auto.
    + inversion H; subst. constructor; auto.
Qed.

Corollary mtype_of_correct : forall G e t, mhas_type G e t <-> mtype_of G e = Some t.
Proof. intros. rewrite tr_preserves_typing, tr_type_of. apply type_of_correct. Qed.

(** ** Evaluation (report Fig. 12, Eq. (7)-(12)) *)

Section MEval.
Context {K : Scalar}.
Local Notation val := (val K).
Local Notation res := (res K).
Local Notation mem := (mem K).

Definition mop_fun (op : mop) : res -> res -> res :=
  match op with MAdd => radd | MSub => rsub | MMul => rmul | MDiv => rdiv end.

Fixpoint meval (G : ctx) (mu : mem) (e : mexpr) (k : list nat) {struct e} : res :=
  match e with
  | MVar x => mu x k                                                      (* Eq. (7) *)
  | MParen e => meval G mu e k                                            (* Eq. (8) *)
  | MOuter e0 e1 =>                                                       (* Eq. (9) *)
      match mtype_of G e0 with
      | Some t0 => rmul (meval G mu e0 (firstn (length t0) k)) (meval G mu e1 (skipn (length t0) k))
      | None => None
      end
  | MTransp e m n => meval G mu e (swap_at 0 (m - 1) (n - 1) k)           (* Eq. (10) *)
  | MContr e m n =>                                                       (* Eq. (11) *)
      match mtype_of G e with
      | Some t => rsum (nth (Nat.min m n - 1) t 0)
                    (fun l => meval G mu e (insert_at (Nat.max m n - 1) l
                                              (insert_at (Nat.min m n - 1) l k)))
      | None => None
      end
  | MBin op e0 e1 =>                                                      (* Eq. (12) *)
      match op with
      | MMul => match mtype_of G e0 with
                | Some [] => rmul (meval G mu e0 []) (meval G mu e1 k)
                | Some _ => rmul (meval G mu e0 k) (meval G mu e1 k)
                | None => None
                end
      | MDiv => match mtype_of G e1 with
                | Some [] => rdiv (meval G mu e0 k) (meval G mu e1 [])
                | Some _ => rdiv (meval G mu e0 k) (meval G mu e1 k)
                | None => None
                end
      | _ => mop_fun op (meval G mu e0 k) (meval G mu e1 k)
      end
  end.

Theorem tr_preserves_eval : forall G (mu : mem) e k, meval G mu e k = eval G mu (tr e) k.
Proof.
  intros G mu e. induction e; intros k; simpl; auto.
  - destruct op; simpl; rewrite ?tr_type_of;
      repeat match goal with |- context [match type_of ?G ?e with _ => _ end] =>
        destruct (type_of G e) as [[|]|] end; rewrite ?IHe1, ?IHe2; auto.
  - rewrite tr_type_of. destruct (type_of G (tr e1)); auto. rewrite IHe1, IHe2. auto.
  - rewrite tr_type_of. destruct (type_of G (tr e)); auto. apply rsum_ext. intros. auto.
Qed.

(** ** Statements and programs (report Fig. 8, 10, 11) *)

Inductive mok_stmt (G : ctx) : name * mexpr -> Prop :=
| ok_stmt_m : forall x e t, lookup G x = Some t -> mhas_type G e t -> mok_stmt G (x, e).

Definition mok_prog (p : mprog) : Prop :=
  decls_ok (mp_decls p) /\ Forall (mok_stmt (ctx_of (mp_decls p))) (mp_stmts p).

Inductive mstep (G : ctx) : mem -> name * mexpr -> mem -> Prop :=
| ev_stmt : forall mu x e t,
    lookup G x = Some t ->
    (forall k, in_bounds t k -> mu x k <> None) ->
    (forall k, in_bounds t k -> meval G mu e k <> None) ->
    mstep G mu (x, e) (upd mu x t (meval G mu e)).

Inductive msteps (G : ctx) : mem -> list (name * mexpr) -> mem -> Prop :=
| ev_empty : forall mu, msteps G mu [] mu
| ev_seq : forall mu mu' mu'' s ss, mstep G mu s mu' -> msteps G mu' ss mu'' -> msteps G mu (s :: ss) mu''.

Inductive mprog_eval (inp : name -> list nat -> val) : mprog -> mem -> Prop :=
| ev_prog : forall ds ss mu', msteps (ctx_of ds) (init_mem ds inp) ss mu' -> mprog_eval inp (mkMProg ds ss) mu'.

Lemma tr_ok_stmt : forall G s, mok_stmt G s <-> ok_stmt G (fst s, tr (snd s)).
Proof.
  intros G [x e]; simpl; split; intros H; inversion H; subst; econstructor; eauto;
    apply tr_preserves_typing; auto.
Qed.

Theorem tr_prog_ok : forall p, mok_prog p <-> ok_prog (tr_prog p).
Proof.
  intros [ds ss]. unfold mok_prog, tr_prog. simpl. split.
  - intros [Hd Hs]. constructor; auto. apply ok_stmts_forall.
    rewrite Forall_map. eapply Forall_impl; [|apply Hs]. intros s Hs'. apply tr_ok_stmt; auto.
  - intros H. inversion H as [ds' ss' Hd Hs]; subst. split; auto. apply ok_stmts_forall in Hs.
    rewrite Forall_map in Hs. eapply Forall_impl; [|apply Hs]. intros s Hs'. apply tr_ok_stmt; auto.
Qed.

Lemma tr_step : forall G mu s mu', mstep G mu s mu' <-> step G mu (fst s, tr (snd s)) mu'.
Proof.
  intros G mu [x e] mu'; simpl. split; intros H; inversion H; subst.
  - assert (Heq : meval G mu e = eval G mu (tr e))
      by (apply functional_extensionality; intros; apply tr_preserves_eval).
    rewrite Heq. constructor; auto. intros k Hk. rewrite <- tr_preserves_eval. auto.
  - assert (Heq : meval G mu e = eval G mu (tr e))
      by (apply functional_extensionality; intros; apply tr_preserves_eval).
    rewrite <- Heq. constructor; auto. intros k Hk. rewrite tr_preserves_eval. auto.
Qed.

Lemma tr_steps : forall G mu ss mu',
  msteps G mu ss mu' <-> steps G mu (map (fun s => (fst s, tr (snd s))) ss) mu'.
Proof.
  intros G mu ss. revert mu. induction ss as [|s ss IH]; intros mu mu'; simpl; split; intros H.
  - inversion H; subst; constructor.
  - inversion H; subst; constructor.
  - inversion H; subst. econstructor; [apply tr_step; eauto|apply IH; eauto].
  - inversion H; subst. econstructor; [apply (tr_step G mu s); eauto|apply IH; eauto].
Qed.

Theorem tr_prog_eval : forall inp p mu', mprog_eval inp p mu' <-> prog_eval inp (tr_prog p) mu'.
Proof.
  intros inp [ds ss] mu'. unfold tr_prog; simpl. split; intros H; inversion H; subst; constructor.
  - apply tr_steps; auto.
  - apply tr_steps; auto.
Qed.

(** ** Report Lemma 2 (i) for the model language *)
Theorem lemma_2_model_well_defined : forall G (mu : mem) e t,
  mhas_type G e t -> mem_covers G mu -> forall k, in_bounds t k -> meval G mu e k <> None.
Proof.
  intros. rewrite tr_preserves_eval. eapply eval_defined; eauto. apply tr_preserves_typing; auto.
Qed.

(** ** Report Theorem 1 (program evaluation): a well-formed model program
    evaluates to a unique store with the domain of the initial store. *)
Theorem thm_1_model_program_evaluation : forall inp p,
  mok_prog p ->
  exists! mu' : mem, mprog_eval inp p mu' /\ mem_dom (ctx_of (mp_decls p)) mu'.
Proof.
  intros inp p Hok. apply tr_prog_ok in Hok.
  destruct (program_evaluation_unique inp (tr_prog p) Hok) as [mu' [[H1 H2] H3]].
  exists mu'. split.
  - split; auto. apply tr_prog_eval; auto.
  - intros mu'' [H4 H5]. apply H3. split; auto. apply tr_prog_eval; auto.
Qed.

(** ** Report Corollary 2 (safety) for the model language: all reads made
    when evaluating a right-hand side at an in-bounds index, and all
    writes of the statement, are inside the declared bounds.  Reads are
    those of the translated expression ([eval_reads] shows [eval] looks at
    nothing else, and [tr_preserves_eval] that [meval] is [eval] of [tr]). *)
Theorem cor_2_model_safety : forall ds ss x e,
  mok_prog (mkMProg ds ss) -> In (x, e) ss ->
  exists t, lookup (ctx_of ds) x = Some t /\
    (forall k, in_bounds t k ->
       forall y k', In (y, k') (reads (ctx_of ds) (tr e) k) ->
       exists ty, lookup (ctx_of ds) y = Some ty /\ in_bounds ty k') /\
    (forall (mu mu' : mem), mstep (ctx_of ds) mu (x, e) mu' ->
       forall y k, mu' y k <> mu y k -> y = x /\ in_bounds t k).
Proof.
  intros ds ss x e Hok Hin.
  assert (Hok' : ok_prog (tr_prog (mkMProg ds ss))) by (apply tr_prog_ok; auto).
  assert (Hin' : In (x, tr e) (p_stmts (tr_prog (mkMProg ds ss)))).
  { simpl. apply in_map_iff. exists (x, e). auto. }
  destruct (@cor_2_safety K ds _ x (tr e) Hok' Hin') as [t [Hx [Hr Hw]]].
  exists t. split; auto. split; auto.
  intros mu mu' Hst. apply Hw. apply (tr_step _ _ (x, e)). auto.
Qed.

End MEval.
