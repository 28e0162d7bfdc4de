// Hugging Face checkpoints (tests/fixtures/hf, made by make_hf_checkpoints.py) against PyTorch:
// every reference case tokenized by our tokenizer must give the reference ids, and our forward must
// match the PyTorch reference's per-head attention and final hidden states to 1e-4.
#include <doctest/doctest.h>

#include "io/model_open.h"
#include "model/trace.h"
#include "support/fixture_util.h"
#include "support/hf_fixture.h"

namespace attnviz {
namespace {

using namespace test;

// Runs every case by text and checks ids, pieces, segments, every head and the final states.
void check_folder(const std::string& folder) {
  const Model model = open_fixture(folder);
  const TensorFile ref = load_fixture(fixture_path("hf/" + folder + "/reference.safetensors"));
  const auto cases = ref_cases(folder);
  REQUIRE(cases.size() >= 6);
  float worst_attn = 0, worst_hidden = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const RefCase& rc = cases[k];
    CAPTURE(folder);
    CAPTURE(rc.name);
    TraceInput in;
    in.text = rc.text;
    in.text_b = rc.text_b;
    auto t = trace_run(model, in);
    REQUIRE_MESSAGE(t.ok(), t.error());
    REQUIRE(t->n_queries() == static_cast<int>(rc.ids.size()));
    for (int i = 0; i < t->n_queries(); ++i) {
      CHECK(t->queries[static_cast<size_t>(i)].id == rc.ids[static_cast<size_t>(i)]);
      CHECK(t->queries[static_cast<size_t>(i)].piece == rc.pieces[static_cast<size_t>(i)]);
      CHECK(t->queries[static_cast<size_t>(i)].segment == rc.segments[static_cast<size_t>(i)]);
    }
    const std::string p = "case" + std::to_string(k) + ".";
    for (int l = 0; l < model.config.n_layers; ++l) {
      const Tensor* a = ref.find(p + "attn." + std::to_string(l));
      REQUIRE(a);
      const int T = t->n_queries();
      for (int h = 0; h < model.config.n_heads; ++h) {
        Eigen::Map<const Mat> want(a->data.data() + static_cast<size_t>(h) * T * T, T, T);
        worst_attn = std::max(worst_attn, max_abs_diff(t->head(l, h).weights_kept, want));
      }
    }
    const Tensor* hidden = ref.find(p + "hidden");
    REQUIRE(hidden);
    Eigen::Map<const Mat> want(hidden->data.data(), hidden->shape[0], hidden->shape[1]);
    worst_hidden = std::max(worst_hidden, max_abs_diff(t->final, want));
  }
  MESSAGE(folder << ": worst |attention - torch| " << worst_attn << ", worst |hidden - torch| " << worst_hidden);
  CHECK(worst_attn < 1e-4f);
  CHECK(worst_hidden < 1e-4f);
}

TEST_CASE("hf checkpoint: GPT-2 (transformer. prefix, causal buffer, vocab.json + merges.txt) matches PyTorch") {
  check_folder("gpt2_tiny");
}

TEST_CASE("hf checkpoint: GPT-2 sharded F16, no prefix, tokenizer.json only, matches PyTorch") {
  check_folder("gpt2_tiny_sharded");
}

TEST_CASE("hf checkpoint: BERT uncased (bert. prefix, I64 position_ids, MLM head read) matches PyTorch") {
  check_folder("bert_tiny");
}

TEST_CASE("hf checkpoint: BERT cased with eps 1e-7 from config.json, vocab.txt only, matches PyTorch") {
  check_folder("bert_tiny_cased");
}

}  // namespace
}  // namespace attnviz
