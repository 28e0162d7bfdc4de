// libFuzzer target: attnviz-cli's option parser (cli_parse) on arguments made by splitting the
// input at NUL bytes, so the fuzzer can build any argument list. Parsing touches no file; an
// error must carry the one-line usage message.
#include "cli_options.h"
#include "fuzz/fuzz_check.h"

namespace attnviz::fuzz {

std::string fuzz_cli(Bytes bytes) {
  std::vector<std::string> args;
  if (!bytes.empty())
    for (std::string_view part : split_at_nuls(bytes_text(bytes))) args.emplace_back(part);
  auto options = cli_parse(args);
  if (!options.ok()) {
    if (options.error().find('\n') != std::string::npos) return "cli_parse's message is not one line";
    return error_needs_message(options.error(), "cli_parse");
  }
  return {};
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_cli)
