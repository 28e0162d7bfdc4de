// attnviz-cli's demo commands: `train coref` and `train induction` train a demo from scratch and
// save it. Asking a model for its answer is cli_predict.cpp.
#include <filesystem>
#include <iomanip>
#include <ostream>

#include "base/file_io.h"
#include "cli_run.h"
#include "demos/coref_demo.h"
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

// The flags both demos take; a flag not given keeps the demo's own default (its shipped model).
template <class Options>
void apply_train_flags(const CliOptions& o, Options& t) {
  if (o.given.count("seed")) t.seed = o.seed;
  if (o.given.count("heads")) t.n_heads = o.config.n_heads;
  if (o.given.count("d-model")) t.d_model = o.config.d_model;
  if (o.given.count("layers")) t.n_layers = o.config.n_layers;
  t.max_steps = o.steps;
  if (o.given.count("lr")) t.lr = o.lr;
  if (o.given.count("batch")) t.batch = o.batch;
  if (o.given.count("eval-every")) t.eval_every = o.eval_every;
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

}  // namespace attnviz
