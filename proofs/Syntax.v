(** * Syntax of full TeIL (TeIL Fig. 5 plus [sub], [div], [contr]).
    R-GR-1, R-GR-2, R-GR-3. *)

From Coq Require Import String List Arith Bool.
From TeIL Require Import Util.
Import ListNotations.

Definition name := string.

(** Integer arguments are the literals as written: positions are 1-based
    (DECISIONS 1).  [ETransp i j], [EDiag i j], [EContr i j] take their
    two positions in either order (DECISIONS 3, 4, 5). *)
Inductive expr : Type :=
| EVar (x : name)                        (* x *)
| EParen (e : expr)                      (* ( e ) *)
| EAdd (e0 e1 : expr)                    (* add e0 e1 *)
| ESub (e0 e1 : expr)                    (* sub e0 e1 *)
| EMul (e0 e1 : expr)                    (* mul e0 e1 *)
| EDiv (e0 e1 : expr)                    (* div e0 e1 *)
| EProd (e0 e1 : expr)                   (* prod e0 e1 *)
| ERed (i : nat) (e : expr)              (* red+ i e *)
| ETransp (i j : nat) (e : expr)         (* transp i j e *)
| EDiag (i j : nat) (e : expr)           (* diag i j e *)
| EExpa (i n : nat) (e : expr)           (* expa i n e *)
| EProj (i m : nat) (e : expr)           (* proj i m e *)
| EContr (i j : nat) (e : expr).         (* contr i j e *)

(** An allocation [alloc [input] [output] x : t] (R-GR-2, R-TY-18). *)
Record decl : Type := mkDecl {
  d_name : name;
  d_type : list nat;
  d_input : bool;
  d_output : bool
}.

(** A statement [x = e]. *)
Definition stmt : Type := (name * expr)%type.

Record prog : Type := mkProg {
  p_decls : list decl;
  p_stmts : list stmt
}.

(** ** Static contexts (report Def. 3 (i)) *)

Definition ctx : Type := list (name * list nat).

Fixpoint lookup (G : ctx) (x : name) : option (list nat) :=
  match G with
  | [] => None
  | (y, t) :: G' => if String.eqb y x then Some t else lookup G' x
  end.

(** [Γ_allocs]: the context formed from the allocations (R-TY-1). *)
Definition ctx_of (ds : list decl) : ctx := map (fun d => (d_name d, d_type d)) ds.

Fixpoint find_decl (ds : list decl) (x : name) : option decl :=
  match ds with
  | [] => None
  | d :: ds' => if String.eqb (d_name d) x then Some d else find_decl ds' x
  end.

Lemma lookup_ctx_of : forall ds x,
  lookup (ctx_of ds) x = option_map d_type (find_decl ds x).
Proof.
  induction ds as [|d ds IH]; intros x; simpl; auto.
  destruct (String.eqb (d_name d) x); simpl; auto.
Qed.

(** Names occurring in an expression. *)
Fixpoint vars (e : expr) : list name :=
  match e with
  | EVar x => [x]
  | EParen e | ERed _ e | ETransp _ _ e | EDiag _ _ e | EExpa _ _ e
  | EProj _ _ e | EContr _ _ e => vars e
  | EAdd e0 e1 | ESub e0 e1 | EMul e0 e1 | EDiv e0 e1 | EProd e0 e1 => vars e0 ++ vars e1
  end.

(** Substitution of an expression for a name (used for temporaries). *)
Fixpoint subst (h : name) (r : expr) (e : expr) : expr :=
  match e with
  | EVar x => if String.eqb x h then r else EVar x
  | EParen e => EParen (subst h r e)
  | EAdd e0 e1 => EAdd (subst h r e0) (subst h r e1)
  | ESub e0 e1 => ESub (subst h r e0) (subst h r e1)
  | EMul e0 e1 => EMul (subst h r e0) (subst h r e1)
  | EDiv e0 e1 => EDiv (subst h r e0) (subst h r e1)
  | EProd e0 e1 => EProd (subst h r e0) (subst h r e1)
  | ERed i e => ERed i (subst h r e)
  | ETransp i j e => ETransp i j (subst h r e)
  | EDiag i j e => EDiag i j (subst h r e)
  | EExpa i n e => EExpa i n (subst h r e)
  | EProj i m e => EProj i m (subst h r e)
  | EContr i j e => EContr i j (subst h r e)
  end.

(** Qualifiers (R-TY-18, DECISIONS 8): if no declaration has a qualifier,
    every tensor is [input output]. *)
Definition has_qualifiers (ds : list decl) : bool :=
  existsb (fun d => d_input d || d_output d) ds.

Definition is_input (ds : list decl) (d : decl) : bool :=
  if has_qualifiers ds then d_input d else true.

Definition is_output (ds : list decl) (d : decl) : bool :=
  if has_qualifiers ds then d_output d else true.
