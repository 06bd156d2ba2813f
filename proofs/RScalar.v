(** * The real numbers as the scalar type (for the algebraic theorems).

    Uses Coq's standard-library reals (whose axioms show up in
    assumptions.txt for theorems stated over [RS]). *)

From Coq Require Import Reals Lra.
From TeIL Require Import Util Scalar.

Definition R_is_zero (x : R) : bool := if Req_EM_T x 0%R then true else false.

Definition RS : Scalar := {|
  scal := R;
  s_zero := 0%R;
  s_add := Rplus;
  s_sub := Rminus;
  s_mul := Rmult;
  s_div := Rdiv;
  s_is_zero := R_is_zero
|}.

Lemma RS_add_zero_r : forall a : scal RS, s_add RS a (s_zero RS) = a.
Proof. intros a. simpl. lra. Qed.

Lemma R_is_zero_spec : forall x, R_is_zero x = true <-> x = 0%R.
Proof. intros x. unfold R_is_zero. destruct (Req_EM_T x 0); split; congruence. Qed.
