// View ids, spelled as in ATTNVIZ_VIEWS.
#include "state/views.h"

#include <iterator>

#include "base/enum_names.h"

namespace attnviz {

namespace {

constexpr EnumNames<View, std::size(kAllViews)> kViewIds{{
#define ATTNVIZ_VIEW_ID(name) {View::name, #name},
    ATTNVIZ_VIEWS(ATTNVIZ_VIEW_ID)
#undef ATTNVIZ_VIEW_ID
}};

}  // namespace

const char* view_id(View v) { return enum_name(kViewIds, v).data(); }  // names are literals

bool view_from_id(std::string_view id, View& out) {
  const auto v = enum_from_name(kViewIds, id);
  if (v) out = *v;
  return v.has_value();
}

}  // namespace attnviz
