// The top of the Coreference view: the sentence as coloured chips, the pronoun, candidates and
// property word, the rule's referent and the model's answer (or why the sentence cannot be used),
// and the small chip / verdict / probability helpers the view's other files share. Reads the
// CorefSide cache only; sets app.sentence or the model source when a button asks.
#include <cstdio>
#include <string>

#include <imgui.h>

#include "shell/fonts.h"
#include "shell/shell.h"
#include "state/answer_text.h"
#include "state/app_state.h"
#include "state/model_source.h"
#include "views/coref/coref_parts.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

constexpr const char* kExample = "The animal didn't cross the street because it was too tired.";

float chip_width(const char* text) { return ImGui::CalcTextSize(text).x + ImGui::GetStyle().FramePadding.x * 2; }

}  // namespace

// ---- small drawing helpers -----------------------------------------------------------------


ImU32 coref_role_color(const CorefExample& e, int token) {
  if (token < 0) return 0;
  if (token == e.pronoun) return kCorefColPronoun;
  if (token == e.candidate_a) return kCorefColA;
  if (token == e.candidate_b) return kCorefColB;
  if (token == e.property) return kCorefColProperty;
  return 0;
}

// A rounded token chip at the cursor, one frame high, as one item; fill 0: the frame colour.
void coref_chip(const char* text, ImU32 fill) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const ImVec2 ts = ImGui::CalcTextSize(text);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 size(ts.x + st.FramePadding.x * 2, ImGui::GetFrameHeight());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 bg = fill ? fill : ImGui::GetColorU32(ImGuiCol_FrameBg);
  dl->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), bg, size.y * 0.3f);
  dl->AddText(ImVec2(p.x + st.FramePadding.x, p.y + st.FramePadding.y),
              fill ? contrast_text_color(fill) : ImGui::GetColorU32(ImGuiCol_Text), text);
  ImGui::Dummy(size);
}

const char* coref_token_text(const CorefExample& e, int i) {
  return i >= 0 && i < static_cast<int>(e.tokens.size()) ? e.tokens[static_cast<size_t>(i)].text.c_str() : "";
}

// The whole sentence as chips, wrapping at the window edge.
void coref_sentence_chips(const CorefExample& e) {
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  const float gap = ImGui::GetStyle().ItemSpacing.x * 0.5f;
  for (int i = 0; i < static_cast<int>(e.tokens.size()); ++i) {
    const char* text = coref_token_text(e, i);
    if (i > 0) {
      ImGui::SameLine(0, gap);
      if (ImGui::GetCursorScreenPos().x + chip_width(text) > right) ImGui::NewLine();
    }
    coref_chip(text, coref_role_color(e, i));
  }
}

// A tick drawn with lines: the font has no glyph for ✓.
void coref_draw_check(ImDrawList* dl, ImVec2 p, float size, ImU32 color, float thick) {
  const ImVec2 pts[3] = {ImVec2(p.x + size * 0.12f, p.y + size * 0.52f), ImVec2(p.x + size * 0.4f, p.y + size * 0.8f),
                         ImVec2(p.x + size * 0.9f, p.y + size * 0.2f)};
  dl->AddPolyline(pts, 3, color, 0, thick);
}

// "✓ correct" / "× wrong" on the current line, aligned with framed items.
void coref_verdict(const AppState& app, bool right) {
  const ImU32 col = right ? kCorefColResolves : IM_COL32(255, 110, 100, 255);
  const float h = ImGui::GetTextLineHeight();
  ImGui::AlignTextToFramePadding();
  if (right) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    coref_draw_check(ImGui::GetWindowDrawList(), ImVec2(p.x, p.y + ImGui::GetStyle().FramePadding.y), h, col,
                     2.0f * ui_scale());
    ImGui::Dummy(ImVec2(h, ImGui::GetFrameHeight()));
  } else {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col), "×");
  }
  ImGui::SameLine(0, h * 0.3f);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col), "%s", tr(app.lang, right ? Str::co_correct : Str::co_wrong));
}

// "p = 97.3%" (the demo is often surer than one decimal can show); the exact value on hover.
void coref_probability_text(const AppState& app, const CorefPrediction& answer) {
  const double p = static_cast<double>(answer.probability) * 100.0;
  ImGui::AlignTextToFramePadding();
  if (p >= 99.95) ImGui::TextUnformatted("p > 99.9%");
  else ImGui::Text("p = %.1f%%", p);
  if (!ImGui::IsItemHovered()) return;
  char exact[32];
  std::snprintf(exact, sizeof exact, "%.6g", p);
  std::string text = tr(app.lang, Str::co_answer_prob);
  if (const size_t at = text.find("%.1f"); at != std::string::npos) text.replace(at, 4, exact);  // full precision
  ImGui::SetTooltip(text.c_str(), answer.referent_text.c_str());
}

std::string coref_head_name(const AppState& app, int layer, int head) {
  return std::string(tr(app.lang, Str::layer)) + " " + std::to_string(layer + 1) + " · " + tr(app.lang, Str::head) +
         " " + std::to_string(head + 1);
}

// ---- the sentence and the answer -----------------------------------------------------------

namespace {

// A label and its chips on the current line, moved to the next line when `chips_w` would not fit.
void fact_group(const char* label, float chips_w, bool first) {
  const float label_w = ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemSpacing.x;
  if (!first) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    if (ImGui::GetContentRegionAvail().x < label_w + chips_w) ImGui::NewLine();
  }
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine();
}

void answer_group(AppState& app, const CorefSide& a) {
  const Lang L = app.lang;
  if (app.source == ModelSource::sandbox || !app.model) {
    fact_group(tr(L, Str::co_answer), ImGui::GetContentRegionAvail().x * 0.6f, false);
    text_wrapped(tr(L, Str::co_sandbox));
    if (ImGui::Button(tr(L, Str::co_use_demo))) (void)app_use_source(app, ModelSource::demo_coref);  // failures: Model panel
    return;
  }
  if (!a.answer) {
    fact_group(tr(L, Str::co_answer), ImGui::GetContentRegionAvail().x * 0.6f, false);
    if (a.answer_error) text_wrapped(tr_format(L, Str::co_no_answer, no_answer_text(*a.answer_error, L).c_str()));
    return;
  }
  const CorefPrediction& p = *a.answer;
  fact_group(tr(L, Str::co_answer), chip_width(p.referent_text.c_str()) + ImGui::GetFontSize() * 12, false);
  coref_chip(p.referent_text.c_str(), coref_role_color(a.example, p.referent));
  ImGui::SameLine();
  coref_probability_text(app, p);
  if (a.example.referent >= 0) {
    ImGui::SameLine();
    coref_verdict(app, p.referent == a.example.referent);
  }
}

}  // namespace

// Pronoun, candidates and property word on one line; the rule's referent and the answer on the next.
void coref_facts(AppState& app, const CorefSide& a) {
  const Lang L = app.lang;
  const CorefExample& e = a.example;
  const float sp = ImGui::GetStyle().ItemSpacing.x;
  const char* it = coref_token_text(e, e.pronoun);
  const char* ca = coref_token_text(e, e.candidate_a);
  const char* cb = coref_token_text(e, e.candidate_b);
  fact_group(tr(L, Str::co_pronoun), chip_width(it), true);
  coref_chip(it, kCorefColPronoun);
  fact_group(tr(L, Str::co_candidates), chip_width(ca) + sp + chip_width(cb), false);
  coref_chip(ca, kCorefColA);
  ImGui::SameLine();
  coref_chip(cb, kCorefColB);
  if (e.property >= 0) {
    fact_group(tr(L, Str::co_property), chip_width(coref_token_text(e, e.property)), false);
    coref_chip(coref_token_text(e, e.property), kCorefColProperty);
  } else {
    fact_group(tr(L, Str::co_property), ImGui::CalcTextSize(tr(L, Str::co_none)).x, false);
    ImGui::TextDisabled("%s", tr(L, Str::co_none));
  }
  if (e.referent >= 0) {
    fact_group(tr(L, Str::co_rule), chip_width(coref_token_text(e, e.referent)), true);
    coref_chip(coref_token_text(e, e.referent), coref_role_color(e, e.referent));
  } else {
    fact_group(tr(L, Str::co_rule), ImGui::CalcTextSize(tr(L, Str::co_rule_unknown)).x, true);
    ImGui::TextDisabled("%s", tr(L, Str::co_rule_unknown));
  }
  answer_group(app, a);
}

// Why the view has nothing to show for sentence A; false when it does.
bool coref_explain_unfit(AppState& app, const CorefSide& a) {
  const Lang L = app.lang;
  const CorefExample& e = a.example;
  if (a.fits) return false;
  auto example_button = [&] {
    ImGui::Spacing();
    coref_chip(kExample, 0);
    ImGui::SameLine();
    if (ImGui::Button(tr(L, Str::co_use_example))) {
      app.sentence = kExample;
      app.dirty = true;
    }
  };
  ImGui::PushTextWrapPos(0.0f);
  if (app.cross) {
    ImGui::TextUnformatted(tr(L, Str::co_cross));
  } else if (e.tokens.empty()) {
    ImGui::TextUnformatted(tr(L, Str::co_empty));
    example_button();
  } else if (e.pronoun < 0 || e.candidate_a < 0 || e.candidate_b < 0) {
    if (e.pronoun < 0) ImGui::TextUnformatted(tr(L, Str::co_no_it));
    else ImGui::Text(tr(L, Str::co_few_nouns), (e.candidate_a >= 0) + (e.candidate_b >= 0));
    ImGui::Spacing();
    ImGui::TextDisabled("%s", tr(L, Str::co_vocab_hint));
    example_button();
  } else {
    // The sentence fits but the trace is of an earlier one: the engine has not answered yet.
    ImGui::TextDisabled("%s", app_computing(app) || app.error.empty() ? tr(L, Str::computing) : app.error.c_str());
  }
  ImGui::PopTextWrapPos();
  return true;
}

}  // namespace attnviz
