#!/bin/sh
# GUI test of the word toggles on a BERT checkpoint: with "merge pieces into words" and "hide
# special tokens" on, the weights views show words ([CLS]/[SEP] gone, rows renormalised) — the
# chosen head exported as CSV equals attnviz-cli's --words --hide-special CSV — in English and
# Korean; a view that needs the pieces says so; off again, the pieces come back.
# usage: words_test.sh ATTNVIZ ATTNVIZ_CLI CHECK_PNG FIXTURES
set -eu
app=$1 cli=$2 check_png=$3 fixtures=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CONFIG_HOME="$out/config"
xvfb() { xvfb-run -a -s '-screen 0 1280x800x24' "$@"; }
bert="$fixtures/hf/bert_tiny"
text="The animals didn't cross the streets because they were too tired."  # 21 pieces, 14 words

"$cli" attention --model "$bert" --text "$text" --words --hide-special --csv "$out/cli.csv" --layer 1 --head 1 > /dev/null
cat > "$out/words.txt" <<ACTIONS
model file $bert
sentence $text
expect tokens 21
words on
hide_special on
layer 1
head 1
expect tokens 14
export csv $out/app.csv
screenshot $out/heads_en.png
view lines
screenshot $out/lines_en.png
view steps
screenshot $out/steps_en.png
lang ko
view stats
screenshot $out/stats_ko.png
view heads
screenshot $out/heads_ko.png
words off
hide_special off
expect tokens 21
quit
ACTIONS
xvfb "$app" --script "$out/words.txt"
cmp "$out/cli.csv" "$out/app.csv" || { echo "the app's word CSV differs from the CLI's"; exit 1; }
for png in heads_en lines_en steps_en stats_ko heads_ko; do "$check_png" "$out/$png.png" 1280 800; done
if [ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ]; then cp "$out"/*.png "$ATTNVIZ_KEEP_SCREENSHOTS"/; fi
echo "words test: BERT in words without special tokens equals the CLI; every view drew, English and Korean"
