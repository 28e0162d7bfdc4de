#!/bin/sh
# Runs attnviz-portability-check as this build made it and as the suite's second pass made it for
# another instruction set (scripts/test.sh), and fails unless both print expected.txt exactly: the
# same bits on x86-64-v2, x86-64-v3 and the native CPU, and the same as on the machine that wrote
# expected.txt. Without a second pass (a plain cmake build) it checks this build and is reported as
# skipped (77). After a change that moves training's bits on purpose, write expected.txt anew from
# one build: `attnviz-portability-check > tests/portability/expected.txt`.
# usage: portability_test.sh THIS_BINARY EXPECTED [OTHER_BINARY]
set -eu
this=$1
expected=$2
other=${3:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

check() {  # name binary
  if ! "$2" > "$out/$1.txt"; then
    echo "portability: the $1 build's check failed (see above)"
    exit 1
  fi
  if ! diff -u "$expected" "$out/$1.txt"; then
    echo "portability: the $1 build ($2) computes other bits than expected.txt"
    exit 1
  fi
  echo "portability: the $1 build prints expected.txt ($(wc -l < "$expected") lines)"
}

check this "$this"
if [ -z "$other" ]; then
  echo "portability: no second build for another instruction set (scripts/test.sh makes one)"
  exit 77
fi
check other "$other"
