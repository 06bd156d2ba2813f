(** * Util: finite index lists, bounds, bounded sums, tabulation.

    Everything here is plain lists and [nat]; no heavy libraries.
    Positions inside lists are 0-based in this file; the 1-based positions
    of TeIL (DECISIONS item 1) are converted with [i - 1] in the semantics. *)

From Coq Require Import List Arith Lia Bool.
Import ListNotations.

(** Keep boolean comparisons folded under [simpl]; they are handled by
    [bool_to_prop] below. *)
Global Arguments Nat.leb : simpl never.
Global Arguments Nat.ltb : simpl never.
Global Arguments Nat.eqb : simpl never.

(** ** Boolean-to-Prop helper tactic *)

Ltac bool_to_prop :=
  repeat match goal with
  | H : (_ && _)%bool = true |- _ => apply andb_true_iff in H; destruct H
  | H : (_ && _)%bool = false |- _ => apply andb_false_iff in H; destruct H
  | H : (_ <=? _) = true |- _ => apply Nat.leb_le in H
  | H : (_ <=? _) = false |- _ => apply Nat.leb_gt in H
  | H : (_ <? _) = true |- _ => apply Nat.ltb_lt in H
  | H : (_ <? _) = false |- _ => apply Nat.ltb_ge in H
  | H : (_ =? _) = true |- _ => apply Nat.eqb_eq in H
  | H : (_ =? _) = false |- _ => apply Nat.eqb_neq in H
  | H : negb _ = true |- _ => apply negb_true_iff in H
  | H : negb _ = false |- _ => apply negb_false_iff in H
  end.

(** Destruct every boolean [if] in the goal. *)
Ltac destruct_ifs :=
  repeat match goal with
  | |- context [if ?c then _ else _] => destruct c eqn:?
  end; bool_to_prop.

(** ** Positional list operations *)

Section ListOps.
Context {A : Type}.

(** [insert_at p a l]: [a] becomes element number [p] (0-based). *)
Fixpoint insert_at (p : nat) (a : A) (l : list A) : list A :=
  match p with
  | 0 => a :: l
  | S p' => match l with
            | [] => [a]
            | x :: l' => x :: insert_at p' a l'
            end
  end.

(** [remove_at p l]: drop element number [p]. *)
Fixpoint remove_at (p : nat) (l : list A) : list A :=
  match l with
  | [] => []
  | x :: l' => match p with
               | 0 => l'
               | S p' => x :: remove_at p' l'
               end
  end.

(** [set_at p a l]: replace element number [p]. *)
Fixpoint set_at (p : nat) (a : A) (l : list A) : list A :=
  match l with
  | [] => []
  | x :: l' => match p with
               | 0 => a :: l'
               | S p' => x :: set_at p' a l'
               end
  end.

(** [swap_at d i j l]: exchange elements [i] and [j]. *)
Definition swap_at (d : A) (i j : nat) (l : list A) : list A :=
  set_at i (nth j l d) (set_at j (nth i l d) l).

Lemma length_insert_at : forall p a l, p <= length l -> length (insert_at p a l) = S (length l).
Proof.
  induction p; intros a l H; simpl; auto.
  destruct l; simpl in *; [lia|]. rewrite IHp; auto. lia.
Qed.

Lemma length_remove_at : forall p l, p < length l -> length (remove_at p l) = pred (length l).
Proof.
  induction p; intros l H; destruct l; simpl in *; try lia; auto.
  rewrite IHp by lia. destruct l; simpl in *; lia.
Qed.

Lemma length_set_at : forall p a l, length (set_at p a l) = length l.
Proof. induction p; destruct l; simpl; auto. Qed.

Lemma length_swap_at : forall d i j l, length (swap_at d i j l) = length l.
Proof. intros. unfold swap_at. rewrite !length_set_at. auto. Qed.

Lemma remove_insert : forall p a l, p <= length l -> remove_at p (insert_at p a l) = l.
Proof.
  induction p; intros a l H; simpl; auto.
  destruct l; simpl in *; [lia|]. rewrite IHp; auto. lia.
Qed.

Lemma insert_remove : forall p d l, p < length l -> insert_at p (nth p l d) (remove_at p l) = l.
Proof.
  induction p; intros d l H; destruct l as [|x l]; simpl in *; try lia; auto.
  f_equal. apply IHp. lia.
Qed.

Lemma nth_insert_at_same : forall p a l d, p <= length l -> nth p (insert_at p a l) d = a.
Proof.
  induction p; intros a l d H; simpl; auto.
  destruct l; simpl in *; [lia|]. apply IHp. lia.
Qed.

Lemma nth_insert_at_lt : forall p q a l d, q < p -> q < length l ->
  nth q (insert_at p a l) d = nth q l d.
Proof.
  induction p as [|p IHp]; intros q a l d H Hl; [lia|]. simpl.
  destruct l as [|x l]; simpl in Hl; [lia|].
  destruct q as [|q]; simpl; auto. apply IHp; lia.
Qed.

Lemma nth_insert_at_gt : forall p q a l d, p <= length l -> p < q ->
  nth q (insert_at p a l) d = nth (q - 1) l d.
Proof.
  induction p; intros q a l d Hl H.
  - destruct q; [lia|]. simpl. rewrite Nat.sub_0_r. auto.
  - destruct l; simpl in *; [lia|]. destruct q; [lia|].
    rewrite IHp by lia. destruct q; [lia|]. simpl. rewrite Nat.sub_0_r. auto.
Qed.

Lemma nth_remove_at_lt : forall p q l d, q < p -> nth q (remove_at p l) d = nth q l d.
Proof.
  induction p; intros q l d H; [lia|].
  destruct l; simpl; auto. destruct q; simpl; auto. apply IHp. lia.
Qed.

Lemma nth_remove_at_ge : forall p q l d, p <= q -> nth q (remove_at p l) d = nth (S q) l d.
Proof.
  induction p as [|p IHp]; intros q l d H.
  - destruct l; simpl; auto. destruct q; auto.
  - destruct q as [|q]; [lia|]. destruct l as [|x l]; simpl.
    + destruct q; auto.
    + apply IHp. lia.
Qed.

Lemma nth_set_at_same : forall p a l d, p < length l -> nth p (set_at p a l) d = a.
Proof.
  induction p; intros a l d H; destruct l; simpl in *; try lia; auto.
  apply IHp. lia.
Qed.

Lemma nth_set_at_other : forall p q a l d, p <> q -> nth q (set_at p a l) d = nth q l d.
Proof.
  induction p as [|p IHp]; intros q a l d H; destruct l as [|x l]; simpl; auto;
    destruct q as [|q]; simpl; auto; try lia.
Qed.

Lemma set_at_nth : forall p l d, set_at p (nth p l d) l = l.
Proof. induction p; destruct l; simpl; intros; f_equal; auto. Qed.

Lemma swap_at_equal : forall d i j l, nth i l d = nth j l d -> swap_at d i j l = l.
Proof.
  intros d i j l H. unfold swap_at. rewrite H. rewrite set_at_nth.
  rewrite <- H. apply set_at_nth.
Qed.

End ListOps.

Lemma map_insert_at : forall {A B} (f : A -> B) p a l,
  map f (insert_at p a l) = insert_at p (f a) (map f l).
Proof. induction p; destruct l; simpl; intros; f_equal; auto. Qed.

Lemma map_remove_at : forall {A B} (f : A -> B) p l,
  map f (remove_at p l) = remove_at p (map f l).
Proof. induction p; destruct l; simpl; intros; f_equal; auto. Qed.

Lemma map_set_at : forall {A B} (f : A -> B) p a l,
  map f (set_at p a l) = set_at p (f a) (map f l).
Proof. induction p; destruct l; simpl; intros; f_equal; auto. Qed.

Lemma map_swap_at : forall {A B} (f : A -> B) d i j l, i < length l -> j < length l ->
  map f (swap_at d i j l) = swap_at (f d) i j (map f l).
Proof.
  intros. unfold swap_at. rewrite !map_set_at.
  rewrite !map_nth. auto.
Qed.

(** ** Forall2 and the positional operations *)

Section Forall2Ops.
Context {A B : Type} (R : A -> B -> Prop).

Lemma Forall2_insert_at : forall p a b l1 l2,
  Forall2 R l1 l2 -> R a b -> Forall2 R (insert_at p a l1) (insert_at p b l2).
Proof.
  induction p; intros a b l1 l2 H Hab; simpl; auto.
  destruct H; simpl; auto.
Qed.

Lemma Forall2_remove_at : forall p l1 l2,
  Forall2 R l1 l2 -> Forall2 R (remove_at p l1) (remove_at p l2).
Proof.
  induction p; intros l1 l2 H; destruct H; simpl; auto.
Qed.

Lemma Forall2_set_at : forall p a b l1 l2,
  Forall2 R l1 l2 -> R a b -> Forall2 R (set_at p a l1) (set_at p b l2).
Proof.
  induction p; intros a b l1 l2 H Hab; destruct H; simpl; auto.
Qed.

Lemma Forall2_nth : forall p l1 l2 d1 d2,
  Forall2 R l1 l2 -> p < length l1 -> R (nth p l1 d1) (nth p l2 d2).
Proof.
  induction p; intros l1 l2 d1 d2 H Hp; destruct H; simpl in *; try lia; auto.
  apply IHp; auto. lia.
Qed.

Lemma Forall2_swap_at : forall d1 d2 i j l1 l2,
  Forall2 R l1 l2 -> i < length l1 -> j < length l1 ->
  Forall2 R (swap_at d1 i j l1) (swap_at d2 i j l2).
Proof.
  intros. unfold swap_at.
  apply Forall2_set_at; [apply Forall2_set_at|]; try apply Forall2_nth; auto;
    rewrite ?length_set_at; auto.
Qed.

End Forall2Ops.

(** ** Multi-indices and bounds (report Def. 1)

    [in_bounds t k] is the paper's [k <= t]: same length and
    [1 <= k_l <= t_l] for every component (indices are 1-based). *)

Definition in_bounds (t k : list nat) : Prop := Forall2 (fun d i => 1 <= i <= d) t k.

Fixpoint in_bounds_b (t k : list nat) : bool :=
  match t, k with
  | [], [] => true
  | d :: t', i :: k' => (1 <=? i) && (i <=? d) && in_bounds_b t' k'
  | _, _ => false
  end.

Lemma in_bounds_b_spec : forall t k, in_bounds_b t k = true <-> in_bounds t k.
Proof.
  unfold in_bounds. induction t; destruct k; simpl; split; intros H;
    try discriminate; try (inversion H; fail); auto.
  - bool_to_prop. constructor; [lia|]. apply IHt; auto.
  - inversion H; subst. apply andb_true_iff; split; [apply andb_true_iff; split|];
      try (apply Nat.leb_le; lia). apply IHt; auto.
Qed.

Lemma in_bounds_b_false : forall t k, in_bounds_b t k = false <-> ~ in_bounds t k.
Proof.
  intros. rewrite <- in_bounds_b_spec. destruct (in_bounds_b t k); split; congruence.
Qed.

Lemma in_bounds_length : forall t k, in_bounds t k -> length k = length t.
Proof. unfold in_bounds. induction 1; simpl; auto. Qed.

Lemma in_bounds_nil : in_bounds [] [].
Proof. constructor. Qed.

Lemma in_bounds_nil_inv : forall k, in_bounds [] k -> k = [].
Proof. intros k H. inversion H; auto. Qed.

Lemma in_bounds_app : forall t0 t1 k0 k1,
  in_bounds t0 k0 -> in_bounds t1 k1 -> in_bounds (t0 ++ t1) (k0 ++ k1).
Proof. intros. apply Forall2_app; auto. Qed.

Lemma in_bounds_app_inv : forall t0 t1 k,
  in_bounds (t0 ++ t1) k ->
  in_bounds t0 (firstn (length t0) k) /\ in_bounds t1 (skipn (length t0) k).
Proof.
  unfold in_bounds. induction t0; intros t1 k H; simpl in *.
  - split; auto.
  - inversion H; subst. destruct (IHt0 _ _ H4). simpl. split; auto.
Qed.

Lemma in_bounds_pos : forall t k, in_bounds t k -> Forall (fun d => 1 <= d) t.
Proof.
  induction 1; constructor; auto. lia.
Qed.

(** An index list exists for every type with positive extents. *)
Lemma in_bounds_ones : forall t, Forall (fun d => 1 <= d) t -> in_bounds t (map (fun _ => 1) t).
Proof. induction 1; simpl; constructor; auto. Qed.

(** ** Bounded sums [sum_to n f = f 1 + ... + f n] (left-nested, starting at [z]) *)

Section Sums.
Context {A : Type} (add : A -> A -> A) (z : A).

Fixpoint sum_to (n : nat) (f : nat -> A) : A :=
  match n with
  | 0 => z
  | S n' => add (sum_to n' f) (f n)
  end.

Lemma sum_to_ext : forall n f g, (forall m, 1 <= m <= n -> f m = g m) -> sum_to n f = sum_to n g.
Proof.
  induction n; intros f g H; simpl; auto.
  rewrite (IHn f g) by (intros; apply H; lia). rewrite H by lia. auto.
Qed.

(** Terms beyond [n] that are right-identities do not change the sum
    (used for the padded extents of report Sec. 4). *)
Lemma sum_to_pad : forall z' n N f,
  (forall a, add a z' = a) -> n <= N -> (forall m, n < m <= N -> f m = z') ->
  sum_to N f = sum_to n f.
Proof.
  intros z' n N f Hid Hle Hz. induction N.
  - assert (n = 0) by lia. subst. auto.
  - destruct (Nat.eq_dec n (S N)); [subst; auto|].
    simpl. rewrite Hz by lia. rewrite Hid. apply IHN; [lia|]. intros; apply Hz; lia.
Qed.

End Sums.

Lemma sum_to_map : forall {A B} (addA : A -> A -> A) (addB : B -> B -> B) zA zB (h : A -> B) n f,
  h zA = zB -> (forall a b, h (addA a b) = addB (h a) (h b)) ->
  h (sum_to addA zA n f) = sum_to addB zB n (fun m => h (f m)).
Proof.
  induction n; intros; simpl; auto. rewrite H0. rewrite IHn; auto.
Qed.

(** ** Enumerating and tabulating the elements of a tensor (row-major order) *)

Fixpoint all_indices (t : list nat) : list (list nat) :=
  match t with
  | [] => [[]]
  | d :: t' => flat_map (fun i => map (cons i) (all_indices t')) (seq 1 d)
  end.

Lemma all_indices_in_bounds : forall t k, In k (all_indices t) <-> in_bounds t k.
Proof.
  unfold in_bounds. induction t; intros k; simpl; split; intros H.
  - destruct H as [H|[]]. subst. constructor.
  - inversion H. auto.
  - apply in_flat_map in H. destruct H as [i [Hi Hk]].
    apply in_seq in Hi. apply in_map_iff in Hk. destruct Hk as [k' [<- Hk']].
    constructor; [lia|]. apply IHt; auto.
  - inversion H as [|d i t' k' Hi Hk]; subst. apply in_flat_map. exists i. split.
    + apply in_seq. lia.
    + apply in_map. apply IHt. auto.
Qed.

(** A tabulated tensor: a tree of nested lists. *)
Inductive tab (V : Type) : Type :=
| Leaf : V -> tab V
| Node : list (tab V) -> tab V.
Arguments Leaf {V}.
Arguments Node {V}.

Fixpoint tabulate {V} (t : list nat) (f : list nat -> V) : tab V :=
  match t with
  | [] => Leaf (f [])
  | d :: t' => Node (map (fun i => tabulate t' (fun k => f (i :: k))) (seq 1 d))
  end.

Fixpoint lookup_tab {V} (dflt : V) (tb : tab V) (k : list nat) : V :=
  match tb, k with
  | Leaf v, [] => v
  | Node ts, i :: k' => lookup_tab dflt (nth (i - 1) ts (Leaf dflt)) k'
  | _, _ => dflt
  end.

Lemma lookup_tabulate : forall V (dflt : V) t f k,
  in_bounds t k -> lookup_tab dflt (tabulate t f) k = f k.
Proof.
  intros V dflt t. induction t as [|d t IHt]; intros f k H;
    inversion H as [|d' i t' k' Hi Hk]; subst; simpl; auto.
  set (g := fun i0 => tabulate t (fun k0 => f (i0 :: k0))).
  rewrite nth_indep with (d' := g 0) by (rewrite map_length, seq_length; lia).
  rewrite map_nth. unfold g. rewrite seq_nth by lia.
  replace (1 + (i - 1)) with i by lia. apply (IHt (fun k0 => f (i :: k0))); auto.
Qed.

(** ** Rounding up to a multiple of the vector length (report Def. 7) *)

Definition round (M d : nat) : nat := ((d + M - 1) / M) * M.

Lemma round_ge : forall M d, 1 <= M -> d <= round M d.
Proof.
  intros M d HM. unfold round.
  pose proof (Nat.div_mod (d + M - 1) M ltac:(lia)).
  pose proof (Nat.mod_upper_bound (d + M - 1) M ltac:(lia)).
  nia.
Qed.

Lemma round_pos : forall M d, 1 <= M -> 1 <= d -> 1 <= round M d.
Proof. intros. pose proof (round_ge M d). lia. Qed.

Definition round_t (M : nat) (t : list nat) : list nat := map (round M) t.

Lemma in_bounds_round : forall M t k, 1 <= M -> in_bounds t k -> in_bounds (round_t M t) k.
Proof.
  unfold in_bounds, round_t. intros M t k HM H. induction H as [|d i t k Hdi Ht IH];
    simpl; constructor; auto.
  pose proof (round_ge M d HM). lia.
Qed.

(** ** [Forall] and the positional operations *)

Section ForallOps.
Context {A : Type} (P : A -> Prop).

Lemma Forall_remove_at : forall p l, Forall P l -> Forall P (remove_at p l).
Proof. induction p; intros l H; destruct H; simpl; auto. Qed.

Lemma Forall_insert_at : forall p a l, Forall P l -> P a -> Forall P (insert_at p a l).
Proof. induction p; intros a l H Ha; simpl; auto. destruct H; simpl; auto. Qed.

Lemma Forall_set_at : forall p a l, Forall P l -> P a -> Forall P (set_at p a l).
Proof. induction p; intros a l H Ha; destruct H; simpl; auto. Qed.

Lemma Forall_nth' : forall p l d, Forall P l -> p < length l -> P (nth p l d).
Proof.
  induction p; intros l d H Hp; destruct H; simpl in *; try lia; auto.
  apply IHp; auto. lia.
Qed.

Lemma Forall_swap_at : forall d i j l, Forall P l -> i < length l -> j < length l ->
  Forall P (swap_at d i j l).
Proof.
  intros. unfold swap_at. apply Forall_set_at; [apply Forall_set_at|]; auto;
    apply Forall_nth'; rewrite ?length_set_at; auto.
Qed.

End ForallOps.

(** ** Swaps *)

Lemma nth_swap_at : forall {A} (d : A) i j l q, i < length l -> j < length l ->
  nth q (swap_at d i j l) d =
  if q =? i then nth j l d else if q =? j then nth i l d else nth q l d.
Proof.
  intros A d i j l q Hi Hj. unfold swap_at.
  destruct (q =? i) eqn:Eqi; bool_to_prop.
  - subst. apply nth_set_at_same. rewrite length_set_at. auto.
  - rewrite nth_set_at_other by lia.
    destruct (q =? j) eqn:Eqj; bool_to_prop.
    + subst. apply nth_set_at_same. auto.
    + apply nth_set_at_other. lia.
Qed.

Lemma swap_at_involutive : forall {A} (d : A) i j l, i < length l -> j < length l ->
  swap_at d i j (swap_at d i j l) = l.
Proof.
  intros A d i j l Hi Hj. apply nth_ext with (d := d) (d' := d).
  - rewrite !length_swap_at. auto.
  - intros q Hq. rewrite !length_swap_at in Hq.
    rewrite nth_swap_at by (rewrite length_swap_at; auto).
    rewrite !nth_swap_at by auto.
    destruct (q =? i) eqn:E1; destruct (j =? i) eqn:E2; destruct (j =? j) eqn:E3;
      destruct (i =? i) eqn:E4; destruct (i =? j) eqn:E5; destruct (q =? j) eqn:E6;
      bool_to_prop; subst; try lia; auto.
Qed.
