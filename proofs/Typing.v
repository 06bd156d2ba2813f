(** * Static semantics of full TeIL (TeIL Fig. 8, report Fig. 7-9, typing.md).

    [has_type] is the inductive typing relation; [type_of] is the typing
    function; [type_of_correct] is Lemma 4.1 (R-TY-19).

    Note on size limits: R-TY-7, R-TY-11 and R-TY-17(c) add the premise
    [count(t) <= 2^59] to T-Prod and T-Expa.  That premise is a resource
    limit, not part of the papers' rules, so [has_type] leaves it out; the
    executable checker in [Exec.v] ([check_prog]) adds it, and
    [check_prog_sound] shows every program it accepts satisfies [ok_prog].
    All theorems about [ok_prog] therefore apply to accepted programs. *)

From Coq Require Import String List Arith Lia Bool.
From TeIL Require Import Util Syntax.
Import ListNotations.

(** Positions [i] are 1-based (DECISIONS 1); [i - 1] is the 0-based
    position used by [insert_at], [remove_at], [swap_at], [nth]. *)

Inductive has_type (G : ctx) : expr -> list nat -> Prop :=
| T_Var : forall x t,                                                    (* R-TY-2 *)
    lookup G x = Some t ->
    has_type G (EVar x) t
| T_Paren : forall e t,                                                  (* R-TY-3 *)
    has_type G e t ->
    has_type G (EParen e) t
| T_Add : forall e0 e1 t,                                                (* R-TY-4 *)
    has_type G e0 t -> has_type G e1 t ->
    has_type G (EAdd e0 e1) t
| T_Sub : forall e0 e1 t,                                                (* R-TY-4 *)
    has_type G e0 t -> has_type G e1 t ->
    has_type G (ESub e0 e1) t
| T_Mul : forall e0 e1 t,                                                (* R-TY-5 *)
    has_type G e0 t -> has_type G e1 t ->
    has_type G (EMul e0 e1) t
| T_SMul : forall e0 e1 t,                                               (* R-TY-5 *)
    has_type G e0 [] -> has_type G e1 t ->
    has_type G (EMul e0 e1) t
| T_Div : forall e0 e1 t,                                                (* R-TY-6 *)
    has_type G e0 t -> has_type G e1 t ->
    has_type G (EDiv e0 e1) t
| T_SDiv : forall e0 e1 t,                                               (* R-TY-6 *)
    has_type G e0 t -> has_type G e1 [] ->
    has_type G (EDiv e0 e1) t
| T_Prod : forall e0 e1 t0 t1,                                           (* R-TY-7 *)
    has_type G e0 t0 -> has_type G e1 t1 ->
    has_type G (EProd e0 e1) (t0 ++ t1)
| T_Red : forall i e t,                                                  (* R-TY-8 *)
    has_type G e t -> 1 <= i <= length t ->
    has_type G (ERed i e) (remove_at (i - 1) t)
| T_Transp : forall i j e t,                                             (* R-TY-9 *)
    has_type G e t -> 1 <= i <= length t -> 1 <= j <= length t -> i <> j ->
    has_type G (ETransp i j e) (swap_at 0 (i - 1) (j - 1) t)
| T_Diag : forall i j e t,                                               (* R-TY-10 *)
    has_type G e t -> 1 <= i <= length t -> 1 <= j <= length t -> i <> j ->
    nth (i - 1) t 0 = nth (j - 1) t 0 ->
    has_type G (EDiag i j e) (remove_at (Nat.max i j - 1) t)
| T_Expa : forall i n e t,                                               (* R-TY-11 *)
    has_type G e t -> 1 <= i <= S (length t) -> 1 <= n ->
    has_type G (EExpa i n e) (insert_at (i - 1) n t)
| T_Proj : forall i m e t,                                               (* R-TY-12 *)
    has_type G e t -> 1 <= i <= length t -> 1 <= m <= nth (i - 1) t 0 ->
    has_type G (EProj i m e) (remove_at (i - 1) t)
| T_Contr : forall i j e t,                                              (* R-TY-13 *)
    has_type G e t -> 1 <= i <= length t -> 1 <= j <= length t -> i <> j ->
    nth (i - 1) t 0 = nth (j - 1) t 0 ->
    has_type G (EContr i j e) (remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) t)).

(** ** The typing function (R-TY-19) *)

Definition tlist_eq := list_eq_dec Nat.eq_dec.

Definition pos_ok (i : nat) (t : list nat) : bool := (1 <=? i) && (i <=? length t).

Definition ty_elem (t0 t1 : list nat) : option (list nat) :=
  if tlist_eq t0 t1 then Some t0 else None.

Definition ty_mul (t0 t1 : list nat) : option (list nat) :=
  if tlist_eq t0 t1 then Some t1 else
  match t0 with [] => Some t1 | _ => None end.

Definition ty_div (t0 t1 : list nat) : option (list nat) :=
  if tlist_eq t0 t1 then Some t0 else
  match t1 with [] => Some t0 | _ => None end.

Definition ty_red (i : nat) (t : list nat) : option (list nat) :=
  if pos_ok i t then Some (remove_at (i - 1) t) else None.

Definition two_pos_ok (i j : nat) (t : list nat) : bool :=
  pos_ok i t && pos_ok j t && negb (i =? j).

Definition ty_transp (i j : nat) (t : list nat) : option (list nat) :=
  if two_pos_ok i j t then Some (swap_at 0 (i - 1) (j - 1) t) else None.

Definition ext_eq (i j : nat) (t : list nat) : bool := nth (i - 1) t 0 =? nth (j - 1) t 0.

Definition ty_diag (i j : nat) (t : list nat) : option (list nat) :=
  if two_pos_ok i j t && ext_eq i j t then Some (remove_at (Nat.max i j - 1) t) else None.

Definition ty_expa (i n : nat) (t : list nat) : option (list nat) :=
  if (1 <=? i) && (i <=? S (length t)) && (1 <=? n) then Some (insert_at (i - 1) n t) else None.

Definition ty_proj (i m : nat) (t : list nat) : option (list nat) :=
  if pos_ok i t && (1 <=? m) && (m <=? nth (i - 1) t 0) then Some (remove_at (i - 1) t) else None.

Definition ty_contr (i j : nat) (t : list nat) : option (list nat) :=
  if two_pos_ok i j t && ext_eq i j t
  then Some (remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) t)) else None.

Definition obind {A B} (o : option A) (f : A -> option B) : option B :=
  match o with Some a => f a | None => None end.

Fixpoint type_of (G : ctx) (e : expr) : option (list nat) :=
  match e with
  | EVar x => lookup G x
  | EParen e => type_of G e
  | EAdd e0 e1 | ESub e0 e1 =>
      obind (type_of G e0) (fun t0 => obind (type_of G e1) (fun t1 => ty_elem t0 t1))
  | EMul e0 e1 => obind (type_of G e0) (fun t0 => obind (type_of G e1) (fun t1 => ty_mul t0 t1))
  | EDiv e0 e1 => obind (type_of G e0) (fun t0 => obind (type_of G e1) (fun t1 => ty_div t0 t1))
  | EProd e0 e1 => obind (type_of G e0) (fun t0 => obind (type_of G e1) (fun t1 => Some (t0 ++ t1)))
  | ERed i e => obind (type_of G e) (ty_red i)
  | ETransp i j e => obind (type_of G e) (ty_transp i j)
  | EDiag i j e => obind (type_of G e) (ty_diag i j)
  | EExpa i n e => obind (type_of G e) (ty_expa i n)
  | EProj i m e => obind (type_of G e) (ty_proj i m)
  | EContr i j e => obind (type_of G e) (ty_contr i j)
  end.

(** ** Specifications of the helpers *)

Lemma pos_ok_spec : forall i t, pos_ok i t = true <-> 1 <= i <= length t.
Proof. intros. unfold pos_ok. rewrite andb_true_iff, !Nat.leb_le. tauto. Qed.

Lemma two_pos_ok_spec : forall i j t,
  two_pos_ok i j t = true <-> 1 <= i <= length t /\ 1 <= j <= length t /\ i <> j.
Proof.
  intros. unfold two_pos_ok. rewrite !andb_true_iff, !pos_ok_spec, negb_true_iff, Nat.eqb_neq.
  tauto.
Qed.

Lemma ext_eq_spec : forall i j t, ext_eq i j t = true <-> nth (i - 1) t 0 = nth (j - 1) t 0.
Proof. intros. unfold ext_eq. apply Nat.eqb_eq. Qed.

Lemma ty_elem_spec : forall t0 t1 t, ty_elem t0 t1 = Some t <-> t0 = t /\ t1 = t.
Proof.
  unfold ty_elem. intros. destruct (tlist_eq t0 t1); split; intros H; try discriminate;
    try (inversion H; subst); intuition congruence.
Qed.

Lemma ty_mul_spec : forall t0 t1 t, ty_mul t0 t1 = Some t <-> (t0 = t /\ t1 = t) \/ (t0 = [] /\ t1 = t).
Proof.
  unfold ty_mul. intros. destruct (tlist_eq t0 t1); [subst|destruct t0]; split; intros H;
    try (inversion H; subst); intuition (subst; try congruence; try discriminate).
Qed.

Lemma ty_div_spec : forall t0 t1 t, ty_div t0 t1 = Some t <-> (t0 = t /\ t1 = t) \/ (t0 = t /\ t1 = []).
Proof.
  unfold ty_div. intros. destruct (tlist_eq t0 t1); [subst|destruct t1]; split; intros H;
    try (inversion H; subst); intuition (subst; try congruence; try discriminate).
Qed.

Lemma ty_red_spec : forall i t t', ty_red i t = Some t' <-> 1 <= i <= length t /\ t' = remove_at (i - 1) t.
Proof.
  unfold ty_red. intros. destruct (pos_ok i t) eqn:E;
  split; intros H; try (inversion H; subst); try discriminate.
  - split; auto. apply pos_ok_spec; auto.
  - destruct H; subst; auto.
  - destruct H as [H1 _]. apply pos_ok_spec in H1. congruence.
Qed.

Lemma ty_transp_spec : forall i j t t', ty_transp i j t = Some t' <->
  (1 <= i <= length t /\ 1 <= j <= length t /\ i <> j) /\ t' = swap_at 0 (i - 1) (j - 1) t.
Proof.
  unfold ty_transp. intros. destruct (two_pos_ok i j t) eqn:E;
  split; intros H; try (inversion H; subst); try discriminate.
  - split; auto. apply two_pos_ok_spec; auto.
  - destruct H as [H1 H2]. subst; auto.
  - destruct H as [Ha Hb]. apply two_pos_ok_spec in Ha. congruence.
Qed.

Lemma ty_diag_spec : forall i j t t', ty_diag i j t = Some t' <->
  (1 <= i <= length t /\ 1 <= j <= length t /\ i <> j) /\
  nth (i - 1) t 0 = nth (j - 1) t 0 /\ t' = remove_at (Nat.max i j - 1) t.
Proof.
  unfold ty_diag. intros. destruct (two_pos_ok i j t && ext_eq i j t) eqn:E;
  split; intros H; try (inversion H; subst); try discriminate.
  - apply andb_true_iff in E. destruct E as [E1 E2].
    apply two_pos_ok_spec in E1. apply ext_eq_spec in E2. auto.
  - destruct H as [_ [_ H]]. subst. auto.
  - destruct H as [Ha [Hb _]]. apply two_pos_ok_spec in Ha. apply ext_eq_spec in Hb.
    rewrite Ha, Hb in E. discriminate.
Qed.

Lemma ty_contr_spec : forall i j t t', ty_contr i j t = Some t' <->
  (1 <= i <= length t /\ 1 <= j <= length t /\ i <> j) /\
  nth (i - 1) t 0 = nth (j - 1) t 0 /\
  t' = remove_at (Nat.min i j - 1) (remove_at (Nat.max i j - 1) t).
Proof.
  unfold ty_contr. intros. destruct (two_pos_ok i j t && ext_eq i j t) eqn:E;
  split; intros H; try (inversion H; subst); try discriminate.
  - apply andb_true_iff in E. destruct E as [E1 E2].
    apply two_pos_ok_spec in E1. apply ext_eq_spec in E2. auto.
  - destruct H as [_ [_ H]]. subst. auto.
  - destruct H as [Ha [Hb _]]. apply two_pos_ok_spec in Ha. apply ext_eq_spec in Hb.
    rewrite Ha, Hb in E. discriminate.
Qed.

Lemma ty_expa_spec : forall i n t t', ty_expa i n t = Some t' <->
  1 <= i <= S (length t) /\ 1 <= n /\ t' = insert_at (i - 1) n t.
Proof.
  unfold ty_expa. intros. destruct ((1 <=? i) && (i <=? S (length t)) && (1 <=? n)) eqn:E;
  split; intros H; try (inversion H; subst); try discriminate.
  - bool_to_prop. auto.
  - destruct H as [_ [_ H]]. subst. auto.
  - destruct H as [Ha [Hb _]]. bool_to_prop; lia.
Qed.

Lemma ty_proj_spec : forall i m t t', ty_proj i m t = Some t' <->
  1 <= i <= length t /\ 1 <= m <= nth (i - 1) t 0 /\ t' = remove_at (i - 1) t.
Proof.
  unfold ty_proj. intros. destruct (pos_ok i t && (1 <=? m) && (m <=? nth (i - 1) t 0)) eqn:E;
  split; intros H; try (inversion H; subst); try discriminate.
  - bool_to_prop. match goal with Hp : pos_ok _ _ = true |- _ => apply pos_ok_spec in Hp end.
    auto.
  - destruct H as [_ [_ H]]. subst. auto.
  - destruct H as [Ha [Hb _]]. apply pos_ok_spec in Ha. rewrite Ha in E.
    bool_to_prop; lia.
Qed.

Lemma obind_some : forall {A B} (o : option A) (f : A -> option B) b,
  obind o f = Some b <-> exists a, o = Some a /\ f a = Some b.
Proof.
  intros. destruct o; simpl; split; intros H.
  - eauto.
  - destruct H as [a' [H1 H2]]. inversion H1; subst; auto.
  - discriminate.
  - destruct H as [a' [H1 H2]]. discriminate.
Qed.

(** ** Lemma 4.1: typing is computable (TeIL Lemma 4.1, R-TY-19) *)

Lemma type_of_complete : forall G e t, has_type G e t -> type_of G e = Some t.
Proof.
  induction 1; simpl;
    repeat match goal with H : type_of _ _ = Some _ |- _ => rewrite H; clear H end;
    simpl; auto.
  - apply ty_elem_spec; auto.
  - apply ty_elem_spec; auto.
  - apply ty_mul_spec; auto.
  - apply ty_mul_spec; auto.
  - apply ty_div_spec; auto.
  - apply ty_div_spec; auto.
  - apply ty_red_spec; auto.
  - apply ty_transp_spec; auto.
  - apply ty_diag_spec; auto.
  - apply ty_expa_spec; auto.
  - apply ty_proj_spec; auto.
  - apply ty_contr_spec; auto.
Qed.

Lemma type_of_sound : forall G e t, type_of G e = Some t -> has_type G e t.
Proof.
  intros G e. induction e; intros t H; simpl in H;
  repeat match type of H with
  | context [type_of G ?e] =>
      let E := fresh "E" in destruct (type_of G e) eqn:E; simpl in H; [|discriminate]
  end;
  repeat match goal with IH : forall t, type_of G ?e = Some t -> _, E : type_of G ?e = Some _ |- _ =>
    apply IH in E end.
  - constructor; auto.
  - constructor; auto.
  - apply ty_elem_spec in H. destruct H; subst. constructor; auto.
  - apply ty_elem_spec in H. destruct H; subst. constructor; auto.
  - apply ty_mul_spec in H. destruct H as [[]|[]]; subst.
    + apply T_Mul; auto.
    + apply T_SMul; auto.
  - apply ty_div_spec in H. destruct H as [[]|[]]; subst.
    + apply T_Div; auto.
    + apply T_SDiv; auto.
  - inversion H; subst. constructor; auto.
  - apply ty_red_spec in H. destruct H; subst. constructor; auto.
  - apply ty_transp_spec in H. destruct H as [[? [? ?]] ?]; subst. constructor; auto.
  - apply ty_diag_spec in H. destruct H as [[? [? ?]] [? ?]]; subst. constructor; auto.
  - apply ty_expa_spec in H. destruct H as [? [? ?]]; subst. constructor; auto.
  - apply ty_proj_spec in H. destruct H as [? [? ?]]; subst. constructor; auto.
  - apply ty_contr_spec in H. destruct H as [[? [? ?]] [? ?]]; subst. constructor; auto.
Qed.

Theorem type_of_correct : forall G e t, has_type G e t <-> type_of G e = Some t.
Proof. split; [apply type_of_complete|apply type_of_sound]. Qed.

(** Types are unique (the remark after TeIL Lemma 4.1). *)
Theorem type_unique : forall G e t1 t2, has_type G e t1 -> has_type G e t2 -> t1 = t2.
Proof.
  intros G e t1 t2 H1 H2. apply type_of_correct in H1. apply type_of_correct in H2. congruence.
Qed.

(** Lemma 4.1 in the paper's words: there is a unique total computable
    function [type] with [Γ ⊢ e : t <-> type Γ e = Some t]. *)
Theorem typing_computable :
  { f : ctx -> expr -> option (list nat) |
    (forall G e t, has_type G e t <-> f G e = Some t) /\
    (forall g : ctx -> expr -> option (list nat),
       (forall G e t, has_type G e t <-> g G e = Some t) -> forall G e, g G e = f G e) }.
Proof.
  exists type_of. split; [apply type_of_correct|].
  intros g Hg G e. destruct (g G e) eqn:E.
  - apply Hg in E. apply type_of_correct in E. auto.
  - destruct (type_of G e) eqn:E'; auto.
    apply type_of_correct in E'. apply Hg in E'. congruence.
Qed.

(** Typing is decidable. *)
Corollary has_type_dec : forall G e t, {has_type G e t} + {~ has_type G e t}.
Proof.
  intros. destruct (type_of G e) as [t'|] eqn:E.
  - destruct (tlist_eq t' t).
    + left. subst. apply type_of_correct. auto.
    + right. intros H. apply type_of_correct in H. congruence.
  - right. intros H. apply type_of_correct in H. congruence.
Qed.

(** ** Extents stay positive *)

Definition ctx_pos (G : ctx) : Prop :=
  forall x t, lookup G x = Some t -> Forall (fun n => 1 <= n) t.

Lemma has_type_pos : forall G e t, ctx_pos G -> has_type G e t -> Forall (fun n => 1 <= n) t.
Proof.
  intros G e t HG H. induction H; auto.
  - eapply HG; eauto.
  - apply Forall_app; auto.
  - apply Forall_remove_at; auto.
  - apply Forall_swap_at; auto; lia.
  - apply Forall_remove_at; auto.
  - apply Forall_insert_at; auto.
  - apply Forall_remove_at; auto.
  - apply Forall_remove_at, Forall_remove_at; auto.
Qed.

(** ** Well-formed statements and programs (R-TY-14, R-TY-15, R-TY-16) *)

Inductive ok_stmt (G : ctx) : stmt -> Prop :=
| OK_Stmt : forall x e t,                                                (* R-TY-14 *)
    lookup G x = Some t -> has_type G e t ->
    ok_stmt G (x, e).

(** OK-Empty / OK-Seq.  The paper builds sequences by appending at the end
    ([stmts stmt]); we use lists, so a sequence is ok iff each statement is. *)
Inductive ok_stmts (G : ctx) : list stmt -> Prop :=
| OK_Empty : ok_stmts G []                                               (* R-TY-15 *)
| OK_Seq : forall s ss,                                                  (* R-TY-15 *)
    ok_stmt G s -> ok_stmts G ss -> ok_stmts G (s :: ss).

(** Context formation (R-TY-1, report s-var): names are unique and
    extents are at least 1 (R-TY-17(a)). *)
Definition decls_ok (ds : list decl) : Prop :=
  NoDup (map d_name ds) /\ Forall (fun d => Forall (fun n => 1 <= n) (d_type d)) ds.

Inductive ok_prog : prog -> Prop :=
| OK_Prog : forall ds ss,                                                (* R-TY-16 *)
    decls_ok ds -> ok_stmts (ctx_of ds) ss ->
    ok_prog (mkProg ds ss).

Lemma ok_stmts_forall : forall G ss, ok_stmts G ss <-> Forall (ok_stmt G) ss.
Proof.
  induction ss; split; intros H; constructor; inversion H; subst; auto; apply IHss; auto.
Qed.

Lemma ok_stmts_app : forall G s1 s2, ok_stmts G (s1 ++ s2) <-> ok_stmts G s1 /\ ok_stmts G s2.
Proof.
  intros. rewrite !ok_stmts_forall. apply Forall_app.
Qed.

Lemma decls_ok_ctx_pos : forall ds, decls_ok ds -> ctx_pos (ctx_of ds).
Proof.
  intros ds [_ H] x t Hx. rewrite lookup_ctx_of in Hx.
  induction ds as [|d ds IH]; simpl in *; [discriminate|].
  inversion H; subst. destruct (String.eqb (d_name d) x); simpl in Hx.
  - inversion Hx; subst; auto.
  - apply IH; auto.
Qed.

Lemma find_decl_name : forall ds x d, find_decl ds x = Some d -> d_name d = x.
Proof.
  induction ds as [|d' ds IH]; intros x d H; simpl in H; [discriminate|].
  destruct (String.eqb (d_name d') x) eqn:E.
  - inversion H; subst. apply String.eqb_eq; auto.
  - eapply IH; eauto.
Qed.

Lemma find_decl_in : forall ds x d, find_decl ds x = Some d -> In d ds.
Proof.
  induction ds as [|d' ds IH]; intros x d H; simpl in H; [discriminate|].
  destruct (String.eqb (d_name d') x) eqn:E.
  - inversion H; subst. left; auto.
  - right. eapply IH; eauto.
Qed.

(** ** Decidability of well-formedness *)

Fixpoint nodup_names (l : list name) : bool :=
  match l with
  | [] => true
  | x :: l' => negb (existsb (String.eqb x) l') && nodup_names l'
  end.

Lemma nodup_names_spec : forall l, nodup_names l = true <-> NoDup l.
Proof.
  induction l as [|x l IH]; simpl; split; intros H.
  - constructor.
  - auto.
  - apply andb_true_iff in H. destruct H as [H1 H2]. constructor; [|apply IH; auto].
    intros Hin. apply negb_true_iff in H1.
    assert (existsb (String.eqb x) l = true) as Hc
      by (apply existsb_exists; exists x; split; auto; apply String.eqb_refl).
    congruence.
  - inversion H; subst. apply andb_true_iff. split; [|apply IH; auto].
    apply negb_true_iff. destruct (existsb (String.eqb x) l) eqn:E; auto.
    apply existsb_exists in E. destruct E as [y [Hy Hxy]]. apply String.eqb_eq in Hxy.
    subst. contradiction.
Qed.

Definition pos_list_b (t : list nat) : bool := forallb (fun n => 1 <=? n) t.

Lemma pos_list_b_spec : forall t, pos_list_b t = true <-> Forall (fun n => 1 <= n) t.
Proof.
  intros. unfold pos_list_b. rewrite forallb_forall, Forall_forall.
  split; intros H x Hx; specialize (H x Hx); [apply Nat.leb_le|apply Nat.leb_le in H]; auto.
Qed.

Definition decls_ok_b (ds : list decl) : bool :=
  nodup_names (map d_name ds) && forallb (fun d => pos_list_b (d_type d)) ds.

Lemma decls_ok_b_spec : forall ds, decls_ok_b ds = true <-> decls_ok ds.
Proof.
  intros. unfold decls_ok_b, decls_ok. rewrite andb_true_iff, nodup_names_spec.
  rewrite forallb_forall, Forall_forall. setoid_rewrite pos_list_b_spec. tauto.
Qed.

Definition ok_stmt_b (G : ctx) (s : stmt) : bool :=
  match lookup G (fst s), type_of G (snd s) with
  | Some t, Some t' => if tlist_eq t t' then true else false
  | _, _ => false
  end.

Lemma ok_stmt_b_spec : forall G s, ok_stmt_b G s = true <-> ok_stmt G s.
Proof.
  intros G [x e]. unfold ok_stmt_b. simpl. split; intros H.
  - destruct (lookup G x) eqn:E1; [|discriminate].
    destruct (type_of G e) eqn:E2; [|discriminate].
    destruct (tlist_eq l l0); [|discriminate]. subst.
    econstructor; eauto. apply type_of_correct; auto.
  - inversion H as [x' e' t Hx He]; subst. rewrite Hx. apply type_of_correct in He. rewrite He.
    destruct (tlist_eq t t); congruence.
Qed.

Definition ok_prog_b (p : prog) : bool :=
  decls_ok_b (p_decls p) && forallb (ok_stmt_b (ctx_of (p_decls p))) (p_stmts p).

Theorem ok_prog_b_spec : forall p, ok_prog_b p = true <-> ok_prog p.
Proof.
  intros [ds ss]. unfold ok_prog_b. simpl. rewrite andb_true_iff, decls_ok_b_spec, forallb_forall.
  split; intros H.
  - destruct H as [H1 H2]. constructor; auto. apply ok_stmts_forall, Forall_forall.
    intros s Hs. apply ok_stmt_b_spec; auto.
  - inversion H as [ds' ss' Hd Hs']; subst. split; auto. intros s Hs. apply ok_stmt_b_spec.
    apply ok_stmts_forall in Hs'. rewrite Forall_forall in Hs'. auto.
Qed.

Corollary ok_prog_dec : forall p, {ok_prog p} + {~ ok_prog p}.
Proof.
  intros p. destruct (ok_prog_b p) eqn:E.
  - left. apply ok_prog_b_spec; auto.
  - right. intros H. apply ok_prog_b_spec in H. congruence.
Qed.
