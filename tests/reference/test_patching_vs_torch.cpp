// Activation patching, direct logit attribution and set importance (issue 43 A, B, C) against PyTorch:
// tests/fixtures/patching/*.json, written by make_patching_reference.py in float64 from the published
// model definitions and the coreference demo's file (see patching/README.md for the conventions). Each
// model is opened with model_open (llama_tiny, which has no tokenizer, from its tensors with token ids)
// and each text traced through the engine's own tokenizer, whose ids must be the fixture's. Checked to
// 1e-4: patch_run's m(clean), m(corrupt) and every m(patched) (relative to max(1, |m|)) and effect
// (absolute), by head and by position, on gpt2_tiny and the demo; logit_attribution's heads, MLPs,
// embeddings, biases, total and logit difference on gpt2_tiny (LayerNorm) and llama_tiny (RMSNorm);
// importance_set's mean and spread (population) and every sentence's drops on the demo, zero and mean.
// The tokens, referents and ids the engine picks must be the reference's exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/importance_set.h"
#include "analysis/logit_attribution.h"
#include "analysis/patching.h"
#include "base/file_io.h"
#include "io/hf_checkpoint.h"
#include "io/model_open.h"
#include "io/safetensors.h"
#include "model/trace.h"
#include "support/fixture_util.h"

// A namespace of its own: the reference tests are a unity build, where anonymous namespaces of files
// compiled together are one.
namespace attnviz::patching_vs_torch {
namespace {

using namespace test;
using nlohmann::json;

constexpr double kTol = 1e-4;

json patching_fixture(const std::string& file) {
  std::ifstream in(fixture_path("patching/" + file));
  REQUIRE_MESSAGE(in.good(), "missing fixture patching/" << file << " (make_patching_reference.py writes it)");
  return json::parse(in);
}

// The fixture's "model": "demo:coref" is the shipped demo's folder assets/demo_coref (the name itself is
// resolved by the apps, app/common/asset_paths, which this binary does not link), anything else a folder
// under tests/fixtures.
Model open_model(const std::string& where) {
  REQUIRE((where == "demo:coref" || where.rfind("demo:", 0) != 0));
  auto m = model_open(where == "demo:coref" ? std::string(ATTNVIZ_ASSETS) + "/demo_coref" : fixture_path(where));
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

// families/llama_tiny has no tokenizer, which model_open requires of a checkpoint folder: the model from
// its config and tensors, with a stand-in word "#id" per row so that it is complete as a word-level one.
// Its traces take token ids.
Model open_llama(const std::string& where) {
  const std::string dir = fixture_path(where);
  auto text = file_read_bytes(dir + "/config.json");
  REQUIRE_MESSAGE(text.ok(), text.error());
  auto hf = hf_config_parse(std::string(text->begin(), text->end()));
  REQUIRE_MESSAGE(hf.ok(), hf.error());
  auto file = safetensors_map(dir + "/model.safetensors");
  REQUIRE_MESSAGE(file.ok(), file.error());
  auto model = hf_model_from_tensors(std::move(*file), *hf);
  REQUIRE_MESSAGE(model.ok(), model.error());
  for (int i = 0; i < hf->vocab_size; ++i) model->vocab.push_back("#" + std::to_string(i));
  return std::move(*model);
}

Trace trace_of(const Model& model, const TraceInput& in) {
  auto t = trace_run(model, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

Trace trace_text(const Model& model, const std::string& text) {
  TraceInput in;
  in.text = text;  // gpt2 is causal by itself; the demo sees every word
  return trace_of(model, in);
}

// The ids the engine gave the trace's tokens: a checkpoint tokenizer's own, a word model's vocabulary
// row (the word as written, else lowercased, as embed_tokens looks it up).
std::vector<int> ids_of(const Model& model, const Trace& t) {
  std::vector<int> ids;
  for (const TraceToken& tok : t.queries) {
    if (model.tokenizer) {
      ids.push_back(tok.id);
      continue;
    }
    auto at = std::find(model.vocab.begin(), model.vocab.end(), tok.text);
    if (at == model.vocab.end()) {
      std::string lower = tok.text;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      at = std::find(model.vocab.begin(), model.vocab.end(), lower);
    }
    ids.push_back(at == model.vocab.end() ? -1 : static_cast<int>(at - model.vocab.begin()));
  }
  return ids;
}

// A text traced, its tokens checked against the fixture's ids (and pieces or words when it has them).
Trace trace_checked(const Model& model, const json& side) {
  const std::string text = side["text"].get<std::string>();
  CAPTURE(text);
  const Trace t = trace_text(model, text);
  const std::vector<int> want = side["ids"].get<std::vector<int>>();
  const std::vector<int> got = ids_of(model, t);
  CHECK(got == want);
  if (side.contains("pieces")) {
    std::vector<std::string> pieces;
    for (const TraceToken& tok : t.queries) pieces.push_back(tok.piece);
    CHECK(pieces == side["pieces"].get<std::vector<std::string>>());
  }
  if (side.contains("words")) {
    std::vector<std::string> words;
    for (const TraceToken& tok : t.queries) words.push_back(tok.text);
    CHECK(words == side["words"].get<std::vector<std::string>>());
  }
  return t;
}

// The largest difference of one quantity over a test case, reported once at its end.
struct Worst {
  double value = 0;
  void add(double d) { value = std::max(value, d); }
};

double rel_diff(double got, double want) { return std::abs(got - want) / std::max(1.0, std::abs(want)); }

// A metric value: relative to max(1, |want|).
void check_metric(double got, double want, Worst& worst) {
  const double d = rel_diff(got, want);
  worst.add(d);
  CAPTURE(got);
  CAPTURE(want);
  CHECK(d < kTol);
}

// Any other value: absolute.
void check_value(double got, double want, Worst& worst) {
  const double d = std::abs(got - want);
  worst.add(d);
  CAPTURE(got);
  CAPTURE(want);
  CHECK(d < kTol);
}

void check_grid(const std::vector<std::vector<float>>& got, const json& want, Worst& worst, bool metric = false) {
  REQUIRE(got.size() == want.size());
  for (size_t l = 0; l < got.size(); ++l) {
    CAPTURE(l);
    REQUIRE(got[l].size() == want[l].size());
    for (size_t i = 0; i < got[l].size(); ++i) {
      CAPTURE(i);
      const double w = want[l][i].get<double>();
      if (metric)
        check_metric(got[l][i], w, worst);
      else
        check_value(got[l][i], w, worst);
    }
  }
}

struct PatchWorst {
  Worst metric, patched, effect;
};

// patch_run on one pair, both ways, against the fixture's pair.
PatchResult check_pair(const Model& model, const json& pair, PatchBy by, PatchWorst& worst) {
  const std::string clean_text = pair["clean"]["text"].get<std::string>();
  const std::string corrupt_text = pair["corrupt"]["text"].get<std::string>();
  const Trace clean = trace_checked(model, pair["clean"]);
  const Trace corrupt = trace_checked(model, pair["corrupt"]);
  auto r = patch_run(model, clean, clean_text, corrupt, corrupt_text, by, PatchTokens{});
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->by == by);
  check_metric(r->clean, pair["clean_m"].get<double>(), worst.metric);
  check_metric(r->corrupt, pair["corrupt_m"].get<double>(), worst.metric);
  const json& grids = pair[by == PatchBy::head ? "by_head" : "by_position"];
  {
    INFO("m(patched)");
    check_grid(r->patched, grids["patched"], worst.patched, true);
  }
  {
    INFO("effect");
    check_grid(r->effect, grids["effect"], worst.effect);
  }
  return *r;
}

// Every pair of a fixture file, by head and by position: the numbers against torch (check_pair), the
// grid's shape, and what `check_metric` checks of the metric for that model.
void check_fixture_pairs(const std::string& file, const std::function<void(const json&, const PatchResult&)>& check_metric) {
  const json fx = patching_fixture(file);
  const Model model = open_model(fx["model"].get<std::string>());
  REQUIRE(fx["patching"].size() >= 2);
  PatchWorst worst;
  for (const json& pair : fx["patching"]) {
    const std::string name = pair["name"].get<std::string>();
    CAPTURE(name);
    for (PatchBy by : {PatchBy::head, PatchBy::position}) {
      CAPTURE(name_of(by));
      const PatchResult r = check_pair(model, pair, by, worst);
      check_metric(pair, r);
      const size_t width = by == PatchBy::head ? 4 : pair["clean"]["ids"].size();
      REQUIRE(r.effect.size() == 2);
      for (const auto& row : r.effect) CHECK(row.size() == width);
    }
  }
  MESSAGE("worst |diff|: m(clean), m(corrupt) " << worst.metric.value << " (relative), m(patched) " << worst.patched.value
                                                << " (relative), effect " << worst.effect.value);
}

}  // namespace

TEST_CASE("patching vs torch: gpt2_tiny by head and by position, logit(answer) - logit(wrong) at the last token") {
  check_fixture_pairs("gpt2_tiny.json", [](const json& pair, const PatchResult& r) {
    CHECK(r.metric == PatchMetric::logit_diff);
    CHECK(r.answer_id == pair["answer_id"].get<int>());
    CHECK(r.wrong_id == pair["wrong_id"].get<int>());
  });
}

TEST_CASE("patching vs torch: coreference demo by head and by position, log p(clean referent) - log p(corrupt referent) at \"it\"") {
  check_fixture_pairs("coref_demo.json", [](const json& pair, const PatchResult& r) {
    CHECK(r.metric == PatchMetric::log_prob_diff);
    CHECK(r.clean_referent == pair["clean_referent"].get<int>());
    CHECK(r.corrupt_referent == pair["corrupt_referent"].get<int>());
  });
}

namespace {

struct AttributionWorst {
  Worst heads, mlps, embeddings, biases, total, logit_diff, sum, per_source;
};

void check_attribution(const Model& model, const Trace& trace, const json& want, AttributionWorst& worst) {
  auto a = logit_attribution(model, trace);
  REQUIRE_MESSAGE(a.ok(), a.error());
  CHECK(a->position == want["position"].get<int>());
  REQUIRE(a->answer_id == want["answer_id"].get<int>());
  REQUIRE(a->wrong_id == want["wrong_id"].get<int>());
  {
    INFO("heads");
    check_grid(a->heads, want["heads"], worst.heads);
  }
  REQUIRE(a->mlps.size() == want["mlps"].size());
  for (size_t l = 0; l < a->mlps.size(); ++l) {
    CAPTURE(l);
    check_value(a->mlps[l], want["mlps"][l].get<double>(), worst.mlps);
  }
  {
    INFO("embeddings");
    check_value(a->embeddings, want["embeddings"].get<double>(), worst.embeddings);
  }
  {
    INFO("biases");
    check_value(a->biases, want["biases"].get<double>(), worst.biases);
  }
  {
    INFO("total");
    check_value(a->total, want["total"].get<double>(), worst.total);
  }
  {
    INFO("logit_diff");
    check_value(a->logit_diff, want["logit_diff"].get<double>(), worst.logit_diff);
  }
  {
    INFO("total against the engine's own logit difference");
    check_value(a->total, a->logit_diff, worst.sum);
  }
  // Each head's write split over the keys it reads (the flow graph's attribution edges); keys after the
  // position are hidden by the causal mask and carry nothing.
  auto split = head_source_attribution(model, trace, *a);
  REQUIRE_MESSAGE(split.ok(), split.error());
  const json& per_source = want["per_source"];
  REQUIRE(split->size() == per_source.size());
  for (size_t l = 0; l < split->size(); ++l)
    for (size_t h = 0; h < (*split)[l].size(); ++h) {
      const RowVec& got = (*split)[l][h];
      const json& row = per_source[l][h];
      CAPTURE(l);
      CAPTURE(h);
      REQUIRE(got.size() >= static_cast<Eigen::Index>(row.size()));
      for (Eigen::Index j = 0; j < got.size(); ++j)
        check_value(got(j), j < static_cast<Eigen::Index>(row.size()) ? row[static_cast<size_t>(j)].get<double>() : 0.0, worst.per_source);
    }
}

void report(const AttributionWorst& w) {
  MESSAGE("worst |diff|: heads " << w.heads.value << ", mlps " << w.mlps.value << ", embeddings " << w.embeddings.value
                                 << ", biases " << w.biases.value << ", total " << w.total.value << ", logit_diff "
                                 << w.logit_diff.value << ", per source " << w.per_source.value << "; |total - logit_diff| in the engine "
                                 << w.sum.value);
}

}  // namespace

TEST_CASE("patching vs torch: direct logit attribution on gpt2_tiny (LayerNorm linearised at the residual)") {
  const json fx = patching_fixture("gpt2_tiny.json");
  const Model model = open_model(fx["model"].get<std::string>());
  REQUIRE(fx["attribution"].size() >= 3);
  AttributionWorst worst;
  for (const json& c : fx["attribution"]) {
    const std::string name = c["name"].get<std::string>();
    CAPTURE(name);
    const Trace t = trace_checked(model, c);
    REQUIRE(t.causal);
    check_attribution(model, t, c, worst);
  }
  report(worst);
}

TEST_CASE("patching vs torch: direct logit attribution on llama_tiny (RMSNorm, rotary, no biases)") {
  const json fx = patching_fixture("llama_tiny.json");
  const Model model = open_llama(fx["model"].get<std::string>());
  REQUIRE(fx["attribution"].size() >= 2);
  AttributionWorst worst;
  for (const json& c : fx["attribution"]) {
    const std::string name = c["name"].get<std::string>();
    CAPTURE(name);
    TraceInput in;
    in.token_ids = c["ids"].get<std::vector<int>>();
    const Trace t = trace_of(model, in);
    REQUIRE(t.causal);
    check_attribution(model, t, c, worst);
    auto a = logit_attribution(model, t);
    REQUIRE(a.ok());
    CHECK(a->biases == 0.0f);  // no bias anywhere: no b_O, no MLP bias, RMSNorm has none, no output bias
  }
  report(worst);
}

namespace {

struct CorefSet {
  Model model;
  json set;
  std::vector<SetSentence> sentences;
};

CorefSet coref_set() {
  const json fx = patching_fixture("coref_demo.json");
  CorefSet c{open_model(fx["model"].get<std::string>()), fx["importance_set"], {}};
  for (const json& s : c.set["sentences"]) {
    c.sentences.push_back(SetSentence{s["line"].get<int>(), s["text"].get<std::string>()});
    trace_checked(c.model, s);
  }
  REQUIRE(c.sentences.size() >= 5);
  REQUIRE(c.set["modes"].size() == 2);
  return c;
}

ImportanceSetGrid importance_set_of(const CorefSet& c, const json& want) {
  ImportanceSetInput input;
  input.mode = want["mode"].get<std::string>() == "zero" ? AblationMode::zero : AblationMode::mean;
  REQUIRE(name_of(input.mode) == want["mode"].get<std::string>());
  auto g = importance_set(c.model, c.sentences, input);
  REQUIRE_MESSAGE(g.ok(), g.error());
  CHECK(g->mode == input.mode);
  REQUIRE(g->per_sentence.size() == c.sentences.size());
  return std::move(*g);
}

}  // namespace

TEST_CASE("patching vs torch: set importance on the coreference demo, mean and spread over sentences (zero and mean)") {
  const CorefSet c = coref_set();
  Worst mean, spread;
  for (const json& want : c.set["modes"]) {
    const std::string mode_name = want["mode"].get<std::string>();
    CAPTURE(mode_name);
    const ImportanceSetGrid g = importance_set_of(c, want);
    {
      INFO("mean");
      check_grid(g.mean, want["mean"], mean);
    }
    {
      INFO("spread (population standard deviation)");
      check_grid(g.spread, want["spread"], spread);
    }
  }
  MESSAGE("worst |diff|: mean " << mean.value << ", spread " << spread.value);
}

TEST_CASE("patching vs torch: set importance on the coreference demo, each sentence's referent and drops (zero and mean)") {
  const CorefSet c = coref_set();
  Worst drops;
  for (const json& want : c.set["modes"]) {
    const std::string mode_name = want["mode"].get<std::string>();
    CAPTURE(mode_name);
    const ImportanceSetGrid g = importance_set_of(c, want);
    for (size_t i = 0; i < c.sentences.size(); ++i) {
      CAPTURE(c.sentences[i].text);
      CHECK(g.per_sentence[i].answer.coref.referent == want["referents"][i].get<int>());
      check_grid(g.per_sentence[i].drop, want["per_sentence"][i], drops);
    }
  }
  MESSAGE("worst |diff| of a sentence's drop: " << drops.value);
}

}  // namespace attnviz::patching_vs_torch
