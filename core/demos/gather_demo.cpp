// Mini-batches of sentences from the training split through the shared train_loop; every
// evaluation scores the whole held-out split (512 sentences). What was measured for the defaults is
// in bench/README.md ("Why several heads help: the gather demo").
#include "demos/gather_demo.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/rng.h"
#include "demos/demo_vocab.h"
#include "model/head_map.h"
#include "model/trace.h"

namespace attnviz {

namespace {

constexpr int kMaxPositions = 24;  // the longest generated sentence has 18 tokens

Result<TrainExample> train_example(const VocabIndex& index, const std::vector<std::string>& vocab,
                                   const GatherExample& e) {
  if (e.query < 0 || e.answer < 0 || e.tokens.empty())
    return make_error("the sentence needs \"its\" and one word of each of its four slots");
  const int answer_id = gather_answer_id(vocab, e.answer);
  if (answer_id < 0) return make_error("the model has no answer tokens (not a gather demo model)");
  TrainExample ex;
  ex.ids = token_ids(index, e.tokens);
  ex.targets.assign(ex.ids.size(), -1);
  ex.targets[static_cast<size_t>(e.query)] = answer_id;
  return ex;
}

Status options_check(const GatherTrainOptions& o) {
  if (o.n_layers < 1) return make_error("the gather demo needs at least 1 layer");
  if (o.batch < 1 || o.max_steps < 1 || o.eval_every < 1 || o.report_every < 0)
    return make_error("batch, steps and evaluation interval must be positive");
  if (!(o.lr >= 0.0f && o.lr < 1.0f))
    return make_error("the learning rate must be between 0 and 1 (0: chosen for the architecture)");
  return Ok{};
}

}  // namespace

float gather_learning_rate(const GatherTrainOptions& o) {
  if (o.lr > 0) return o.lr;
  float lr = 3e-3f;
  if (o.d_model > 64) lr *= 64.0f / static_cast<float>(o.d_model);
  if (o.score == ScoreKind::dot || o.score == ScoreKind::general) lr *= 0.5f;
  return lr;
}

DemoArch gather_arch(const GatherTrainOptions& o) { return demo_arch_of(o); }

GatherTrainOptions gather_options(const DemoArch& a) { return demo_options_for<GatherTrainOptions>(a); }

std::string gather_arch_key(const GatherTrainOptions& o) {
  return demo_arch_key(gather_arch(o), gather_arch(GatherTrainOptions{}));
}

Result<Model> gather_model_init(const GatherTrainOptions& o) {
  if (Status s = options_check(o); !s) return make_error(s.error());
  auto c = demo_model_config(gather_arch(o), kMaxPositions);
  if (!c) return make_error(c.error());
  Model m = model_init_random(*c, o.seed);
  m.vocab = gather_vocabulary();
  m.source = made_source(kSourceGatherDemo, o.seed);
  weights_init_vocab(m, seed_for(o.seed, "gather.embeddings"), 1.0, 1.0, 0.05);
  start_unscaled_scores_small(m);
  start_deep_residual_branches_small(m);
  return m;
}

Result<TrainExample> gather_train_example(const Model& model, const GatherExample& e) {
  return train_example(vocab_index(model), model.vocab, e);
}

float gather_evaluate(const Model& model, const std::vector<GatherExample>& examples) {
  const VocabIndex index = vocab_index(model);
  std::vector<TrainExample> all;
  for (const GatherExample& e : examples)
    if (auto ex = train_example(index, model.vocab, e)) all.push_back(std::move(*ex));
  const PredictionCounts c = count_correct_sharded(model, std::move(all));
  return c.counted > 0 ? static_cast<float>(c.correct) / static_cast<float>(c.counted) : 0.0f;
}

Result<TrainRun> gather_train(const GatherTrainOptions& o, const TrainCallback& on_progress) {
  auto model = gather_model_init(o);
  if (!model) return make_error(model.error());
  const GatherSplit data = gather_generate(o.seed);
  const VocabIndex index = vocab_index(*model);
  std::vector<TrainExample> train, heldout;
  for (const GatherExample& e : data.train) {
    auto ex = train_example(index, model->vocab, e);
    if (!ex) return make_error(ex.error());
    train.push_back(std::move(*ex));
  }
  for (const GatherExample& e : data.heldout)
    if (auto ex = train_example(index, model->vocab, e)) heldout.push_back(std::move(*ex));
  TrainLoopOptions loop;
  loop.max_steps = o.max_steps;
  loop.eval_every = o.eval_every;
  loop.report_every = o.report_every;
  loop.adam.lr = gather_learning_rate(o);
  size_t next = 0;  // the training sentences in their shuffled order, round and round
  auto batch = [&](int) -> Result<std::vector<TrainExample>> {
    std::vector<TrainExample> out;
    for (int b = 0; b < o.batch; ++b) out.push_back(train[next++ % train.size()]);
    return out;
  };
  auto evaluate = [&](const Model& m, bool) -> Result<Evaluation> {
    const PredictionCounts c = count_correct_sharded(m, heldout);
    Evaluation e;
    e.accuracy = c.counted > 0 ? static_cast<float>(c.correct) / static_cast<float>(c.counted) : 0.0f;
    e.done = e.accuracy >= o.target_accuracy;
    return e;
  };
  return train_loop(std::move(*model), loop, batch, evaluate, on_progress);
}

Result<GatherPrediction> gather_predict(const Model& model, std::string_view text) {
  const GatherExample e = gather_make(text);
  if (e.tokens.empty()) return make_error("the sentence has no tokens");
  if (e.query < 0) return make_error("the sentence has no \"its\"");
  std::array<int, kGatherAnswers> ids{};
  for (int a = 0; a < kGatherAnswers; ++a)
    if ((ids[static_cast<size_t>(a)] = gather_answer_id(model.vocab, a)) < 0)
      return make_error("the model has no answer tokens (not a gather demo model)");
  TrainExample ex;
  ex.ids = token_ids(vocab_index(model), e.tokens);
  ex.targets.assign(ex.ids.size(), -1);
  auto logits = model_logits(model, ex);
  if (!logits) return make_error(logits.error());
  const RowVec row = logits->row(e.query);
  GatherPrediction p;
  p.query = e.query;
  p.expected = e.answer;
  float best = -INFINITY;
  for (int a = 0; a < kGatherAnswers; ++a)
    if (row(ids[static_cast<size_t>(a)]) > best) {
      best = row(ids[static_cast<size_t>(a)]);
      p.answer = a;
    }
  double sum = 0;
  for (int a = 0; a < kGatherAnswers; ++a) sum += std::exp(static_cast<double>(row(ids[static_cast<size_t>(a)]) - best));
  p.probability = static_cast<float>(1.0 / sum);
  p.answer_text = gather_answer_text(p.answer);
  return p;
}

std::vector<GatherHeadLook> gather_head_looks(const Trace& trace, const GatherExample& e) {
  std::vector<GatherHeadLook> out;
  if (trace.layers.empty() || e.query < 0 || e.query >= trace.n_queries()) return out;
  const int last = static_cast<int>(trace.layers.size()) - 1;
  for (int h = 0; h < trace.config.n_heads; ++h) {
    GatherHeadLook look;
    const Mat w = head_map_rows(trace, last, h, e.query, 1);
    look.weight = w.row(0).maxCoeff(&look.token);
    for (int k = 0; k < kGatherSlots; ++k)
      if (e.slot_token[static_cast<size_t>(k)] == look.token) look.slot = k;
    out.push_back(look);
  }
  return out;
}

Result<float> gather_focus(const Model& model, const std::vector<GatherExample>& examples) {
  double sum = 0;
  int counted = 0;
  for (const GatherExample& e : examples) {
    if (e.query < 0) continue;
    TraceInput in;
    in.text = e.text;
    auto trace = trace_run(model, in);
    if (!trace) return make_error(trace.error());
    for (const GatherHeadLook& look : gather_head_looks(*trace, e)) {
      sum += look.weight;
      ++counted;
    }
  }
  if (counted == 0) return make_error("no example has \"its\"");
  return static_cast<float>(sum / counted);
}

bool gather_n_heads_ahead(const GatherPairResult& p) {
  const int one = p.one_head.steps_to_target, many = p.n_heads.steps_to_target;
  if (many >= 0) return one < 0 || many < one;
  return one < 0 && p.n_heads.held_out > p.one_head.held_out;
}

Result<GatherPairResult> gather_train_pair(const GatherTrainOptions& options) {
  GatherPairResult out;
  out.seed = options.seed;
  for (const bool single : {true, false}) {
    GatherTrainOptions o = options;
    if (single) o.n_heads = 1;
    auto run = gather_train(o);
    if (!run) return make_error(run.error());
    GatherPairSide side;
    side.held_out = run->heldout_accuracy;
    auto focus = gather_focus(run->model, gather_generate(o.seed).heldout);
    if (!focus) return make_error(focus.error());
    side.focus = *focus;
    for (const TrainProgress& p : run->history)
      if (p.evaluated && p.heldout_accuracy >= o.target_accuracy) {
        side.steps_to_target = p.step;
        break;
      }
    (single ? out.one_head : out.n_heads) = side;
  }
  return out;
}

}  // namespace attnviz
