(** * Einsum normal form and the correctness of contraction lifting.

    TeIL Sec. 5 and spec/lifting.md (R-LIFT-1 ... R-LIFT-12): the compiler
    ([src/lift.c]) reads a right-hand side as an einsum -- operands with
    index labels, a list of output labels and a list of summed labels --
    chooses an order of pairwise contractions, and emits one statement
    [_tK = contr i j (prod X Y)] (or [red+], [diag], [transp], [mul]) per
    step through fresh temporaries; sums over [add]/[sub] may be
    distributed.  This file proves that rewriting correct, over the reals:

    - [sum_over]: finite sums over all assignments of a list of labels,
      with exchange of sums (Fubini: [sum_over_swap], [sum_over_perm]),
      distributivity ([sum_over_mul_l], [sum_over_mul_r]), the product of
      sums over independent label sets ([sum_over_mul]) and splitting over
      [add]/[sub] ([sum_over_radd], [sum_over_rsub]), all proved here from
      [rsum] (= [Util.sum_to]);
    - [reads_as]: the einsum reading (R-LIFT-3) of [prod], [mul] (by a
      scalar, and Hadamard), [contr], [red+], [transp], [diag], [proj] and
      parentheses; every other sub-expression is an opaque factor.
      [to_einsum] computes one (maximal) reading.  [reads_as_eval],
      [to_einsum_correct]: TeIL evaluation (Eval.v) of a well-typed
      expression equals the einsum value at every index;
    - [ein_group_step], [ein_pair_step], [ein_local_sum_step]: replacing
      some factors by one factor whose value is their einsum summed over
      the labels no other factor uses (the temporary
      [_t = contr ... (prod X Y)]; or a label summed in a single factor,
      summed first) preserves the value (R-LIFT-5 ... R-LIFT-7);
      [ein_steps_correct]: so does ANY sequence of such steps, i.e. any
      contraction order the DP or greedy search (R-LIFT-6) picks;
    - [ein_add_factor], [ein_sub_factor], [lift_distribute_add],
      [lift_distribute_sub]: sums distribute over [add]/[sub] (R-LIFT-8);
    - [temps_group_correct], [temps_group_program] (any scalar type),
      [lift_chain_steps], [lift_einsum_sim], [lift_statement_correct],
      [lift_program_correct], [lift_program_decls] (reals): a statement
      [x = e] replaced by [_t1 = e1; ...; _tn = en; x = c] through fresh
      temporaries ends with the same value of every tensor other than the
      temporaries, for the statement, for a whole program, and for the
      lifted program's declarations (R-LIFT-1, R-LIFT-10, R-LIFT-12); one
      group at a time, so a program with several lifted statements follows
      by applying [lift_program_correct] once per group (earlier groups
      are unconstrained); [sim] and its lemmas compose
      several lifted einsums (contexts, distributed terms, leaves lifted
      first, R-LIFT-4);
    - worked instances: [lift_matmul_chain] (examples/lift/matmul_chain)
      and [lift_add_distribute] (examples/lift/add_distribute, R-LIFT-8).

    Values are those of Eval.v ([res RS]: [None], [Some Undef] = [•], or a
    real number); sums range over extents >= 1, so [•] propagates the same
    way before and after lifting.

    FLOATING POINT: every theorem that reorders sums or products is proved
    over a field (Coq's reals, [RScalar.RS]), not over doubles.  The
    lifted program adds and multiplies in a different order than the
    original (reassociation, Fubini, distributivity), which CHANGES
    ROUNDING: on doubles its results may differ from the original's in
    the last bits, and by more under cancellation or overflow.  That is
    why the compiler's outputs are compared with the interpreter's with a
    relative tolerance (R-LIFT-12), never bit for bit.  Only
    [temps_group_correct], [temps_group_program] and the [sim] lemmas
    (pure store reasoning) hold for every scalar type. *)

From Coq Require Import String List Arith Lia Bool Reals Lra FunctionalExtensionality
  Permutation.
From TeIL Require Import Util Scalar Syntax Typing Eval Safety RScalar Lifting.
Import ListNotations.

Local Notation rres := (res RS).
Local Notation rmem := (mem RS).

(** ** Algebra of results over the reals *)

Definition rone : rres := Some (Num (1%R : scal RS)).

Lemma rmul_comm : forall a b : rres, rmul a b = rmul b a. Proof. intros; rsolve. Qed.
Lemma rmul_one_l : forall a : rres, rmul rone a = a.
Proof. intros [[a|]|]; unfold rone; rsimpl; auto. f_equal. f_equal. change (1 * a = a)%R. ring. Qed.
Lemma rmul_one_r : forall a : rres, rmul a rone = a.
Proof. intros. rewrite rmul_comm. apply rmul_one_l. Qed.
Lemma rmul_rsub_r : forall a b c : rres, rmul (rsub a b) c = rsub (rmul a c) (rmul b c).
Proof. intros; rsolve. Qed.

(** ** Label environments and finite sums over label assignments *)

(** An environment gives every label (a [nat]) an index value. *)
Definition env := nat -> nat.

Definition eupd (r : env) (l m : nat) : env := fun x => if Nat.eqb x l then m else r x.

Lemma eupd_eq : forall r l m, eupd r l m l = m.
Proof. intros. unfold eupd. rewrite Nat.eqb_refl. auto. Qed.

Lemma eupd_neq : forall r l m x, x <> l -> eupd r l m x = r x.
Proof. intros. unfold eupd. destruct (Nat.eqb x l) eqn:E; bool_to_prop; auto; lia. Qed.

Lemma eupd_comm : forall r l m l' m', l <> l' -> eupd (eupd r l m) l' m' = eupd (eupd r l' m') l m.
Proof.
  intros. apply functional_extensionality. intros x. unfold eupd.
  destruct (Nat.eqb x l) eqn:E1; destruct (Nat.eqb x l') eqn:E2; bool_to_prop; subst; auto; lia.
Qed.

Lemma eupd_same : forall r l m m', eupd (eupd r l m) l m' = eupd r l m'.
Proof.
  intros. apply functional_extensionality. intros x. unfold eupd.
  destruct (Nat.eqb x l); auto.
Qed.

Lemma eupd_id : forall r l, eupd r l (r l) = r.
Proof.
  intros. apply functional_extensionality. intros x. unfold eupd.
  destruct (Nat.eqb x l) eqn:E; bool_to_prop; subst; auto.
Qed.

Section SumOver.
Variable ext : nat -> nat.   (* the extent of every label *)

(** [sum_over S P r]: the sum of [P] over all assignments of the labels
    [S] (label [l] ranging over [1 .. ext l]), the other labels as in [r]. *)
Fixpoint sum_over (S : list nat) (P : env -> rres) (r : env) : rres :=
  match S with
  | [] => P r
  | l :: S' => rsum (ext l) (fun m => sum_over S' P (eupd r l m))
  end.

(** [P] does not depend on label [l]. *)
Definition indep (l : nat) (P : env -> rres) : Prop := forall r m, P (eupd r l m) = P r.

(** [r] assigns every label of [V] a value within its extent. *)
Definition valid (r : env) (V : list nat) : Prop := forall l, In l V -> 1 <= r l <= ext l.

Lemma sum_over_ext : forall S P Q r,
  (forall r', (forall l, ~ In l S -> r' l = r l) -> valid r' S -> P r' = Q r') ->
  sum_over S P r = sum_over S Q r.
Proof.
  induction S as [|l S IH]; intros P Q r H; simpl.
  - apply H; [auto|intros l []].
  - apply rsum_ext. intros m Hm. apply IH. intros r' H1 H2. apply H.
    + intros x Hx. rewrite H1 by (intro; apply Hx; right; auto).
      apply eupd_neq. intro; apply Hx; left; auto.
    + intros x Hx. destruct (in_dec Nat.eq_dec x S) as [Hin|Hin]; [apply H2; auto|].
      destruct Hx as [<-|Hx]; [|contradiction].
      rewrite H1 by auto. rewrite eupd_eq. auto.
Qed.

Lemma sum_over_ext_all : forall S P Q r, (forall r', P r' = Q r') -> sum_over S P r = sum_over S Q r.
Proof. intros. apply sum_over_ext. auto. Qed.

Lemma sum_over_app : forall S1 S2 P r,
  sum_over (S1 ++ S2) P r = sum_over S1 (sum_over S2 P) r.
Proof.
  induction S1 as [|l S1 IH]; intros S2 P r; simpl; auto.
  apply rsum_ext. intros. apply IH.
Qed.

(** A sum does not depend on a label it sums over, nor on one its body
    does not depend on. *)
Lemma sum_over_indep : forall S P l, (In l S \/ indep l P) -> indep l (sum_over S P).
Proof.
  induction S as [|l' S IH]; intros P l H r m; simpl.
  - destruct H as [[]|H]. apply H.
  - apply rsum_ext. intros m' _. destruct (Nat.eq_dec l l') as [->|Hne].
    + rewrite eupd_same. auto.
    + rewrite eupd_comm by auto. apply IH.
      destruct H as [[->|H]|H]; [congruence|auto|auto].
Qed.

Lemma sum_over_in : forall S P l r m, In l S -> sum_over S P (eupd r l m) = sum_over S P r.
Proof. intros. apply sum_over_indep. auto. Qed.

(** Moving an update of a label that is not summed into the body. *)
Lemma sum_over_upd : forall S P l v r, ~ In l S ->
  sum_over S P (eupd r l v) = sum_over S (fun r' => P (eupd r' l v)) r.
Proof.
  induction S as [|l' S IH]; intros P l v r H; simpl; auto.
  apply rsum_ext. intros m _. rewrite <- IH by (intro; apply H; right; auto).
  rewrite eupd_comm; auto. intro; apply H; left; auto.
Qed.

(** Exchanging finite sums (Fubini): the order of the summed labels does
    not matter. *)
Lemma sum_over_swap : forall l l' S P r, l <> l' ->
  sum_over (l :: l' :: S) P r = sum_over (l' :: l :: S) P r.
Proof.
  intros l l' S P r H. simpl. rewrite rsum_comm. apply rsum_ext. intros a _.
  apply rsum_ext. intros b _. rewrite eupd_comm; auto.
Qed.

Lemma sum_over_perm : forall S S' P r, NoDup S -> Permutation S S' ->
  sum_over S P r = sum_over S' P r.
Proof.
  intros S S' P r Hn Hp. revert r Hn. induction Hp; intros r Hn; simpl; auto.
  - apply rsum_ext. intros. apply IHHp. inversion Hn; auto.
  - apply sum_over_swap. inversion Hn; subst. intro; subst. apply H1. left; auto.
  - rewrite IHHp1 by auto. apply IHHp2. eapply Permutation_NoDup; eauto.
Qed.

(** Distributivity of multiplication over finite sums (every summed label
    has extent at least 1: with [•], [• · 0 <> 0]). *)
Lemma sum_over_mul_l : forall S Q P r,
  (forall l, In l S -> 1 <= ext l) -> (forall l, In l S -> indep l Q) ->
  rmul (Q r) (sum_over S P r) = sum_over S (fun r' => rmul (Q r') (P r')) r.
Proof.
  induction S as [|l S IH]; intros Q P r Hx Hi; simpl; auto.
  rewrite rmul_rsum_l by (apply Hx; left; auto). apply rsum_ext. intros m _.
  rewrite <- (Hi l (or_introl eq_refl) r m). apply IH.
  - intros; apply Hx; right; auto.
  - intros; apply Hi; right; auto.
Qed.

Lemma sum_over_mul_r : forall S Q P r,
  (forall l, In l S -> 1 <= ext l) -> (forall l, In l S -> indep l Q) ->
  rmul (sum_over S P r) (Q r) = sum_over S (fun r' => rmul (P r') (Q r')) r.
Proof.
  intros. rewrite rmul_comm, sum_over_mul_l by auto.
  apply sum_over_ext_all. intros. apply rmul_comm.
Qed.

(** The product of two sums over independent label sets is the sum over
    their union. *)
Lemma sum_over_mul : forall S0 S1 P0 P1 r,
  (forall l, In l S0 -> 1 <= ext l) -> (forall l, In l S1 -> 1 <= ext l) ->
  (forall l, In l S1 -> indep l P0) -> (forall l, In l S0 -> indep l P1) ->
  rmul (sum_over S0 P0 r) (sum_over S1 P1 r) =
  sum_over (S0 ++ S1) (fun r' => rmul (P0 r') (P1 r')) r.
Proof.
  intros S0 S1 P0 P1 r H0 H1 I0 I1. rewrite sum_over_app.
  rewrite sum_over_mul_r by (auto; intros; apply sum_over_indep; auto).
  apply sum_over_ext_all. intros r'. apply sum_over_mul_l; auto.
Qed.

Lemma sum_over_radd : forall S P Q r,
  sum_over S (fun r' => radd (P r') (Q r')) r = radd (sum_over S P r) (sum_over S Q r).
Proof.
  induction S as [|l S IH]; intros P Q r; simpl; auto.
  rewrite <- rsum_radd. apply rsum_ext. intros. apply IH.
Qed.

Lemma sum_over_rsub : forall S P Q r,
  sum_over S (fun r' => rsub (P r') (Q r')) r = rsub (sum_over S P r) (sum_over S Q r).
Proof.
  induction S as [|l S IH]; intros P Q r; simpl; auto.
  rewrite <- rsum_rsub. apply rsum_ext. intros. apply IH.
Qed.

End SumOver.

(** ** List lemmas *)

Lemma In_remove_at : forall {A} p (x : A) l, In x (remove_at p l) -> In x l.
Proof.
  induction p as [|p IH]; intros x l H; destruct l as [|y l]; simpl in *; auto.
  destruct H; auto.
Qed.

Lemma NoDup_remove_at : forall {A} p (l : list A), NoDup l -> NoDup (remove_at p l).
Proof.
  induction p as [|p IH]; intros l H; destruct l as [|y l]; simpl; auto.
  - inversion H; auto.
  - inversion H; subst. constructor; auto. intro Hin. apply H2. eapply In_remove_at; eauto.
Qed.

Lemma NoDup_app' : forall {A} (l1 l2 : list A), NoDup l1 -> NoDup l2 ->
  (forall x, In x l1 -> ~ In x l2) -> NoDup (l1 ++ l2).
Proof.
  induction l1 as [|a l1 IH]; intros l2 H1 H2 H; simpl; auto.
  inversion H1; subst. constructor.
  - rewrite in_app_iff. intros [Hin|Hin]; [contradiction|]. apply (H a); simpl; auto.
  - apply IH; auto. intros x Hx. apply H. simpl; auto.
Qed.

Lemma NoDup_app_r : forall {A} (l1 l2 : list A), NoDup (l1 ++ l2) -> NoDup l2.
Proof. induction l1 as [|a l1 IH]; intros l2 H; simpl in *; auto. inversion H; auto. Qed.

Lemma nth_notin_remove_at : forall {A} p (l : list A) d, NoDup l -> p < length l ->
  ~ In (nth p l d) (remove_at p l).
Proof.
  induction p as [|p IH]; intros l d H Hp; destruct l as [|y l]; simpl in *; try lia.
  - inversion H; auto.
  - inversion H; subst. intros [Heq|Hin].
    + apply H2. subst. apply nth_In. lia.
    + eapply IH; eauto. lia.
Qed.

Lemma nth_swap_perm : forall {A} (d : A) i j l q, i < length l -> j < length l ->
  nth q (swap_at d i j l) d = nth (if q =? i then j else if q =? j then i else q) l d.
Proof.
  intros. rewrite nth_swap_at by auto.
  destruct (q =? i); auto. destruct (q =? j); auto.
Qed.

Lemma In_swap_at : forall {A} (d : A) i j l x, i < length l -> j < length l ->
  In x (swap_at d i j l) -> In x l.
Proof.
  intros A d i j l x Hi Hj H. apply (In_nth _ _ d) in H. destruct H as [q [Hq Hx]].
  rewrite length_swap_at in Hq. rewrite nth_swap_perm in Hx by auto. subst.
  apply nth_In. destruct (q =? i); [lia|]. destruct (q =? j); lia.
Qed.

Lemma NoDup_swap_at : forall {A} (d : A) i j l, i < length l -> j < length l ->
  NoDup l -> NoDup (swap_at d i j l).
Proof.
  intros A d i j l Hi Hj H. apply (NoDup_nth _ d). rewrite length_swap_at.
  intros q1 q2 H1 H2 Heq. rewrite !nth_swap_perm in Heq by auto.
  apply (proj1 (NoDup_nth l d)) in Heq; auto;
    destruct (q1 =? i) eqn:E1; destruct (q1 =? j) eqn:E2;
    destruct (q2 =? i) eqn:E3; destruct (q2 =? j) eqn:E4; bool_to_prop; lia.
Qed.

Lemma swap_at_default : forall {A} (d d' : A) i j l, i < length l -> j < length l ->
  swap_at d i j l = swap_at d' i j l.
Proof.
  intros. unfold swap_at. rewrite (nth_indep l d d' H), (nth_indep l d d' H0). auto.
Qed.

(** ** Factors: operands with index labels

    A factor is a TeIL expression read at a tuple of index terms: a label
    ([IL l], the value the environment gives [l]) or a constant ([IC m],
    from [proj]). *)

Inductive ix : Type := IL (l : nat) | IC (m : nat).

Definition factor : Type := (expr * list ix)%type.

Definition ixval (r : env) (i : ix) : nat := match i with IL l => r l | IC m => m end.

Definition ixlabels (xs : list ix) : list nat :=
  flat_map (fun i => match i with IL l => [l] | IC _ => [] end) xs.

Definition flabels (F : list factor) : list nat := flat_map (fun f => ixlabels (snd f)) F.

(** Substituting an index term for a label (identifying two labels, or
    fixing one to a constant). *)
Definition subst_ix (l : nat) (u : ix) (i : ix) : ix :=
  match i with IL l' => if Nat.eqb l' l then u else IL l' | IC m => IC m end.

Definition subst_f (l : nat) (u : ix) (F : list factor) : list factor :=
  map (fun f => (fst f, map (subst_ix l u) (snd f))) F.

Lemma ixlabels_app : forall xs ys, ixlabels (xs ++ ys) = ixlabels xs ++ ixlabels ys.
Proof. intros. unfold ixlabels. apply flat_map_app. Qed.

Lemma flabels_app : forall F0 F1, flabels (F0 ++ F1) = flabels F0 ++ flabels F1.
Proof. intros. unfold flabels. apply flat_map_app. Qed.

Lemma ixlabels_map_IL : forall L, ixlabels (map IL L) = L.
Proof. induction L; simpl; f_equal; auto. Qed.

Lemma flabels_subst : forall l u F x, In x (flabels (subst_f l u F)) ->
  In x (flabels F) \/ In x (ixlabels [u]).
Proof.
  induction F as [|[e xs] F IH]; intros x H; simpl in *; auto.
  rewrite in_app_iff in H |- *. destruct H as [H|H].
  - induction xs as [|[l'|m] xs IHx]; simpl in *; auto.
    + destruct (Nat.eqb l' l) eqn:E.
      * destruct u; simpl in *; [|tauto]. destruct H as [->|H]; [tauto|].
        destruct (IHx H) as [[H1|H1]|H1]; tauto.
      * simpl in H. destruct H as [->|H]; [tauto|]. destruct (IHx H) as [[H1|H1]|H1]; tauto.
  - destruct (IH x H); tauto.
Qed.

Lemma fst_subst_f : forall l u F, map fst (subst_f l u F) = map fst F.
Proof. intros. unfold subst_f. rewrite map_map. auto. Qed.

Section Factors.
Variable G : ctx.
Variable mu : rmem.

Definition fval (f : factor) (r : env) : rres := eval G mu (fst f) (map (ixval r) (snd f)).

(** The product of the factors (empty product: 1). *)
Fixpoint prodf (F : list factor) (r : env) : rres :=
  match F with
  | [] => rone
  | f :: F' => rmul (fval f r) (prodf F' r)
  end.

Lemma map_ixval_upd : forall xs r l m, ~ In l (ixlabels xs) ->
  map (ixval (eupd r l m)) xs = map (ixval r) xs.
Proof.
  induction xs as [|[l'|m'] xs IH]; intros r l m H; simpl in *; auto.
  - rewrite eupd_neq by tauto. f_equal. apply IH. tauto.
  - f_equal. apply IH. auto.
Qed.

Lemma prodf_indep : forall F l, ~ In l (flabels F) -> indep l (prodf F).
Proof.
  induction F as [|[e xs] F IH]; intros l H r m; simpl in *; auto.
  rewrite in_app_iff in H. unfold fval; simpl. rewrite map_ixval_upd by tauto.
  rewrite IH by tauto. auto.
Qed.

Lemma prodf_app : forall F0 F1 r, prodf (F0 ++ F1) r = rmul (prodf F0 r) (prodf F1 r).
Proof.
  induction F0 as [|f F0 IH]; intros F1 r; cbn [prodf app].
  - rewrite rmul_one_l. auto.
  - rewrite IH, rmul_assoc. auto.
Qed.

Lemma prodf_perm : forall F F' r, Permutation F F' -> prodf F r = prodf F' r.
Proof.
  intros F F' r H. induction H; simpl; auto.
  - rewrite IHPermutation. auto.
  - rewrite <- !rmul_assoc. rewrite (rmul_comm (fval y r)). auto.
  - congruence.
Qed.

Lemma prodf_subst : forall F l u r,
  prodf F (eupd r l (ixval r u)) = prodf (subst_f l u F) r.
Proof.
  induction F as [|[e xs] F IH]; intros l u r; simpl; auto.
  rewrite IH. f_equal. unfold fval; simpl. f_equal. rewrite map_map.
  apply map_ext. intros [l'|m]; simpl; auto. unfold eupd.
  destruct (Nat.eqb l' l); auto.
Qed.

Definition ein_val (ext : nat -> nat) (F : list factor) (S : list nat) (r : env) : rres :=
  sum_over ext S (prodf F) r.

(** Identifying a label with another one, or fixing it to a constant, in
    the factors of an einsum (neither label summed). *)
Lemma ein_subst : forall ext S F l u r, ~ In l S -> (forall x, In x (ixlabels [u]) -> ~ In x S) ->
  sum_over ext S (prodf F) (eupd r l (ixval r u)) = sum_over ext S (prodf (subst_f l u F)) r.
Proof.
  intros ext S F l u r Hl Hu. rewrite sum_over_upd by auto.
  apply sum_over_ext. intros r' Hr' _. rewrite <- prodf_subst. f_equal. f_equal.
  destruct u as [l'|m]; simpl; auto. symmetry. apply Hr'. apply Hu. simpl; auto.
Qed.

End Factors.

(** Identifying labels position-wise ([mul] of two tensors of the same
    type, a Hadamard product): [ren_f L1 L0 F] renames [L1(p)] to [L0(p)]. *)
Fixpoint ren_f (L1 L0 : list nat) (F : list factor) : list factor :=
  match L1, L0 with
  | l1 :: L1', l0 :: L0' => ren_f L1' L0' (subst_f l1 (IL l0) F)
  | _, _ => F
  end.

Fixpoint env_ren (L1 L0 : list nat) (r : env) : env :=
  match L1, L0 with
  | l1 :: L1', l0 :: L0' => eupd (env_ren L1' L0' r) l1 (r l0)
  | _, _ => r
  end.

Lemma fst_ren_f : forall L1 L0 F, map fst (ren_f L1 L0 F) = map fst F.
Proof.
  induction L1 as [|l1 L1 IH]; intros [|l0 L0] F; simpl; auto.
  rewrite IH. apply fst_subst_f.
Qed.

Lemma flabels_ren : forall L1 L0 F x, In x (flabels (ren_f L1 L0 F)) -> In x (flabels F) \/ In x L0.
Proof.
  induction L1 as [|l1 L1 IH]; intros [|l0 L0] F x H; simpl in *; auto.
  destruct (IH L0 _ x H) as [H1|H1]; auto.
  destruct (flabels_subst _ _ _ _ H1) as [H2|[H2|[]]]; auto.
Qed.

Lemma env_ren_notin : forall L1 L0 r x, ~ In x L1 -> env_ren L1 L0 r x = r x.
Proof.
  induction L1 as [|l1 L1 IH]; intros [|l0 L0] r x H; simpl in *; auto.
  rewrite eupd_neq by (intro; subst; tauto). apply IH. tauto.
Qed.

Lemma map_env_ren : forall L1 L0 r, NoDup L1 -> length L1 = length L0 ->
  (forall l, In l L0 -> ~ In l L1) -> map (env_ren L1 L0 r) L1 = map r L0.
Proof.
  induction L1 as [|l1 L1 IH]; intros [|l0 L0] r Hn Hl Hd; simpl in *; try lia; auto.
  inversion Hn; subst. rewrite eupd_eq. f_equal.
  rewrite <- (IH L0 r) by (auto; intros l Hl0 Hl1; apply (Hd l); auto).
  apply map_ext_in. intros x Hx. apply eupd_neq. intro; subst; auto.
Qed.

Lemma ein_ren : forall G mu ext S L1 L0 F r, length L1 = length L0 ->
  (forall l, In l L1 -> ~ In l S) -> (forall l, In l L0 -> ~ In l S) ->
  (forall l, In l L0 -> ~ In l L1) ->
  sum_over ext S (prodf G mu F) (env_ren L1 L0 r) = sum_over ext S (prodf G mu (ren_f L1 L0 F)) r.
Proof.
  induction L1 as [|l1 L1 IH]; intros [|l0 L0] F r Hl H1 H0 H01; simpl in *; try lia; auto.
  rewrite <- IH; auto; try (intros l Hin; apply H0; auto; fail).
  2: intros l Hin Hin'; apply (H01 l); auto.
  rewrite <- (env_ren_notin L1 L0 r l0) by (intro; apply (H01 l0); auto).
  change (env_ren L1 L0 r l0) with (ixval (env_ren L1 L0 r) (IL l0)).
  apply ein_subst; auto. intros x [<-|[]]. auto.
Qed.

(** ** Reading an expression as an einsum (R-LIFT-3)

    [reads_as G ext e F L S]: [e] is the einsum with factors [F], output
    labels [L] (one per dimension of [e]) and summed labels [S]; [ext]
    gives each label its extent.  Any sub-expression may be read as an
    opaque factor ([RA_leaf], with distinct fresh labels); [prod],
    [mul], [red+], [transp], [diag], [proj], [contr] and parentheses are
    read structurally, as in R-LIFT-3:

      L(prod e0 e1)   = L(e0) ++ L(e1)
      L(mul s e1)     = L(e1)                     (s : [])
      L(mul e0 e1)    = L(e0),                    L(e1)(p) identified with L(e0)(p)
      L(red+ i e)     = del(L(e), i),             L(e)(i) summed
      L(transp i j e) = swap(L(e), i, j)
      L(diag i j e)   = del(L(e), b),             L(e)(b) identified with L(e)(a)
      L(proj i m e)   = del(L(e), i),             L(e)(i) fixed to m
      L(contr i j e)  = del(del(L(e), b), a),     identified and summed

    The relation leaves the choice of labels free (only the two operands
    of a product must use disjoint labels), so it describes the compiler's
    union-find reading as well as [to_einsum] below. *)

Inductive reads_as (G : ctx) (ext : nat -> nat) : expr -> list factor -> list nat -> list nat -> Prop :=
| RA_leaf : forall e t L,
    has_type G e t -> Forall2 (fun l d => ext l = d) L t -> NoDup L ->
    reads_as G ext e [(e, map IL L)] L []
| RA_paren : forall e F L S,
    reads_as G ext e F L S -> reads_as G ext (EParen e) F L S
| RA_prod : forall e0 e1 F0 L0 S0 F1 L1 S1,
    reads_as G ext e0 F0 L0 S0 -> reads_as G ext e1 F1 L1 S1 ->
    (forall l, In l (L0 ++ S0 ++ flabels F0) -> ~ In l (L1 ++ S1 ++ flabels F1)) ->
    reads_as G ext (EProd e0 e1) (F0 ++ F1) (L0 ++ L1) (S0 ++ S1)
| RA_smul : forall e0 e1 F0 S0 F1 L1 S1,
    reads_as G ext e0 F0 [] S0 -> reads_as G ext e1 F1 L1 S1 ->
    (forall l, In l (S0 ++ flabels F0) -> ~ In l (L1 ++ S1 ++ flabels F1)) ->
    reads_as G ext (EMul e0 e1) (F0 ++ F1) L1 (S0 ++ S1)
| RA_hmul : forall e0 e1 F0 L0 S0 F1 L1 S1,
    reads_as G ext e0 F0 L0 S0 -> reads_as G ext e1 F1 L1 S1 ->
    (forall l, In l (L0 ++ S0 ++ flabels F0) -> ~ In l (L1 ++ S1 ++ flabels F1)) ->
    length L0 = length L1 ->
    reads_as G ext (EMul e0 e1) (F0 ++ ren_f L1 L0 F1) L0 (S0 ++ S1)
| RA_red : forall i e F L S,
    reads_as G ext e F L S ->
    reads_as G ext (ERed i e) F (remove_at (i - 1) L) (nth (i - 1) L 0 :: S)
| RA_transp : forall i j e F L S,
    reads_as G ext e F L S ->
    reads_as G ext (ETransp i j e) F (swap_at 0 (i - 1) (j - 1) L) S
| RA_diag : forall i j e F L S,
    reads_as G ext e F L S ->
    reads_as G ext (EDiag i j e)
      (subst_f (nth (Nat.max i j - 1) L 0) (IL (nth (Nat.min i j - 1) L 0)) F)
      (remove_at (Nat.max i j - 1) L) S
| RA_proj : forall i m e F L S,
    reads_as G ext e F L S ->
    reads_as G ext (EProj i m e) (subst_f (nth (i - 1) L 0) (IC m) F) (remove_at (i - 1) L) S
| RA_contr : forall i j e F L S,
    reads_as G ext e F L S ->
    reads_as G ext (EContr i j e)
      (subst_f (nth (Nat.max i j - 1) L 0) (IL (nth (Nat.min i j - 1) L 0)) F)
      (remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) L))
      (nth (Nat.min i j - 1) L 0 :: S).

Lemma Forall2_length : forall {A B} (R : A -> B -> Prop) l1 l2, Forall2 R l1 l2 -> length l1 = length l2.
Proof. induction 1; simpl; auto. Qed.

Lemma Forall2_ext_nth : forall ext L t p, Forall2 (fun l d => ext l = d) L t -> p < length L ->
  ext (nth p L 0) = nth p t 0.
Proof.
  intros ext L t p H Hp. apply (Forall2_nth (fun l d => ext l = d)); auto.
Qed.

(** Invariants of a reading of a well-typed expression: the output labels
    are distinct and have the extents of the type, the summed labels are
    distinct, not output labels, and have extent at least 1. *)
Lemma reads_as_inv : forall G ext e F L S, reads_as G ext e F L S -> ctx_pos G ->
  forall t, has_type G e t ->
  Forall2 (fun l d => ext l = d) L t /\ NoDup L /\ NoDup S /\
  (forall l, In l L -> ~ In l S) /\ (forall l, In l S -> 1 <= ext l).
Proof.
  intros G ext e F L S H HG. induction H; intros t' Ht.
  - (* leaf *)
    rewrite (type_unique _ _ _ _ Ht H). repeat split; auto; try constructor; simpl; tauto.
  - inversion Ht; subst. auto.
  - (* prod *)
    inversion Ht as [| | | | | | | | a b t0 t1 Ht0 Ht1 | | | | | |]; subst.
    destruct (IHreads_as1 _ Ht0) as [A1 [B1 [C1 [D1 E1]]]].
    destruct (IHreads_as2 _ Ht1) as [A2 [B2 [C2 [D2 E2]]]].
    repeat split.
    + apply Forall2_app; auto.
    + apply NoDup_app'; auto. intros l Hl Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + apply NoDup_app'; auto. intros l Hl Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl Hl'. rewrite in_app_iff in Hl, Hl'.
      destruct Hl as [Hl|Hl]; destruct Hl' as [Hl'|Hl'].
      * eapply D1; eauto.
      * apply (H1 l); rewrite !in_app_iff; auto.
      * apply (H1 l); rewrite !in_app_iff; auto.
      * eapply D2; eauto.
    + intros l Hl. rewrite in_app_iff in Hl. destruct Hl; auto.
  - (* smul *)
    assert (Hs : exists t0, has_type G e0 t0 /\ has_type G e1 t').
    { inversion Ht as [| | | | a b t0 Ht0 Ht1 | a b t0 Ht0 Ht1 | | | | | | | | |]; subst; eauto. }
    destruct Hs as [t0 [Ht0 Ht1]].
    destruct (IHreads_as1 _ Ht0) as [A1 [B1 [C1 [D1 E1]]]].
    destruct (IHreads_as2 _ Ht1) as [A2 [B2 [C2 [D2 E2]]]].
    repeat split; auto.
    + apply NoDup_app'; auto. intros l Hl Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl Hl'. rewrite in_app_iff in Hl'. destruct Hl' as [Hl'|Hl'].
      * apply (H1 l); rewrite !in_app_iff; auto.
      * eapply D2; eauto.
    + intros l Hl. rewrite in_app_iff in Hl. destruct Hl; auto.
  - (* hmul *)
    assert (Hs : has_type G e0 t' /\ has_type G e1 t').
    { inversion Ht as [| | | | a b t0 Ht0 Ht1 | a b t0 Ht0 Ht1 | | | | | | | | |]; subst; auto.
      destruct (IHreads_as1 _ Ht0) as [A0 _]. destruct (IHreads_as2 _ Ht1) as [A1 _].
      inversion A0; subst. simpl in H2. destruct L1; [|discriminate]. inversion A1; subst. auto. }
    destruct Hs as [Ht0 Ht1].
    destruct (IHreads_as1 _ Ht0) as [A1 [B1 [C1 [D1 E1]]]].
    destruct (IHreads_as2 _ Ht1) as [A2 [B2 [C2 [D2 E2]]]].
    repeat split; auto.
    + apply NoDup_app'; auto. intros l Hl Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl Hl'. rewrite in_app_iff in Hl'. destruct Hl' as [Hl'|Hl'].
      * eapply D1; eauto.
      * apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl. rewrite in_app_iff in Hl. destruct Hl; auto.
  - (* red *)
    inversion Ht as [| | | | | | | | | i' e' t0 Ht0 Hi | | | | |]; subst.
    destruct (IHreads_as _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    repeat split.
    + apply Forall2_remove_at; auto.
    + apply NoDup_remove_at; auto.
    + constructor; auto. apply D. apply nth_In. lia.
    + intros l Hl [Hl'|Hl'].
      * subst. exact (nth_notin_remove_at (i - 1) L 0 B ltac:(lia) Hl).
      * eapply D; eauto. eapply In_remove_at; eauto.
    + intros l [<-|Hl]; auto. rewrite Forall2_ext_nth with (t := t0) by (auto; lia).
      eapply nth_pos; eauto. lia.
  - (* transp *)
    inversion Ht as [| | | | | | | | | | i' j' e' t0 Ht0 Hi Hj Hij | | | |]; subst.
    destruct (IHreads_as _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    repeat split; auto.
    + apply Forall2_swap_at; auto; lia.
    + apply NoDup_swap_at; auto; lia.
    + intros l Hl. apply D. eapply In_swap_at; eauto; lia.
  - (* diag *)
    inversion Ht as [| | | | | | | | | | | i' j' e' t0 Ht0 Hi Hj Hij Heq | | |]; subst.
    destruct (IHreads_as _ Ht0) as [A [B [C [D E]]]].
    repeat split; auto.
    + apply Forall2_remove_at; auto.
    + apply NoDup_remove_at; auto.
    + intros l Hl. apply D. eapply In_remove_at; eauto.
  - (* proj *)
    inversion Ht as [| | | | | | | | | | | | | i' m' e' t0 Ht0 Hi Hm |]; subst.
    destruct (IHreads_as _ Ht0) as [A [B [C [D E]]]].
    repeat split; auto.
    + apply Forall2_remove_at; auto.
    + apply NoDup_remove_at; auto.
    + intros l Hl. apply D. eapply In_remove_at; eauto.
  - (* contr *)
    inversion Ht as [| | | | | | | | | | | | | | i' j' e' t0 Ht0 Hi Hj Hij Heq]; subst.
    destruct (IHreads_as _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    destruct (minmax_pos i j t0 Hi Hj Hij Heq) as [Ha [Hb He]].
    assert (Hla : nth (Nat.min i j - 1) L 0 = nth (Nat.min i j - 1) (remove_at (Nat.max i j - 1) L) 0)
      by (rewrite nth_remove_at_lt; auto).
    repeat split.
    + apply Forall2_remove_at, Forall2_remove_at; auto.
    + apply NoDup_remove_at, NoDup_remove_at; auto.
    + constructor; auto. apply D. apply nth_In. lia.
    + intros l Hl [Hl'|Hl'].
      * subst. rewrite Hla in Hl.
        refine (nth_notin_remove_at _ _ 0 (NoDup_remove_at _ _ B) _ Hl).
        rewrite length_remove_at; lia.
      * eapply D; eauto. eapply In_remove_at, In_remove_at; eauto.
    + intros l [<-|Hl]; auto. rewrite Forall2_ext_nth with (t := t0) by (auto; lia).
      eapply nth_pos; eauto. lia.
Qed.

Lemma reads_as_length : forall G ext e F L S t, reads_as G ext e F L S -> ctx_pos G ->
  has_type G e t -> length L = length t.
Proof.
  intros. destruct (reads_as_inv G ext e F L S H H0 t H1) as [A _]. eapply Forall2_length; eauto.
Qed.

(** The names an expression reads are those of its factors. *)
Lemma ex_fst_map : forall (F F' : list factor) (P : expr -> Prop), map fst F = map fst F' ->
  (exists f, In f F /\ P (fst f)) -> exists f, In f F' /\ P (fst f).
Proof.
  intros F F' P H [f [Hf HP]].
  assert (Hin : In (fst f) (map fst F')) by (rewrite <- H; apply in_map; auto).
  apply in_map_iff in Hin. destruct Hin as [f' [Hf' Hin]]. exists f'. rewrite Hf'. auto.
Qed.

Lemma reads_as_vars : forall G ext e F L S, reads_as G ext e F L S ->
  forall x, In x (vars e) <-> exists f, In f F /\ In x (vars (fst f)).
Proof.
  intros G ext e F L S H. induction H; intros x; simpl.
  - split; [intros Hx; exists (e, map IL L); simpl; auto|].
    intros [f [[<-|[]] Hx]]. auto.
  - apply IHreads_as.
  - rewrite in_app_iff, IHreads_as1, IHreads_as2. split.
    + intros [[f [Hf Hx]]|[f [Hf Hx]]]; exists f; rewrite in_app_iff; auto.
    + intros [f [Hf Hx]]. rewrite in_app_iff in Hf. destruct Hf; [left|right]; eauto.
  - rewrite in_app_iff, IHreads_as1, IHreads_as2. split.
    + intros [[f [Hf Hx]]|[f [Hf Hx]]]; exists f; rewrite in_app_iff; auto.
    + intros [f [Hf Hx]]. rewrite in_app_iff in Hf. destruct Hf; [left|right]; eauto.
  - rewrite in_app_iff, IHreads_as1, IHreads_as2. split.
    + intros [[f [Hf Hx]]|Hf].
      * exists f; rewrite in_app_iff; auto.
      * destruct (ex_fst_map F1 (ren_f L1 L0 F1) (fun e => In x (vars e)) (eq_sym (fst_ren_f _ _ _)) Hf)
          as [f [Hf' Hx]]. exists f; rewrite in_app_iff; auto.
    + intros [f [Hf Hx]]. rewrite in_app_iff in Hf. destruct Hf; [left; eauto|right].
      apply (ex_fst_map (ren_f L1 L0 F1) F1 (fun e => In x (vars e)) (fst_ren_f _ _ _)). eauto.
  - apply IHreads_as.
  - apply IHreads_as.
  - rewrite IHreads_as. unfold subst_f. split.
    + intros [f [Hf Hx]]. eexists. rewrite in_map_iff. split; [exists f; split; eauto|]. auto.
    + intros [f [Hf Hx]]. apply in_map_iff in Hf. destruct Hf as [f' [<- Hf']]. eauto.
  - rewrite IHreads_as. unfold subst_f. split.
    + intros [f [Hf Hx]]. eexists. rewrite in_map_iff. split; [exists f; split; eauto|]. auto.
    + intros [f [Hf Hx]]. apply in_map_iff in Hf. destruct Hf as [f' [<- Hf']]. eauto.
  - rewrite IHreads_as. unfold subst_f. split.
    + intros [f [Hf Hx]]. eexists. rewrite in_map_iff. split; [exists f; split; eauto|]. auto.
    + intros [f [Hf Hx]]. apply in_map_iff in Hf. destruct Hf as [f' [<- Hf']]. eauto.
Qed.

Lemma insert_map_upd : forall L p m (r : env), NoDup L -> p < length L ->
  insert_at p m (map r (remove_at p L)) = map (eupd r (nth p L 0) m) L.
Proof.
  intros L p m r Hn Hp.
  transitivity (map (eupd r (nth p L 0) m) (insert_at p (nth p L 0) (remove_at p L)));
    [|rewrite insert_remove; auto].
  rewrite map_insert_at, eupd_eq. f_equal. apply map_ext_in. intros x Hx.
  rewrite eupd_neq; auto. intro; subst. eapply nth_notin_remove_at; eauto.
Qed.

Lemma nth_map_env : forall (r : env) L p, p < length L -> nth p (map r L) 0 = r (nth p L 0).
Proof.
  intros. rewrite (nth_indep (map r L) 0 (r 0)) by (rewrite map_length; auto).
  apply map_nth.
Qed.

(** ** TeIL evaluation is the einsum value (R-LIFT-3)

    For every reading of a well-typed expression, its value at the index
    tuple an environment gives its output labels is the einsum value:
    the sum, over all assignments of the summed labels, of the product of
    the factors at their index tuples.  This holds for every environment,
    in bounds or not. *)
Theorem reads_as_eval : forall G ext e F L S, reads_as G ext e F L S -> ctx_pos G ->
  forall t, has_type G e t -> forall (mu : rmem) r,
  eval G mu e (map r L) = ein_val G mu ext F S r.
Proof.
  intros G ext e F L S H HG. induction H; intros t' Ht mu r; unfold ein_val in *.
  - (* leaf *)
    cbn [sum_over prodf]. rewrite rmul_one_r. unfold fval. simpl. rewrite map_map. auto.
  - inversion Ht; subst. simpl. eauto.
  - (* prod *)
    inversion Ht as [| | | | | | | | a b t0 t1 Ht0 Ht1 | | | | | |]; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A0 [B0 [C0 [D0 E0]]]].
    destruct (reads_as_inv _ _ _ _ _ _ H0 HG _ Ht1) as [A1 [B1 [C1 [D1 E1]]]].
    cbn [eval]. rewrite (type_of_complete _ _ _ Ht0).
    rewrite <- (Forall2_length _ _ _ A0), map_app.
    rewrite <- (map_length r L0), firstn_app_exact, skipn_app_exact.
    rewrite (IHreads_as1 _ Ht0), (IHreads_as2 _ Ht1).
    rewrite sum_over_mul; auto.
    + apply sum_over_ext_all. intros. rewrite prodf_app. auto.
    + intros l Hl. apply prodf_indep. intro Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl. apply prodf_indep. intro Hl'. apply (H1 l); rewrite !in_app_iff; auto.
  - (* mul by a scalar *)
    assert (Hs : exists t0, has_type G e0 t0 /\ has_type G e1 t').
    { inversion Ht as [| | | | a b t0 Ht0 Ht1 | a b t0 Ht0 Ht1 | | | | | | | | |]; subst; eauto. }
    destruct Hs as [t0 [Ht0 Ht1]].
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A0 [B0 [C0 [D0 E0]]]].
    destruct (reads_as_inv _ _ _ _ _ _ H0 HG _ Ht1) as [A1 [B1 [C1 [D1 E1]]]].
    inversion A0; subst.
    cbn [eval]. rewrite (type_of_complete _ _ _ Ht0).
    change (@nil nat) with (map r []). rewrite (IHreads_as1 _ Ht0), (IHreads_as2 _ Ht1).
    rewrite sum_over_mul; auto.
    + apply sum_over_ext_all. intros. rewrite prodf_app. auto.
    + intros l Hl. apply prodf_indep. intro Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl. apply prodf_indep. intro Hl'. apply (H1 l); rewrite !in_app_iff; auto.
  - (* Hadamard mul *)
    assert (Hs : has_type G e0 t' /\ has_type G e1 t').
    { inversion Ht as [| | | | a b t0 Ht0 Ht1 | a b t0 Ht0 Ht1 | | | | | | | | |]; subst; auto.
      destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A0 _].
      destruct (reads_as_inv _ _ _ _ _ _ H0 HG _ Ht1) as [A1 _].
      inversion A0; subst. simpl in H2. destruct L1; [|discriminate]. inversion A1; subst. auto. }
    destruct Hs as [Ht0 Ht1].
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A0 [B0 [C0 [D0 E0]]]].
    destruct (reads_as_inv _ _ _ _ _ _ H0 HG _ Ht1) as [A1 [B1 [C1 [D1 E1]]]].
    assert (Hmul : eval G mu (EMul e0 e1) (map r L0) =
                   rmul (eval G mu e0 (map r L0)) (eval G mu e1 (map r L0))).
    { cbn [eval]. rewrite (type_of_complete _ _ _ Ht0). destruct t' as [|d t'']; auto.
      inversion A0; subst. reflexivity. }
    assert (H01 : forall l, In l L0 -> ~ In l L1)
      by (intros l Hl Hl'; apply (H1 l); rewrite !in_app_iff; auto).
    rewrite Hmul. rewrite <- (map_env_ren L1 L0 r) at 2 by auto.
    rewrite (IHreads_as1 _ Ht0), (IHreads_as2 _ Ht1).
    rewrite ein_ren by (auto; intros l Hl Hl'; apply (H1 l); rewrite !in_app_iff; auto).
    rewrite sum_over_mul; auto.
    + apply sum_over_ext_all. intros. rewrite prodf_app. auto.
    + intros l Hl. apply prodf_indep. intro Hl'. apply (H1 l); rewrite !in_app_iff; auto.
    + intros l Hl. apply prodf_indep. intro Hl'. destruct (flabels_ren _ _ _ _ Hl') as [Hf|Hf].
      * apply (H1 l); rewrite !in_app_iff; auto.
      * eapply D0; eauto.
  - (* red+ *)
    inversion Ht as [| | | | | | | | | i' e' t0 Ht0 Hi | | | | |]; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    cbn [eval sum_over]. rewrite (type_of_complete _ _ _ Ht0).
    rewrite Forall2_ext_nth with (t := t0) by (auto; lia).
    apply rsum_ext. intros m Hm. rewrite insert_map_upd by (auto; lia). eauto.
  - (* transp *)
    inversion Ht as [| | | | | | | | | | i' j' e' t0 Ht0 Hi Hj Hij | | | |]; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    cbn [eval]. rewrite map_swap_at by lia.
    rewrite (swap_at_default (r 0) 0) by (rewrite map_length; lia).
    rewrite swap_at_involutive by (rewrite map_length; lia). eauto.
  - (* diag *)
    inversion Ht as [| | | | | | | | | | | i' j' e' t0 Ht0 Hi Hj Hij Heq | | |]; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    destruct (minmax_pos i j t0 Hi Hj Hij Heq) as [Ha [Hb He]].
    cbn [eval]. rewrite nth_map_env by (rewrite length_remove_at; lia).
    rewrite nth_remove_at_lt by auto.
    rewrite insert_map_upd by (auto; lia). rewrite (IHreads_as _ Ht0).
    change (r (nth (Nat.min i j - 1) L 0)) with (ixval r (IL (nth (Nat.min i j - 1) L 0))).
    apply ein_subst.
    + apply D. apply nth_In. lia.
    + intros x [<-|[]]. apply D. apply nth_In. lia.
  - (* proj *)
    inversion Ht as [| | | | | | | | | | | | | i' m' e' t0 Ht0 Hi Hm |]; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    cbn [eval]. rewrite insert_map_upd by (auto; lia). rewrite (IHreads_as _ Ht0).
    change m with (ixval r (IC m)) at 1. apply ein_subst.
    + apply D. apply nth_In. lia.
    + intros x [].
  - (* contr *)
    inversion Ht as [| | | | | | | | | | | | | | i' j' e' t0 Ht0 Hi Hj Hij Heq]; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H HG _ Ht0) as [A [B [C [D E]]]].
    pose proof (Forall2_length _ _ _ A) as Hlen.
    destruct (minmax_pos i j t0 Hi Hj Hij Heq) as [Ha [Hb He]].
    cbn [eval sum_over]. rewrite (type_of_complete _ _ _ Ht0).
    rewrite Forall2_ext_nth with (t := t0) by (auto; lia).
    apply rsum_ext. intros m Hm.
    rewrite insert_map_upd by (try apply NoDup_remove_at; auto; rewrite length_remove_at; lia).
    rewrite nth_remove_at_lt by auto.
    rewrite insert_map_upd by (auto; lia). rewrite (IHreads_as _ Ht0).
    set (r1 := eupd r (nth (Nat.min i j - 1) L 0) m).
    assert (Hr1 : r1 (nth (Nat.min i j - 1) L 0) = m) by (unfold r1; apply eupd_eq).
    transitivity (sum_over ext S (prodf G mu F)
      (eupd r1 (nth (Nat.max i j - 1) L 0) (ixval r1 (IL (nth (Nat.min i j - 1) L 0)))));
      [simpl; rewrite Hr1; auto|].
    apply ein_subst.
    + apply D. apply nth_In. lia.
    + intros x [<-|[]]. apply D. apply nth_In. lia.
Qed.

(** ** The translation [to_einsum]

    [to_einsum_from G e X] reads [e] as an einsum, maximally: [prod],
    [mul], [red+], [transp], [diag], [proj], [contr] and parentheses are
    read structurally, every other sub-expression is a
    factor with fresh labels.  Labels are numbered in order of creation;
    [X] lists the extents of the labels created so far (label [l] has
    extent [nth l X 0]), and the result returns the extended list. *)

Definition leaf_of (G : ctx) (e : expr) (X : list nat)
  : list factor * list nat * list nat * list nat :=
  let t := match type_of G e with Some t => t | None => [] end in
  ([(e, map IL (seq (length X) (length t)))], seq (length X) (length t), [], X ++ t).

Fixpoint to_einsum_from (G : ctx) (e : expr) (X : list nat)
  : list factor * list nat * list nat * list nat :=
  match e with
  | EParen e' => to_einsum_from G e' X
  | EProd e0 e1 =>
      let '(F0, L0, S0, X1) := to_einsum_from G e0 X in
      let '(F1, L1, S1, X2) := to_einsum_from G e1 X1 in
      (F0 ++ F1, L0 ++ L1, S0 ++ S1, X2)
  | EMul e0 e1 =>
      match type_of G e0 with
      | Some [] =>
          let '(F0, L0, S0, X1) := to_einsum_from G e0 X in
          let '(F1, L1, S1, X2) := to_einsum_from G e1 X1 in
          (F0 ++ F1, L1, S0 ++ S1, X2)
      | Some _ =>
          let '(F0, L0, S0, X1) := to_einsum_from G e0 X in
          let '(F1, L1, S1, X2) := to_einsum_from G e1 X1 in
          (F0 ++ ren_f L1 L0 F1, L0, S0 ++ S1, X2)
      | None => leaf_of G e X
      end
  | ERed i e' =>
      let '(F, L, Sm, X') := to_einsum_from G e' X in
      (F, remove_at (i - 1) L, nth (i - 1) L 0 :: Sm, X')
  | ETransp i j e' =>
      let '(F, L, Sm, X') := to_einsum_from G e' X in
      (F, swap_at 0 (i - 1) (j - 1) L, Sm, X')
  | EDiag i j e' =>
      let '(F, L, Sm, X') := to_einsum_from G e' X in
      (subst_f (nth (Nat.max i j - 1) L 0) (IL (nth (Nat.min i j - 1) L 0)) F,
       remove_at (Nat.max i j - 1) L, Sm, X')
  | EProj i m e' =>
      let '(F, L, Sm, X') := to_einsum_from G e' X in
      (subst_f (nth (i - 1) L 0) (IC m) F, remove_at (i - 1) L, Sm, X')
  | EContr i j e' =>
      let '(F, L, Sm, X') := to_einsum_from G e' X in
      (subst_f (nth (Nat.max i j - 1) L 0) (IL (nth (Nat.min i j - 1) L 0)) F,
       remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) L),
       nth (Nat.min i j - 1) L 0 :: Sm, X')
  | _ => leaf_of G e X
  end.

(** An einsum: factors, output labels, summed labels, extents of labels. *)
Record einsum : Type := mkEinsum {
  ein_fac : list factor;
  ein_out : list nat;
  ein_sum : list nat;
  ein_ext : nat -> nat
}.

Definition to_einsum (G : ctx) (e : expr) : einsum :=
  let '(F, L, Sm, X) := to_einsum_from G e [] in mkEinsum F L Sm (fun l => nth l X 0).

(** The environment that gives the output labels [L] the index [k]. *)
Fixpoint env_of (L k : list nat) : env :=
  match L, k with
  | l :: L', m :: k' => eupd (env_of L' k') l m
  | _, _ => fun _ => 0
  end.

Lemma map_env_of : forall L k, NoDup L -> length L = length k -> map (env_of L k) L = k.
Proof.
  induction L as [|l L IH]; intros k Hn Hl; destruct k as [|m k]; simpl in *; try lia; auto.
  inversion Hn; subst. rewrite eupd_eq. f_equal.
  rewrite <- (IH k) at 2 by auto. apply map_ext_in. intros x Hx. apply eupd_neq.
  intro; subst; auto.
Qed.

(** The value of an einsum at the output index [k]. *)
Definition ein_at (G : ctx) (mu : rmem) (E : einsum) (k : list nat) : rres :=
  ein_val G mu (ein_ext E) (ein_fac E) (ein_sum E) (env_of (ein_out E) k).

Lemma leaf_extents : forall Z t X,
  Forall2 (fun l d => nth l (X ++ t ++ Z) 0 = d) (seq (length X) (length t)) t.
Proof.
  induction t as [|d t IH]; intros X; simpl; constructor.
  - rewrite app_nth2 by lia. rewrite Nat.sub_diag. auto.
  - specialize (IH (X ++ [d])). rewrite <- app_assoc in IH. simpl in IH.
    rewrite app_length in IH. simpl in IH. rewrite Nat.add_1_r in IH. auto.
Qed.

Lemma leaf_of_spec : forall G e t X, has_type G e t ->
  let '(F, L, Sm, X') := leaf_of G e X in
  (exists Y, X' = X ++ Y) /\
  (forall l, In l (L ++ Sm ++ flabels F) -> length X <= l < length X') /\
  forall Z, reads_as G (fun l => nth l (X' ++ Z) 0) e F L Sm.
Proof.
  intros G e t X Ht. unfold leaf_of. rewrite (type_of_complete _ _ _ Ht).
  split; [eauto|split].
  - intros l Hl. unfold flabels in Hl. simpl in Hl. rewrite app_nil_r, ixlabels_map_IL in Hl.
    rewrite app_length. rewrite in_app_iff in Hl. destruct Hl as [Hl|Hl]; apply in_seq in Hl; lia.
  - intros Z. apply RA_leaf with t; auto.
    + rewrite <- app_assoc. apply leaf_extents.
    + apply seq_NoDup.
Qed.

Arguments leaf_of : simpl never.

Lemma In_flabels_subst : forall l u F x, In x (flabels (subst_f l u F)) ->
  In x (flabels F) \/ In x (ixlabels [u]).
Proof. apply flabels_subst. Qed.

Ltac lab_norm := repeat (rewrite ?flabels_app, ?in_app_iff, ?app_length in *); simpl in *.

Ltac lab_range H1 H2 :=
  lab_norm; repeat match goal with Hd : _ \/ _ |- _ => destruct Hd end;
  first [ pose proof (H1 ltac:(tauto)); lia | pose proof (H2 ltac:(tauto)); lia ].

Ltac lab_disj H1 H2 :=
  lab_norm; pose proof (H1 ltac:(tauto)); pose proof (H2 ltac:(tauto)); lia.

(** [to_einsum_from] computes a reading, with labels [length X ..
    length X' - 1], whatever extents later labels get. *)
Lemma to_einsum_from_spec : forall G e t, ctx_pos G -> has_type G e t -> forall X,
  let '(F, L, Sm, X') := to_einsum_from G e X in
  (exists Y, X' = X ++ Y) /\
  (forall l, In l (L ++ Sm ++ flabels F) -> length X <= l < length X') /\
  forall Z, reads_as G (fun l => nth l (X' ++ Z) 0) e F L Sm.
Proof.
  intros G e t HG H. induction H; intros X; cbn [to_einsum_from];
    try (eapply leaf_of_spec; econstructor; eauto; fail).
  - (* paren *)
    specialize (IHhas_type X). destruct (to_einsum_from G e X) as [[[F L] Sm] X'].
    destruct IHhas_type as [HY [Hlab Hra]]. split; [|split]; auto. intros; constructor; auto.
  - (* mul *)
    rewrite (type_of_complete _ _ _ H). destruct t as [|d t].
    2:{ specialize (IHhas_type1 X). destruct (to_einsum_from G e0 X) as [[[F0 L0] S0] X1].
        destruct IHhas_type1 as [[Y1 HY1] [Hlab1 Hra1]].
        specialize (IHhas_type2 X1). destruct (to_einsum_from G e1 X1) as [[[F1 L1] S1] X2].
        destruct IHhas_type2 as [[Y2 HY2] [Hlab2 Hra2]].
        pose proof (reads_as_length _ _ _ _ _ _ _ (Hra1 []) HG H) as Hl0.
        pose proof (reads_as_length _ _ _ _ _ _ _ (Hra2 []) HG H0) as Hl1.
        subst X1 X2. split; [exists (Y1 ++ Y2); rewrite app_assoc; auto|split].
        - intros l Hl.
          assert (Hl' : In l (L0 ++ S0 ++ flabels F0) \/ In l (L1 ++ S1 ++ flabels F1)).
          { rewrite !in_app_iff, flabels_app, in_app_iff in Hl. rewrite !in_app_iff.
            destruct Hl as [?|[[?|?]|[?|Hr]]]; auto. destruct (flabels_ren _ _ _ _ Hr); auto. }
          destruct Hl' as [Hl'|Hl']; [apply Hlab1 in Hl'|apply Hlab2 in Hl'];
            rewrite !app_length in *; lia.
        - intros Z. apply RA_hmul.
          + rewrite <- app_assoc. apply Hra1.
          + apply Hra2.
          + intros l Hl Hl'. specialize (Hlab1 l). specialize (Hlab2 l). lab_disj Hlab1 Hlab2.
          + congruence. }
    specialize (IHhas_type1 X). destruct (to_einsum_from G e0 X) as [[[F0 L0] S0] X1].
    destruct IHhas_type1 as [[Y1 HY1] [Hlab1 Hra1]].
    specialize (IHhas_type2 X1). destruct (to_einsum_from G e1 X1) as [[[F1 L1] S1] X2].
    destruct IHhas_type2 as [[Y2 HY2] [Hlab2 Hra2]].
    assert (HL0 : L0 = []) by (pose proof (reads_as_length _ _ _ _ _ _ _ (Hra1 []) HG H);
                               destruct L0; simpl in *; auto; lia).
    subst L0 X1 X2. split; [exists (Y1 ++ Y2); rewrite app_assoc; auto|split].
    + intros l Hl. specialize (Hlab1 l). specialize (Hlab2 l). lab_range Hlab1 Hlab2.
    + intros Z. apply RA_smul.
      * rewrite <- app_assoc. apply Hra1.
      * apply Hra2.
      * intros l Hl Hl'. specialize (Hlab1 l). specialize (Hlab2 l). lab_disj Hlab1 Hlab2.
  - (* smul *)
    rewrite (type_of_complete _ _ _ H).
    specialize (IHhas_type1 X). destruct (to_einsum_from G e0 X) as [[[F0 L0] S0] X1].
    destruct IHhas_type1 as [[Y1 HY1] [Hlab1 Hra1]].
    specialize (IHhas_type2 X1). destruct (to_einsum_from G e1 X1) as [[[F1 L1] S1] X2].
    destruct IHhas_type2 as [[Y2 HY2] [Hlab2 Hra2]].
    assert (HL0 : L0 = []) by (pose proof (reads_as_length _ _ _ _ _ _ _ (Hra1 []) HG H);
                               destruct L0; simpl in *; auto; lia).
    subst L0 X1 X2. split; [exists (Y1 ++ Y2); rewrite app_assoc; auto|split].
    + intros l Hl. specialize (Hlab1 l). specialize (Hlab2 l). lab_range Hlab1 Hlab2.
    + intros Z. apply RA_smul.
      * rewrite <- app_assoc. apply Hra1.
      * apply Hra2.
      * intros l Hl Hl'. specialize (Hlab1 l). specialize (Hlab2 l). lab_disj Hlab1 Hlab2.
  - (* prod *)
    specialize (IHhas_type1 X). destruct (to_einsum_from G e0 X) as [[[F0 L0] S0] X1].
    destruct IHhas_type1 as [[Y1 HY1] [Hlab1 Hra1]].
    specialize (IHhas_type2 X1). destruct (to_einsum_from G e1 X1) as [[[F1 L1] S1] X2].
    destruct IHhas_type2 as [[Y2 HY2] [Hlab2 Hra2]].
    subst X1 X2. split; [exists (Y1 ++ Y2); rewrite app_assoc; auto|split].
    + intros l Hl. specialize (Hlab1 l). specialize (Hlab2 l). lab_range Hlab1 Hlab2.
    + intros Z. apply RA_prod.
      * rewrite <- app_assoc. apply Hra1.
      * apply Hra2.
      * intros l Hl Hl'. specialize (Hlab1 l). specialize (Hlab2 l). lab_disj Hlab1 Hlab2.
  - (* red *)
    specialize (IHhas_type X). destruct (to_einsum_from G e X) as [[[F L] Sm] X'].
    destruct IHhas_type as [HY [Hlab Hra]].
    pose proof (reads_as_length _ _ _ _ _ _ _ (Hra []) HG H) as Hlen.
    split; [auto|split].
    + intros l Hl. apply Hlab. rewrite !in_app_iff in *. simpl in Hl.
      destruct Hl as [Hl|[[Hl|Hl]|Hl]]; [left; eapply In_remove_at; eauto|left|tauto|tauto].
      subst. apply nth_In. lia.
    + intros Z. constructor. auto.
  - (* transp *)
    specialize (IHhas_type X). destruct (to_einsum_from G e X) as [[[F L] Sm] X'].
    destruct IHhas_type as [HY [Hlab Hra]].
    pose proof (reads_as_length _ _ _ _ _ _ _ (Hra []) HG H) as Hlen.
    split; [auto|split].
    + intros l Hl. apply Hlab. rewrite !in_app_iff in *.
      destruct Hl as [Hl|Hl]; [left; eapply In_swap_at; eauto; lia|tauto].
    + intros Z. constructor. auto.
  - (* diag *)
    specialize (IHhas_type X). destruct (to_einsum_from G e X) as [[[F L] Sm] X'].
    destruct IHhas_type as [HY [Hlab Hra]].
    pose proof (reads_as_length _ _ _ _ _ _ _ (Hra []) HG H) as Hlen.
    split; [auto|split].
    + intros l Hl. apply Hlab. rewrite !in_app_iff in *.
      destruct Hl as [Hl|[Hl|Hl]]; [left; eapply In_remove_at; eauto|tauto|].
      destruct (In_flabels_subst _ _ _ _ Hl) as [Hl'|[Hl'|[]]]; [tauto|].
      subst. left. apply nth_In. lia.
    + intros Z. constructor. auto.
  - (* proj *)
    specialize (IHhas_type X). destruct (to_einsum_from G e X) as [[[F L] Sm] X'].
    destruct IHhas_type as [HY [Hlab Hra]].
    split; [auto|split].
    + intros l Hl. apply Hlab. rewrite !in_app_iff in *.
      destruct Hl as [Hl|[Hl|Hl]]; [left; eapply In_remove_at; eauto|tauto|].
      destruct (In_flabels_subst _ _ _ _ Hl) as [Hl'|[]]; tauto.
    + intros Z. constructor. auto.
  - (* contr *)
    specialize (IHhas_type X). destruct (to_einsum_from G e X) as [[[F L] Sm] X'].
    destruct IHhas_type as [HY [Hlab Hra]].
    pose proof (reads_as_length _ _ _ _ _ _ _ (Hra []) HG H) as Hlen.
    split; [auto|split].
    + intros l Hl. apply Hlab. rewrite !in_app_iff in *. simpl in Hl.
      destruct Hl as [Hl|[[Hl|Hl]|Hl]];
        [left; eapply In_remove_at, In_remove_at; eauto| |tauto|].
      * subst. left. apply nth_In. lia.
      * destruct (In_flabels_subst _ _ _ _ Hl) as [Hl'|[Hl'|[]]]; [tauto|].
        subst. left. apply nth_In. lia.
    + intros Z. constructor. auto.
Qed.

(** [to_einsum] reads every well-typed expression as an einsum, and TeIL
    evaluation equals the einsum value at every index of the right length
    (in particular at every in-bounds index). *)
Theorem to_einsum_reads_as : forall G e t, ctx_pos G -> has_type G e t ->
  let E := to_einsum G e in reads_as G (ein_ext E) e (ein_fac E) (ein_out E) (ein_sum E).
Proof.
  intros G e t HG H. pose proof (to_einsum_from_spec G e t HG H []) as Hs. unfold to_einsum.
  destruct (to_einsum_from G e []) as [[[F L] Sm] X]. destruct Hs as [_ [_ Hra]].
  specialize (Hra []). rewrite app_nil_r in Hra. exact Hra.
Qed.

Theorem to_einsum_correct : forall G e t, ctx_pos G -> has_type G e t ->
  forall (mu : rmem) k, length k = length t -> eval G mu e k = ein_at G mu (to_einsum G e) k.
Proof.
  intros G e t HG H mu k Hk. pose proof (to_einsum_reads_as G e t HG H) as Hra. cbv zeta in Hra.
  destruct (reads_as_inv _ _ _ _ _ _ Hra HG _ H) as [A [B _]].
  unfold ein_at. rewrite <- (reads_as_eval _ _ _ _ _ _ Hra HG t H mu).
  rewrite map_env_of; auto. rewrite (Forall2_length _ _ _ A). auto.
Qed.

Corollary to_einsum_correct_in_bounds : forall G e t, ctx_pos G -> has_type G e t ->
  forall (mu : rmem) k, in_bounds t k -> eval G mu e k = ein_at G mu (to_einsum G e) k.
Proof. intros. apply to_einsum_correct with t; auto. apply in_bounds_length; auto. Qed.

(** ** Contraction steps (R-LIFT-5, R-LIFT-6, R-LIFT-7)

    A step replaces some factors [Fs] of an einsum by one factor [T] (in
    the program: a fresh temporary) whose value is the einsum of [Fs]
    summed over labels [ST] that occur in no other factor ([R]) and are
    not output labels.  [V] are the output labels: the einsum is compared
    at environments that give them in-bounds values, and [T] need only
    have the right value at in-bounds index tuples. *)

Theorem ein_group_step : forall G (mu : rmem) ext V F S Fs R ST S' T,
  Permutation F (Fs ++ R) -> Permutation S (ST ++ S') -> NoDup S ->
  (forall l, In l ST -> ~ In l (flabels R)) -> (forall l, In l ST -> 1 <= ext l) ->
  (forall r, valid ext r (V ++ S') -> fval G mu T r = sum_over ext ST (prodf G mu Fs) r) ->
  forall r, valid ext r V -> ein_val G mu ext (T :: R) S' r = ein_val G mu ext F S r.
Proof.
  intros G mu ext V F S Fs R ST S' T HF HS Hn HR Hx HT r Hr. unfold ein_val.
  rewrite (sum_over_perm ext S (S' ++ ST)) by (auto; rewrite HS; apply Permutation_app_comm).
  rewrite sum_over_app. apply sum_over_ext. intros r' Hout Hval.
  rewrite (sum_over_ext_all ext ST (prodf G mu F) (fun r0 => rmul (prodf G mu Fs r0) (prodf G mu R r0)))
    by (intros; rewrite (prodf_perm _ _ _ _ _ HF), prodf_app; auto).
  rewrite <- sum_over_mul_r; auto.
  - cbn [prodf]. f_equal. apply HT. intros l Hl. rewrite in_app_iff in Hl.
    destruct (in_dec Nat.eq_dec l S') as [Hin|Hin]; [apply Hval; auto|].
    rewrite Hout by auto. apply Hr. destruct Hl; [auto|contradiction].
  - intros l Hl. apply prodf_indep. apply HR. auto.
Qed.

(** The typical step [_t = contr i j (prod X Y)]: two factors. *)
Corollary ein_pair_step : forall G (mu : rmem) ext V F S f g R ST S' T,
  Permutation F (f :: g :: R) -> Permutation S (ST ++ S') -> NoDup S ->
  (forall l, In l ST -> ~ In l (flabels R)) -> (forall l, In l ST -> 1 <= ext l) ->
  (forall r, valid ext r (V ++ S') -> fval G mu T r = sum_over ext ST (prodf G mu [f; g]) r) ->
  forall r, valid ext r V -> ein_val G mu ext (T :: R) S' r = ein_val G mu ext F S r.
Proof. intros. eapply ein_group_step with (Fs := [f; g]); eauto. Qed.

(** A label summed in a single factor can be summed first (R-LIFT-5). *)
Corollary ein_local_sum_step : forall G (mu : rmem) ext V F S f l R S' T,
  Permutation F (f :: R) -> Permutation S (l :: S') -> NoDup S ->
  ~ In l (flabels R) -> 1 <= ext l ->
  (forall r, valid ext r (V ++ S') ->
     fval G mu T r = rsum (ext l) (fun m => rmul (fval G mu f (eupd r l m)) rone)) ->
  forall r, valid ext r V -> ein_val G mu ext (T :: R) S' r = ein_val G mu ext F S r.
Proof.
  intros. eapply ein_group_step with (Fs := [f]) (ST := [l]); eauto.
  intros l' [<-|[]]; auto. intros l' [<-|[]]; auto.
Qed.

(** Any sequence of steps, in any order (whatever order the DP or greedy
    search of R-LIFT-6 picks), ending in any permutation of the factors
    and summed labels. *)
Inductive ein_steps (G : ctx) (mu : rmem) (ext : nat -> nat) (V : list nat)
  : list factor -> list nat -> list factor -> list nat -> Prop :=
| ES_done : forall F S F' S',
    Permutation F F' -> Permutation S S' -> ein_steps G mu ext V F S F' S'
| ES_step : forall F S Fs R ST S' T F'' S'',
    Permutation F (Fs ++ R) -> Permutation S (ST ++ S') ->
    (forall l, In l ST -> ~ In l (flabels R)) ->
    (forall r, valid ext r (V ++ S') -> fval G mu T r = sum_over ext ST (prodf G mu Fs) r) ->
    ein_steps G mu ext V (T :: R) S' F'' S'' ->
    ein_steps G mu ext V F S F'' S''.

Theorem ein_steps_correct : forall G (mu : rmem) ext V F S F' S',
  ein_steps G mu ext V F S F' S' -> NoDup S -> (forall l, In l S -> 1 <= ext l) ->
  forall r, valid ext r V -> ein_val G mu ext F' S' r = ein_val G mu ext F S r.
Proof.
  intros G mu ext V F S F' S' H. induction H; intros Hn Hx r Hr.
  - unfold ein_val. rewrite (sum_over_perm ext S S') by auto.
    apply sum_over_ext_all. intros. symmetry. apply prodf_perm. auto.
  - assert (Hn' : NoDup (ST ++ S')) by (eapply Permutation_NoDup; eauto).
    rewrite IHein_steps; auto.
    + eapply ein_group_step; eauto. intros l Hl. apply Hx.
      apply Permutation_in with (ST ++ S'); [symmetry; auto|]. apply in_or_app; auto.
    + apply NoDup_app_r in Hn'. auto.
    + intros l Hl. apply Hx. apply Permutation_in with (ST ++ S'); [symmetry; auto|].
      apply in_or_app; auto.
Qed.

(** ** Distributing sums over [add] and [sub] (R-LIFT-8) *)

Theorem ein_add_factor : forall G (mu : rmem) ext F R S a b xs r,
  Permutation F ((EAdd a b, xs) :: R) ->
  ein_val G mu ext F S r =
  radd (ein_val G mu ext ((a, xs) :: R) S r) (ein_val G mu ext ((b, xs) :: R) S r).
Proof.
  intros. unfold ein_val. rewrite <- sum_over_radd. apply sum_over_ext_all. intros r'.
  rewrite (prodf_perm _ _ _ _ _ H). cbn [prodf]. unfold fval. cbn [fst snd eval].
  apply rmul_radd_r.
Qed.

Theorem ein_sub_factor : forall G (mu : rmem) ext F R S a b xs r,
  Permutation F ((ESub a b, xs) :: R) ->
  ein_val G mu ext F S r =
  rsub (ein_val G mu ext ((a, xs) :: R) S r) (ein_val G mu ext ((b, xs) :: R) S r).
Proof.
  intros. unfold ein_val. rewrite <- sum_over_rsub. apply sum_over_ext_all. intros r'.
  rewrite (prodf_perm _ _ _ _ _ H). cbn [prodf]. unfold fval. cbn [fst snd eval].
  apply rmul_rsub_r.
Qed.

(** In expressions: an einsum [e] with an [add a b] operand is [add ea eb],
    where [ea] ([eb]) is any expression that reads as the same einsum
    with the operand [a] ([b]) instead -- e.g. [e] with [add a b] replaced
    by [a]:  [contr i j (add X Y) = add (contr i j X) (contr i j Y)],
    [prod (sub X Y) Z = sub (prod X Z) (prod Y Z)], and so on. *)
Theorem lift_distribute_add : forall G ext e F L S a b xs R ea eb t,
  ctx_pos G -> reads_as G ext e F L S -> has_type G e t ->
  Permutation F ((EAdd a b, xs) :: R) ->
  reads_as G ext ea ((a, xs) :: R) L S -> has_type G ea t ->
  reads_as G ext eb ((b, xs) :: R) L S -> has_type G eb t ->
  has_type G (EAdd ea eb) t /\
  forall (mu : rmem) k, length k = length t -> eval G mu e k = eval G mu (EAdd ea eb) k.
Proof.
  intros G ext e F L S a b xs R ea eb t HG He Ht HF Ha Hta Hb Htb.
  split; [constructor; auto|]. intros mu k Hk.
  destruct (reads_as_inv _ _ _ _ _ _ He HG _ Ht) as [A [B _]].
  pose proof (Forall2_length _ _ _ A) as Hl.
  rewrite <- (map_env_of L k) by (auto; lia). cbn [eval].
  rewrite (reads_as_eval _ _ _ _ _ _ He HG _ Ht), (reads_as_eval _ _ _ _ _ _ Ha HG _ Hta),
    (reads_as_eval _ _ _ _ _ _ Hb HG _ Htb).
  apply ein_add_factor. auto.
Qed.

Theorem lift_distribute_sub : forall G ext e F L S a b xs R ea eb t,
  ctx_pos G -> reads_as G ext e F L S -> has_type G e t ->
  Permutation F ((ESub a b, xs) :: R) ->
  reads_as G ext ea ((a, xs) :: R) L S -> has_type G ea t ->
  reads_as G ext eb ((b, xs) :: R) L S -> has_type G eb t ->
  has_type G (ESub ea eb) t /\
  forall (mu : rmem) k, length k = length t -> eval G mu e k = eval G mu (ESub ea eb) k.
Proof.
  intros G ext e F L S a b xs R ea eb t HG He Ht HF Ha Hta Hb Htb.
  split; [constructor; auto|]. intros mu k Hk.
  destruct (reads_as_inv _ _ _ _ _ _ He HG _ Ht) as [A [B _]].
  pose proof (Forall2_length _ _ _ A) as Hl.
  rewrite <- (map_env_of L k) by (auto; lia). cbn [eval].
  rewrite (reads_as_eval _ _ _ _ _ _ He HG _ Ht), (reads_as_eval _ _ _ _ _ _ Ha HG _ Hta),
    (reads_as_eval _ _ _ _ _ _ Hb HG _ Htb).
  apply ein_sub_factor. auto.
Qed.

(** ** Programs: temporaries (R-LIFT-1, R-LIFT-10, R-LIFT-12) *)

Section Stores.
Context {K : Scalar}.
Local Notation mem := (mem K).

(** Evaluation reads only the names that occur in the expression. *)
Lemma eval_vars_agree : forall G (mu1 mu2 : mem) e,
  (forall x k, In x (vars e) -> mu1 x k = mu2 x k) ->
  forall k, eval G mu1 e k = eval G mu2 e k.
Proof.
  intros G mu1 mu2 e. induction e; intros H k; simpl in *;
    try (apply IHe; auto; fail);
    try (rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto; fail).
  - apply H. auto.
  - destruct (type_of G e1) as [[|]|]; auto;
      rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto.
  - destruct (type_of G e2) as [[|]|]; auto;
      rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto.
  - destruct (type_of G e1); auto.
    rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto.
  - destruct (type_of G e); auto. apply rsum_ext. intros. apply IHe. auto.
  - destruct (type_of G e); auto. apply rsum_ext. intros. apply IHe. auto.
Qed.

(** A sequence of statements changes only the tensors it assigns. *)
Lemma steps_unchanged : forall G (mu mu' : mem) ss, steps G mu ss mu' ->
  forall y k, ~ In y (map fst ss) -> mu' y k = mu y k.
Proof.
  intros G mu mu' ss H. induction H; intros y k Hy; auto.
  simpl in Hy. rewrite IHsteps by tauto. inversion H; subst. unfold upd.
  simpl in Hy. destruct (String.eqb y x) eqn:E; auto.
  apply String.eqb_eq in E. subst. tauto.
Qed.

Lemma step_value : forall G (mu mu' : mem) x e t, step G mu (x, e) mu' -> lookup G x = Some t ->
  forall k, in_bounds t k -> mu' x k = eval G mu e k.
Proof.
  intros G mu mu' x e t H Hx k Hk. inversion H as [m x' e' t' Hx' _ _]; subst. unfold upd.
  rewrite String.eqb_refl. rewrite Hx' in Hx. inversion Hx; subst.
  apply in_bounds_b_spec in Hk. rewrite Hk. auto.
Qed.

(** Lifting a statement through temporaries, for any scalar type:
    [x = e] and [t1 = e1; ...; tn = en; x = c] end with the same value of
    every tensor other than the temporaries, provided [c], evaluated after
    the temporaries are assigned, equals [e] evaluated before (at every
    in-bounds index of [x]). *)
Theorem temps_group_correct : forall G (mu mu' mu1 mu2 : mem) temps x e c tx,
  lookup G x = Some tx -> ~ In x (map fst temps) ->
  steps G mu temps mu' -> step G mu' (x, c) mu2 -> step G mu (x, e) mu1 ->
  (forall k, in_bounds tx k -> eval G mu' c k = eval G mu e k) ->
  forall y k, ~ In y (map fst temps) -> mu2 y k = mu1 y k.
Proof.
  intros G mu mu' mu1 mu2 temps x e c tx Hx Hxt Hs H2 H1 Hce y k Hy.
  inversion H2 as [m x2 e2 t2 Hx2 _ _]; subst. inversion H1 as [m x1 e1 t1 Hx1 _ _]; subst.
  assert (t2 = tx) by congruence. assert (t1 = tx) by congruence. subst t1 t2.
  unfold upd. destruct (String.eqb y x) eqn:E; simpl.
  - apply String.eqb_eq in E. subst. destruct (in_bounds_b tx k) eqn:Ek.
    + apply Hce. apply in_bounds_b_spec. auto.
    + eapply steps_unchanged; eauto.
  - eapply steps_unchanged; eauto.
Qed.

Corollary temps_group_correct_seq : forall G (mu mu1 mu2 : mem) temps x e c tx,
  lookup G x = Some tx -> ~ In x (map fst temps) ->
  (forall mu', steps G mu temps mu' -> forall k, in_bounds tx k -> eval G mu' c k = eval G mu e k) ->
  step G mu (x, e) mu1 -> steps G mu (temps ++ [(x, c)]) mu2 ->
  forall y k, ~ In y (map fst temps) -> mu2 y k = mu1 y k.
Proof.
  intros G mu mu1 mu2 temps x e c tx Hx Hxt Hce H1 H2.
  apply steps_app in H2. destruct H2 as [mu' [Hs Hs']].
  inversion Hs' as [|m m' m'' s ss Hst Hnil]; subst. inversion Hnil; subst.
  eapply temps_group_correct; eauto.
Qed.

(** Statements that neither read nor write the names [T] map stores that
    agree outside [T] to stores that agree outside [T]. *)
Lemma steps_agree : forall G (T : list name) ss (mu1 mu1' : mem), steps G mu1 ss mu1' ->
  forall mu2 mu2', steps G mu2 ss mu2' ->
  (forall x e, In (x, e) ss -> ~ In x T /\ forall y, In y (vars e) -> ~ In y T) ->
  (forall y k, ~ In y T -> mu1 y k = mu2 y k) ->
  forall y k, ~ In y T -> mu1' y k = mu2' y k.
Proof.
  intros G T ss mu1 mu1' H. induction H as [|mu mu' mu'' s ss Hs Hss IH]; intros mu2 mu2' H2 Hok Hag.
  - inversion H2; subst. auto.
  - inversion H2 as [|m m' m'' s' ss' Hs2 Hss2]; subst.
    apply (IH _ _ Hss2); [intros; apply Hok; right; auto|].
    inversion Hs as [m x e t Hx _ _]; subst. inversion Hs2 as [m x' e' t' Hx' _ _]; subst.
    assert (t' = t) by congruence. subst t'.
    destruct (Hok x e (or_introl eq_refl)) as [HxT HeT].
    intros y k Hy. unfold upd. destruct (String.eqb y x && in_bounds_b t k); auto.
    apply eval_vars_agree. intros z kz Hz. apply Hag. apply HeT. auto.
Qed.

(** The same in a whole program: replacing one statement [x = e] by a
    group [temps; x = c] (with the temporaries declared in both programs,
    and neither read nor written by the statements after the group) gives
    the same final value of every tensor other than the temporaries. *)
Theorem temps_group_program : forall ds inp ss1 ss2 temps x e c tx (mu1 mu2 : mem),
  lookup (ctx_of ds) x = Some tx -> ~ In x (map fst temps) ->
  (forall (mu mu' : mem), steps (ctx_of ds) mu temps mu' ->
     forall k, in_bounds tx k -> eval (ctx_of ds) mu' c k = eval (ctx_of ds) mu e k) ->
  (forall y e', In (y, e') ss2 -> ~ In y (map fst temps) /\
     forall z, In z (vars e') -> ~ In z (map fst temps)) ->
  prog_eval inp (mkProg ds (ss1 ++ (x, e) :: ss2)) mu1 ->
  prog_eval inp (mkProg ds (ss1 ++ temps ++ (x, c) :: ss2)) mu2 ->
  forall y k, ~ In y (map fst temps) -> mu2 y k = mu1 y k.
Proof.
  intros ds inp ss1 ss2 temps x e c tx mu1 mu2 Hx Hxt Hce Hss2 H1 H2.
  inversion H1 as [ds1 ss1' mu1' Hs1]; subst. inversion H2 as [ds2 ss2' mu2' Hs2]; subst.
  apply steps_app in Hs1. destruct Hs1 as [m1 [Ha1 Hb1]].
  apply steps_app in Hs2. destruct Hs2 as [m2 [Ha2 Hb2]].
  assert (m1 = m2) by (eapply steps_deterministic; eauto). subst m2.
  inversion Hb1 as [|n0 n1 n2 s0 ss0 Hx1 Hr1]; subst.
  apply steps_app in Hb2. destruct Hb2 as [m3 [Ht Hb2]].
  inversion Hb2 as [|p0 p1 p2 s1 ss3 Hx2 Hr2]; subst.
  apply (steps_agree _ (map fst temps) ss2 p1 mu2 Hr2 n1 mu1 Hr1 Hss2).
  intros y k Hy. eapply temps_group_correct; eauto.
Qed.

End Stores.

(** ** Lifting chains: the compiler's group of statements for one einsum

    [lift_chain G ext V F S temps F' S']: starting from the einsum with
    factors [F] and summed labels [S] (output labels [V]), the statements
    [temps] assign fresh temporaries, each [h = d] where [d] reads as the
    einsum of some factors [Fs] of the current einsum summed over labels
    [ST] used by no other factor; the current einsum then has the factor
    [h] (with [d]'s output labels [LT], which are output or still-summed
    labels) in place of [Fs].  The chain ends with the einsum [F'], [S']
    (up to the order of factors and of summed labels).  A step is e.g.
    [_t1 = contr 2 6 (prod A u)] (R-LIFT-7), a local [red+]/[diag] on one
    operand (R-LIFT-5), or a materialized leaf (R-LIFT-4). *)
Inductive lift_chain (G : ctx) (ext : nat -> nat) (V : list nat)
  : list factor -> list nat -> list stmt -> list factor -> list nat -> Prop :=
| LC_done : forall F S F' S',
    Permutation F F' -> Permutation S S' -> lift_chain G ext V F S [] F' S'
| LC_step : forall F S Fs R ST S' h d LT tT rest F'' S'',
    Permutation F (Fs ++ R) -> Permutation S (ST ++ S') ->
    (forall l, In l ST -> ~ In l (flabels R)) ->
    reads_as G ext d Fs LT ST -> has_type G d tT -> lookup G h = Some tT ->
    (forall l, In l LT -> In l V \/ In l S') ->
    lift_chain G ext V ((EVar h, map IL LT) :: R) S' rest F'' S'' ->
    lift_chain G ext V F S ((h, d) :: rest) F'' S''.

Lemma in_bounds_map_env : forall ext L t (r : env), Forall2 (fun l d => ext l = d) L t ->
  (forall l, In l L -> 1 <= r l <= ext l) -> in_bounds t (map r L).
Proof.
  intros ext L t r H. induction H; intros Hr; simpl; constructor.
  - subst. apply Hr. left; auto.
  - apply IHForall2. intros; apply Hr; right; auto.
Qed.

(** After the temporaries of a chain are assigned, the chain is a valid
    sequence of einsum steps in the final store: each temporary holds the
    einsum of the factors it replaced. *)
Theorem lift_chain_steps : forall G ext V F S temps F' S',
  lift_chain G ext V F S temps F' S' -> ctx_pos G ->
  forall (mu mu' : rmem), steps G mu temps mu' -> NoDup (map fst temps) ->
  (forall f x, In f F -> In x (vars (fst f)) -> ~ In x (map fst temps)) ->
  ein_steps G mu' ext V F S F' S'.
Proof.
  intros G ext V F S temps F' S' H HG.
  induction H as [|F S Fs R0 ST S' h d LT tT rest F'' S'' H H0 H1 H2 H3 H4 H5 H6 IHlift_chain];
    intros mu mu' Hs Hn Hf.
  - constructor; auto.
  - inversion Hs as [|m m1 m' s ss Hs1 Hss]; subst.
    simpl in Hn. inversion Hn as [|h' names Hh Hn']; subst.
    destruct (reads_as_inv _ _ _ _ _ _ H2 HG _ H3) as [A _].
    apply (ES_step G mu' ext V F S Fs R0 ST S' (EVar h, map IL LT) F'' S''); auto.
    + intros r Hr. unfold fval. cbn [fst snd eval]. rewrite map_map.
      change (map (fun x => ixval r (IL x)) LT) with (map r LT).
      assert (Hb : in_bounds tT (map r LT)).
      { apply in_bounds_map_env with ext; auto. intros l Hl. apply Hr.
        apply in_or_app. destruct (H5 l Hl); auto. }
      rewrite (steps_unchanged _ _ _ _ Hss) by auto.
      rewrite (step_value _ _ _ _ _ _ Hs1 H4 _ Hb).
      rewrite (eval_vars_agree G mu mu' d).
      * apply (reads_as_eval _ _ _ _ _ _ H2 HG _ H3).
      * intros x k Hx. symmetry. apply (steps_unchanged _ _ _ _ Hs).
        apply (reads_as_vars _ _ _ _ _ _ H2) in Hx. destruct Hx as [f [Hf1 Hx]].
        apply (Hf f); auto. apply Permutation_in with (Fs ++ R0); [symmetry; auto|].
        apply in_or_app; auto.
    + apply (IHlift_chain m1 mu'); auto. intros f x [<-|Hin] Hx.
      * simpl in Hx. destruct Hx as [<-|[]]. auto.
      * intro Hx'. apply (Hf f x); [|auto|simpl; auto].
        apply Permutation_in with (Fs ++ R0); [symmetry; auto|]. apply in_or_app; auto.
Qed.

(** One einsum lifted through a chain: the final expression [c] (read as
    the last einsum of the chain, with the same output labels) evaluated
    after the temporaries equals [e] evaluated before, at every in-bounds
    index.  Proved over the reals. *)
Theorem lift_einsum_sim : forall G ext e c t F0 L S0 Fk Sk temps (mu mu' : rmem),
  ctx_pos G -> reads_as G ext e F0 L S0 -> has_type G e t ->
  reads_as G ext c Fk L Sk -> has_type G c t ->
  lift_chain G ext L F0 S0 temps Fk Sk ->
  steps G mu temps mu' -> NoDup (map fst temps) ->
  (forall x, In x (vars e) -> ~ In x (map fst temps)) ->
  forall k, in_bounds t k -> eval G mu' c k = eval G mu e k.
Proof.
  intros G ext e c t F0 L S0 Fk Sk temps mu mu' HG He Ht Hc Htc Hch Hs Hn Hfresh k Hk.
  destruct (reads_as_inv _ _ _ _ _ _ He HG _ Ht) as [A [B [C [D E]]]].
  pose proof (Forall2_length _ _ _ A) as Hl. pose proof (in_bounds_length _ _ Hk) as Hlk.
  rewrite <- (map_env_of L k) by (auto; lia).
  assert (Hv : valid ext (env_of L k) L).
  { intros l Hin. apply In_nth with (d := 0) in Hin. destruct Hin as [p [Hp <-]].
    rewrite <- nth_map_env by auto. rewrite map_env_of by (auto; lia).
    rewrite Forall2_ext_nth with (t := t) by auto.
    apply (Forall2_nth (fun d i => 1 <= i <= d)); auto. lia. }
  rewrite (reads_as_eval _ _ _ _ _ _ Hc HG _ Htc).
  rewrite (eval_vars_agree G mu mu' e)
    by (intros x k0 Hx; symmetry; apply (steps_unchanged _ _ _ _ Hs); auto).
  rewrite (reads_as_eval _ _ _ _ _ _ He HG _ Ht).
  apply (ein_steps_correct G mu' ext L F0 S0 Fk Sk); auto.
  apply (lift_chain_steps _ _ _ _ _ _ _ _ Hch HG mu); auto.
  intros f x Hf Hx. apply Hfresh. apply (reads_as_vars _ _ _ _ _ _ He). eauto.
Qed.

(** Lifting correctness for a statement (R-LIFT-1, R-LIFT-12), over the
    reals: [x = e] replaced by [_t1 = e1; ...; _tn = en; x = c] (fresh,
    distinct temporaries, not read by [e]) ends with the same value of
    every tensor other than the temporaries. *)
Theorem lift_statement_correct : forall G ext x tx e c F0 L S0 Fk Sk temps (mu mu1 mu2 : rmem),
  ctx_pos G -> lookup G x = Some tx ->
  reads_as G ext e F0 L S0 -> has_type G e tx ->
  reads_as G ext c Fk L Sk -> has_type G c tx ->
  lift_chain G ext L F0 S0 temps Fk Sk ->
  NoDup (map fst temps) -> ~ In x (map fst temps) ->
  (forall y, In y (vars e) -> ~ In y (map fst temps)) ->
  step G mu (x, e) mu1 -> steps G mu (temps ++ [(x, c)]) mu2 ->
  forall y k, ~ In y (map fst temps) -> mu2 y k = mu1 y k.
Proof.
  intros. eapply temps_group_correct_seq; eauto.
  intros mu' Hs k' Hk. eapply lift_einsum_sim; eauto.
Qed.

(** The same for a whole program (temporaries declared, not used by the
    statements after the group). *)
Theorem lift_program_correct : forall ds inp ss1 ss2 ext x tx e c F0 L S0 Fk Sk temps
    (mu1 mu2 : rmem),
  let G := ctx_of ds in
  ctx_pos G -> lookup G x = Some tx ->
  reads_as G ext e F0 L S0 -> has_type G e tx ->
  reads_as G ext c Fk L Sk -> has_type G c tx ->
  lift_chain G ext L F0 S0 temps Fk Sk ->
  NoDup (map fst temps) -> ~ In x (map fst temps) ->
  (forall y, In y (vars e) -> ~ In y (map fst temps)) ->
  (forall y e', In (y, e') ss2 -> ~ In y (map fst temps) /\
     forall z, In z (vars e') -> ~ In z (map fst temps)) ->
  prog_eval inp (mkProg ds (ss1 ++ (x, e) :: ss2)) mu1 ->
  prog_eval inp (mkProg ds (ss1 ++ temps ++ (x, c) :: ss2)) mu2 ->
  forall y k, ~ In y (map fst temps) -> mu2 y k = mu1 y k.
Proof.
  intros. eapply temps_group_program; eauto.
  intros mu mu' Hs k' Hk. eapply lift_einsum_sim; eauto.
Qed.

(** ** Composing lifted einsums (contexts, several terms)

    A statement may hold several einsum regions, inside a context (e.g.
    [v = add v (contr ...)] becomes [... ; v = add v _t4]) or as the terms
    of a distributed sum (R-LIFT-8, e.g. [y = sub _t2 _t3]).  [sim G mu' mu
    c e t] says [c] in the store [mu'] (after temporaries) equals [e] in
    [mu] (before) at every in-bounds index; [lift_einsum_sim] gives it for
    one einsum, the lemmas below combine it, and [temps_group_correct]
    turns it into the correctness of the statement.  A leaf whose own
    einsum is lifted first (R-LIFT-4, e.g. [div (contr ...) B] becoming
    [div _t1 B]) is [sim_subst] for the leaf's region followed, by
    [sim_trans], by the chain of the outer einsum read with the rewritten
    leaf; [lift_add_distribute] is a worked composition. *)

Section Sim.
Context {K : Scalar}.
Local Notation mem := (mem K).

Definition sim (G : ctx) (mu' mu : mem) (c e : expr) (t : list nat) : Prop :=
  forall k, in_bounds t k -> eval G mu' c k = eval G mu e k.

Lemma sim_refl : forall G (mu' mu : mem) c t,
  (forall x k, In x (vars c) -> mu' x k = mu x k) -> sim G mu' mu c c t.
Proof. intros. intros k _. apply eval_vars_agree. auto. Qed.

(** Later temporaries that [c] does not read do not matter. *)
Lemma sim_after : forall G (mu' mu mu'' : mem) c e t ss,
  sim G mu' mu c e t -> steps G mu' ss mu'' ->
  (forall x, In x (vars c) -> ~ In x (map fst ss)) -> sim G mu'' mu c e t.
Proof.
  intros G mu' mu mu'' c e t ss H Hs Hf k Hk. rewrite <- H by auto.
  apply eval_vars_agree. intros x k' Hx. eapply steps_unchanged; eauto.
Qed.

(** Earlier temporaries that [e] does not read do not matter. *)
Lemma sim_before : forall G (mu0 mu' mu : mem) c e t ss,
  sim G mu' mu c e t -> steps G mu0 ss mu ->
  (forall x, In x (vars e) -> ~ In x (map fst ss)) -> sim G mu' mu0 c e t.
Proof.
  intros G mu0 mu' mu c e t ss H Hs Hf k Hk. rewrite H by auto.
  apply eval_vars_agree. intros x k' Hx. eapply steps_unchanged; eauto.
Qed.

Lemma sim_trans_eq : forall G (mu' mu : mem) c e e' t,
  sim G mu' mu c e t -> (forall k, in_bounds t k -> eval G mu e k = eval G mu e' k) ->
  sim G mu' mu c e' t.
Proof. intros. intros k Hk. rewrite H, H0; auto. Qed.

Lemma sim_trans : forall G (mu'' mu' mu : mem) c d e t,
  sim G mu'' mu' c d t -> sim G mu' mu d e t -> sim G mu'' mu c e t.
Proof. intros. intros k Hk. rewrite H, H0; auto. Qed.

Lemma sim_add : forall G (mu' mu : mem) c0 c1 e0 e1 t,
  sim G mu' mu c0 e0 t -> sim G mu' mu c1 e1 t -> sim G mu' mu (EAdd c0 c1) (EAdd e0 e1) t.
Proof. intros. intros k Hk. simpl. rewrite H, H0; auto. Qed.

Lemma sim_sub : forall G (mu' mu : mem) c0 c1 e0 e1 t,
  sim G mu' mu c0 e0 t -> sim G mu' mu c1 e1 t -> sim G mu' mu (ESub c0 c1) (ESub e0 e1) t.
Proof. intros. intros k Hk. simpl. rewrite H, H0; auto. Qed.

Lemma reads_vars : forall G e k y k', In (y, k') (reads G e k) -> In y (vars e).
Proof.
  intros G e. induction e; intros k y k' H; simpl in *; rewrite ?in_app_iff;
    try (eapply IHe; eauto; fail).
  - destruct H as [H|[]]. inversion H; auto.
  - apply in_app_or in H. destruct H; eauto.
  - apply in_app_or in H. destruct H; eauto.
  - destruct (type_of G e1) as [[|]|]; try contradiction;
      apply in_app_or in H; destruct H; eauto.
  - destruct (type_of G e2) as [[|]|]; try contradiction;
      apply in_app_or in H; destruct H; eauto.
  - destruct (type_of G e1); try contradiction; apply in_app_or in H; destruct H; eauto.
  - destruct (type_of G e); try contradiction. apply in_flat_map in H.
    destruct H as [m [_ H]]. eauto.
  - destruct (type_of G e); try contradiction. apply in_flat_map in H.
    destruct H as [m [_ H]]. eauto.
Qed.

(** An einsum region inside a context [C] (hole [h]). *)
Lemma sim_subst : forall G (mu' mu : mem) h th c0 e0 C t,
  lookup G h = Some th -> has_type G c0 th -> has_type G e0 th -> has_type G C t ->
  sim G mu' mu c0 e0 th ->
  (forall x k, In x (vars C) -> x <> h -> mu' x k = mu x k) ->
  sim G mu' mu (subst h c0 C) (subst h e0 C) t.
Proof.
  intros G mu' mu h th c0 e0 C t Hh Hc He HC Hs Hag k Hk.
  rewrite <- (subst_eval G mu' h c0 th C t), <- (subst_eval G mu h e0 th C t) by auto.
  apply eval_reads. intros y k' Hr. unfold upd.
  destruct (reads_in_bounds G C t HC k Hk y k' Hr) as [ty [Hy Hk']].
  destruct (String.eqb y h) eqn:E; simpl.
  - apply String.eqb_eq in E. subst. rewrite Hh in Hy. inversion Hy; subst.
    apply in_bounds_b_spec in Hk'. rewrite Hk'. apply Hs. apply in_bounds_b_spec. auto.
  - apply Hag. eapply reads_vars; eauto. apply String.eqb_neq. auto.
Qed.

End Sim.

(** ** The lifted program's declarations (R-LIFT-1)

    [lift_program] keeps the user tensors with their effective qualifiers
    (after the no-qualifier default of R-TY-18) and appends the
    temporaries.  Running the original statements in the extended
    declarations changes nothing outside the temporaries. *)

Definition eff_decl (ds : list decl) (d : decl) : decl :=
  mkDecl (d_name d) (d_type d) (is_input ds d) (is_output ds d).

Definition eff_decls (ds : list decl) : list decl := map (eff_decl ds) ds.

Section Weaken.
Context {K : Scalar}.
Local Notation mem := (mem K).

Lemma lookup_app : forall (G1 G2 : ctx) x,
  lookup (G1 ++ G2) x = match lookup G1 x with Some t => Some t | None => lookup G2 x end.
Proof.
  induction G1 as [|[y t] G1 IH]; intros G2 x; simpl; auto.
  destruct (String.eqb y x); auto.
Qed.

Lemma lookup_notin : forall (G : ctx) x, ~ In x (map fst G) -> lookup G x = None.
Proof.
  induction G as [|[y t] G IH]; intros x H; simpl in *; auto.
  destruct (String.eqb y x) eqn:E; [apply String.eqb_eq in E; subst; tauto|]. apply IH. tauto.
Qed.

Lemma lookup_weaken : forall (G1 G2 : ctx) x, ~ In x (map fst G2) -> lookup (G1 ++ G2) x = lookup G1 x.
Proof.
  intros. rewrite lookup_app. destruct (lookup G1 x); auto. apply lookup_notin. auto.
Qed.

Lemma type_of_weaken : forall (G1 G2 : ctx) e, (forall x, In x (vars e) -> ~ In x (map fst G2)) ->
  type_of (G1 ++ G2) e = type_of G1 e.
Proof.
  intros G1 G2 e. induction e; intros H; simpl in *;
    repeat match goal with
    | IH : (forall x, In x (vars ?e) -> _) -> type_of _ ?e = _ |- _ =>
        rewrite IH by (intros; apply H; rewrite ?in_app_iff; auto); clear IH
    end; auto.
  apply lookup_weaken. auto.
Qed.

Lemma eval_weaken : forall (G1 G2 : ctx) (mu : mem) e, (forall x, In x (vars e) -> ~ In x (map fst G2)) ->
  forall k, eval (G1 ++ G2) mu e k = eval G1 mu e k.
Proof.
  intros G1 G2 mu e. induction e; intros H k; simpl in *;
    rewrite ?type_of_weaken by (intros; apply H; rewrite ?in_app_iff; auto);
    try (apply IHe; auto; fail);
    try (rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto; fail).
  - reflexivity.
  - destruct (type_of G1 e1) as [[|]|]; auto;
      rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto.
  - destruct (type_of G1 e2) as [[|]|]; auto;
      rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto.
  - destruct (type_of G1 e1); auto.
    rewrite IHe1, IHe2 by (intros; apply H; apply in_or_app; auto); auto.
  - destruct (type_of G1 e); auto. apply rsum_ext. intros. apply IHe. auto.
  - destruct (type_of G1 e); auto. apply rsum_ext. intros. apply IHe. auto.
Qed.

(** Statements that do not mention the names of [G2] run in [G1 ++ G2]
    as in [G1], from any store that agrees outside those names. *)
Lemma steps_weaken : forall (G1 G2 : ctx) ss (mu mu' : mem), steps G1 mu ss mu' ->
  (forall x e, In (x, e) ss -> ~ In x (map fst G2) /\ forall y, In y (vars e) -> ~ In y (map fst G2)) ->
  forall mu2, (forall y k, ~ In y (map fst G2) -> mu2 y k = mu y k) ->
  exists mu2', steps (G1 ++ G2) mu2 ss mu2' /\ forall y k, ~ In y (map fst G2) -> mu2' y k = mu' y k.
Proof.
  intros G1 G2 ss mu mu' H. induction H as [|mu mu1 mu'' s ss Hs Hss IH]; intros Hok mu2 Hag.
  - exists mu2. split; [constructor|auto].
  - inversion Hs as [m x e t Hx Hd Hdef]; subst.
    destruct (Hok x e (or_introl eq_refl)) as [HxT HeT].
    assert (Hev : forall k, eval (G1 ++ G2) mu2 e k = eval G1 mu e k).
    { intros k. rewrite eval_weaken by auto. apply eval_vars_agree. intros z kz Hz. apply Hag. auto. }
    destruct (IH (fun x' e' H' => Hok x' e' (or_intror H')) (upd mu2 x t (eval (G1 ++ G2) mu2 e)))
      as [mu2' [Hs2 Hag2]].
    { intros y k Hy. unfold upd. destruct (String.eqb y x && in_bounds_b t k); auto. }
    exists mu2'. split; auto. econstructor; [|exact Hs2]. constructor.
    + rewrite lookup_weaken; auto.
    + intros k Hk. rewrite Hag by auto. auto.
    + intros k Hk. rewrite Hev. auto.
Qed.

Lemma find_decl_map : forall (f : decl -> decl) ds x, (forall d, d_name (f d) = d_name d) ->
  find_decl (map f ds) x = option_map f (find_decl ds x).
Proof.
  intros f ds x Hf. induction ds as [|d ds IH]; simpl; auto.
  rewrite Hf. destruct (String.eqb (d_name d) x); auto.
Qed.

Lemma find_decl_app : forall ds dt x,
  find_decl (ds ++ dt) x = match find_decl ds x with Some d => Some d | None => find_decl dt x end.
Proof.
  induction ds as [|d ds IH]; intros dt x; simpl; auto. destruct (String.eqb (d_name d) x); auto.
Qed.

Lemma find_decl_notin : forall dt x, ~ In x (map d_name dt) -> find_decl dt x = None.
Proof.
  induction dt as [|d dt IH]; intros x H; simpl in *; auto.
  destruct (String.eqb (d_name d) x) eqn:E; [apply String.eqb_eq in E; tauto|]. apply IH. tauto.
Qed.

Lemma ctx_of_eff : forall ds dt, ctx_of (eff_decls ds ++ dt) = ctx_of ds ++ ctx_of dt.
Proof. intros. unfold ctx_of, eff_decls. rewrite map_app, map_map. auto. Qed.

Lemma has_qualifiers_eff : forall ds dt d, In d ds -> has_qualifiers (eff_decls ds ++ dt) = true.
Proof.
  intros ds dt d Hd. unfold has_qualifiers. rewrite existsb_app. apply orb_true_iff. left.
  apply existsb_exists. destruct (has_qualifiers ds) eqn:Hq.
  - unfold has_qualifiers in Hq. apply existsb_exists in Hq. destruct Hq as [d0 [Hd0 Hq]].
    exists (eff_decl ds d0). split; [apply in_map; auto|].
    unfold eff_decl, is_input, is_output; simpl. unfold has_qualifiers.
    rewrite (proj2 (existsb_exists _ _) (ex_intro _ d0 (conj Hd0 Hq))). auto.
  - exists (eff_decl ds d). split; [apply in_map; auto|].
    unfold eff_decl, is_input; simpl. rewrite Hq. auto.
Qed.

Lemma init_mem_eff : forall ds dt (inp : name -> list nat -> val K) x k, ~ In x (map d_name dt) ->
  init_mem (eff_decls ds ++ dt) inp x k = init_mem ds inp x k.
Proof.
  intros ds dt inp x k Hx. unfold init_mem. rewrite find_decl_app.
  unfold eff_decls. rewrite find_decl_map by auto.
  destruct (find_decl ds x) as [d|] eqn:E; simpl; [|apply find_decl_notin in Hx; rewrite Hx; auto].
  destruct (in_bounds_b (d_type d) k); auto. f_equal.
  unfold is_input at 1. fold (eff_decls ds).
  rewrite (has_qualifiers_eff ds dt d) by (eapply find_decl_in; eauto). auto.
Qed.

End Weaken.

(** Lifting correctness for a whole program with the declarations of
    R-LIFT-1: the original program (declarations [ds]) and the lifted one
    (the user tensors with effective qualifiers, then the temporaries
    [dt]), with one statement [x = e] replaced by its lifted group, end
    with the same value of every tensor except the temporaries.  The
    original statements must not mention the temporaries' names (they
    are fresh), and may read [x] (in place, R-LIFT-10). *)
Theorem lift_program_decls : forall ds dt inp ss1 ss2 ext x tx e c F0 L S0 Fk Sk temps
    (mu1 mu2 : rmem),
  let G' := ctx_of (eff_decls ds ++ dt) in
  let T := map d_name dt in
  ctx_pos G' -> lookup G' x = Some tx ->
  reads_as G' ext e F0 L S0 -> has_type G' e tx ->
  reads_as G' ext c Fk L Sk -> has_type G' c tx ->
  lift_chain G' ext L F0 S0 temps Fk Sk -> NoDup (map fst temps) ->
  (forall h, In h (map fst temps) -> In h T) ->
  (forall y e', In (y, e') (ss1 ++ (x, e) :: ss2) -> ~ In y T /\ forall z, In z (vars e') -> ~ In z T) ->
  prog_eval inp (mkProg ds (ss1 ++ (x, e) :: ss2)) mu1 ->
  prog_eval inp (mkProg (eff_decls ds ++ dt) (ss1 ++ temps ++ (x, c) :: ss2)) mu2 ->
  forall y k, ~ In y T -> mu2 y k = mu1 y k.
Proof.
  intros ds dt inp ss1 ss2 ext x tx e c F0 L S0 Fk Sk temps mu1 mu2 G' T HG Hx He Hte Hc Htc Hch
    Hn Htemps Hok H1 H2 y k Hy.
  assert (HT : map fst (ctx_of dt) = T) by (unfold ctx_of, T; rewrite map_map; auto).
  inversion H1 as [ds1 ss1' mu1' Hs1]; subst.
  destruct (steps_weaken (ctx_of ds) (ctx_of dt) _ _ _ Hs1) with (mu2 := init_mem (eff_decls ds ++ dt) inp)
    as [mu1' [Hs1' Hag]].
  { rewrite HT. auto. }
  { intros z kz Hz. rewrite HT in Hz. apply init_mem_eff. auto. }
  rewrite <- ctx_of_eff in Hs1'.
  rewrite HT in Hag. rewrite <- (Hag y k Hy).
  assert (Hxt : ~ In x (map fst temps)).
  { intro Hin. apply Htemps in Hin. apply (proj1 (Hok x e ltac:(apply in_or_app; right; left; auto))). auto. }
  eapply (lift_program_correct (eff_decls ds ++ dt) inp ss1 ss2 ext x tx e c F0 L S0 Fk Sk temps);
    eauto.
  - intros z Hz Hz'. apply (proj2 (Hok x e ltac:(apply in_or_app; right; left; auto)) z Hz).
    apply Htemps. auto.
  - intros z e' Hz. destruct (Hok z e' ltac:(apply in_or_app; right; right; auto)) as [A B].
    split; [intro; apply A; apply Htemps; auto|intros w Hw Hw'; apply (B w Hw); apply Htemps; auto].
  - constructor. auto.
Qed.

(** ** Building readings *)

Lemma reads_as_conv : forall G ext e F L S F' L' S',
  reads_as G ext e F L S -> F = F' -> L = L' -> S = S' -> reads_as G ext e F' L' S'.
Proof. intros; subst; auto. Qed.

Lemma ra_var : forall G ext x t L, lookup G x = Some t ->
  Forall2 (fun l d => ext l = d) L t -> NoDup L ->
  reads_as G ext (EVar x) [(EVar x, map IL L)] L [].
Proof. intros. apply RA_leaf with t; auto. constructor. auto. Qed.

Ltac ra_leaf t := apply ra_var with t; [reflexivity|repeat constructor|repeat constructor; simpl; lia].
Ltac ty_contr tt := eapply has_type_conv; [apply T_Contr with (t := tt); simpl; auto; try lia|reflexivity].
Ltac ty_prod t0 t1 := apply has_type_conv with (app t0 t1); [constructor|reflexivity].
Ltac ra_disj := let l := fresh "l" in let H1 := fresh "H" in let H2 := fresh "H" in
  intros l H1 H2; simpl in H1, H2; lia.

(** ** Worked instance: examples/lift/matmul_chain.teil

    [D = contr 2 3 (contr 2 3 (prod A (prod B C)))] (D = A B C) is lifted
    (R-LIFT-6 picks (A B) C) into

      _t1 = contr 2 3 (prod A B)
      D   = contr 2 3 (prod _t1 C)

    Labels: A[0,1] B[1,3] C[3,5], output [0,5], summed [3,1]; the step
    sums label 1 (used by A and B only). *)

Section MatmulChain.
Local Open Scope string_scope.
Variables n1 n2 n3 n4 : nat.
Hypothesis Hpos : 1 <= n1 /\ 1 <= n2 /\ 1 <= n3 /\ 1 <= n4.

Definition Gmm : ctx :=
  [("A", [n1; n2]); ("B", [n2; n3]); ("C", [n3; n4]); ("D", [n1; n4]); ("_t1", [n1; n3])].

Definition mm_e : expr := EContr 2 3 (EContr 2 3 (EProd (EVar "A") (EProd (EVar "B") (EVar "C")))).
Definition mm_d1 : expr := EContr 2 3 (EProd (EVar "A") (EVar "B")).
Definition mm_c : expr := EContr 2 3 (EProd (EVar "_t1") (EVar "C")).

Definition mm_ext (l : nat) : nat := nth l [n1; n2; n2; n3; n3; n4; n2; n3] 0.

Definition mm_F0 : list factor :=
  [(EVar "A", [IL 0; IL 1]); (EVar "B", [IL 1; IL 3]); (EVar "C", [IL 3; IL 5])].
Definition mm_Fk : list factor := [(EVar "_t1", [IL 0; IL 3]); (EVar "C", [IL 3; IL 5])].

Lemma Gmm_pos : ctx_pos Gmm.
Proof.
  intros x t H. unfold Gmm in H. simpl in H.
  destruct Hpos as [H1 [H2 [H3 H4]]].
  repeat match type of H with
  | (if ?c then _ else _) = _ => destruct c; [inversion H; subst; repeat constructor; lia|]
  end. discriminate.
Qed.

Lemma mm_reads_e : reads_as Gmm mm_ext mm_e mm_F0 [0; 5] [3; 1].
Proof.
  assert (HA : reads_as Gmm mm_ext (EVar "A") [(EVar "A", map IL [0; 1])] [0; 1] [])
    by ra_leaf [n1; n2].
  assert (HB : reads_as Gmm mm_ext (EVar "B") [(EVar "B", map IL [2; 3])] [2; 3] [])
    by ra_leaf [n2; n3].
  assert (HC : reads_as Gmm mm_ext (EVar "C") [(EVar "C", map IL [4; 5])] [4; 5] [])
    by ra_leaf [n3; n4].
  pose proof (RA_prod _ _ _ _ _ _ _ _ _ _ HB HC ltac:(ra_disj)) as HBC.
  pose proof (RA_prod _ _ _ _ _ _ _ _ _ _ HA HBC ltac:(ra_disj)) as HABC.
  exact (reads_as_conv _ _ _ _ _ _ _ _ _
           (RA_contr _ _ 2 3 _ _ _ _ (RA_contr _ _ 2 3 _ _ _ _ HABC)) eq_refl eq_refl eq_refl).
Qed.

Lemma mm_reads_d1 : reads_as Gmm mm_ext mm_d1
  [(EVar "A", [IL 0; IL 1]); (EVar "B", [IL 1; IL 3])] [0; 3] [1].
Proof.
  assert (HA : reads_as Gmm mm_ext (EVar "A") [(EVar "A", map IL [0; 1])] [0; 1] [])
    by ra_leaf [n1; n2].
  assert (HB : reads_as Gmm mm_ext (EVar "B") [(EVar "B", map IL [6; 3])] [6; 3] [])
    by ra_leaf [n2; n3].
  pose proof (RA_prod _ _ _ _ _ _ _ _ _ _ HA HB ltac:(ra_disj)) as HAB.
  exact (reads_as_conv _ _ _ _ _ _ _ _ _ (RA_contr _ _ 2 3 _ _ _ _ HAB) eq_refl eq_refl eq_refl).
Qed.

Lemma mm_reads_c : reads_as Gmm mm_ext mm_c mm_Fk [0; 5] [3].
Proof.
  assert (HT : reads_as Gmm mm_ext (EVar "_t1") [(EVar "_t1", map IL [0; 3])] [0; 3] [])
    by ra_leaf [n1; n3].
  assert (HC : reads_as Gmm mm_ext (EVar "C") [(EVar "C", map IL [7; 5])] [7; 5] [])
    by ra_leaf [n3; n4].
  pose proof (RA_prod _ _ _ _ _ _ _ _ _ _ HT HC ltac:(ra_disj)) as HTC.
  exact (reads_as_conv _ _ _ _ _ _ _ _ _ (RA_contr _ _ 2 3 _ _ _ _ HTC) eq_refl eq_refl eq_refl).
Qed.


Lemma mm_types : has_type Gmm mm_e [n1; n4] /\ has_type Gmm mm_d1 [n1; n3] /\ has_type Gmm mm_c [n1; n4].
Proof.
  split; [|split].
  - ty_contr [n1; n3; n3; n4]. ty_contr [n1; n2; n2; n3; n3; n4].
    ty_prod [n1; n2] [n2; n3; n3; n4]; [constructor; reflexivity|].
    ty_prod [n2; n3] [n3; n4]; constructor; reflexivity.
  - ty_contr [n1; n2; n2; n3]. ty_prod [n1; n2] [n2; n3]; constructor; reflexivity.
  - ty_contr [n1; n3; n3; n4]. ty_prod [n1; n3] [n3; n4]; constructor; reflexivity.
Qed.

Lemma mm_chain : lift_chain Gmm mm_ext [0; 5] mm_F0 [3; 1] [("_t1", mm_d1)] mm_Fk [3].
Proof.
  apply (LC_step Gmm mm_ext [0; 5] mm_F0 [3; 1]
           [(EVar "A", [IL 0; IL 1]); (EVar "B", [IL 1; IL 3])] [(EVar "C", [IL 3; IL 5])]
           [1] [3] "_t1" mm_d1 [0; 3] [n1; n3]).
  - apply Permutation_refl.
  - apply perm_swap.
  - intros l [<-|[]]. simpl. lia.
  - apply mm_reads_d1.
  - apply mm_types.
  - reflexivity.
  - intros l Hl. simpl in *. lia.
  - apply LC_done; apply Permutation_refl.
Qed.

(** Over the reals, the lifted group ends with the same value of every
    tensor except the temporary [_t1]. *)
Theorem lift_matmul_chain : forall mu mu1 mu2 : rmem,
  step Gmm mu ("D", mm_e) mu1 -> steps Gmm mu [("_t1", mm_d1); ("D", mm_c)] mu2 ->
  forall y k, y <> "_t1" -> mu2 y k = mu1 y k.
Proof.
  intros mu mu1 mu2 H1 H2 y k Hy.
  destruct mm_types as [He [Hd Hc]].
  apply (lift_statement_correct Gmm mm_ext "D" [n1; n4] mm_e mm_c mm_F0 [0; 5] [3; 1] mm_Fk [3]
           [("_t1", mm_d1)] mu mu1 mu2 Gmm_pos eq_refl mm_reads_e He mm_reads_c Hc mm_chain);
    auto; simpl.
  - repeat constructor. simpl. tauto.
  - intros [H|[]]. discriminate.
  - intros z Hz [<-|[]]. simpl in Hz. intuition discriminate.
  - intros [<-|[]]. auto.
Qed.

(** Both sides do evaluate from every store with the declared domain
    (type safety), so [lift_matmul_chain] is not vacuous. *)
Lemma lift_matmul_chain_progress : forall mu : rmem, mem_dom Gmm mu ->
  (exists mu1, step Gmm mu ("D", mm_e) mu1) /\
  (exists mu2, steps Gmm mu [("_t1", mm_d1); ("D", mm_c)] mu2).
Proof.
  intros mu Hd. destruct mm_types as [He [Hd1 Hc]]. split.
  - destruct (step_progress Gmm mu ("D", mm_e)) as [mu1 [H _]]; eauto.
    econstructor; [reflexivity|auto].
  - destruct (steps_progress Gmm [("_t1", mm_d1); ("D", mm_c)] mu) as [mu2 [H _]]; eauto.
    repeat constructor; econstructor; eauto; reflexivity.
Qed.

End MatmulChain.

(** ** Worked instance: examples/lift/add_distribute.teil (R-LIFT-8)

    [y = contr 2 3 (prod (sub (contr 2 3 (prod A B)) C) x)], i.e.
    y = (A B - C) x, is lifted with the difference distributed:

      _t1 = contr 2 3 (prod B x)
      _t2 = contr 2 3 (prod A _t1)
      _t3 = contr 2 3 (prod C x)
      y   = sub _t2 _t3

    The proof composes [lift_distribute_sub] (the sum splits over [sub]),
    two chains ([lift_einsum_sim]) and [sim_sub]. *)

Section AddDistribute.
Local Open Scope string_scope.
Variable n : nat.
Hypothesis Hn : 1 <= n.

Definition Gad : ctx :=
  [("A", [n; n]); ("B", [n; n]); ("C", [n; n]); ("x", [n]); ("y", [n]);
   ("_t1", [n]); ("_t2", [n]); ("_t3", [n])].

Definition ad_P : expr := EContr 2 3 (EProd (EVar "A") (EVar "B")).
Definition ad_e : expr := EContr 2 3 (EProd (ESub ad_P (EVar "C")) (EVar "x")).
Definition ad_ea : expr := EContr 2 3 (EProd ad_P (EVar "x")).
Definition ad_eb : expr := EContr 2 3 (EProd (EVar "C") (EVar "x")).
Definition ad_d1 : expr := EContr 2 3 (EProd (EVar "B") (EVar "x")).
Definition ad_d2 : expr := EContr 2 3 (EProd (EVar "A") (EVar "_t1")).
Definition ad_c : expr := ESub (EVar "_t2") (EVar "_t3").
Definition ad_temps : list stmt := [("_t1", ad_d1); ("_t2", ad_d2); ("_t3", ad_eb)].

Definition ad_ext (l : nat) : nat := n.

Lemma Gad_pos : ctx_pos Gad.
Proof.
  intros x t H. unfold Gad in H. simpl in H.
  repeat match type of H with
  | (if ?c then _ else _) = _ => destruct c; [inversion H; subst; repeat constructor; lia|]
  end. discriminate.
Qed.

Lemma ad_types :
  has_type Gad ad_P [n; n] /\ has_type Gad ad_e [n] /\ has_type Gad ad_ea [n] /\
  has_type Gad ad_eb [n] /\ has_type Gad ad_d1 [n] /\ has_type Gad ad_d2 [n] /\
  has_type Gad ad_c [n].
Proof.
  assert (HP : has_type Gad ad_P [n; n]).
  { ty_contr [n; n; n; n]. ty_prod [n; n] [n; n]; constructor; reflexivity. }
  repeat split; auto.
  - ty_contr [n; n; n]. ty_prod [n; n] [n]; [|constructor; reflexivity].
    constructor; auto. constructor; reflexivity.
  - ty_contr [n; n; n]. ty_prod [n; n] [n]; auto. constructor; reflexivity.
  - ty_contr [n; n; n]. ty_prod [n; n] [n]; constructor; reflexivity.
  - ty_contr [n; n; n]. ty_prod [n; n] [n]; constructor; reflexivity.
  - ty_contr [n; n; n]. ty_prod [n; n] [n]; constructor; reflexivity.
  - constructor; constructor; reflexivity.
Qed.

Ltac ad_leaf x L := apply (ra_var Gad ad_ext x (map (fun _ => n) L) L);
  [reflexivity|repeat constructor|repeat constructor; simpl; lia].

(** [contr 2 3 (prod X x)] with [X] an operand labelled [[i; j]]:
    labels [[i]] out, [[j]] summed. *)
Lemma ad_reads_mv : forall X i j, i <> j -> j <> 99 -> i <> 99 ->
  reads_as Gad ad_ext X [(X, map IL [i; j])] [i; j] [] ->
  reads_as Gad ad_ext (EContr 2 3 (EProd X (EVar "x"))) [(X, [IL i; IL j]); (EVar "x", [IL j])] [i] [j].
Proof.
  intros X i j Hij Hj Hi HX.
  assert (Hx : reads_as Gad ad_ext (EVar "x") [(EVar "x", map IL [99])] [99] []) by ad_leaf "x" [99].
  pose proof (RA_prod _ _ _ _ _ _ _ _ _ _ HX Hx ltac:(ra_disj)) as HXx.
  refine (reads_as_conv _ _ _ _ _ _ _ _ _ (RA_contr _ _ 2 3 _ _ _ _ HXx) _ eq_refl eq_refl).
  simpl. unfold subst_ix. rewrite (proj2 (Nat.eqb_neq i 99)), (proj2 (Nat.eqb_neq j 99)) by auto.
  reflexivity.
Qed.

Lemma ad_reads_e : reads_as Gad ad_ext ad_e
  [(ESub ad_P (EVar "C"), [IL 0; IL 1]); (EVar "x", [IL 1])] [0] [1].
Proof.
  apply ad_reads_mv; try lia. apply RA_leaf with [n; n].
  - constructor; [apply ad_types|constructor; reflexivity].
  - repeat constructor.
  - repeat constructor; simpl; lia.
Qed.

Lemma ad_reads_ea : reads_as Gad ad_ext ad_ea [(ad_P, [IL 0; IL 1]); (EVar "x", [IL 1])] [0] [1].
Proof.
  apply ad_reads_mv; try lia. apply RA_leaf with [n; n].
  - apply ad_types.
  - repeat constructor.
  - repeat constructor; simpl; lia.
Qed.

Lemma ad_reads_eb : reads_as Gad ad_ext ad_eb [(EVar "C", [IL 0; IL 1]); (EVar "x", [IL 1])] [0] [1].
Proof. apply ad_reads_mv; try lia. ad_leaf "C" [0; 1]. Qed.

(** The expanded reading of [ad_ea]: A[0,3] B[3,1] x[1], summed 1 and 3. *)
Definition ad_Fa : list factor :=
  [(EVar "A", [IL 0; IL 3]); (EVar "B", [IL 3; IL 1]); (EVar "x", [IL 1])].

Lemma ad_reads_ea_full : reads_as Gad ad_ext ad_ea ad_Fa [0] [1; 3].
Proof.
  assert (HA : reads_as Gad ad_ext (EVar "A") [(EVar "A", map IL [0; 3])] [0; 3] []) by ad_leaf "A" [0; 3].
  assert (HB : reads_as Gad ad_ext (EVar "B") [(EVar "B", map IL [4; 1])] [4; 1] []) by ad_leaf "B" [4; 1].
  assert (Hx : reads_as Gad ad_ext (EVar "x") [(EVar "x", map IL [5])] [5] []) by ad_leaf "x" [5].
  pose proof (RA_contr _ _ 2 3 _ _ _ _ (RA_prod _ _ _ _ _ _ _ _ _ _ HA HB ltac:(ra_disj))) as HP.
  cbn -[Nat.eqb] in HP.
  pose proof (RA_prod _ _ _ _ _ _ _ _ _ _ HP Hx ltac:(ra_disj)) as HPx.
  exact (reads_as_conv _ _ _ _ _ _ _ _ _ (RA_contr _ _ 2 3 _ _ _ _ HPx) eq_refl eq_refl eq_refl).
Qed.

Lemma ad_reads_d1 : reads_as Gad ad_ext ad_d1 [(EVar "B", [IL 3; IL 1]); (EVar "x", [IL 1])] [3] [1].
Proof. apply ad_reads_mv; try lia. ad_leaf "B" [3; 1]. Qed.

Lemma ad_reads_d2 : reads_as Gad ad_ext ad_d2 [(EVar "A", [IL 0; IL 3]); (EVar "_t1", [IL 3])] [0] [3].
Proof.
  assert (HA : reads_as Gad ad_ext (EVar "A") [(EVar "A", map IL [0; 3])] [0; 3] []) by ad_leaf "A" [0; 3].
  assert (Ht : reads_as Gad ad_ext (EVar "_t1") [(EVar "_t1", map IL [9])] [9] []) by ad_leaf "_t1" [9].
  exact (reads_as_conv _ _ _ _ _ _ _ _ _
           (RA_contr _ _ 2 3 _ _ _ _ (RA_prod _ _ _ _ _ _ _ _ _ _ HA Ht ltac:(ra_disj)))
           eq_refl eq_refl eq_refl).
Qed.

Lemma ad_chain_a : lift_chain Gad ad_ext [0] ad_Fa [1; 3] [("_t1", ad_d1); ("_t2", ad_d2)]
  [(EVar "_t2", [IL 0])] [].
Proof.
  apply (LC_step Gad ad_ext [0] ad_Fa [1; 3]
           [(EVar "B", [IL 3; IL 1]); (EVar "x", [IL 1])] [(EVar "A", [IL 0; IL 3])]
           [1] [3] "_t1" ad_d1 [3] [n]).
  - apply (Permutation_app_comm [(EVar "A", [IL 0; IL 3])]).
  - apply Permutation_refl.
  - intros l [<-|[]]. simpl. lia.
  - apply ad_reads_d1.
  - apply ad_types.
  - reflexivity.
  - intros l [<-|[]]. simpl. auto.
  - apply (LC_step Gad ad_ext [0] _ [3]
             [(EVar "A", [IL 0; IL 3]); (EVar "_t1", [IL 3])] [] [3] [] "_t2" ad_d2 [0] [n]).
    + apply perm_swap.
    + apply Permutation_refl.
    + intros l _ [].
    + apply ad_reads_d2.
    + apply ad_types.
    + reflexivity.
    + intros l [<-|[]]. simpl. auto.
    + apply LC_done; apply Permutation_refl.
Qed.

Lemma ad_chain_b : lift_chain Gad ad_ext [0] [(EVar "C", [IL 0; IL 1]); (EVar "x", [IL 1])] [1]
  [("_t3", ad_eb)] [(EVar "_t3", [IL 0])] [].
Proof.
  apply (LC_step Gad ad_ext [0] _ [1]
           [(EVar "C", [IL 0; IL 1]); (EVar "x", [IL 1])] [] [1] [] "_t3" ad_eb [0] [n]).
  - apply Permutation_refl.
  - apply Permutation_refl.
  - intros l _ [].
  - apply ad_reads_eb.
  - apply ad_types.
  - reflexivity.
  - intros l [<-|[]]. simpl. auto.
  - apply LC_done; apply Permutation_refl.
Qed.

Lemma ad_reads_tmp : forall h, lookup Gad h = Some [n] ->
  reads_as Gad ad_ext (EVar h) [(EVar h, [IL 0])] [0] [].
Proof. intros. apply (ra_var Gad ad_ext h [n] [0]); auto; repeat constructor. simpl. lia. Qed.

(** Over the reals, the lifted group (with the difference distributed)
    ends with the same value of every tensor except the temporaries. *)
Theorem lift_add_distribute : forall mu mu1 mu2 : rmem,
  step Gad mu ("y", ad_e) mu1 -> steps Gad mu (app ad_temps [("y", ad_c)]) mu2 ->
  forall z k, ~ In z ["_t1"; "_t2"; "_t3"] -> mu2 z k = mu1 z k.
Proof.
  intros mu mu1 mu2 H1 H2.
  destruct ad_types as [HP [He [Hea [Heb [Hd1 [Hd2 Hc]]]]]].
  apply (temps_group_correct_seq Gad mu mu1 mu2 ad_temps "y" ad_e ad_c [n]); auto.
  - simpl. intuition discriminate.
  - intros mu' Hs.
    change ad_temps with (app [("_t1", ad_d1); ("_t2", ad_d2)] [("_t3", ad_eb)]) in Hs.
    apply steps_app in Hs. destruct Hs as [ma [Hsa Hsb]].
    assert (Sa : sim Gad ma mu (EVar "_t2") ad_ea [n]).
    { intros k Hk. eapply (lift_einsum_sim Gad ad_ext ad_ea (EVar "_t2") [n]); eauto.
      - apply Gad_pos.
      - apply ad_reads_ea_full.
      - apply ad_reads_tmp. reflexivity.
      - constructor. reflexivity.
      - apply ad_chain_a.
      - simpl. repeat constructor; simpl; intuition discriminate.
      - simpl. intros z Hz. intuition (subst; discriminate). }
    assert (Sb : sim Gad mu' ma (EVar "_t3") ad_eb [n]).
    { intros k Hk. eapply (lift_einsum_sim Gad ad_ext ad_eb (EVar "_t3") [n]); eauto.
      - apply Gad_pos.
      - apply ad_reads_eb.
      - apply ad_reads_tmp. reflexivity.
      - constructor. reflexivity.
      - apply ad_chain_b.
      - repeat constructor. simpl. tauto.
      - simpl. intros z Hz. intuition (subst; discriminate). }
    assert (Sb' : sim Gad mu' mu (EVar "_t3") ad_eb [n]).
    { apply (sim_before _ _ _ _ _ _ _ _ Sb Hsa). simpl. intros z Hz. intuition (subst; discriminate). }
    assert (Sa' : sim Gad mu' mu (EVar "_t2") ad_ea [n]).
    { apply (sim_after _ _ _ _ _ _ _ _ Sa Hsb). simpl. intros z Hz. intuition (subst; discriminate). }
    pose proof (sim_sub _ _ _ _ _ _ _ _ Sa' Sb') as Sab.
    apply (sim_trans_eq _ _ _ _ _ ad_e _ Sab).
    intros k Hk. symmetry.
    apply (lift_distribute_sub Gad ad_ext ad_e _ [0] [1] ad_P (EVar "C") [IL 0; IL 1]
             [(EVar "x", [IL 1])] ad_ea ad_eb [n] Gad_pos ad_reads_e He (Permutation_refl _)
             ad_reads_ea Hea ad_reads_eb Heb).
    apply in_bounds_length. auto.
Qed.

Lemma lift_add_distribute_progress : forall mu : rmem, mem_dom Gad mu ->
  (exists mu1, step Gad mu ("y", ad_e) mu1) /\
  (exists mu2, steps Gad mu (app ad_temps [("y", ad_c)]) mu2).
Proof.
  intros mu Hd. destruct ad_types as [HP [He [Hea [Heb [Hd1 [Hd2 Hc]]]]]]. split.
  - destruct (step_progress Gad mu ("y", ad_e)) as [mu1 [H _]]; eauto.
    econstructor; [reflexivity|auto].
  - destruct (steps_progress Gad (app ad_temps [("y", ad_c)]) mu) as [mu2 [H _]]; eauto.
    repeat constructor; econstructor; eauto; reflexivity.
Qed.

End AddDistribute.
