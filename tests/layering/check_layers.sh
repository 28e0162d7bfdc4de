#!/bin/sh
# The layering rules of the source tree, checked on the files as they are (the build's include
# roots enforce most of them too; this names the file and the line when one is broken):
#   core/                      no UI library (ImGui, GLFW, GL, fontconfig) and no app header
#   app/cli/, app/common/      no GUI library (fontconfig is allowed: font discovery) and no desktop header
#   app/desktop's headless part: state/, and each view's *_state, *_actions, *_script, *_figure,
#                              *_palette and *_text files
#                              no UI library (ImGui, GLFW, GL); state/ reaches a view only through its
#                              *_state.h, the shell only through its string table (shell/strings.h),
#                              and never widgets/ or sidebar/
#   core's folders             layers: base (with the one JSON reader) -> text -> model -> io -> the top tier
#                              (train, analysis, render, demos); a folder includes its own layer and those
#                              before it. In the top tier analysis, render and demos may include each other
#                              (analysis reads the demos' sentence grammars; the induction demo stops training
#                              on a detector score); train, which the portability pass builds alone, none of them
#   every CMakeLists.txt       explicit source lists: no GLOB, no EXCLUDE REGEX
# usage: check_layers.sh SOURCE_ROOT   (exit 0: all rules hold; 1: each broken rule is printed)
set -u
root=${1:?usage: check_layers.sh SOURCE_ROOT}
cd "$root" || exit 2
gui='#[[:space:]]*include[[:space:]]*[<"](imgui|GLFW/|GL/|backends/)'
ui="$gui|fontconfig/"
desktop='#[[:space:]]*include[[:space:]]*"(state|shell|widgets|sidebar|views)/'
gui_side='#[[:space:]]*include[[:space:]]*"(shell|widgets|sidebar|views)/'
app='#[[:space:]]*include[[:space:]]*"([^"]*\.\./|app/|cli_|font_find|asset_paths|version\.h)'
failed=0
report() {  # report RULE MATCHES: print the rule and each offending line when there are any
  if [ -n "$2" ]; then
    echo "layering: $1"
    echo "$2" | sed 's/^/  /'
    failed=1
  fi
}
sources() { find "$@" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.inc' \) 2>/dev/null; }

report "core/ must not include a UI library" "$(sources core | xargs -r grep -nE "$ui")"
report "core/ must not include app headers" "$(sources core | xargs -r grep -nE "$desktop|$app")"
report "app/cli and app/common must not include a GUI library" "$(sources app/cli app/common | xargs -r grep -nE "$gui")"
report "app/cli and app/common must not include desktop headers" "$(sources app/cli app/common | xargs -r grep -nE "$desktop")"
headless="$(sources app/desktop/state; find app/desktop/views -type f \( -name '*_state.*' -o -name '*_actions.*' -o -name '*_script.cpp' -o -name '*_figure.cpp' -o -name '*_palette.*' -o -name '*_text.h' \) 2>/dev/null)"
report "app/desktop's headless part (state/, views' *_state, *_actions, *_script, *_figure, *_palette, *_text) must not include a UI library" \
  "$(echo "$headless" | xargs -r grep -nE "$gui")"
report "app/desktop/state must not include widgets/, sidebar/, the shell (but its strings) or a view's drawing code" \
  "$(sources app/desktop/state | xargs -r grep -nE "$gui_side" | grep -vE '"(views/[a-z_]+/[a-z_]+_state\.h|shell/strings\.h)"')"
core_layer() {  # core_layer FOLDER FOLDERS_IT_MUST_NOT_INCLUDE (a regex alternation)
  report "core/$1 must not include $2 (core's layers: base -> text -> model -> io -> train, analysis, render, demos)" \
    "$(sources "core/$1" | xargs -r grep -nE "#[[:space:]]*include[[:space:]]*\"($2)/")"
}
core_layer base 'text|model|io|train|analysis|render|demos'
core_layer text 'model|io|train|analysis|render|demos'
core_layer model 'io|train|analysis|render|demos'
core_layer io 'train|analysis|render|demos'
core_layer train 'io|analysis|render|demos'
report "CMake source lists must be explicit" "$(find . -name CMakeLists.txt -not -path './build*' -not -path '*/node_modules/*' | xargs -r grep -nE 'file\(GLOB|EXCLUDE REGEX')"
[ $failed -eq 0 ] && echo "layering: every rule holds"
exit $failed
