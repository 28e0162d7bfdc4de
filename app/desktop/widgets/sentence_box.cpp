// The box edits the wrapped text in place: after every edit the callback unwraps and wraps the
// buffer again, byte for byte, so ImGui's cursor, selection and undo stay valid.
#include "widgets/sentence_box.h"

#include <imgui_stdlib.h>

#include "state/soft_wrap.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

struct WrapContext {
  float width = 0;
};

int rewrap(ImGuiInputTextCallbackData* data) {
  const auto* ctx = static_cast<const WrapContext*>(data->UserData);
  const std::string wrapped = soft_wrap(soft_unwrap(std::string_view(data->Buf, static_cast<size_t>(data->BufTextLen))),
                                        ctx->width, ui_text_width);
  for (size_t i = 0; i < wrapped.size(); ++i) data->Buf[i] = wrapped[i];  // same length: only '\n' <-> ' '
  data->BufDirty = true;
  return 0;
}

}  // namespace

bool sentence_box(const char* id, std::string& text, ImVec2 size) {
  if (!soft_wrappable(text)) return ImGui::InputTextMultiline(id, &text, size);  // its own newlines: shown as they are
  const ImGuiStyle& style = ImGui::GetStyle();
  const float box_w = size.x > 0 ? size.x : size.x + ImGui::GetContentRegionAvail().x;
  // Inside the frame padding, and clear of the vertical scroll bar a long text brings.
  WrapContext ctx{box_w - style.FramePadding.x * 2 - style.ScrollbarSize - 2};
  std::string shown = soft_wrap(text, ctx.width, ui_text_width);
  // A wrapped box holds no newline of the sentence's own: every '\n' in it is a break (a pasted
  // line break becomes a space), and Enter leaves the field instead of adding one.
  const ImGuiInputTextFlags flags =
      ImGuiInputTextFlags_CallbackEdit | ImGuiInputTextFlags_NoHorizontalScroll | ImGuiInputTextFlags_CtrlEnterForNewLine;
  if (!ImGui::InputTextMultiline(id, &shown, size, flags, rewrap, &ctx)) return false;
  std::string edited = soft_unwrap(shown);
  if (edited == text) return false;
  text = std::move(edited);
  return true;
}

}  // namespace attnviz
