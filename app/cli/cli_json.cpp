#include "cli_json.h"

#include "base/file_io.h"

namespace attnviz {

namespace {

Status write_text(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") {
    out << text << "\n";
    return Ok{};
  }
  return file_write_atomic(path, std::string_view(text));
}

}  // namespace

Status cli_write_json(const std::string& path, const CliJson& j, std::ostream& out) { return write_text(path, j.dump(2), out); }

Status cli_write_json(const std::string& path, const ExplainJson& j, std::ostream& out) { return write_text(path, j.dump(2), out); }

}  // namespace attnviz
