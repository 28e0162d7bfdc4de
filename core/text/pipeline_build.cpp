// PipelineTokenizer::build: the spec's vocabulary, added tokens, merges, byte tables and framing,
// checked so that encode can only fail on its limits. Messages name the piece, merge or id at fault.
#include <algorithm>

#include "base/quoted.h"
#include "text/bpe_tokenizer.h"
#include "text/pipeline_detail.h"
#include "text/pipeline_tokenizer.h"
#include "base/utf8.h"

namespace attnviz {
namespace {

std::string hex_byte(unsigned b) {
  constexpr char kHex[] = "0123456789ABCDEF";
  const char text[] = {'0', 'x', kHex[(b >> 4) & 15], kHex[b & 15], '\0'};
  return text;
}

}  // namespace

Result<PipelineTokenizer> PipelineTokenizer::build(PipelineSpec spec) {
  PipelineTokenizer t;
  const size_t n = spec.pieces.size();
  if (n == 0) return make_error("the model's vocabulary is empty");
  if (n > size_t(INT32_MAX / 2)) return make_error("the vocabulary is too large");
  t.model_size_ = int(n);
  t.vocab_.pieces = std::move(spec.pieces);
  t.vocab_.ids.reserve(n + spec.added.size());
  for (size_t id = 0; id < n; ++id) {
    const auto [it, fresh] = t.vocab_.ids.emplace(t.vocab_.pieces[id], int(id));
    if (!fresh && spec.repeated_pieces_take_last) it->second = int(id);
    else if (!fresh)
      return make_error("the piece " + in_quotes(t.vocab_.pieces[id]) + " has two ids, " + std::to_string(it->second) +
                        " and " + std::to_string(id));
    t.longest_piece_bytes_ = std::max(t.longest_piece_bytes_, t.vocab_.pieces[id].size());
  }

  // Added tokens either are a piece of the model's vocabulary, by the same id, or extend it densely.
  std::vector<const PipelineAddedToken*> extra;
  for (const PipelineAddedToken& a : spec.added) {
    if (a.content.empty()) return make_error("an added token is empty");
    if (!utf8_is_valid(a.content)) return make_error("the added token with id " + std::to_string(a.id) + " is not valid UTF-8");
    if (a.id < 0) return make_error("the added token " + in_quotes(a.content) + " has a negative id");
    if (size_t(a.id) < n) {
      if (t.vocab_.pieces[size_t(a.id)] != a.content)
        return make_error("the added token " + in_quotes(a.content) + " has id " + std::to_string(a.id) +
                          ", which the vocabulary gives to " + in_quotes(t.vocab_.pieces[size_t(a.id)]));
    } else {
      extra.push_back(&a);
    }
  }
  std::stable_sort(extra.begin(), extra.end(), [](const auto* x, const auto* y) { return x->id < y->id; });
  for (const PipelineAddedToken* a : extra) {
    const size_t next = t.vocab_.pieces.size();
    if (size_t(a->id) < next)
      return make_error("the added tokens " + in_quotes(t.vocab_.pieces[size_t(a->id)]) + " and " + in_quotes(a->content) +
                        " share id " + std::to_string(a->id));
    if (size_t(a->id) > next)
      return make_error("the added token " + in_quotes(a->content) + " has id " + std::to_string(a->id) +
                        ", leaving ids " + std::to_string(next) + ".." + std::to_string(a->id - 1) + " unused");
    if (const auto [it, fresh] = t.vocab_.ids.emplace(a->content, a->id); !fresh)
      return make_error("the added token " + in_quotes(a->content) + " (id " + std::to_string(a->id) +
                        ") is already id " + std::to_string(it->second));
    t.vocab_.pieces.push_back(a->content);
  }
  const size_t total = t.vocab_.pieces.size();
  t.added_.assign(total, false);
  t.special_.assign(total, false);
  for (const PipelineAddedToken& a : spec.added) {
    t.added_[size_t(a.id)] = true;
    if (a.special) t.special_[size_t(a.id)] = true;
  }

  // The model's own pieces only: an added token is never a merge's part.
  const auto model_id = [&](const std::string& piece) -> std::optional<int> {
    const auto it = t.vocab_.ids.find(piece);
    return it == t.vocab_.ids.end() || it->second >= t.model_size_ ? std::nullopt : std::optional<int>(it->second);
  };
  t.merges_.reserve(spec.merges.size());
  std::string joined;
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    // Named references, not a structured binding: clang before 16 cannot capture bindings in a lambda.
    const std::string& a = spec.merges[rank].first;
    const std::string& b = spec.merges[rank].second;
    joined.assign(a).append(b);
    const auto ia = model_id(a), ib = model_id(b), ir = model_id(joined);
    const auto fail = [&](const std::string& what) {
      return make_error("merge " + std::to_string(rank + 1) + " (" + in_quotes(a + " " + b) + "): " + what +
                        " is not in the vocabulary");
    };
    if (!ia) return fail(in_quotes(a));
    if (!ib) return fail(in_quotes(b));
    if (!ir) return fail("the result " + in_quotes(joined));
    t.merges_.add(*ia, *ib, int(rank), *ir);
  }

  t.byte_level_ = std::any_of(spec.pre_tokenizer.begin(), spec.pre_tokenizer.end(), [](const auto& p) {
    return p.kind == PipelinePreTokenize::Kind::byte_level;
  });
  t.byte_fallback_ = spec.byte_fallback;
  if (t.byte_level_ && t.byte_fallback_) return make_error("byte_fallback with a ByteLevel pre-tokenizer is not supported");
  t.byte_ids_.fill(-1);
  for (unsigned b = 0; b < 256 && (t.byte_level_ || t.byte_fallback_); ++b) {
    std::string symbol;
    if (t.byte_level_)
      utf8_append(symbol, bpe_byte_char(uint8_t(b)));
    else
      symbol.append("<").append(hex_byte(b)).append(">");
    const auto id = model_id(symbol);
    if (id) t.byte_ids_[b] = *id;
    else if (t.byte_level_)
      return make_error("the vocabulary has no symbol for byte " + hex_byte(b) + " (" + in_quotes(symbol) + ")");
  }
  if (spec.unk) {
    t.unk_id_ = model_id(*spec.unk);
    if (!t.unk_id_) return make_error("the unknown token " + in_quotes(*spec.unk) + " is not in the vocabulary");
  }
  t.fuse_unk_ = spec.fuse_unk;
  t.ignore_merges_ = spec.ignore_merges;

  for (const PipelineNormalize& s : spec.normalizer)
    if (s.kind == PipelineNormalize::Kind::replace && s.text.empty()) return make_error("a Replace pattern is empty");
  for (const PipelinePreTokenize& p : spec.pre_tokenizer)
    if (p.kind == PipelinePreTokenize::Kind::metaspace && (!utf8_is_valid(p.replacement) || utf8_count(p.replacement) != 1))
      return make_error("a Metaspace replacement must be one character");
  // SentencePiece text marks word starts with a replacement character (Metaspace, or Llama 2's
  // Replace(" " -> "▁")): the tokens that do not start with it continue a word.
  for (const PipelineNormalize& s : spec.normalizer)
    if (s.kind == PipelineNormalize::Kind::replace && s.text == " ") t.metaspace_ = s.with;
  for (const PipelinePreTokenize& p : spec.pre_tokenizer)
    if (p.kind == PipelinePreTokenize::Kind::metaspace) t.metaspace_ = p.replacement;

  for (auto* frame : {&spec.single, &spec.pair}) {
    if (!*frame) continue;
    const bool is_pair = frame == &spec.pair;
    int a = 0, b = 0;
    for (const PipelineFramePart& p : **frame) {
      a += p.sequence == 0;
      b += p.sequence == 1;
      for (const int id : p.ids)
        if (id < 0 || size_t(id) >= total)
          return make_error("the post-processor's special token id " + std::to_string(id) + " is outside the vocabulary");
    }
    if (a != 1 || b != (is_pair ? 1 : 0))
      return make_error(std::string("the post-processor's ") + (is_pair ? "pair" : "single") + " template must use " +
                        (is_pair ? "A and B once each" : "A once and not B"));
  }
  t.single_ = std::move(spec.single);
  t.pair_ = std::move(spec.pair);
  t.frames_pairs_ = spec.frames_pairs;
  t.normalizer_ = std::move(spec.normalizer);
  t.pre_tokenizer_ = std::move(spec.pre_tokenizer);
  t.decoder_ = std::move(spec.decoder);
  if (t.decoder_)
    for (const PipelineDecode& d : *t.decoder_)
      if ((d.kind == PipelineDecode::Kind::replace && d.text.empty()) ||
          (d.kind == PipelineDecode::Kind::strip && d.text.empty()))
        return make_error("a decoder's pattern is empty");
  if (spec.pad) {
    const auto it = t.vocab_.ids.find(*spec.pad);
    if (it == t.vocab_.ids.end()) return make_error("the padding token " + in_quotes(*spec.pad) + " is not in the vocabulary");
    t.pad_id_ = it->second;
  }

  // Added tokens are matched in the raw text, or (normalized ones, as Rust does) in the normalizer's
  // output against their own normalized text; longest first, so the first match is the longest.
  for (const PipelineAddedToken& a : spec.added) {
    if (!a.normalized) {
      t.raw_added_.push_back(a);
      continue;
    }
    PipelineAddedToken copy = a;
    copy.content = pipeline_detail::normalize(t.normalizer_, pipeline_detail::aligned_input(a.content, 0)).text;
    if (!copy.content.empty()) t.normalized_added_.push_back(std::move(copy));
  }
  for (auto* list : {&t.raw_added_, &t.normalized_added_})
    std::stable_sort(list->begin(), list->end(),
                     [](const auto& x, const auto& y) { return x.content.size() > y.content.size(); });
  t.kind_name_ = std::move(spec.kind_name);
  return t;
}

}  // namespace attnviz
