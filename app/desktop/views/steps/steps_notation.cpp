// The seeds write n, d_model, h, d_k = d_v = d_model / h, W^Q_i, W^K_i, W^V_i and W^O; the lecture's
// first version wrote T, C, NH and HS. One table maps them, with this model's sizes.
#include <string>

#include <imgui.h>

#include "views/steps/steps_body.h"
#include "views/steps/steps_draw.h"
#include "widgets/formula.h"

namespace attnviz {

namespace {

struct NotationRow {
  const char* symbol;  // formula markup
  Str meaning;
  const char* older;   // the letters the lecture used before, or ""
  std::string value;   // this model's size or shape
};

}  // namespace

void steps_notation(StepsView& v) {
  const Lang L = v.app.lang;
  const ModelConfig& c = v.t.config;
  const int n = v.t.n_queries(), d = c.d_model, h = c.n_heads, dk = c.head_size();
  const auto times = [](int a, int b) { return std::to_string(a) + " × " + std::to_string(b); };
  const NotationRow rows[] = {
      {"n", Str::nt_n, "T", std::to_string(n)},
      {"d_{model}", Str::nt_d_model, "C", std::to_string(d)},
      {"h", Str::nt_h, "NH", std::to_string(h)},
      {"d_k = d_v = \\frac{d_{model}}{h}", Str::nt_d_k, "HS", std::to_string(dk)},
      {"X", Str::nt_x, "", times(n, d)},
      {"W^Q_i,\\, W^K_i,\\, W^V_i", Str::nt_w_qkv, "W_Q, W_K, W_V", "d_{model} × d_k = " + times(d, dk)},
      {"Q_i,\\, K_i,\\, V_i", Str::nt_qkv, "Q, K, V", "n × d_k = " + times(n, dk)},
      {"A_i", Str::nt_a, "W", times(n, n)},
      {"head_i", Str::nt_head, "O", "n × d_v = " + times(n, dk)},
      {"W^O", Str::nt_w_o, "W_O", "h·d_v × d_{model} = " + times(h * dk, d)},
  };
  const float px = ImGui::GetFontSize() * 1.15f;
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text), accent = kStepsAccent;
  if (!ImGui::BeginTable("notation", 4, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn(tr(L, Str::nt_symbol));
  ImGui::TableSetupColumn(tr(L, Str::nt_meaning), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(tr(L, Str::nt_older));
  ImGui::TableSetupColumn(tr(L, Str::nt_this_model));
  ImGui::TableHeadersRow();
  for (const NotationRow& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    formula_item(r.symbol, px, accent, false);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", tr(L, r.meaning));
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", r.older);
    ImGui::TableNextColumn();
    formula_item(r.value, px, ink, false);
  }
  ImGui::EndTable();
}

}  // namespace attnviz
