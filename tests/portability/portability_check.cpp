// attnviz-portability-check: prints one line per computation whose bits must be the same on every
// x86-64 CPU and for every -march, "name hash". The suite builds it for the x86-64-v3 sanitizer pass
// and again, on its own, for another instruction set (scripts/test.sh); portability_test.sh compares
// both outputs with each other and with expected.txt, which holds what every build must print.
// What it runs: the portable functions over a sweep of floats, the products at odd shapes, a
// masked softmax (hidden cells must be exactly +0), and short trainings of both demos over the
// architectures the Model panel offers (every scoring function, an FFN, post-norm, sinusoidal
// positions, 3 layers), and of the translation demo's encoder-decoder (scaled dot-product and
// additive cross-attention, and the bottleneck), hashing every weight.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "demos/coref_demo.h"
#include "demos/induction_demo.h"
#include "demos/translate_demo.h"
#include "model/kernels.h"
#include "model/portable_math.h"
#include "model/products.h"

using namespace attnviz;

namespace {

struct Hash {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over 32-bit words
  void add(float v) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    h = (h ^ b) * 1099511628211ull;
  }
  template <class M>
  void add_all(const M& m) {
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      for (Eigen::Index c = 0; c < m.cols(); ++c) add(m(r, c));
  }
};

void print(const std::string& name, const Hash& h) { std::printf("%s %016llx\n", name.c_str(), static_cast<unsigned long long>(h.h)); }

Mat fixed_matrix(Eigen::Index rows, Eigen::Index cols, uint32_t seed) {
  Mat m(rows, cols);
  uint32_t s = seed * 2654435761u + 1u;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    m.data()[i] = static_cast<float>(static_cast<int32_t>(s >> 8) - (1 << 23)) / static_cast<float>(1 << 22);
  }
  return m;
}

void check_math() {
  std::vector<float> xs;
  for (uint32_t b = 0; b < 0x7f800000u; b += 65537) {
    float x;
    std::memcpy(&x, &b, sizeof x);
    xs.push_back(x);
    xs.push_back(-x);
  }
  std::vector<float> out(xs.size());
  const std::pair<const char*, void (*)(const float*, float*, size_t)> fns[] = {
      {"exp_portable", exp_portable}, {"tanh_portable", tanh_portable}, {"erf_portable", erf_portable}};
  for (const auto& [name, fn] : fns) {
    fn(xs.data(), out.data(), xs.size());
    Hash h;
    for (float v : out) h.add(v);
    print(name, h);
  }
  Hash sums;
  for (size_t n = 0; n < 100; ++n) {
    sums.add(sum_portable(xs.data() + 3 * n, n));
    sums.add(dot_portable(xs.data() + 5 * n + 1, xs.data() + 7 * n, n));
    sums.add(static_cast<float>(square_sum_portable(xs.data() + n, n)));
  }
  print("sums", sums);
}

void check_products() {
  Hash ab, atb, abt;
  for (int m : {1, 5, 12, 33})
    for (int k : {1, 8, 13, 64})
      for (int n : {1, 9, 16, 40}) {
        ab.add_all(product_ab(fixed_matrix(m, k, 1), fixed_matrix(k, n, 2)));
        atb.add_all(product_atb(fixed_matrix(k, m, 3), fixed_matrix(k, n, 4)));
        abt.add_all(product_abt(fixed_matrix(m, k, 5), fixed_matrix(n, k, 6)));
      }
  print("product_ab", ab);
  print("product_atb", atb);
  print("product_abt", abt);
}

// A causal softmax over 19 keys (longer than every vector register): the hidden cells must be +0.
bool check_softmax() {
  const int T = 19;
  Mat mask = Mat::Zero(T, T);
  for (int i = 0; i < T; ++i)
    for (int j = i + 1; j < T; ++j) mask(i, j) = -std::numeric_limits<float>::infinity();
  const Mat w = softmax_masked(fixed_matrix(T, T, 7), mask);
  Hash h;
  h.add_all(w);
  print("softmax_masked", h);
  for (int i = 0; i < T; ++i)
    for (int j = i + 1; j < T; ++j) {
      uint32_t b;
      std::memcpy(&b, &w(i, j), sizeof b);
      if (b != 0) {
        std::fprintf(stderr, "softmax_masked: hidden cell (%d, %d) is %g, not +0\n", i, j, static_cast<double>(w(i, j)));
        return false;
      }
    }
  return true;
}

Hash weights_hash(const Model& m) {
  Hash h;
  for (const LayerWeights& L : m.weights.layers) {
    for (const auto* w : {&L.attn.in_proj_w, &L.attn.out_w, &L.attn.general_w, &L.attn.additive_wq, &L.attn.additive_wk,
                          &L.ff1_w, &L.ff2_w})
      h.add_all(*w);
    h.add_all(L.attn.additive_v);
    for (const auto* v : {&L.attn.in_proj_b, &L.attn.out_b, &L.ff1_b, &L.ff2_b, &L.norm1_w, &L.norm1_b, &L.norm2_w, &L.norm2_b})
      h.add_all(*v);
  }
  h.add_all(m.weights.tok_embed);
  h.add_all(m.weights.pos_embed);
  h.add_all(m.weights.final_norm_w);
  h.add_all(m.weights.final_norm_b);
  h.add_all(m.weights.output_w);
  h.add_all(m.weights.output_b);
  return h;
}

template <class Options, class Train>
bool check_training(const char* demo, const char* name, Options o, Train train) {
  o.max_steps = 24;
  o.eval_every = 24;
  auto run = train(o);
  if (!run) {
    std::fprintf(stderr, "%s %s: %s\n", demo, name, run.error().c_str());
    return false;
  }
  print(std::string(demo) + "_" + name, weights_hash(run->model));
  return true;
}

// A few steps of the translation demo on a small set: every weight of the encoder and the decoder.
bool check_translate(const char* name, ScoreKind score, bool bottleneck) {
  TranslateTrainOptions o;
  o.arch.score = score;
  o.arch.bottleneck = bottleneck;
  o.n_train = 96;
  o.heldout_per_length = 2;
  o.batch = 16;
  o.max_steps = 3;
  o.eval_every = 3;
  auto run = translate_train(o);
  if (!run) {
    std::fprintf(stderr, "translate %s: %s\n", name, run.error().c_str());
    return false;
  }
  Hash h = weights_hash(run->model.encoder);
  const Hash d = weights_hash(run->model.decoder);
  h.h ^= d.h * 31;
  print(std::string("translate_") + name, h);
  return true;
}

}  // namespace

int main() {
  check_math();
  check_products();
  bool ok = check_softmax();
  struct Arch {
    const char* name;
    int heads, d_model, layers, ffn;
    ScoreKind score;
    NormPlacement norm;
    PositionEncoding positions;
  };
  const Arch archs[] = {
      {"shipped", 4, 32, 2, 0, ScoreKind::scaled_dot, NormPlacement::pre, PositionEncoding::learned},
      {"wide_heads", 2, 64, 2, 0, ScoreKind::scaled_dot, NormPlacement::pre, PositionEncoding::learned},
      {"additive_ffn_post", 4, 32, 2, 64, ScoreKind::additive, NormPlacement::post, PositionEncoding::learned},
      {"general_sinusoidal", 2, 32, 2, 0, ScoreKind::general, NormPlacement::pre, PositionEncoding::sinusoidal},
      {"dot_3_layers_ffn", 1, 32, 3, 32, ScoreKind::dot, NormPlacement::pre, PositionEncoding::learned},
  };
  for (const Arch& a : archs) {
    CorefTrainOptions c;
    InductionTrainOptions i;
    c.n_heads = i.n_heads = a.heads;
    c.d_model = i.d_model = a.d_model;
    c.n_layers = i.n_layers = a.layers;
    c.d_ff = i.d_ff = a.ffn;
    c.score = i.score = a.score;
    c.norm = i.norm = a.norm;
    c.positions = i.positions = a.positions;
    ok = check_training("coref", a.name, c, [](const CorefTrainOptions& o) { return coref_train(o); }) && ok;
    ok = check_training("induction", a.name, i, [](const InductionTrainOptions& o) { return induction_train(o); }) && ok;
  }
  // The decoder's cross-attention with a dot-product and an additive score, and the bottleneck's c:
  // the other scores' kernels are the coreference runs' above.
  ok = check_translate("scaled_dot", ScoreKind::scaled_dot, false) && ok;
  ok = check_translate("additive", ScoreKind::additive, false) && ok;
  ok = check_translate("bottleneck", ScoreKind::scaled_dot, true) && ok;
  return ok ? 0 : 1;
}
