// attnviz-bench-checkpoint: how long a checkpoint folder takes to open (model_open: weights,
// config, tokenizer, every check) and to run a T-token forward that keeps every head, and how much
// memory that takes. Prints one JSON line for bench/checkpoint_vs_torch.py. Not a test.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "base/memory_tuning.h"
#include "base/parse_number.h"
#include "bench_memory.h"
#include "bench_timing.h"
#include "io/model_open.h"
#include "model/trace.h"

namespace {

using attnviz::bench::status_mib;
using Clock = std::chrono::steady_clock;
using attnviz::bench::process_cpu_s;
using attnviz::bench::seconds_since;

int64_t weight_count(const attnviz::Model& m) {
  int64_t n = m.weights.tok_embed.size() + m.weights.pos_embed.size() + m.weights.type_embed.size();
  for (const auto& L : m.weights.layers)
    n += L.attn.in_proj_w.size() + L.attn.in_proj_b.size() + L.attn.out_w.size() + L.attn.out_b.size() +
         L.ff1_w.size() + L.ff1_b.size() + L.ff2_w.size() + L.ff2_b.size() + 2 * L.norm1_w.size() + 2 * L.norm2_w.size();
  return n;
}

struct Options {
  std::string model;
  int tokens = 128, repeat = 5, threads = 2;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], v = argv[i + 1];
    bool ok = true;
    if (flag == "--model") o.model = v;
    else if (flag == "--tokens") ok = attnviz::parse_int_in(v, 1, attnviz::kMaxTokens, o.tokens);
    else if (flag == "--repeat") ok = attnviz::parse_int_in(v, 1, 1000, o.repeat);
    else if (flag == "--threads") ok = attnviz::parse_int_in(v, 1, 256, o.threads);
    else ok = false;
    if (!ok) return false;
  }
  return !o.model.empty() && argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  Options o;
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: attnviz-bench-checkpoint --model DIR [--tokens 128] [--repeat 5] [--threads 2]\n";
    return 2;
  }
  omp_set_num_threads(o.threads);
  Eigen::setNbThreads(o.threads);
  const double rss_before = status_mib("VmRSS");
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_s();
  auto model = attnviz::model_open(o.model);
  const double load_s = seconds_since(t0), load_cpu_s = process_cpu_s() - cpu0;
  if (!model) {
    std::cerr << "attnviz-bench-checkpoint: " << model.error() << "\n";
    return 1;
  }
  const double rss_loaded = status_mib("VmRSS");
  const double rss_peak_load = status_mib("VmHWM");  // the load's own peak, before any forward
  // Real text through the checkpoint's own tokenizer, cut to exactly T ids.
  std::string text;
  std::vector<int> ids;
  const auto tok0 = Clock::now();
  while (static_cast<int>(ids.size()) < o.tokens) {
    text += "The animal didn't cross the street because it was too tired. ";
    auto enc = model->tokenizer->encode(text);
    if (!enc) {
      std::cerr << "attnviz-bench-checkpoint: " << enc.error() << "\n";
      return 1;
    }
    ids.clear();
    for (const auto& t : enc->tokens) ids.push_back(t.id);
  }
  const double tokenize_s = seconds_since(tok0);
  ids.resize(static_cast<size_t>(o.tokens));
  attnviz::TraceInput in;
  in.token_ids = ids;
  std::vector<double> times;
  for (int r = 0; r <= o.repeat; ++r) {  // run 0 warms up
    const auto f0 = Clock::now();
    auto trace = attnviz::trace_run(*model, in);
    const double s = seconds_since(f0);
    if (!trace) {
      std::cerr << "attnviz-bench-checkpoint: " << trace.error() << "\n";
      return 1;
    }
    if (r > 0) times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  const nlohmann::json j = {{"load_s", load_s},
                            {"load_cpu_s", load_cpu_s},
                            {"forward_s", times[times.size() / 2]},
                            {"forward_all_s", times},
                            {"tokenize_s", tokenize_s},
                            {"rss_before_mb", rss_before},
                            {"rss_after_load_mb", rss_loaded},
                            {"rss_peak_load_mb", rss_peak_load},
                            {"rss_peak_mb", status_mib("VmHWM")},
                            {"weights_mb", static_cast<double>(weight_count(*model)) * 4.0 / (1024.0 * 1024.0)},
                            {"tokens", o.tokens},
                            {"threads", o.threads},
                            {"ids", ids}};
  std::cout << j.dump() << "\n";
  return 0;
}
