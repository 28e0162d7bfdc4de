// importance_set: each sentence traced and its grid taken as importance_grid takes it, then the
// per-head mean, spread (population standard deviation) and count of answers changed.
#include "analysis/importance_set.h"

#include <algorithm>
#include <cmath>

namespace attnviz {

Result<std::vector<SetSentence>> sentence_set_parse(std::string_view file_text) {
  std::vector<SetSentence> out;
  int line_no = 0;
  size_t at = 0;
  while (at <= file_text.size()) {
    const size_t end = std::min(file_text.find('\n', at), file_text.size());
    std::string_view line = file_text.substr(at, end - at);
    ++line_no;
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = line.substr(0, line.find('\t'));
    const size_t first = line.find_first_not_of(" ");
    if (first == std::string_view::npos || line[first] == '#') {
      if (end == file_text.size()) break;
      continue;
    }
    out.push_back(SetSentence{line_no, std::string(line)});
    if (end == file_text.size()) break;
  }
  if (out.empty()) return make_error("the set has no sentence (one per line; blank lines and lines starting with # are skipped)");
  return out;
}

Result<ImportanceSetGrid> importance_set(const Model& model, const std::vector<SetSentence>& sentences,
                                         const ImportanceSetInput& input) {
  if (sentences.empty()) return make_error("the set has no sentence");
  const auto L = static_cast<size_t>(model.config.n_layers), NH = static_cast<size_t>(model.config.n_heads);
  ImportanceSetGrid g;
  g.sentences = sentences;
  g.mode = input.mode;
  for (const SetSentence& s : sentences) {
    const std::string where = "line " + std::to_string(s.line) + ": ";
    TraceInput in;
    in.text = s.text;
    in.mask = input.mask;
    in.max_memory = input.max_memory;
    auto trace = trace_run(model, in);
    if (!trace) return make_error(where + trace.error());
    auto grid = importance_grid(model, *trace, s.text, input.mode, input.cancel);
    if (!grid) return make_error(where + grid.error());
    g.per_sentence.push_back(std::move(*grid));
  }
  const double n = static_cast<double>(sentences.size());
  g.mean.assign(L, std::vector<float>(NH, 0.0f));
  g.spread.assign(L, std::vector<float>(NH, 0.0f));
  g.answer_changes.assign(L, std::vector<int>(NH, 0));
  for (size_t l = 0; l < L; ++l)
    for (size_t h = 0; h < NH; ++h) {
      double sum = 0, sq = 0;
      for (const ImportanceGrid& s : g.per_sentence) {
        sum += s.drop[l][h];
        g.answer_changes[l][h] += s.flips[l][h] ? 1 : 0;
      }
      const double mean = sum / n;
      for (const ImportanceGrid& s : g.per_sentence) sq += (s.drop[l][h] - mean) * (s.drop[l][h] - mean);
      g.mean[l][h] = static_cast<float>(mean);
      g.spread[l][h] = static_cast<float>(std::sqrt(sq / n));
      if (g.best_layer < 0 || g.mean[l][h] > g.mean[static_cast<size_t>(g.best_layer)][static_cast<size_t>(g.best_head)]) {
        g.best_layer = static_cast<int>(l);
        g.best_head = static_cast<int>(h);
      }
    }
  return g;
}

std::vector<int> importance_set_sentences_for(const ImportanceSetGrid& grid, int layer, int head, float min_drop) {
  std::vector<int> out;
  if (layer < 0 || head < 0 || static_cast<size_t>(layer) >= grid.mean.size() || static_cast<size_t>(head) >= grid.mean[0].size())
    return out;
  for (size_t i = 0; i < grid.per_sentence.size(); ++i)
    if (grid.per_sentence[i].drop[static_cast<size_t>(layer)][static_cast<size_t>(head)] >= min_drop) out.push_back(static_cast<int>(i));
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return grid.per_sentence[static_cast<size_t>(a)].drop[static_cast<size_t>(layer)][static_cast<size_t>(head)] >
           grid.per_sentence[static_cast<size_t>(b)].drop[static_cast<size_t>(layer)][static_cast<size_t>(head)];
  });
  return out;
}

}  // namespace attnviz
