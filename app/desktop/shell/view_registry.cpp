// The registry's table, one entry per line of ATTNVIZ_VIEWS.
#include "shell/view_registry.h"

#include <iterator>

namespace attnviz {

namespace {

constexpr ViewEntry kRegistry[] = {
#define ATTNVIZ_VIEW_ENTRY(name) {View::name, #name, Str::view_##name, &name##_view_draw},
    ATTNVIZ_VIEWS(ATTNVIZ_VIEW_ENTRY)
#undef ATTNVIZ_VIEW_ENTRY
};
static_assert(std::size(kRegistry) == std::size(kAllViews));

}  // namespace

std::span<const ViewEntry> view_registry() { return kRegistry; }

const ViewEntry& view_entry(View v) { return kRegistry[static_cast<size_t>(v)]; }

std::string view_window_label(const AppState& app, View v) {
  const ViewEntry& e = view_entry(v);
  return std::string(tr(app.lang, e.title)) + "###view_" + e.id;
}

}  // namespace attnviz
