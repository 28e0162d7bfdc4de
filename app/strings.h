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
  // @model_view (panel_model_view.cpp adds its ids here)
  // @lines (panel_lines.cpp adds its ids here)
  // @compare (panel_compare.cpp adds its ids here)
  // @steps (panel_steps.cpp adds its ids here)
  // @stats (panel_stats.cpp adds its ids here)
  count_
};

const char* tr(Lang lang, Str id);

}  // namespace attnviz
