// The minimal pair the coreference demo is about, as the tests type it.
#pragma once
#include <string>

namespace attnviz::test {

inline const std::string kTired = "The animal didn't cross the street because it was too tired.";
inline const std::string kWide = "The animal didn't cross the street because it was too wide.";

}  // namespace attnviz::test
