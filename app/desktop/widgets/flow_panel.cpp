#include "widgets/flow_panel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "state/explain_layout.h"
#include "widgets/draw.h"
#include "widgets/data_export_button.h"

namespace attnviz {

namespace {

// The distance from p to the segment a–b, in pixels.
float segment_distance(ImVec2 p, ImVec2 a, ImVec2 b) {
  const float dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
  const float t = len2 > 0 ? std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / len2, 0.0f, 1.0f) : 0.0f;
  const float x = a.x + t * dx - p.x, y = a.y + t * dy - p.y;
  return std::sqrt(x * x + y * y);
}

}  // namespace

void flow_panel(AppState& app) {
  if (!app.trace || !app.trace_model || app.trace->weights_only || app.trace->cross) return;
  const Lang L = app.lang;
  FlowState& s = app.flow;
  flow_refresh(app);
  const Trace& t = *app.trace;
  const int target_at = lens_position(app);
  const std::string target = target_at >= 0 ? t.queries[static_cast<size_t>(target_at)].text : "";
  section_header(tr_format(L, Str::flow_title, target_at, target.c_str()).c_str());
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", tr(L, Str::flow_explain));
  ImGui::PopTextWrapPos();
  if (model_output_head(*app.trace_model) != OutputHead::none) {  // attribution reads the logits
    int weight = s.weight == FlowWeight::value_norm ? 0 : 1;
    ImGui::RadioButton(tr(L, Str::flow_weight_norm), &weight, 0);
    ImGui::SameLine();
    ImGui::RadioButton(tr(L, Str::flow_weight_attr), &weight, 1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::flow_weight_attr_tip));
    s.weight = weight == 0 ? FlowWeight::value_norm : FlowWeight::attribution;
    flow_refresh(app);
  }
  ImGui::SetNextItemWidth(220.0f * ImGui::GetFontSize() / 16.0f);
  ImGui::SliderFloat(tr(L, Str::flow_threshold), &s.threshold, 0.02f, 0.9f, "%.2f");
  const FlowShown* shown = flow_current(app);
  if (!shown) {  // off the UI thread: every head's value norms take a moment for a large model
    ImGui::TextDisabled("%s", tr(L, Str::computing));
    return;
  }
  if (!shown->graph) {
    if (!shown->error.empty()) ImGui::TextDisabled("%s", shown->error.c_str());
    return;
  }
  const FlowGraph& g = *shown->graph;
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr_format(L, Str::flow_edges, static_cast<int>(g.edges.size())).c_str());
  ImGui::SameLine();
  data_export_button(app, DataPanel::flow);
  const int NL = static_cast<int>(t.layers.size()), T = t.n_queries(), NH = t.config.n_heads;
  float label_w = 0;
  for (const TraceToken& tok : t.queries) label_w = std::max(label_w, ImGui::CalcTextSize(tok.text.c_str()).x);
  label_w += 12;
  const float row_h = ImGui::GetTextLineHeightWithSpacing(), head_h = ImGui::GetTextLineHeightWithSpacing();
  const float width = std::max(300.0f, ImGui::GetContentRegionAvail().x - 8), height = head_h + T * row_h + 8;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const FlowGeometry geo = flow_geometry(origin.x, origin.y, width, label_w, row_h, head_h, NL);
  const auto node = [&](int column, int pos) {
    const PlotPoint p = geo.node(column, pos);
    return ImVec2(p.x, p.y);
  };
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled), text = ImGui::GetColorU32(ImGuiCol_Text);
  for (int c = 0; c <= NL; ++c) {
    const std::string label = c < NL ? tr_format(L, Str::flow_before, c + 1) : tr_format(L, Str::flow_after, NL);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(node(c, 0).x - tw * 0.5f, origin.y), dim, label.c_str());
  }
  for (int p = 0; p < T; ++p) {
    const ImVec2 a = node(0, p);
    const char* label = t.queries[static_cast<size_t>(p)].text.c_str();
    dl->AddText(ImVec2(origin.x + label_w - 8 - ImGui::CalcTextSize(label).x, a.y - ImGui::GetTextLineHeight() * 0.5f),
                p == g.target ? IM_COL32(255, 200, 60, 255) : text, label);
    for (int c = 0; c < NL; ++c)  // the residual stream of a reached token
      if (g.reached[static_cast<size_t>(c + 1)][static_cast<size_t>(p)])
        dl->AddLine(node(c, p), node(c + 1, p), IM_COL32(120, 120, 130, 120), 1.0f);
  }
  // Edges, coloured by head; the hovered one drawn last, brighter.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  float best = 6.0f;
  for (size_t k = 0; k < g.edges.size(); ++k) {
    const FlowEdge& e = g.edges[k];
    const ImVec2 a = node(e.layer, e.from), b = node(e.layer + 1, e.to);
    dl->AddLine(a, b, rgba_u32(flow_edge_color(e, NH)), flow_edge_width(e.share));
    const float d = segment_distance(mouse, a, b);
    if (ImGui::IsWindowHovered() && d < best) {
      best = d;
      hovered = static_cast<int>(k);
    }
  }
  for (int c = 0; c <= NL; ++c)
    for (int p = 0; p < T; ++p)
      if (g.reached[static_cast<size_t>(c)][static_cast<size_t>(p)]) dl->AddCircleFilled(node(c, p), 3.5f, text);
  if (hovered >= 0) {
    const FlowEdge& e = g.edges[static_cast<size_t>(hovered)];
    dl->AddLine(node(e.layer, e.from), node(e.layer + 1, e.to), IM_COL32(255, 255, 255, 255), 1.0f + flow_edge_width(e.share));
    const char* from = t.queries[static_cast<size_t>(e.from)].text.c_str();
    const char* to = t.queries[static_cast<size_t>(e.to)].text.c_str();
    if (e.weight == FlowWeight::attribution) {
      const Model& m = *app.trace_model;
      ImGui::SetTooltip("%s", tr_format(L, Str::flow_attr_edge_tip, e.layer + 1, e.head + 1, from, e.from, to, e.to, static_cast<double>(e.share),
                                        answer_token_text(m, g.answer_id).c_str(), answer_token_text(m, g.wrong_id).c_str())
                                  .c_str());
    } else {
      ImGui::SetTooltip("%s", tr_format(L, Str::flow_edge_tip, e.layer + 1, e.head + 1, from, e.from, to, e.to, static_cast<double>(e.share), e.to).c_str());
    }
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      app.layer = e.layer;
      app.head = e.head;
      app.query = e.to;
      app.view = View::heads;
    }
  }
  ImGui::Dummy(ImVec2(width, height));
}

}  // namespace attnviz
