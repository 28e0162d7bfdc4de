#include "demos/translate_readout.h"

#include <algorithm>
#include <cmath>

#include "demos/translate_demo.h"
#include "train/train.h"

namespace attnviz {

namespace {

// Three clauses make at most 37 Korean tokens; a few more let a model that runs on show it.
constexpr int kExtraSteps = 8;

// log softmax(row)[token], in double.
double log_probability(const Mat& logits, Eigen::Index row, int token) {
  const double top = logits.row(row).maxCoeff();
  double sum = 0;
  for (Eigen::Index v = 0; v < logits.cols(); ++v) sum += std::exp(static_cast<double>(logits(row, v)) - top);
  return static_cast<double>(logits(row, token)) - top - std::log(sum);
}

std::vector<TranslateCandidate> top_three(const Mat& logits, Eigen::Index row) {
  std::vector<TranslateCandidate> all;
  for (Eigen::Index v = 0; v < logits.cols(); ++v)
    all.push_back({static_cast<int>(v), static_cast<float>(std::exp(log_probability(logits, row, static_cast<int>(v))))});
  const size_t n = std::min<size_t>(3, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const TranslateCandidate& a, const TranslateCandidate& b) {
                      return a.probability != b.probability ? a.probability > b.probability : a.token < b.token;
                    });
  all.resize(n);
  return all;
}

// log p(target + [EOS] | source) by teacher forcing on an encoded source (its decoder half is replaced).
Result<double> gold_logprob(const TranslateModel& m, TranslateForward& encoded, const std::vector<int>& target,
                            const Ablation& cross_off) {
  std::vector<int> input = {kTranslateBos};
  input.insert(input.end(), target.begin(), target.end());
  if (Status s = translate_decode(m, input, encoded, cross_off); !s) return make_error(s.error());
  double sum = 0;
  for (size_t i = 0; i <= target.size(); ++i)
    sum += log_probability(encoded.logits, static_cast<Eigen::Index>(i), i < target.size() ? target[i] : kTranslateEos);
  return sum;
}

std::vector<std::string> tokens_of(const TranslateModel& m, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (const int id : ids) out.push_back(m.decoder.vocab[static_cast<size_t>(id)]);
  return out;
}

}  // namespace

Result<TranslateReadout> translate_readout(const TranslateModel& m, std::string_view english, const Ablation& cross_off) {
  if (Status s = translate_ablation_validate(m, cross_off); !s) return make_error(s.error());
  auto pair = translate_parse(english);
  if (!pair) return make_error(pair.error());
  TranslateReadout r;
  r.pair = std::move(*pair);
  r.cross_off = cross_off;
  const TranslateExample ex = translate_example(r.pair, m.encoder.vocab, m.decoder.vocab);
  r.source_ids = ex.source_ids;
  auto f = translate_encode(m, ex.source_ids);
  if (!f) return make_error(f.error());
  // The right Korean first (its alignment per head and its probability), then the model's own.
  auto logp = gold_logprob(m, *f, ex.target_ids, cross_off);
  if (!logp) return make_error(logp.error());
  r.gold_logprob = static_cast<float>(*logp);
  const int L = m.arch.bottleneck ? 0 : m.arch.decoder_layers, NH = m.arch.n_heads;
  std::vector<int> hits(static_cast<size_t>(L * NH), 0), all_hits = hits;
  translate_count_aligned(*f, r.pair, hits, all_hits);
  for (const TargetRole role : r.pair.roles) r.content_tokens += role == TargetRole::content;
  for (size_t k = 0; k < hits.size(); ++k) {
    r.head_aligned.push_back(r.content_tokens ? static_cast<float>(hits[k]) / static_cast<float>(r.content_tokens) : 0.0f);
    if (r.best_head < 0 || r.head_aligned[k] > r.head_aligned[static_cast<size_t>(r.best_head)]) r.best_head = static_cast<int>(k);
  }
  const int limit = static_cast<int>(ex.target_ids.size()) + kExtraSteps;
  auto ids = translate_greedy(m, *f, limit, cross_off);
  if (!ids) return make_error(ids.error());
  r.output_ids = std::move(*ids);
  r.output = tokens_of(m, r.output_ids);
  r.exact = r.output_ids == ex.target_ids;
  std::vector<int> input = {kTranslateBos};
  input.insert(input.end(), r.output_ids.begin(), r.output_ids.end());
  if (Status s = translate_decode(m, input, *f, cross_off); !s) return make_error(s.error());
  for (int row = 0; row < r.rows(); ++row) r.top.push_back(top_three(f->logits, row));
  // Greedy decoding stopped at [EOS] when the last row's best token is [EOS].
  r.finished = static_cast<int>(r.output_ids.size()) < limit || r.top.back().front().token == kTranslateEos;
  r.forward = std::move(*f);
  return r;
}

std::string translate_row_token(const TranslateModel& m, const TranslateReadout& r, int row) {
  if (row >= 0 && row < static_cast<int>(r.output.size())) return r.output[static_cast<size_t>(row)];
  return m.decoder.vocab[kTranslateEos];
}

bool translate_particle_token(std::string_view token) {
  return token == "이" || token == "가" || token == "을" || token == "를" || token == "에서";
}

bool translate_joined_token(std::string_view token) { return translate_particle_token(token) || token == "."; }

std::string translate_written(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& t : tokens) out += (out.empty() || translate_joined_token(t) ? "" : " ") + t;
  return out;
}

Result<std::vector<TranslateHeadEffect>> translate_head_effects(const TranslateModel& m, const TranslateReadout& r) {
  std::vector<TranslateHeadEffect> out;
  if (m.arch.bottleneck) return out;
  auto f = translate_encode(m, r.source_ids);
  if (!f) return make_error(f.error());
  const TranslateExample ex = translate_example(r.pair, m.encoder.vocab, m.decoder.vocab);
  const int limit = static_cast<int>(ex.target_ids.size()) + kExtraSteps;
  for (int l = 0; l < m.arch.decoder_layers; ++l)
    for (int h = 0; h < m.arch.n_heads; ++h) {
      if (r.cross_off.has(l, h)) continue;
      TranslateHeadEffect e;
      e.head = {l, h};
      Ablation off = r.cross_off;
      ablation_set(off, e.head, true);
      auto ids = translate_greedy(m, *f, limit, off);
      if (!ids) return make_error(ids.error());
      e.output = tokens_of(m, *ids);
      e.changed = *ids != r.output_ids;
      e.exact = *ids == ex.target_ids;
      auto logp = gold_logprob(m, *f, ex.target_ids, off);
      if (!logp) return make_error(logp.error());
      e.logprob_drop = r.gold_logprob - static_cast<float>(*logp);
      out.push_back(std::move(e));
    }
  return out;
}

std::vector<char> translate_exact_each(const TranslateModel& m, const std::vector<TranslatePair>& pairs) {
  std::vector<char> exact(pairs.size(), 0);
  run_sharded(kTrainShards, [&](int shard) {
    const size_t n = pairs.size();
    for (size_t i = n * static_cast<size_t>(shard) / kTrainShards; i < n * static_cast<size_t>(shard + 1) / kTrainShards; ++i) {
      const TranslateExample ex = translate_example(pairs[i], m.encoder.vocab, m.decoder.vocab);
      auto ids = translate_greedy(m, ex.source_ids, static_cast<int>(ex.target_ids.size()) + kExtraSteps);
      exact[i] = ids && *ids == ex.target_ids;
    }
  });
  return exact;
}

}  // namespace attnviz
