// Training and demo data for the induction-head demo: random token sequences in which a segment
// comes back, so the second copy can be predicted only by finding the earlier copy and reading the
// token after it. Makes ids and token names only; it trains nothing and runs no model.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"
#include "base/rng.h"

namespace attnviz {

// Layout: [segment][filler][segment again]. The first copy starts at 0, the repeat at
// repeat_start = length - segment_length. Segment tokens are distinct and the filler never uses
// them, so each repeated token has exactly one earlier occurrence and one right answer.
struct InductionSequence {
  std::vector<int> ids;  // (length) each in [0, vocab_size)
  int repeat_start = 0;
  int repeat_length = 0;
};

// Draws from rng only (the same seed gives the same sequence everywhere). Errors: segment_length < 1,
// length < 2 * segment_length or above kMaxTokens, or a vocabulary too small for distinct segment
// tokens (vocab_size >= segment_length) plus a filler outside them (vocab_size > segment_length).
Result<InductionSequence> induction_sequence(Rng& rng, int vocab_size, int length, int segment_length);

// "t0", "t1", ...: names the word tokenizer keeps whole, one per id.
std::vector<std::string> induction_vocabulary(int vocab_size);

// The ids as space-separated vocabulary names, ready for trace_run; ids outside vocab are "?".
std::string induction_text(const InductionSequence& seq, const std::vector<std::string>& vocab);

}  // namespace attnviz
