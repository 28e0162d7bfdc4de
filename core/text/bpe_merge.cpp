// The BPE merge loop: a binary heap of (rank, position) keys over a linked list of symbols.
#include "text/bpe_merge.h"

#include <algorithm>
#include <functional>

namespace attnviz {
namespace {

uint64_t pair_key(int left, int right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }

// A pair that may merge, as one integer so the heap stays small and compares fast: the rank in
// the high half, the left symbol's position in the low half, so the minimum is the lowest rank
// and then the leftmost pair. Entries go stale when a neighbour merges first; they are checked
// against the current pair when popped.
uint64_t candidate_key(int rank, int pos) { return (uint64_t(uint32_t(rank)) << 32) | uint32_t(pos); }

struct Node {
  int prev = -1, next = -1;  // neighbours still alive, -1 at the ends
  bool alive = true;
};

}  // namespace

void BpeMerges::add(int left, int right, int rank, int result) { map_[pair_key(left, right)] = Merge{rank, result}; }

const BpeMerges::Merge* BpeMerges::find(int left, int right) const {
  const auto it = map_.find(pair_key(left, right));
  return it == map_.end() ? nullptr : &it->second;
}

void BpeMerges::apply(std::vector<BpeSymbol>& sym) const {
  const size_t n = sym.size();
  if (n < 2 || map_.empty()) return;
  std::vector<Node> node(n);
  for (size_t i = 0; i < n; ++i) {
    node[i].prev = int(i) - 1;
    node[i].next = i + 1 < n ? int(i) + 1 : -1;
  }
  const auto merge_at = [&](int pos) -> const Merge* {
    const int right = node[size_t(pos)].next;
    return right < 0 ? nullptr : find(sym[size_t(pos)].id, sym[size_t(right)].id);
  };
  // The first n - 1 pairs are heapified in O(n); each merge then pushes at most two pairs.
  std::vector<uint64_t> heap;
  heap.reserve(n);
  for (size_t i = 0; i + 1 < n; ++i)
    if (const Merge* m = merge_at(int(i))) heap.push_back(candidate_key(m->rank, int(i)));
  std::make_heap(heap.begin(), heap.end(), std::greater<>{});
  const auto push_pair = [&](int pos) {
    if (const Merge* m = merge_at(pos)) {
      heap.push_back(candidate_key(m->rank, pos));
      std::push_heap(heap.begin(), heap.end(), std::greater<>{});
    }
  };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
    const uint64_t key = heap.back();
    heap.pop_back();
    const int pos = int(uint32_t(key));
    if (!node[size_t(pos)].alive) continue;
    const Merge* m = merge_at(pos);
    if (m == nullptr || m->rank != int(key >> 32)) continue;  // stale: the pair here has changed
    const int right = node[size_t(pos)].next;
    sym[size_t(pos)].id = m->result;
    sym[size_t(pos)].end = sym[size_t(right)].end;
    node[size_t(right)].alive = false;
    node[size_t(pos)].next = node[size_t(right)].next;
    if (node[size_t(right)].next >= 0) node[size_t(node[size_t(right)].next)].prev = pos;
    if (node[size_t(pos)].prev >= 0) push_pair(node[size_t(pos)].prev);
    push_pair(pos);
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    if (node[i].alive) sym[kept++] = sym[i];
  sym.resize(kept);
}

}  // namespace attnviz
