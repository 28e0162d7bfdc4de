// A multiline text field that wraps at word boundaries as you type (state/soft_wrap.h): the
// Sentence panel's boxes, so that a long sentence is seen whole instead of cut at the edge. With
// `typing`, the built-in Korean typing (widgets/hangul_typing.h) works in it.
#pragma once
#include <string>

#include <imgui.h>

#include "state/hangul_compose.h"

namespace attnviz {

// As ImGui::InputTextMultiline on `text`; returns true when the text changed.
bool sentence_box(const char* id, std::string& text, ImVec2 size, HangulTyping* typing = nullptr);

}  // namespace attnviz
