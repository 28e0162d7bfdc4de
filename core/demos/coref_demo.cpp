// Training uses mini-batches of coref_batch_size examples, gradients averaged, AdamW with clipping. The
// embeddings start at a smaller scale than the sandbox's hashed vectors so that training begins
// close to uniform predictions.
#include "demos/coref_demo.h"

#include <cmath>
#include <utility>

#include "demos/demo_vocab.h"
#include "base/rng.h"

namespace attnviz {

namespace {

Result<TrainExample> coref_train_example(const VocabIndex& index, const CorefExample& e) {
  if (e.pronoun < 0 || e.referent < 0 || e.tokens.empty()) return make_error("the example has no pronoun or referent");
  TrainExample ex;
  ex.ids = token_ids(index, e.tokens);
  ex.targets.assign(ex.ids.size(), -1);
  ex.targets[static_cast<size_t>(e.pronoun)] = ex.ids[static_cast<size_t>(e.referent)];
  return ex;
}

}  // namespace

namespace {

bool deep_and_wide(const CorefTrainOptions& o) { return o.n_layers >= 3 && o.d_model >= 64; }

}  // namespace

float coref_learning_rate(const CorefTrainOptions& o) {
  if (o.lr > 0) return o.lr;
  float lr = 3e-3f;
  if (o.d_model > 64) lr *= 64.0f / static_cast<float>(o.d_model);
  if (o.d_model > 64 && o.n_layers == 1) lr *= 0.5f;
  const bool unscaled = o.score == ScoreKind::dot || o.score == ScoreKind::general;
  if (unscaled || deep_and_wide(o)) lr *= 0.5f;  // once, for either reason
  return lr;
}

int coref_eval_every(const CorefTrainOptions& o) {
  if (o.eval_every > 0) return o.eval_every;
  return deep_and_wide(o) ? 50 : 100;
}

int coref_batch_size(const CorefTrainOptions& o) {
  if (o.batch > 0) return o.batch;
  return o.n_layers >= 3 ? 32 : 16;
}

DemoArch coref_arch(const CorefTrainOptions& o) { return demo_arch_of(o); }

CorefTrainOptions coref_options(const DemoArch& a) { return demo_options_for<CorefTrainOptions>(a); }

bool coref_arch_in_grid(const CorefTrainOptions& o) {
  const CorefTrainOptions d;
  return o.n_layers == d.n_layers && o.d_ff == d.d_ff && o.score == d.score && o.norm == d.norm &&
         o.positions == d.positions;
}

std::string coref_arch_key(const CorefTrainOptions& o) {
  return demo_arch_key(coref_arch(o), coref_arch(CorefTrainOptions{}));
}

Result<Model> coref_model_init(const CorefTrainOptions& o) {
  ModelConfig c;
  c.d_model = o.d_model;
  c.n_heads = o.n_heads;
  c.n_layers = o.n_layers;
  c.d_ff = o.d_ff;
  c.norm = o.norm;
  c.activation = Activation::gelu;
  c.positions = o.positions;
  c.score = o.score;
  c.max_positions = 32;
  c.final_norm = true;
  if (Status s = config_validate(c); !s) return make_error(s.error());
  Model m = model_init_random(c, o.seed);
  m.vocab = coref_vocabulary();
  m.source = made_source(kSourceCorefDemo, o.seed);
  weights_init_vocab(m, seed_for(o.seed, "coref.embeddings"), 0.5, 0.15, 0.05);
  start_unscaled_scores_small(m);
  start_deep_residual_branches_small(m);
  return m;
}

Result<TrainExample> coref_train_example(const Model& model, const CorefExample& e) {
  return coref_train_example(vocab_index(model), e);
}

namespace {

// Correct and counted examples among examples[begin, end) (count_correct_sharded: the same sums on
// any thread count). A sentence the demo cannot read counts as neither.
std::pair<int, int> coref_score_range(const Model& model, const VocabIndex& index, const std::vector<CorefExample>& examples,
                                      size_t begin, size_t end) {
  std::vector<TrainExample> range;
  for (size_t i = begin; i < end; ++i)
    if (auto ex = coref_train_example(index, examples[i])) range.push_back(std::move(*ex));
  const PredictionCounts c = count_correct_sharded(model, std::move(range));
  return {c.correct, c.counted};
}

}  // namespace

float coref_evaluate(const Model& model, const std::vector<CorefExample>& examples) {
  const auto [c, k] = coref_score_range(model, vocab_index(model), examples, 0, examples.size());
  return k > 0 ? static_cast<float>(c) / static_cast<float>(k) : 0.0f;
}

CorefEvaluation coref_evaluate_for_target(const Model& model, const std::vector<CorefExample>& examples, float target) {
  // Accuracy (k - e) / k grows with k, and at most n examples count, so once e errors are seen the
  // accuracy can be at most (n - e) / n: past that bound the target cannot be reached and the rest
  // need not run. The decision is the full evaluation's; only a reached target costs every example.
  constexpr int kChunks = 8;
  const VocabIndex index = vocab_index(model);
  const size_t n = examples.size();
  CorefEvaluation out;
  int correct = 0, counted = 0;
  for (int chunk = 0; chunk < kChunks; ++chunk) {
    const auto [c, k] = coref_score_range(model, index, examples, n * static_cast<size_t>(chunk) / kChunks,
                                          n * static_cast<size_t>(chunk + 1) / kChunks);
    correct += c;
    counted += k;
    // In float, as the full evaluation compares: rounding keeps the order, so the bound holds there too.
    const float best = static_cast<float>(n - static_cast<size_t>(counted - correct)) / static_cast<float>(n);
    if (n > 0 && best < target && chunk + 1 < kChunks) {
      out.complete = false;
      break;
    }
  }
  out.examples = counted;
  out.accuracy = counted > 0 ? static_cast<float>(correct) / static_cast<float>(counted) : 0.0f;
  out.reached = out.complete && out.accuracy >= target;
  return out;
}

Result<TrainRun> coref_train(const CorefTrainOptions& o, const TrainCallback& on_progress) {
  if (o.batch < 0) return make_error("the batch size must not be negative (0: chosen for the architecture)");
  if (o.eval_every < 0) return make_error("the steps between evaluations must not be negative (0: chosen for the architecture)");
  const int batch_size = coref_batch_size(o);
  auto model = coref_model_init(o);
  if (!model) return make_error(model.error());
  const CorefSplit data = coref_generate(o.seed);
  TrainLoopOptions loop;
  loop.max_steps = o.max_steps;
  loop.eval_every = coref_eval_every(o);
  loop.report_every = o.report_every;
  loop.adam.lr = coref_learning_rate(o);
  loop.adam.weight_decay = o.weight_decay;
  size_t next = 0;  // the training sentences in their shuffled order, round and round
  const VocabIndex index = vocab_index(*model);
  auto batch = [&](int) -> Result<std::vector<TrainExample>> {
    std::vector<TrainExample> out;
    for (int b = 0; b < batch_size; ++b) {
      auto ex = coref_train_example(index, data.train[next++ % data.train.size()]);
      if (!ex) return make_error(ex.error());
      out.push_back(std::move(*ex));
    }
    return out;
  };
  auto evaluate = [&](const Model& m, bool last) -> Result<Evaluation> {
    // The last step's accuracy is the run's: it scores every example (a target of 0 never stops early).
    const CorefEvaluation e = coref_evaluate_for_target(m, data.heldout, last ? 0.0f : o.target_accuracy);
    return Evaluation{e.accuracy, e.complete && e.accuracy >= o.target_accuracy, !e.complete};
  };
  return train_loop(std::move(*model), loop, batch, evaluate, on_progress);
}

Result<CorefPrediction> coref_predict(const Model& model, std::string_view text) {
  const CorefExample e = coref_make(text);
  if (e.tokens.empty()) return make_error("the sentence has no tokens");
  if (e.pronoun < 0) return make_error("the sentence has no pronoun \"it\"");
  if (e.candidate_a < 0 || e.candidate_b < 0)
    return make_error("the sentence needs two candidate nouns the model knows (see its vocabulary)");
  TrainExample ex;
  ex.ids = token_ids(vocab_index(model), e.tokens);
  ex.targets.assign(ex.ids.size(), -1);
  auto logits = model_logits(model, ex);
  if (!logits) return make_error(logits.error());
  const RowVec row = logits->row(e.pronoun);
  return coref_choose(e, row(ex.ids[static_cast<size_t>(e.candidate_a)]), row(ex.ids[static_cast<size_t>(e.candidate_b)]));
}

CorefPrediction coref_choose(const CorefExample& e, float la, float lb) {
  CorefPrediction p;
  p.pronoun = e.pronoun;
  p.referent = la >= lb ? e.candidate_a : e.candidate_b;
  p.referent_text = e.tokens[static_cast<size_t>(p.referent)].text;
  p.probability = 1.0f / (1.0f + std::exp(-std::abs(la - lb)));  // softmax over the two candidates
  return p;
}

}  // namespace attnviz
