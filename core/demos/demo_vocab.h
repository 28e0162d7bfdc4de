// A demo model's words to ids: the coreference and gather demos both look typed words up in the
// model's vocabulary (lowercased, [UNK] for the rest). Built once per run, not once per sentence.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "model/model.h"
#include "text/word_tokenizer.h"

namespace attnviz {

struct VocabIndex {
  std::unordered_map<std::string, int> ids;
  int unk = 0;  // the id of "[UNK]" (0 when the vocabulary has none)
};

VocabIndex vocab_index(const Model& model);

// Token ids of the tokens, looked up lowercased ([UNK] for words outside the vocabulary).
std::vector<int> token_ids(const VocabIndex& index, const std::vector<Token>& tokens);

}  // namespace attnviz
