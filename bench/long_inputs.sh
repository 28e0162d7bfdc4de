#!/usr/bin/env bash
# Long-input figures and their goals, measured in one run: T = 4096 through one 12-head layer (C = 768),
# and T = 1024 through every layer of a GPT-2-small-sized checkpoint (made by make_gpt2_small.py in
# /tmp when absent). Prints each run's JSON line and the goals. A benchmark, not a test.
# usage: bench/long_inputs.sh [BUILD_DIR]     (default build/; needs the two bench binaries built)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
gpt2=/tmp/attnviz_gpt2_small
[ -f "$gpt2/model.safetensors" ] || /usr/bin/python3 bench/make_gpt2_small.py "$gpt2"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
one=$("$build/bench/attnviz-bench-forward" --layers 1 --d-model 768 --heads 12 --ffn 3072 --norm pre \
        --activation gelu_tanh --T 4096 --repeat 3 --threads 2 | grep '^{')
all=$("$build/bench/attnviz-bench-checkpoint" --model "$gpt2" --tokens 1024 --repeat 3 --threads 2)
python3 - "$one" "$all" <<'PY'
import json, sys
one, gpt2 = json.loads(sys.argv[1]), json.loads(sys.argv[2])
beyond = gpt2["rss_peak_mb"] - gpt2["rss_before_mb"] - gpt2["weights_mb"]
print(f"T=4096, 1 layer x 12 heads, C=768:  forward {one['forward_s']:.3f} s (median of 3; all: "
      f"{', '.join(f'{s:.3f}' for s in one['forward_s_samples'])}), peak RSS {one['rss_peak_mb']:.0f} MB")
print(f"T=1024, GPT-2 small, 12 layers:     forward {gpt2['forward_s']:.3f} s, peak {gpt2['rss_peak_mb']:.0f} MB, "
      f"weights {gpt2['weights_mb']:.0f} MB, beyond the weights {beyond:.0f} MB")
print(f"goal: T=4096 recompute < 1.5 s       {'MET' if one['forward_s'] < 1.5 else 'MISSED'}")
print(f"goal: T=4096 peak memory < 2 GB      {'MET' if one['rss_peak_mb'] < 2048 else 'MISSED'}")
print(f"goal: T=1024 beyond weights < 1.5 GB {'MET' if beyond < 1536 else 'MISSED'}")
PY
