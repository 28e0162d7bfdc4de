// The trainer: model-level gradients against finite differences of the loss, AdamW's update rule,
// and real learning — a small causal model learns to predict the previous token, which it can only
// do by attending one position back.
#include <doctest/doctest.h>

#include <functional>

#include "base/rng.h"
#include "support/check_util.h"
#include "support/model_util.h"
#include "train/train.h"

using namespace attnviz;
using attnviz::test::random_mat;

namespace {

Model tiny_model(const ModelConfig& c, int vocab, uint64_t seed) {
  Model m = model_init_random(c, seed);
  for (int v = 0; v < vocab; ++v) m.vocab.push_back("t" + std::to_string(v));
  m.weights.tok_embed = random_mat(vocab, c.d_model, seed + 1, 1.0);
  m.weights.output_w = random_mat(vocab, c.d_model, seed + 2, 0.3);
  m.weights.output_b = Vec::Zero(vocab);
  return m;
}

// Central differences of the loss for every entry of `p`.
void check_model_gradient(const char* what, Model& model, Mat& p, const Mat& grad, const TrainExample& ex) {
  constexpr float h = 1e-3f;
  float worst = 0;
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    const float keep = p.data()[i];
    p.data()[i] = keep + h;
    const double up = model_loss(model, ex)->loss;
    p.data()[i] = keep - h;
    const double down = model_loss(model, ex)->loss;
    p.data()[i] = keep;
    const double numeric = (up - down) / (2.0 * h);
    worst = std::max(worst, static_cast<float>(std::abs(numeric - grad.data()[i]) / std::max(0.05, std::abs(numeric))));
  }
  CHECK_MESSAGE(worst < 1e-2f, std::string(what) << ": worst relative error " << worst);
}

}  // namespace

TEST_CASE("train: model gradients match finite differences of the loss, through every part") {
  Model m = tiny_model(test::gpt_config({.d_model = 8, .n_heads = 2, .n_layers = 2, .d_ff = 12}, 8), 7, 50);
  TrainExample ex{{1, 4, 2, 6, 0, 3}, {-1, 2, 5, -1, 1, 4}, {}};
  auto lg = model_loss_grads(m, ex);
  REQUIRE_MESSAGE(lg.ok(), lg.error());
  CHECK(lg->counted == 4);
  CHECK(lg->loss == doctest::Approx(model_loss(m, ex)->loss));
  const ModelWeights& g = lg->grads;
  check_model_gradient("tok_embed", m, m.weights.tok_embed, g.tok_embed, ex);
  check_model_gradient("pos_embed", m, m.weights.pos_embed, g.pos_embed, ex);
  check_model_gradient("output_w", m, m.weights.output_w, g.output_w, ex);
  check_model_gradient("layer 0 in_proj_w", m, m.weights.layers[0].attn.in_proj_w, g.layers[0].attn.in_proj_w, ex);
  check_model_gradient("layer 1 ff2_w", m, m.weights.layers[1].ff2_w, g.layers[1].ff2_w, ex);
  check_model_gradient("layer 1 out_w", m, m.weights.layers[1].attn.out_w, g.layers[1].attn.out_w, ex);
  // Each row of dlogits is softmax minus a one-hot, which sums to zero: so does the bias gradient.
  CHECK(std::abs(g.output_b.sum()) < 1e-6f);
}

TEST_CASE("train: AdamW's first step moves each weight by about lr against its gradient's sign") {
  Model m = tiny_model(test::sized_config({.d_model = 4, .n_heads = 1, .d_ff = 4}), 3, 60);
  const ModelWeights before = m.weights;
  ModelWeights grads = weights_zeros_like(m.weights);
  grads.output_w(0, 0) = 0.5f;
  grads.output_w(1, 1) = -0.25f;
  AdamState state = adam_init(m.weights);
  AdamConfig cfg;
  cfg.weight_decay = 0.0f;
  cfg.clip_norm = 0.0f;
  adam_step(m.weights, grads, state, cfg);
  CHECK(m.weights.output_w(0, 0) == doctest::Approx(before.output_w(0, 0) - cfg.lr).epsilon(1e-4));
  CHECK(m.weights.output_w(1, 1) == doctest::Approx(before.output_w(1, 1) + cfg.lr).epsilon(1e-4));
  CHECK(m.weights.output_w(2, 2) == before.output_w(2, 2));  // zero gradient: no move
  CHECK(weights_norm(grads) == doctest::Approx(std::sqrt(0.25 + 0.0625)));
}

TEST_CASE("train: a causal model learns to predict the previous token (it must attend one step back)") {
  ModelConfig c = test::sized_config({.d_model = 16, .n_heads = 2, .n_layers = 1, .d_ff = 32});
  c.positions = PositionEncoding::learned;
  c.max_positions = 8;
  const int V = 6, T = 8;
  Model m = tiny_model(c, V, 70);
  AdamState state = adam_init(m.weights);
  AdamConfig cfg;
  cfg.lr = 1e-2f;
  Rng rng(71);
  auto sample = [&] {
    TrainExample ex;
    ex.mask.causal = true;
    for (int t = 0; t < T; ++t) ex.ids.push_back(static_cast<int>(rng.next_u64() % V));
    ex.targets.push_back(-1);
    for (int t = 1; t < T; ++t) ex.targets.push_back(ex.ids[static_cast<size_t>(t - 1)]);
    return ex;
  };
  float first_loss = 0;
  for (int step = 0; step < 300; ++step) {
    auto lg = model_loss_grads(m, sample());
    REQUIRE(lg.ok());
    if (step == 0) first_loss = lg->loss;
    adam_step(m.weights, lg->grads, state, cfg);
  }
  int correct = 0, counted = 0;
  for (int i = 0; i < 50; ++i) {
    auto r = model_loss(m, sample());
    correct += r->correct;
    counted += r->counted;
  }
  const double accuracy = static_cast<double>(correct) / counted;
  MESSAGE("previous-token accuracy after 300 steps: " << accuracy << " (first loss " << first_loss << ")");
  CHECK(first_loss > 1.5f);   // about ln 6 at the start
  CHECK(accuracy > 0.95);
}
