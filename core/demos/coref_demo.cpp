// Training uses mini-batches of coref_batch_size examples, gradients averaged, AdamW with clipping. The
// embeddings start at a smaller scale than the sandbox's hashed vectors so that training begins
// close to uniform predictions.
#include "demos/coref_demo.h"

#include <cmath>
#include <utility>
#include <unordered_map>

#include "base/rng.h"

namespace attnviz {

namespace {

std::string ascii_lower(std::string s) {
  for (char& ch : s)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

// Vocabulary word -> id, built once per run rather than once per sentence.
struct VocabIndex {
  std::unordered_map<std::string, int> ids;
  int unk = 0;
};

VocabIndex vocab_index(const Model& model) {
  VocabIndex v;
  for (size_t i = 0; i < model.vocab.size(); ++i) v.ids.emplace(model.vocab[i], static_cast<int>(i));
  if (auto it = v.ids.find("[UNK]"); it != v.ids.end()) v.unk = it->second;
  return v;
}

// Token ids of an example's tokens ([UNK] for words outside the vocabulary).
std::vector<int> token_ids(const VocabIndex& index, const std::vector<Token>& tokens) {
  std::vector<int> ids;
  for (const Token& t : tokens) {
    auto it = index.ids.find(ascii_lower(t.text));
    ids.push_back(it == index.ids.end() ? index.unk : it->second);
  }
  return ids;
}

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

bool coref_arch_in_grid(const CorefTrainOptions& o) {
  const CorefTrainOptions d;
  return o.n_layers == d.n_layers && o.d_ff == d.d_ff && o.score == d.score && o.norm == d.norm && o.positions == d.positions;
}

std::string coref_arch_key(const CorefTrainOptions& o) {
  const CorefTrainOptions d;
  std::string key = "heads" + std::to_string(o.n_heads) + "_dmodel" + std::to_string(o.d_model);
  if (o.n_layers != d.n_layers) key += "_layers" + std::to_string(o.n_layers);
  if (o.d_ff != d.d_ff) key += "_ffn" + std::to_string(o.d_ff);
  if (o.score != d.score) key += "_" + std::string(name_of(o.score));
  if (o.norm != d.norm) key += "_" + std::string(name_of(o.norm));
  if (o.positions != d.positions) key += "_" + std::string(name_of(o.positions));
  return key;
}

namespace {

// Heads whose scores are not divided by √HS (unscaled dot-product, "general") start with scores
// 1/HS the size the default draw gives them: W_q and W_k each HS^-1/2 smaller, or G HS^-1 smaller.
// Their scores are sums over the head's HS values and, unscaled, grow with it, so wide heads began
// with a saturated softmax and some never learned (one unscaled-dot head at d_model 128: 48% held-out
// after 3,000 steps; 99.04% after 900 with this start). 1/HS is μP's scaling of attention scores
// (Yang et al. 2021), here put into the start since the model's definition has no divisor
// (bench/README.md has the runs). Scaled dot-product and additive heads keep the default draw.
void start_unscaled_scores_small(Model& m) {
  const ModelConfig& c = m.config;
  // One scoring function for every head: the demo's options have no per-head override.
  if (!c.head_scores.empty()) return;
  const float hs = static_cast<float>(c.head_size());
  for (LayerWeights& layer : m.weights.layers) {
    AttentionWeights& a = layer.attn;
    if (c.score == ScoreKind::dot) a.in_proj_w.topRows(2 * c.d_model) *= 1.0f / std::sqrt(hs);
    if (c.score == ScoreKind::general) a.general_w *= 1.0f / hs;
  }
}

// Deep models (3 layers or more) start with each residual branch's last projection, attention's W_O
// and the FFN's second linear, 0.5/√(2L) the size of the default draw. Every branch adds to the same
// residual stream, so at the default size a deep stack's stream starts out dominated by the branches'
// random outputs; GPT-2 scales these projections by 1/√(2L) for that reason (Radford et al. 2019).
// Here the half of that was best: over 124 architectures of 3–4 layers drawn from the Model panel's
// range, the steps to 99% held-out went 48,000 → 43,650 (d_model ≥ 64: 18,100 → 15,450) with none
// failing; 1/√(2L) itself gave 44,700, a quarter of it two runs that never reached 99%, zero 19,250
// for the wide ones (bench/README.md, twelfth session). Models of 1–2 layers, the shipped demo and
// grid among them, keep the default draw and so their bits.
void start_deep_residual_branches_small(Model& m) {
  const int layers = m.config.n_layers;
  if (layers < 3) return;
  const float scale = 0.5f / std::sqrt(2.0f * static_cast<float>(layers));
  for (LayerWeights& layer : m.weights.layers) {
    layer.attn.out_w *= scale;
    if (layer.ff2_w.size() > 0) layer.ff2_w *= scale;
  }
}

}  // namespace

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
