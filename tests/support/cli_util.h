// Running attnviz-cli from the tests: in process (cli_parse + cli_run, as main_cli does: a usage
// error is exit 2 with the parser's message), or as the real binary for what only a process shows.
#pragma once
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "cli_options.h"
#include "cli_run.h"

namespace attnviz::test {

struct CliRun {
  int status = -1;
  std::string out, err;
};

inline CliRun cli_in_process(const std::vector<std::string>& args) {
  CliRun r;
  auto o = cli_parse(args);
  if (!o) {
    r.status = 2;
    r.err = o.error();
    return r;
  }
  std::ostringstream out, err;
  r.status = cli_run(*o, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The real binary (ATTNVIZ_CLI) with `args` appended to its path by the shell; its exit status.
inline int cli_binary_status(const std::string& args) {
  const int raw = std::system((std::string(ATTNVIZ_CLI) + " " + args).c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace attnviz::test
