// attnviz-cli's demo commands: `train coref`, `train induction`, `train gather` and `train translate` train a demo from
// scratch and save it; `train pair` trains the gather demo with 1 head and with N over several seeds. Asking a model for its answer is cli_predict.cpp.
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "base/file_io.h"
#include "cli_run.h"
#include "cli_json.h"
#include "demos/coref_demo.h"
#include "demos/gather_demo.h"
#include "demos/translate_demo.h"
#include "demos/translate_file.h"
#include "demos/induction_demo.h"
#include "io/model_file.h"

namespace attnviz {

namespace {

// Writes DIR/model.safetensors (the vocabulary is in its metadata) and DIR/vocab.txt, one word per
// line, for people building sentences the model knows. Returns the model's path, or an error
// naming the folder or file.
Result<std::string> save_in(const std::string& dir, const Model& model) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error("cannot create '" + dir + "': " + ec.message());
  const std::string path = (std::filesystem::path(dir) / "model.safetensors").string();
  if (Status s = model_save(path, model); !s) return make_error(s.error());
  std::string words;
  for (const std::string& w : model.vocab) words += w + "\n";
  if (Status s = file_write_atomic((std::filesystem::path(dir) / "vocab.txt").string(), std::string_view(words)); !s)
    return make_error(s.error());
  return path;
}

// "step   100  loss 2.1234  held-out accuracy 45.00%  0.3 s", the start of every progress line.
void progress_line(std::ostream& out, const TrainProgress& p) {
  out << "step " << std::setw(5) << p.step << "  loss " << std::fixed << std::setprecision(4) << p.loss
      << "  held-out accuracy " << (p.heldout_partial ? "~" : "") << std::setprecision(2) << 100.0 * p.heldout_accuracy
      << (p.heldout_partial ? "% (a sample: below target)  " : "%  ") << std::setprecision(1)
      << p.seconds << " s";
  out.unsetf(std::ios::floatfield);
}

// The run's flags every demo takes (seed, steps, learning rate, batch, evaluation interval); a flag
// not given keeps the demo's own default (its shipped model).
template <class Options>
void apply_run_flags(const CliOptions& o, Options& t) {
  if (o.given.count("seed")) t.seed = o.seed;
  if (o.given.count("steps")) t.max_steps = o.steps;
  if (o.given.count("lr")) t.lr = o.lr;
  if (o.given.count("batch")) t.batch = o.batch;
  if (o.given.count("eval-every")) t.eval_every = o.eval_every;
}

// ...and the architecture flags of the demos whose options hold it flat (coreference, induction).
template <class Options>
void apply_train_flags(const CliOptions& o, Options& t) {
  apply_run_flags(o, t);
  if (o.given.count("heads")) t.n_heads = o.config.n_heads;
  if (o.given.count("d-model")) t.d_model = o.config.d_model;
  if (o.given.count("layers")) t.n_layers = o.config.n_layers;
  // The demos' architecture is live in the app; the same choices here.
  if (o.given.count("ffn")) t.d_ff = o.config.d_ff;
  if (o.given.count("score")) t.score = o.config.score;
  if (o.given.count("norm")) t.norm = o.config.norm;
  if (o.given.count("positions")) t.positions = o.config.positions;
}

// "held-out accuracy 99.04% after 200 steps", the start of the last line of a training run.
void result_line(std::ostream& out, const TrainRun& run) {
  out << "held-out accuracy " << std::fixed << std::setprecision(2) << 100.0 * run.heldout_accuracy << "% after "
      << counted(run.history.back().step, "step");
}

}  // namespace

int cli_train_coref(const CliOptions& o, std::ostream& out, std::ostream& err) {
  CorefTrainOptions t;
  apply_train_flags(o, t);
  out << "training the coreference demo: d_model " << t.d_model << ", " << counted(t.n_heads, "head") << ", "
      << counted(t.n_layers, "layer") << ", seed " << t.seed << ", " << counted(coref_batch_size(t), "sentence")
      << " a step (" << coref_arch_key(t) << ")\n";
  auto result = coref_train(t, [&](const TrainProgress& p, const Model&) {
    progress_line(out, p);
    out << "\n";
    return true;
  });
  if (!result) return cli_fail(err, result.error());
  auto path = save_in(o.out_dir, result->model);
  if (!path) return cli_fail(err, path.error());
  result_line(out, *result);
  out << " — saved " << *path << "\n";
  return 0;
}

int cli_train_induction(const CliOptions& o, std::ostream& out, std::ostream& err) {
  InductionTrainOptions t;
  apply_train_flags(o, t);
  out << "training the induction demo" << (t.d_ff == 0 ? " (attention only)" : "") << ": d_model " << t.d_model << ", "
      << counted(t.n_heads, "head") << ", " << counted(t.n_layers, "layer") << ", seed " << t.seed << ", "
      << counted(t.batch, "sequence") << " a step (" << induction_arch_key(t) << ")\n";
  // Each line also shows the best induction score, so the moment the head forms is visible.
  Status callback_error = Ok{};
  auto result = induction_train(t, [&](const TrainProgress& p, const Model& m) {
    progress_line(out, p);
    auto s = induction_scores(m, t.seed, t.length, t.segment_length);
    if (!s) {
      callback_error = make_error(s.error());
      return false;
    }
    out << "  induction " << std::fixed << std::setprecision(3) << s->best_on_repeat << " (detector "
        << s->best_on_repeat_general << ")\n";
    out.unsetf(std::ios::floatfield);
    return true;
  });
  if (!result) return cli_fail(err, result.error());
  if (!callback_error) return cli_fail(err, callback_error.error());
  auto s = induction_scores(result->model, t.seed, t.length, t.segment_length);
  if (!s) return cli_fail(err, s.error());
  auto path = save_in(o.out_dir, result->model);
  if (!path) return cli_fail(err, path.error());
  result_line(out, *result);
  const bool reached = !result->history.empty() && result->history.back().target_reached;
  out << "; induction head L" << s->best_on_repeat_layer << "H" << s->best_on_repeat_head << " " << std::setprecision(3)
      << s->best_on_repeat << " on the repeat (detector " << s->best_on_repeat_general << "), previous-token head L0H"
      << s->best_previous_head << " " << s->best_previous << (reached ? "" : "; target not reached") << " — saved "
      << *path << "\n";
  return 0;
}

namespace {

// "99.00% after 150 steps" or "not reached in 1500 steps (held-out 93.40%)".
std::string pair_side_text(const GatherPairSide& side, int max_steps) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2);
  if (side.steps_to_target >= 0)
    out << "target after " << counted(side.steps_to_target, "step");
  else
    out << "not reached in " << counted(max_steps, "step") << " (held-out " << 100.0 * side.held_out << "%)";
  return out.str();
}

CliJson pair_side_json(const GatherPairSide& side) {
  CliJson j;
  j["steps_to_target"] = side.steps_to_target >= 0 ? CliJson(side.steps_to_target) : CliJson(nullptr);
  j["held_out"] = side.held_out;
  j["focus"] = side.focus;
  return j;
}

}  // namespace

int cli_train_gather(const CliOptions& o, std::ostream& out, std::ostream& err) {
  GatherTrainOptions t;
  apply_train_flags(o, t);
  out << "training the gather demo (\"its\" names 4 words at once): d_model " << t.d_model << ", "
      << counted(t.n_heads, "head") << ", " << counted(t.n_layers, "layer") << ", seed " << t.seed << ", "
      << counted(t.batch, "sentence") << " a step (" << gather_arch_key(t) << ")\n";
  auto result = gather_train(t, [&](const TrainProgress& p, const Model&) {
    progress_line(out, p);
    out << "\n";
    return true;
  });
  if (!result) return cli_fail(err, result.error());
  auto focus = gather_focus(result->model, gather_generate(t.seed).heldout);
  if (!focus) return cli_fail(err, focus.error());
  auto path = save_in(o.out_dir, result->model);
  if (!path) return cli_fail(err, path.error());
  result_line(out, *result);
  out << "; a head gives one word " << std::setprecision(2) << *focus
      << " of its attention from \"its\" (the mean largest weight) — saved " << *path << "\n";
  return 0;
}

namespace {

// "98.3% exact (100 / 100 / 95% by clauses), head 3 of decoder layer 1 on the gold source token for
// 94.2% of content tokens (62.2% of all)"
std::string translate_scores_text(const TranslateScores& s, int n_heads) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << 100.0 * s.exact_rate() << "% exact (" << 100.0 * s.exact_rate(1) << " / "
      << 100.0 * s.exact_rate(2) << " / " << 100.0 * s.exact_rate(3) << "% on 1 / 2 / 3 clauses)";
  if (s.content_aligned.empty()) return out.str() + ", no cross-attention (the bottleneck)";
  out << ", head "
      << s.best_head % n_heads + 1 << " of decoder layer " << s.best_head / n_heads + 1 << " on the gold source token for "
      << 100.0 * s.content_aligned[static_cast<size_t>(s.best_head)] << "% of content tokens ("
      << 100.0 * s.all_aligned[static_cast<size_t>(s.best_head)] << "% of all)";
  return out.str();
}

}  // namespace

int cli_train_translate(const CliOptions& o, std::ostream& out, std::ostream& err) {
  TranslateTrainOptions t;
  TranslateArch& a = t.arch;
  apply_run_flags(o, t);
  if (o.given.count("heads")) a.n_heads = o.config.n_heads;
  if (o.given.count("d-model")) a.d_model = o.config.d_model;
  if (o.given.count("layers")) a.encoder_layers = o.config.n_layers;
  if (o.given.count("ffn")) a.d_ff = o.config.d_ff;
  if (o.given.count("score")) a.score = o.config.score;
  if (o.given.count("norm")) a.norm = o.config.norm;
  a.bottleneck = o.bottleneck;
  out << "training the translation demo (English -> Korean)" << (a.bottleneck ? ", the bottleneck: no cross-attention" : "")
      << ": d_model " << a.d_model << ", " << counted(a.n_heads, "head")
      << ", encoder " << counted(a.encoder_layers, "layer") << ", decoder " << counted(a.decoder_layers, "layer") << ", FFN "
      << a.d_ff << ", " << name_of(a.score) << ", seed " << t.seed << ", " << counted(t.batch, "sentence") << " a step\n";
  auto run = translate_train(t, [&](const TranslateProgress& p, const TranslateModel&) {
    if (!p.evaluated) return true;
    out << "  step " << p.step << ": loss " << std::fixed << std::setprecision(4) << p.loss << ", "
        << translate_scores_text(p.scores, a.n_heads) << ", " << std::setprecision(1) << p.seconds << " s\n";
    out.unsetf(std::ios::floatfield);
    return true;
  });
  if (!run) return cli_fail(err, run.error());
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) return cli_fail(err, "cannot create '" + o.out_dir + "': " + ec.message());
  const std::string path = (std::filesystem::path(o.out_dir) / "model.safetensors").string();
  if (Status s = translate_save(path, run->model); !s) return cli_fail(err, s.error());
  const TranslateProgress& last = run->history.back();
  out << translate_scores_text(last.scores, a.n_heads) << " after " << counted(last.step, "step") << " — saved " << path << "\n";
  return 0;
}

int cli_train_pair(const CliOptions& o, std::ostream& out, std::ostream& err) {
  GatherTrainOptions t;
  apply_train_flags(o, t);
  std::ostream& shown = o.json_path == "-" ? err : out;  // with --json - the JSON alone goes to standard output
  shown << "training the gather demo with 1 head and with " << t.n_heads << " heads (d_model " << t.d_model << ", "
        << counted(t.n_layers, "layer") << ", at most " << counted(t.max_steps, "step") << ", target "
        << 100.0 * static_cast<double>(t.target_accuracy) << "% held-out) for " << counted(static_cast<int>(o.seeds.size()), "seed")
        << "\n";
  CliJson seeds = CliJson::array();
  int ahead = 0;
  for (uint64_t seed : o.seeds) {
    t.seed = seed;
    auto pair = gather_train_pair(t);
    if (!pair) return cli_fail(err, "seed " + std::to_string(seed) + ": " + pair.error());
    const bool n_ahead = gather_n_heads_ahead(*pair);
    ahead += n_ahead ? 1 : 0;
    shown << "seed " << seed << ": 1 head " << pair_side_text(pair->one_head, t.max_steps) << "; " << t.n_heads << " heads "
          << pair_side_text(pair->n_heads, t.max_steps) << std::fixed << std::setprecision(2) << "; focus "
          << pair->one_head.focus << " vs " << pair->n_heads.focus << (n_ahead ? " — N heads ahead" : " — N heads not ahead") << "\n";
    seeds.push_back({{"seed", seed}, {"one_head", pair_side_json(pair->one_head)}, {"n_heads", pair_side_json(pair->n_heads)},
                     {"n_heads_ahead", n_ahead}});
  }
  shown << t.n_heads << " heads ahead of 1 head in " << ahead << " of " << counted(static_cast<long long>(o.seeds.size()), "seed")
        << "\n";
  if (o.json_path.empty()) return 0;
  CliJson j;
  j["demo"] = "gather";
  j["d_model"] = t.d_model;
  j["n_heads"] = t.n_heads;
  j["n_layers"] = t.n_layers;
  j["max_steps"] = t.max_steps;
  j["target"] = t.target_accuracy;
  j["seeds"] = std::move(seeds);
  j["n_heads_ahead"] = ahead;
  if (Status s = cli_write_json(o.json_path, j, out); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

}  // namespace attnviz

namespace attnviz {

// attnviz-cli sentences coref: the coreference demo's sentences, one a line — the held-out ones by
// default (their (noun, noun, property) combinations never occur in training), in the order the
// shipped demo's seed draws them — a set for `heads --set`.
int cli_sentences(const CliOptions& o, std::ostream& out, std::ostream& err) {
  const CorefSplit split = coref_generate(kCorefDemoSeed);
  std::string text;
  for (const CorefExample& e : o.heldout ? split.heldout : split.train) text += e.text + "\n";
  if (o.out_dir.empty()) {
    out << text;
    return 0;
  }
  if (Status s = file_write_atomic(o.out_dir, text); !s) return cli_fail(err, "--out: " + s.error());
  out << (o.heldout ? split.heldout : split.train).size() << " sentences written to " << o.out_dir << "\n";
  return 0;
}

}  // namespace attnviz
