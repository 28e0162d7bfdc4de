// How a checkpoint token is shown on screen: the text it covers in the sentence, so GPT-2's "Ġcat"
// reads " cat" and BERT's "##ing" reads "ing" (TraceToken::continues keeps the joining visible).
// Spaces, tabs and newlines inside a token become visible marks; bytes that are only part of a
// character (byte-level BPE splits emoji) show as <NN> (not \xNN: Korean fonts draw \ as ₩). Nothing here tokenizes.
#pragma once
#include <string>
#include <string_view>

#include "text/subword_tokenizer.h"
#include "text/word_tokenizer.h"

namespace attnviz {

// Marks used for invisible text; the app's font (Nanum) has every one of them.
inline constexpr std::string_view kShownSpace = "\xC2\xB7";  // U+00B7 middle dot
inline constexpr std::string_view kShownTab = "\xE2\x86\x92";      // U+2192 rightwards arrow
inline constexpr std::string_view kShownNewline = "\xE2\x86\xB2";  // U+21B2 down arrow with tip leftwards

// Makes covered text displayable: whitespace marked as above, invalid UTF-8 bytes and other control
// characters (a DEL, an escape) as <NN>.
std::string subword_visible_text(std::string_view covered);

// The display text of one token of `encoding`: special tokens and tokens that cover no text show
// their vocabulary piece; everything else shows subword_visible_text of the text it covers.
std::string subword_token_label(const SubwordEncoding& encoding, const SubwordToken& token);

// What a token is, for the statistics (punctuation share) and chip colours: special tokens are
// special; a token whose covered text (spaces aside) is all punctuation is punct, all digits
// number, all symbols (emoji, math) symbol; anything else, and any partial character, is a word.
TokenKind subword_token_kind(const SubwordEncoding& encoding, const SubwordToken& token);

}  // namespace attnviz
