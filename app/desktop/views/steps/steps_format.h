// Text for the step-by-step view: printf into a std::string for the view's own formulas (a table
// string goes through tr_format instead), numbers at the lecture's precision (-∞ for hidden cells)
// and shapes written the llm.c way, "(12, 64)". Formatting only: nothing here reads AppState or draws.
#pragma once
#include <string>

namespace attnviz {

std::string steps_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The value as shown everywhere in the view: `decimals` places, "-∞" / "+∞" for infinities.
std::string steps_number(float v, int decimals);

// "(rows, cols)".
std::string steps_shape(long rows, long cols);

// Text at most `max_chars` code points long, ending in "…" when cut (UTF-8 safe).
std::string steps_clip(const std::string& text, size_t max_chars);

}  // namespace attnviz
