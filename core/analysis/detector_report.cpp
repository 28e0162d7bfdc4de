// The scores come from detector_grid; this file only adds what the grid alone cannot say: which
// queries qualified (mirroring head_detectors.cpp's rules) and, when none did, why.
#include "analysis/detector_report.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "base/enum_names.h"
#include "demos/coref_data.h"
#include "model/head_map.h"

namespace attnviz {

namespace {

constexpr EnumNames<DetectorGap, 7> kGapNames{{
    {DetectorGap::none, "none"}, {DetectorGap::cross_attention, "cross_attention"}, {DetectorGap::too_short, "too_short"},
    {DetectorGap::no_repeat, "no_repeat"}, {DetectorGap::no_spaced_repeat, "no_spaced_repeat"},
    {DetectorGap::no_referent, "no_referent"}, {DetectorGap::masked, "masked"}}};

// The positions detector_grid scores: real tokens that are both a query and a key.
int scored_positions(const Trace& t) { return t.cross ? 0 : std::max(0, std::min(t.n_queries(), t.real_keys)); }

// Fully masked queries, read off one head: every head shares the mask, so every head agrees.
std::vector<bool> masked_rows(const Trace& t, int n) {
  std::vector<bool> masked(static_cast<size_t>(n), false);
  if (t.layers.empty() || t.layers[0].attn.heads.empty()) return masked;
  const HeadMap map = head_map(t, 0, 0);
  const Mat& w = *map;
  const Eigen::Index cols = std::min<Eigen::Index>(n, w.cols());
  for (int i = 0; i < n && i < w.rows(); ++i) masked[static_cast<size_t>(i)] = w.row(i).head(cols).sum() <= 0.0f;
  return masked;
}

// For each position, the first earlier position holding the same token text, or -1.
std::vector<int> first_copies(const Trace& t, int n) {
  std::vector<int> first(static_cast<size_t>(n), -1);
  std::unordered_map<std::string, int> seen;
  for (int i = 0; i < n; ++i) {
    const auto [it, inserted] = seen.emplace(t.queries[static_cast<size_t>(i)].text, i);
    if (!inserted) first[static_cast<size_t>(i)] = it->second;
  }
  return first;
}

// How many queries qualify, with and without the mask, for detector d.
struct QueryCount {
  int any = 0;       // ignoring the mask
  int unmasked = 0;  // what the scores average over
};

QueryCount queries_of(Detector d, const Trace& t, int n, const CorefTarget& coref) {
  const std::vector<bool> masked = masked_rows(t, n);
  QueryCount c;
  auto count = [&](int i) {
    ++c.any;
    if (!masked[static_cast<size_t>(i)]) ++c.unmasked;
  };
  switch (d) {
    case Detector::previous_token:
    case Detector::first_token:
      for (int i = 1; i < n; ++i) count(i);
      break;
    case Detector::duplicate_token:
    case Detector::induction: {
      // The earliest copy is the one most likely to be far enough back for induction (j + 1 < i).
      const int offset = d == Detector::induction ? 1 : 0;
      const std::vector<int> first = first_copies(t, n);
      for (int i = 0; i < n; ++i)
        if (first[static_cast<size_t>(i)] >= 0 && first[static_cast<size_t>(i)] + offset < i) count(i);
      break;
    }
    case Detector::coreference:
      if (coref.pronoun >= 0 && coref.pronoun < n && coref.referent >= 0 && coref.referent < n) count(coref.pronoun);
      break;
  }
  return c;
}

bool any_repeat(const Trace& t, int n) {
  const std::vector<int> first = first_copies(t, n);
  return std::any_of(first.begin(), first.end(), [](int j) { return j >= 0; });
}

DetectorGap gap_of(Detector d, const Trace& t, int n, const QueryCount& q) {
  if (t.cross) return DetectorGap::cross_attention;
  if (n < 2) return DetectorGap::too_short;
  if (q.any > 0) return DetectorGap::masked;
  switch (d) {
    case Detector::duplicate_token: return DetectorGap::no_repeat;
    case Detector::induction: return any_repeat(t, n) ? DetectorGap::no_spaced_repeat : DetectorGap::no_repeat;
    case Detector::coreference: return DetectorGap::no_referent;
    default: return DetectorGap::masked;
  }
}

}  // namespace

CorefTarget coref_target_find(const Trace& trace) {
  if (trace.cross) return {};
  const int n = scored_positions(trace);
  // The tokenizer gives every token back unchanged when tokens are joined by spaces; check anyway,
  // so a mismatch leaves the target unknown instead of pointing at the wrong token.
  std::string text;
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ' ';
    text += trace.queries[static_cast<size_t>(i)].text;
  }
  const CorefExample ex = coref_make(text);
  if (static_cast<int>(ex.tokens.size()) != n) return {};
  for (int i = 0; i < n; ++i)
    if (ex.tokens[static_cast<size_t>(i)].text != trace.queries[static_cast<size_t>(i)].text) return {};
  if (ex.pronoun < 0 || ex.referent < 0) return {};
  return CorefTarget{ex.pronoun, ex.referent, ex.property};
}

DetectorReport detector_report(Detector d, const Trace& trace, const CorefTarget& coref) {
  return detector_report_of(d == Detector::coreference ? detector_grid(d, trace, coref.pronoun, coref.referent)
                                                       : detector_grid(d, trace),
                            trace, coref);
}

DetectorReport detector_report_of(DetectorGrid grid, const Trace& trace, const CorefTarget& coref) {
  const Detector d = grid.detector;
  DetectorReport r;
  r.grid = std::move(grid);
  bool any_cell = false, any_defined = false;
  for (size_t l = 0; l < r.grid.by_layer_head.size(); ++l)
    for (size_t h = 0; h < r.grid.by_layer_head[l].size(); ++h) {
      const DetectorScore& s = r.grid.by_layer_head[l][h];
      any_cell = true;
      if (!s.defined) continue;
      if (!any_defined || s.score > r.best_score) {
        r.best_score = s.score;
        r.best_layer = static_cast<int>(l);
        r.best_head = static_cast<int>(h);
      }
      any_defined = true;
    }
  const int n = scored_positions(trace);
  const QueryCount q = queries_of(d, trace, n, coref);
  r.queries = any_defined ? q.unmasked : 0;
  if (any_cell && !any_defined) r.gap = gap_of(d, trace, n, q);
  return r;
}

DetectorReports detector_reports(const Trace& trace, const HeadMapVisitor& visit) {
  DetectorReports out;
  out.coref = coref_target_find(trace);
  // Every detector from one pass over the maps (the coreference detector alone reads the pronoun
  // and its referent; the others ignore them).
  std::vector<DetectorGrid> grids = detector_grids(std::vector<Detector>(std::begin(kAllDetectors), std::end(kAllDetectors)),
                                                   trace, out.coref.pronoun, out.coref.referent, visit);
  for (DetectorGrid& g : grids) out.reports.push_back(detector_report_of(std::move(g), trace, out.coref));
  return out;
}

std::string_view name_of(DetectorGap g) { return enum_name(kGapNames, g); }

}  // namespace attnviz
