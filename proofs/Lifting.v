(** * Lifting of nested contractions, temporaries, in-place assignment.

    TeIL Sec. 5 lifts nested contractions of outer products into a sequence
    of single contractions assigned to fresh temporaries (spec/lifting.md).
    The rewrite is justified by the following facts, proved here:

    - temporaries: [x = C[r]] and [h = r; x = C[h]] give the same final
      store except at the temporary [h] ([temp_intro_stmt], any scalar type);
    - in-place assignment through a temporary ([in_place_via_temporary]);
    - congruence of equivalence under [contr] ([contr_congr]);
    - algebra, over the reals: pushing a contraction into the factor of an
      outer product that holds both contracted dimensions
      ([contr_prod_right], [contr_prod_left]), associativity of the outer
      product ([prod_assoc]), exchanging nested reductions ([red_red_comm]),
      splitting reductions and contractions over [add] and [sub]
      ([red_add], [red_sub], [contr_add]);
    - a worked instance: the two-dimensional operator application of
      TeIL Sec. 5 ([lift_operator_2d]).

    [Einsum.v] builds on these facts to prove the compiler's whole
    rewriting: the einsum reading of a right-hand side, any order of
    pairwise contractions, distribution over [add]/[sub], and chains of
    temporaries ([lift_statement_correct]).

    IMPORTANT: the algebraic facts hold over a field (here Coq's reals).
    They do NOT hold for floating-point numbers: reassociating and
    reordering sums and products changes rounding, so a lifted program run
    on doubles may differ from the original in the last bits (and, with
    overflow, by more).  The temporaries and in-place theorems are exact
    for every scalar type. *)

From Coq Require Import String List Arith Lia Bool Reals Lra FunctionalExtensionality.
From TeIL Require Import Util Scalar Syntax Typing Eval Safety RScalar.
Import ListNotations.

(** ** List lemmas *)

Lemma skipn_skipn' : forall {A} a b (l : list A), skipn a (skipn b l) = skipn (b + a) l.
Proof. intros A a b. induction b; intros l; simpl; auto. destruct l; simpl; auto. destruct a; auto. Qed.

Lemma firstn_app_exact : forall {A} (l0 l1 : list A), firstn (length l0) (l0 ++ l1) = l0.
Proof. intros. rewrite <- (Nat.add_0_r (length l0)), firstn_app_2. simpl. apply app_nil_r. Qed.

Lemma skipn_app_exact : forall {A} (l0 l1 : list A), skipn (length l0) (l0 ++ l1) = l1.
Proof. intros. rewrite skipn_app, skipn_all2, Nat.sub_diag by auto. auto. Qed.

Lemma insert_at_app_r : forall {A} p (x : A) l0 l1, length l0 <= p ->
  insert_at p x (l0 ++ l1) = l0 ++ insert_at (p - length l0) x l1.
Proof.
  intros A p x l0. revert p. induction l0 as [|y l0 IH]; intros p l1 H; simpl in *.
  - rewrite Nat.sub_0_r. auto.
  - destruct p; [lia|]. simpl. rewrite IH by lia. auto.
Qed.

Lemma remove_at_app_r : forall {A} p (l0 l1 : list A), length l0 <= p ->
  remove_at p (l0 ++ l1) = l0 ++ remove_at (p - length l0) l1.
Proof.
  intros A p l0. revert p. induction l0 as [|y l0 IH]; intros p l1 H; simpl in *.
  - rewrite Nat.sub_0_r. auto.
  - destruct p; [lia|]. simpl. rewrite IH by lia. auto.
Qed.

Lemma insert_at_app_l : forall {A} p (x : A) l0 l1, p <= length l0 ->
  insert_at p x (l0 ++ l1) = insert_at p x l0 ++ l1.
Proof.
  intros A p x l0. revert p. induction l0 as [|y l0 IH]; intros p l1 H; simpl in *.
  - destruct p; [auto|lia].
  - destruct p; simpl; auto. rewrite IH by lia. auto.
Qed.

Lemma remove_at_app_l : forall {A} p (l0 l1 : list A), p < length l0 ->
  remove_at p (l0 ++ l1) = remove_at p l0 ++ l1.
Proof.
  intros A p l0. revert p. induction l0 as [|y l0 IH]; intros p l1 H; simpl in *; [lia|].
  destruct p; simpl; auto. rewrite IH by lia. auto.
Qed.

Lemma insert_insert : forall {A} p q (a b : A) l, p <= q -> q <= length l ->
  insert_at p a (insert_at q b l) = insert_at (S q) b (insert_at p a l).
Proof.
  intros A p. induction p as [|p IH]; intros q a b l Hpq Hq; simpl; auto.
  destruct q; [lia|]. destruct l as [|y l]; simpl in *; [lia|]. f_equal. apply IH; lia.
Qed.

Lemma split_in_bounds_app : forall t0 t1 k, in_bounds (t0 ++ t1) k ->
  exists k0 k1, k = k0 ++ k1 /\ length k0 = length t0 /\ in_bounds t0 k0 /\ in_bounds t1 k1.
Proof.
  intros t0 t1 k H. exists (firstn (length t0) k), (skipn (length t0) k).
  destruct (in_bounds_app_inv _ _ _ H) as [H0 H1]. repeat split; auto.
  - symmetry. apply firstn_skipn.
  - apply in_bounds_length in H0. auto.
Qed.

(** ** Generic part: substitution, temporaries, in-place assignment *)

Section Generic.
Context {K : Scalar}.
Local Notation mem := (mem K).

Lemma type_of_subst : forall G h r th c,
  lookup G h = Some th -> type_of G r = Some th -> type_of G (subst h r c) = type_of G c.
Proof.
  intros G h r th c Hh Hr. induction c; simpl; rewrite ?IHc, ?IHc1, ?IHc2; auto.
  destruct (String.eqb x h) eqn:E; simpl; auto. apply String.eqb_eq in E. subst. congruence.
Qed.

Lemma has_type_subst : forall G h r th c t,
  lookup G h = Some th -> has_type G r th -> has_type G c t -> has_type G (subst h r c) t.
Proof.
  intros. apply type_of_correct. apply type_of_correct in H0, H1.
  rewrite (type_of_subst G h r th); auto.
Qed.

(** Evaluating [C[r]] is evaluating [C[h]] after storing [r] in [h]. *)
Theorem subst_eval : forall G (mu : mem) h r th c t,
  lookup G h = Some th -> has_type G r th -> has_type G c t ->
  forall k, in_bounds t k ->
  eval G (upd mu h th (eval G mu r)) c k = eval G mu (subst h r c) k.
Proof.
  intros G mu h r th c t Hh Hr Hc. apply type_of_correct in Hr as Hr'.
  induction Hc; intros k Hk; simpl;
    rewrite ?(type_of_subst G h r th) by auto;
    repeat match goal with
    | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
    end.
  - unfold upd. destruct (String.eqb x h) eqn:E; simpl; auto.
    apply String.eqb_eq in E. subst. rewrite Hh in H. inversion H; subst.
    apply in_bounds_b_spec in Hk. rewrite Hk. auto.
  - auto.
  - rewrite IHHc1, IHHc2; auto.
  - rewrite IHHc1, IHHc2; auto.
  - destruct t; [apply in_bounds_nil_inv in Hk; subst|]; rewrite IHHc1, IHHc2; auto.
  - rewrite IHHc1, IHHc2; auto.
  - destruct t; [apply in_bounds_nil_inv in Hk; subst|]; rewrite IHHc1, IHHc2; auto.
  - destruct t; [apply in_bounds_nil_inv in Hk; subst|]; rewrite IHHc1, IHHc2; auto.
  - apply in_bounds_app_inv in Hk. destruct Hk. rewrite IHHc1, IHHc2; auto.
  - apply rsum_ext. intros m Hm. apply IHHc. apply ib_insert; auto; lia.
  - apply IHHc. apply ib_swap; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto. apply IHHc. apply ib_diag; auto.
  - apply IHHc. eapply ib_expa; eauto. lia.
  - apply IHHc. apply ib_insert; auto; lia.
  - destruct (minmax_pos i j t) as [Ha [Hb He]]; auto.
    apply rsum_ext. intros m Hm. apply IHHc. apply ib_contr; auto.
Qed.

(** Temporaries: [x = C[r]] versus [h = r; x = C[h]]. *)
Theorem temp_intro_stmt : forall G (mu mu1 mu2 : mem) x h r c tx th,
  lookup G x = Some tx -> lookup G h = Some th -> h <> x ->
  has_type G r th -> has_type G c tx ->
  step G mu (x, subst h r c) mu1 ->
  steps G mu [(h, r); (x, c)] mu2 ->
  forall y k, y <> h -> mu2 y k = mu1 y k.
Proof.
  intros G mu mu1 mu2 x h r c tx th Hx Hh Hhx Hr Hc H1 H2 y k Hy.
  inversion H1 as [m x1 e1 t1 Hx1 _ _]; subst.
  assert (t1 = tx) by congruence. subst t1.
  inversion H2 as [|m m' m'' s ss Hs Hss]; subst.
  inversion Hs as [m0 x0 e0 t0 Hx0 _ _]; subst.
  assert (t0 = th) by congruence. subst t0.
  inversion Hss as [|m1 m1' m1'' s1 ss1 Hs1 Hss1]; subst.
  inversion Hss1; subst.
  inversion Hs1 as [m2 x2 e2 t2 Hx2 _ _]; subst.
  assert (t2 = tx) by congruence. subst t2.
  assert (Hupd : forall (m0 : mem) z t g y0 k0,
             upd m0 z t g y0 k0 = if String.eqb y0 z && in_bounds_b t k0 then g k0 else m0 y0 k0)
    by reflexivity.
  rewrite !Hupd. destruct (String.eqb y x) eqn:Ey; simpl.
  - apply String.eqb_eq in Ey. subst.
    destruct (in_bounds_b tx k) eqn:Ek.
    + apply in_bounds_b_spec in Ek. eapply subst_eval; eauto.
    + apply String.eqb_neq in Hhx. rewrite String.eqb_sym, Hhx. auto.
  - apply String.eqb_neq in Hy. rewrite Hy. auto.
Qed.

(** In-place safety: evaluating [x = e] (where [e] may read [x]) equals
    evaluating [t = e; x = t] through a temporary [t] of the same type,
    on every tensor except [t].  (St-Stmt reads the old store, DECISIONS 9.) *)
Theorem in_place_via_temporary : forall G (mu mu1 mu2 : mem) x tmp e t,
  lookup G x = Some t -> lookup G tmp = Some t -> tmp <> x -> has_type G e t ->
  step G mu (x, e) mu1 ->
  steps G mu [(tmp, e); (x, EVar tmp)] mu2 ->
  forall y k, y <> tmp -> mu2 y k = mu1 y k.
Proof.
  intros G mu mu1 mu2 x tmp e t Hx Ht Hne He H1 H2.
  apply (temp_intro_stmt G mu mu1 mu2 x tmp e (EVar tmp) t t); auto.
  - constructor; auto.
  - simpl. rewrite String.eqb_refl. auto.
Qed.

(** Both sides of these rewrites do evaluate (type safety), so the
    theorems above are not vacuous. *)
Lemma temp_intro_progress : forall G (mu : mem) x h r c tx th,
  lookup G x = Some tx -> lookup G h = Some th ->
  has_type G r th -> has_type G c tx -> mem_dom G mu ->
  (exists mu1, step G mu (x, subst h r c) mu1) /\ (exists mu2, steps G mu [(h, r); (x, c)] mu2).
Proof.
  intros G mu x h r c tx th Hx Hh Hr Hc Hd. split.
  - destruct (step_progress G mu (x, subst h r c)) as [mu1 [H _]]; eauto.
    econstructor; eauto. eapply has_type_subst; eauto.
  - destruct (steps_progress G [(h, r); (x, c)] mu) as [mu2 [H _]]; eauto.
    repeat constructor; econstructor; eauto.
Qed.

(** Expressions equivalent for every store at every in-bounds index. *)
Definition equiv (G : ctx) (e1 e2 : expr) (t : list nat) : Prop :=
  has_type G e1 t /\ has_type G e2 t /\
  forall (mu : mem) k, in_bounds t k -> eval G mu e1 k = eval G mu e2 k.

Lemma contr_congr : forall G e1 e2 t i j t',
  equiv G e1 e2 t -> has_type G (EContr i j e1) t' -> equiv G (EContr i j e1) (EContr i j e2) t'.
Proof.
  intros G e1 e2 t i j t' [H1 [H2 Heq]] Hc.
  inversion Hc as [| | | | | | | | | | | | | |i' j' e' t0 H0 Hi Hj Hij He]; subst.
  assert (t0 = t) by (eapply type_unique; eauto). subst.
  split; [auto|split; [constructor; auto|]].
  intros mu k Hk. simpl. rewrite (type_of_complete _ _ _ H1), (type_of_complete _ _ _ H2).
  destruct (minmax_pos i j t) as [Ha [Hb He']]; auto.
  apply rsum_ext. intros m Hm. apply Heq. apply ib_contr; auto.
Qed.

End Generic.

(** ** Algebra over the reals *)

Local Notation rres := (res RS).
Local Notation rmem := (mem RS).

Ltac rsimpl := unfold radd, rsub, rmul, rlift, vadd, vsub, vmul, vlift, vzero in *;
  change (s_add RS) with Rplus in *; change (s_sub RS) with Rminus in *;
  change (s_mul RS) with Rmult in *; change (s_zero RS) with 0%R in *.

Ltac rdest := repeat match goal with
  | r : rres |- _ => destruct r as [[?|]|]
  | a : scal RS |- _ => change R in a
  end.

Ltac rsolve := rdest; rsimpl; auto; try (f_equal; f_equal; ring).

Lemma radd_comm : forall a b : rres, radd a b = radd b a. Proof. intros; rsolve. Qed.
Lemma radd_assoc : forall a b c : rres, radd (radd a b) c = radd a (radd b c). Proof. intros; rsolve. Qed.
Lemma rmul_assoc : forall a b c : rres, rmul (rmul a b) c = rmul a (rmul b c). Proof. intros; rsolve. Qed.
Lemma rmul_radd_l : forall a b c : rres, rmul a (radd b c) = radd (rmul a b) (rmul a c). Proof. intros; rsolve. Qed.
Lemma rmul_radd_r : forall a b c : rres, rmul (radd a b) c = radd (rmul a c) (rmul b c). Proof. intros; rsolve. Qed.

(** Distributivity over sums of at least one term (with [•], [• · 0 ≠ 0]). *)
Lemma rmul_rsum_l : forall n (c : rres) f, 1 <= n ->
  rmul c (rsum n f) = rsum n (fun m => rmul c (f m)).
Proof.
  induction n as [|n IH]; intros c f Hn; [lia|].
  unfold rsum in *. cbn [sum_to]. destruct n as [|n].
  - cbn [sum_to]. generalize (f 1). intros; rsolve.
  - rewrite <- IH by lia. apply rmul_radd_l.
Qed.

Lemma rmul_rsum_r : forall n (c : rres) f, 1 <= n ->
  rmul (rsum n f) c = rsum n (fun m => rmul (f m) c).
Proof.
  induction n as [|n IH]; intros c f Hn; [lia|].
  unfold rsum in *. cbn [sum_to]. destruct n as [|n].
  - cbn [sum_to]. generalize (f 1). intros; rsolve.
  - rewrite <- IH by lia. apply rmul_radd_r.
Qed.

Lemma rsum_radd : forall n (f g : nat -> rres),
  rsum n (fun m => radd (f m) (g m)) = radd (rsum n f) (rsum n g).
Proof.
  induction n as [|n IH]; intros f g; unfold rsum in *; cbn [sum_to].
  - rsolve.
  - rewrite IH. generalize (sum_to radd (Some vzero) n f), (sum_to radd (Some vzero) n g), (f (S n)), (g (S n)).
    intros; rsolve.
Qed.

Lemma rsum_rsub : forall n (f g : nat -> rres),
  rsum n (fun m => rsub (f m) (g m)) = rsub (rsum n f) (rsum n g).
Proof.
  induction n as [|n IH]; intros f g; unfold rsum in *; cbn [sum_to].
  - rsolve.
  - rewrite IH. generalize (sum_to radd (Some vzero) n f), (sum_to radd (Some vzero) n g), (f (S n)), (g (S n)).
    intros; rsolve.
Qed.

Lemma rsum_zero : forall m, rsum m (fun _ => Some vzero) = (Some vzero : rres).
Proof.
  induction m as [|m IH]; [reflexivity|].
  change (rsum (S m) (fun _ => Some vzero)) with (radd (rsum m (fun _ => Some vzero)) (Some (@vzero RS))).
  rewrite IH. rsimpl. f_equal. f_equal. ring.
Qed.

(** Exchanging finite sums (Fubini). *)
Lemma rsum_comm : forall n m (f : nat -> nat -> rres),
  rsum n (fun a => rsum m (fun b => f a b)) = rsum m (fun b => rsum n (fun a => f a b)).
Proof.
  induction n as [|n IH]; intros m f.
  - transitivity (Some (@vzero RS)); [reflexivity|]. symmetry.
    rewrite (rsum_ext m _ (fun _ => Some vzero)) by (intros; reflexivity). apply rsum_zero.
  - change (rsum (S n) (fun a => rsum m (fun b => f a b)))
      with (radd (rsum n (fun a => rsum m (fun b => f a b))) (rsum m (fun b => f (S n) b))).
    rewrite IH, <- rsum_radd. apply rsum_ext. intros b _. reflexivity.
Qed.

(** Extents of well-typed expressions are positive. *)
Lemma nth_pos : forall G e t p, ctx_pos G -> has_type G e t -> p < length t -> 1 <= nth p t 0.
Proof.
  intros. pose proof (has_type_pos G e t H H0). apply (Forall_nth' (fun n => 1 <= n)); auto.
Qed.

(** Splitting a reduction over [add] and [sub]. *)
Theorem red_add : forall G e0 e1 i t,
  has_type G (ERed i (EAdd e0 e1)) t ->
  has_type G (EAdd (ERed i e0) (ERed i e1)) t /\
  forall (mu : rmem) k, eval G mu (ERed i (EAdd e0 e1)) k = eval G mu (EAdd (ERed i e0) (ERed i e1)) k.
Proof.
  intros G e0 e1 i t H.
  inversion H as [| | | | | | | | |i' e' t1 H1 Hi| | | | |]; subst.
  inversion H1; subst.
  split; [constructor; constructor; auto|].
  intros mu k. simpl.
  repeat match goal with
  | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
  end.
  cbn [obind]. unfold ty_elem. match goal with |- context [tlist_eq ?a ?b] => destruct (tlist_eq a b) end;
    [|congruence]. apply rsum_radd.
Qed.

Theorem red_sub : forall G e0 e1 i t,
  has_type G (ERed i (ESub e0 e1)) t ->
  has_type G (ESub (ERed i e0) (ERed i e1)) t /\
  forall (mu : rmem) k, eval G mu (ERed i (ESub e0 e1)) k = eval G mu (ESub (ERed i e0) (ERed i e1)) k.
Proof.
  intros G e0 e1 i t H.
  inversion H as [| | | | | | | | |i' e' t1 H1 Hi| | | | |]; subst.
  inversion H1; subst.
  split; [constructor; constructor; auto|].
  intros mu k. simpl.
  repeat match goal with
  | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
  end.
  cbn [obind]. unfold ty_elem. match goal with |- context [tlist_eq ?a ?b] => destruct (tlist_eq a b) end;
    [|congruence]. apply rsum_rsub.
Qed.

Theorem contr_add : forall G e0 e1 i j t,
  has_type G (EContr i j (EAdd e0 e1)) t ->
  has_type G (EAdd (EContr i j e0) (EContr i j e1)) t /\
  forall (mu : rmem) k,
    eval G mu (EContr i j (EAdd e0 e1)) k = eval G mu (EAdd (EContr i j e0) (EContr i j e1)) k.
Proof.
  intros G e0 e1 i j t H.
  inversion H as [| | | | | | | | | | | | | |i' j' e' t1 H1 Hi Hj Hij He]; subst.
  inversion H1; subst.
  split; [constructor; constructor; auto|].
  intros mu k. simpl.
  repeat match goal with
  | Ht : has_type G ?e _ |- context [type_of G ?e] => rewrite (type_of_complete _ _ _ Ht)
  end.
  cbn [obind]. unfold ty_elem. match goal with |- context [tlist_eq ?a ?b] => destruct (tlist_eq a b) end;
    [|congruence]. apply rsum_radd.
Qed.

(** Associativity of the outer product. *)
Theorem prod_assoc : forall G e0 e1 e2 t,
  has_type G (EProd (EProd e0 e1) e2) t ->
  has_type G (EProd e0 (EProd e1 e2)) t /\
  forall (mu : rmem) k, in_bounds t k ->
    eval G mu (EProd (EProd e0 e1) e2) k = eval G mu (EProd e0 (EProd e1 e2)) k.
Proof.
  intros G e0 e1 e2 t H.
  inversion H as [| | | | | | | | a b t01 t2 H01 H2 | | | | | |]; subst.
  inversion H01 as [| | | | | | | | a' b' t0 t1 H0 H1 | | | | | |]; subst.
  rewrite <- app_assoc. split; [constructor; [|constructor]; auto|].
  intros mu k Hk. cbn [eval].
  rewrite (type_of_complete _ _ _ H0), (type_of_complete _ _ _ H1), (type_of_complete _ _ _ H01).
  rewrite app_length, firstn_firstn, Nat.min_l by lia.
  rewrite skipn_firstn_comm, Nat.add_comm, Nat.add_sub, skipn_skipn'.
  rewrite Nat.add_comm. apply rmul_assoc.
Qed.

(** Pushing a contraction into the right factor of an outer product
    (both contracted positions lie in the right factor, [rank e0 < min i j]). *)
Theorem contr_prod_right : forall G e0 e1 i j t0 t,
  ctx_pos G -> has_type G e0 t0 -> length t0 < Nat.min i j ->
  has_type G (EContr i j (EProd e0 e1)) t ->
  has_type G (EProd e0 (EContr (i - length t0) (j - length t0) e1)) t /\
  forall (mu : rmem) k, in_bounds t k ->
    eval G mu (EContr i j (EProd e0 e1)) k =
    eval G mu (EProd e0 (EContr (i - length t0) (j - length t0) e1)) k.
Proof.
  intros G e0 e1 i j t0 t HG H0 Hlt H.
  inversion H as [| | | | | | | | | | | | | |i' j' e' t01 H01 Hi Hj Hij He]; subst.
  inversion H01 as [| | | | | | | | a b t0' t1 H0' H1 | | | | | |]; subst.
  assert (t0' = t0) by (eapply type_unique; eauto). subst t0'.
  rewrite app_length in Hi, Hj.
  assert (Hmin : Nat.min (i - (length t0)) (j - (length t0)) = Nat.min i j - (length t0)) by lia.
  assert (Hmax : Nat.max (i - (length t0)) (j - (length t0)) = Nat.max i j - (length t0)) by lia.
  rewrite app_nth2 in He by lia. rewrite app_nth2 in He by lia.
  assert (Hty : remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) (t0 ++ t1)) =
                t0 ++ remove_at (Nat.min (i - (length t0)) (j - (length t0)) - 1) (remove_at (Nat.max (i - (length t0)) (j - (length t0)) - 1) t1)).
  { rewrite remove_at_app_r by lia. rewrite remove_at_app_r by lia.
    rewrite Hmin, Hmax.
    replace (Nat.min i j - length t0 - 1) with (Nat.min i j - 1 - length t0) by lia.
    replace (Nat.max i j - length t0 - 1) with (Nat.max i j - 1 - length t0) by lia.
    reflexivity. }
  assert (Hc1 : has_type G (EContr (i - (length t0)) (j - (length t0)) e1)
                  (remove_at (Nat.min (i - (length t0)) (j - (length t0)) - 1) (remove_at (Nat.max (i - (length t0)) (j - (length t0)) - 1) t1))).
  { constructor; auto; try lia. replace (i - (length t0) - 1) with (i - 1 - (length t0)) by lia.
    replace (j - (length t0) - 1) with (j - 1 - (length t0)) by lia. auto. }
  rewrite Hty. split; [constructor; auto|].
  intros mu k Hk. apply split_in_bounds_app in Hk. destruct Hk as [k0 [k1 [-> [Hl [Hk0 Hk1]]]]].
  cbn [eval]. rewrite (type_of_complete _ _ _ H01), (type_of_complete _ _ _ H0), (type_of_complete _ _ _ H1).
  rewrite Hmin, Hmax. rewrite app_nth2 by lia.
  replace (Nat.min i j - length t0 - 1) with (Nat.min i j - 1 - length t0) by lia.
  replace (Nat.max i j - length t0 - 1) with (Nat.max i j - 1 - length t0) by lia.
  assert (Hn : 1 <= nth (Nat.min i j - 1 - length t0) t1 0).
  { eapply nth_pos; eauto. destruct (le_lt_dec i j); lia. }
  rewrite <- Hl. rewrite <- Hl in Hn. rewrite firstn_app_exact, skipn_app_exact.
  rewrite rmul_rsum_l by auto.
  apply rsum_ext. intros m Hm.
  rewrite (insert_at_app_r (Nat.min i j - 1)) by lia.
  rewrite (insert_at_app_r (Nat.max i j - 1)) by lia.
  rewrite firstn_app_exact, skipn_app_exact. auto.
Qed.

(** Pushing a contraction into the left factor ([max i j <= rank e0]). *)
Theorem contr_prod_left : forall G e0 e1 i j t,
  ctx_pos G ->
  has_type G (EContr i j (EProd e0 e1)) t ->
  (exists t0, has_type G e0 t0 /\ Nat.max i j <= length t0) ->
  has_type G (EProd (EContr i j e0) e1) t /\
  forall (mu : rmem) k, in_bounds t k ->
    eval G mu (EContr i j (EProd e0 e1)) k = eval G mu (EProd (EContr i j e0) e1) k.
Proof.
  intros G e0 e1 i j t HG H [t0 [H0 Hle]].
  inversion H as [| | | | | | | | | | | | | |i' j' e' t01 H01 Hi Hj Hij He]; subst.
  inversion H01 as [| | | | | | | | a b t0' t1 H0' H1 | | | | | |]; subst.
  assert (t0' = t0) by (eapply type_unique; eauto). subst t0'.
  rewrite app_length in Hi, Hj.
  rewrite app_nth1 in He by lia. rewrite app_nth1 in He by lia.
  assert (Hc0 : has_type G (EContr i j e0) (remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) t0)))
    by (constructor; auto; lia).
  assert (Hty : remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) (t0 ++ t1)) =
                remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) t0) ++ t1).
  { rewrite remove_at_app_l by lia. rewrite remove_at_app_l by (rewrite length_remove_at; lia). auto. }
  rewrite Hty. split; [constructor; auto|].
  intros mu k Hk. apply split_in_bounds_app in Hk. destruct Hk as [k0 [k1 [-> [Hl [Hk0 Hk1]]]]].
  cbn [eval]. rewrite (type_of_complete _ _ _ H01), (type_of_complete _ _ _ H0), (type_of_complete _ _ _ Hc0).
  rewrite app_nth1 by lia.
  assert (Hn : 1 <= nth (Nat.min i j - 1) t0 0) by (eapply nth_pos; eauto; lia).
  rewrite <- Hl. rewrite firstn_app_exact, skipn_app_exact.
  rewrite rmul_rsum_r by auto.
  apply rsum_ext. intros m Hm.
  assert (Hlk : length k0 = length t0 - 2) by (rewrite Hl; rewrite !length_remove_at; try lia; rewrite length_remove_at; lia).
  rewrite (insert_at_app_l (Nat.min i j - 1)) by lia.
  rewrite (insert_at_app_l (Nat.max i j - 1)) by (rewrite length_insert_at; lia).
  assert (Hlen : length (insert_at (Nat.max i j - 1) m (insert_at (Nat.min i j - 1) m k0)) = length t0)
    by (rewrite !length_insert_at; try lia; rewrite length_insert_at; lia).
  rewrite <- Hlen at 1. rewrite firstn_app_exact. rewrite <- Hlen. rewrite skipn_app_exact. auto.
Qed.

Lemma remove_at_nil : forall {A} p, @remove_at A p [] = [].
Proof. destruct p; reflexivity. Qed.

Lemma remove_remove : forall {A} p q (l : list A), p < q ->
  remove_at p (remove_at q l) = remove_at (q - 1) (remove_at p l).
Proof.
  intros A p. induction p as [|p IH]; intros q l H;
    (destruct l as [|x l]; [rewrite !remove_at_nil; auto|]).
  - destruct q as [|q]; [lia|]. simpl. rewrite Nat.sub_0_r. auto.
  - destruct q as [|q]; [lia|].
    assert (Hc : forall (y : A) r m, remove_at (S r) (y :: m) = y :: remove_at r m) by reflexivity.
    rewrite !Hc. replace (S q - 1) with q by lia.
    destruct q as [|q]; [lia|]. rewrite Hc. f_equal. rewrite IH by lia. f_equal. lia.
Qed.

(** Exchanging two nested reductions (0-based positions [p < q] of [e]). *)
Theorem red_red_comm : forall G e p q t,
  p < q ->
  has_type G (ERed (S p) (ERed (S q) e)) t ->
  has_type G (ERed q (ERed (S p) e)) t /\
  forall (mu : rmem) k, in_bounds t k ->
    eval G mu (ERed (S p) (ERed (S q) e)) k = eval G mu (ERed q (ERed (S p) e)) k.
Proof.
  intros G e p q t Hpq H.
  inversion H as [| | | | | | | | |i' e' t1 H1 Hi| | | | |]; subst.
  inversion H1 as [| | | | | | | | |i'' e'' t0 H0 Hi0| | | | |]; subst.
  assert (Ep : S p - 1 = p) by lia. assert (Eq : S q - 1 = q) by lia.
  rewrite Ep, Eq in *. rewrite length_remove_at in Hi by lia.
  assert (Hr : has_type G (ERed (S p) e) (remove_at p t0))
    by (rewrite <- Ep at 2; constructor; auto; lia).
  rewrite remove_remove by lia. split.
  - constructor; auto. rewrite length_remove_at; lia.
  - intros mu k Hk. cbn [eval]. rewrite (type_of_complete _ _ _ H1), (type_of_complete _ _ _ Hr),
      (type_of_complete _ _ _ H0).
    rewrite Ep, Eq.
    rewrite (nth_remove_at_lt q p t0 0) by lia. rewrite (nth_remove_at_ge p (q - 1) t0 0) by lia.
    replace (S (q - 1)) with q by lia.
    rewrite rsum_comm. apply rsum_ext. intros b Hb. apply rsum_ext. intros a Ha.
    f_equal. apply in_bounds_length in Hk.
    rewrite length_remove_at in Hk by (rewrite length_remove_at; lia).
    rewrite length_remove_at in Hk by lia.
    rewrite (insert_insert p (q - 1) a b k) by lia. replace (S (q - 1)) with q by lia. auto.
Qed.

(** ** Congruence and one lifting step *)

Section Congruence.
Context {K : Scalar}.
Local Notation mem := (mem K).

(** Replacing a sub-expression by an equivalent one, anywhere: [c] is the
    context, [h] its hole (a name declared with the sub-expression's type). *)
Theorem equiv_subst : forall G h th e e' c t,
  lookup G h = Some th -> @equiv K G e e' th -> has_type G c t ->
  @equiv K G (subst h e c) (subst h e' c) t.
Proof.
  intros G h th e e' c t Hh [He [He' Heq]] Hc.
  split; [eapply has_type_subst; eauto|split; [eapply has_type_subst; eauto|]].
  intros mu k Hk.
  rewrite <- (subst_eval G mu h e th c t), <- (subst_eval G mu h e' th c t) by auto.
  f_equal. apply functional_extensionality; intro y; apply functional_extensionality; intro k'.
  unfold upd. destruct (String.eqb y h && in_bounds_b th k') eqn:E; auto.
  apply andb_true_iff in E. destruct E as [_ E]. apply Heq. apply in_bounds_b_spec; auto.
Qed.

(** Equivalent right-hand sides make the same step. *)
Lemma step_equiv : forall G (mu mu1 : mem) x e e' t,
  lookup G x = Some t -> @equiv K G e e' t -> step G mu (x, e) mu1 -> step G mu (x, e') mu1.
Proof.
  intros G mu mu1 x e e' t Hx [He [He' Heq]] H.
  inversion H as [m x0 e0 t0 Hx0 Hd Hdef]; subst. rewrite Hx in Hx0. inversion Hx0; subst.
  assert (Hu : upd mu x t0 (eval G mu e) = upd mu x t0 (eval G mu e')).
  { apply functional_extensionality; intro y; apply functional_extensionality; intro k'.
    unfold upd. destruct (String.eqb y x && in_bounds_b t0 k') eqn:E; auto.
    apply andb_true_iff in E. destruct E as [_ E]. apply Heq. apply in_bounds_b_spec; auto. }
  rewrite Hu. constructor; auto. intros k Hk. rewrite <- Heq; auto.
Qed.

End Congruence.

Lemma subst_fresh : forall h r c, ~ In h (vars c) -> subst h r c = c.
Proof.
  intros h r c. induction c; simpl; intros Hn;
    rewrite ?in_app_iff in Hn; try (f_equal; auto; fail).
  destruct (String.eqb x h) eqn:E; auto. apply String.eqb_eq in E. subst. exfalso. auto.
Qed.

Lemma subst_subst_tmp : forall h tmp e0 y c, tmp <> h -> ~ In tmp (vars c) -> ~ In tmp (vars e0) ->
  subst tmp y (subst h (EProd e0 (EVar tmp)) c) = subst h (EProd e0 y) c.
Proof.
  intros h tmp e0 y c Hth Hc He0. induction c; simpl in *; rewrite ?in_app_iff in Hc;
    try (f_equal; auto; fail).
  destruct (String.eqb x h) eqn:E; simpl.
    + rewrite subst_fresh by auto. rewrite String.eqb_refl. auto.
    + destruct (String.eqb x tmp) eqn:E2; auto. apply String.eqb_eq in E2. subst. exfalso; auto.
Qed.

(** One lifting step (over the reals): a contraction whose positions both
    lie in the right factor of an outer product, anywhere inside a
    right-hand side (context [c] with hole [h]), is moved into a fresh
    temporary [tmp]:

      x = C[contr i j (prod e0 e1)]
    becomes
      tmp = contr (i-r) (j-r) e1;  x = C[prod e0 tmp]      (r = rank e0)

    and every tensor except [tmp] ends with the same value. *)
Theorem lift_step : forall G (mu mu1 mu2 : rmem) x tx h th c e0 e1 t0 i j tmp tt,
  ctx_pos G ->
  lookup G x = Some tx -> lookup G h = Some th -> lookup G tmp = Some tt ->
  tmp <> x -> tmp <> h -> ~ In tmp (vars c) -> ~ In tmp (vars e0) ->
  has_type G c tx -> has_type G e0 t0 -> length t0 < Nat.min i j ->
  has_type G (EContr i j (EProd e0 e1)) th ->
  has_type G (EContr (i - length t0) (j - length t0) e1) tt ->
  step G mu (x, subst h (EContr i j (EProd e0 e1)) c) mu1 ->
  steps G mu [(tmp, EContr (i - length t0) (j - length t0) e1);
              (x, subst h (EProd e0 (EVar tmp)) c)] mu2 ->
  forall y k, y <> tmp -> mu2 y k = mu1 y k.
Proof.
  intros G mu mu1 mu2 x tx h th c e0 e1 t0 i j tmp tt HG Hx Hh Htmp Htx Hth Hc He0
    Hct H0 Hlt HX HY H1 H2.
  destruct (contr_prod_right G e0 e1 i j t0 th HG H0 Hlt HX) as [HX' Heq].
  assert (Hequiv : @equiv RS G (EContr i j (EProd e0 e1)) (EProd e0 (EContr (i - length t0) (j - length t0) e1)) th)
    by (split; [|split]; auto).
  assert (Hequiv' := equiv_subst G h th _ _ c tx Hh Hequiv Hct).
  assert (H1' := step_equiv G mu mu1 x _ _ tx Hx Hequiv' H1).
  rewrite <- (subst_subst_tmp h tmp e0 (EContr (i - length t0) (j - length t0) e1) c) in H1' by auto.
  assert (Hprod : has_type G (EProd e0 (EVar tmp)) th).
  { inversion HX' as [| | | | | | | | a b t0' t1 Ha Hb | | | | | |]; subst.
    assert (t1 = tt) by (eapply type_unique; eauto). subst.
    constructor; auto. constructor; auto. }
  apply (temp_intro_stmt G mu mu1 mu2 x tmp (EContr (i - length t0) (j - length t0) e1)
           (subst h (EProd e0 (EVar tmp)) c) tx tt); auto.
  eapply has_type_subst; eauto.
Qed.

(** ** A worked instance: the operator application of TeIL Sec. 5 in 2-D

    [v_{i1 i2} = Σ_{j1 j2} A_{i1 j1} B_{i2 j2} u_{j1 j2}] written as one nested
    statement, and lifted into two single contractions through the
    temporary [_t1] (O(n^4) to O(n^3) for n×n matrices). *)

Section Operator2D.
Local Open Scope string_scope.
Variables n1 m1 n2 m2 : nat.
Hypothesis Hpos : 1 <= n1 /\ 1 <= m1 /\ 1 <= n2 /\ 1 <= m2.

Definition G2 : ctx :=
  [("A", [n1; m1]); ("B", [n2; m2]); ("u", [m1; m2]); ("v", [n1; n2]); ("_t1", [n2; m1])].

(* v = contr 2 4 (contr 4 6 (prod A (prod B u))) *)
Definition op2d_nested : stmt :=
  ("v", EContr 2 4 (EContr 4 6 (EProd (EVar "A") (EProd (EVar "B") (EVar "u"))))).

(* _t1 = contr 2 4 (prod B u);  v = contr 2 4 (prod A _t1) *)
Definition op2d_lifted : list stmt :=
  [("_t1", EContr 2 4 (EProd (EVar "B") (EVar "u")));
   ("v", EContr 2 4 (EProd (EVar "A") (EVar "_t1")))].

Lemma G2_pos : ctx_pos G2.
Proof.
  intros x t H. unfold G2 in H. simpl in H.
  destruct Hpos as [H1 [H2 [H3 H4]]].
  repeat match type of H with
  | (if ?c then _ else _) = _ => destruct c; [inversion H; subst; repeat constructor; lia|]
  end. discriminate.
Qed.

Lemma has_type_conv : forall G e t t', has_type G e t -> t = t' -> has_type G e t'.
Proof. intros; subst; auto. Qed.

Theorem lift_operator_2d : forall mu mu1 mu2 : rmem,
  step G2 mu op2d_nested mu1 -> steps G2 mu op2d_lifted mu2 ->
  forall y k, y <> "_t1" -> mu2 y k = mu1 y k.
Proof.
  intros mu mu1 mu2 H1 H2.
  assert (HA : has_type G2 (EVar "A") [n1; m1]) by (constructor; reflexivity).
  assert (HBu : has_type G2 (EProd (EVar "B") (EVar "u")) [n2; m2; m1; m2]).
  { apply has_type_conv with (([n2; m2] ++ [m1; m2])%list); auto. constructor; constructor; reflexivity. }
  assert (HP : has_type G2 (EProd (EVar "A") (EProd (EVar "B") (EVar "u"))) [n1; m1; n2; m2; m1; m2]).
  { apply has_type_conv with (([n1; m1] ++ [n2; m2; m1; m2])%list); auto. constructor; auto. }
  assert (HX : has_type G2 (EContr 4 6 (EProd (EVar "A") (EProd (EVar "B") (EVar "u")))) [n1; m1; n2; m1]).
  { eapply has_type_conv; [apply T_Contr with (t := [n1; m1; n2; m2; m1; m2]); simpl; auto; lia|].
    reflexivity. }
  assert (HT : has_type G2 (EContr 2 4 (EProd (EVar "B") (EVar "u"))) [n2; m1]).
  { eapply has_type_conv; [apply T_Contr with (t := [n2; m2; m1; m2]); simpl; auto; lia|].
    reflexivity. }
  destruct (contr_prod_right G2 (EVar "A") (EProd (EVar "B") (EVar "u")) 4 6 [n1; m1]
              [n1; m1; n2; m1] G2_pos HA ltac:(simpl; lia) HX) as [HX' Heq].
  simpl (4 - length [n1; m1]) in *. simpl (6 - length [n1; m1]) in *.
  assert (Hequiv : @equiv RS G2 (EContr 4 6 (EProd (EVar "A") (EProd (EVar "B") (EVar "u"))))
                     (EProd (EVar "A") (EContr 2 4 (EProd (EVar "B") (EVar "u")))) [n1; m1; n2; m1])
    by (split; [|split]; auto).
  assert (HC : has_type G2 (EContr 2 4 (EContr 4 6 (EProd (EVar "A") (EProd (EVar "B") (EVar "u"))))) [n1; n2]).
  { eapply has_type_conv; [apply T_Contr with (t := [n1; m1; n2; m1]); simpl; auto; lia|].
    reflexivity. }
  destruct (contr_congr G2 _ _ _ 2 4 _ Hequiv HC) as [_ [_ Heq2]].
  assert (Hequiv2 : @equiv RS G2 (EContr 2 4 (EContr 4 6 (EProd (EVar "A") (EProd (EVar "B") (EVar "u")))))
                      (EContr 2 4 (EProd (EVar "A") (EContr 2 4 (EProd (EVar "B") (EVar "u"))))) [n1; n2]).
  { split; [auto|split; [|auto]].
    eapply has_type_conv; [apply T_Contr with (t := [n1; m1; n2; m1]); simpl; auto; lia|].
    reflexivity. }
  apply (step_equiv G2 mu mu1 "v"
           (EContr 2 4 (EContr 4 6 (EProd (EVar "A") (EProd (EVar "B") (EVar "u")))))
           (EContr 2 4 (EProd (EVar "A") (EContr 2 4 (EProd (EVar "B") (EVar "u")))))
           [n1; n2] eq_refl Hequiv2) in H1.
  change (EContr 2 4 (EProd (EVar "A") (EContr 2 4 (EProd (EVar "B") (EVar "u")))))
    with (subst "_t1" (EContr 2 4 (EProd (EVar "B") (EVar "u"))) (EContr 2 4 (EProd (EVar "A") (EVar "_t1"))))
    in H1.
  unfold op2d_lifted in H2.
  apply (temp_intro_stmt G2 mu mu1 mu2 "v" "_t1" (EContr 2 4 (EProd (EVar "B") (EVar "u")))
           (EContr 2 4 (EProd (EVar "A") (EVar "_t1"))) [n1; n2] [n2; m1]); auto.
  - discriminate.
  - eapply has_type_conv; [apply T_Contr with (t := [n1; m1; n2; m1]); simpl; auto; try lia|reflexivity].
    apply has_type_conv with (([n1; m1] ++ [n2; m1])%list); auto. constructor; auto. constructor; reflexivity.
Qed.

End Operator2D.
