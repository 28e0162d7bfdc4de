// The built-in Korean typing in a text field (state/hangul_compose.h does the composing): Shift+Space
// turns it on and off while the field is being typed in; then the letter keys type Hangul on the
// 2-set layout and the syllable being composed stands in the text, underlined, until a key that is
// not a letter, a click or another field ends it. What an input method (ibus, fcitx) commits goes
// through unchanged either way.
#pragma once
#include <string>

#include <imgui.h>

#include "state/hangul_compose.h"

namespace attnviz {

// What a field's ImGui callback needs; one per field and frame.
struct HangulField {
  HangulTyping* typing = nullptr;  // null: the field has no built-in typing
  ImGuiID id = 0;
};

// Before the field: ends a composition the field lost (a click elsewhere, typing turned off) and
// notes a Backspace meant for the syllable being composed.
HangulField hangul_field_begin(const char* label, HangulTyping* typing);
// The field's callback, for ImGuiInputTextFlags_CallbackCharFilter and CallbackEdit/CallbackAlways
// (the flags below): takes the letters and puts the composition into the field's text. Returns what
// an ImGui callback returns.
int hangul_field_callback(ImGuiInputTextCallbackData* data, const HangulField& field);
inline constexpr ImGuiInputTextFlags kHangulFieldFlags =
    ImGuiInputTextFlags_CallbackCharFilter | ImGuiInputTextFlags_CallbackEdit | ImGuiInputTextFlags_CallbackAlways;
// After the field: underlines the syllable being composed. `shown` is the text the field holds (as
// drawn, with its line breaks); `multiline`: an InputTextMultiline.
void hangul_field_end(const HangulField& field, const std::string& shown, bool multiline);

// A one-line field with the built-in typing (as ImGui::InputText; returns true when the text changed).
bool hangul_input_text(const char* label, std::string& text, HangulTyping* typing, ImGuiInputTextFlags flags = 0);

}  // namespace attnviz
