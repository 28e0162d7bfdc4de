// Sampling with our Rng and integer arithmetic only (no std:: distributions, whose output differs
// between standard libraries), so a seed names one data set on every machine.
#include "demos/induction_data.h"

#include <utility>

#include "model/config.h"

namespace attnviz {

namespace {

// Uniform in [0, n). The modulo bias is below 2^-40 for any vocabulary we allow.
}  // namespace

Result<InductionSequence> induction_sequence(Rng& rng, int vocab_size, int length, int segment_length) {
  if (segment_length < 1) return make_error("the repeated segment needs at least 1 token");
  if (length < 2 * segment_length)
    return make_error("a sequence of " + std::to_string(length) + " tokens cannot hold two copies of a " +
                      std::to_string(segment_length) + "-token segment");
  if (length > kMaxTokens) return make_error("at most " + std::to_string(kMaxTokens) + " tokens per sequence");
  const bool filler = length > 2 * segment_length;
  if (vocab_size < segment_length || (filler && vocab_size == segment_length))
    return make_error("a vocabulary of " + std::to_string(vocab_size) + " is too small for a " +
                      std::to_string(segment_length) + "-token segment of distinct tokens" +
                      (filler ? " plus filler" : ""));

  // Distinct segment tokens: a partial Fisher-Yates shuffle of 0..V-1; the rest is the filler pool.
  std::vector<int> pool(static_cast<size_t>(vocab_size));
  for (int v = 0; v < vocab_size; ++v) pool[static_cast<size_t>(v)] = v;
  for (int k = 0; k < segment_length; ++k)
    std::swap(pool[static_cast<size_t>(k)], pool[static_cast<size_t>(k + rng.below(vocab_size - k))]);

  InductionSequence seq;
  seq.repeat_start = length - segment_length;
  seq.repeat_length = segment_length;
  seq.ids.reserve(static_cast<size_t>(length));
  for (int k = 0; k < segment_length; ++k) seq.ids.push_back(pool[static_cast<size_t>(k)]);
  for (int k = 2 * segment_length; k < length; ++k)
    seq.ids.push_back(pool[static_cast<size_t>(segment_length + rng.below(vocab_size - segment_length))]);
  for (int k = 0; k < segment_length; ++k) seq.ids.push_back(pool[static_cast<size_t>(k)]);
  return seq;
}

std::vector<std::string> induction_vocabulary(int vocab_size) {
  std::vector<std::string> out;
  for (int v = 0; v < vocab_size; ++v) out.push_back("t" + std::to_string(v));
  return out;
}

std::string induction_text(const InductionSequence& seq, const std::vector<std::string>& vocab) {
  std::string out;
  for (int id : seq.ids) {
    if (!out.empty()) out += ' ';
    out += id >= 0 && static_cast<size_t>(id) < vocab.size() ? vocab[static_cast<size_t>(id)] : "?";
  }
  return out;
}

}  // namespace attnviz
