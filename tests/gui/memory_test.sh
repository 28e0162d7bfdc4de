#!/bin/sh
# GUI test of the remembered state: a run that changes the sentence, the view, the layer, the
# language, a mask and the word toggles reopens the next time exactly there (and saves the window
# size); a damaged state file is set aside with a message in the status bar, and the app opens. The
# first launch speaks the locale's language (LANG=ko_KR.UTF-8: Korean); a language picked since wins.
# usage: memory_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_STATE_HOME="$out/state" XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="$out/cache"
export LC_ALL=C.UTF-8  # the runs below begin in English whatever this machine's locale; the last two set it
xvfb() { xvfb-run -a -s '-screen 0 1280x800x24' "$@"; }
state="$XDG_STATE_HOME/attnviz/state.json"

cat > "$out/first.txt" <<ACTIONS
sentence 고양이가 매트 위에 앉았다 because it was tired.
mask causal on
layer 0
view lines
lang ko
quit
ACTIONS
xvfb "$app" --remember --script "$out/first.txt"
[ -f "$state" ] || { echo "no state file after the first run"; exit 1; }
grep -q '"view": "lines"' "$state" && grep -q '"causal": true' "$state" && grep -q '"width": 1280' "$state" ||
  { echo "the state file misses what was changed:"; cat "$state"; exit 1; }

cat > "$out/second.txt" <<ACTIONS
expect sentence 고양이가 매트 위에 앉았다 because it was tired.
screenshot $out/reopened.png
quit
ACTIONS
xvfb "$app" --remember --script "$out/second.txt"
"$check_png" "$out/reopened.png" 1280 800

printf '{"format": "attnviz.state", "version": 1, "session": {"sentence": ' > "$state"
cat > "$out/third.txt" <<ACTIONS
expect status set aside
expect sentence The animal didn't cross the street because it was too tired.
screenshot $out/set_aside.png
quit
ACTIONS
xvfb "$app" --remember --script "$out/third.txt"
[ -f "$state.corrupt" ] || { echo "the damaged file was not set aside"; exit 1; }
"$check_png" "$out/set_aside.png" 1280 800
# A first launch (no state) under a Korean locale is in Korean; the person picks English, and the next
# launch under the same locale stays in English.
rm -rf "$XDG_STATE_HOME"
cat > "$out/korean.txt" <<ACTIONS
expect answer_line 답 없음: 모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)
lang en
quit
ACTIONS
LC_ALL= LC_MESSAGES= LANG=ko_KR.UTF-8 xvfb "$app" --remember --script "$out/korean.txt"
cat > "$out/picked.txt" <<ACTIONS
expect answer_line no answer: the model has no output head (a random sandbox has none; BERT needs cls.predictions.*)
quit
ACTIONS
LC_ALL= LC_MESSAGES= LANG=ko_KR.UTF-8 xvfb "$app" --remember --script "$out/picked.txt"
if [ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ]; then cp "$out"/*.png "$ATTNVIZ_KEEP_SCREENSHOTS"/; fi
echo "memory test: the app reopened where it was left; a damaged state was set aside and said so; the first launch followed a Korean locale"
