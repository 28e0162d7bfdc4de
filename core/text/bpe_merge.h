// The merge loop of byte-pair encoding, shared by GPT-2's tokenizer and the tokenizer.json pipeline:
// adjacent symbols merge by rank (lowest first, then leftmost, Hugging Face's order) until no pair
// of neighbours has a merge. Symbols are vocabulary ids with extents; no text, bytes or files here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace attnviz {

// One symbol of a word: a vocabulary id and the bytes [begin, end) of the word it spells.
struct BpeSymbol {
  int id = 0;
  uint32_t begin = 0, end = 0;
};

class BpeMerges {
 public:
  // left + right -> result at `rank`. A repeated pair keeps its last rank, as the Rust and
  // JavaScript tokenizers' maps do.
  void add(int left, int right, int rank, int result);
  void reserve(size_t n) { map_.reserve(n); }
  size_t size() const { return map_.size(); }  // distinct pairs

  // Merges `symbols` in place: the survivors stay in order, each spanning the extents it absorbed.
  // A long word keeps one list of pair positions per rank, read in order, so its work grows
  // with its length: one heap of every pair (apply_naive) cost 7-8 times as much for 4 times
  // the symbols at a million, its pops missing the caches ever deeper.
  void apply(std::vector<BpeSymbol>& symbols) const;
  // The same merges, by one binary heap of candidate pairs (stale entries skipped when popped):
  // O(n log n), and the faster of the two for short words.
  void apply_naive(std::vector<BpeSymbol>& symbols) const;

 private:
  struct Merge {
    int rank = 0;
    int result = 0;
  };
  const Merge* find(int left, int right) const;
  // The merge of the symbol at `pos` with the next one still in `list`, if any (bpe_merge.cpp).
  template <class List>
  const Merge* merge_after(const List& list, int pos) const;
  std::unordered_map<uint64_t, Merge> map_;
};

}  // namespace attnviz
