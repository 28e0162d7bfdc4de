// attnviz-bench-init: how long the sandbox's random weights take to make (model_init_random), at
// the app's default size and at 12 x 768, with each generator (Philox4x32-10, what new weights use,
// and the polar method, what older sessions and files name), the polar one also against the
// one-normal()-at-a-time loop its values first came from, and what a toggle that only adds a layer
// costs (model_init_random_from). Checks the bits: the polar ways alike, a grown model as a fresh
// one, Philox's on one thread as on all. Prints one JSON line per size. Not a test.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/memory_tuning.h"
#include "bench_timing.h"
#include "base/parse_number.h"
#include "base/rng.h"
#include "io/model_file.h"
#include "model/model.h"

namespace {

using namespace attnviz;
using bench::median_seconds;

// The earlier way: every tensor in turn, one normal() per value (same streams, same bits as the
// polar generator's model_init_random).
void redraw_one_at_a_time(Model& m) {
  TensorFile f = model_to_tensors(m);  // names and shapes, in the file's order
  for (LayerWeights& L : m.weights.layers) {
    for (WeightMat* w : {&L.attn.in_proj_w, &L.attn.out_w, &L.ff1_w, &L.ff2_w}) w->setZero();
  }
  for (size_t i = 0; i < m.weights.layers.size(); ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    LayerWeights& L = m.weights.layers[i];
    const int C = m.config.d_model, F = m.config.d_ff;
    auto draw = [&](const std::string& name, WeightMat& out, double stddev) {
      Rng rng(seed_for(m.seed, p + name));
      for (Eigen::Index k = 0; k < out.size(); ++k) out.data()[k] = static_cast<float>(rng.normal() * stddev);
    };
    draw("self_attn.in_proj_weight", L.attn.in_proj_w, std::sqrt(2.0 / (C + C)));
    draw("self_attn.out_proj.weight", L.attn.out_w, std::sqrt(2.0 / (C + C)));
    if (F > 0) {
      draw("linear1.weight", L.ff1_w, std::sqrt(2.0 / (C + F)));
      draw("linear2.weight", L.ff2_w, std::sqrt(2.0 / (F + C)));
    }
  }
}

int64_t random_values(const Model& m) {
  int64_t n = m.weights.pos_embed.size();
  for (const LayerWeights& L : m.weights.layers)
    n += L.attn.in_proj_w.size() + L.attn.out_w.size() + L.ff1_w.size() + L.ff2_w.size() + L.attn.general_w.size() +
         L.attn.additive_wq.size() + L.attn.additive_wk.size() + L.attn.additive_v.size();
  return n;
}

bool same_layers(const Model& a, const Model& b) {
  bool same = a.weights.layers.size() == b.weights.layers.size();
  for (size_t i = 0; same && i < a.weights.layers.size(); ++i) {
    const LayerWeights &x = a.weights.layers[i], &y = b.weights.layers[i];
    same = x.attn.in_proj_w == y.attn.in_proj_w && x.attn.out_w == y.attn.out_w && x.ff1_w == y.ff1_w &&
           x.ff2_w == y.ff2_w && x.attn.general_w == y.attn.general_w && x.attn.additive_v == y.attn.additive_v;
  }
  return same;
}

void bench_size(const char* label, const ModelConfig& c, int repeat, int threads) {
  Model fresh, polar;
  const double init = median_seconds(repeat, [&] { fresh = model_init_random(c, 1); });
  const double init_polar =
      median_seconds(repeat, [&] { polar = model_init_random(c, 1, RngGenerator::polar_splitmix64); });
  Model serial = polar;
  const double one_at_a_time = median_seconds(repeat, [&] { redraw_one_at_a_time(serial); });
  const bool polar_same = same_layers(polar, serial);
  ModelConfig one_more = c;
  one_more.n_layers += 1;
  Model grown;
  const double add_layer = median_seconds(repeat, [&] { grown = model_init_random_from(one_more, 1, fresh); });
  const bool grown_same = same_layers(grown, model_init_random(one_more, 1));
  omp_set_num_threads(1);
  const bool threads_same = same_layers(fresh, model_init_random(c, 1));
  omp_set_num_threads(threads);
  const auto values = static_cast<double>(random_values(fresh));
  nlohmann::json j{{"size", label},
                   {"layers", c.n_layers},
                   {"d_model", c.d_model},
                   {"d_ff", c.d_ff},
                   {"random_values", random_values(fresh)},
                   {"threads", omp_get_max_threads()},
                   {"init_s", init},
                   {"init_polar_s", init_polar},
                   {"one_normal_at_a_time_s", one_at_a_time},
                   {"add_one_layer_s", add_layer},
                   {"ns_per_value", 1e9 * init / values},
                   {"ns_per_value_polar", 1e9 * init_polar / values},
                   {"same_bits", polar_same && grown_same && threads_same}};
  std::printf("%s\n", j.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  int repeat = 5, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], v = argv[i + 1];
    const bool ok = flag == "--repeat" ? attnviz::parse_int_in(v, 1, 1000, repeat)
                  : flag == "--threads" ? attnviz::parse_int_in(v, 1, 256, threads)
                                        : false;
    if (!ok) {
      std::fprintf(stderr, "usage: attnviz-bench-init [--repeat N] [--threads N]\n");
      return 2;
    }
  }
  omp_set_num_threads(threads);
  bench_size("default", ModelConfig{}, repeat, threads);
  ModelConfig big;
  big.n_layers = 12;
  big.d_model = 768;
  big.n_heads = 12;
  big.d_ff = 3072;
  bench_size("12x768", big, repeat, threads);
  return 0;
}
