// attnviz-bench-forward: times trace_run (the engine's one forward, keeping every head's
// intermediates) on random weights and random (T, C) embeddings, next to this machine's Eigen sgemm
// throughput at the same thread count. One JSON line per T on stdout. A benchmark, not a test:
// it asserts nothing; engine_vs_torch.py runs it beside PyTorch and prints the comparison.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <omp.h>

#include "bench_memory.h"

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "base/memory_tuning.h"
#include "base/parse_number.h"
#include "base/rng.h"
#include "bench_phases.h"
#include "model/model.h"
#include "model/trace.h"

namespace {

using attnviz::Mat;
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int layers = 12;
  int d_model = 768;
  int heads = 12;
  int ffn = 3072;
  attnviz::NormPlacement norm = attnviz::NormPlacement::pre;
  attnviz::Activation activation = attnviz::Activation::gelu_tanh;  // GPT-2's
  attnviz::MaskSpec mask;
  std::string mask_text = "causal";
  std::vector<int> tokens = {16, 128, 512};
  int repeat = 5;
  int threads = 0;  // 0: every core OpenMP sees
  bool profile = false;
  uint64_t seed = 1;
};

constexpr std::string_view kUsage =
    "usage: attnviz-bench-forward [--layers 12] [--d-model 768] [--heads 12] [--ffn 3072] [--norm pre|post]\n"
    "         [--activation relu|gelu|gelu_tanh] [--mask causal|none|window:R|strided:S] [--T 16,128,512]\n"
    "         [--repeat 5] [--threads N] [--seed 1] [--profile]\n";

bool parse_int(std::string_view s, int& out) { return attnviz::parse_int_in(s, 0, std::numeric_limits<int>::max(), out); }

bool parse_int_list(std::string_view s, std::vector<int>& out) {
  out.clear();
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    int v = 0;
    if (!parse_int(s.substr(start, comma - start), v) || v < 1) return false;
    out.push_back(v);
    start = comma + 1;
  }
  return !out.empty();
}

// Returns an empty string on success, else the message for stderr.
std::string options_parse(int argc, char** argv, BenchOptions& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--profile") {
      o.profile = true;
      continue;
    }
    if (flag == "--help" || flag == "-h") return std::string(kUsage);
    if (i + 1 >= argc) return std::string(flag) + " needs a value";
    const std::string_view v = argv[++i];
    bool ok = true;
    if (flag == "--layers") ok = parse_int(v, o.layers);
    else if (flag == "--d-model") ok = parse_int(v, o.d_model);
    else if (flag == "--heads") ok = parse_int(v, o.heads);
    else if (flag == "--ffn") ok = parse_int(v, o.ffn);
    else if (flag == "--repeat") ok = parse_int(v, o.repeat) && o.repeat >= 1;
    else if (flag == "--threads") ok = parse_int(v, o.threads);
    else if (flag == "--T") ok = parse_int_list(v, o.tokens);
    else if (flag == "--seed") {
      int s = 0;
      ok = parse_int(v, s);
      o.seed = static_cast<uint64_t>(s);
    } else if (flag == "--norm") {
      const auto n = attnviz::norm_from_name(v);
      ok = n.has_value();
      if (ok) o.norm = *n;
    } else if (flag == "--activation") {
      const auto a = attnviz::activation_from_name(v);
      ok = a.has_value();
      if (ok) o.activation = *a;
    } else if (flag == "--mask") {
      o.mask_text = std::string(v);
    } else {
      return "unknown option " + std::string(flag) + "\n" + std::string(kUsage);
    }
    if (!ok) return "bad value for " + std::string(flag) + ": " + std::string(v);
  }
  o.mask = attnviz::MaskSpec{};
  if (attnviz::Status s = attnviz::mask_spec_add(o.mask, o.mask_text); !s) return "--mask: " + s.error();
  return {};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <class F>
double seconds_of(F&& f) {
  const Clock::time_point t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Mat random_matrix(int rows, int cols, uint64_t seed) {
  attnviz::Rng rng(seed);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal());
  return m;
}

// Median GFLOP/s of y = x · wᵀ with x (m, k) and w (n, k): the product linear() computes.
double sgemm_gflops(int m, int k, int n) {
  const Mat x = random_matrix(m, k, 11), w = random_matrix(n, k, 12);
  Mat y(m, n);
  const double flops = 2.0 * m * k * n;
  // Each sample runs enough products to last about 20 ms, so tiny shapes are not timer noise.
  y.noalias() = x * w.transpose();
  const double one = seconds_of([&] { y.noalias() = x * w.transpose(); });
  const int batch = std::max(1, static_cast<int>(0.02 / std::max(one, 1e-7)));
  std::vector<double> rates;
  for (int s = 0; s < 9; ++s) {
    const double t = seconds_of([&] {
      for (int b = 0; b < batch; ++b) y.noalias() = x * w.transpose();
    });
    rates.push_back(flops * batch / t / 1e9);
  }
  return median(rates);
}

// The same product cycling through `count` distinct weight matrices, so each one comes from memory
// as it does in a forward (GPT-2 small's 340 MB of weights never fit in cache).
double sgemm_cold_gflops(int m, int k, int n, int count) {
  const Mat x = random_matrix(m, k, 13);
  std::vector<Mat> ws;
  for (int i = 0; i < count; ++i) ws.push_back(random_matrix(n, k, 14 + static_cast<uint64_t>(i)));
  Mat y(m, n);
  for (const Mat& w : ws) y.noalias() = x * w.transpose();
  std::vector<double> rates;
  for (int s = 0; s < 5; ++s) {
    const double t = seconds_of([&] {
      for (const Mat& w : ws) y.noalias() = x * w.transpose();
    });
    rates.push_back(2.0 * m * k * n * count / t / 1e9);
  }
  return median(rates);
}

// FLOPs of the forward's matrix products (multiply-add = 2): per layer the QKV, output and two FFN
// projections, and per head QKᵀ and weights·V over the full (T, T) square (the causal half is
// not subtracted: the engine computes it all).
double forward_flops(const attnviz::ModelConfig& c, int T) {
  const double t = T, C = c.d_model, F = c.d_ff, HS = c.head_size();
  const double per_layer = 2 * t * C * 3 * C + 2 * t * C * C + 2 * 2 * t * C * F + c.n_heads * 2 * 2 * t * t * HS;
  return per_layer * c.n_layers;
}

nlohmann::json profile_json(const attnviz::Model& model, const Mat& x, const BenchOptions& o,
                            const Mat& reference_final) {
  using attnviz::bench::kPhaseCount;
  using attnviz::bench::Phase;
  (void)attnviz::bench::phases_run(model, x, o.mask);  // warm-up
  std::vector<std::vector<double>> per_phase(kPhaseCount);
  std::vector<double> totals;
  float max_diff = 0;
  for (int r = 0; r < o.repeat; ++r) {
    const attnviz::bench::PhaseProfile p = attnviz::bench::phases_run(model, x, o.mask);
    for (int i = 0; i < kPhaseCount; ++i) per_phase[static_cast<size_t>(i)].push_back(p.seconds[static_cast<size_t>(i)]);
    totals.push_back(p.total);
    max_diff = std::max(max_diff, (p.final - reference_final).cwiseAbs().maxCoeff());
  }
  nlohmann::json phases = nlohmann::json::object();
  for (int i = 0; i < kPhaseCount; ++i)
    phases[std::string(attnviz::bench::phase_name(static_cast<Phase>(i)))] = median(per_phase[static_cast<size_t>(i)]);
  return {{"phases_s", phases}, {"total_s", median(totals)}, {"max_abs_diff_vs_trace_run", max_diff}};
}

int bench_run(const BenchOptions& o) {
  attnviz::ModelConfig c;
  c.n_layers = o.layers;
  c.d_model = o.d_model;
  c.n_heads = o.heads;
  c.d_ff = o.ffn;
  c.norm = o.norm;
  c.activation = o.activation;
  c.positions = attnviz::PositionEncoding::none;  // embeddings go in as X directly
  c.final_norm = o.norm == attnviz::NormPlacement::pre;  // GPT's ln_f
  if (attnviz::Status s = attnviz::config_validate(c); !s) {
    std::cerr << "attnviz-bench-forward: " << s.error() << "\n";
    return 2;
  }
  const int threads = o.threads > 0 ? o.threads : omp_get_num_procs();
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  const attnviz::Model model = attnviz::model_init_random(c, o.seed);
  const double square = sgemm_gflops(1024, 1024, 1024);

  for (const int T : o.tokens) {
    attnviz::TraceInput input;
    input.embeddings = random_matrix(T, c.d_model, o.seed + static_cast<uint64_t>(T));
    input.mask = o.mask;
    Mat reference_final;
    {  // the warm-up trace is freed before timing: one trace alive at a time, as in the app
      auto warm = attnviz::trace_run(model, input);
      if (!warm) {
        std::cerr << "attnviz-bench-forward: T=" << T << ": " << warm.error() << "\n";
        return 1;
      }
      reference_final = warm->final;
    }
    std::vector<double> samples;
    for (int r = 0; r < o.repeat; ++r)
      // The Trace is destroyed inside the timed region: freeing every intermediate is part of the cost.
      samples.push_back(seconds_of([&] { (void)attnviz::trace_run(model, input); }));
    const double med = median(samples);
    const double flops = forward_flops(c, T);
    const double gflops = flops / med / 1e9;
    const double sgemm_t = sgemm_gflops(T, c.d_model, c.d_ff);
    // Enough weight matrices to fill 64 MB, twice a large L3, so none is still cached when reused.
    const int cold_count = 1 + static_cast<int>(64.0 * (1 << 20) / (4.0 * c.d_model * c.d_ff));
    const double sgemm_cold = sgemm_cold_gflops(T, c.d_model, c.d_ff, cold_count);
    nlohmann::json line = {
        {"T", T},
        {"layers", c.n_layers},
        {"d_model", c.d_model},
        {"heads", c.n_heads},
        {"ffn", c.d_ff},
        {"norm", attnviz::name_of(c.norm)},
        {"activation", attnviz::name_of(c.activation)},
        {"mask", o.mask_text},
        {"threads", threads},
        {"rss_peak_mb", attnviz::bench::status_mib("VmHWM")},
        {"eigen_threads", Eigen::nbThreads()},
        {"repeat", o.repeat},
        {"forward_s", med},
        {"forward_s_samples", samples},
        {"forward_flops", flops},
        {"forward_gflops", gflops},
        {"sgemm_tcf_gflops", sgemm_t},      // (T, C) x (C, F), the FFN's product
        {"sgemm_tcf_cold_gflops", sgemm_cold},  // the same, weights streamed from memory
        {"sgemm_square_gflops", square},    // 1024^3
        {"ratio_vs_sgemm_tcf", gflops / sgemm_t},
        {"ratio_vs_sgemm_square", gflops / square},
    };
    if (o.profile) line["profile"] = profile_json(model, *input.embeddings, o, reference_final);
    std::cout << line.dump() << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  BenchOptions o;
  if (const std::string err = options_parse(argc, argv, o); !err.empty()) {
    const bool help = err == kUsage;
    (help ? std::cout : std::cerr) << (help ? "" : "attnviz-bench-forward: ") << err << (help ? "" : "\n");
    return help ? 0 : 2;
  }
  return bench_run(o);
}
