#include "cli_json.h"

#include "base/file_io.h"

namespace attnviz {

Status cli_write_json(const std::string& path, const CliJson& j, std::ostream& out) {
  const std::string text = j.dump(2);
  if (path == "-") {
    out << text << "\n";
    return Ok{};
  }
  return file_write_atomic(path, std::string_view(text));
}

}  // namespace attnviz
