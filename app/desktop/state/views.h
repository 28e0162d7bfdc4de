// The views, in tab order. Adding a view is a folder under views/ with its draw function
// `NAME_view_draw(AppState&, GuiResources&)` (and, if it remembers anything, a NAME_state.h whose
// struct AppState holds) plus one line in ATTNVIZ_VIEWS: the enum below, the ids sessions and scripts
// use, and the shell's registry (title Str::view_NAME, window id, draw function) follow from it.
#pragma once
#include <string_view>

namespace attnviz {

#define ATTNVIZ_VIEWS(X) X(heads) X(model) X(arch) X(lines) X(compare) X(steps) X(stats) X(coref) X(train) X(translate)

enum class View {
#define ATTNVIZ_VIEW_ENUM(name) name,
  ATTNVIZ_VIEWS(ATTNVIZ_VIEW_ENUM)
#undef ATTNVIZ_VIEW_ENUM
};

inline constexpr View kAllViews[] = {
#define ATTNVIZ_VIEW_VALUE(name) View::name,
    ATTNVIZ_VIEWS(ATTNVIZ_VIEW_VALUE)
#undef ATTNVIZ_VIEW_VALUE
};

// The name of a view in sessions, scripts and --view ("heads", "model", ...), and back.
const char* view_id(View v);
bool view_from_id(std::string_view id, View& out);

}  // namespace attnviz
