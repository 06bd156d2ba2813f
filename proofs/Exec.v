(** * Executable checker and evaluator (what [Extract.v] extracts).

    - [check_prog]: the type checker with one error message, including the
      size limits of R-TY-17; [check_prog_sound]: every accepted program is
      well-formed ([ok_prog]), so all theorems about [ok_prog] apply.
    - [exec_prog] / [pexec_prog]: program evaluation that tabulates every
      assigned tensor once (no recomputation through store closures);
      [exec_prog_correct] / [pexec_prog_correct]: they compute exactly the
      relations [prog_eval] (Fig. 9) and [pprog_eval] (Fig. 14). *)

From Coq Require Import String List Arith Lia Bool FunctionalExtensionality.
From TeIL Require Import Util Scalar Syntax Typing Eval Safety Padding.
Import ListNotations.

(** ** Size limit (R-TY-17): element counts at most 2^59. *)

Definition LIMIT : nat := Nat.pow 2 59.

(** [count_le lim t] decides [product t <= lim] without computing large
    products: [d * x <= lim <-> x <= lim / d] for [d >= 1]. *)
Fixpoint count_le (lim : nat) (t : list nat) : bool :=
  match t with
  | [] => 1 <=? lim
  | d :: t' => if d =? 0 then true else count_le (lim / d) t'
  end.

(** ** Errors (categories of typing.md) *)

Inductive opname : Type :=
| OpAdd | OpSub | OpMul | OpDiv | OpProd
| OpRed (i : nat) | OpTransp (i j : nat) | OpDiag (i j : nat)
| OpExpa (i n : nat) | OpProj (i m : nat) | OpContr (i j : nat).

Inductive terr : Type :=
| ErrUndeclared (x : name)                              (* R-TY-2 *)
| ErrMismatch (op : opname) (t0 t1 : list nat)          (* R-TY-4..6 *)
| ErrPosition (op : opname) (p : nat) (t : list nat)    (* R-TY-8..13 *)
| ErrEqualPos (op : opname)                             (* R-TY-9, 10, 13 *)
| ErrExtents (op : opname) (t : list nat)               (* R-TY-10, 13 *)
| ErrExtentZero (op : opname)                           (* R-TY-17(d) *)
| ErrIndex (op : opname) (m : nat) (t : list nat)       (* R-TY-12 *)
| ErrTooLarge (t : list nat)                            (* R-TY-17(c) *)
| ErrAssignUndeclared (x : name)                        (* R-TY-14 *)
| ErrAssignMismatch (x : name) (t u : list nat)         (* R-TY-14 *)
| ErrRedeclared (x : name)                              (* R-TY-1 *)
| ErrDeclExtentZero (x : name)                          (* R-TY-17(a) *)
| ErrDeclTooLarge (x : name) (t : list nat).            (* R-TY-17(c) *)

Inductive tres : Type := TOk (t : list nat) | TErr (err : terr).

Definition tbind (r : tres) (f : list nat -> tres) : tres :=
  match r with TOk t => f t | TErr e => TErr e end.

Definition opt_err (o : option (list nat)) (err : terr) : tres :=
  match o with Some t => TOk t | None => TErr err end.

Definition limit (t : list nat) : tres :=
  if count_le LIMIT t then TOk t else TErr (ErrTooLarge t).

Definition two_pos_err (op : opname) (i j : nat) (t : list nat) : terr :=
  if negb (pos_ok i t) then ErrPosition op i t
  else if negb (pos_ok j t) then ErrPosition op j t
  else ErrEqualPos op.

Definition diag_err (op : opname) (i j : nat) (t : list nat) : terr :=
  if two_pos_ok i j t then ErrExtents op t else two_pos_err op i j t.

Definition expa_err (i n : nat) (t : list nat) : terr :=
  if (1 <=? i) && (i <=? S (length t)) then ErrExtentZero (OpExpa i n)
  else ErrPosition (OpExpa i n) i t.

Definition proj_err (i m : nat) (t : list nat) : terr :=
  if pos_ok i t then ErrIndex (OpProj i m) m t else ErrPosition (OpProj i m) i t.

Fixpoint check_expr (G : ctx) (e : expr) : tres :=
  match e with
  | EVar x => opt_err (lookup G x) (ErrUndeclared x)
  | EParen e => check_expr G e
  | EAdd e0 e1 => tbind (check_expr G e0) (fun t0 => tbind (check_expr G e1) (fun t1 =>
                    opt_err (ty_elem t0 t1) (ErrMismatch OpAdd t0 t1)))
  | ESub e0 e1 => tbind (check_expr G e0) (fun t0 => tbind (check_expr G e1) (fun t1 =>
                    opt_err (ty_elem t0 t1) (ErrMismatch OpSub t0 t1)))
  | EMul e0 e1 => tbind (check_expr G e0) (fun t0 => tbind (check_expr G e1) (fun t1 =>
                    opt_err (ty_mul t0 t1) (ErrMismatch OpMul t0 t1)))
  | EDiv e0 e1 => tbind (check_expr G e0) (fun t0 => tbind (check_expr G e1) (fun t1 =>
                    opt_err (ty_div t0 t1) (ErrMismatch OpDiv t0 t1)))
  | EProd e0 e1 => tbind (check_expr G e0) (fun t0 => tbind (check_expr G e1) (fun t1 =>
                    limit (t0 ++ t1)))
  | ERed i e => tbind (check_expr G e) (fun t =>
                  opt_err (ty_red i t) (ErrPosition (OpRed i) i t))
  | ETransp i j e => tbind (check_expr G e) (fun t =>
                  opt_err (ty_transp i j t) (two_pos_err (OpTransp i j) i j t))
  | EDiag i j e => tbind (check_expr G e) (fun t =>
                  opt_err (ty_diag i j t) (diag_err (OpDiag i j) i j t))
  | EExpa i n e => tbind (check_expr G e) (fun t =>
                  tbind (opt_err (ty_expa i n t) (expa_err i n t)) limit)
  | EProj i m e => tbind (check_expr G e) (fun t =>
                  opt_err (ty_proj i m t) (proj_err i m t))
  | EContr i j e => tbind (check_expr G e) (fun t =>
                  opt_err (ty_contr i j t) (diag_err (OpContr i j) i j t))
  end.

Lemma tbind_ok : forall r f t, tbind r f = TOk t -> exists t', r = TOk t' /\ f t' = TOk t.
Proof. intros [t'|e] f t H; simpl in H; [eauto|discriminate]. Qed.

Lemma opt_err_ok : forall o err t, opt_err o err = TOk t -> o = Some t.
Proof. intros [t'|] err t H; simpl in H; inversion H; auto. Qed.

Lemma limit_ok : forall t t', limit t = TOk t' -> t' = t.
Proof. unfold limit. intros. destruct (count_le LIMIT t); inversion H; auto. Qed.

Theorem check_expr_sound : forall G e t, check_expr G e = TOk t -> has_type G e t.
Proof.
  intros G e t H. apply type_of_correct. revert t H.
  induction e; intros t H; simpl in H |- *;
    repeat match goal with
    | H : tbind _ _ = TOk _ |- _ =>
        let t' := fresh "t" in let H1 := fresh "H" in let H2 := fresh "H" in
        apply tbind_ok in H; destruct H as [t' [H1 H2]]
    end;
    repeat match goal with
    | IH : forall t, check_expr G ?e = TOk t -> type_of G ?e = Some t,
      H : check_expr G ?e = TOk _ |- _ => apply IH in H; rewrite H
    end; simpl;
    repeat match goal with
    | H : opt_err _ _ = TOk _ |- _ => apply opt_err_ok in H
    | H : limit _ = TOk _ |- _ => apply limit_ok in H; subst
    end; auto.
  all: try congruence.
Qed.

(** ** Statements, declarations, programs *)

Definition check_stmt (G : ctx) (s : stmt) : option terr :=
  let (x, e) := s in
  match lookup G x with
  | None => Some (ErrAssignUndeclared x)
  | Some t =>
      match check_expr G e with
      | TErr err => Some err
      | TOk u => if tlist_eq t u then None else Some (ErrAssignMismatch x t u)
      end
  end.

Definition check_decl (seen : list name) (d : decl) : option terr :=
  if existsb (String.eqb (d_name d)) seen then Some (ErrRedeclared (d_name d))
  else if negb (pos_list_b (d_type d)) then Some (ErrDeclExtentZero (d_name d))
  else if negb (count_le LIMIT (d_type d)) then Some (ErrDeclTooLarge (d_name d) (d_type d))
  else None.

Fixpoint check_decls (seen : list name) (ds : list decl) : option terr :=
  match ds with
  | [] => None
  | d :: ds' => match check_decl seen d with
                | Some err => Some err
                | None => check_decls (d_name d :: seen) ds'
                end
  end.

Fixpoint first_err {A} (f : A -> option terr) (l : list A) : option terr :=
  match l with
  | [] => None
  | a :: l' => match f a with Some err => Some err | None => first_err f l' end
  end.

(** [None] means: well-formed (R-TY-16) and within the limits (R-TY-17). *)
Definition check_prog (p : prog) : option terr :=
  match check_decls [] (p_decls p) with
  | Some err => Some err
  | None => first_err (check_stmt (ctx_of (p_decls p))) (p_stmts p)
  end.

Lemma first_err_none : forall {A} (f : A -> option terr) l, first_err f l = None -> forall a, In a l -> f a = None.
Proof.
  induction l as [|b l IH]; simpl; intros H a Ha; [contradiction|].
  destruct (f b) eqn:E; [discriminate|]. destruct Ha; subst; auto.
Qed.

Lemma check_stmt_sound : forall G s, check_stmt G s = None -> ok_stmt G s.
Proof.
  intros G [x e]. simpl. destruct (lookup G x) eqn:Ex; [|discriminate].
  destruct (check_expr G e) eqn:Ee; [|discriminate].
  destruct (tlist_eq l t); [|discriminate]. subst. intros _.
  econstructor; eauto. apply check_expr_sound; auto.
Qed.

Lemma check_decls_sound : forall ds seen, check_decls seen ds = None ->
  NoDup (map d_name ds) /\ (forall d, In d ds -> ~ In (d_name d) seen) /\
  Forall (fun d => Forall (fun n => 1 <= n) (d_type d)) ds.
Proof.
  induction ds as [|d ds IH]; intros seen H; simpl in *.
  - split; [constructor|split; [tauto|constructor]].
  - unfold check_decl in H.
    destruct (existsb (String.eqb (d_name d)) seen) eqn:E1; [discriminate|].
    destruct (negb (pos_list_b (d_type d))) eqn:E2; [discriminate|].
    destruct (negb (count_le LIMIT (d_type d))) eqn:E3; [discriminate|].
    destruct (IH _ H) as [Hnd [Hseen Hpos]].
    assert (Hnotin : ~ In (d_name d) seen).
    { intros Hin. assert (existsb (String.eqb (d_name d)) seen = true) as Hc
        by (apply existsb_exists; exists (d_name d); split; auto; apply String.eqb_refl).
      congruence. }
    split; [|split].
    + constructor; auto. intros Hin. apply in_map_iff in Hin. destruct Hin as [d' [Hn Hd']].
      apply (Hseen d' Hd'). rewrite Hn. left; auto.
    + intros d' [<-|Hd'] Hin; auto. apply (Hseen d' Hd'). right; auto.
    + constructor; auto. apply pos_list_b_spec. apply negb_false_iff; auto.
Qed.

Theorem check_prog_sound : forall p, check_prog p = None -> ok_prog p.
Proof.
  intros [ds ss]. unfold check_prog. simpl.
  destruct (check_decls [] ds) eqn:E; [discriminate|]. intros H.
  destruct (check_decls_sound ds [] E) as [Hnd [_ Hpos]].
  constructor; [split; auto|]. apply ok_stmts_forall, Forall_forall.
  intros s Hs. apply check_stmt_sound. eapply first_err_none; eauto.
Qed.

(** ** Executable evaluation *)

Section Exec.
Context {K : Scalar}.
Local Notation val := (val K).
Local Notation res := (res K).
Local Notation mem := (mem K).

Definition is_some {A} (o : option A) : bool := match o with Some _ => true | None => false end.

(** Assign the tabulated tensor [tb] (type [t]) to [x]. *)
Definition assign (mu : mem) (x : name) (t : list nat) (tb : tab res) : mem :=
  fun y k => if String.eqb y x && in_bounds_b t k then lookup_tab None tb k else mu y k.

Definition all_defined (t : list nat) (f : list nat -> res) : bool :=
  forallb (fun k => is_some (f k)) (all_indices t).

Lemma all_defined_spec : forall t f, all_defined t f = true <-> forall k, in_bounds t k -> f k <> None.
Proof.
  intros t f. unfold all_defined. rewrite forallb_forall. split; intros H k Hk.
  - apply all_indices_in_bounds in Hk. specialize (H k Hk). destruct (f k); simpl in *; congruence.
  - apply all_indices_in_bounds in Hk. specialize (H k Hk). destruct (f k); simpl in *; congruence.
Qed.

(** One statement (St-Stmt with a general evaluator [ev] and type [t]). *)
Definition exec_assign (mu : mem) (x : name) (t : list nat) (ev : list nat -> res) : option mem :=
  let tb := tabulate t ev in
  if all_defined t (mu x) && all_defined t (lookup_tab None tb)
  then Some (assign mu x t tb) else None.

Lemma exec_assign_spec : forall mu x t ev mu',
  exec_assign mu x t ev = Some mu' <->
  (forall k, in_bounds t k -> mu x k <> None) /\ (forall k, in_bounds t k -> ev k <> None) /\
  mu' = upd mu x t ev.
Proof.
  intros mu x t ev mu'. unfold exec_assign.
  assert (Hupd : assign mu x t (tabulate t ev) = upd mu x t ev).
  { apply functional_extensionality. intros y. apply functional_extensionality. intros k.
    unfold assign, upd. destruct (String.eqb y x); simpl; auto.
    destruct (in_bounds_b t k) eqn:E; auto. apply lookup_tabulate. apply in_bounds_b_spec; auto. }
  assert (Htab : forall k, in_bounds t k -> lookup_tab None (tabulate t ev) k = ev k)
    by (intros; apply lookup_tabulate; auto).
  destruct (all_defined t (mu x) && all_defined t (lookup_tab None (tabulate t ev))) eqn:E.
  - apply andb_true_iff in E. destruct E as [E1 E2].
    rewrite all_defined_spec in E1, E2. split.
    + intros H. inversion H; subst. repeat split; auto. intros k Hk. rewrite <- Htab; auto.
    + intros [_ [_ ->]]. rewrite Hupd. auto.
  - split; [discriminate|]. intros [H1 [H2 _]].
    apply andb_false_iff in E. destruct E as [E|E]; rewrite <- not_true_iff_false in E;
      exfalso; apply E; apply all_defined_spec; auto. intros k Hk. rewrite Htab; auto.
Qed.

Definition exec_stmt (G : ctx) (mu : mem) (s : stmt) : option mem :=
  let (x, e) := s in
  match lookup G x with
  | Some t => exec_assign mu x t (eval G mu e)
  | None => None
  end.

Fixpoint exec_stmts (G : ctx) (mu : mem) (ss : list stmt) : option mem :=
  match ss with
  | [] => Some mu
  | s :: ss' => match exec_stmt G mu s with
                | Some mu' => exec_stmts G mu' ss'
                | None => None
                end
  end.

Definition exec_prog (inp : name -> list nat -> val) (p : prog) : option mem :=
  exec_stmts (ctx_of (p_decls p)) (init_mem (p_decls p) inp) (p_stmts p).

Lemma exec_stmt_correct : forall G mu s mu', exec_stmt G mu s = Some mu' <-> step G mu s mu'.
Proof.
  intros G mu [x e] mu'. simpl. split.
  - destruct (lookup G x) eqn:Ex; [|discriminate]. intros H.
    apply exec_assign_spec in H. destruct H as [H1 [H2 ->]]. constructor; auto.
  - intros H. inversion H as [mu0 x0 e0 t Hx Hd He]; subst. rewrite Hx. apply exec_assign_spec. auto.
Qed.

Lemma exec_stmts_correct : forall G ss mu mu', exec_stmts G mu ss = Some mu' <-> steps G mu ss mu'.
Proof.
  intros G ss. induction ss as [|s ss IH]; intros mu mu'; simpl; split; intros H.
  - inversion H; subst. constructor.
  - inversion H; subst. auto.
  - destruct (exec_stmt G mu s) eqn:E; [|discriminate].
    apply exec_stmt_correct in E. econstructor; eauto. apply IH; auto.
  - inversion H as [|m m' m'' s' ss' Hs Hss]; subst. apply exec_stmt_correct in Hs. rewrite Hs. apply IH; auto.
Qed.

Theorem exec_prog_correct : forall inp p mu', exec_prog inp p = Some mu' <-> prog_eval inp p mu'.
Proof.
  intros inp [ds ss] mu'. unfold exec_prog. simpl. rewrite exec_stmts_correct.
  split; intros H; [constructor; auto|inversion H; auto].
Qed.

(** The checker's verdict guarantees the evaluator succeeds (Thm 4.6). *)
Corollary exec_prog_total : forall inp p, check_prog p = None -> exists mu', exec_prog inp p = Some mu'.
Proof.
  intros inp p H. apply check_prog_sound in H.
  destruct (thm_4_6_type_safety inp p H) as [mu' [H1 _]].
  exists mu'. apply exec_prog_correct; auto.
Qed.

(** ** Padded evaluation (R-PAD-3) *)

Definition pexec_stmt (M : nat) (G : ctx) (mu : mem) (s : stmt) : option mem :=
  let (x, e) := s in
  match lookup G x with
  | Some t => exec_assign mu x (round_t M t) (peval M G mu e)
  | None => None
  end.

Fixpoint pexec_stmts (M : nat) (G : ctx) (mu : mem) (ss : list stmt) : option mem :=
  match ss with
  | [] => Some mu
  | s :: ss' => match pexec_stmt M G mu s with
                | Some mu' => pexec_stmts M G mu' ss'
                | None => None
                end
  end.

Definition pexec_prog (M : nat) (inp : name -> list nat -> val) (p : prog) : option mem :=
  pexec_stmts M (ctx_of (p_decls p)) (pinit_mem M (p_decls p) inp) (p_stmts p).

Theorem pexec_prog_correct : forall M inp p mu', pexec_prog M inp p = Some mu' <-> pprog_eval M inp p mu'.
Proof.
  intros M inp [ds ss] mu'. unfold pexec_prog. simpl.
  assert (Hs : forall G mu s mu', pexec_stmt M G mu s = Some mu' <-> pstep M G mu s mu').
  { intros G mu [x e] mu1. simpl. split.
    - destruct (lookup G x) eqn:Ex; [|discriminate]. intros H.
      apply exec_assign_spec in H. destruct H as [H1 [H2 ->]]. constructor; auto.
    - intros H. inversion H as [mu0 x0 e0 t Hx Hd He]; subst. rewrite Hx. apply exec_assign_spec. auto. }
  assert (Hss : forall G ss mu mu', pexec_stmts M G mu ss = Some mu' <-> psteps M G mu ss mu').
  { intros G ss0. induction ss0 as [|s ss0 IH]; intros mu mu1; simpl; split; intros H.
    - inversion H; subst. constructor.
    - inversion H; subst. auto.
    - destruct (pexec_stmt M G mu s) eqn:E; [|discriminate].
      apply Hs in E. econstructor; eauto. apply IH; auto.
    - inversion H as [|m m' m'' s' ss' Hs1 Hss1]; subst. apply Hs in Hs1. rewrite Hs1. apply IH; auto. }
  rewrite Hss. split; intros H; [constructor; auto|inversion H; auto].
Qed.

(** Reading a tensor back, elements in row-major order. *)
Definition read_tensor (mu : mem) (x : name) (t : list nat) : list res :=
  map (mu x) (all_indices t).

End Exec.
