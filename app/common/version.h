// attnviz's version, from CMake's project(VERSION) through the generated build_info.h, and the
// text both programs print for --version.
#pragma once
#include <string>

namespace attnviz {

const char* attnviz_version();  // "0.1.0"

// "attnviz 0.1.0\n"; verbose adds where the shipped data was found and the demos it holds.
std::string version_text(bool verbose);

}  // namespace attnviz
