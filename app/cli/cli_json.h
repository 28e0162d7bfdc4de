// The JSON the commands write (--json FILE): keys in the order written, two-space indents, written
// atomically, or to standard output for '-'.
#pragma once
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/explain_export.h"
#include "base/result.h"

namespace attnviz {

using CliJson = nlohmann::ordered_json;

Status cli_write_json(const std::string& path, const CliJson& j, std::ostream& out);
// The explanations' JSON (analysis/explain_export.h): the same keys the app's export writes.
Status cli_write_json(const std::string& path, const ExplainJson& j, std::ostream& out);

}  // namespace attnviz
