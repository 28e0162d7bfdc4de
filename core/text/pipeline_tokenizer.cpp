// Encoding and decoding for PipelineTokenizer. Text moves through the steps as `Aligned` (pipeline_detail.h):
// UTF-8 plus, for each of its bytes, the input bytes it came from, so every token maps back to the input
// however the normalizer and pre-tokenizer rewrote it. Normalizers and added-token matching are
// pipeline_text.cpp's; building and checking the tokenizer is pipeline_build.cpp's.
#include "text/pipeline_tokenizer.h"

#include <algorithm>

#include "text/bpe_tokenizer.h"
#include "text/pipeline_detail.h"
#include "base/utf8.h"

namespace attnviz {

using pipeline_detail::added_matches;
using pipeline_detail::AddedMatch;
using pipeline_detail::Aligned;
using pipeline_detail::Span;

namespace {

// Inside encode the budget left for a sentence runs out; encode reports the caller's limit.
Error out_of_tokens() { return make_error(""); }

// A piece after Metaspace's replacement and prepending, handed on whole or, when asked, split at
// each replacement character.
template <class Next>
Status metaspace(const PipelinePreTokenize& step, Aligned piece, const Next& next) {
  using pipeline_detail::normalize;
  piece = normalize({{PipelineNormalize::Kind::replace, " ", step.replacement}}, std::move(piece));
  // Rust: "first" prepends only to the piece that starts at the sentence's first byte.
  const bool first = !piece.at.empty() && piece.at[0].begin == 0;
  if (!piece.text.starts_with(step.replacement) &&
      (step.prepend == PipelinePreTokenize::Prepend::always ||
       (step.prepend == PipelinePreTokenize::Prepend::first && first)))
    piece = normalize({{PipelineNormalize::Kind::prepend, step.replacement, {}}}, std::move(piece));
  if (!step.split) return next(std::move(piece));
  size_t from = 0;
  for (size_t at = piece.text.find(step.replacement, 1); at != std::string::npos;
       at = piece.text.find(step.replacement, at + 1)) {
    if (Status st = next(pipeline_detail::aligned_slice(piece, from, at)); !st) return st;
    from = at;
  }
  return next(pipeline_detail::aligned_slice(piece, from, piece.text.size()));
}

template <class Next>
Status split_by(SplitPattern pattern, const Aligned& piece, const Next& next) {
  for (size_t pos = 0; pos < piece.text.size();) {
    const size_t end = split_pattern_end(pattern, piece.text, pos);
    if (Status st = next(pipeline_detail::aligned_slice(piece, pos, end)); !st) return st;
    pos = end;
  }
  return Ok{};
}

// The pre-tokenizer's steps from `k` on, depth first: each piece a step makes goes through the
// next steps before the step makes its next piece, and each final non-empty piece reaches `emit`
// in text order. Only a few pieces are alive at once; a list of every piece of a megabyte of text
// (a million small allocations, read back after leaving the caches) cost more per byte the longer
// the text.
template <class Emit>
Status pre_tokenize(const std::vector<PipelinePreTokenize>& steps, size_t k, Aligned piece, const Emit& emit) {
  if (piece.text.empty()) return Ok{};  // no step makes text out of nothing
  if (k == steps.size()) return emit(std::move(piece));
  const auto next = [&](Aligned p) { return pre_tokenize(steps, k + 1, std::move(p), emit); };
  const PipelinePreTokenize& step = steps[k];
  switch (step.kind) {
    case PipelinePreTokenize::Kind::split: return split_by(step.pattern, piece, next);
    case PipelinePreTokenize::Kind::metaspace: return metaspace(step, std::move(piece), next);
    case PipelinePreTokenize::Kind::byte_level:
      if (step.add_prefix_space && !piece.text.starts_with(' '))
        piece = pipeline_detail::normalize({{PipelineNormalize::Kind::prepend, " ", {}}}, std::move(piece));
      if (step.use_regex) return split_by(SplitPattern::gpt2, piece, next);
      return next(std::move(piece));
  }
  return Ok{};
}

}  // namespace

bool PipelineTokenizer::is_added(int id) const { return id >= 0 && id < vocab_size() && added_[size_t(id)]; }

Status PipelineTokenizer::encode_piece(const Aligned& piece, bool section_start, int segment, size_t max_tokens,
                                       std::vector<SubwordToken>& out) const {
  const std::string& t = piece.text;
  if (t.size() > size_t(INT32_MAX)) return make_error("a single word of more than 2 GB is not supported");
  std::vector<BpeSymbol> sym;
  std::optional<int> whole;
  // Llama 3: a pre-token the vocabulary has is one token, whatever the merges say. Each byte is at
  // least one byte of the key, so a pre-token longer than every piece is not looked up.
  if (ignore_merges_ && t.size() <= longest_piece_bytes_) {
    std::string key;
    if (byte_level_)
      for (unsigned char b : t) utf8_append(key, bpe_byte_char(b));
    if (const auto id = id_of(byte_level_ ? std::string_view(key) : std::string_view(t)); id && *id < model_size_)
      whole = id;
  }
  if (whole) {
    sym.push_back({*whole, 0, uint32_t(t.size())});
  } else if (byte_level_) {
    sym.resize(t.size());
    for (size_t i = 0; i < t.size(); ++i) sym[i] = {byte_ids_[uint8_t(t[i])], uint32_t(i), uint32_t(i + 1)};
  } else {
    sym.reserve(t.size());
    // Each character is its piece; one the model lacks becomes its <0xNN> bytes, else the unknown
    // token (consecutive unknowns fused into one when asked), else nothing, as in Rust.
    bool last_unk = false;
    for (size_t pos = 0; pos < t.size();) {
      const size_t start = pos;
      utf8_next(t, pos);
      const auto id = id_of(std::string_view(t).substr(start, pos - start));
      if (id && *id < model_size_) {
        sym.push_back({*id, uint32_t(start), uint32_t(pos)});
        last_unk = false;
        continue;
      }
      if (byte_fallback_ && std::all_of(t.begin() + std::ptrdiff_t(start), t.begin() + std::ptrdiff_t(pos),
                                        [&](char b) { return byte_ids_[uint8_t(b)] >= 0; })) {
        for (size_t k = start; k < pos; ++k) sym.push_back({byte_ids_[uint8_t(t[k])], uint32_t(k), uint32_t(k + 1)});
        last_unk = false;
        continue;
      }
      if (!unk_id_) continue;
      if (last_unk && fuse_unk_)
        sym.back().end = uint32_t(pos);
      else
        sym.push_back({*unk_id_, uint32_t(start), uint32_t(pos)});
      last_unk = true;
    }
  }
  if (!whole) merges_.apply(sym);
  for (size_t k = 0; k < sym.size(); ++k) {
    if (out.size() >= max_tokens) return out_of_tokens();
    const BpeSymbol& s = sym[k];
    const Span span = pipeline_detail::span_of(piece, s.begin, s.end);
    SubwordToken tok;
    tok.id = s.id;
    tok.piece = vocab_.pieces[size_t(s.id)];
    tok.begin = span.begin;
    tok.end = span.end;
    tok.segment = segment;
    tok.unknown = unk_id_ && s.id == *unk_id_;
    // SentencePiece words begin at the replacement character; other words at their pre-token.
    const bool starts = metaspace_.empty() ? k == 0 : std::string_view(t).substr(s.begin).starts_with(metaspace_);
    tok.continues = !starts && !(section_start && k == 0);
    out.push_back(std::move(tok));
  }
  return Ok{};
}

Status PipelineTokenizer::encode_plain(Aligned text, int segment, size_t max_tokens,
                                       std::vector<SubwordToken>& out) const {
  text = pipeline_detail::normalize(normalizer_, std::move(text));
  const auto pieces_of = [&](Aligned part) -> Status {
    bool section_start = true;
    return pre_tokenize(pre_tokenizer_, 0, std::move(part), [&](Aligned piece) {
      const Status st = encode_piece(piece, section_start, segment, max_tokens, out);
      section_start = false;
      return st;
    });
  };
  size_t from = 0;
  for (const AddedMatch& m : added_matches(text.text, normalized_added_)) {
    if (Status st = pieces_of(pipeline_detail::aligned_slice(text, from, m.begin)); !st) return st;
    if (out.size() >= max_tokens) return out_of_tokens();
    const Span span = pipeline_detail::span_of(text, m.begin, m.end);
    SubwordToken tok;
    tok.id = m.token->id;
    tok.piece = vocab_.pieces[size_t(m.token->id)];
    tok.begin = span.begin;
    tok.end = span.end;
    tok.segment = segment;
    tok.special = m.token->special;
    out.push_back(std::move(tok));
    from = m.end;
  }
  if (from == 0) return pieces_of(std::move(text));  // no added token: the whole text, not a copy of it
  return pieces_of(pipeline_detail::aligned_slice(text, from, text.text.size()));
}

Status PipelineTokenizer::encode_segment(const std::string& text, int segment, size_t max_tokens,
                                         std::vector<SubwordToken>& out) const {
  size_t from = 0;
  for (const AddedMatch& m : added_matches(text, raw_added_)) {
    if (m.begin > from)
      if (Status st = encode_plain(pipeline_detail::aligned_input(std::string_view(text).substr(from, m.begin - from), from),
                                   segment, max_tokens, out);
          !st)
        return st;
    if (out.size() >= max_tokens) return out_of_tokens();
    SubwordToken tok;
    tok.id = m.token->id;
    tok.piece = vocab_.pieces[size_t(m.token->id)];
    tok.begin = m.begin;
    tok.end = m.end;
    tok.segment = segment;
    tok.special = m.token->special;
    out.push_back(std::move(tok));
    from = m.end;
  }
  if (from == text.size()) return Ok{};
  return encode_plain(pipeline_detail::aligned_input(std::string_view(text).substr(from), from), segment,
                      max_tokens, out);
}

Result<SubwordEncoding> PipelineTokenizer::encode(std::string_view text, std::optional<std::string_view> pair,
                                                  const SubwordLimits& limits) const {
  for (std::string_view s : {text, pair.value_or(std::string_view())})
    if (s.size() > limits.max_bytes)
      return make_error("the text is " + std::to_string(s.size()) + " bytes; the limit is " +
                        std::to_string(limits.max_bytes));
  const size_t max_tokens = limits.max_tokens > 0 ? size_t(limits.max_tokens) : 0;
  const std::optional<std::vector<PipelineFramePart>>& frame = pair ? pair_ : single_;
  size_t framing = 0;
  if (frame)
    for (const PipelineFramePart& p : *frame) framing += p.ids.size();
  if (framing > max_tokens) return error_too_many_tokens(max_tokens);
  const auto failed = [&](const Status& st) {
    return st.error().empty() ? error_too_many_tokens(max_tokens) : make_error(st.error());
  };
  SubwordEncoding enc;
  enc.text = utf8_sanitize(text);
  if (pair) enc.text_b = utf8_sanitize(*pair);
  // The sentences' tokens go straight where the frame puts them, in room reserved up front (rarely
  // more than a token per byte): growing and copying a vector of a million tokens cost more than
  // making them. The budget is shared in frame order; whichever sentence runs out, the verdict is
  // the same, since it only depends on the total.
  static const std::vector<PipelineFramePart> kUnframed = {{.sequence = 0, .ids = {}, .type_id = 0, .segment = 0},
                                                           {.sequence = 1, .ids = {}, .type_id = 1, .segment = 1}};
  enc.tokens.reserve(std::min(max_tokens, enc.text.size() + enc.text_b.size() + framing));
  size_t budget = max_tokens - framing;  // for the sentences' own tokens
  for (const PipelineFramePart& p : frame ? *frame : kUnframed) {
    if (p.sequence >= 0) {
      if (p.sequence == 1 && !pair) continue;
      const size_t first = enc.tokens.size();
      if (Status st = encode_segment(p.sequence == 0 ? enc.text : enc.text_b, p.sequence, first + budget, enc.tokens); !st)
        return failed(st);
      budget -= enc.tokens.size() - first;
      for (size_t k = first; k < enc.tokens.size(); ++k) enc.tokens[k].type_id = p.type_id;
      continue;
    }
    for (const int id : p.ids) {
      SubwordToken t;
      t.id = id;
      t.piece = vocab_.pieces[size_t(id)];
      t.segment = p.segment;
      t.type_id = p.type_id;
      t.special = true;
      enc.tokens.push_back(std::move(t));
    }
  }
  return enc;
}

// ---- decoding ---------------------------------------------------------------------------------

namespace {

// "<0xNN>" -> NN, as Rust's ByteFallback reads it (either case of hex digit).
std::optional<uint8_t> byte_piece(std::string_view t) {
  if (t.size() != 6 || !t.starts_with("<0x") || t[5] != '>') return std::nullopt;
  int v = 0;
  for (char c : t.substr(3, 2)) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + d;
  }
  return uint8_t(v);
}

void replace_all(std::string& s, std::string_view from, std::string_view with) {
  if (from.empty()) return;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + with.size())) s.replace(at, from.size(), with);
}

}  // namespace

std::string PipelineTokenizer::decode(std::span<const int> ids) const {
  std::vector<std::string> toks;
  std::vector<bool> added;
  for (const int id : ids)
    if (id >= 0 && id < vocab_size()) {
      toks.push_back(vocab_.pieces[size_t(id)]);
      added.push_back(added_[size_t(id)]);
    }
  if (!decoder_) {  // Rust without a decoder: the pieces joined by spaces
    std::string out;
    for (size_t i = 0; i < toks.size(); ++i) out += (i > 0 ? " " : "") + toks[i];
    return out;
  }
  for (const PipelineDecode& step : *decoder_) {
    switch (step.kind) {
      case PipelineDecode::Kind::byte_level: {  // added tokens stand for their own text
        std::string out;
        for (size_t i = 0; i < toks.size(); ++i) out += i < added.size() && added[i] ? toks[i] : bpe_piece_bytes(toks[i]);
        toks.assign(1, std::move(out));
        added.clear();
        break;
      }
      case PipelineDecode::Kind::replace:
        for (std::string& t : toks) replace_all(t, step.text, step.with);
        break;
      case PipelineDecode::Kind::byte_fallback: {
        std::vector<std::string> next;
        bool in_bytes = false;
        for (std::string& t : toks) {
          const auto b = byte_piece(t);
          if (b && in_bytes) {
            next.back().push_back(char(*b));
          } else if (b) {
            next.emplace_back(1, char(*b));
          } else {
            next.push_back(std::move(t));
          }
          in_bytes = b.has_value();
        }
        toks = std::move(next);
        added.clear();
        break;
      }
      case PipelineDecode::Kind::fuse: {
        std::string out;
        for (const std::string& t : toks) out += t;
        toks.assign(1, std::move(out));
        added.clear();
        break;
      }
      case PipelineDecode::Kind::strip:
        for (std::string& t : toks) {
          size_t front = 0, back = 0;
          while (front < size_t(step.start) && t.compare(front * step.text.size(), step.text.size(), step.text) == 0) ++front;
          t.erase(0, front * step.text.size());
          while (back < size_t(step.stop) && t.size() >= step.text.size() * (back + 1) &&
                 t.compare(t.size() - step.text.size() * (back + 1), step.text.size(), step.text) == 0)
            ++back;
          t.resize(t.size() - back * step.text.size());
        }
        break;
      case PipelineDecode::Kind::metaspace:  // as transformers.js: one leading space of the first token goes
        for (size_t i = 0; i < toks.size(); ++i) {
          replace_all(toks[i], step.text, " ");
          if (i == 0 && step.strip_first && toks[i].starts_with(' ')) toks[i].erase(0, 1);
        }
        break;
    }
  }
  std::string out;
  for (const std::string& t : toks) out += t;
  return out;
}

}  // namespace attnviz
