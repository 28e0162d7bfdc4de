// Runs a parsed attnviz-cli command: builds or loads the model, computes the Trace once, and writes
// the outputs the user asked for. Returns the process exit status: 0, 1 with a message on err, or 2
// (a usage error) when an architecture flag disagrees with the model file's config.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "cli_options.h"

namespace attnviz {

int cli_run(const CliOptions& options, std::ostream& out, std::ostream& err);

// The most bytes one trace may take: --max-trace-memory, or else sized from the memory available
// now (base/memory_available.h).
int64_t cli_trace_memory(const CliOptions& options);

// Writes "attnviz-cli: <message>" to err and returns 1, the exit status of a failed command.
int cli_fail(std::ostream& err, std::string_view message);

// "1 head", "4 heads": a count and its noun, which takes an "s" unless the count is 1.
std::string counted(long long n, std::string_view noun);

// The demo commands (app/cli/cli_demo.cpp) and the answer commands (app/cli/cli_predict.cpp),
// dispatched by cli_run.
int cli_train_coref(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_train_induction(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_train_gather(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_train_translate(const CliOptions& options, std::ostream& out, std::ostream& err);
// translate: the Korean of --text by greedy decoding, and with --json the tokens and every
// cross-attention weight ([layer][head][target][source], row i the position that produced target token i).
int cli_translate(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_train_pair(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_predict(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_heads(const CliOptions& options, std::ostream& out, std::ostream& err);
// patch and heads --logit-attribution (app/cli/cli_patch.cpp).
int cli_patch(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_logit_attribution(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_sentences(const CliOptions& options, std::ostream& out, std::ostream& err);
int cli_generate(const CliOptions& options, std::ostream& out, std::ostream& err);

}  // namespace attnviz
