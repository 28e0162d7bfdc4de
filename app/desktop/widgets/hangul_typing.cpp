// One field is typed in at a time, so one composition serves them all: it belongs to the field
// `owner`, and lives in that field's text at byte `start` as the bytes `shown`. Each frame the
// character filter collects the letters (ImGui gives it no access to the text) and the edit or
// always callback, which runs after ImGui's own keys, applies them.
#include "widgets/hangul_typing.h"

#include <cstring>
#include <vector>

#include <imgui_internal.h>
#include <imgui_stdlib.h>

namespace attnviz {

namespace {

struct Composition {
  ImGuiID owner = 0;
  HangulComposer composer;
  int start = 0;
  std::string shown;
  std::vector<char32_t> letters;  // taken by the filter this frame
  bool backspace = false;         // Backspace was pressed this frame while composing
  bool toggle = false;            // Shift+Space this frame
};

Composition& composition() {
  static Composition c;
  return c;
}

void end_composition(Composition& c) {
  c.composer.finish();  // the syllable stays in the text as it is
  c.shown.clear();
  c.owner = 0;
}

// The composition is still where it was left: the cursor just after it, nothing selected.
bool still_in_place(const Composition& c, const ImGuiInputTextCallbackData* d) {
  const int end = c.start + static_cast<int>(c.shown.size());
  return end <= d->BufTextLen && d->CursorPos == end && d->SelectionStart == d->SelectionEnd &&
         std::memcmp(d->Buf + c.start, c.shown.data(), c.shown.size()) == 0;
}

// ImGui's Backspace removed the syllable being composed (one character, just before the cursor).
bool backspace_took_it(const Composition& c, const ImGuiInputTextCallbackData* d) {
  return c.backspace && d->CursorPos == c.start && d->SelectionStart == d->SelectionEnd;
}

void replace_composition(Composition& c, ImGuiInputTextCallbackData* d, int old_len, const std::string& committed) {
  if (old_len > 0) d->DeleteChars(c.start, old_len);
  const std::string inserted = committed + c.composer.preedit();
  if (!inserted.empty()) d->InsertChars(c.start, inserted.c_str(), inserted.c_str() + inserted.size());
  c.start += static_cast<int>(committed.size());
  c.shown = c.composer.preedit();
  d->CursorPos = d->SelectionStart = d->SelectionEnd = c.start + static_cast<int>(c.shown.size());
}

void apply_letters(Composition& c, ImGuiInputTextCallbackData* d, ImGuiID id) {
  if (c.owner == id && !c.shown.empty()) {
    if (backspace_took_it(c, d)) {
      c.composer.backspace();
      replace_composition(c, d, 0, "");
    } else if (!still_in_place(c, d)) {
      end_composition(c);
    }
  }
  if (c.letters.empty()) return;
  if (c.owner != id || c.shown.empty()) {  // a new composition at the cursor, over the selection
    c.composer.finish();
    c.owner = id;
    const int lo = std::min(d->SelectionStart, d->SelectionEnd), hi = std::max(d->SelectionStart, d->SelectionEnd);
    if (hi > lo) d->DeleteChars(lo, hi - lo);
    c.start = hi > lo ? lo : d->CursorPos;
    c.shown.clear();
  }
  for (const char32_t letter : c.letters) {
    std::string committed;
    const int old_len = static_cast<int>(c.shown.size());
    c.composer.feed(letter, committed);
    replace_composition(c, d, old_len, committed);
  }
  c.letters.clear();
}

}  // namespace

HangulField hangul_field_begin(const char* label, HangulTyping* typing) {
  HangulField f{typing, ImGui::GetID(label)};
  Composition& c = composition();
  if (!typing) return f;
  const bool was_owner = c.owner == f.id;
  if (was_owner) {
    if (!typing->on || ImGui::GetActiveID() != f.id) end_composition(c);
    const ImGuiIO& io = ImGui::GetIO();
    c.backspace = !c.shown.empty() && !io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Backspace));
  }
  if (was_owner || ImGui::GetActiveID() == f.id) typing->composing = c.owner == f.id ? c.shown : std::string();
  return f;
}

int hangul_field_callback(ImGuiInputTextCallbackData* data, const HangulField& field) {
  if (!field.typing) return 0;
  Composition& c = composition();
  if (data->EventFlag == ImGuiInputTextFlags_CallbackCharFilter) {
    const char32_t ch = data->EventChar;
    if (ch == ' ' && ImGui::GetIO().KeyShift) {  // Shift+Space: on / off, as ibus-hangul
      c.toggle = true;
      return 1;
    }
    if (field.typing->on && hangul_jamo_for_key(ch)) {
      c.letters.push_back(ch);
      return 1;
    }
    if (c.owner == field.id && !c.shown.empty()) end_composition(c);  // a space, a digit…: the syllable is done
    return 0;
  }
  if (c.toggle) {
    c.toggle = false;
    field.typing->on = !field.typing->on;
    if (!field.typing->on && c.owner == field.id) end_composition(c);
  }
  apply_letters(c, data, field.id);
  c.backspace = false;
  field.typing->composing = c.owner == field.id ? c.shown : std::string();
  return 0;
}

void hangul_field_end(const HangulField& field, const std::string& shown, bool multiline) {
  const Composition& c = composition();
  if (!field.typing || c.owner != field.id || c.shown.empty() || ImGui::GetActiveID() != field.id) return;
  if (c.start + c.shown.size() > shown.size() || shown.compare(c.start, c.shown.size(), c.shown) != 0) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImVec2 origin;
  ImRect clip;
  ImDrawList* dl = nullptr;
  if (multiline) {  // InputTextMultiline draws in a child window: the last one this window began
    if (window->DC.ChildWindows.empty()) return;
    ImGuiWindow* child = window->DC.ChildWindows.back();
    origin = ImVec2(child->Pos.x + style.FramePadding.x - child->Scroll.x, child->Pos.y + style.FramePadding.y - child->Scroll.y);
    clip = child->InnerClipRect;
    dl = child->DrawList;
  } else {
    const ImGuiInputTextState* state = ImGui::GetInputTextState(field.id);
    const ImVec2 min = ImGui::GetItemRectMin();
    origin = ImVec2(min.x + style.FramePadding.x - (state ? state->ScrollX : 0), min.y + style.FramePadding.y);
    clip = ImRect(min, ImGui::GetItemRectMax());
    dl = window->DrawList;
  }
  const size_t line_start = c.start == 0 ? 0 : shown.rfind('\n', c.start - 1) + 1;  // npos + 1 == 0
  const float font = ImGui::GetFontSize();
  float y = origin.y;
  for (size_t i = 0; i < static_cast<size_t>(c.start); ++i)
    if (shown[i] == '\n') y += font;
  const char* text = shown.c_str();
  const float x0 = origin.x + ImGui::CalcTextSize(text + line_start, text + c.start).x;
  const float x1 = x0 + ImGui::CalcTextSize(c.shown.c_str()).x;
  const float thick = std::max(1.0f, font / 12);
  dl->PushClipRect(clip.Min, clip.Max, true);
  dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + font), ImGui::GetColorU32(ImGuiCol_TextSelectedBg, 0.6f));
  dl->AddRectFilled(ImVec2(x0, y + font - thick), ImVec2(x1, y + font), ImGui::GetColorU32(ImGuiCol_Text));
  dl->PopClipRect();
}

bool hangul_input_text(const char* label, std::string& text, HangulTyping* typing, ImGuiInputTextFlags flags) {
  const HangulField field = hangul_field_begin(label, typing);
  auto callback = [](ImGuiInputTextCallbackData* d) {
    return hangul_field_callback(d, *static_cast<const HangulField*>(d->UserData));
  };
  const bool changed =
      ImGui::InputText(label, &text, typing ? flags | kHangulFieldFlags : flags, typing ? +callback : nullptr,
                       const_cast<HangulField*>(&field));
  hangul_field_end(field, text, false);
  return changed;
}

}  // namespace attnviz
