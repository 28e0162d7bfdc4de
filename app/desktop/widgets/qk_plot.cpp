#include "widgets/qk_plot.h"

#include <string>

#include "analysis/qk_projection.h"
#include "state/explain_layout.h"
#include "widgets/draw.h"
#include "widgets/data_export_button.h"

namespace attnviz {

void qk_plot(AppState& app, const Trace& t, int layer, int head, ImVec2 size) {
  const Lang L = app.lang;
  ImGui::BeginChild("qk_plot", size, false);
  const Result<QKProjection>& p = app.heads.qk.get(t, app.trace_version, layer, head);
  if (!p) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr_format(L, Str::qk_none, p.error().c_str()).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
    return;
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(tr_format(L, Str::qk_title, 100.0 * p->explained[0], 100.0 * p->explained[1]).c_str());
  ImGui::TextDisabled("%s", tr(L, Str::qk_hint));
  ImGui::PopTextWrapPos();
  data_export_button(app, DataPanel::qk);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(80.0f, std::min(avail.x, avail.y) - 8.0f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = origin, p1(origin.x + side, origin.y + side);
  dl->AddRectFilled(p0, p1, IM_COL32(20, 22, 28, 255));
  dl->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border));
  const QKGeometry geo = qk_geometry(*p, p0.x, p0.y, side);
  const auto at = [&](const Mat& m, Eigen::Index i) {
    const PlotPoint pt = geo.at(m, i);
    return ImVec2(pt.x, pt.y);
  };
  const ImU32 query_col = rgba_u32(kQueryColor), key_col = rgba_u32(kKeyColor);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const int q = app.query >= 0 && app.query < t.n_queries() ? app.query : -1;
  const std::shared_ptr<const Mat> map = app_head_weights(app, t, layer, head);
  const Mat& w = *map;
  for (int k : strongest_keys(w, q, 3))  // the chosen query's three strongest keys
    dl->AddLine(at(p->queries, q), at(p->keys, k), IM_COL32(255, 255, 255, static_cast<int>(80 + 175 * w(q, k))), 1.0f + 3.0f * w(q, k));
  const float r = 4.0f * ImGui::GetFontSize() / 16.0f;
  for (Eigen::Index i = 0; i < p->keys.rows(); ++i) {
    const ImVec2 c = at(p->keys, i);
    dl->AddRectFilled(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), key_col);
    dl->AddText(ImVec2(c.x + r + 2, c.y - ImGui::GetFontSize() * 0.5f), dim, t.keys[static_cast<size_t>(i)].text.c_str());
  }
  for (Eigen::Index i = 0; i < p->queries.rows(); ++i) {
    const ImVec2 c = at(p->queries, i);
    const bool chosen = i == q;
    dl->AddCircleFilled(c, chosen ? r * 1.6f : r, query_col);
    if (chosen) dl->AddCircle(c, r * 2.2f, IM_COL32(255, 255, 255, 255), 0, 2.0f);
    dl->AddText(ImVec2(c.x + (chosen ? r * 2.2f : r) + 2, c.y - ImGui::GetFontSize() * 0.5f), chosen ? IM_COL32(255, 255, 255, 255) : query_col,
                t.queries[static_cast<size_t>(i)].text.c_str());
  }
  ImGui::Dummy(ImVec2(side, side));
  ImGui::EndChild();
}

}  // namespace attnviz
