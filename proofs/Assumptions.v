(** Print the axioms every main theorem depends on.  Run by [make]
    (output: ../build/proofs/assumptions.txt); not part of _CoqProject.
    Generated list; see THEOREMS.md for what each theorem states. *)
From TeIL Require Import Typing Safety Model Padding Lemma3 Laws Exec Lifting Einsum Scalar.
Goal True. idtac "". idtac "=== type_of_correct". Abort.
Print Assumptions type_of_correct.
Goal True. idtac "". idtac "=== typing_computable". Abort.
Print Assumptions typing_computable.
Goal True. idtac "". idtac "=== type_unique". Abort.
Print Assumptions type_unique.
Goal True. idtac "". idtac "=== ok_prog_b_spec". Abort.
Print Assumptions ok_prog_b_spec.
Goal True. idtac "". idtac "=== eval_defined". Abort.
Print Assumptions eval_defined.
Goal True. idtac "". idtac "=== lemma_4_3_well_defined". Abort.
Print Assumptions lemma_4_3_well_defined.
Goal True. idtac "". idtac "=== thm_4_4_stmt_well_defined". Abort.
Print Assumptions thm_4_4_stmt_well_defined.
Goal True. idtac "". idtac "=== lemma_4_5_step". Abort.
Print Assumptions lemma_4_5_step.
Goal True. idtac "". idtac "=== thm_4_6_type_safety". Abort.
Print Assumptions thm_4_6_type_safety.
Goal True. idtac "". idtac "=== program_evaluation_unique". Abort.
Print Assumptions program_evaluation_unique.
Goal True. idtac "". idtac "=== eval_reads". Abort.
Print Assumptions eval_reads.
Goal True. idtac "". idtac "=== reads_in_bounds". Abort.
Print Assumptions reads_in_bounds.
Goal True. idtac "". idtac "=== cor_2_safety". Abort.
Print Assumptions cor_2_safety.
Goal True. idtac "". idtac "=== tr_preserves_typing". Abort.
Print Assumptions tr_preserves_typing.
Goal True. idtac "". idtac "=== tr_preserves_eval". Abort.
Print Assumptions tr_preserves_eval.
Goal True. idtac "". idtac "=== tr_prog_ok". Abort.
Print Assumptions tr_prog_ok.
Goal True. idtac "". idtac "=== tr_prog_eval". Abort.
Print Assumptions tr_prog_eval.
Goal True. idtac "". idtac "=== lemma_2_model_well_defined". Abort.
Print Assumptions lemma_2_model_well_defined.
Goal True. idtac "". idtac "=== thm_1_model_program_evaluation". Abort.
Print Assumptions thm_1_model_program_evaluation.
Goal True. idtac "". idtac "=== cor_2_model_safety". Abort.
Print Assumptions cor_2_model_safety.
Goal True. idtac "". idtac "=== lemma_3_model". Abort.
Print Assumptions lemma_3_model.
Goal True. idtac "". idtac "=== lemma_3_fails_for_expa". Abort.
Print Assumptions lemma_3_fails_for_expa.
Goal True. idtac "". idtac "=== vdiv_ctrl_zero". Abort.
Print Assumptions vdiv_ctrl_zero.
Goal True. idtac "". idtac "=== lemma_4_padded_store". Abort.
Print Assumptions lemma_4_padded_store.
Goal True. idtac "". idtac "=== lemma_5_padded_eval". Abort.
Print Assumptions lemma_5_padded_eval.
Goal True. idtac "". idtac "=== lemma_6_simulation". Abort.
Print Assumptions lemma_6_simulation.
Goal True. idtac "". idtac "=== thm_2_padded_program_evaluation". Abort.
Print Assumptions thm_2_padded_program_evaluation.
Goal True. idtac "". idtac "=== thm_3_simulation". Abort.
Print Assumptions thm_3_simulation.
Goal True. idtac "". idtac "=== thm_3_simulation_R". Abort.
Print Assumptions thm_3_simulation_R.
Goal True. idtac "". idtac "=== law_3_proj_expa". Abort.
Print Assumptions law_3_proj_expa.
Goal True. idtac "". idtac "=== law_4_diag_transp". Abort.
Print Assumptions law_4_diag_transp.
Goal True. idtac "". idtac "=== law_5_red_expa". Abort.
Print Assumptions law_5_red_expa.
Goal True. idtac "". idtac "=== eq_6_contr_red_diag". Abort.
Print Assumptions eq_6_contr_red_diag.
Goal True. idtac "". idtac "=== check_expr_sound". Abort.
Print Assumptions check_expr_sound.
Goal True. idtac "". idtac "=== check_prog_sound". Abort.
Print Assumptions check_prog_sound.
Goal True. idtac "". idtac "=== exec_prog_correct". Abort.
Print Assumptions exec_prog_correct.
Goal True. idtac "". idtac "=== exec_prog_total". Abort.
Print Assumptions exec_prog_total.
Goal True. idtac "". idtac "=== pexec_prog_correct". Abort.
Print Assumptions pexec_prog_correct.
Goal True. idtac "". idtac "=== subst_eval". Abort.
Print Assumptions subst_eval.
Goal True. idtac "". idtac "=== temp_intro_stmt". Abort.
Print Assumptions temp_intro_stmt.
Goal True. idtac "". idtac "=== in_place_via_temporary". Abort.
Print Assumptions in_place_via_temporary.
Goal True. idtac "". idtac "=== equiv_subst". Abort.
Print Assumptions equiv_subst.
Goal True. idtac "". idtac "=== step_equiv". Abort.
Print Assumptions step_equiv.
Goal True. idtac "". idtac "=== contr_congr". Abort.
Print Assumptions contr_congr.
Goal True. idtac "". idtac "=== lift_step". Abort.
Print Assumptions lift_step.
Goal True. idtac "". idtac "=== red_add". Abort.
Print Assumptions red_add.
Goal True. idtac "". idtac "=== red_sub". Abort.
Print Assumptions red_sub.
Goal True. idtac "". idtac "=== contr_add". Abort.
Print Assumptions contr_add.
Goal True. idtac "". idtac "=== prod_assoc". Abort.
Print Assumptions prod_assoc.
Goal True. idtac "". idtac "=== contr_prod_right". Abort.
Print Assumptions contr_prod_right.
Goal True. idtac "". idtac "=== contr_prod_left". Abort.
Print Assumptions contr_prod_left.
Goal True. idtac "". idtac "=== red_red_comm". Abort.
Print Assumptions red_red_comm.
Goal True. idtac "". idtac "=== rsum_comm". Abort.
Print Assumptions rsum_comm.
Goal True. idtac "". idtac "=== lift_operator_2d". Abort.
Print Assumptions lift_operator_2d.
Goal True. idtac "". idtac "=== sum_over_perm". Abort.
Print Assumptions sum_over_perm.
Goal True. idtac "". idtac "=== sum_over_mul". Abort.
Print Assumptions sum_over_mul.
Goal True. idtac "". idtac "=== reads_as_eval". Abort.
Print Assumptions reads_as_eval.
Goal True. idtac "". idtac "=== to_einsum_correct". Abort.
Print Assumptions to_einsum_correct.
Goal True. idtac "". idtac "=== ein_group_step". Abort.
Print Assumptions ein_group_step.
Goal True. idtac "". idtac "=== ein_pair_step". Abort.
Print Assumptions ein_pair_step.
Goal True. idtac "". idtac "=== ein_local_sum_step". Abort.
Print Assumptions ein_local_sum_step.
Goal True. idtac "". idtac "=== ein_steps_correct". Abort.
Print Assumptions ein_steps_correct.
Goal True. idtac "". idtac "=== ein_add_factor". Abort.
Print Assumptions ein_add_factor.
Goal True. idtac "". idtac "=== ein_sub_factor". Abort.
Print Assumptions ein_sub_factor.
Goal True. idtac "". idtac "=== lift_distribute_add". Abort.
Print Assumptions lift_distribute_add.
Goal True. idtac "". idtac "=== lift_distribute_sub". Abort.
Print Assumptions lift_distribute_sub.
Goal True. idtac "". idtac "=== temps_group_correct". Abort.
Print Assumptions temps_group_correct.
Goal True. idtac "". idtac "=== temps_group_program". Abort.
Print Assumptions temps_group_program.
Goal True. idtac "". idtac "=== lift_chain_steps". Abort.
Print Assumptions lift_chain_steps.
Goal True. idtac "". idtac "=== lift_einsum_sim". Abort.
Print Assumptions lift_einsum_sim.
Goal True. idtac "". idtac "=== lift_statement_correct". Abort.
Print Assumptions lift_statement_correct.
Goal True. idtac "". idtac "=== lift_program_correct". Abort.
Print Assumptions lift_program_correct.
Goal True. idtac "". idtac "=== sim_subst". Abort.
Print Assumptions sim_subst.
Goal True. idtac "". idtac "=== lift_matmul_chain". Abort.
Print Assumptions lift_matmul_chain.
Goal True. idtac "". idtac "=== lift_add_distribute". Abort.
Print Assumptions lift_add_distribute.
Goal True. idtac "". idtac "=== lift_program_decls". Abort.
Print Assumptions lift_program_decls.
