#include "demos/translate_demo.h"

#include <chrono>
#include <cmath>

namespace attnviz {

namespace {

// Each shard's sums, added in shard order so that the result is the same on any thread count.
struct ShardScores {
  TranslateScores s;
  std::vector<int> content_hits, all_hits;
  int content = 0, all = 0;
};

void score_range(const TranslateModel& m, const std::vector<TranslateExample>& examples, size_t begin, size_t end, ShardScores& out) {
  // The bottleneck model has no cross-attention: nothing to align.
  const int L = m.arch.bottleneck ? 0 : m.decoder.config.n_layers, NH = m.decoder.config.n_heads;
  out.content_hits.assign(static_cast<size_t>(L * NH), 0);
  out.all_hits.assign(static_cast<size_t>(L * NH), 0);
  for (size_t e = begin; e < end; ++e) {
    const TranslateExample& ex = examples[e];
    const int k = static_cast<int>(ex.pair.clauses.size());
    // The source is encoded once, for greedy decoding and for the gold translation's alignment.
    auto f = translate_encode(m, ex.source_ids);
    auto out_ids = f ? translate_greedy(m, *f, static_cast<int>(ex.target_ids.size()) + 4)
                     : Result<std::vector<int>>(make_error(f.error()));
    const bool exact = out_ids && *out_ids == ex.target_ids;
    out.s.exact[0] += exact, out.s.exact[k] += exact;
    ++out.s.counted[0], ++out.s.counted[k];
    std::vector<int> input = {kTranslateBos};
    input.insert(input.end(), ex.target_ids.begin(), ex.target_ids.end() - 1);
    if (!f || !translate_decode(m, input, *f)) continue;
    for (const TargetRole role : ex.pair.roles) out.all += 1, out.content += role == TargetRole::content;
    translate_count_aligned(*f, ex.pair, out.content_hits, out.all_hits);
  }
}

}  // namespace

void translate_count_aligned(const TranslateForward& f, const TranslatePair& pair, std::vector<int>& content_hits,
                             std::vector<int>& all_hits) {
  for (size_t l = 0; l < f.decoder.size(); ++l) {
    const auto& heads = f.decoder[l].cross.attn.heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const size_t k = l * heads.size() + h;
      for (size_t i = 0; i < pair.gold.size(); ++i) {
        Eigen::Index best = 0;
        heads[h].weights_kept.row(static_cast<Eigen::Index>(i)).maxCoeff(&best);
        const bool hit = best == pair.gold[i];
        all_hits[k] += hit;
        if (pair.roles[i] == TargetRole::content) content_hits[k] += hit;
      }
    }
  }
}

TranslateScores translate_score(const TranslateModel& m, const std::vector<TranslatePair>& pairs) {
  const auto sv = translate_source_vocabulary(), tv = translate_target_vocabulary();
  std::vector<TranslateExample> examples;
  for (const TranslatePair& p : pairs) examples.push_back(translate_example(p, sv, tv));
  ShardScores parts[kTrainShards];
  run_sharded(kTrainShards, [&](int s) {
    const size_t n = examples.size();
    score_range(m, examples, n * static_cast<size_t>(s) / kTrainShards, n * static_cast<size_t>(s + 1) / kTrainShards, parts[s]);
  });
  TranslateScores out;
  std::vector<int> content_hits(parts[0].content_hits.size(), 0), all_hits(content_hits.size(), 0);
  int content = 0, all = 0;
  for (const ShardScores& p : parts) {
    for (int k = 0; k <= kTranslateMaxClauses; ++k) out.exact[k] += p.s.exact[k], out.counted[k] += p.s.counted[k];
    for (size_t i = 0; i < content_hits.size(); ++i) content_hits[i] += p.content_hits[i], all_hits[i] += p.all_hits[i];
    content += p.content, all += p.all;
  }
  for (size_t i = 0; i < content_hits.size(); ++i) {
    out.content_aligned.push_back(content ? static_cast<float>(content_hits[i]) / static_cast<float>(content) : 0.0f);
    out.all_aligned.push_back(all ? static_cast<float>(all_hits[i]) / static_cast<float>(all) : 0.0f);
    if (out.content_aligned[i] > out.content_aligned[static_cast<size_t>(out.best_head)]) out.best_head = static_cast<int>(i);
  }
  return out;
}

Result<TranslateRun> translate_train(const TranslateTrainOptions& o, const TranslateCallback& on_progress) {
  auto made = translate_model_init(o.arch, o.seed);
  if (!made) return make_error(made.error());
  if (o.batch < kTrainShards || o.max_steps < 1 || o.eval_every < 1) return make_error("translate: bad batch, steps or evaluation interval");
  TranslateRun run;
  run.model = std::move(*made);
  TranslateModel& m = run.model;
  const TranslateSplit data = translate_generate(o.seed, o.n_train, o.heldout_per_length);
  const auto sv = translate_source_vocabulary(), tv = translate_target_vocabulary();
  std::vector<TranslateExample> train;
  train.reserve(data.train.size());
  for (const TranslatePair& p : data.train) train.push_back(translate_example(p, sv, tv));
  AdamConfig adam;
  adam.lr = o.lr;
  AdamState se = adam_init(m.encoder.weights), sd = adam_init(m.decoder.weights);
  const auto start = std::chrono::steady_clock::now();
  size_t next = 0;
  for (int step = 1; step <= o.max_steps; ++step) {
    std::vector<const TranslateExample*> batch;
    for (int i = 0; i < o.batch; ++i) batch.push_back(&train[next++ % train.size()]);
    struct Part {
      ModelWeights ge, gd;
      double loss = 0;
      std::string error;
    } parts[kTrainShards];
    run_sharded(kTrainShards, [&](int s) {
      Part& p = parts[s];
      p.ge = weights_zeros_like(m.encoder.weights);
      p.gd = weights_zeros_like(m.decoder.weights);
      const size_t n = batch.size(), b = n * static_cast<size_t>(s) / kTrainShards, e = n * static_cast<size_t>(s + 1) / kTrainShards;
      for (size_t i = b; i < e; ++i) {
        auto g = translate_loss_grads(m, *batch[i]);
        if (!g) {
          p.error = g.error();
          return;
        }
        weights_add(p.ge, g->encoder, 1.0f / static_cast<float>(n));
        weights_add(p.gd, g->decoder, 1.0f / static_cast<float>(n));
        p.loss += g->loss / static_cast<double>(n);
      }
    });
    for (const Part& p : parts)
      if (!p.error.empty()) return make_error(p.error);
    for (int s = 1; s < kTrainShards; ++s) {
      weights_add(parts[0].ge, parts[s].ge);
      weights_add(parts[0].gd, parts[s].gd);
      parts[0].loss += parts[s].loss;
    }
    const float ne = weights_norm(parts[0].ge), nd = weights_norm(parts[0].gd), norm = std::sqrt(ne * ne + nd * nd);
    adam_step(m.encoder.weights, parts[0].ge, norm, se, adam);
    adam_step(m.decoder.weights, parts[0].gd, norm, sd, adam);
    TranslateProgress p;
    p.step = step;
    p.loss = static_cast<float>(parts[0].loss);
    const bool evaluate = step % o.eval_every == 0 || step == o.max_steps;
    if (evaluate) {
      p.evaluated = true;
      p.scores = translate_score(m, data.heldout);
    }
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (evaluate) run.history.push_back(p);
    if (on_progress && !on_progress(p, m)) {
      run.stopped = true;
      break;
    }
    if (evaluate && o.target_exact > 0 && p.scores.exact_rate() >= o.target_exact) break;
  }
  return run;
}

}  // namespace attnviz
