// Swaps two words in a sentence — every whole-word "tired" becomes "wide" and every "wide" becomes
// "tired" — for the Compare view's one-click sentence B. Matching ignores ASCII case and keeps a
// capital first letter; words inside longer words ("tiredness") are left alone. Nothing else changes.
#pragma once
#include <string>
#include <string_view>

namespace attnviz {

// a and b: non-empty ASCII words. Returns text unchanged when neither occurs as a whole word.
std::string text_swap_words(std::string_view text, std::string_view a, std::string_view b);

}  // namespace attnviz
