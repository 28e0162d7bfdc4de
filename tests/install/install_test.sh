#!/bin/sh
# Installs the build into a temporary prefix and runs the installed programs from outside the source
# and build trees: --version --verbose must name the installed assets (never the source tree's),
# predict on the demos by name, an unknown name, the app's screenshot under Xvfb. The man pages must
# name every flag of --help and no other; the .desktop file is validated when the validator is there.
# usage: install_test.sh CMAKE BUILD_DIR VERSION [ATTNVIZ_CHECK_PNG]   (no CHECK_PNG: no app was built)
set -eu
cmake=$1 build=$2 version=$3 check_png=${4:-}
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$(cd "$tmp" && pwd -P)/prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log"
cd "$tmp"
fail() { echo "install test: $*"; exit 1; }
cli="$prefix/bin/attnviz-cli"

[ "$("$cli" --version)" = "attnviz $version" ] || fail "attnviz-cli --version: $("$cli" --version)"
"$cli" --version --verbose > verbose.txt
grep -qxF "assets: $prefix/share/attnviz/assets (installed, beside the program)" verbose.txt ||
  fail "the installed attnviz-cli does not read the installed assets: $(cat verbose.txt)"
grep -qF "demos: demo:coref, demo:induction, demo:gather, demo:translate, demo:translate/bottleneck, demo:translate/score_additive, demo:translate/score_dot, demo:translate/score_general, demo:coref/heads1_dmodel32, demo:coref/heads1_dmodel64" verbose.txt ||
  fail "demo list: $(cat verbose.txt)"

tired="The animal didn't cross the street because it was too tired."
[ "$("$cli" predict --model demo:coref --text "$tired")" = "it (#7) -> animal (#1, p = 1.000)" ] ||
  fail "predict --model demo:coref"
"$cli" predict --model demo:coref/heads2_dmodel32 --text "$tired" | grep -q "it (#7) -> animal" ||
  fail "predict --model demo:coref/heads2_dmodel32"
if "$cli" predict --model demo:corf --text "$tired" 2> unknown.txt; then fail "an unknown demo name was accepted"; fi
grep -qF "unknown demo 'demo:corf': $prefix/share/attnviz/assets holds demo:coref, demo:induction," unknown.txt ||
  fail "unknown demo message: $(cat unknown.txt)"

# Every flag a program's --help names is in its man page, and the man page names no other.
man_flags() { sed 's/\\-/-/g' "$1" | grep -o -- '--[a-z][a-z-]*' | sort -u; }
help_flags() { grep -o -- '--[a-z][a-z-]*' | sort -u; }
check_man() {  # check_man PAGE HELP_FLAGS_FILE
  man_flags "$1" > man.txt
  missing=$(comm -23 "$2" man.txt)
  [ -z "$missing" ] || fail "$(basename "$1") does not name: $missing"
  unknown=$(comm -13 "$2" man.txt | grep -vx -- '--help' || true)
  [ -z "$unknown" ] || fail "$(basename "$1") names flags that do not exist: $unknown"
}
"$cli" --help | help_flags > cli_flags.txt
check_man "$prefix/share/man/man1/attnviz-cli.1" cli_flags.txt

[ -n "$check_png" ] || { echo "install test: attnviz-cli installed and checked (no app built)"; exit 0; }
app="$prefix/bin/attnviz"
[ "$("$app" --version)" = "attnviz $version" ] || fail "attnviz --version: $("$app" --version)"
"$app" --version --verbose | grep -qxF "assets: $prefix/share/attnviz/assets (installed, beside the program)" ||
  fail "the installed attnviz does not read the installed assets"
"$app" --help | help_flags > app_flags.txt
check_man "$prefix/share/man/man1/attnviz.1" app_flags.txt
for f in share/applications/attnviz.desktop share/icons/hicolor/scalable/apps/attnviz.svg \
         share/icons/hicolor/256x256/apps/attnviz.png; do
  [ -s "$prefix/$f" ] || fail "$f is not installed"
done
if command -v desktop-file-validate > /dev/null; then desktop-file-validate "$prefix/share/applications/attnviz.desktop"; fi
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --model demo:coref/heads2_dmodel32 --view coref \
  --screenshot "$tmp/installed.png" --frames 2
"$check_png" "$tmp/installed.png" 1280 800
cp "$tmp/installed.png" "$here/install_screenshot.png"  # kept beside the test's other output, to look at
echo "install test: both programs installed into $prefix read its assets; man pages, desktop entry and icons in place"
