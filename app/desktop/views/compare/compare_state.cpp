// The Compare view's headless part: B's job and the maps A, B and A − B of one layer.
#include "views/compare/compare_state.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "base/enum_names.h"
#include "demos/coref_data.h"
#include "model/head_map.h"
#include "state/measure_maps.h"

namespace attnviz {

namespace {

constexpr EnumNames<CompareMode, 4> kModeNames{{
    {CompareMode::sentence_b, "sentence_b"}, {CompareMode::single_vs_multi, "single_vs_multi"},
    {CompareMode::masked_vs_unmasked, "masked_vs_unmasked"}, {CompareMode::scaled_vs_unscaled, "scaled_vs_unscaled"}}};
static_assert(std::size(kModeNames) == std::size(kAllCompareModes));

ScoreKind other_scaling(ScoreKind k) { return k == ScoreKind::dot ? ScoreKind::scaled_dot : ScoreKind::dot; }

}  // namespace

void compare_follow_sentence_a(CompareState& s, const std::string& sentence_a) {
  std::string pair = coref_minimal_pair(coref_make(sentence_a));
  if (pair.empty()) return;  // no property word, or one half typed ("too wid"): wait for the next
  if (s.sentence == s.a_pair) s.sentence = pair;
  s.a_pair = std::move(pair);
}

std::string_view compare_mode_name(CompareMode m) { return enum_name(kModeNames, m); }

std::optional<CompareMode> compare_mode_from_name(std::string_view name) { return enum_from_name(kModeNames, name); }

ComputeJob compare_job(CompareMode mode, const std::string& sentence_b, const ComputeJob& a) {
  ComputeJob b = a;
  switch (mode) {
    case CompareMode::sentence_b: b.input.text = sentence_b; break;
    case CompareMode::single_vs_multi:
      b.config.n_heads = 1;
      b.config.head_scores.clear();
      break;  // only for the sandbox: app_update does not ask a fixed model for it
    case CompareMode::masked_vs_unmasked:
      b.input.mask = MaskSpec{};
      if (!a.input.mask.any()) b.input.mask.causal = true;
      break;
    case CompareMode::scaled_vs_unscaled:
      b.config.score = other_scaling(a.config.score);
      b.config.head_scores.clear();
      if (a.model) {  // the same trained weights, scored the other way
        auto m = std::make_shared<Model>(*a.model);
        m->config.score = other_scaling(m->config.score);
        m->config.head_scores.clear();
        b.model = std::move(m);
      }
      break;
  }
  return b;
}

void compare_maps_update(CompareState& s, const Trace* a, const Trace* b, int layer, uint64_t trace_version) {
  const uint64_t key = trace_version * 1024 + static_cast<uint64_t>(layer);
  CompareMaps& cm = s.maps;
  if (cm.key == key) return;
  cm = CompareMaps{};
  cm.key = key;
  if (!a || !b) return;
  const Trace& A = *a;
  const Trace& B = *b;
  if (layer >= static_cast<int>(B.layers.size())) return;
  const int na = static_cast<int>(A.layers[static_cast<size_t>(layer)].attn.heads.size());
  const int nb = static_cast<int>(B.layers[static_cast<size_t>(layer)].attn.heads.size());
  // Each of A's and B's maps of the layer and their differences, held at once: a trace that forms
  // its maps on demand (a long input) is compared only while they fit the formed maps' room.
  const int64_t held = (2 * int64_t{na} + nb + 1) * A.n_queries() * A.n_keys() * static_cast<int64_t>(sizeof(float));
  if ((trace_forms_maps(A) || trace_forms_maps(B)) && held > kFormedMapsBytes) {
    cm.note = "the layer's " + std::to_string(na + nb) + " maps of " + std::to_string(A.n_queries()) +
              " tokens and their differences would take " + std::to_string(held >> 20) +
              " MiB at once: compare shorter sentences, or one head at a time in the Heads view";
    return;
  }
  for (int h = 0; h < na; ++h) {
    cm.a.push_back(*head_map(A, layer, h));
    cm.a_titles.push_back("A · " + std::to_string(h + 1));
  }
  for (int h = 0; h < nb; ++h) {
    cm.b.push_back(*head_map(B, layer, h));
    cm.b_titles.push_back("B · " + std::to_string(h + 1));
  }
  if (s.mode == CompareMode::single_vs_multi) {
    Mat avg = Mat::Zero(cm.a[0].rows(), cm.a[0].cols());
    for (const Mat& m : cm.a) avg += m;
    avg /= static_cast<float>(cm.a.size());
    for (size_t h = 0; h < cm.a.size(); ++h) {
      cm.diff.push_back(cm.a[h] - cm.b[0]);
      cm.diff_titles.push_back("A – B · " + std::to_string(h + 1));
    }
    cm.a.push_back(avg);
    cm.a_titles.push_back("A · average");
    cm.diff.push_back(avg - cm.b[0]);
    cm.diff_titles.push_back("average – B");
    return;
  }
  if (A.n_queries() != B.n_queries() || A.n_keys() != B.n_keys()) {
    cm.note = "A has " + std::to_string(A.n_queries()) + " tokens and B " + std::to_string(B.n_queries()) +
              ": a difference map needs the same number of tokens";
    return;
  }
  for (size_t h = 0; h < std::min(cm.a.size(), cm.b.size()); ++h) {
    cm.diff.push_back(cm.a[h] - cm.b[h]);
    cm.diff_titles.push_back("A – B · " + std::to_string(h + 1));
  }
}

}  // namespace attnviz
