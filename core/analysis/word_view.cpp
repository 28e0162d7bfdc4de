// Sums and means in double, rounded once, so a word's column is its pieces' weights added exactly
// as far as float allows.
#include "analysis/word_view.h"
#include "model/head_map.h"

#include <limits>

namespace attnviz {

WordGroups word_groups(const std::vector<TraceToken>& tokens, const WordViewOptions& o) {
  WordGroups g;
  g.group_of.assign(tokens.size(), -1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const TraceToken& t = tokens[i];
    if (o.hide_special && t.kind == TokenKind::special) continue;
    const bool joins = o.merge_pieces && t.continues && i > 0 && g.group_of[i - 1] >= 0 &&
                       tokens[i - 1].kind != TokenKind::special && t.kind != TokenKind::special;
    if (joins) {
      const int w = g.group_of[i - 1];
      g.group_of[i] = w;
      TraceToken& word = g.groups[static_cast<size_t>(w)];
      word.text += t.text;
      word.end = t.end;
      continue;
    }
    g.group_of[i] = static_cast<int>(g.groups.size());
    TraceToken word = t;
    word.continues = false;
    g.groups.push_back(std::move(word));
  }
  return g;
}

Mat word_weights(const Mat& w, const WordGroups& rows, const WordGroups& cols, bool renormalise) {
  const auto R = static_cast<Eigen::Index>(rows.groups.size()), Cn = static_cast<Eigen::Index>(cols.groups.size());
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(R, Cn);
  std::vector<int> count(static_cast<size_t>(R), 0);
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    const int r = rows.group_of[static_cast<size_t>(i)];
    if (r < 0) continue;
    // This query's row over the kept keys, renormalised first: each piece's distribution sums to 1.
    double kept = 0;
    for (Eigen::Index j = 0; j < w.cols(); ++j)
      if (cols.group_of[static_cast<size_t>(j)] >= 0) kept += w(i, j);
    const double scale = renormalise && kept > 0 ? 1.0 / kept : 1.0;
    for (Eigen::Index j = 0; j < w.cols(); ++j)
      if (const int c = cols.group_of[static_cast<size_t>(j)]; c >= 0) sum(r, c) += w(i, j) * scale;
    ++count[static_cast<size_t>(r)];
  }
  Mat out(R, Cn);
  for (Eigen::Index r = 0; r < R; ++r)
    for (Eigen::Index c = 0; c < Cn; ++c)
      out(r, c) = static_cast<float>(count[static_cast<size_t>(r)] > 0 ? sum(r, c) / count[static_cast<size_t>(r)] : 0.0);
  return out;
}

Result<Trace> trace_word_view(const Trace& t, const WordViewOptions& o) {
  const WordGroups rows = word_groups(t.queries, o), cols = word_groups(t.keys, o);
  if (rows.groups.empty() || cols.groups.empty()) return make_error("every token is a special token: nothing is left to show");
  Trace out;
  out.config = t.config;
  out.model_source = t.model_source;
  out.cross = t.cross;
  out.causal = t.causal;
  out.queries = rows.groups;
  out.keys = cols.groups;
  out.real_keys = static_cast<int>(cols.groups.size());
  out.ablation = t.ablation;
  // A word sees what its pieces saw: hidden only where every piece's cell was hidden.
  const Mat visible = word_weights((t.mask.array() == 0.0f).cast<float>().matrix(), rows, cols, false);
  out.mask = (visible.array() > 0.0f).select(Mat::Zero(visible.rows(), visible.cols()),
                                              -std::numeric_limits<float>::infinity());
  out.layers.resize(t.layers.size());
  for (size_t l = 0; l < t.layers.size(); ++l) {
    out.layers[l].attn.heads.resize(t.layers[l].attn.heads.size());
    for (size_t h = 0; h < t.layers[l].attn.heads.size(); ++h) {
      const HeadTrace& src = t.layers[l].attn.heads[h];
      HeadTrace& dst = out.layers[l].attn.heads[h];
      dst.score = src.score;
      dst.ablated = src.ablated;
      dst.weights_kept = word_weights(*head_map(t, static_cast<int>(l), static_cast<int>(h)), rows, cols, o.hide_special);
    }
  }
  return out;
}

}  // namespace attnviz
