(** * Dynamic semantics of full TeIL (TeIL Fig. 6, 9; report Fig. 10-12).

    Expressions are evaluated denotationally at an index list ([eval]);
    statements and programs by the inductive relations [step], [steps],
    [prog_eval] (St-Stmt, St-Empty, St-Seq, Eval-Prog).  semantics.md:
    R-EV-2 ... R-EV-18. *)

From Coq Require Import String List Arith Lia Bool.
From TeIL Require Import Util Scalar Syntax Typing.
Import ListNotations.

Section Eval.
Context {K : Scalar}.
Local Notation val := (val K).
Local Notation res := (res K).

(** ** Stores (TeIL Eq. (1), report Def. 3 (iii))

    A store maps a name and an index list to [Some v] (in the domain, with
    [v] a number or [•]) or [None] (outside the domain). *)
Definition mem : Type := name -> list nat -> res.

(** ** Expression evaluation (TeIL Fig. 6, report Fig. 12)

    1-based positions [i] become 0-based [i - 1].  For [transp], [diag],
    [contr] the two positions may be given in either order: [a = min i j],
    [b = max i j] (DECISIONS 3-5). *)
Fixpoint eval (G : ctx) (mu : mem) (e : expr) (k : list nat) {struct e} : res :=
  match e with
  | EVar x => mu x k                                                     (* R-EV-4 *)
  | EParen e => eval G mu e k                                            (* R-EV-5 *)
  | EAdd e0 e1 => radd (eval G mu e0 k) (eval G mu e1 k)                 (* R-EV-6 *)
  | ESub e0 e1 => rsub (eval G mu e0 k) (eval G mu e1 k)                 (* R-EV-6 *)
  | EMul e0 e1 =>                                                        (* R-EV-7 *)
      match type_of G e0 with
      | Some [] => rmul (eval G mu e0 []) (eval G mu e1 k)    (* scalar on the left *)
      | Some _ => rmul (eval G mu e0 k) (eval G mu e1 k)
      | None => None
      end
  | EDiv e0 e1 =>                                                        (* R-EV-8 *)
      match type_of G e1 with
      | Some [] => rdiv (eval G mu e0 k) (eval G mu e1 [])    (* scalar on the right *)
      | Some _ => rdiv (eval G mu e0 k) (eval G mu e1 k)
      | None => None
      end
  | EProd e0 e1 =>                                                       (* R-EV-9 *)
      match type_of G e0 with
      | Some t0 => rmul (eval G mu e0 (firstn (length t0) k))
                        (eval G mu e1 (skipn (length t0) k))
      | None => None
      end
  | ERed i e =>                                                          (* R-EV-10 *)
      match type_of G e with
      | Some t => rsum (nth (i - 1) t 0) (fun m => eval G mu e (insert_at (i - 1) m k))
      | None => None
      end
  | ETransp i j e => eval G mu e (swap_at 0 (i - 1) (j - 1) k)          (* R-EV-11 *)
  | EDiag i j e =>                                                       (* R-EV-12 *)
      eval G mu e (insert_at (Nat.max i j - 1) (nth (Nat.min i j - 1) k 0) k)
  | EExpa i n e => eval G mu e (remove_at (i - 1) k)                     (* R-EV-13 *)
  | EProj i m e => eval G mu e (insert_at (i - 1) m k)                   (* R-EV-14 *)
  | EContr i j e =>                                                      (* R-EV-15 *)
      match type_of G e with
      | Some t => rsum (nth (Nat.min i j - 1) t 0)
                    (fun m => eval G mu e (insert_at (Nat.max i j - 1) m
                                             (insert_at (Nat.min i j - 1) m k)))
      | None => None
      end
  end.

(** ** Store update and statements (TeIL Fig. 9, report Fig. 11) *)

(** [upd mu x t g] replaces the whole tensor [x] (all [k <= t]) by [g]. *)
Definition upd (mu : mem) (x : name) (t : list nat) (g : list nat -> res) : mem :=
  fun y k => if String.eqb y x && in_bounds_b t k then g k else mu y k.

(** St-Stmt: every element of the right-hand side is evaluated on the OLD
    store, then the whole target is replaced (DECISIONS 9).  The premises
    say the target is in the store's domain at every [k <= t] (no
    out-of-bounds write) and the right-hand side is well-defined there. *)
Inductive step (G : ctx) : mem -> stmt -> mem -> Prop :=
| St_Stmt : forall mu x e t,                                             (* R-EV-16 *)
    lookup G x = Some t ->
    (forall k, in_bounds t k -> mu x k <> None) ->
    (forall k, in_bounds t k -> eval G mu e k <> None) ->
    step G mu (x, e) (upd mu x t (eval G mu e)).

(** St-Empty, St-Seq (left to right; the paper's [stmts stmt] form). *)
Inductive steps (G : ctx) : mem -> list stmt -> mem -> Prop :=
| St_Empty : forall mu, steps G mu [] mu                                 (* R-EV-17 *)
| St_Seq : forall mu mu' mu'' s ss,                                      (* R-EV-17 *)
    step G mu s mu' -> steps G mu' ss mu'' -> steps G mu (s :: ss) mu''.

(** ** Initial store (report d-var / d-in-var, TeIL [μ_allocs], DECISIONS 8)

    [inp x k] is the value the caller supplies for element [k] of an input
    tensor [x]; every other tensor starts with every element [•].  R-EV-3. *)
Definition init_mem (ds : list decl) (inp : name -> list nat -> val) : mem :=
  fun x k =>
    match find_decl ds x with
    | Some d => if in_bounds_b (d_type d) k
                then Some (if is_input ds d then inp x k else Undef)
                else None
    | None => None
    end.

(** Eval-Prog (TeIL Fig. 9, report ev-prog').  R-EV-18. *)
Inductive prog_eval (inp : name -> list nat -> val) : prog -> mem -> Prop :=
| Eval_Prog : forall ds ss mu',
    steps (ctx_of ds) (init_mem ds inp) ss mu' ->
    prog_eval inp (mkProg ds ss) mu'.

(** ** Domains *)

(** Def. 4.2 (equivalence of memories): same domains. *)
Definition mem_equiv (mu1 mu2 : mem) : Prop :=
  forall x k, mu1 x k <> None <-> mu2 x k <> None.

(** [mu] is defined at least on the domain described by [G]
    (report Lemma 2: [dom(μ(Γ)) ⊆ dom(μ')]). *)
Definition mem_covers (G : ctx) (mu : mem) : Prop :=
  forall x t k, lookup G x = Some t -> in_bounds t k -> mu x k <> None.

(** [mu] has exactly the domain described by [G]. *)
Definition mem_dom (G : ctx) (mu : mem) : Prop :=
  forall x k, mu x k <> None <-> exists t, lookup G x = Some t /\ in_bounds t k.

Lemma mem_equiv_refl : forall mu, mem_equiv mu mu.
Proof. unfold mem_equiv. tauto. Qed.

Lemma mem_equiv_sym : forall mu1 mu2, mem_equiv mu1 mu2 -> mem_equiv mu2 mu1.
Proof. unfold mem_equiv. intros. rewrite H. tauto. Qed.

Lemma mem_equiv_trans : forall mu1 mu2 mu3, mem_equiv mu1 mu2 -> mem_equiv mu2 mu3 -> mem_equiv mu1 mu3.
Proof. unfold mem_equiv. intros. rewrite H. auto. Qed.

Lemma mem_dom_equiv : forall G mu1 mu2, mem_dom G mu1 -> mem_equiv mu1 mu2 -> mem_dom G mu2.
Proof. unfold mem_dom, mem_equiv. intros. rewrite <- H0. auto. Qed.

Lemma mem_dom_covers : forall G mu, mem_dom G mu -> mem_covers G mu.
Proof. unfold mem_dom, mem_covers. intros. apply H. eauto. Qed.

Lemma mem_dom_equiv2 : forall G mu1 mu2, mem_dom G mu1 -> mem_dom G mu2 -> mem_equiv mu1 mu2.
Proof. unfold mem_dom, mem_equiv. intros. rewrite H, H0. tauto. Qed.

(** The initial store has the domain of [Γ_allocs] (report Lemma 1). *)
Lemma init_mem_dom : forall ds inp, mem_dom (ctx_of ds) (init_mem ds inp).
Proof.
  unfold mem_dom, init_mem. intros ds inp x k. rewrite lookup_ctx_of.
  destruct (find_decl ds x) as [d|]; simpl; split; intros H.
  - destruct (in_bounds_b (d_type d) k) eqn:E; [|congruence].
    exists (d_type d). split; auto. apply in_bounds_b_spec; auto.
  - destruct H as [t [Ht Hk]]. inversion Ht; subst.
    apply in_bounds_b_spec in Hk. rewrite Hk. discriminate.
  - congruence.
  - destruct H as [t [Ht _]]. discriminate.
Qed.

(** Updating a tensor inside its domain keeps the domain. *)
Lemma upd_dom : forall G mu x t g,
  mem_dom G mu -> lookup G x = Some t ->
  (forall k, in_bounds t k -> g k <> None) ->
  mem_dom G (upd mu x t g).
Proof.
  unfold mem_dom, upd. intros G mu x t g Hd Hx Hg y k.
  destruct (String.eqb y x) eqn:Ey; simpl; [|apply Hd].
  apply String.eqb_eq in Ey; subst.
  destruct (in_bounds_b t k) eqn:Ek; [|apply Hd].
  apply in_bounds_b_spec in Ek. split; intros _; [eauto|]. apply Hg; auto.
Qed.

Lemma upd_equiv : forall mu x t g,
  (forall k, in_bounds t k -> mu x k <> None) ->
  (forall k, in_bounds t k -> g k <> None) ->
  mem_equiv mu (upd mu x t g).
Proof.
  unfold mem_equiv, upd. intros mu x t g Hmu Hg y k.
  destruct (String.eqb y x) eqn:Ey; simpl; [|tauto].
  apply String.eqb_eq in Ey; subst.
  destruct (in_bounds_b t k) eqn:Ek; [|tauto].
  apply in_bounds_b_spec in Ek. split; intros _; auto.
Qed.

(** ** Determinism *)

Lemma step_deterministic : forall G mu s mu1 mu2, step G mu s mu1 -> step G mu s mu2 -> mu1 = mu2.
Proof.
  intros G mu s mu1 mu2 H1 H2. inversion H1; subst. inversion H2; subst. congruence.
Qed.

Lemma steps_deterministic : forall G mu ss mu1 mu2, steps G mu ss mu1 -> steps G mu ss mu2 -> mu1 = mu2.
Proof.
  intros G mu ss mu1 mu2 H1. revert mu2. induction H1; intros mu2 H2; inversion H2; subst; auto.
  assert (mu' = mu'0) by (eapply step_deterministic; eauto). subst. auto.
Qed.

Lemma prog_eval_deterministic : forall inp p mu1 mu2,
  prog_eval inp p mu1 -> prog_eval inp p mu2 -> mu1 = mu2.
Proof.
  intros inp p mu1 mu2 H1 H2. inversion H1; subst. inversion H2; subst.
  eapply steps_deterministic; eauto.
Qed.

Lemma steps_app : forall G mu s1 s2 mu',
  steps G mu (s1 ++ s2) mu' <-> exists mu1, steps G mu s1 mu1 /\ steps G mu1 s2 mu'.
Proof.
  intros G mu s1. revert mu. induction s1; intros mu s2 mu'; simpl; split; intros H.
  - exists mu. split; auto. constructor.
  - destruct H as [mu1 [H1 H2]]. inversion H1; subst. auto.
  - inversion H; subst. apply IHs1 in H5. destruct H5 as [mu1 [H5 H6]].
    exists mu1. split; auto. econstructor; eauto.
  - destruct H as [mu1 [H1 H2]]. inversion H1; subst. econstructor; eauto.
    apply IHs1. eauto.
Qed.

End Eval.

Arguments mem K : clear implicits.
