// Word wrap for the sentence boxes (Dear ImGui 1.86's multiline text field does not wrap): the
// spaces where a line must break become '\n' in what the box shows, and back to spaces in what it
// edits. One byte for one byte, so the cursor and the selection stay where they are. Text that
// holds a newline of its own is never wrapped (its newlines could not be told from the breaks).
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

}  // namespace attnviz
