#!/bin/sh
# The app's side of the bad-input cases of tests/cli/test_bad_input.cpp, driven by --script under
# Xvfb: every bad sentence, config, checkpoint and session file is answered with a one-line message
# (`expect error`, `expect model_error`, `expect status`) and the previous trace, model and session
# stay (`expect tokens`, `expect model`, `expect sentence`, and an export compared byte for byte).
# Saving goes to /dev/full, /proc and under a regular file, then to a disk that fills up mid-write
# (ulimit -f, which stops root too): the file that was there is left exactly as it was.
# usage: bad_input_test.sh ATTNVIZ ATTNVIZ_CLI
set -eu
app=$1 cli=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CONFIG_HOME="$out/config"
xvfb() { xvfb-run -a -s '-screen 0 1280x800x24' "$@"; }
sentence="The cat sat on the mat."

# Inputs. Texts too long (or too strange) for a script line are pasted from files.
printf ' \t \n\n  \t ' > "$out/blank.txt"
head -c 1000000 /dev/zero | tr '\0' a > "$out/word.txt"
head -c 10485760 /dev/zero | tr '\0' x > "$out/paste.txt"
printf 'caf\303 ok \377\376 end' > "$out/utf8.txt"
printf 'the\000cat\000\000sat' > "$out/nul.txt"

# Checkpoints: a good model from the CLI, then damaged copies of it.
"$cli" attention --text hi --d-model 16 --heads 2 --ffn 16 --save-weights "$out/good.safetensors" > /dev/null
size=$(wc -c < "$out/good.safetensors")
head -c $((size - 100)) "$out/good.safetensors" > "$out/cut.safetensors"
printf '\377\377\377\377\377\377\377\377{}' > "$out/hdr.safetensors"
le64() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o\\000\\000\\000\\000' $(($1 & 255)) $(($1 >> 8 & 255)) \
  $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
header='{"x":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,16]}}'
{ le64 ${#header}; printf '%s' "$header"; head -c 16 /dev/zero; } > "$out/overflow.safetensors"
cp "$out/good.safetensors" "$out/nan.safetensors"  # the last weight of the file becomes a NaN
printf '\000\000\300\177' | dd of="$out/nan.safetensors" bs=1 seek=$((size - 4)) conv=notrunc 2> /dev/null

# Sessions.
session() {  # session FILE CONFIG [VERSION]
  printf '{"format": "attnviz.session", "version": %s, "sentence": "from a bad file", "config": %s}' \
    "${3:-1}" "$2" > "$1"
}
session "$out/zero_heads.json" '{"d_model": 32, "n_heads": 0}'
session "$out/zero_layers.json" '{"n_layers": 0}'
session "$out/huge.json" '{"d_model": 8192, "n_heads": 64, "d_ff": 65536, "n_layers": 20}'
session "$out/temp0.json" '{"temperature": 0}'
session "$out/wrong_types.json" '{"d_model": "wide"}'
session "$out/version.json" '{}' 7
head -c 60 "$out/version.json" > "$out/truncated.json"
{ printf '{"format": "attnviz.session", "version": 1, "ui": '
  head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '}'; } > "$out/deep.json"
printf 'not a folder' > "$out/file"

cat > "$out/actions.txt" <<ACTIONS
d_model 32
heads 2
ffn 32
layers 2
sentence $sentence
expect no_error
expect tokens 7
export csv $out/before.csv
save $out/good.session.json

# Sentences: empty, whitespace, 1 MB word, 10 MB paste, invalid UTF-8, NUL bytes.
sentence
expect error the sentence has no tokens: type some words
expect tokens 7
paste $out/blank.txt
expect error the sentence has no tokens: type some words
expect tokens 7
paste $out/word.txt
expect no_error
expect tokens 1
sentence $sentence
expect tokens 7
paste $out/paste.txt
expect error the text is 10485760 bytes; the limit is 1048576
expect tokens 7
paste $out/utf8.txt
expect no_error
expect tokens 6
paste $out/nul.txt
expect no_error
expect tokens 3
sentence $sentence
expect tokens 7

# Configs: heads that do not divide d_model; zero heads, zero layers and a 107 GB model from sessions.
heads 3
expect error d_model 32 is not divisible by 3 heads
expect tokens 7
heads 2
expect no_error
try heads 0
expect status expected a head count
try layers 0
expect status expected a layer count
try open $out/zero_heads.json
expect status the number of heads must be at least 1 (got 0)
try open $out/zero_layers.json
expect status the number of layers must be between 1 and 96 (got 0)
try open $out/huge.json
expect status the model is too large: 26843545600 parameters
expect sentence $sentence

# Temperature 0 or negative.
try temperature 0
expect status expected 0.001 to 1000
try temperature -1
expect status expected 0.001 to 1000
try open $out/temp0.json
expect status temperature must be between 0.001000 and 1000.000000 (got 0.000000)

# Every key of query 1 masked: the row is all zeros (checked in the export below), nothing fails.
sentence The cat sat
mask hide 1 0
mask hide 1 1
mask hide 1 2
expect no_error
head 0
export csv $out/masked.csv
mask none
sentence $sentence
expect tokens 7

# Damaged checkpoints, opened as the Open button does and synchronously: the sandbox stays.
model open $out/cut.safetensors
expect model_error safetensors: file is truncated
expect model sandbox
model open $out/hdr.safetensors
expect model_error header length 18446744073709551615 is over the 100000000-byte limit
expect model sandbox
model open $out/overflow.safetensors
expect model_error has more values than 64 bits can count
expect model sandbox
model open $out/nan.safetensors
expect model_error tensor 'layers.0.norm2.bias' contains NaN or infinite values
expect model sandbox
try model file $out/cut.safetensors
expect status truncated
expect model sandbox
expect tokens 7

# Damaged sessions: nothing of them is applied.
try open $out/truncated.json
expect status session: the file is not valid JSON (truncated or damaged?)
try open $out/deep.json
expect status session: the file is nested too deeply to be a session
try open $out/wrong_types.json
expect status session: model config: 'd_model' must be a whole number
try open $out/version.json
expect status session: version 7 is not supported (this attnviz reads version 1)
expect sentence $sentence
expect tokens 7

# Saving to a full disk and to read-only places.
try save /dev/full
expect status cannot write '/dev/full': No space left on device
try save /proc/attnviz_no_such/session.json
expect status cannot write '/proc/attnviz_no_such/session.json'
try save $out/file/session.json
expect status Not a directory
try export csv /dev/full
expect status No space left on device
try export json /dev/full
expect status No space left on device
try export png /dev/full 1
expect status No space left on device
try export json $out/file/trace.json
expect status Not a directory

# After all of it, the same trace as at the start.
export csv $out/after.csv
quit
ACTIONS
start=$(date +%s)
xvfb "$app" --script "$out/actions.txt"
echo "bad input test: the scripted run took $(($(date +%s) - start)) s"

cmp "$out/before.csv" "$out/after.csv"
grep -q '^cat,0,0,0$' "$out/masked.csv" || { echo "the fully masked row is not all zeros"; cat "$out/masked.csv"; exit 1; }
if grep -qi nan "$out/masked.csv"; then echo "NaN in the masked export"; exit 1; fi
[ -c /dev/full ] || { echo "/dev/full is no longer a device"; exit 1; }
[ "$(cat "$out/file")" = "not a folder" ]

# A disk that fills up mid-write: 200 blocks (100 KB in dash's 512-byte units) let the app run
# but not save a session holding the 1 MB word. The session saved before stays byte for byte.
cp "$out/good.session.json" "$out/good.copy.json"
cat > "$out/full.txt" <<ACTIONS
paste $out/word.txt
expect tokens 1
try save $out/good.session.json
expect status File too large
try export json $out/good.session.json
expect status File too large
quit
ACTIONS
(trap '' XFSZ; ulimit -f 200; xvfb "$app" --script "$out/full.txt")
cmp "$out/good.session.json" "$out/good.copy.json"
if ls "$out" | grep -q 'good.session.json.tmp'; then echo "a temporary file was left behind"; exit 1; fi
echo "bad input test: every bad input answered by name; trace, model, session and files kept"
