// The Sentence panel: the text (recomputed as you type), the source sentence for cross-attention,
// the preset menu, and the tokens as chips (click one to highlight its row in every head).
#include <algorithm>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "shell/panels.h"
#include "widgets/draw.h"
#include "widgets/sentence_box.h"

namespace attnviz {

namespace {

void preset_menu(AppState& app) {
  if (app.presets.empty()) {
    if (!app.presets_error.empty()) ImGui::TextDisabled("%s", app.presets_error.c_str());
    return;
  }
  const char* label = tr(app.lang, Str::menu_presets);
  if (ImGui::BeginCombo(label, nullptr, ImGuiComboFlags_NoPreview)) {
    for (const Preset& p : app.presets) {
      const std::string& name = app.lang == Lang::ko ? p.name_ko : p.name_en;
      if (ImGui::Selectable(name.c_str())) app_apply_preset(app, p);  // a failure is in model_error
    }
    ImGui::EndCombo();
  }
}

// Index and text; for a checkpoint's token also its vocabulary piece and id, its sentence, and
// whether it continues a word.
void chip_tooltip(Lang L, size_t i, const TraceToken& t) {
  std::string tip = "#" + std::to_string(i) + " " + t.text;
  if (!t.in_vocab) tip += "  · " + std::string(tr(L, Str::out_of_vocab));
  if (t.id >= 0) {
    tip += "\n" + std::string(tr(L, Str::ck_piece)) + " \"" + t.piece + "\" · id " + std::to_string(t.id);
    if (t.segment == 1) tip += " · " + std::string(tr(L, Str::ck_sentence_b_short));
    if (t.continues) tip += "\n" + std::string(tr(L, Str::ck_continues));
  } else if (!t.piece.empty() && t.piece != t.text) {  // an attention file's token, as saved
    tip += "\n" + std::string(tr(L, Str::ck_piece)) + " \"" + t.piece + "\"";
  }
  ImGui::SetTooltip("%s", tip.c_str());
}

void token_chips(AppState& app, const std::vector<TraceToken>& tokens, bool clickable) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const TraceToken& t = tokens[i];
    const std::string label = t.text + (t.in_vocab ? "" : "*") + "##chip" + std::to_string(i) + (clickable ? "q" : "k");
    const float w = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + style.FramePadding.x * 2;
    // A subword that continues its word sits closer to it, so words read as groups of chips.
    const float gap = t.continues ? 1.0f : style.ItemSpacing.x;
    if (i > 0 && ImGui::GetItemRectMax().x + gap + w < right) ImGui::SameLine(0, gap);
    const bool selected = clickable && app.query == static_cast<int>(i);
    int colors = 0;
    if (t.pad) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.25f, 0.25f, 0.25f, 1));
      ++colors;
    } else if (!t.in_vocab) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.55f, 0.2f, 0.2f, 1));
      ++colors;
    } else if (selected) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.85f, 0.55f, 0.1f, 1));
      ++colors;
    } else if (t.segment == 1) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.16f, 0.46f, 0.30f, 1));
      ++colors;
    }
    if (ImGui::SmallButton(label.c_str()) && clickable) app.query = selected ? -1 : static_cast<int>(i);
    if (ImGui::IsItemHovered()) chip_tooltip(app.lang, i, t);
    ImGui::PopStyleColor(colors);
  }
}

// A trained model reads words outside its vocabulary as [UNK]: say how many, and where to look.
void unknown_words_note(const AppState& app, const std::vector<TraceToken>& tokens) {
  int unknown = 0;
  for (const TraceToken& t : tokens) unknown += t.in_vocab ? 0 : 1;
  if (unknown == 0) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.6f, 0.5f, 1));
  text_wrapped(tr_format(app.lang, Str::vocab_unk_count, unknown, static_cast<int>(tokens.size())));
  ImGui::PopStyleColor();
}

}  // namespace

namespace {

// Generate: a number of tokens and the button; then a slider over the generated positions, which
// picks the query row every view shows.
void generate_controls(AppState& app) {
  if (!app_can_generate(app)) return;
  const Lang L = app.lang;
  GenerationState& g = app.generation;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::InputInt("##gen_count", &g.count, 1, 8)) g.count = std::clamp(g.count, 1, 256);
  ImGui::SameLine();
  const bool running = g.remaining > 0;
  if (running) ImGui::BeginDisabled();
  if (ImGui::Button(tr(L, Str::gen_button))) (void)app_generate(app, g.count);
  if (running) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr(L, Str::gen_tip));
  if (running) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr_format(L, Str::gen_running, g.remaining).c_str());
  }
  const int n = app_generated_tokens(app);
  if (n < 1) return;
  int k = app.query >= g.prompt_tokens ? app.query - g.prompt_tokens + 1 : n;
  k = std::clamp(k, 1, n);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderInt("##gen_slider", &k, 1, n, tr_format(L, Str::gen_slider, k, n).c_str())) app.query = g.prompt_tokens + k - 1;
}

}  // namespace

// "merge pieces into words" and "hide special tokens": only where the tokens are a checkpoint
// tokenizer's pieces (the sandbox's words are already words, and have no special tokens).
void word_toggles(AppState& app) {
  const auto& q = app.trace->queries;
  if (app.trace->weights_only || std::none_of(q.begin(), q.end(), [](const TraceToken& t) { return t.id >= 0; })) return;
  const Lang L = app.lang;
  ImGui::Checkbox(tr(L, Str::words_merge), &app.word_view.merge_pieces);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::words_merge_tip));
  ImGui::Checkbox(tr(L, Str::words_hide_special), &app.word_view.hide_special);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::words_hide_special_tip));
  if (app.word_view.any() && app.measure != AttentionMeasure::weights) ImGui::TextDisabled("%s", tr(L, Str::words_measure_note));
  if (!app.words.error.empty()) text_wrapped(tr_format(L, Str::words_cannot, app.words.error.c_str()));
}

namespace {

// A sentence box; `field` names it for the script's `focus`.
void typed_box(AppState& app, const char* field, const char* id, std::string& text, float lines) {
  if (app.focus_field == field) {
    ImGui::SetKeyboardFocusHere();
    app.focus_field.clear();
  }
  if (sentence_box(id, text, ImVec2(-1, ImGui::GetTextLineHeight() * lines), &app.hangul)) app.dirty = true;
}

// "가" at the end of the Sentence label's line: the built-in Korean typing, lit while on.
void hangul_toggle(AppState& app) {
  const char* label = "가";
  const float w = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - w);
  const bool on = app.hangul.on;
  if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetColorU32(ImGuiCol_ButtonActive));
  if (ImGui::SmallButton(label)) app.hangul.on = !app.hangul.on;
  if (on) ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr(app.lang, app.hangul.on ? Str::hangul_typing_on : Str::hangul_typing_off));
}

}  // namespace

void panel_sentence(AppState& app) {
  // "###" keeps the window's id (and its scroll) when the language changes the title.
  const std::string title = std::string(tr(app.lang, Str::panel_sentence)) + "###panel_sentence";
  if (!ImGui::Begin(title.c_str(), nullptr, kPanelWindowFlags)) {
    ImGui::End();
    return;
  }
  const bool from_file = app.source == ModelSource::attention;  // tokens and weights from a file: nothing to type
  if (from_file) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped(tr(app.lang, Str::attn_tokens_note));
    ImGui::PopStyleColor();
    if (app.attention && app.attention->cross_trace && ImGui::Checkbox(tr(app.lang, Str::attn_show_cross), &app.cross))
      app.dirty = true;
  } else {
    preset_menu(app);
    ImGui::SameLine();
    if (ImGui::Checkbox(tr(app.lang, Str::cross_attention), &app.cross)) app.dirty = true;
  }
  if (!from_file && app.cross) {
    ImGui::TextUnformatted(tr(app.lang, Str::source_sentence));
    typed_box(app, "source", "##source", app.source_sentence, 3);
  }
  if (!from_file) {
    ImGui::TextUnformatted(tr(app.lang, Str::sentence));
    hangul_toggle(app);
    typed_box(app, "sentence", "##sentence", app.sentence, 3.5f);
  }
  if (app_reads_pairs(app)) {
    text_wrapped(tr(app.lang, Str::ck_sentence_b));
    typed_box(app, "sentence_b", "##sentence_b", app.sentence_b, 2.2f);
  }
  if (!app.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1));
    text_wrapped(app.trace ? app.error + " " + tr(app.lang, Str::error_kept) : app.error);
    ImGui::PopStyleColor();
  }
  if (app.trace) {
    ImGui::Separator();
    ImGui::Text("%s (%d)%s", tr(app.lang, Str::tokens), app.trace->n_queries(), app_computing(app) ? "  …" : "");
    word_toggles(app);  // above the chips: a long sentence's chips would push them out of sight
    token_chips(app, app.trace->queries, true);
    unknown_words_note(app, app.trace->queries);
    if (!app.trace->queries.empty() && app.trace->queries.back().segment == 1)
      ImGui::TextDisabled("%s", tr(app.lang, Str::ck_pair_note));
    generate_controls(app);
    if (app.trace->cross) {
      ImGui::Separator();
      ImGui::Text("%s (%d)", tr(app.lang, Str::source_sentence), app.trace->n_keys());
      token_chips(app, app.trace->keys, false);
    }
  }
  ImGui::End();
}

}  // namespace attnviz
