(** * Scalar: the value domain as a parameter, values [V ∪ {•}], Def. 4.

    The scalar type is a record of operations (HELIX-style): the whole
    development is parametric in it.  [RScalar.v] instantiates it with
    Coq's reals for the algebraic theorems; [Extract.v] instantiates it
    with IEEE binary64 ([PrimFloat.float]) for the extracted evaluator. *)

From Coq Require Import List Arith Lia Bool.
From TeIL Require Import Util.
Import ListNotations.

Record Scalar : Type := mkScalar {
  scal : Type;
  s_zero : scal;
  s_add : scal -> scal -> scal;
  s_sub : scal -> scal -> scal;
  s_mul : scal -> scal -> scal;
  s_div : scal -> scal -> scal;
  (** [s_is_zero w] decides [w = 0]; used for Def. 4 (ii), [v/0 = •]. *)
  s_is_zero : scal -> bool
}.

Section Values.
Context {K : Scalar}.

(** Values (report Def. 3 (ii), DECISIONS item 7): a number or the
    undefined value [•], written [Undef].  [Undef] is kept apart from any
    NaN the scalar type may have.  R-EV-2. *)
Inductive val : Type :=
| Num : scal K -> val
| Undef : val.

(** ** Extended arithmetic (report Def. 4, R-EV-2) *)

Definition vlift (f : scal K -> scal K -> scal K) (v w : val) : val :=
  match v, w with
  | Num a, Num b => Num (f a b)
  | _, _ => Undef
  end.

Definition vadd := vlift (s_add K).
Definition vsub := vlift (s_sub K).
Definition vmul := vlift (s_mul K).

(** [v/• = •/w = •] and [v/0 = •/0 = •] (so also [0/0 = •]). *)
Definition vdiv (v w : val) : val :=
  match v, w with
  | Num a, Num b => if s_is_zero K b then Undef else Num (s_div K a b)
  | _, _ => Undef
  end.

(** Controlled division (report Def. 8): as [vdiv] except [0/0 = 0] and
    [0/• = 0].  The padded semantics never needs it as an operation: by
    R-PAD-5 every padding position is 0 (see [Padding.v]), which is what
    the compiler computes with controlled division in padding lanes. *)
Definition vdiv_ctrl (v w : val) : val :=
  match v, w with
  | Num a, Num b =>
      if s_is_zero K b then (if s_is_zero K a then Num (s_zero K) else Undef)
      else Num (s_div K a b)
  | Num a, Undef => if s_is_zero K a then Num (s_zero K) else Undef
  | Undef, _ => Undef
  end.

Definition vzero : val := Num (s_zero K).

(** Controlled division: [0/0 = 0] and [0/• = 0] (Def. 8; what the padding
    lanes of [div] compute, R-PAD-4), and Def. 4 division otherwise. *)
Lemma vdiv_ctrl_zero : s_is_zero K (s_zero K) = true ->
  forall w, (w = Undef \/ exists b, w = Num b /\ s_is_zero K b = true) -> vdiv_ctrl vzero w = vzero.
Proof.
  intros Hz w [->|[b [-> Hb]]]; unfold vdiv_ctrl, vzero; rewrite ?Hz, ?Hb; auto.
Qed.

Lemma vdiv_ctrl_nonzero : forall a w, s_is_zero K a = false -> vdiv_ctrl (Num a) w = vdiv (Num a) w.
Proof. intros a [b|] Ha; unfold vdiv_ctrl, vdiv; rewrite ?Ha; auto. Qed.

(** ** Results of evaluation

    An evaluation result is [Some v] when the semantic equations are
    well-defined (including [v = •]) and [None] when they are not, e.g.
    when the store is read outside its domain (an out-of-bounds access).
    Lemma 4.3 / report Lemma 2 say well-typed expressions never give [None]. *)

Definition res : Type := option val.

Definition rlift (f : val -> val -> val) (r1 r2 : res) : res :=
  match r1, r2 with
  | Some a, Some b => Some (f a b)
  | _, _ => None
  end.

Definition radd := rlift vadd.
Definition rsub := rlift vsub.
Definition rmul := rlift vmul.
Definition rdiv := rlift vdiv.

(** [rsum n f = f 1 + ... + f n] (starting from [0]). *)
Definition rsum (n : nat) (f : nat -> res) : res := sum_to radd (Some vzero) n f.

Lemma rsum_ext : forall n f g, (forall m, 1 <= m <= n -> f m = g m) -> rsum n f = rsum n g.
Proof. intros. unfold rsum. apply sum_to_ext. auto. Qed.

(** Sums are defined when all their terms are. *)
Lemma rsum_defined : forall n f, (forall m, 1 <= m <= n -> f m <> None) -> rsum n f <> None.
Proof.
  unfold rsum. induction n; intros f H; simpl; [discriminate|].
  specialize (IHn f (fun m Hm => H m ltac:(lia))).
  destruct (sum_to radd (Some vzero) n f); [|congruence].
  destruct (f (S n)) eqn:E; [discriminate|]. exfalso. apply (H (S n)); auto. lia.
Qed.

Lemma rlift_defined : forall f r1 r2, r1 <> None -> r2 <> None -> rlift f r1 r2 <> None.
Proof. intros f [a|] [b|]; simpl; congruence. Qed.

Lemma rlift_none_l : forall f r, rlift f None r = None.
Proof. reflexivity. Qed.

Lemma rlift_none_r : forall f r, rlift f r None = None.
Proof. intros f [a|]; reflexivity. Qed.

End Values.

Arguments val K : clear implicits.
Arguments res K : clear implicits.
