// The shipped translation models other than scaled dot-product — Luong's dot and general scores,
// Bahdanau's additive score, the bottleneck without attention (assets/demo_translate/<variant>) —
// against tests/fixtures/make_translate_variants_reference.py, which rebuilds them from the papers'
// definitions in float64: greedy decoding token for token, the teacher-forced logits and every
// cross-attention head's weights, also with cross-attention head 0 of decoder layer 0 switched off,
// and the Translation view's readout giving the same translation.
#include <algorithm>
#include <cmath>

#include "demos/translate_file.h"
#include "demos/translate_readout.h"
#include "support/fixture_util.h"

using namespace attnviz;
using namespace attnviz::test;

// Named, not anonymous, and holding the test case too: the unity build puts this file in one
// translation unit with test_translate_vs_torch.cpp, whose anonymous namespace has helpers of the
// same names.
namespace translate_variants_vs_torch {

// Weights (in [0, 1]) within 1e-5; logits within 1e-5 of their size, max(1, |logit|): a logit is a
// sum of 64 float32 products accumulated in one fixed order (model/products.h, the same bits on every
// CPU), which drifts from the float64 reference by up to 1.1e-5 on logits of size 10-20 (score_general,
// sentence 1: about 7e-7 of the logit), where PyTorch's own float32 run drifts by 4-6e-6.
constexpr float kVariantTol = 1e-5f;

// max |a - b| / max(1, |b|): b is the reference.
float max_scaled_diff(const Mat& a, const Mat& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  float worst = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]) / std::max(1.0f, std::abs(b.data()[i])));
  return worst;
}
constexpr int kMaxGreedy = 40;  // the script's MAX_GREEDY

// make_translate_reference.py's SENTENCES (English side), which the script translates.
constexpr const char* kSentences[] = {
    "the big cat chased the small dog in the park .",
    "the student bought the book at school and the bird saw the apple .",
};

struct Variant {
  const char* name;
  bool cross_attention;
  bool ablated;  // the fixture also holds the run with cross head L0 H0 off
};
constexpr Variant kVariants[] = {
    {"score_dot", true, true},
    {"score_general", true, false},
    {"score_additive", true, true},
    {"bottleneck", false, false},
};

std::vector<int> ids_of(const TensorFile& f, const std::string& name) {
  const Mat m = fixture_mat(f, name);
  std::vector<int> ids;
  for (Eigen::Index i = 0; i < m.size(); ++i) ids.push_back(static_cast<int>(std::lround(m.data()[i])));
  return ids;
}

struct Worst {
  float logits = 0, cross = 0;
};

// Greedy ids, the logits on [BOS] + the fixture's greedy ids, and the readout, for one run (all
// heads on, or `off`). `tag`: "" or "off_l0h0.".
void check_run(const TranslateModel& model, const TensorFile& ref, const Variant& v, int k, const std::string& tag,
               const Ablation& off, Worst& worst) {
  CAPTURE(tag);
  const std::string p = std::string(v.name) + ".s" + std::to_string(k) + ".";
  auto pair = translate_parse(kSentences[k]);
  REQUIRE_MESSAGE(pair, pair.error());
  const TranslateExample ex = translate_example(*pair, model.encoder.vocab, model.decoder.vocab);
  REQUIRE(ex.source_ids == ids_of(ref, p + "source_ids"));

  const std::vector<int> expected = ids_of(ref, p + tag + "greedy");
  auto greedy = translate_greedy(model, ex.source_ids, kMaxGreedy, off);
  REQUIRE_MESSAGE(greedy, greedy.error());
  CHECK(*greedy == expected);

  std::vector<int> input = {kTranslateBos};
  input.insert(input.end(), expected.begin(), expected.end());
  auto f = translate_forward(model, ex.source_ids, input, off);
  REQUIRE_MESSAGE(f, f.error());
  const Mat logits = fixture_mat(ref, p + tag + "logits");
  const float dl = max_scaled_diff(f->logits, logits);
  CHECK(dl < kVariantTol);
  worst.logits = std::max(worst.logits, dl);
  if (v.cross_attention) {
    CHECK(f->bottleneck.empty());
    REQUIRE(static_cast<int>(f->decoder.size()) == model.arch.decoder_layers);
    for (int l = 0; l < model.arch.decoder_layers; ++l)
      for (int h = 0; h < model.arch.n_heads; ++h) {
        CAPTURE(l);
        CAPTURE(h);
        const auto& head = f->decoder[static_cast<size_t>(l)].cross.attn.heads[static_cast<size_t>(h)];
        CHECK(head.ablated == off.has(l, h));
        if (!tag.empty()) continue;  // the fixture holds the maps of the run with every head on
        const float dc =
            max_abs_diff(head.weights_kept, fixture_mat(ref, p + "cross.l" + std::to_string(l) + ".h" + std::to_string(h)));
        CHECK(dc < kVariantTol);
        worst.cross = std::max(worst.cross, dc);
      }
  } else {
    CHECK(f->decoder.empty());
    CHECK(static_cast<int>(f->bottleneck.size()) == model.arch.decoder_layers);
  }

  // The readout stops greedy decoding at the right Korean's length + 8 tokens: its output is the
  // fixture's greedy cut there, and when not cut, its forward is the teacher forcing above.
  auto r = translate_readout(model, kSentences[k], off);
  REQUIRE_MESSAGE(r, r.error());
  CHECK(r->source_ids == ex.source_ids);
  const size_t limit = ex.target_ids.size() + 8;
  const std::vector<int> cut(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(std::min(limit, expected.size())));
  CHECK(r->output_ids == cut);
  if (cut.size() == expected.size()) {
    const float dr = max_scaled_diff(r->forward.logits, logits);
    CHECK(dr < kVariantTol);
    worst.logits = std::max(worst.logits, dr);
  }
}

TEST_CASE("torch reference: the translation variants (dot, general, additive, bottleneck), greedy, logits, cross weights") {
  const TensorFile ref = load_fixture(fixture_path("translate/variants_reference.safetensors"));
  for (const Variant& v : kVariants) {
    const std::string name = v.name;  // doctest prints a const char* as a pointer
    CAPTURE(name);
    auto model = translate_load(std::string(ATTNVIZ_ASSETS) + "/demo_translate/" + name + "/model.safetensors");
    REQUIRE_MESSAGE(model, model.error());
    CHECK(model->arch.bottleneck == !v.cross_attention);
    Worst all, off_worst;
    Ablation off;
    ablation_set(off, HeadRef{0, 0}, true);
    for (int k = 0; k < 2; ++k) {
      CAPTURE(k);
      check_run(*model, ref, v, k, "", {}, all);
      if (v.ablated) check_run(*model, ref, v, k, "off_l0h0.", off, off_worst);
    }
    if (!v.cross_attention) CHECK_FALSE(translate_forward(*model, {3, 4}, {kTranslateBos}, off));  // no head to switch off
    if (v.ablated)
      MESSAGE(name << ": worst |logits - torch| / max(1, |logit|) " << all.logits << ", |cross weights - torch| " << all.cross
                   << "; cross L0 H0 off: |logits - torch| / max(1, |logit|) " << off_worst.logits);
    else if (v.cross_attention)
      MESSAGE(name << ": worst |logits - torch| / max(1, |logit|) " << all.logits << ", |cross weights - torch| " << all.cross);
    else
      MESSAGE(name << ": worst |logits - torch| / max(1, |logit|) " << all.logits);
  }
}

}  // namespace translate_variants_vs_torch
