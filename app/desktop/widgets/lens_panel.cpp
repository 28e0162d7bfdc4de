#include "widgets/lens_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "widgets/draw.h"
#include "widgets/value_grid.h"
#include "widgets/data_export_button.h"

namespace attnviz {

namespace {

std::string pushes(const std::vector<TokenPush>& list) {
  std::string out;
  char buf[32];
  for (const TokenPush& p : list) {
    std::snprintf(buf, sizeof buf, " %+.2f", static_cast<double>(p.logit));
    out += (out.empty() ? "" : ",  ") + p.text + buf;
  }
  return out;
}

void lens_table(AppState& app, const LensResult& s) {
  const Lang L = app.lang;
  const std::string token = app.trace->queries[static_cast<size_t>(s.position)].text;
  ImGui::TextUnformatted(tr_format(L, Str::lens_at, s.position, token.c_str()).c_str());
  ImGui::SameLine();
  data_export_button(app, DataPanel::lens);
  if (!ImGui::BeginTable("lens", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV)) return;
  for (const LensRow& row : s.rows) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    if (row.after_layer < 0) ImGui::TextDisabled("%s", tr(L, Str::lens_embeddings));
    else ImGui::TextDisabled("%s", tr_format(L, Str::lens_after, row.after_layer + 1).c_str());
    for (size_t i = 0; i < row.top.size() && i < 5; ++i) {
      ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
      const TokenScore& t = row.top[i];
      // The likeliest token bright, its probability beside it.
      if (i == 0) ImGui::Text("%s %.2f", t.text.c_str(), static_cast<double>(t.p));
      else ImGui::TextDisabled("%s %.2f", t.text.c_str(), static_cast<double>(t.p));
    }
  }
  ImGui::EndTable();
}

void attribution_grid(AppState& app, const LogitAttribution& a) {
  const Lang L = app.lang;
  const LensState& s = app.lens;
  const Model& m = *app.trace_model;
  const std::string answer = answer_token_text(m, a.answer_id), wrong = answer_token_text(m, a.wrong_id);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(tr_format(L, Str::lens_attr_title, answer.c_str(), wrong.c_str(), static_cast<double>(a.total),
                                   static_cast<double>(a.logit_diff))
                             .c_str());
  ImGui::PopTextWrapPos();
  data_export_button(app, DataPanel::attribution);
  float top = 1e-6f;
  for (const auto& row : a.heads)
    for (float v : row) top = std::max(top, std::abs(v));
  ValueGrid g;
  g.id = "attribution_grid";
  g.diverging = true;
  g.selected_row = s.cell_layer;
  g.selected_column = s.cell_head;
  float best = -1e30f;
  for (size_t l = 0; l < a.heads.size(); ++l) {
    std::vector<float> row;
    for (size_t h = 0; h < a.heads[l].size(); ++h) {
      const float v = a.heads[l][h];
      row.push_back(v / top);
      g.texts.push_back(grid_value_text(v, 2));
      g.marks.push_back("");
      if (v > best) {
        best = v;
        g.best_row = static_cast<int>(l);
        g.best_column = static_cast<int>(h);
      }
    }
    g.values.push_back(std::move(row));
  }
  const ValueGridHit hit = value_grid(L, g);
  if (hit.clicked) lens_choose_head(app, hit.row, hit.column);
  if (hit.row >= 0 && !hit.clicked)
    ImGui::SetTooltip("%s", tr_format(L, Str::lens_attr_tip, hit.row + 1, hit.column + 1,
                                      static_cast<double>(a.heads[static_cast<size_t>(hit.row)][static_cast<size_t>(hit.column)]))
                                .c_str());
  std::string mlps;
  char buf[24];
  for (float v : a.mlps) {
    std::snprintf(buf, sizeof buf, "%s%.3f", mlps.empty() ? "" : " ", static_cast<double>(v));
    mlps += buf;
  }
  ImGui::TextDisabled("%s", tr_format(L, Str::lens_attr_rest, mlps.c_str(), static_cast<double>(a.embeddings),
                                      static_cast<double>(a.biases))
                                .c_str());
  if (const HeadWrite* w = lens_head_write(app)) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(tr_format(L, Str::lens_write, s.cell_layer + 1, s.cell_head + 1, s.write_key.position, pushes(w->promoted).c_str()).c_str());
    ImGui::TextDisabled("%s", tr_format(L, Str::lens_write_down, pushes(w->suppressed).c_str()).c_str());
    ImGui::PopTextWrapPos();
  } else if (!s.write_error.empty() && s.write_key.position == lens_position(app)) {
    ImGui::TextDisabled("%s", s.write_error.c_str());
  }
}

}  // namespace

void lens_panel(AppState& app) {
  if (!app.trace || !app.trace_model || app.trace->weights_only || app.trace->cross) return;
  if (model_output_head(*app.trace_model) == OutputHead::none) return;
  const Lang L = app.lang;
  lens_refresh(app);
  section_header(tr(L, Str::lens_title));
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", tr(L, Str::lens_explain));
  ImGui::PopTextWrapPos();
  const LensResult* s = lens_current(app);
  if (!s) {  // off the UI thread: a large vocabulary takes a moment
    ImGui::TextDisabled("%s", tr(L, Str::computing));
    return;
  }
  if (!s->rows.empty()) lens_table(app, *s);
  else if (!s->rows_error.empty()) ImGui::TextDisabled("%s", s->rows_error.c_str());
  if (s->attribution) attribution_grid(app, *s->attribution);
  else if (!s->attribution_error.empty() && app.trace->causal) {  // a model that does not predict a next token has none to attribute
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr_format(L, Str::lens_no_attr, s->attribution_error.c_str()).c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace attnviz
