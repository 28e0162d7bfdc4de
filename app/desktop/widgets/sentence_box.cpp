// The box edits the wrapped text in place: after every edit the callback unwraps and wraps the
// buffer again, byte for byte, so ImGui's cursor, selection and undo stay valid.
#include "widgets/sentence_box.h"

#include <imgui_stdlib.h>

#include "state/soft_wrap.h"
#include "widgets/draw.h"
#include "widgets/hangul_typing.h"

namespace attnviz {

namespace {

struct BoxContext {
  float wrap_width = 0;  // 0: the text keeps its own newlines and is not wrapped
  HangulField hangul;
};

int box_callback(ImGuiInputTextCallbackData* data) {
  const auto* ctx = static_cast<const BoxContext*>(data->UserData);
  const int taken = hangul_field_callback(data, ctx->hangul);  // letters composed into the text first
  if (data->EventFlag == ImGuiInputTextFlags_CallbackCharFilter || ctx->wrap_width <= 0) return taken;
  const std::string wrapped = soft_wrap(soft_unwrap(std::string_view(data->Buf, static_cast<size_t>(data->BufTextLen))),
                                        ctx->wrap_width, ui_text_width);
  for (size_t i = 0; i < wrapped.size(); ++i) {  // same length: only '\n' <-> ' '
    if (data->Buf[i] == wrapped[i]) continue;
    data->Buf[i] = wrapped[i];
    data->BufDirty = true;
  }
  return 0;
}

}  // namespace

bool sentence_box(const char* id, std::string& text, ImVec2 size, HangulTyping* typing) {
  BoxContext ctx{0, hangul_field_begin(id, typing)};
  const bool wrap = soft_wrappable(text);  // its own newlines: shown as they are
  ImGuiInputTextFlags flags = typing ? kHangulFieldFlags : 0;
  std::string shown = text;
  if (wrap) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float box_w = size.x > 0 ? size.x : size.x + ImGui::GetContentRegionAvail().x;
    // Inside the frame padding, and clear of the vertical scroll bar a long text brings.
    ctx.wrap_width = box_w - style.FramePadding.x * 2 - style.ScrollbarSize - 2;
    shown = soft_wrap(text, ctx.wrap_width, ui_text_width);
    // A wrapped box holds no newline of the sentence's own: every '\n' in it is a break (a pasted
    // line break becomes a space), and Enter leaves the field instead of adding one.
    flags |= ImGuiInputTextFlags_CallbackEdit | ImGuiInputTextFlags_NoHorizontalScroll |
             ImGuiInputTextFlags_CtrlEnterForNewLine;
  }
  const bool edited = ImGui::InputTextMultiline(id, &shown, size, flags, flags ? box_callback : nullptr, &ctx);
  hangul_field_end(ctx.hangul, shown, true);
  if (!edited) return false;
  std::string unwrapped = wrap ? soft_unwrap(shown) : shown;
  if (unwrapped == text) return false;
  text = std::move(unwrapped);
  return true;
}

}  // namespace attnviz
