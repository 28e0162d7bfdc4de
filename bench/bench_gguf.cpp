// attnviz-bench-gguf: how long a GGUF file takes to open and to run a T-token forward that keeps every
// head (trace_run), and how much memory that takes. Two ways to open: `--open model_open` (the default:
// what the app and CLI do, layers kept quantized in the mapped file and decoded when the first forward
// reaches them) and `--open decoded_now` (gguf_map + gguf_model_from_file with every layer decoded to
// float as the file opens: the design before layers on demand). The first forward is reported apart from
// the median of the later ones. Prints one JSON line for bench/gguf_vs_llamacpp.sh, which runs llama.cpp
// beside it. --profile adds the open's stages (gguf_map, the tokenizer, gguf_model_from_file decoding
// every layer, from a second open) and what the machine allows for the decoding's writes (first touch of
// fresh float-sized memory). Not a test.
//
// Long inputs: --tokens goes up to kMaxTokens (8192). A trace is refused past its memory limit
// (TraceInput::max_memory: 2 GiB unless --max-trace-memory SIZE raises it, e.g. 16G); past 2^28 attention
// cells (or with --maps-on-demand) it keeps Q, K, V and head outputs instead of the maps, and the JSON says
// so (maps_kept "none"), with trace_bytes (what the size check counts). --repeats 0 runs the first forward
// only. --layers-kept N opens as model_open does but keeps the first N layers decoded instead of as many as
// a third of the memory available holds. --rss-limit SIZE stops the process (exit 3, a JSON line with
// "stopped") as soon as VmRSS passes SIZE, polled every 0.1 s; --progress prints each finished layer's
// time and VmRSS to stderr. The JSON's layer_done_s is when each layer of the first forward finished.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "base/memory_available.h"
#include "base/memory_tuning.h"
#include "base/parse_number.h"
#include "bench_memory.h"
#include "bench_timing.h"
#include "io/gguf.h"
#include "io/gguf_model.h"
#include "io/gguf_tokenizer.h"
#include "io/model_open.h"
#include "model/layer_source.h"
#include "model/trace.h"
#include "model/vocab_table.h"

namespace {

using attnviz::bench::status_mib;
using Clock = std::chrono::steady_clock;
using attnviz::bench::process_cpu_s;
using attnviz::bench::seconds_since;
using attnviz::bench::upper_median;
using json = nlohmann::json;

// Calls f on every layer's weights in turn, through model_layer (decoded now if a layer is not kept: call
// after the timing). One layer at a time: an 8B-shaped model's 25 layers not kept are 22 GB of floats.
template <class F>
void for_each_layer(const attnviz::Model& m, F&& f) {
  for (int l = 0; l < m.config.n_layers; ++l)
    if (auto L = attnviz::model_layer(m, l)) f(**L);
}

// The values of the token table and output head kept in the file's encoding (model/vocab_table.h), not
// in tok_embed / output_w.
int64_t encoded_table_count(const attnviz::Model& m) {
  int64_t n = 0;
  for (const auto& t : {m.weights.tok_embed_encoded, m.weights.output_w_encoded})
    if (t) n += t->rows() * t->cols();
  return n;
}

// The file's own parameters (what it stores, decoded): the zero biases the engine adds are not counted.
int64_t file_weight_count(const attnviz::Model& m) {
  const auto& w = m.weights;
  int64_t n = w.tok_embed.size() + w.final_norm_w.size() + w.output_w.size() + encoded_table_count(m);
  for_each_layer(m, [&](const attnviz::LayerWeights& L) {
    n += L.attn.in_proj_w.size() + L.attn.out_w.size() + L.ff_gate_w.size() + L.ff1_w.size() + L.ff2_w.size() +
         L.norm1_w.size() + L.norm2_w.size();
  });
  return n + static_cast<int64_t>(m.config.rope.divisors.size());
}

// Every float the model holds with all its layers and tables decoded: the above plus the zero biases and
// norm biases the engine keeps.
int64_t model_float_count(const attnviz::Model& m) {
  const auto& w = m.weights;
  int64_t n = w.tok_embed.size() + w.pos_embed.size() + w.type_embed.size() + w.embed_norm_w.size() +
              w.embed_norm_b.size() + w.final_norm_w.size() + w.final_norm_b.size() + w.output_w.size() +
              w.output_b.size() + w.mlm_dense_w.size() + w.mlm_dense_b.size() + w.mlm_norm_w.size() + w.mlm_norm_b.size() +
              encoded_table_count(m);
  for_each_layer(m, [&](const attnviz::LayerWeights& L) {
    n += L.attn.in_proj_w.size() + L.attn.in_proj_b.size() + L.attn.out_w.size() + L.attn.out_b.size() +
         L.attn.general_w.size() + L.attn.additive_wq.size() + L.attn.additive_wk.size() + L.attn.additive_v.size() +
         L.ff_gate_w.size() + L.ff1_w.size() + L.ff1_b.size() + L.ff2_w.size() + L.ff2_b.size() + L.norm1_w.size() +
         L.norm1_b.size() + L.norm2_w.size() + L.norm2_b.size();
  });
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
  int layers_kept = -1;              // -1: as model_open (a third of the memory available)
  int64_t max_trace_memory = 0;      // 0: kTraceMemoryDefault
  int64_t rss_limit = 0;             // 0: none
  bool profile = false, maps_on_demand = false, progress = false;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--profile" || a == "--maps-on-demand" || a == "--progress") {
      (a == "--profile" ? o.profile : a == "--progress" ? o.progress : o.maps_on_demand) = true;
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
    else if (a == "--repeats") ok = attnviz::parse_int_in(v, 0, 1000, o.repeats);
    else if (a == "--layers-kept") ok = attnviz::parse_int_in(v, 0, 1 << 20, o.layers_kept);
    else if (a == "--max-trace-memory" || a == "--rss-limit") {
      auto size = attnviz::memory_size_parse(v);
      ok = static_cast<bool>(size);
      if (ok) (a == "--rss-limit" ? o.rss_limit : o.max_trace_memory) = *size;
    }
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

const char* maps_kept_name(attnviz::MapsKept k) {
  return k == attnviz::MapsKept::all ? "all" : k == attnviz::MapsKept::weights ? "weights" : "none";
}

// model_open's GGUF path with a fixed number of layers kept decoded.
attnviz::Result<attnviz::Model> open_layers_kept(const std::string& path, int kept) {
  auto mapped = attnviz::gguf_map(path);
  if (!mapped) return attnviz::make_error(mapped.error());
  return attnviz::gguf_model_from_file(std::make_shared<const attnviz::GgufMapped>(std::move(*mapped)),
                                       attnviz::GgufOpen{attnviz::GgufOpen::Layers::on_demand, kept});
}

// A thread polling VmRSS every 0.1 s: stops the process past `rss_limit` bytes (0: never), and during
// the forward begun with `begin` notes when each of its layers finishes (and with `print` says so on stderr).
class Watch {
 public:
  Watch(int64_t rss_limit, bool print) : rss_limit_(rss_limit), print_(print), t0_(Clock::now()) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Watch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void begin(const std::atomic<int>* layers_done) {
    std::lock_guard<std::mutex> lock(mutex_);
    layers_ = layers_done;
    seen_ = 0;
    done_s_.clear();
    forward_t0_ = Clock::now();
  }
  // The forward is over: the layers' times (those not seen yet get now).
  std::vector<double> end() {
    std::lock_guard<std::mutex> lock(mutex_);
    note_layers();
    layers_ = nullptr;
    return done_s_;
  }

 private:
  void note_layers() {  // under mutex_
    if (!layers_) return;
    for (const int done = layers_->load(); seen_ < done; ++seen_) {
      done_s_.push_back(seconds_since(forward_t0_));
      if (print_)
        std::cerr << "layer " << seen_ << " done at " << done_s_.back() << " s, VmRSS " << status_mib("VmRSS")
                  << " MiB, RssAnon " << status_mib("RssAnon") << " MiB" << std::endl;
    }
  }
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
      const double rss = status_mib("VmRSS");
      if (rss_limit_ > 0 && rss * 1048576.0 > static_cast<double>(rss_limit_)) {
        std::cout << json{{"stopped", "VmRSS passed --rss-limit"}, {"rss_mb", rss}, {"rss_anon_mb", status_mib("RssAnon")},
                          {"rss_file_mb", status_mib("RssFile")}, {"at_s", seconds_since(t0_)},
                          {"layers_done", layers_ ? layers_->load() : -1}}
                         .dump()
                  << std::endl;
        std::_Exit(3);
      }
      note_layers();
    }
  }

  int64_t rss_limit_;
  bool print_;
  Clock::time_point t0_, forward_t0_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  const std::atomic<int>* layers_ = nullptr;
  int seen_ = 0;
  std::vector<double> done_s_;
  std::thread thread_;
};

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
                 "       [--profile] [--max-trace-memory SIZE] [--maps-on-demand] [--layers-kept N] [--rss-limit SIZE]\n"
                 "       [--progress]\n";
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
  if (o.layers_kept >= 0 && o.open != "model_open") {
    std::cerr << "attnviz-bench-gguf: --layers-kept goes with --open model_open\n";
    return 2;
  }
  Watch watch(o.rss_limit, o.progress);
  const double rss_before = status_mib("VmRSS");
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_s();
  auto model = o.open == "decoded_now" ? open_decoded_now(o.model)
               : o.layers_kept >= 0   ? open_layers_kept(o.model, o.layers_kept)
                                      : attnviz::model_open(o.model);
  const double load_s = seconds_since(t0), load_cpu_s = process_cpu_s() - cpu0;
  if (!model) {
    std::cerr << "attnviz-bench-gguf: " << model.error() << "\n";
    return 1;
  }
  const double rss_loaded = status_mib("VmRSS"), rss_peak_load = status_mib("VmHWM");
  const double rss_anon_loaded = status_mib("RssAnon"), rss_file_loaded = status_mib("RssFile");

  // BOS, then ids 1000, 1001, ...: fixed ids, no tokenizing in the timed part.
  attnviz::TraceInput in;
  in.max_memory = o.max_trace_memory;
  in.maps_on_demand = o.maps_on_demand;
  const int bos = bos_id(*model);
  if (bos >= 0) in.token_ids.push_back(bos);
  for (int id = 1000; static_cast<int>(in.token_ids.size()) < o.tokens; ++id) in.token_ids.push_back(id);
  std::vector<double> times, layer_done_s;
  double first_s = 0, first_cpu_s = 0, rss_first = 0, rss_anon_first = 0, rss_file_first = 0, rss_with_trace = 0,
         rss_anon_with_trace = 0;
  std::string maps_kept;
  for (int r = 0; r <= o.repeats; ++r) {  // run 0, the first, is reported apart; freeing the trace is timed
    std::atomic<int> layers_done{0};
    watch.begin(&layers_done);
    const auto f0 = Clock::now();
    const double c0 = process_cpu_s();
    {
      auto trace = attnviz::trace_run(*model, in, attnviz::TraceControl{nullptr, &layers_done});
      if (!trace) {
        std::cerr << "attnviz-bench-gguf: " << trace.error() << "\n";
        return 1;
      }
      if (r == 0) {
        maps_kept = maps_kept_name(trace->maps_kept);
        rss_with_trace = status_mib("VmRSS"), rss_anon_with_trace = status_mib("RssAnon");
      }
    }
    const double s = seconds_since(f0);
    auto done = watch.end();
    if (r > 0) times.push_back(s);
    else {
      first_s = s, first_cpu_s = process_cpu_s() - c0, layer_done_s = std::move(done);
      rss_first = status_mib("VmRSS"), rss_anon_first = status_mib("RssAnon"), rss_file_first = status_mib("RssFile");
    }
  }
  const auto& c = model->config;
  const int64_t n_tokens = static_cast<int64_t>(in.token_ids.size());
  const double rss_peak = status_mib("VmHWM");  // before the counts below decode the layers not kept
  const int64_t n_file = file_weight_count(*model), n_model = model_float_count(*model);
  json j = {{"model", o.model},
            {"open", o.open},
            {"layers_kept", model->layer_source ? model->layer_source->layers_kept() : c.n_layers},
            {"tables_encoded", attnviz::vocab_table_encoded(*model, attnviz::VocabTable::tokens) ||
                                   attnviz::vocab_table_encoded(*model, attnviz::VocabTable::output)},
            {"file_bytes", file_bytes},
            {"load_s", load_s},
            {"load_cpu_s", load_cpu_s},
            {"forward_first_s", first_s},
            {"forward_first_cpu_s", first_cpu_s},
            {"forward_s", times.empty() ? json(nullptr) : json(upper_median(times))},
            {"forward_all_s", times},
            {"tokens", o.tokens},
            {"repeats", o.repeats},
            {"threads", o.threads},
            {"bos", bos},
            {"rss_before_mb", rss_before},
            {"rss_after_load_mb", rss_loaded},
            {"rss_peak_load_mb", rss_peak_load},
            {"rss_after_first_forward_mb", rss_first},
            {"rss_anon_after_load_mb", rss_anon_loaded},
            {"rss_file_after_load_mb", rss_file_loaded},
            {"rss_with_first_trace_mb", rss_with_trace},  // the trace still held, before it is freed
            {"rss_anon_with_first_trace_mb", rss_anon_with_trace},
            {"rss_anon_after_first_forward_mb", rss_anon_first},
            {"rss_file_after_first_forward_mb", rss_file_first},
            {"rss_peak_mb", rss_peak},
            {"maps_kept", maps_kept},
            {"maps_on_demand_asked", o.maps_on_demand},
            {"max_trace_memory", o.max_trace_memory > 0 ? o.max_trace_memory : attnviz::kTraceMemoryDefault},
            {"trace_bytes", attnviz::trace_bytes(c, n_tokens, n_tokens, o.maps_on_demand)},
            {"layer_done_s", layer_done_s},
            {"layer_bytes", model->layer_source ? json(model->layer_source->layer_bytes()) : json(nullptr)},
            {"weights", n_file},
            {"weights_f32_bytes", n_file * 4},
            {"model_float_bytes", n_model * 4},
            {"config", {{"C", c.d_model}, {"L", c.n_layers}, {"NH", c.n_heads}, {"NKV", c.n_kv_heads}, {"F", c.d_ff},
                        {"V", attnviz::vocab_table_rows(*model, attnviz::VocabTable::tokens)}}}};
  if (o.profile) {
    *model = attnviz::Model{};  // freed first (matrices above 32 MB go back to the kernel at once)
    json machine = machine_json(n_model, o.threads);
    j["profile"] = {{"open_stages", open_stages(o.model)}, {"machine", machine}};
  }
  std::cout << j.dump() << "\n";
  return 0;
}
