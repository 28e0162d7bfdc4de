#!/bin/sh
# Export GUI test: one launch of the real app (under Xvfb) drives every view by --script and exports
# each as SVG, Heads as PNG at scale 2, then every view and step as 16:9 slides (PNG and SVG); every SVG must be well-formed (xmllint), one is rendered back
# with rsvg-convert and a cell's pixel must have the cell's colour; attnviz-cli's --svg likewise.
# usage: export_test.sh ATTNVIZ ATTNVIZ_CLI CHECK_PNG CHECK_SVG_CELL
set -eu
app=$1 cli=$2 check_png=$3 check_cell=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -z "${ATTNVIZ_KEEP_EXPORTS:-}" ] || { trap - EXIT; echo "exports kept in $out"; }
# The views a sandbox trace fills, each exported both ways (Step by step at its softmax step).
{
  printf 'd_model 64\nheads 4\nlayers 2\nlayer 1\nquery 7\nstep 6\n'
  # PNGs of every view come from the slides below (one page each); here the scale-2 path on Heads.
  printf 'view heads\nexport view png %s 2\n' "$out/heads.png"
  for v in heads model arch lines compare steps stats; do
    printf 'view %s\nexport view svg %s\n' "$v" "$out/$v.svg"
  done
  cat <<ACTIONS
lang ko
view heads
export view svg $out/heads_ko.svg
lang en
view train
try export view svg $out/train_none.svg
expect status train: nothing to export yet
train steps 20
train report 10
train start
train wait
export view svg $out/train.svg
model coref
view coref
export view svg $out/coref.svg
view translate
export view svg $out/translate.svg
lang ko
query 7
export slides $out/slides
expect status 19 slides
quit
ACTIONS
} > "$out/actions.txt"
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"

"$check_png" "$out/heads.png" 0 0
for v in heads model arch lines compare steps stats train coref translate; do
  xmllint --noout "$out/$v.svg"
done
xmllint --noout "$out/heads_ko.svg"
# Slides: the 9 views (Step by step aside) and the ten steps, 16:9 at 1920 x 1080, PNG and SVG, in Korean.
[ "$(ls "$out/slides"/*.png | wc -l)" -eq 19 ] || { ls "$out/slides"; echo "not 19 slides"; exit 1; }
[ "$(ls "$out/slides"/*.svg | wc -l)" -eq 19 ] || { ls "$out/slides"; echo "not 19 SVG slides"; exit 1; }
for png in "$out/slides"/*.png; do "$check_png" "$png" 1920 1080; done
xmllint --noout "$out/slides/14_step05.svg"
grep -q '단계별 계산 — 5 / 10' "$out/slides/14_step05.svg" || { echo "the step slide lacks its Korean title"; exit 1; }
# Its formula typeset: Q, K and d as base text, i, T and k as scripts, each a <text> of its own.
for part in '>Q<' '>K<' '>T<' '>d<' '>k<'; do
  grep -q "$part" "$out/slides/14_step05.svg" || { echo "the step slide's formula lacks $part"; exit 1; }
done
! grep -q 'Q_i' "$out/slides/14_step05.svg" || { echo "the step slide's formula is left as markup"; exit 1; }
[ ! -e "$out/train_none.svg" ] || { echo "an export with nothing to show wrote a file"; exit 1; }
grep -q '헤드 1' "$out/heads_ko.svg" || { echo "the Korean SVG has no Hangul title"; exit 1; }
# The Translation view: the Korean of the default sentence, its particle rows, every head's cells.
grep -q '큰 고양이가 공원에서 작은 개를 쫓았다.' "$out/translate.svg" || { echo "the translation SVG lacks the Korean"; exit 1; }
grep -q '>-가<' "$out/translate.svg" || { echo "the translation SVG lacks the particle row -가"; exit 1; }
[ "$(grep -c 'class="cell" .*data-panel="head3"' "$out/translate.svg")" -eq 121 ] || { echo "head 4's 11 x 11 cells are not all in the translation SVG"; exit 1; }
grep -q '번역' "$out/slides/09_translate.svg" || { echo "the translation slide lacks its Korean title"; exit 1; }
# The architecture diagram has the sandbox's sizes: 2 layers x 4 heads of d_k 16, d_model 64.
grep -q '2 layers × 4 heads, d_model 64' "$out/arch.svg" || { echo "the architecture SVG lacks the model's sizes"; exit 1; }
grep -q 'transpose (B, 4, ' "$out/arch.svg" || { echo "the architecture SVG lacks the head split"; exit 1; }
# Every head of layer 1 (4 heads x T x T cells) is in the heads SVG, tagged.
[ "$(grep -c 'class="cell" .*data-panel="h3"' "$out/heads.svg")" -gt 0 ]
# Rendered back by another program, a cell shows its colour.
rsvg-convert -z 2 "$out/heads.svg" -o "$out/heads_svg.png"
"$check_cell" "$out/heads.svg" "$out/heads_svg.png" h2 3 1
rsvg-convert "$out/coref.svg" -o "$out/coref_svg.png"
"$check_cell" "$out/coref.svg" "$out/coref_svg.png" to_a 0 0

# The CLI: --svg beside --png, with the same checks.
"$cli" attention --text "The cat sat on the mat because it was tired." --d-model 64 --heads 2 --svg "$out/cli.svg" --png "$out/cli.png" --layer 0
xmllint --noout "$out/cli.svg"
"$check_png" "$out/cli.png" 0 0
rsvg-convert "$out/cli.svg" -o "$out/cli_svg.png"
"$check_cell" "$out/cli.svg" "$out/cli_svg.png" 1 3 3
if "$cli" attention --text "x" --svg "$out/nolayer.svg" 2> "$out/err.txt"; then echo "--svg without --layer was accepted"; exit 1; fi
grep -q -- "--svg needs --layer" "$out/err.txt"
echo "export test: 8 views as PNG and SVG in one launch, SVGs well-formed and rendered back; CLI --svg"
