// attnviz-cli's entry point: argv to CliOptions, then cli_run. Usage errors exit 2, other errors 1.
#include <iostream>
#include <string>
#include <vector>

#include "base/memory_tuning.h"
#include "cli_options.h"
#include "cli_run.h"

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = attnviz::cli_parse(args);
  if (!options) {
    std::cerr << "attnviz-cli: " << options.error() << "\n";
    return 2;
  }
  return attnviz::cli_run(*options, std::cout, std::cerr);
}
