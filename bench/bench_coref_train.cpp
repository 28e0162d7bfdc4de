// attnviz-bench-coref: times coref_train (the coreference demo's training) from scratch to its
// held-out target, `--repeat` times in one process, one JSON line per run and a median line. Its
// defaults are CorefTrainOptions{}'s, i.e. the shipped demo. With --export DIR it also writes what
// coref_train_vs_torch.py needs to train the same model on the same batches in PyTorch. A
// benchmark, not a test: it asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <omp.h>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/memory_tuning.h"
#include "base/parse_number.h"
#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "io/model_file.h"
#include "train/train.h"

namespace {

using attnviz::CorefTrainOptions;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  CorefTrainOptions train;  // coref_train's defaults except what the flags change
  int repeat = 3;
  std::string export_dir;   // empty: no export
  int logits_examples = 4;  // held-out examples whose initial logits go to init_logits.json
};

// Built from the option structs so the help can never drift from the real defaults.
std::string usage_text() {
  const BenchOptions d;
  return "usage: attnviz-bench-coref [--seed " + std::to_string(d.train.seed) + "] [--d-ff " +
         std::to_string(d.train.d_ff) + "] [--heads " + std::to_string(d.train.n_heads) + "] [--repeat " +
         std::to_string(d.repeat) + "] [--export DIR]\n" +
         "  defaults: CorefTrainOptions{}, the shipped demo (d-ff 0: attention-only layers, no feed-forward)\n";
}

bool parse_int(std::string_view s, int& out) { return attnviz::parse_int_in(s, 0, std::numeric_limits<int>::max(), out); }

// Returns an empty string on success, else the message for stderr (or the usage, with help set).
std::string options_parse(int argc, char** argv, BenchOptions& o, bool& help) {
  help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      help = true;
      return usage_text();
    }
    if (i + 1 >= argc) return std::string(flag) + " needs a value";
    const std::string_view v = argv[++i];
    bool ok = true;
    if (flag == "--seed") {
      int s = 0;
      ok = parse_int(v, s);
      o.train.seed = static_cast<uint64_t>(s);
    } else if (flag == "--d-ff") ok = parse_int(v, o.train.d_ff);
    else if (flag == "--heads") ok = parse_int(v, o.train.n_heads) && o.train.n_heads >= 1;
    else if (flag == "--repeat") ok = parse_int(v, o.repeat) && o.repeat >= 1;
    else if (flag == "--export") o.export_dir = std::string(v);
    else return "unknown option " + std::string(flag) + "\n" + usage_text();
    if (!ok) return "bad value for " + std::string(flag) + ": " + std::string(v);
  }
  return {};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Everything the PyTorch side must match: the trainer's options and the optimiser's fixed settings.
json options_json(const CorefTrainOptions& o, const attnviz::Model& model) {
  const attnviz::AdamConfig adam;  // coref_train sets lr and weight decay; the rest are these defaults
  return {{"seed", o.seed},
          {"d_model", o.d_model},
          {"n_heads", o.n_heads},
          {"n_layers", o.n_layers},
          {"d_ff", o.d_ff},
          {"batch", coref_batch_size(o)},
          {"max_steps", o.max_steps},
          {"target_accuracy", o.target_accuracy},
          {"eval_every", o.eval_every},
          {"lr", coref_learning_rate(o)},
          {"weight_decay", o.weight_decay},
          {"beta1", adam.beta1},
          {"beta2", adam.beta2},
          {"eps", adam.eps},
          {"clip_norm", adam.clip_norm},
          {"ln_eps", model.config.ln_eps},
          {"max_positions", model.config.max_positions},
          {"activation", attnviz::name_of(model.config.activation)},
          {"norm", attnviz::name_of(model.config.norm)},
          {"final_norm", model.config.final_norm},
          {"vocab_size", model.vocab.size()}};
}

// One example as the trainer sees it: ids through coref_train_example, so the vocabulary lookup is ours.
attnviz::Result<json> example_json(const attnviz::Model& model, const attnviz::CorefExample& e) {
  auto ex = attnviz::coref_train_example(model, e);
  if (!ex) return attnviz::make_error(ex.error());
  return json{{"ids", ex->ids}, {"pronoun", e.pronoun}, {"target", ex->targets[static_cast<size_t>(e.pronoun)]}};
}

attnviz::Result<json> examples_json(const attnviz::Model& model, const std::vector<attnviz::CorefExample>& list) {
  json out = json::array();
  for (const auto& e : list) {
    auto j = example_json(model, e);
    if (!j) return attnviz::make_error(j.error());
    out.push_back(std::move(*j));
  }
  return out;
}

attnviz::Status write_json(const std::filesystem::path& path, const json& j) {
  return attnviz::file_write_atomic(path.string(), std::string_view(j.dump()));
}

// The files coref_train_vs_torch.py reads. The training list is in consumption order: step s
// (from 1) trains on train[(s-1)*batch + b mod size] for b < batch, which is coref_train's rule.
attnviz::Status export_run(const BenchOptions& o) {
  const std::filesystem::path dir(o.export_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return attnviz::make_error("cannot create " + dir.string() + ": " + ec.message());
  auto model = attnviz::coref_model_init(o.train);
  if (!model) return attnviz::make_error(model.error());
  if (auto s = attnviz::model_save((dir / "init.safetensors").string(), *model); !s) return s;
  const attnviz::CorefSplit data = attnviz::coref_generate(o.train.seed);
  auto train = examples_json(*model, data.train);
  auto heldout = examples_json(*model, data.heldout);
  if (!train) return attnviz::make_error(train.error());
  if (!heldout) return attnviz::make_error(heldout.error());
  const json data_j = {{"batch_rule", "step s (from 1) uses train[((s-1)*batch + b) % len(train)], b < batch"},
                       {"train", *train},
                       {"heldout", *heldout}};
  if (auto s = write_json(dir / "data.json", data_j); !s) return s;
  if (auto s = write_json(dir / "options.json", options_json(o.train, *model)); !s) return s;

  // Initial logits on the first held-out examples: the PyTorch model must reproduce them.
  json logits = json::array();
  const size_t n = std::min(data.heldout.size(), static_cast<size_t>(o.logits_examples));
  for (size_t i = 0; i < n; ++i) {
    auto ex = attnviz::coref_train_example(*model, data.heldout[i]);
    if (!ex) return attnviz::make_error(ex.error());
    auto l = attnviz::model_logits(*model, *ex);
    if (!l) return attnviz::make_error(l.error());
    json rows = json::array();
    for (Eigen::Index t = 0; t < l->rows(); ++t)
      rows.push_back(std::vector<float>(l->row(t).data(), l->row(t).data() + l->cols()));
    logits.push_back({{"heldout_index", i}, {"ids", ex->ids}, {"logits", rows}});
  }
  if (auto s = write_json(dir / "init_logits.json", logits); !s) return s;

  // Our loss at every step of one run, so the PyTorch side can see where the two trajectories part.
  CorefTrainOptions traced = o.train;
  traced.report_every = 1;
  json losses = json::array(), evals = json::array();
  auto run = attnviz::coref_train(traced, [&](const attnviz::TrainProgress& p, const attnviz::Model&) {
    losses.push_back(p.loss);
    if (p.evaluated) evals.push_back({{"step", p.step}, {"heldout_accuracy", p.heldout_accuracy}});
    return true;
  });
  if (!run) return attnviz::make_error(run.error());
  return write_json(dir / "our_trajectory.json", {{"loss", losses}, {"evaluations", evals}});
}

// One timed coref_train. `total_s` is the whole call (model init and data generation included);
// `loop_s` is coref_train's own clock at the last evaluation (first step to the stopping evaluation).
// `cpu_s` is the process's CPU time over the call, all threads: on a shared machine it shows how much
// of the wall time was work (or spinning) rather than waiting for a core.
attnviz::Result<json> timed_run(const CorefTrainOptions& o) {
  const Clock::time_point t0 = Clock::now();
  const std::clock_t c0 = std::clock();
  auto r = attnviz::coref_train(o);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double total = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!r) return attnviz::make_error(r.error());
  const attnviz::TrainProgress& last = r->history.back();
  return json{{"total_s", total},
              {"loop_s", last.seconds},
              {"cpu_s", cpu},
              {"steps", last.step},
              {"heldout_accuracy", r->heldout_accuracy},
              {"reached", r->heldout_accuracy >= o.target_accuracy}};
}

int bench_run(const BenchOptions& o) {
  if (!o.export_dir.empty()) {
    if (auto s = export_run(o); !s) {
      std::cerr << "attnviz-bench-coref: --export: " << s.error() << "\n";
      return 1;
    }
  }
  std::vector<double> totals, loops, cpus;
  json last;
  for (int r = 0; r < o.repeat; ++r) {
    auto j = timed_run(o.train);
    if (!j) {
      std::cerr << "attnviz-bench-coref: " << j.error() << "\n";
      return 1;
    }
    (*j)["run"] = r;
    totals.push_back((*j)["total_s"].get<double>());
    loops.push_back((*j)["loop_s"].get<double>());
    cpus.push_back((*j)["cpu_s"].get<double>());
    std::cout << j->dump() << std::endl;
    last = std::move(*j);
  }
  // Steps and accuracy are the same every run: coref_train is deterministic for a seed.
  const json summary = {{"median_total_s", median(totals)},
                        {"median_loop_s", median(loops)},
                        {"median_cpu_s", median(cpus)},
                        {"steps", last["steps"]},
                        {"heldout_accuracy", last["heldout_accuracy"]},
                        {"reached", last["reached"]},
                        {"repeat", o.repeat},
                        {"seed", o.train.seed},
                        {"d_ff", o.train.d_ff},
                        {"heads", o.train.n_heads},
                        {"omp_max_threads", omp_get_max_threads()},
                        {"train_shards", attnviz::kTrainShards},
                        {"eigen_threads", Eigen::nbThreads()}};
  std::cout << summary.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  BenchOptions o;
  bool help = false;
  if (const std::string err = options_parse(argc, argv, o, help); !err.empty()) {
    (help ? std::cout : std::cerr) << (help ? "" : "attnviz-bench-coref: ") << err << (help ? "" : "\n");
    return help ? 0 : 2;
  }
  return bench_run(o);
}
