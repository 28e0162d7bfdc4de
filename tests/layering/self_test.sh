#!/bin/sh
# Proves check_layers.sh fails when a forbidden include appears: copies the tree's sources to a
# temporary folder, checks that the copy passes, then adds one forbidden include per rule and
# checks that each is caught, naming the file.
set -u
root=${1:?usage: self_test.sh SOURCE_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$root/core" "$root/app" "$tmp/" || { echo "self_test: copy failed"; exit 1; }
sh "$here/check_layers.sh" "$tmp" >/dev/null || { echo "self_test: the unmodified tree fails"; exit 1; }
status=0
expect_caught() {  # expect_caught FILE LINE: adding LINE to FILE must make the check fail, naming FILE
  cp "$tmp/$1" "$tmp/$1.orig"
  printf '%s\n' "$2" >> "$tmp/$1"
  out=$(sh "$here/check_layers.sh" "$tmp")
  if [ $? -eq 0 ] || ! echo "$out" | grep -q "$1"; then
    echo "self_test: not caught: '$2' in $1"
    status=1
  else
    echo "self_test: caught '$2' in $1"
  fi
  mv "$tmp/$1.orig" "$tmp/$1"
}
expect_caught core/model/trace.cpp '#include <imgui.h>'
expect_caught core/model/trace.cpp '#include "state/app_state.h"'
expect_caught core/io/model_open.cpp '#include "asset_paths.h"'
expect_caught core/base/file_io.cpp '#include <GL/gl.h>'
expect_caught app/cli/cli_run.cpp '#include <GLFW/glfw3.h>'
expect_caught app/cli/cli_run.cpp '#include "views/heads/heads_state.h"'
expect_caught app/desktop/state/app_state.cpp '#include <imgui.h>'
expect_caught app/desktop/state/app_state.cpp '#include "widgets/heatmap_textures.h"'
expect_caught app/desktop/views/heads/heads_figure.cpp '#include <imgui.h>'
expect_caught app/CMakeLists.txt 'file(GLOB X *.cpp)'
expect_caught core/base/rng.cpp '#include "text/unicode.h"'
expect_caught core/text/unicode.cpp '#include "model/config.h"'
expect_caught core/model/config.cpp '#include "io/model_file.h"'
expect_caught core/io/npy.cpp '#include "demos/coref_data.h"'
expect_caught core/train/train.cpp '#include "analysis/detectors.h"'
exit $status
