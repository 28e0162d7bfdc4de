#include "app/font_find.h"
namespace attnviz {
std::optional<std::string> font_find_path() { return std::nullopt; }
}
