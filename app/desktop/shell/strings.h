// Every user-visible string of the app, in English and Korean, in one table. Panels ask for a
// string by id; the language switches at run time. Korean terms follow the lecture material
// (셀프 어텐션, 멀티 헤드 어텐션, 마스킹, 쿼리/키/밸류).
#pragma once

namespace attnviz {

enum class Lang { en, ko };

enum class Str {
  app_title, menu_view, menu_language, menu_presets,
  panel_sentence, panel_model, panel_heads,
  sentence, source_sentence, cross_attention, tokens, out_of_vocab,
  model_size, d_model, heads, layers, ffn_width, seed, reroll, norm, norm_post, norm_pre,
  positions, pos_sinusoidal, pos_learned, pos_none, activation,
  scoring, score_scaled_dot, score_dot, score_general, score_additive, scaling, temperature,
  masks, mask_causal, mask_padding, pad_length, mask_window, window_radius, mask_strided, stride, mask_custom,
  custom_hint, clear_custom,
  layer, head, colormap, annotate, zoom, back_to_grid, query, key, weight, raw_score, scaled_score,
  computing, error_kept, hidden_cell, click_row_hint,
  // shell: menus, views, status
  menu_file, open_session, save_session, export_png, export_csv, export_json, quit, presentation, high_contrast,
  view_heads, view_model, view_lines, view_compare, view_steps, view_stats, path, ok, cancel, scale, saved, loaded,
  full_screen,
  // @model_view (panel_model_view.cpp adds its ids here)
  mv_summary, mv_hint, mv_click_open, mv_entropy, mv_uniform, mv_max_weight, mv_mean_distance, mv_tokens_unit,
  mv_first_token, mv_punct, mv_current,
  // @lines (panel_lines.cpp adds its ids here)
  ln_queries, ln_keys, ln_legend_hint, ln_all_on, ln_all_off, ln_hint, ln_all_hidden, ln_mean_weight, ln_strongest,
  ln_on, ln_off, ln_clear_query, ln_into_key, ln_budget,
  // @compare (panel_compare.cpp adds its ids here)
  cmp_mode, cmp_mode_sentence, cmp_mode_heads, cmp_mode_mask, cmp_mode_scale,
  cmp_explain_sentence, cmp_explain_heads, cmp_explain_mask, cmp_explain_scale,
  cmp_sentence_b, cmp_swap, cmp_swap_tip, cmp_desc_sentence_a, cmp_desc_sentence_b, cmp_desc_average,
  cmp_desc_single, cmp_desc_masks_set, cmp_desc_no_mask, cmp_desc_causal, cmp_legend_b_higher,
  cmp_legend_a_higher, cmp_legend_same, cmp_error_b, cmp_note_tokens, cmp_overview, cmp_heads_strip, cmp_max_abs,
  // @steps (panel_steps.cpp adds its ids here)
  steps_back, steps_next, steps_keys_hint, steps_query_default,
  steps_short_input, steps_short_split, steps_short_qkv, steps_short_scores, steps_short_scale,
  steps_short_mask, steps_short_softmax, steps_short_values, steps_short_concat, steps_short_out,
  steps_title_input, steps_title_split, steps_title_qkv, steps_title_scores, steps_title_scale,
  steps_title_mask, steps_title_softmax, steps_title_values, steps_title_concat, steps_title_out,
  steps_explain_input, steps_explain_split, steps_explain_qkv, steps_explain_scores, steps_explain_scale,
  steps_explain_mask, steps_explain_softmax, steps_explain_values, steps_explain_concat, steps_explain_out,
  steps_shape, steps_token, steps_first_dims, steps_note_prev_layer, steps_note_prenorm, steps_note_cross,
  steps_split_line, steps_split_columns, steps_split_strip, steps_click_head, steps_example,
  steps_scale_temperature, steps_scale_dot, steps_scale_general, steps_scale_additive, steps_scale_unchanged,
  steps_col_raw, steps_col_scaled, steps_col_mask, steps_mask_none, steps_mask_hidden_count,
  steps_reason_causal, steps_reason_padding, steps_reason_window, steps_reason_strided, steps_reason_custom,
  steps_reason_stale, steps_visible, steps_all_hidden, steps_terms, steps_more_terms, steps_concat_block,
  steps_out_next, steps_row_of,
  // @stats (panel_stats.cpp adds its ids here)
  st_entropy, st_entropy_tip, st_max_weight, st_max_weight_tip, st_distance, st_distance_tip, st_first, st_first_tip,
  st_punct, st_punct_tip, st_top_keys, st_top_keys_tip_query, st_top_keys_tip_all, st_layer_tip, st_head_tip,
  st_scoring_tip, st_keys_for, st_all_queries, st_hint, st_summary, st_score_scaled, st_score_dot, st_score_general,
  st_score_additive,
  // @attention-only layers (d_ff 0: the induction demo)
  ffn_none, steps_out_next_no_ffn,
  // @model source and demos (app_shell.cpp, panel_model.cpp, panel_sentence.cpp)
  view_coref, view_train, src_label, src_sandbox, src_coref, src_induction, src_file, src_trained, src_load,
  src_path_hint, src_fixed, src_summary, src_error, vocab_title, vocab_hint, vocab_unk_count,
  // @coref (panel_coref.cpp adds its ids here)
  co_title, co_pronoun, co_candidates, co_property, co_none, co_rule, co_rule_unknown, co_answer, co_answer_prob,
  co_correct, co_wrong, co_sandbox, co_use_demo, co_no_answer, co_no_it, co_few_nouns, co_empty, co_vocab_hint,
  co_use_example, co_cross, co_heads_title, co_legend_resolves, co_legend_unknown, co_legend_property, co_heads_hint,
  co_resolves_count, co_rest, co_best, co_shown, co_pair_title, co_pair_swap, co_pair_swap_tip, co_pair_no_property,
  co_pair_make_main, co_pair_make_main_tip, co_pair_hint, co_pair_not_pair, co_pair_head, co_pair_rule,
  // @train (panel_train.cpp adds its ids here)
  tr_demo_coref, tr_demo_induction, tr_demo, tr_demo_tip, tr_seed, tr_seed_tip, tr_heads, tr_heads_tip,
  tr_d_model_tip, tr_max_steps, tr_max_steps_tip, tr_report_every, tr_report_every_tip, tr_defaults, tr_defaults_tip,
  tr_start, tr_start_tip, tr_resume, tr_pause, tr_stop, tr_stop_tip, tr_reset, tr_reset_tip, tr_in_views,
  tr_use_in_views, tr_use_tip, tr_save, tr_save_hint, tr_step_of, tr_speed, tr_elapsed, tr_loss_value,
  tr_heldout_value, tr_start_failed, tr_save_failed, tr_saved, tr_loss_curve, tr_step_axis, tr_loss,
  tr_accuracy_curve, tr_heldout, tr_target, tr_answer, tr_right, tr_wrong, tr_probe_error, tr_probe_wait,
  tr_probe_none, tr_probe_title, tr_induction_hint, tr_no_candidates, tr_status_error, tr_status_paused,
  tr_status_starting, tr_status_running, tr_status_reached, tr_status_finished, tr_status_stopped, tr_status_idle,
  tr_tab_run, tr_tab_pair, tr_head_short, tr_pair_progress, tr_pair_rows, tr_pair_explain, tr_pair_start,
  tr_pair_start_tip, tr_pair_same, tr_pair_none, tr_pair_n_heads, tr_pair_one_head, tr_pair_sentence,
  tr_pair_sentence_default, tr_legend_candidates, tr_legend_property, tr_save_button,
  // @detectors (panel_stats.cpp adds its ids here)
  dt_section, dt_table_section, dt_hint, dt_random_note,
  dt_name_previous, dt_name_first, dt_name_duplicate, dt_name_induction, dt_name_coref,
  dt_def_previous, dt_def_first, dt_def_duplicate, dt_def_induction, dt_def_coref,
  dt_not_defined, dt_why_cross, dt_why_short, dt_why_no_repeat, dt_why_no_spaced_repeat, dt_why_coref,
  dt_why_masked, dt_mean_over, dt_coref_target, dt_coref_short, dt_best, dt_score, dt_click_hint,
  // @checkpoints (panel_model.cpp, panel_sentence.cpp: Hugging Face checkpoints)
  ck_loading, ck_recent, ck_tokenizer, ck_sentence_b, ck_piece, ck_sentence_b_short, ck_continues,
  ck_causal_model, ck_pair_note, ck_loading_short,
  // @long inputs (panel_heads.cpp: zoom and pan)
  lz_fit, lz_window, lz_hint_short,
  fm_rows,
  count_
};

const char* tr(Lang lang, Str id);

}  // namespace attnviz
