// Which heads matter over a set of sentences, not one: the single-sentence importance grid
// (analysis/importance.h) of every sentence, their mean, each head's spread across the sentences,
// and for how many sentences switching the head off changes the answer. A head that decides one
// sentence and none of twenty others shows as such here, where a single grid would mislead.
#pragma once
#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/importance.h"
#include "model/mask.h"

namespace attnviz {

struct SetSentence {
  int line = 0;  // in the file, from 1
  std::string text;
};

// One sentence per line: blank lines and lines starting with '#' are skipped, a trailing CR is
// stripped, and only the first tab-separated column is read (a TSV's other columns are notes).
// Errors: no sentence at all.
Result<std::vector<SetSentence>> sentence_set_parse(std::string_view file_text);

struct ImportanceSetGrid {
  std::vector<SetSentence> sentences;
  std::vector<ImportanceGrid> per_sentence;     // one per sentence, in order
  AblationMode mode = AblationMode::zero;
  std::vector<std::vector<float>> mean;         // [L][NH]: the mean over sentences of the drop
  std::vector<std::vector<float>> spread;       // [L][NH]: its standard deviation over sentences
  std::vector<std::vector<int>> answer_changes;  // [L][NH]: sentences whose answer that head's absence changes
  int best_layer = -1, best_head = -1;          // the largest mean drop
};

struct ImportanceSetInput {
  MaskSpec mask;              // as the single sentence's trace takes it (causal for a language model)
  AblationMode mode = AblationMode::zero;
  int64_t max_memory = 0;     // per trace (TraceInput::max_memory); 0: its default
  const std::atomic<bool>* cancel = nullptr;
};

// Errors: a sentence the model cannot trace or answer, naming its line ("line 7: the sentence has
// no \"it\""); a cancel between heads.
Result<ImportanceSetGrid> importance_set(const Model& model, const std::vector<SetSentence>& sentences,
                                         const ImportanceSetInput& input = {});

// The sentences (indices into grid.sentences) for which head (layer, head) matters: its drop is at
// least `min_drop`, the largest drop first.
std::vector<int> importance_set_sentences_for(const ImportanceSetGrid& grid, int layer, int head, float min_drop);

}  // namespace attnviz
