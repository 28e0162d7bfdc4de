#!/bin/sh
# Scripted GUI test: drives the real app (under Xvfb) through an action file — set the sentence,
# toggle causal, set heads to 1, select head 0, export PNG/CSV/JSON, save the session — and checks the
# files: the app's CSV must equal attnviz-cli's for the same settings, byte for byte.
# usage: script_test.sh ATTNVIZ ATTNVIZ_CLI CHECK_PNG GUI_DIR
set -eu
app=$1 cli=$2 check_png=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sentence="The cat sat on the mat because it was tired."
cat > "$out/actions.txt" <<ACTIONS
# set the sentence, mask and heads as a user would, then export
sentence $sentence
mask causal on
d_model 64
heads 1
head 0
layer 0
export png $out/heads.png 1
export csv $out/head0.csv
export json $out/trace.json
save $out/session.json
view steps
screenshot $out/steps.png
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"

"$check_png" "$out/heads.png" 0 0
"$check_png" "$out/steps.png" 1280 800
"$cli" attention --text "$sentence" --d-model 64 --heads 1 --mask causal --csv "$out/cli.csv" --layer 0 --head 0
cmp "$out/head0.csv" "$out/cli.csv"
head -2 "$out/head0.csv" | tail -1 | grep -q '^The,1,0,0,0,0,0,0,0,0,0,0$' || { echo "row 0 is not causal"; exit 1; }
grep -q '"n_heads": 1' "$out/session.json"
grep -q '"causal": true' "$out/session.json"
grep -q '"n_heads":1' "$out/trace.json"
# Undo and redo: the mask toggle and the sentence edit come back off and on, as the CLI computes them.
cat > "$out/undo.txt" <<ACTIONS
d_model 64
heads 2
sentence The cat sat.
mask causal on
undo
export csv $out/undone.csv
redo
export csv $out/redone.csv
undo
undo
expect sentence The animal didn't cross the street because it was too tired.
try redo
try redo
try redo
expect status nothing to redo
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/undo.txt"
"$cli" attention --text "The cat sat." --d-model 64 --heads 2 --csv "$out/cli_open.csv" --layer 0 --head 0
"$cli" attention --text "The cat sat." --d-model 64 --heads 2 --mask causal --csv "$out/cli_causal.csv" --layer 0 --head 0
cmp "$out/undone.csv" "$out/cli_open.csv"
cmp "$out/redone.csv" "$out/cli_causal.csv"
echo "script test: app and CLI agree; PNG, JSON and session written; undo and redo"
