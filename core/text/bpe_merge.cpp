// The BPE merge loop over a linked list of symbols, twice: a binary heap of (rank, position) keys
// (apply_naive, and apply for short words), and, for long words, one list of positions per rank.
#include "text/bpe_merge.h"

#include <algorithm>
#include <limits>
#include <functional>

namespace attnviz {
namespace {

uint64_t pair_key(int left, int right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }

// A pair that may merge, as one integer so the heap stays small and compares fast: the rank in
// the high half, the left symbol's position in the low half, so the minimum is the lowest rank
// and then the leftmost pair. Entries go stale when a neighbour merges first; they are checked
// against the current pair when popped.
uint64_t candidate_key(int rank, int pos) { return (uint64_t(uint32_t(rank)) << 32) | uint32_t(pos); }

// The symbols as a doubly linked list: a merge keeps the left symbol, widened, and unlinks the right.
// A symbol's id and links sit together in 12 bytes, so that a merge, which reads and writes them,
// touches one cache line per symbol; its extent is not kept, since a survivor absorbs the symbols
// up to the next survivor and ends where the last of them did. (A long word's merges jump across
// the whole word rank by rank: with ids and extents kept apart from the links, each jump missed the
// caches twice.)
class SymbolList {
 public:
  explicit SymbolList(std::vector<BpeSymbol>& sym) : sym_(sym), node_(sym.size()) {
    for (size_t i = 0; i < node_.size(); ++i) node_[i] = Node{sym[i].id, int(i) - 1, i + 1 < node_.size() ? int(i) + 1 : -1};
  }
  int id(int pos) const { return node_[size_t(pos)].id; }
  int prev(int pos) const { return node_[size_t(pos)].prev; }
  int next(int pos) const { return node_[size_t(pos)].next; }
  bool alive(int pos) const { return node_[size_t(pos)].id != kMerged; }

  // The pair starting at `pos` becomes one symbol with id `result`.
  void merge(int pos, int result) {
    Node& left = node_[size_t(pos)];
    Node& right = node_[size_t(left.next)];
    left.id = result;
    right.id = kMerged;
    if (right.next >= 0) node_[size_t(right.next)].prev = pos;
    left.next = right.next;
  }

  // Writes the survivors back into the vector, in order, each spanning the symbols it absorbed.
  // Only entries before the one read are overwritten.
  void compact() {
    size_t kept = 0;
    for (size_t i = 0; i < node_.size(); ++i) {
      if (node_[i].id == kMerged) continue;
      const int next = node_[i].next;
      const uint32_t end = next >= 0 ? sym_[size_t(next) - 1].end : sym_.back().end;
      sym_[kept++] = BpeSymbol{node_[i].id, sym_[i].begin, end};
    }
    sym_.resize(kept);
  }

 private:
  static constexpr int kMerged = std::numeric_limits<int>::min();  // merged into its left neighbour (no id is)
  struct Node {
    int id;
    int prev, next;  // neighbours still alive, -1 at the ends
  };
  std::vector<BpeSymbol>& sym_;
  std::vector<Node> node_;
};

// Below this many symbols the heap lives in the first caches and is the faster of the two.
constexpr size_t kRankListsFrom = 256;

}  // namespace

void BpeMerges::add(int left, int right, int rank, int result) { map_[pair_key(left, right)] = Merge{rank, result}; }

const BpeMerges::Merge* BpeMerges::find(int left, int right) const {
  const auto it = map_.find(pair_key(left, right));
  return it == map_.end() ? nullptr : &it->second;
}

template <class List>
const BpeMerges::Merge* BpeMerges::merge_after(const List& list, int pos) const {
  const int right = list.next(pos);
  return right < 0 ? nullptr : find(list.id(pos), list.id(right));
}

void BpeMerges::apply_naive(std::vector<BpeSymbol>& sym) const {
  const size_t n = sym.size();
  if (n < 2 || map_.empty()) return;
  SymbolList list(sym);
  const auto merge_at = [&](int pos) { return merge_after(list, pos); };
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
    if (!list.alive(pos)) continue;
    const Merge* m = merge_at(pos);
    if (m == nullptr || m->rank != int(key >> 32)) continue;  // stale: the pair here has changed
    list.merge(pos, m->result);
    if (list.prev(pos) >= 0) push_pair(list.prev(pos));
    push_pair(pos);
  }
  list.compact();
}

void BpeMerges::apply(std::vector<BpeSymbol>& sym) const {
  if (sym.size() < kRankListsFrom) return apply_naive(sym);
  if (map_.empty()) return;
  SymbolList list(sym);
  const auto merge_at = [&](int pos) { return merge_after(list, pos); };
  // The pairs waiting at each rank, by position: taken in order from `next`. A pair pushed at a
  // position below the last one waiting leaves the rest to be sorted before the next is taken.
  // Pushes come in position order while one rank is swept, so sorting is rare.
  struct RankList {
    std::vector<int> pos;
    size_t next = 0;
    bool sorted = true;
    bool queued = false;  // its rank is in `ranks`
  };
  std::unordered_map<int, RankList> lists;  // references to its values survive rehashing
  std::vector<int> ranks;                   // min-heap of the ranks with pairs waiting, each once
  const auto push_pair = [&](int pos) {
    const Merge* m = merge_at(pos);
    if (m == nullptr) return;
    RankList& r = lists[m->rank];
    if (r.next < r.pos.size() && r.pos.back() > pos) r.sorted = false;
    r.pos.push_back(pos);
    if (!r.queued) {
      r.queued = true;
      ranks.push_back(m->rank);
      std::push_heap(ranks.begin(), ranks.end(), std::greater<>{});
    }
  };
  for (size_t i = 0; i + 1 < sym.size(); ++i) push_pair(int(i));
  while (!ranks.empty()) {
    // The lowest rank first, then the leftmost pair: the heap's order, as Hugging Face merges.
    const int rank = ranks.front();
    RankList& r = lists[rank];
    if (r.next == r.pos.size()) {
      std::pop_heap(ranks.begin(), ranks.end(), std::greater<>{});
      ranks.pop_back();
      r = RankList{};  // a later merge may make pairs of this rank again
      continue;
    }
    if (!r.sorted) {
      std::sort(r.pos.begin() + std::ptrdiff_t(r.next), r.pos.end());
      r.sorted = true;
    }
    const int pos = r.pos[r.next++];
    if (!list.alive(pos)) continue;
    const Merge* m = merge_at(pos);
    if (m == nullptr || m->rank != rank) continue;  // stale: the pair here has changed
    list.merge(pos, m->result);
    if (list.prev(pos) >= 0) push_pair(list.prev(pos));
    push_pair(pos);
  }
  list.compact();
}

}  // namespace attnviz
