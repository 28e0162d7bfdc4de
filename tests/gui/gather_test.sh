#!/bin/sh
# GUI test of the demo of why several heads help: the Presets menu's seed 003 sentence opens the
# gather demo; its answer at "its" is the four words; Compare's 1 head vs N heads puts the single
# head's row from "its" above each of the 4 heads' (the layout report: one map of 5 rows, every
# label, numbers, cells of at least 28 px on a 1280 x 800 projector in presentation mode), with the
# weights the engine computed (attnviz-cli attention: "its" -> just 0.914724 in head 1, law
# 0.99920875 in head 2, application 0.99999285 in head 4; law 0.61 in the single head), in English and Korean; "its" missing says why there is no answer.
# usage: gather_test.sh ATTNVIZ CHECK_PNG CHECK_LAYOUT
set -eu
app=$1 check_png=$2 check_layout=$3
out=${ATTNVIZ_KEEP_SCREENSHOTS:-$(mktemp -d)}
[ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
cat > "$out/gather.txt" <<ACTIONS
lang en
preset law
expect model demo_gather
expect answer_line its → law/perfect/application/just 0.836
view compare
compare single_vs_multi
expect idle 20
expect weight 0 0 8 12 0.914724
expect weight 0 1 8 1 0.99920875
expect weight 0 3 8 9 0.99999285
screenshot $out/gather_compare_en.png
presentation on
layout_report $out/gather_projector.json
screenshot $out/gather_projector.png
lang ko
screenshot $out/gather_projector_ko.png
presentation off
lang en
compare masked_vs_unmasked
expect idle 20
expect answer_line its → law/perfect/application/just 0.836
expect answer_b_line no answer: the model was not trained with this mask, so what it answers under it means nothing: switch the mask off
lang ko
sentence The law will never be perfect, but the application should be just.
expect answer_line 답 없음: 문장에 "its"가 없습니다: 이 데모는 그 자리에서 네 단어를 답합니다
quit
ACTIONS
xvfb-run -a -s "-screen 0 1280x800x24" "$app" --size 1280x800 --script "$out/gather.txt"
for png in gather_compare_en gather_projector gather_projector_ko; do "$check_png" "$out/$png.png" 1280 800; done
"$check_layout" "$out/gather_projector.json" compare_rows 1 28
grep -q '"rows": 5' "$out/gather_projector.json" || { echo "the rows map is not the single head and 4 heads"; exit 1; }
echo "gather test: ok"
