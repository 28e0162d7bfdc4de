// Text fitted to a width. Word wrap for the sentence boxes (Dear ImGui 1.86's multiline text field
// does not wrap): the spaces where a line must break become '\n' in what the box shows, and back to
// spaces in what it edits. One byte for one byte, so the cursor and the selection stay where they
// are. Text that holds a newline of its own is never wrapped (its newlines could not be told from
// the breaks). And one line cut with an ellipsis where it would not fit (the status bar).
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace attnviz {

// `width_of` measures a run of text as the box draws it. A word longer than a line stays whole.
std::string soft_wrap(std::string_view text, float line_width, const std::function<float(std::string_view)>& width_of);
// The text the shown one stands for: every '\n' back to a space.
std::string soft_unwrap(std::string_view shown);
// True when the text can be wrapped (it has no '\n' or '\r' of its own).
bool soft_wrappable(std::string_view text);

// `text` when it fits in `width`; otherwise its longest beginning that fits followed by "…", cut
// between UTF-8 characters (only "…" when nothing more fits, "" when not even that does).
std::string fit_with_ellipsis(std::string_view text, float width, const std::function<float(std::string_view)>& width_of);

}  // namespace attnviz
