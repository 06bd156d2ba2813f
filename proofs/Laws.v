(** * Equational laws (TeIL Sec. 3.6-3.7): laws (3), (4), (5) and Eq. (6).

    R-EV-19.  Each law says: if the left-hand side is well-typed with type
    [t], then so is the right-hand side, and both evaluate to the same
    result at every index [k <= t], in every store.  Laws (3), (4) and
    Eq. (6) hold for every scalar type; law (5) ([red+ i (expa i n e) = n·e])
    is stated over the reals [RS]. *)

From Coq Require Import String List Arith Lia Bool Reals Lra.
From TeIL Require Import Util Scalar Syntax Typing Eval Safety Padding RScalar.
Import ListNotations.

Section GenericLaws.
Context {K : Scalar}.
Local Notation mem := (mem K).

(** Law (3): [proj i m (expa i n e) ≅ e]. *)
Theorem law_3_proj_expa : forall G e i m n t,
  has_type G (EProj i m (EExpa i n e)) t ->
  has_type G e t /\
  forall (mu : mem) k, in_bounds t k -> eval G mu (EProj i m (EExpa i n e)) k = eval G mu e k.
Proof.
  intros G e i m n t H. inversion H as [| | | | | | | | | | | | |i' m' e' t1 H1 Hi Hm| ]; subst.
  inversion H1 as [| | | | | | | | | | | |i' n' e'' t0 H0 Hi0 Hn| |]; subst.
  rewrite remove_insert by lia. split; auto.
  intros mu k Hk. simpl. rewrite remove_insert; auto.
  apply in_bounds_length in Hk. lia.
Qed.

(** Law (4): [diag i0 i1 (transp i0 i1 e) ≅ diag i0 i1 e] (both directions). *)
Theorem law_4_diag_transp : forall G e i j t,
  (has_type G (EDiag i j (ETransp i j e)) t <-> has_type G (EDiag i j e) t) /\
  (has_type G (EDiag i j e) t ->
   forall (mu : mem) k, in_bounds t k ->
   eval G mu (EDiag i j (ETransp i j e)) k = eval G mu (EDiag i j e) k).
Proof.
  intros G e i j t. split; [split|].
  - intros H. inversion H as [| | | | | | | | | | |i' j' e' t1 H1 Hi Hj Hij Heq| | |]; subst.
    inversion H1 as [| | | | | | | | | |i' j' e'' t0 H0 Hi0 Hj0 Hij0| | | |]; subst.
    rewrite length_swap_at in *.
    rewrite !nth_swap_at in Heq by lia.
    destruct (i - 1 =? i - 1) eqn:E1; destruct (j - 1 =? i - 1) eqn:E2;
      destruct (j - 1 =? j - 1) eqn:E3; bool_to_prop; try lia.
    rewrite swap_at_equal by auto. constructor; auto.
  - intros H. inversion H as [| | | | | | | | | | |i' j' e' t0 H0 Hi Hj Hij Heq| | |]; subst.
    assert (Hs : swap_at 0 (i - 1) (j - 1) t0 = t0) by (apply swap_at_equal; auto).
    rewrite <- Hs. constructor.
    + constructor; auto.
    + rewrite length_swap_at; auto.
    + rewrite length_swap_at; auto.
    + auto.
    + rewrite Hs. auto.
  - intros H mu k Hk. inversion H as [| | | | | | | | | | |i' j' e' t0 H0 Hi Hj Hij Heq| | |]; subst.
    destruct (minmax_pos i j t0) as [Ha [Hb He]]; auto.
    simpl. f_equal. apply swap_at_equal.
    apply in_bounds_length in Hk. rewrite length_remove_at in Hk by lia.
    set (a := Nat.min i j) in *. set (b := Nat.max i j) in *.
    assert (Hab : (i - 1 = a - 1 /\ j - 1 = b - 1) \/ (i - 1 = b - 1 /\ j - 1 = a - 1)).
    { unfold a, b. destruct (le_lt_dec i j).
      - rewrite Nat.min_l, Nat.max_r by lia. auto.
      - rewrite Nat.min_r, Nat.max_l by lia. auto. }
    assert (H1 : nth (a - 1) (insert_at (b - 1) (nth (a - 1) k 0) k) 0 = nth (a - 1) k 0)
      by (apply nth_insert_at_lt; lia).
    assert (H2 : nth (b - 1) (insert_at (b - 1) (nth (a - 1) k 0) k) 0 = nth (a - 1) k 0)
      by (apply nth_insert_at_same; lia).
    destruct Hab as [[-> ->]|[-> ->]]; congruence.
Qed.

(** Eq. (6): [contr i j e ≅ red+ (min i j) (diag i j e)] (DECISIONS 5):
    same typing, same value everywhere. *)
Theorem eq_6_contr_red_diag : forall G e i j t,
  (has_type G (EContr i j e) t <-> has_type G (ERed (Nat.min i j) (EDiag i j e)) t) /\
  (has_type G (EContr i j e) t ->
   forall (mu : mem) k, in_bounds t k ->
   eval G mu (EContr i j e) k = eval G mu (ERed (Nat.min i j) (EDiag i j e)) k).
Proof.
  intros G e i j t. split; [split|].
  - intros H. inversion H as [| | | | | | | | | | | | | |i' j' e' t0 H0 Hi Hj Hij Heq]; subst.
    destruct (minmax_pos i j t0) as [Ha [Hb He]]; auto.
    constructor.
    + constructor; auto.
    + rewrite length_remove_at; lia.
  - intros H. inversion H as [| | | | | | | | |i' e' t1 H1 Hi| | | | |]; subst.
    inversion H1 as [| | | | | | | | | | |i' j' e'' t0 H0 Hi0 Hj0 Hij Heq| | |]; subst.
    constructor; auto.
  - intros H mu k Hk. inversion H as [| | | | | | | | | | | | | |i' j' e' t0 H0 Hi Hj Hij Heq]; subst.
    destruct (minmax_pos i j t0) as [Ha [Hb He]]; auto.
    assert (Hd : has_type G (EDiag i j e) (remove_at (Nat.max i j - 1) t0)) by (constructor; auto).
    cbn [eval]. rewrite (type_of_complete _ _ _ H0), (type_of_complete _ _ _ Hd).
    rewrite nth_remove_at_lt by lia.
    apply rsum_ext. intros m Hm. f_equal. f_equal. rewrite nth_insert_at_same; auto.
    apply in_bounds_length in Hk. rewrite !length_remove_at in Hk; try lia.
    rewrite length_remove_at; lia.
Qed.

End GenericLaws.

(** ** Law (5) over the reals: [red+ i (expa i n e) ≅ n · e] *)

Local Notation rval := (val RS).
Local Notation rres := (res RS).

Lemma rsum_const_R : forall n (r : rres), 1 <= n ->
  rsum n (fun _ => r) = rmul (Some (@Num RS (INR n))) r.
Proof.
  intros n r Hn. induction n as [|n IH]; [lia|].
  destruct n as [|n].
  - destruct r as [[a|]|]; auto.
    unfold rsum, sum_to, radd, rmul, rlift, vadd, vmul, vlift, vzero.
    change (s_add RS) with Rplus. change (s_mul RS) with Rmult. change (s_zero RS) with 0%R.
    f_equal. f_equal. simpl. lra.
  - unfold rsum in *. cbn [sum_to] in *. rewrite IH by lia.
    destruct r as [[a|]|]; auto.
    unfold radd, rmul, rlift, vadd, vmul, vlift.
    change (s_add RS) with Rplus. change (s_mul RS) with Rmult.
    f_equal. f_equal. rewrite (S_INR (S n)). lra.
Qed.

Theorem law_5_red_expa : forall G e i n t,
  has_type G (ERed i (EExpa i n e)) t ->
  has_type G e t /\
  forall (mu : mem RS) k, in_bounds t k ->
  eval G mu (ERed i (EExpa i n e)) k = rmul (Some (@Num RS (INR n))) (eval G mu e k).
Proof.
  intros G e i n t H. inversion H as [| | | | | | | | |i' e' t1 H1 Hi| | | | |]; subst.
  inversion H1 as [| | | | | | | | | | | |i' n' e'' t0 H0 Hi0 Hn| |]; subst.
  rewrite remove_insert by lia. split; auto.
  intros mu k Hk. cbn [eval]. rewrite (type_of_complete _ _ _ H1).
  rewrite nth_insert_at_same by lia.
  rewrite <- rsum_const_R by auto. apply rsum_ext. intros m Hm.
  rewrite remove_insert; auto. apply in_bounds_length in Hk. lia.
Qed.

(** ** Theorem 3 for the reals (where [a + 0 = a] holds exactly) *)
Corollary thm_3_simulation_R : forall M, 1 <= M ->
  forall inp p (mu1 mu2 : mem RS),
  ok_prog p -> prog_eval inp p mu1 -> pprog_eval M inp p mu2 ->
  forall x t k, lookup (ctx_of (p_decls p)) x = Some t ->
    (in_bounds t k -> mu2 x k = mu1 x k) /\
    (padding_pos M t k -> mu2 x k = Some vzero).
Proof. intros M HM. apply thm_3_simulation; auto. apply RS_add_zero_r. Qed.
