// Where a model came from (Model::source, Trace::model_source), as the UI shows it in its language:
// the labels of models made rather than opened are translated ("sandbox (seed 1)" is
// "샌드박스 (시드 1)" in Korean), paths and anything else are shown as they are. Headless.
#pragma once
#include <string>
#include <string_view>

#include "shell/strings.h"

namespace attnviz {

std::string model_source_text(std::string_view source, Lang lang);

}  // namespace attnviz
