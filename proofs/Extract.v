(** * Extraction of the checker and evaluator to OCaml.

    The scalar type is instantiated with IEEE binary64 ([PrimFloat.float]),
    which is mapped to OCaml's [float]; [nat] is mapped to OCaml [int]
    (ExtrOcamlNatInt), strings to OCaml strings (ExtrOcamlNativeString).
    Output: ../build/proofs/ocaml/teil_core.ml(i), linked with the small
    hand-written front end in extract/*.ml by [make spec-bin]. *)

From Coq Require Import String List Arith Floats.
From Coq Require Import Extraction ExtrOcamlBasic ExtrOcamlNatInt ExtrOcamlNativeString.
From TeIL Require Import Util Scalar Syntax Typing Eval Padding Model Exec.

(** ** The computable scalar type: doubles *)

Definition fzero : float := 0%float.

Definition F_is_zero (x : float) : bool := PrimFloat.eqb x fzero.

Definition FS : Scalar := {|
  scal := float;
  s_zero := fzero;
  s_add := PrimFloat.add;
  s_sub := PrimFloat.sub;
  s_mul := PrimFloat.mul;
  s_div := PrimFloat.div;
  s_is_zero := F_is_zero
|}.

(** Entry points used by the front end. *)
Definition fval := val FS.
Definition fmem := mem FS.
Definition num (x : float) : fval := @Num FS x.
Definition undef : fval := @Undef FS.

Definition run (inp : name -> list nat -> fval) (p : prog) : option fmem := exec_prog inp p.
Definition run_padded (m : nat) (inp : name -> list nat -> fval) (p : prog) : option fmem :=
  pexec_prog m inp p.
Definition read (mu : fmem) (x : name) (t : list nat) : list (res FS) := read_tensor mu x t.

(** ** Extraction directives *)

Extract Inlined Constant PrimFloat.float => "float".
Extract Inlined Constant PrimFloat.add => "( +. )".
Extract Inlined Constant PrimFloat.sub => "( -. )".
Extract Inlined Constant PrimFloat.mul => "( *. )".
Extract Inlined Constant PrimFloat.div => "( /. )".
(* IEEE equality: 0.0 = -0.0 is true, nan = nan is false. *)
Extract Inlined Constant PrimFloat.eqb => "(fun (a : float) (b : float) -> a = b)".
Extract Inlined Constant fzero => "0.0".

(* [Nat.f] may name Coq.Init.Nat.f or its copy PeanoNat.Nat.f; map both. *)
Extract Inlined Constant Coq.Init.Nat.leb => "(<=)".
Extract Inlined Constant PeanoNat.Nat.leb => "(<=)".
Extract Inlined Constant Coq.Init.Nat.ltb => "(<)".
Extract Inlined Constant PeanoNat.Nat.ltb => "(<)".
Extract Inlined Constant Coq.Init.Nat.eqb => "(=)".
Extract Inlined Constant PeanoNat.Nat.eqb => "(=)".
Extract Inlined Constant Coq.Init.Nat.add => "(+)".
Extract Inlined Constant PeanoNat.Nat.add => "(+)".
Extract Inlined Constant Coq.Init.Nat.mul => "( * )".
Extract Inlined Constant PeanoNat.Nat.mul => "( * )".
Extract Inlined Constant Coq.Init.Nat.sub => "(fun n m -> Stdlib.max 0 (n - m))".
Extract Inlined Constant PeanoNat.Nat.sub => "(fun n m -> Stdlib.max 0 (n - m))".
Extract Inlined Constant Coq.Init.Nat.div => "(fun n m -> if m = 0 then 0 else n / m)".
Extract Inlined Constant PeanoNat.Nat.div => "(fun n m -> if m = 0 then 0 else n / m)".
Extract Inlined Constant Coq.Init.Nat.min => "Stdlib.min".
Extract Inlined Constant PeanoNat.Nat.min => "Stdlib.min".
Extract Inlined Constant Coq.Init.Nat.max => "Stdlib.max".
Extract Inlined Constant PeanoNat.Nat.max => "Stdlib.max".
Extract Inlined Constant Coq.Init.Nat.pred => "(fun n -> Stdlib.max 0 (n - 1))".
Extract Inlined Constant PeanoNat.Nat.pred => "(fun n -> Stdlib.max 0 (n - 1))".
Extract Inlined Constant LIMIT => "576460752303423488".

(* The path is relative to proofs/, where [make] runs coqc. *)
Extraction "../build/proofs/ocaml/teil_core.ml"
  check_prog check_expr type_of tr_prog tr
  run run_padded read num undef
  has_qualifiers is_input is_output find_decl ctx_of lookup round_t all_indices.
