(** * Report Lemma 3 ([Γ ⊢ e : t] implies [⌈Γ⌉ ⊢ e : ⌈t⌉]), R-PAD-1.

    It holds for the model language ([lemma_3_model]) but not for TeIL:
    [expa i n e] keeps its literal extent [n] in [⌈Γ⌉]
    ([lemma_3_fails_for_expa]).  This is why the padded semantics uses the
    rounding of the ordinary type, [⌈type_Γ(e)⌉] (R-PAD-1). *)

From Coq Require Import String List Arith Lia Bool.
From TeIL Require Import Util Syntax Typing Padding Model.
Import ListNotations.
Local Open Scope string_scope.
Local Open Scope list_scope.

Lemma round_ctx_lookup : forall M G x t,
  lookup G x = Some t -> lookup (round_ctx M G) x = Some (round_t M t).
Proof. intros. rewrite lookup_round_ctx, H. auto. Qed.

Theorem lemma_3_model : forall M G e t, 1 <= M ->
  mhas_type G e t -> mhas_type (round_ctx M G) e (round_t M t).
Proof.
  intros M G e t HM H. induction H.
  - constructor. apply round_ctx_lookup; auto.
  - constructor; auto.
  - unfold round_t in *. rewrite map_app. constructor; auto.
  - unfold round_t in *. rewrite map_swap_at by lia. rewrite round_0 by auto.
    constructor; auto; rewrite map_length; lia.
  - unfold round_t at 1. rewrite !map_remove_at. fold (round_t M t).
    constructor; auto; try (rewrite round_t_length; lia).
    rewrite !nth_round_t by auto. congruence.
  - constructor; auto.
  - apply t_smul; auto.
  - apply t_sdiv; auto.
Qed.

Theorem lemma_3_fails_for_expa :
  exists M G e t, 1 <= M /\ has_type G e t /\ ~ has_type (round_ctx M G) e (round_t M t).
Proof.
  exists 2, [("A", [1])], (EExpa 1 1 (EVar "A")), [1; 1]. split; [lia|split].
  - change [1; 1] with (insert_at (1 - 1) 1 [1]). constructor; [constructor; reflexivity|simpl; lia|lia].
  - intros H. apply type_of_correct in H. vm_compute in H. discriminate.
Qed.
