#!/bin/sh
# Every tokenizer layout against every adversarial input at 256 KB and at 1 MB: the CPU time of each
# (the least of the given runs, alternating sizes) and the ratio, which is 4 when the work grows with
# the text. It runs the suite's own scaling test (tests/core/text/test_tokenizer_scaling.cpp) with its
# sizes fixed, in the given build (Release, or the sanitizer build), and prints its table. A benchmark,
# not a test: the test itself picks sizes by time and checks the ratio.
# usage: bench/tokenizer_scaling.sh [BUILD_DIR] [RUNS]   (default build/ and 3; needs attnviz_unit_tests)
set -eu
build=${1:-build}
runs=${2:-3}
cd "$(dirname "$0")/.."
echo "before: $(uptime)"
ATTNVIZ_TOKENIZER_SCALING_BYTES=262144 ATTNVIZ_TOKENIZER_SCALING_RUNS=$runs \
  "$build/tests/attnviz_unit_tests" --test-case='tokenizers: 4 times the text*' --no-path-filenames 2>&1 |
  sed -n '/time for 4 times the text/,/^$/p' || true
echo "after:  $(uptime)"
