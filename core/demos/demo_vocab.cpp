#include "demos/demo_vocab.h"

#include "base/ascii.h"

namespace attnviz {

VocabIndex vocab_index(const Model& model) {
  VocabIndex v;
  for (size_t i = 0; i < model.vocab.size(); ++i) v.ids.emplace(model.vocab[i], static_cast<int>(i));
  if (auto it = v.ids.find("[UNK]"); it != v.ids.end()) v.unk = it->second;
  return v;
}

std::vector<int> token_ids(const VocabIndex& index, const std::vector<Token>& tokens) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const Token& t : tokens) {
    auto it = index.ids.find(ascii_lower(t.text));
    ids.push_back(it == index.ids.end() ? index.unk : it->second);
  }
  return ids;
}

}  // namespace attnviz
