#!/bin/sh
# Scripted GUI test of the answer line in Korean: the random sandbox (no output head) and a BERT
# checkpoint with its masked-LM head but no [MASK] in the sentence each say why there is no answer in
# Korean, as do the importance grid (Statistics view) and the Coreference view (a checkpoint has no
# word to name as the referent); with a [MASK] the line is an answer. Keeps the screenshots
# when KEEP_DIR is set, to look at them.
# usage: korean_answer_test.sh ATTNVIZ CHECK_PNG FIXTURES
set -eu
app=$1 check_png=$2 fixtures=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/actions.txt" <<ACTIONS
lang ko
model sandbox
expect answer_line 답 없음: 모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)
screenshot $out/sandbox_ko.png
view stats
importance
screenshot $out/sandbox_importance_ko.png
view heads
model file $fixtures/hf/bert_mlm
sentence The cat sat on the mat.
expect answer_line 답 없음: 모델이 채울 자리에 [MASK]를 입력하세요
screenshot $out/bert_no_mask_ko.png
view coref
sentence The animal didn't cross the street because it was too tired.
screenshot $out/bert_coref_ko.png
view heads
sentence The cat sat on the [MASK].
expect answer_line [MASK] #
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"

for png in sandbox_ko sandbox_importance_ko bert_no_mask_ko bert_coref_ko; do "$check_png" "$out/$png.png" 1280 800; done
if [ -n "${KEEP_DIR:-}" ]; then cp "$out"/*.png "$KEEP_DIR"/; fi
echo "korean answer test: the reasons are said in Korean"
