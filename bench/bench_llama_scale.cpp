// attnviz-bench-llama-scale: a 1.1 B-parameter Llama-shaped checkpoint (bench/make_tinyllama.py) opened the
// way a folder without tokenizer files is (config.json, the mapped weights, hf_model_from_tensors,
// stand-in words "#id"), then a T-token trace_run that keeps every head. One JSON line for
// bench/llama_scale_vs_torch.py: open seconds (by stage), RSS after the open and at its peak, the weights' F32
// size, the median forward. --profile adds where the time goes, from core's public kernels, and what the
// machine allows (first touch of fresh memory, BF16 widening, read bandwidth, sgemm). Not a test.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/memory_tuning.h"
#include "base/parse_number.h"
#include "base/rng.h"
#include "bench_memory.h"
#include "bench_timing.h"
#include "io/hf_checkpoint.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "model/attention.h"
#include "model/kernels.h"
#include "model/trace.h"

namespace {

using attnviz::Mat;
using attnviz::Vec;
using attnviz::bench::status_mib;
using Clock = std::chrono::steady_clock;
using attnviz::bench::process_cpu_s;
using attnviz::bench::seconds_since;
using attnviz::bench::upper_median;
using json = nlohmann::json;

// getrusage's peak resident set (ru_maxrss, KiB on Linux) in MiB.
double maxrss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

int64_t weight_count(const attnviz::Model& m) {
  const auto& w = m.weights;
  int64_t n = w.tok_embed.size() + w.pos_embed.size() + w.type_embed.size() + w.final_norm_w.size() + w.output_w.size();
  for (const auto& L : w.layers)
    n += L.attn.in_proj_w.size() + L.attn.out_w.size() + L.ff_gate_w.size() + L.ff1_w.size() + L.ff2_w.size() +
         L.norm1_w.size() + L.norm2_w.size();
  return n;  // the checkpoint's own parameters; the zero biases the engine adds are not counted
}

struct Options {
  std::string model, dump;
  int tokens = 32, repeat = 3, threads = 2;
  uint64_t seed = 1;
  bool profile = false;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--profile") {
      o.profile = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    bool ok = true;
    int seed = 0;
    if (flag == "--model") o.model = v;
    else if (flag == "--dump") o.dump = v;
    else if (flag == "--tokens") ok = attnviz::parse_int_in(v, 1, attnviz::kMaxTokens, o.tokens);
    else if (flag == "--repeat") ok = attnviz::parse_int_in(v, 1, 1000, o.repeat);
    else if (flag == "--threads") ok = attnviz::parse_int_in(v, 1, 256, o.threads);
    else if (flag == "--seed") ok = attnviz::parse_int_in(v, 0, 1 << 30, seed), o.seed = static_cast<uint64_t>(seed);
    else ok = false;
    if (!ok) return false;
  }
  return !o.model.empty();
}

struct Opened {
  attnviz::Model model;
  json stages;  // seconds per stage of the open
};

// Exactly what tests/reference/test_families_vs_torch.cpp does with a folder without tokenizer files.
attnviz::Result<Opened> open_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  Opened out;
  auto t = Clock::now();
  auto text = attnviz::file_read_bytes((fs::path(dir) / "config.json").string());
  if (!text) return attnviz::make_error(text.error());
  auto hf = attnviz::hf_config_parse(std::string(text->begin(), text->end()));
  if (!hf) return attnviz::make_error(hf.error());
  out.stages["config_s"] = seconds_since(t);
  t = Clock::now();
  const fs::path index = fs::path(dir) / "model.safetensors.index.json";
  auto file = fs::exists(index) ? attnviz::safetensors_read_sharded(index.string(), true)
                                : attnviz::safetensors_map((fs::path(dir) / "model.safetensors").string());
  if (!file) return attnviz::make_error(file.error());
  out.stages["map_s"] = seconds_since(t);
  // The fraction of tensors done over time (reported from the calling thread only), to see the pace.
  t = Clock::now();
  const double cpu0 = process_cpu_s();
  std::vector<std::pair<double, float>> pace;
  auto model = attnviz::hf_model_from_tensors(std::move(*file), *hf, [&](float f) { pace.emplace_back(seconds_since(t), f); });
  if (!model) return attnviz::make_error(model.error());
  out.stages["from_tensors_s"] = seconds_since(t);
  out.stages["from_tensors_cpu_s"] = process_cpu_s() - cpu0;
  json quarters = json::array();
  for (float q : {0.25f, 0.5f, 0.75f, 1.0f})
    for (const auto& [s, f] : pace)
      if (f >= q) {
        quarters.push_back(s);
        break;
      }
  out.stages["from_tensors_quarters_s"] = quarters;  // when 25/50/75/100% of the tensors were done
  t = Clock::now();
  for (int i = 0; i < hf->vocab_size; ++i) model->vocab.push_back("#" + std::to_string(i));
  out.stages["vocab_s"] = seconds_since(t);
  out.model = std::move(*model);
  return out;
}

std::vector<int> random_ids(int n, int vocab, uint64_t seed) {
  attnviz::Rng rng(seed);
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back(static_cast<int>(rng.next_u64() % static_cast<uint64_t>(vocab)));
  return ids;
}

// ---------------------------------------------------------------------------------------------------
// --profile: one layer's steps from core's public kernels (the order of layer.cpp / attention.cpp for a
// pre-norm self-attention layer with a gated FFN), timed; checked against trace_run's final hidden states.

enum Step { kNorm, kQkvRope, kHeads, kOutProj, kFfnGateUp, kFfnAct, kFfnDown, kResidual, kStepCount };
constexpr const char* kStepNames[kStepCount] = {"rms_norms", "qkv_proj_and_rope", "heads", "out_proj",
                                                "ffn_gate_up_proj", "ffn_silu_mul", "ffn_down_proj", "residuals"};

struct StepProfile {
  std::vector<double> step_s = std::vector<double>(kStepCount, 0.0);
  double total_s = 0;
  Mat final;
};

StepProfile steps_run(const attnviz::Model& model, const Mat& x0, const Mat& mask) {
  const auto& c = model.config;
  const int NH = c.n_heads, HS = c.head_size();
  const attnviz::MapsKept keep = attnviz::trace_maps_kept(c, mask.rows(), mask.cols());
  StepProfile p;
  const auto start = Clock::now();
  auto t = Clock::now();
  auto lap = [&](Step s) {
    p.step_s[s] += seconds_since(t);
    t = Clock::now();
  };
  Mat x = x0;
  for (const auto& w : model.weights.layers) {
    t = Clock::now();
    const Mat attn_in = attnviz::norm_apply(x, w.norm1_w, w.norm1_b, c);
    lap(kNorm);
    const attnviz::Projections pr = attnviz::attention_project(w.attn, c, attn_in, attn_in, true);
    lap(kQkvRope);
    std::vector<attnviz::HeadTrace> heads(static_cast<size_t>(NH));
    Mat concat(x.rows(), c.d_model);
#pragma omp parallel for schedule(dynamic, 1)
    for (int h = 0; h < NH; ++h) {
      heads[static_cast<size_t>(h)] = attnviz::head_forward_from(w.attn, c, h, pr, mask, keep);
      concat.middleCols(h * HS, HS) = heads[static_cast<size_t>(h)].out;
    }
    lap(kHeads);
    const Mat attn_out = attnviz::linear(concat, w.attn.out_w, w.attn.out_b);
    lap(kOutProj);
    const Mat resid1 = x + attn_out;
    lap(kResidual);
    const Mat ffn_in = attnviz::norm_apply(resid1, w.norm2_w, w.norm2_b, c);
    lap(kNorm);
    Mat up = attnviz::linear(ffn_in, w.ff1_w, w.ff1_b);
    Mat gate = attnviz::linear(ffn_in, w.ff_gate_w, Vec::Zero(c.d_ff));
    lap(kFfnGateUp);
    attnviz::activation_apply(gate, c.activation);
    up = (gate.array() * up.array()).matrix();
    lap(kFfnAct);
    const Mat down = attnviz::linear(up, w.ff2_w, w.ff2_b);
    lap(kFfnDown);
    x = resid1 + down;
    lap(kResidual);
  }
  t = Clock::now();
  p.final = attnviz::trace_final_of(model, x);
  lap(kNorm);
  p.total_s = seconds_since(start);
  return p;
}

// trace_run's own layers, timed from outside: a thread watching TraceControl::layers_done.
std::vector<double> layer_times(const attnviz::Model& model, const attnviz::TraceInput& in, double& total_s) {
  std::atomic<int> done{0};
  std::atomic<bool> stop{false};
  std::vector<double> at;
  const auto t0 = Clock::now();
  std::thread watch([&] {
    int seen = 0;
    for (;;) {
      const bool last = stop.load();  // set after trace_run returned: `done` is final then
      const int now = done.load();
      while (seen < now) at.push_back(seconds_since(t0)), ++seen;
      if (last) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a faster poll slows the team
    }
  });
  attnviz::TraceControl control;
  control.layers_done = &done;
  auto trace = attnviz::trace_run(model, in, control);
  total_s = seconds_since(t0);
  stop = true;
  watch.join();
  std::vector<double> per_layer;
  for (size_t i = 0; i < at.size(); ++i) per_layer.push_back(at[i] - (i == 0 ? 0.0 : at[i - 1]));
  return per_layer;  // the first includes trace_prepare (embedding, mask); the final norm follows the last
}

// Machine references at the weights' size, no engine code: what opening and forwarding could cost at best.
json machine_json(const std::string& dir, int64_t n_values, int threads) {
  json j;
  // (1) first touch of fresh memory the size of the F32 weights (page faults + the writes).
  auto t = Clock::now();
  const double cpu0 = process_cpu_s();
  std::unique_ptr<float[]> buf(new float[static_cast<size_t>(n_values)]);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n_values; i += 1024) std::memset(buf.get() + i, 0, sizeof(float) * static_cast<size_t>(std::min<int64_t>(1024, n_values - i)));
  j["first_touch_s"] = seconds_since(t);
  j["first_touch_cpu_s"] = process_cpu_s() - cpu0;
  t = Clock::now();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n_values; i += 1024) std::memset(buf.get() + i, 1, sizeof(float) * static_cast<size_t>(std::min<int64_t>(1024, n_values - i)));
  j["rewrite_s"] = seconds_since(t);
  // (2) BF16 -> F32 widening of the mapped file into that (now resident) memory: the bytes alone.
  auto file = attnviz::safetensors_map((std::filesystem::path(dir) / "model.safetensors").string());
  if (file) {
    int64_t total = 0;
    for (const auto& tensor : file->tensors) total += tensor.numel();
    if (total <= n_values) {
      for (int pass = 0; pass < 2; ++pass) {  // pass 0 faults the mapping in, pass 1 reads it resident
        t = Clock::now();
        int64_t at = 0;
        for (const auto& tensor : file->tensors) {
          const auto* src = reinterpret_cast<const uint16_t*>(tensor.raw);
          float* dst = buf.get() + at;
          const int64_t n = tensor.numel();
#pragma omp parallel for schedule(static) num_threads(threads)
          for (int64_t i = 0; i < n; ++i) {
            const uint32_t bits = static_cast<uint32_t>(src[i]) << 16;
            std::memcpy(dst + i, &bits, 4);
          }
          at += n;
        }
        j[pass == 0 ? "widen_mapping_cold_s" : "widen_mapping_resident_s"] = seconds_since(t);
      }
      // The mapping read alone (2.2 GB of BF16), to split the widening into reading and writing.
      t = Clock::now();
      int64_t bits_sum = 0;
      for (const auto& tensor : file->tensors) {
        const auto* src = reinterpret_cast<const uint16_t*>(tensor.raw);
        const int64_t n = tensor.numel();
#pragma omp parallel for schedule(static) reduction(+ : bits_sum) num_threads(threads)
        for (int64_t i = 0; i < n; ++i) bits_sum += src[i];
      }
      j["read_mapping_s"] = seconds_since(t);
      j["mapping_checksum"] = bits_sum;
    }
  }
  // (3) read bandwidth over the F32-sized buffer (vectorised sums of 1 MB pieces).
  constexpr int64_t kPiece = 1 << 18;
  t = Clock::now();
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(threads)
  for (int64_t i = 0; i < n_values; i += kPiece)
    sum += Eigen::Map<const Eigen::VectorXf>(buf.get() + i, std::min(kPiece, n_values - i)).sum();
  const double read_s = seconds_since(t);
  j["read_s"] = read_s;
  j["read_gb_per_s"] = static_cast<double>(n_values) * 4.0 / read_s / 1e9;
  j["checksum"] = sum;
  return j;
}

// linear()'s rate on the forward's FFN shape, weights hot in cache and streamed (the model's own matrices).
json sgemm_json(const attnviz::Model& model, int T) {
  const auto& c = model.config;
  attnviz::Rng rng(7);
  const Mat x = attnviz::rng_normal_mat(rng, T, c.d_model, 1.0);
  const attnviz::WeightMat& w0 = model.weights.layers[0].ff1_w;
  const Vec b = Vec::Zero(w0.rows());
  const double flops = 2.0 * T * static_cast<double>(w0.size());
  (void)attnviz::linear(x, w0, b);
  std::vector<double> hot;
  for (int r = 0; r < 9; ++r) {
    const auto t = Clock::now();
    const Mat y = attnviz::linear(x, w0, b);
    hot.push_back(flops / seconds_since(t) / 1e9);
  }
  // Every layer's gate and up projections in turn: 2 x 22 x 46 MB, never in cache.
  std::vector<double> cold;
  for (int r = 0; r < 3; ++r) {
    const auto t = Clock::now();
    for (const auto& L : model.weights.layers) {
      const Mat a = attnviz::linear(x, L.ff1_w, b);
      const Mat g = attnviz::linear(x, L.ff_gate_w, b);
    }
    const double s = seconds_since(t);
    cold.push_back(2.0 * flops * static_cast<double>(model.weights.layers.size()) / s / 1e9);
  }
  const double layers = static_cast<double>(model.weights.layers.size());
  const double streamed_s = 2.0 * flops * layers / (upper_median(cold) * 1e9);
  return {{"shape", {T, c.d_model, c.d_ff}},
          {"hot_gflops", upper_median(hot)},
          {"streamed_gflops", upper_median(cold)},
          {"streamed_gb_per_s", 2.0 * static_cast<double>(w0.size()) * 4.0 * layers / streamed_s / 1e9}};
}

}  // namespace

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  Options o;
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: attnviz-bench-llama-scale --model DIR [--tokens 32] [--repeat 3] [--threads 2] [--seed 1]\n"
                 "         [--dump FILE.npy] [--profile]\n";
    return 2;
  }
  omp_set_num_threads(o.threads);
  Eigen::setNbThreads(o.threads);
  const double rss_before = status_mib("VmRSS");
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_s();
  auto opened = open_folder(o.model);
  const double open_s = seconds_since(t0), open_cpu_s = process_cpu_s() - cpu0;
  if (!opened) {
    std::cerr << "attnviz-bench-llama-scale: " << opened.error() << "\n";
    return 1;
  }
  attnviz::Model model = std::move(opened->model);
  const double rss_open = status_mib("VmRSS"), hwm_open = status_mib("VmHWM"), maxrss_open = maxrss_mib();
  const int64_t n_weights = weight_count(model);

  attnviz::TraceInput in;
  in.token_ids = random_ids(o.tokens, static_cast<int>(model.weights.tok_embed.rows()), o.seed);
  std::vector<double> times;
  Mat final;
  for (int r = 0; r <= o.repeat; ++r) {  // run 0 warms up
    const auto f0 = Clock::now();
    {
      auto trace = attnviz::trace_run(model, in);
      if (!trace) {
        std::cerr << "attnviz-bench-llama-scale: " << trace.error() << "\n";
        return 1;
      }
      if (r == o.repeat) final = trace->final;  // (T, C): 256 KB; freeing the whole trace is timed
    }
    if (r > 0) times.push_back(seconds_since(f0));
  }
  if (!o.dump.empty())
    if (attnviz::Status s = attnviz::npy_write(o.dump, final); !s) {
      std::cerr << "attnviz-bench-llama-scale: " << s.error() << "\n";
      return 1;
    }
  json j = {{"open_s", open_s},
            {"open_cpu_s", open_cpu_s},
            {"open_stages", opened->stages},
            {"forward_s", upper_median(times)},
            {"forward_all_s", times},
            {"rss_before_mb", rss_before},
            {"rss_after_open_mb", rss_open},
            {"rss_peak_open_mb", hwm_open},
            {"maxrss_open_mb", maxrss_open},
            {"rss_peak_mb", status_mib("VmHWM")},
            {"maxrss_mb", maxrss_mib()},
            {"weights", n_weights},
            {"weights_f32_mb", static_cast<double>(n_weights) * 4.0 / (1024.0 * 1024.0)},
            {"tokens", o.tokens},
            {"threads", o.threads},
            {"ids", in.token_ids}};
  if (o.profile) {
    // trace_run watched and the mirrored steps alternate, so that both see the same machine.
    json prof;
    double total = 0;
    std::vector<double> sum_layers(static_cast<size_t>(model.config.n_layers), 0.0);
    std::vector<double> totals;
    std::vector<StepProfile> runs;
    auto base = attnviz::trace_prepare(model, in);
    if (base) {
      (void)steps_run(model, base->embed, base->mask);  // warm-up
      for (int r = 0; r < o.repeat; ++r) {
        const auto per_layer = layer_times(model, in, total);
        totals.push_back(total);
        for (size_t l = 0; l < per_layer.size() && l < sum_layers.size(); ++l) sum_layers[l] += per_layer[l] / o.repeat;
        runs.push_back(steps_run(model, base->embed, base->mask));
      }
      prof["trace_run_watched_s"] = upper_median(totals);
      prof["trace_run_layer_mean_s"] = sum_layers;
      json steps;
      for (int s = 0; s < kStepCount; ++s) {
        std::vector<double> v;
        for (const auto& p : runs) v.push_back(p.step_s[static_cast<size_t>(s)]);
        steps[kStepNames[s]] = upper_median(v);
      }
      std::vector<double> v;
      for (const auto& p : runs) v.push_back(p.total_s);
      prof["steps_s"] = steps;
      prof["steps_total_s"] = upper_median(v);
      prof["steps_max_abs_diff_vs_trace_run"] = (runs.back().final - final).cwiseAbs().maxCoeff();
    }
    prof["sgemm"] = sgemm_json(model, o.tokens);
    // After the model is freed, so that the fresh memory is what a second open would get.
    model = attnviz::Model{};
    prof["machine"] = machine_json(o.model, n_weights, o.threads);
    j["profile"] = prof;
  }
  std::cout << j.dump() << "\n";
  return 0;
}
