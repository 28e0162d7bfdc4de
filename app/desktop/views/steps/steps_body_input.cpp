// Steps 1–3 of the lecture (the input X, the split into heads, the head's Q, K, V) and every step's
// shape line. Numbers are the Trace's own values, printed at the view's precision.
#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "demos/coref_data.h"
#include "views/steps/steps_body.h"
#include "views/steps/steps_draw.h"
#include "views/steps/steps_format.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

// A (rows, C) map as NH blocks of (rows, HS), one head's slice each, side by side: no (T, C) copy.
void head_blocks_map(const StepsView& v, const char* label, const Mat HeadTrace::*part, float width, float cell_h) {
  const Trace& t = v.t;
  const int NH = t.config.n_heads, HS = t.config.head_size();
  float m = 0;
  for (const HeadTrace& h : v.layer.attn.heads) m = std::max(m, steps_max_abs(h.*part));
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const float label_w = ImGui::CalcTextSize("X W^Q").x + ImGui::GetStyle().ItemSpacing.x;
  const float rows_h = static_cast<float>((v.layer.attn.heads[0].*part).rows()) * cell_h;
  ImGui::GetWindowDrawList()->AddText(ImVec2(start.x, start.y + std::max(0.0f, (rows_h - ImGui::GetTextLineHeight()) * 0.5f)),
                                      ImGui::GetColorU32(ImGuiCol_Text), label);
  const float block_w = (width - label_w) / static_cast<float>(NH);
  float bottom = start.y;
  for (int h = 0; h < NH; ++h) {
    const Mat& part_m = v.layer.attn.heads[static_cast<size_t>(h)].*part;
    MatrixMap map;
    map.id = label;
    map.values = &part_m;
    map.cell_w = (block_w - 2) / static_cast<float>(HS);
    map.cell_h = cell_h;
    map.vmin = -m;
    map.vmax = m;
    map.cmap = Colormap::diverging;
    map.max_rects = 4000 / NH;  // three rows of NH blocks share one budget
    map.legend = false;         // one colour bar under the row (the blocks share a scale)
    map.highlight_row = part == &HeadTrace::q ? v.f.query : -1;
    if (h == v.f.head) {
      map.frame_first = 0;
      map.frame_last = HS - 1;
    }
    ImGui::SetCursorScreenPos(ImVec2(start.x + label_w + block_w * h, start.y));
    ImGui::PushID(h);
    const MatrixHit hit = steps_matrix_map(map);
    ImGui::PopID();
    bottom = std::max(bottom, ImGui::GetCursorScreenPos().y);
    if (hit.hovered) {
      const auto& tokens = part == &HeadTrace::q ? t.queries : t.keys;
      ImGui::SetTooltip("%s · %s %d · %s · [%d]\n%s", label, tr(v.app.lang, Str::head), h + 1,
                        tokens[static_cast<size_t>(hit.row)].text.c_str(), h * HS + hit.col,
                        steps_number(part_m(hit.row, hit.col), 6).c_str());
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) v.app.head = h;
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(start.x + label_w, bottom + 2));
  colormap_legend(Colormap::diverging, -m, m, block_w * static_cast<float>(NH) - 2);
  ImGui::SetCursorScreenPos(ImVec2(start.x, ImGui::GetCursorScreenPos().y + ImGui::GetStyle().ItemSpacing.y));
}

}  // namespace

void steps_vector_line(const char* name, const Mat& m, int row, int dims, int decimals) {
  std::string s = std::string(name) + " = [";
  const int n = std::min(dims, static_cast<int>(m.cols()));
  for (int a = 0; a < n; ++a) s += (a ? ", " : "") + steps_number(m(row, a), decimals);
  s += n < m.cols() ? ", …]" : "]";
  text_wrapped(s);
}

float steps_max_abs(const Mat& m) {
  float best = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (std::isfinite(m.data()[i])) best = std::max(best, std::fabs(m.data()[i]));
  return best;
}

float steps_scale(const Mat& m) {
  const float best = steps_max_abs(m);
  return best > 0 ? best : 1.0f;
}

std::string steps_shape_text(const StepsView& v, LectureStep step) {
  const Trace& t = v.t;
  const long Tq = t.n_queries(), Tk = t.n_keys(), C = t.config.d_model, NH = t.config.n_heads, HS = t.config.head_size();
  // The seeds' symbols: n tokens, d_model, h heads of d_k = d_v = d_model / h. Cross-attention names
  // the query and key lengths apart.
  const std::string q = t.cross ? "n_q" : "n", k = t.cross ? "n_k" : "n", h = std::to_string(NH);
  const std::string tc = steps_shape(Tq, C), ths = steps_shape(Tq, HS), tt = steps_shape(Tq, Tk);
  // Q and the concat are h·d_k wide: d_model, unless the model's heads have a width of their own.
  const bool own_width = t.config.q_dim() != C;
  const std::string tq = steps_shape(Tq, t.config.q_dim()), q_width = own_width ? "h·d_k" : "d_model";
  const std::string qk = "(" + q + ", " + k + ")";
  switch (step) {
    case LectureStep::input: return "X (" + q + ", d_model) = " + tc;
    case LectureStep::head_split:
      return "X W^Q (" + q + ", " + q_width + ") = " + tq + " → h × (" + q + ", d_k) = " + h + " × " + ths;
    case LectureStep::qkv: return "Q_i (" + q + ", d_k) = " + ths + " · K_i, V_i (" + k + ", d_k) = " + steps_shape(Tk, HS);
    case LectureStep::scores: return "q (1, d_k) · K_i^T (d_k, " + k + ") → (1, " + k + ") · Q_iK_i^T " + qk + " = " + tt;
    case LectureStep::scale: return "Q_iK_i^T / √d_k " + qk + " = " + tt;
    case LectureStep::mask: return qk + " + M " + qk + " = " + tt;
    case LectureStep::softmax: return "softmax(row) " + qk + " = " + tt;
    case LectureStep::weighted_sum: return "A_i " + qk + " · V_i (" + k + ", d_v) → head_i (" + q + ", d_v) = " + ths;
    case LectureStep::concat: return "h × (" + q + ", d_v) → Concat (" + q + ", h·d_v) = " + tq;
    case LectureStep::out_proj: return "Concat (" + q + ", h·d_v) · W^O (h·d_v, d_model) + b^O → (" + q + ", d_model) = " + tc;
  }
  return {};
}


void steps_body_input(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  if (v.f.layer > 0) ImGui::TextDisabled("%s", tr_format(L, Str::steps_note_prev_layer, v.f.layer + 1, v.f.layer).c_str());
  if (t.config.norm == NormPlacement::pre) ImGui::TextDisabled("%s", tr(L, Str::steps_note_prenorm));
  if (t.cross) ImGui::TextDisabled("%s", tr_format(L, Str::steps_note_cross, t.n_keys()).c_str());
  const Mat& X = v.layer.attn_in;
  const float avail = ImGui::GetContentRegionAvail().x;

  MatrixMap map;
  map.id = "x";
  map.values = &X;
  map.rows = &t.queries;
  const float room = steps_matrix_label_room(map).x;
  map.cell_w = (avail - room - 4) / static_cast<float>(X.cols());
  map.cell_h = std::clamp(ImGui::GetFontSize() * 6 / static_cast<float>(X.rows()), 2.0f, ImGui::GetTextLineHeight());
  map.vmin = -steps_scale(X);
  map.vmax = -map.vmin;
  map.cmap = Colormap::diverging;
  map.highlight_row = v.f.query;
  const MatrixHit hit = steps_matrix_map(map);
  if (hit.hovered) {
    ImGui::SetTooltip("%s · x[%d] = %s", t.queries[static_cast<size_t>(hit.row)].text.c_str(), hit.col,
                      steps_number(X(hit.row, hit.col), 6).c_str());
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) v.app.query = hit.row;
  }
  ImGui::Spacing();

  NumberTable table;
  table.id = "x_table";
  table.label_header = tr(L, Str::steps_token);
  table.labels = &t.queries;
  const float label_w = std::min(heatmap_label_extent(t.queries), ImGui::GetFontSize() * 7);
  table.groups.push_back({"x", &X, 0, -1, steps_dims_fit(avail, label_w, 1, v.decimals, 8), false});
  table.highlight_row = v.f.query;
  table.decimals = v.decimals;
  ImGui::TextDisabled("%s", tr_format(L, Str::steps_first_dims, table.groups[0].dims, static_cast<int>(X.cols())).c_str());
  steps_number_table(table);
}

namespace {

// The seeds' PyTorch reshape with real sizes: x (B, n, d_model) → view (B, n, h, d_k) → transpose
// (B, h, n, d_k), B being this sentence and, when it has one, its minimal pair (tired / wide). Three
// small drawings: B slabs of n x d_model, the same slabs cut into h coloured column groups, then
// for each sentence h separate (n, d_k) blocks.
void reshape_with_batch(StepsView& v) {
  const Lang L = v.app.lang;
  const ModelConfig& c = v.t.config;
  const int n = v.t.n_queries(), d = c.d_model, h = c.n_heads, dk = c.head_size();
  const std::string pair = coref_minimal_pair(coref_make(v.app.sentence));
  const int B = pair.empty() ? 1 : 2;
  const auto shape = [](std::initializer_list<int> dims) {
    std::string s = "(";
    for (int x : dims) s += (s.size() > 1 ? ", " : "") + std::to_string(x);
    return s + ")";
  };
  ImGui::TextUnformatted(tr(L, Str::steps_reshape_title));
  ImGui::TextDisabled("%s", pair.empty() ? tr(L, Str::steps_reshape_one) : tr_format(L, Str::steps_reshape_pair, pair.c_str()).c_str());
  const ImU32 code = IM_COL32(140, 200, 255, 255);
  const std::string lines[] = {
      "x.shape  = (B, n, d_model)  = " + shape({B, n, d}),
      "q = x @ W^Q                  → " + shape({B, n, h * dk}),
      "q = q.view(B, n, h, d_k)     → " + shape({B, n, h, dk}),
      "q = q.transpose(1, 2)        → " + shape({B, h, n, dk}) + "   " + tr(L, Str::steps_reshape_heads)};
  for (const std::string& s : lines) ImGui::TextColored(ImColor(code), "%s", s.c_str());

  // The drawings: slab width ~ d_model, height ~ n, scaled to a few lines of text.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const float slab_w = fs * 6, slab_h = fs * 3, skew = fs * 0.6f, gap = fs * 2.5f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImU32 edge = IM_COL32(230, 230, 230, 255);
  const auto head_color = [&](int i, int alpha) {
    return static_cast<ImU32>(ImColor::HSV(static_cast<float>(i) / static_cast<float>(h), 0.55f, 0.9f, alpha / 255.0f));
  };
  const auto slab = [&](float x, float y, bool split) {
    for (int b = B - 1; b >= 0; --b) {  // the later sentence behind, offset
      const ImVec2 a(x + skew * static_cast<float>(b), y + skew * static_cast<float>(B - 1 - b));
      for (int i = 0; i < h; ++i) {
        const float x0 = a.x + slab_w * static_cast<float>(i) / static_cast<float>(h);
        const float x1 = a.x + slab_w * static_cast<float>(i + 1) / static_cast<float>(h);
        dl->AddRectFilled(ImVec2(x0, a.y), ImVec2(x1, a.y + slab_h), split ? head_color(i, 255) : IM_COL32(120, 140, 170, 255));
      }
      dl->AddRect(a, ImVec2(a.x + slab_w, a.y + slab_h), edge);
    }
  };
  const float top = p.y + fs * 0.5f;
  slab(p.x, top, false);
  slab(p.x + slab_w + skew + gap, top, true);
  // After the transpose: for each sentence, h blocks of (n, d_k) side by side, a gap between heads.
  const float x2 = p.x + 2 * (slab_w + skew + gap), block_w = slab_w / static_cast<float>(h);
  for (int b = B - 1; b >= 0; --b) {
    const float y = top + skew * static_cast<float>(B - 1 - b), x = x2 + skew * static_cast<float>(b);
    for (int i = 0; i < h; ++i) {
      const ImVec2 a(x + (block_w + fs * 0.3f) * static_cast<float>(i), y);
      dl->AddRectFilled(a, ImVec2(a.x + block_w, a.y + slab_h), head_color(i, 255));
      dl->AddRect(a, ImVec2(a.x + block_w, a.y + slab_h), edge);
    }
  }
  const float label_y = top + slab_h + skew * static_cast<float>(B - 1) + fs * 0.3f;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddText(ImVec2(p.x, label_y), text, shape({B, n, d}).c_str());
  dl->AddText(ImVec2(p.x + slab_w + skew + gap, label_y), text, ("view → " + shape({B, n, h, dk})).c_str());
  dl->AddText(ImVec2(x2, label_y), text, ("transpose → " + shape({B, h, n, dk})).c_str());
  for (float x : {p.x + slab_w + skew + gap * 0.2f, p.x + 2 * (slab_w + skew) + gap * 1.2f})
    dl->AddText(ImVec2(x, top + slab_h * 0.3f), text, "→");
  ImGui::Dummy(ImVec2(x2 - p.x + (block_w + fs * 0.3f) * static_cast<float>(h) + skew, label_y - p.y + fs * 1.5f));
}

}  // namespace

void steps_body_split(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const int C = t.config.d_model, NH = t.config.n_heads, HS = t.config.head_size();
  ImGui::PushFont(steps_large_font());
  ImGui::TextColored(ImColor(kStepsAccent), "%s", tr_format(L, Str::steps_split_line, t.config.q_dim(), NH, HS).c_str());
  ImGui::PopFont();
  if (t.config.q_dim() == C) ImGui::Text("d_k = d_model / h = %d / %d = %d", C, NH, HS);
  else text_wrapped(tr_format(L, Str::steps_split_own_width, HS, NH, t.config.q_dim(), C));  // Qwen3, Gemma
  ImGui::Spacing();

  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = ImGui::CalcTextSize("X W^Q").x + ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + label_w);
  const HeadBarHit bar = steps_head_bar(NH, v.f.head, ImVec2(avail - label_w, ImGui::GetFrameHeight() * 1.2f), "split");
  if (bar.clicked >= 0) v.app.head = bar.clicked;
  if (bar.hovered >= 0) {
    const HeadColumns cols = lecture_head_columns(t.config, bar.hovered);
    ImGui::SetTooltip("%s", tr_format(L, Str::steps_split_columns, bar.hovered + 1, cols.first, cols.last).c_str());
  }
  const HeadColumns cols = lecture_head_columns(t.config, v.f.head);
  ImGui::TextColored(ImColor(kStepsAccent), "%s", tr_format(L, Str::steps_split_columns, v.f.head + 1, cols.first, cols.last).c_str());
  ImGui::TextDisabled("%s", tr(L, Str::steps_click_head));
  ImGui::Spacing();

  const float cell_h = std::clamp(ImGui::GetFontSize() * 4.5f / static_cast<float>(t.n_queries()), 1.0f, ImGui::GetFontSize() * 0.5f);
  head_blocks_map(v, "X W^Q", &HeadTrace::q, avail, cell_h);
  head_blocks_map(v, "X W^K", &HeadTrace::k, avail, cell_h);
  head_blocks_map(v, "X W^V", &HeadTrace::v, avail, cell_h);
  ImGui::Spacing();
  reshape_with_batch(v);
}

namespace {

// Rotary positions: Q and K of this head before and after the rotation, side by side, and what the
// rotation is. Grouped key/value heads: which query heads share this head's K and V.
void rotation_and_sharing(StepsView& v, float avail, float label_w) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const HeadTrace& h = v.head;
  const ModelConfig& c = t.config;
  if (c.kv_heads() != c.n_heads) {
    const int g = c.kv_group(v.f.head), per = c.n_heads / c.kv_heads();
    ImGui::TextColored(ImColor(kStepsAccent), "%s",
                       tr_format(L, Str::steps_gqa_shared, g + 1, c.kv_heads(), g * per + 1, (g + 1) * per).c_str());
  }
  if (h.q_unrotated.size() == 0 || t.cross) return;
  ImGui::Spacing();
  const float theta = config_of_layer(c, v.f.layer).rope.theta;  // Gemma 3's sliding layers have their own
  ImGui::TextColored(ImColor(kStepsAccent), "%s",
                     tr_format(L, Str::steps_rope_title, c.rotary_dims(), c.head_size(), static_cast<double>(theta)).c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped(tr(L, Str::steps_rope_note));
  if (c.qk_norm) text_wrapped(tr(L, Str::steps_qk_norm_note));
  ImGui::PopStyleColor();
  const int dims = steps_dims_fit(avail, label_w, 4, v.decimals, 2);
  NumberTable table;
  table.id = "rope";
  table.label_header = tr(L, Str::steps_token);
  table.decimals = v.decimals;
  table.labels = &t.queries;
  table.highlight_row = v.f.query;
  table.groups = {{"q", &h.q_unrotated, 0, -1, dims, false}, {"q'", &h.q, 0, -1, dims, true},
                  {"k", &h.k_unrotated, 0, -1, dims, false}, {"k'", &h.k, 0, -1, dims, true}};
  steps_number_table(table);
}

}  // namespace

void steps_body_qkv(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const HeadTrace& h = v.head;
  const std::string qname = "q_i (" + t.queries[static_cast<size_t>(v.f.query)].text + ")";
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label_w = std::min(std::max(heatmap_label_extent(t.queries), heatmap_label_extent(t.keys)), ImGui::GetFontSize() * 7);
  steps_vector_line(qname.c_str(), h.q, v.f.query, steps_dims_fit(avail, label_w, 1, v.decimals, 6), v.decimals);
  ImGui::Spacing();

  const int three = steps_dims_fit(avail, label_w, 3, v.decimals, 4);
  NumberTable table;
  table.label_header = tr(L, Str::steps_token);
  table.decimals = v.decimals;
  if (!t.cross && three >= 2) {
    table.id = "qkv";
    table.labels = &t.queries;
    table.highlight_row = v.f.query;
    table.groups = {{"q", &h.q, 0, -1, three, true}, {"k", &h.k, 0, -1, three, false}, {"v", &h.v, 0, -1, three, false}};
    ImGui::TextDisabled("%s", tr_format(L, Str::steps_first_dims, three, t.config.head_size()).c_str());
    steps_number_table(table);
    rotation_and_sharing(v, avail, label_w);
    return;
  }
  // Too narrow for three blocks side by side (or cross-attention, where K and V have other rows).
  const int one = steps_dims_fit(avail, label_w, 1, v.decimals, 5);
  ImGui::TextDisabled("%s", tr_format(L, Str::steps_first_dims, one, t.config.head_size()).c_str());
  const struct {
    const char* id;
    const char* prefix;
    const Mat* m;
    const std::vector<TraceToken>* labels;
  } parts[] = {{"q", "q", &h.q, &t.queries}, {"k", "k", &h.k, &t.keys}, {"v", "v", &h.v, &t.keys}};
  for (const auto& p : parts) {
    table.id = p.id;
    table.labels = p.labels;
    table.highlight_row = p.m == &h.q ? v.f.query : -1;
    table.groups = {{p.prefix, p.m, 0, -1, one, p.m == &h.q}};
    steps_number_table(table);
    ImGui::Spacing();
  }
  rotation_and_sharing(v, avail, label_w);
}

}  // namespace attnviz
