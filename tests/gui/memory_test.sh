#!/bin/sh
# GUI test of the remembered state: a run that changes the sentence, the view, the layer, the
# language, a mask and the word toggles reopens the next time exactly there (and saves the window
# size); a damaged state file is set aside with a message in the status bar, and the app opens.
# usage: memory_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_STATE_HOME="$out/state" XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="$out/cache"
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
if [ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ]; then cp "$out"/*.png "$ATTNVIZ_KEEP_SCREENSHOTS"/; fi
echo "memory test: the app reopened where it was left; a damaged state was set aside and said so"
