// Attention between words instead of subword pieces, and without special tokens (bertviz's
// requests; Clark et al. 2019's word-level analysis): a trace is turned into another trace whose
// queries and keys are words and whose heads hold only the converted weights, so every exporter
// and heatmap reads it as it reads any trace. Pieces join the word they continue
// (TraceToken::continues). Attention *to* a word is the sum over its pieces (keys); attention *from*
// a word is the mean over its pieces (queries). Hiding special tokens drops their rows and columns
// and renormalises every row to sum to 1 again. Q, K, V and scores are not carried over.
#pragma once
#include <vector>

#include "base/result.h"
#include "model/trace.h"

namespace attnviz {

struct WordViewOptions {
  bool merge_pieces = false;  // pieces -> words
  bool hide_special = false;  // drop [CLS], [SEP], <s>, <|begin_of_text|>, ... and renormalise rows
  bool any() const { return merge_pieces || hide_special; }
};

// Which shown column (or row) each token goes to; -1: hidden.
struct WordGroups {
  std::vector<int> group_of;           // per token
  std::vector<TraceToken> groups;      // per shown word: its tokens' text joined, the first one's id
};
WordGroups word_groups(const std::vector<TraceToken>& tokens, const WordViewOptions& options);

// A (Tq, Tk) weight matrix in words: rows averaged over each row group, columns summed over each
// column group; with hide_special every row renormalised over the kept columns (a row left with
// nothing stays 0).
Mat word_weights(const Mat& weights, const WordGroups& rows, const WordGroups& cols, bool renormalise);

// The trace with words for tokens in every layer and head (weights only). Errors: nothing left
// to show (every token special).
Result<Trace> trace_word_view(const Trace& trace, const WordViewOptions& options);

}  // namespace attnviz
