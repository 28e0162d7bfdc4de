// Measures and ablation against PyTorch: the fixtures in tests/fixtures/measures were written by
// make_measures_fixtures.py from nn.TransformerEncoder models (see measures/README.md). Each is opened
// with model_open and traced from its X; weights and rollout must match to 1e-5, value norms to
// 1e-5 relative to their size, and the final states with heads switched off (zero and mean) to 1e-4,
// through trace_run and through trace_final_ablated.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/measures.h"
#include "io/model_open.h"
#include "model/ablation.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

constexpr float kWeightTol = 1e-5f;
constexpr float kValueNormTol = 1e-5f;  // times max(1, the largest |value| of the expected map)
constexpr float kRolloutTol = 1e-5f;
constexpr float kAblatedTol = 1e-4f;

struct Fixture {
  Model model;
  TensorFile file;
  TraceInput input;  // X and the mask, nothing switched off
  std::vector<std::vector<HeadRef>> head_sets;
};

Fixture fixture_open(const std::string& path) {
  auto model = model_open(path);
  REQUIRE_MESSAGE(model.ok(), model.error());
  Fixture f{std::move(*model), load_fixture(path), {}, {}};
  auto mask = mask_from_json(nlohmann::json::parse(f.file.metadata.at("fixture.mask")));
  REQUIRE_MESSAGE(mask.ok(), mask.error());
  f.input.embeddings = fixture_mat(f.file, "fixture.input");
  f.input.mask = *mask;
  for (const auto& s : nlohmann::json::parse(f.file.metadata.at("fixture.ablations"))) {
    auto heads = ablation_heads_parse(s.get<std::string>());
    REQUIRE_MESSAGE(heads.ok(), heads.error());
    REQUIRE(ablation_heads_format(*heads) == s.get<std::string>());
    f.head_sets.push_back(*heads);
  }
  REQUIRE(!f.head_sets.empty());
  return f;
}

Trace trace_of(const Fixture& f, const Ablation& ablation = {}) {
  TraceInput in = f.input;
  in.ablation = ablation;
  auto t = trace_run(f.model, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

// WorstDiff error of each quantity over every fixture, reported once per test case.
struct WorstDiff {
  float value = 0;
  void add(float diff) { value = std::max(value, diff); }
};

}  // namespace

TEST_CASE("measures vs torch: weights, value norms and rollout of every fixture") {
  const auto files = fixture_safetensors("measures");
  REQUIRE(files.size() >= 4);
  WorstDiff weights, norms, maps, rollout, final_states;
  for (const std::string& path : files) {
    CAPTURE(path);
    const Fixture f = fixture_open(path);
    const ModelConfig& c = f.model.config;
    const Trace t = trace_of(f);
    const float d_final = max_abs_diff(t.final, fixture_mat(f.file, "fixture.final"));
    final_states.add(d_final);
    CHECK(d_final < kWeightTol);

    auto roll = attention_rollout(t);
    REQUIRE_MESSAGE(roll.ok(), roll.error());
    REQUIRE(roll->size() == static_cast<size_t>(c.n_layers));
    for (int l = 0; l < c.n_layers; ++l) {
      CAPTURE(l);
      const std::string ls = std::to_string(l);
      const Mat want_norms = fixture_mat(f.file, "fixture.value_norms." + ls);  // (NH, T)
      for (int h = 0; h < c.n_heads; ++h) {
        CAPTURE(h);
        const float d_w = max_abs_diff(t.head(l, h).weights_kept, fixture_slice(f.file, "fixture.weights." + ls, h));
        weights.add(d_w);
        CHECK(d_w < kWeightTol);

        auto vn = value_norms(f.model, t, l, h);
        REQUIRE_MESSAGE(vn.ok(), vn.error());
        const Mat want_row = want_norms.row(h);
        const float d_n = max_abs_diff(Mat(vn->transpose()), want_row);
        norms.add(d_n);
        CHECK(d_n <= kValueNormTol * std::max(1.0f, want_row.cwiseAbs().maxCoeff()));

        auto map = value_norm_map(f.model, t, l, h);
        REQUIRE_MESSAGE(map.ok(), map.error());
        const Mat want_map = fixture_slice(f.file, "fixture.value_norm." + ls, h);
        const float d_m = max_abs_diff(*map, want_map);
        maps.add(d_m);
        CHECK(d_m <= kValueNormTol * std::max(1.0f, want_map.cwiseAbs().maxCoeff()));

        // measure_map hands out the same three maps.
        auto as_weights = measure_map(f.model, t, AttentionMeasure::weights, l, h);
        auto as_norm = measure_map(f.model, t, AttentionMeasure::value_norm, l, h);
        auto as_roll = measure_map(f.model, t, AttentionMeasure::rollout, l, h);
        auto as_roll_cached = measure_map(f.model, t, AttentionMeasure::rollout, l, h, &*roll);
        REQUIRE((as_weights.ok() && as_norm.ok() && as_roll.ok() && as_roll_cached.ok()));
        CHECK(*as_weights == t.head(l, h).weights_kept);
        CHECK(*as_norm == *map);
        CHECK(*as_roll == (*roll)[static_cast<size_t>(l)]);
        CHECK(*as_roll_cached == (*roll)[static_cast<size_t>(l)]);
      }
      const float d_r = max_abs_diff((*roll)[static_cast<size_t>(l)], fixture_mat(f.file, "fixture.rollout." + ls));
      rollout.add(d_r);
      CHECK(d_r < kRolloutTol);
    }
  }
  MESSAGE("worst max |diff|: weights " << weights.value << ", value norms " << norms.value << ", value-norm maps "
                                       << maps.value << ", rollout " << rollout.value << ", final " << final_states.value);
}

TEST_CASE("measures vs torch: final states with heads switched off (zero, mean), by trace_run and trace_final_ablated") {
  const auto files = fixture_safetensors("measures");
  REQUIRE(files.size() >= 4);
  WorstDiff by_run, by_rerun, from_ablated;
  int compared = 0;
  for (const std::string& path : files) {
    CAPTURE(path);
    const Fixture f = fixture_open(path);
    const Trace base = trace_of(f);
    for (size_t k = 0; k < f.head_sets.size(); ++k) {
      CAPTURE(ablation_heads_format(f.head_sets[k]));
      for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
        CAPTURE(name_of(mode));
        const Ablation a{f.head_sets[k], mode};
        const Mat want = fixture_mat(f.file, "fixture.ablated." + std::to_string(k) + "." + std::string(name_of(mode)));

        const Trace t = trace_of(f, a);
        CHECK(t.ablation.heads == a.heads);
        CHECK(t.ablation.mode == a.mode);
        for (int l = 0; l < f.model.config.n_layers; ++l)
          for (int h = 0; h < f.model.config.n_heads; ++h) CHECK(t.head(l, h).ablated == a.has(l, h));
        const float d_run = max_abs_diff(t.final, want);
        by_run.add(d_run);
        CHECK(d_run < kAblatedTol);

        auto rerun = trace_final_ablated(f.model, base, a);
        REQUIRE_MESSAGE(rerun.ok(), rerun.error());
        const float d_rerun = max_abs_diff(*rerun, want);
        by_rerun.add(d_rerun);
        CHECK(d_rerun < kAblatedTol);

        // From an ablated trace: to the other mode of the same heads, and back to nothing switched off.
        const Ablation other{f.head_sets[k], mode == AblationMode::zero ? AblationMode::mean : AblationMode::zero};
        auto swapped = trace_final_ablated(f.model, t, other);
        auto restored = trace_final_ablated(f.model, t, Ablation{});
        REQUIRE_MESSAGE(swapped.ok(), swapped.error());
        REQUIRE_MESSAGE(restored.ok(), restored.error());
        const float d_swapped = max_abs_diff(
            *swapped, fixture_mat(f.file, "fixture.ablated." + std::to_string(k) + "." + std::string(name_of(other.mode))));
        const float d_restored = max_abs_diff(*restored, fixture_mat(f.file, "fixture.final"));
        from_ablated.add(std::max(d_swapped, d_restored));
        CHECK(d_swapped < kAblatedTol);
        CHECK(d_restored < kAblatedTol);
        ++compared;
      }
    }
  }
  CHECK(compared >= 16);
  MESSAGE("worst max |diff| of ablated final states: trace_run " << by_run.value << ", trace_final_ablated "
                                                                 << by_rerun.value << ", from an ablated trace "
                                                                 << from_ablated.value);
}

TEST_CASE("measures vs torch: rollout refuses a cross-attention trace, whose keys are not its queries") {
  const Fixture f = fixture_open(fixture_safetensors("measures").front());
  TraceInput in;
  in.text = "one two three four";
  in.source_text = "five six seven eight";  // as many keys as queries: refused for being cross, not for shape
  auto t = trace_run(f.model, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  REQUIRE(t->cross);
  REQUIRE(t->n_queries() == t->n_keys());
  auto roll = attention_rollout(*t);
  REQUIRE_FALSE(roll.ok());
  CHECK(has(roll.error(), "cross-attention"));
  auto map = measure_map(f.model, *t, AttentionMeasure::rollout, 0, 0);
  REQUIRE_FALSE(map.ok());
  CHECK(has(map.error(), "cross-attention"));
  // The other measures are defined there: one row per target token, one column per source token.
  auto norm = measure_map(f.model, *t, AttentionMeasure::value_norm, 0, 0);
  REQUIRE_MESSAGE(norm.ok(), norm.error());
  CHECK(norm->rows() == 4);
  CHECK(norm->cols() == 4);
}
