// Training uses mini-batches of `batch` examples, gradients averaged, AdamW with clipping. The
// embeddings start at a smaller scale than the sandbox's hashed vectors so that training begins
// close to uniform predictions.
#include "core/coref_demo.h"

#include <chrono>
#include <cmath>
#include <unordered_map>

#include <Eigen/Core>

#include "core/rng.h"

namespace attnviz {

namespace {

std::string ascii_lower(std::string s) {
  for (char& ch : s)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

Mat random_normal(Rng& rng, Eigen::Index rows, Eigen::Index cols, double stddev) {
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal() * stddev);
  return m;
}

// Token ids of an example's tokens ([UNK] for words outside the vocabulary).
std::vector<int> token_ids(const Model& model, const std::vector<Token>& tokens) {
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < model.vocab.size(); ++i) index.emplace(model.vocab[i], static_cast<int>(i));
  const int unk = index.count("[UNK]") ? index.at("[UNK]") : 0;
  std::vector<int> ids;
  for (const Token& t : tokens) {
    auto it = index.find(ascii_lower(t.text));
    ids.push_back(it == index.end() ? unk : it->second);
  }
  return ids;
}

}  // namespace

Result<Model> coref_model_init(const CorefTrainOptions& o) {
  ModelConfig c;
  c.d_model = o.d_model;
  c.n_heads = o.n_heads;
  c.n_layers = o.n_layers;
  c.d_ff = o.d_ff;
  c.norm = NormPlacement::pre;
  c.activation = Activation::gelu;
  c.positions = PositionEncoding::learned;
  c.max_positions = 32;
  c.final_norm = true;
  if (Status s = config_validate(c); !s) return make_error(s.error());
  Model m = model_init_random(c, o.seed);
  m.vocab = coref_vocabulary();
  m.source = "demo: coreference (seed " + std::to_string(o.seed) + ")";
  Rng rng(seed_for(o.seed, "coref.embeddings"));
  const auto V = static_cast<Eigen::Index>(m.vocab.size());
  m.weights.tok_embed = random_normal(rng, V, c.d_model, 0.5);
  m.weights.pos_embed = random_normal(rng, c.max_positions, c.d_model, 0.15);
  m.weights.output_w = random_normal(rng, V, c.d_model, 0.05);
  m.weights.output_b = Vec::Zero(V);
  return m;
}

Result<TrainExample> coref_train_example(const Model& model, const CorefExample& e) {
  if (e.pronoun < 0 || e.referent < 0 || e.tokens.empty()) return make_error("the example has no pronoun or referent");
  TrainExample ex;
  ex.ids = token_ids(model, e.tokens);
  ex.targets.assign(ex.ids.size(), -1);
  ex.targets[static_cast<size_t>(e.pronoun)] = ex.ids[static_cast<size_t>(e.referent)];
  return ex;
}

float coref_evaluate(const Model& model, const std::vector<CorefExample>& examples) {
  int correct = 0, counted = 0;
  const int n = static_cast<int>(examples.size());
#pragma omp parallel for num_threads(kTrainShards) reduction(+ : correct, counted) schedule(static)
  for (int i = 0; i < n; ++i) {
    auto ex = coref_train_example(model, examples[static_cast<size_t>(i)]);
    if (!ex) continue;
    auto r = model_loss(model, *ex);
    if (!r) continue;
    correct += r->correct;
    counted += r->counted;
  }
  return counted > 0 ? static_cast<float>(correct) / static_cast<float>(counted) : 0.0f;
}

Result<TrainRun> coref_train(const CorefTrainOptions& o, const TrainCallback& on_progress) {
  if (o.batch < 1 || o.max_steps < 1 || o.eval_every < 1 || o.report_every < 0)
    return make_error("batch, steps and evaluation interval must be positive");
  auto model = coref_model_init(o);
  if (!model) return make_error(model.error());
  const CorefSplit data = coref_generate(o.seed);
  TrainRun result;
  result.model = std::move(*model);
  AdamState state = adam_init(result.model.weights);
  AdamConfig adam;
  adam.lr = o.lr;
  adam.weight_decay = o.weight_decay;
  const int report_every = o.report_every > 0 ? o.report_every : o.eval_every;
  const auto start = std::chrono::steady_clock::now();
  size_t next = 0;
  for (int step = 1; step <= o.max_steps; ++step) {
    std::vector<TrainExample> batch;
    for (int b = 0; b < o.batch; ++b) {
      auto ex = coref_train_example(result.model, data.train[next++ % data.train.size()]);
      if (!ex) return make_error(ex.error());
      batch.push_back(std::move(*ex));
    }
    auto lg = batch_loss_grads(result.model, batch);
    if (!lg) return make_error(lg.error());
    const float loss = lg->loss;
    const ModelWeights& grads = lg->grads;
    adam_step(result.model.weights, grads, state, adam);
    TrainProgress p;
    p.step = step;
    p.loss = loss;
    p.evaluated = step % o.eval_every == 0 || step == o.max_steps;
    if (p.evaluated) {
      result.heldout_accuracy = coref_evaluate(result.model, data.heldout);
      result.history.push_back(p);
    }
    p.heldout_accuracy = result.heldout_accuracy;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (p.evaluated) result.history.back() = p;
    const bool done = p.evaluated && p.heldout_accuracy >= o.target_accuracy;
    if (on_progress && (p.evaluated || step % report_every == 0) && !on_progress(p, result.model)) {
      result.stopped = true;
      break;
    }
    if (done) break;
  }
  return result;
}

Result<CorefPrediction> coref_predict(const Model& model, std::string_view text) {
  const CorefExample e = coref_make(text);
  if (e.tokens.empty()) return make_error("the sentence has no tokens");
  if (e.pronoun < 0) return make_error("the sentence has no pronoun \"it\"");
  if (e.candidate_a < 0 || e.candidate_b < 0)
    return make_error("the sentence needs two candidate nouns the model knows (see its vocabulary)");
  TrainExample ex;
  ex.ids = token_ids(model, e.tokens);
  ex.targets.assign(ex.ids.size(), -1);
  auto logits = model_logits(model, ex);
  if (!logits) return make_error(logits.error());
  const RowVec row = logits->row(e.pronoun);
  const float la = row(ex.ids[static_cast<size_t>(e.candidate_a)]), lb = row(ex.ids[static_cast<size_t>(e.candidate_b)]);
  CorefPrediction p;
  p.pronoun = e.pronoun;
  p.referent = la >= lb ? e.candidate_a : e.candidate_b;
  p.referent_text = e.tokens[static_cast<size_t>(p.referent)].text;
  p.probability = 1.0f / (1.0f + std::exp(-std::abs(la - lb)));  // softmax over the two candidates
  return p;
}

}  // namespace attnviz
