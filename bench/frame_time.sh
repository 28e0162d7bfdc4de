#!/bin/sh
# Frame time of the Heads view with 12 heads of 128 tokens (a GPT-2-small-shaped sandbox model,
# 12 layers x 12 heads) at 1280x800 under Xvfb + Mesa llvmpipe. Not a test: it prints statistics.
# usage: bench/frame_time.sh [BUILD_DIR] [FRAMES]
set -eu
build=${1:-build}
frames=${2:-300}
here=$(cd "$(dirname "$0")" && pwd)
# 128 tokens: the first 128 word-level tokens of the long preset (116 words + 12 punctuation marks).
text=$(python3 -c "import json,sys; t=json.load(open('$here/../assets/presets.json'))['presets'][5]['text']; print(t)" )
session=$(mktemp)
trap 'rm -f "$session"' EXIT
python3 - "$text" "$session" "$build" <<'PY'
import json, re, subprocess, sys
text, path, build = sys.argv[1], sys.argv[2], sys.argv[3]
words = text.split(' ')
# grow the prefix until the engine's tokenizer says 128 tokens
for n in range(1, len(words) + 1):
    out = subprocess.run([f'{build}/app/attnviz-cli', 'attention', '--text', ' '.join(words[:n]), '--d-model', '8',
                          '--heads', '1', '--ffn', '8'], capture_output=True, text=True).stdout
    count = int(re.search(r'tokens \((\d+)\)', out).group(1))
    if count >= 128:
        break
session = {"format": "attnviz.session", "version": 1, "sentence": ' '.join(words[:n]),
           "config": {"d_model": 768, "n_heads": 12, "n_layers": 12, "d_ff": 3072, "norm": "pre"},
           "seed": 1, "mask": {"causal": True}, "ui": {"view": "heads", "annotate": "0"}}
json.dump(session, open(path, 'w'))
print(f"sentence of {count} tokens, 12 layers x 12 heads, d_model 768", file=sys.stderr)
PY
xvfb-run -a -s '-screen 0 1280x800x24' "$build/app/attnviz" --session "$session" --bench-frames "$frames"
