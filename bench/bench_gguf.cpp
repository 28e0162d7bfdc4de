// attnviz-bench-gguf: how long a GGUF file takes to open and to run a T-token forward that keeps every
// head (trace_run), and how much memory that takes. Two ways to open: `--open model_open` (the default:
// what the app and CLI do, layers kept quantized in the mapped file and decoded when the first forward
// reaches them) and `--open decoded_now` (gguf_map + gguf_model_from_file with every layer decoded to
// float as the file opens: the design before layers on demand). The first forward is reported apart from
// the median of the later ones. Prints one JSON line for bench/gguf_vs_llamacpp.sh, which runs llama.cpp
// beside it. --profile adds the open's stages (gguf_map, the tokenizer, gguf_model_from_file decoding
// every layer, from a second open) and what the machine allows for the decoding's writes (first touch of
// fresh float-sized memory). Not a test.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "base/memory_tuning.h"
#include "base/parse_number.h"
#include "bench_memory.h"
#include "io/gguf.h"
#include "io/gguf_model.h"
#include "io/gguf_tokenizer.h"
#include "io/model_open.h"
#include "model/layer_source.h"
#include "model/trace.h"

namespace {

using attnviz::bench::status_mib;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds of every thread of the process: on a shared machine the wall time says as much about the
// neighbours as about the work.
double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Every layer's weights, through model_layer (decoded now if a layer is not cached: call after the timing).
std::vector<std::shared_ptr<const attnviz::LayerWeights>> layers_of(const attnviz::Model& m) {
  std::vector<std::shared_ptr<const attnviz::LayerWeights>> out;
  for (int l = 0; l < m.config.n_layers; ++l)
    if (auto L = attnviz::model_layer(m, l)) out.push_back(*L);
  return out;
}

// The file's own parameters (what it stores, decoded): the zero biases the engine adds are not counted.
int64_t file_weight_count(const attnviz::Model& m) {
  const auto& w = m.weights;
  int64_t n = w.tok_embed.size() + w.final_norm_w.size() + w.output_w.size();
  for (const auto& L : layers_of(m))
    n += L->attn.in_proj_w.size() + L->attn.out_w.size() + L->ff_gate_w.size() + L->ff1_w.size() + L->ff2_w.size() +
         L->norm1_w.size() + L->norm2_w.size();
  return n + static_cast<int64_t>(m.config.rope.divisors.size());
}

// Every float the model holds with all its layers decoded: the above plus the zero biases and norm biases
// the engine keeps.
int64_t model_float_count(const attnviz::Model& m) {
  const auto& w = m.weights;
  int64_t n = w.tok_embed.size() + w.pos_embed.size() + w.type_embed.size() + w.embed_norm_w.size() +
              w.embed_norm_b.size() + w.final_norm_w.size() + w.final_norm_b.size() + w.output_w.size() +
              w.output_b.size() + w.mlm_dense_w.size() + w.mlm_dense_b.size() + w.mlm_norm_w.size() + w.mlm_norm_b.size();
  for (const auto& L : layers_of(m))
    n += L->attn.in_proj_w.size() + L->attn.in_proj_b.size() + L->attn.out_w.size() + L->attn.out_b.size() +
         L->attn.general_w.size() + L->attn.additive_wq.size() + L->attn.additive_wk.size() + L->attn.additive_v.size() +
         L->ff_gate_w.size() + L->ff1_w.size() + L->ff1_b.size() + L->ff2_w.size() + L->ff2_b.size() + L->norm1_w.size() +
         L->norm1_b.size() + L->norm2_w.size() + L->norm2_b.size();
  return n;
}

// The design before layers on demand: gguf_map, then every tensor decoded as the file opens (what
// model_open's GGUF path was).
attnviz::Result<attnviz::Model> open_decoded_now(const std::string& path) {
  auto mapped = attnviz::gguf_map(path);
  if (!mapped) return attnviz::make_error(mapped.error());
  return attnviz::gguf_model_from_file(std::make_shared<const attnviz::GgufMapped>(std::move(*mapped)),
                                       attnviz::GgufOpen{attnviz::GgufOpen::Layers::decoded_now});
}

struct Options {
  std::string model, open = "model_open";
  int tokens = 128, repeats = 3, threads = 2;
  bool profile = false;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--profile") {
      o.profile = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      if (!o.model.empty()) return false;
      o.model = a;
      continue;
    }
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    bool ok = true;
    if (a == "--tokens") ok = attnviz::parse_int_in(v, 1, attnviz::kMaxTokens, o.tokens);
    else if (a == "--repeats") ok = attnviz::parse_int_in(v, 1, 1000, o.repeats);
    else if (a == "--threads") ok = attnviz::parse_int_in(v, 1, 256, o.threads);
    else if (a == "--open") {
      ok = v == "model_open" || v == "decoded_now";
      o.open = v;
    }
    else ok = false;
    if (!ok) return false;
  }
  return !o.model.empty();
}

// The tokenizer's BOS: the special token its framing puts before an empty text; -1 when it adds none.
int bos_id(const attnviz::Model& m) {
  if (!m.tokenizer) return -1;
  auto enc = m.tokenizer->encode("");
  if (!enc || enc->tokens.empty() || !enc->tokens.front().special) return -1;
  return enc->tokens.front().id;
}

// The open again in its two stages, each timed: the map and parse, then the decoding into a model (which
// builds the tokenizer first: it is also timed alone).
json open_stages(const std::string& path) {
  json j;
  auto t = Clock::now();
  auto mapped = attnviz::gguf_map(path);
  j["gguf_map_s"] = seconds_since(t);
  if (!mapped) return j["error"] = mapped.error(), j;
  t = Clock::now();
  auto tokenizer = attnviz::gguf_tokenizer(mapped->file);  // what gguf_model_from_file builds first, alone
  j["tokenizer_s"] = seconds_since(t);
  if (!tokenizer) return j["error"] = tokenizer.error(), j;
  std::vector<std::pair<double, float>> pace;
  t = Clock::now();
  const double cpu0 = process_cpu_s();
  auto model = attnviz::gguf_model_from_file(std::make_shared<const attnviz::GgufMapped>(std::move(*mapped)),
                                             attnviz::GgufOpen{attnviz::GgufOpen::Layers::decoded_now},
                                             [&](float f) { pace.emplace_back(seconds_since(t), f); });
  j["from_file_s"] = seconds_since(t);
  j["from_file_cpu_s"] = process_cpu_s() - cpu0;
  if (!model) return j["error"] = model.error(), j;
  json quarters = json::array();
  for (float q : {0.25f, 0.5f, 0.75f, 1.0f})
    for (const auto& [s, f] : pace)
      if (f >= q) {
        quarters.push_back(s);
        break;
      }
  j["from_file_quarters_s"] = quarters;  // when 25/50/75/100% of the tensor bytes were decoded
  return j;
}

// The floor of any open that decodes to float: writing `n` floats into fresh pages (an anonymous mapping:
// the page faults and the stores), rewriting them resident, and reading them back.
json machine_json(int64_t n, int threads) {
  json j;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return j["error"] = "mmap failed", j;
  auto* buf = static_cast<float*>(p);
  constexpr int64_t kPiece = 1 << 16;
  for (int pass = 0; pass < 2; ++pass) {
    const auto t = Clock::now();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; i += kPiece)
      std::memset(buf + i, pass + 1, sizeof(float) * static_cast<size_t>(std::min(kPiece, n - i)));
    const double s = seconds_since(t);
    j[pass == 0 ? "first_touch_s" : "rewrite_s"] = s;
    j[pass == 0 ? "first_touch_gb_per_s" : "rewrite_gb_per_s"] = static_cast<double>(bytes) / s / 1e9;
  }
  const auto t = Clock::now();
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(threads)
  for (int64_t i = 0; i < n; i += kPiece) sum += Eigen::Map<const Eigen::VectorXf>(buf + i, std::min(kPiece, n - i)).sum();
  j["read_gb_per_s"] = static_cast<double>(bytes) / seconds_since(t) / 1e9;
  j["checksum"] = sum;
  munmap(p, bytes);
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  Options o;
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: attnviz-bench-gguf MODEL.gguf [--open model_open|decoded_now] [--tokens 128] [--repeats 3] [--threads 2]\n"
                 "       [--profile]\n";
    return 2;
  }
  omp_set_num_threads(o.threads);
  Eigen::setNbThreads(o.threads);
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(o.model, ec);
  if (ec) {
    std::cerr << "attnviz-bench-gguf: " << o.model << ": " << ec.message() << "\n";
    return 1;
  }
  const double rss_before = status_mib("VmRSS");
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_s();
  auto model = o.open == "decoded_now" ? open_decoded_now(o.model) : attnviz::model_open(o.model);
  const double load_s = seconds_since(t0), load_cpu_s = process_cpu_s() - cpu0;
  if (!model) {
    std::cerr << "attnviz-bench-gguf: " << model.error() << "\n";
    return 1;
  }
  const double rss_loaded = status_mib("VmRSS"), rss_peak_load = status_mib("VmHWM");

  // BOS, then ids 1000, 1001, ...: fixed ids, no tokenizing in the timed part.
  attnviz::TraceInput in;
  const int bos = bos_id(*model);
  if (bos >= 0) in.token_ids.push_back(bos);
  for (int id = 1000; static_cast<int>(in.token_ids.size()) < o.tokens; ++id) in.token_ids.push_back(id);
  std::vector<double> times;
  double first_s = 0, first_cpu_s = 0, rss_first = 0;
  for (int r = 0; r <= o.repeats; ++r) {  // run 0, the first, is reported apart; freeing the trace is timed
    const auto f0 = Clock::now();
    const double c0 = process_cpu_s();
    {
      auto trace = attnviz::trace_run(*model, in);
      if (!trace) {
        std::cerr << "attnviz-bench-gguf: " << trace.error() << "\n";
        return 1;
      }
    }
    if (r > 0) times.push_back(seconds_since(f0));
    else first_s = seconds_since(f0), first_cpu_s = process_cpu_s() - c0, rss_first = status_mib("VmRSS");
  }
  const auto& c = model->config;
  const int64_t n_file = file_weight_count(*model), n_model = model_float_count(*model);
  json j = {{"model", o.model},
            {"open", o.open},
            {"layers_kept", model->layer_source ? model->layer_source->layers_kept() : c.n_layers},
            {"file_bytes", file_bytes},
            {"load_s", load_s},
            {"load_cpu_s", load_cpu_s},
            {"forward_first_s", first_s},
            {"forward_first_cpu_s", first_cpu_s},
            {"forward_s", median(times)},
            {"forward_all_s", times},
            {"tokens", o.tokens},
            {"repeats", o.repeats},
            {"threads", o.threads},
            {"bos", bos},
            {"rss_before_mb", rss_before},
            {"rss_after_load_mb", rss_loaded},
            {"rss_peak_load_mb", rss_peak_load},
            {"rss_after_first_forward_mb", rss_first},
            {"rss_peak_mb", status_mib("VmHWM")},
            {"weights", n_file},
            {"weights_f32_bytes", n_file * 4},
            {"model_float_bytes", n_model * 4},
            {"config", {{"C", c.d_model}, {"L", c.n_layers}, {"NH", c.n_heads}, {"NKV", c.n_kv_heads}, {"F", c.d_ff},
                        {"V", model->weights.tok_embed.rows()}}}};
  if (o.profile) {
    *model = attnviz::Model{};  // freed first (matrices above 32 MB go back to the kernel at once)
    json machine = machine_json(n_model, o.threads);
    j["profile"] = {{"open_stages", open_stages(o.model)}, {"machine", machine}};
  }
  std::cout << j.dump() << "\n";
  return 0;
}
