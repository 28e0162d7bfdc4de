#!/bin/sh
# GUI test of the Translation view (issue 42): the shipped demo:translate translates the default
# sentence into the grammar's Korean; a two-clause sentence reorders (the verb's row on "bought");
# switching the aligning head off changes the translation and switching it on restores it; a word
# outside the grammar is named and the last translation kept; every tab is drawn, in English and
# Korean, also in presentation mode on a 1280 x 800 projector; the bottleneck plot is measured off
# the UI thread and the bottleneck falls at least 30 points below attention on 3 clauses.
# usage: translate_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=${ATTNVIZ_KEEP_SCREENSHOTS:-$(mktemp -d)}
[ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
cat > "$out/translate.txt" <<ACTIONS
wait_limit 120
view translate
expect translation 큰 고양이가 공원에서 작은 개를 쫓았다.
expect translate_exact yes
screenshot $out/tl_alignment_en.png
translate text the small teacher bought the red book at school and the dog saw the white cat .
expect translation 작은 선생님이 학교에서 빨간 책을 샀다 그리고 개가 하얀 고양이를 보았다.
translate head_off 0 2
expect translate_exact no
screenshot $out/tl_head_off_en.png
translate head_on 0 2
expect translate_exact yes
translate text the purple cat chased the dog .
expect translate_error 'purple'
expect translation 작은 선생님이 학교에서 빨간 책을 샀다 그리고 개가 하얀 고양이를 보았다.
translate text the small teacher bought the red book at school and the dog saw the white cat .
translate tab steps
translate step 9
screenshot $out/tl_steps_en.png
translate tab scores
screenshot $out/tl_scores_en.png
translate curve 8
translate tab bottleneck
expect idle 120
expect translate_gap 30
screenshot $out/tl_bottleneck_en.png
lang ko
translate tab alignment
screenshot $out/tl_alignment_ko.png
translate tab steps
screenshot $out/tl_steps_ko.png
translate tab bottleneck
screenshot $out/tl_bottleneck_ko.png
presentation on
translate tab alignment
screenshot $out/tl_projector_alignment_ko.png
translate tab steps
screenshot $out/tl_projector_steps_ko.png
translate model bottleneck
expect translate_exact no
screenshot $out/tl_projector_bottleneck_steps_ko.png
translate tab train
screenshot $out/tl_projector_train_ko.png
quit
ACTIONS
xvfb-run -a -s "-screen 0 1280x800x24" "$app" --size 1280x800 --script "$out/translate.txt"
for png in tl_alignment_en tl_head_off_en tl_steps_en tl_scores_en tl_bottleneck_en tl_alignment_ko tl_steps_ko tl_bottleneck_ko \
           tl_projector_alignment_ko tl_projector_steps_ko tl_projector_bottleneck_steps_ko tl_projector_train_ko; do
  "$check_png" "$out/$png.png" 1280 800
done
echo "translate test: ok"
