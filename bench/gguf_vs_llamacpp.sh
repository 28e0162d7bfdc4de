#!/bin/bash
# GGUF files, attnviz against llama.cpp, in one run. For each file:
#   1. llama.cpp's bench: node-llama-cpp 3.21.1's prebuilt CPU binary through
#      tests/fixtures/llamacpp/reference.mjs (load, then the prompt of T tokens in one batch after one
#      untimed evaluation, medians of REPEATS, 2 threads);
#   2. one more llama.cpp load with llama.cpp's own log lines timestamped (where its load time goes: node-
#      llama-cpp's JS, the vocabulary, the tensors' buffers), then its first evaluation of the T tokens, timed
#      (what reference.mjs leaves untimed: the first result after opening);
#   3. attnviz-bench-gguf --open decoded_now (every layer decoded to float as the file opens);
#   4. attnviz-bench-gguf --open model_open (what the app and CLI do: layers decoded when the first forward
#      reaches them).
# attnviz: trace_run over BOS + T-1 fixed ids, the first forward apart, the median of the next REPEATS,
# 2 threads. Prints every JSON line, the load average and the other processes' CPU time around each
# side, and the ratios attnviz / llama.cpp. Builds nothing; makes nothing (bench/make_gguf_bench_model.py
# writes the files).
#
#   bench/gguf_vs_llamacpp.sh BUILD_DIR [MODEL_DIR (/tmp/attnviz-bench)] [T (128)] [REPEATS (3)]
#   PROFILE=1 ...   adds --profile to the decoded_now run (the open's stages from a second open, fresh-memory writes)
#   VARIANTS="q8_0 q4_k_m" (the default) picks the files llama-3.2-1b-shape-VARIANT.gguf
#   SHAPE=8b        picks llama-3.1-8b-shape-VARIANT.gguf instead (make_gguf_bench_model.py --shape 8b)
#   SIDES="llama anatomy decoded_now model_open" (the default): the runs made, in that order; e.g.
#                   SIDES="llama anatomy" for llama.cpp alone (an 8B-shaped file cannot be decoded_now)
#   ATTNVIZ_ARGS="..." more arguments for attnviz-bench-gguf, e.g. "--max-trace-memory 16G --rss-limit 20G"
#   LLAMACPP_CPU=haswell  runs llama.cpp with only that one of its CPU kernel builds (libggml-cpu-haswell.so:
#                   AVX2, FMA, F16C; no AVX-512, VNNI or AMX), from a copy of the harness in the output folder
#                   (ggml otherwise picks the best build the CPU allows). With an attnviz build at
#                   -DATTNVIZ_MARCH=x86-64-v3 and OPENBLAS_CORETYPE=Haswell both sides are AVX2 and FMA only.
#
# Every side reads the file from the page cache (it is read once with cat first). Peak RSS of each process
# from /usr/bin/time (llama.cpp's includes Node's own ~60 MB and the mapped file pages it touched).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:?usage: gguf_vs_llamacpp.sh BUILD_DIR [MODEL_DIR] [T] [REPEATS]}
models=${2:-/tmp/attnviz-bench}
T=${3:-128}
R=${4:-3}
variants=${VARIANTS:-q8_0 q4_k_m}
sides=" ${SIDES:-llama anatomy decoded_now model_open} "
read -r -a attnviz_args <<< "${ATTNVIZ_ARGS:-}"
case ${SHAPE:-1b} in
  1b) stem=llama-3.2-1b-shape ;;
  8b) stem=llama-3.1-8b-shape ;;
  *) echo "SHAPE: 1b or 8b" >&2; exit 1 ;;
esac
has() { [[ $sides == *" $1 "* ]]; }
bin="$build/bench/attnviz-bench-gguf"
harness="$root/tests/fixtures/llamacpp"
[ -x "$bin" ] || { echo "no $bin: cmake --build $build --target attnviz-bench-gguf" >&2; exit 1; }
[ -d "$harness/node_modules/node-llama-cpp" ] || { echo "no node-llama-cpp in $harness/node_modules (npm install there)" >&2; exit 1; }
profile=()
[ "${PROFILE:-0}" = 1 ] && profile=(--profile)
out=$(mktemp -d /tmp/gguf_vs_llamacpp.XXXXXX)
if [ -n "${LLAMACPP_CPU:-}" ]; then
  lib="$harness/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"
  [ -f "$lib/libggml-cpu-$LLAMACPP_CPU.so" ] || { echo "no libggml-cpu-$LLAMACPP_CPU.so in $lib" >&2; exit 1; }
  mkdir "$out/llamacpp"
  cp -a "$harness/reference.mjs" "$harness/package.json" "$harness/node_modules" "$out/llamacpp/"
  find "$out/llamacpp/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64" -name 'libggml-cpu-*.so' \
    ! -name "libggml-cpu-$LLAMACPP_CPU.so" -delete
  harness="$out/llamacpp"
fi

# One llama.cpp load as reference.mjs does it, with llama.cpp's info lines timestamped: node-llama-cpp's own
# metadata read and memory planning come before llama.cpp's first line; the vocabulary and the tensors'
# buffers (Mapped, or copied and repacked for AMX / CPU_REPACK) follow it. Then the context and the first
# evaluation of the T ids reference.mjs uses, timed. (A file, not `node -`: node-llama-cpp forks a test
# process with node's own arguments.)
cat > "$out/anatomy.mjs" <<'EOF'
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
const [harness, file, nTokensText] = process.argv.slice(2);
const nTokens = Number(nTokensText);
const { getLlama, LlamaLogLevel, readGgufFileInfo } =
    await import(pathToFileURL(path.join(harness, "node_modules/node-llama-cpp/dist/index.js")).href);
const lines = [];
const llama = await getLlama({ gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
    progressLogs: false, maxThreads: 2, logLevel: LlamaLogLevel.info,
    logger(level, m) { lines.push([performance.now(), m.replace(/\n$/, "")]); } });
let t = performance.now();
await readGgufFileInfo(file);
const readInfoMs = performance.now() - t;
const start = performance.now();
const model = await llama.loadModel({ modelPath: file, gpuLayers: 0, useMmap: true });
const end = performance.now();
const at = (re) => { const l = lines.find(([ms, m]) => ms >= start && re.test(m)); return l ? l[0] - start : null; };
const buffers = lines.filter(([ms, m]) => ms >= start && /model buffer size/.test(m)).map(([, m]) => m.replace(/^.*load_tensors: +/, ""));
const lastLine = Math.max(...lines.filter(([ms]) => ms >= start && ms <= end).map(([ms]) => ms)) - start;
// reference.mjs's context and ids.
const nVocab = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
const ids = Array.from({ length: nTokens }, (_, i) => (i * 7919 + 13) % nVocab);
t = performance.now();
const context = await model.createContext({
    contextSize: Math.max(nTokens + 1, 32), batchSize: Math.max(nTokens + 1, 32), sequences: 1, threads: 2,
    flashAttention: false,
});
const sequence = context.getSequence();
const contextMs = performance.now() - t;
const input = ids.slice(0, -1);
input.push([ids[ids.length - 1], { generateNext: { probabilities: false, confidence: true } }]);
t = performance.now();
await sequence.controlledEvaluate(input);
const firstEvalMs = performance.now() - t;
process.stdout.write(JSON.stringify({
    read_gguf_file_info_ms: readInfoMs,                // node-llama-cpp's JS metadata read, alone
    load_ms: end - start,                              // loadModel, as reference.mjs times it
    first_llama_line_ms: at(/llama_model_loader: loaded meta data/),
    load_tensors_start_ms: at(/load_tensors: loading model tensors/),
    last_llama_line_ms: lastLine,
    buffers, context_ms: contextMs, first_eval_ms: firstEvalMs,
    cpu: llama.systemInfo.trim(),
}) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
EOF

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }
# CPU seconds the whole machine has been busy or stolen (user, nice, system, irq, softirq, steal): the delta
# over a side, less that side's own user + system seconds, is what other processes took from the cores.
busy_s() { awk '/^cpu /{printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / 100}' /proc/stat; }
others() {  # others BUSY_BEFORE BUSY_AFTER TIME_FILE
  awk -v b0="$1" -v b1="$2" '{printf "%.1f CPU-s of others (or stolen by the host) over %.1f s", b1 - b0 - ($2 + $3), $4}' "$3"
}
# run NAME CMD...: CMD's stdout to $out/NAME.json, /usr/bin/time's "maxKB user sys wall" to $out/NAME.time,
# and "load average before -> after; others" to $out/NAME.noise.
run() {
  local name=$1 l0 b0
  shift
  l0=$(load_avg) b0=$(busy_s)
  /usr/bin/time -f '%M %U %S %e' -o "$out/$name.time" "$@" > "$out/$name.json"
  echo "load $l0 -> $(load_avg); $(others "$b0" "$(busy_s)" "$out/$name.time")" > "$out/$name.noise"
}
rss() { echo "$(($(cut -d' ' -f1 "$out/$1.time") / 1024)) MiB"; }

# The source the build was made from, and its commit when it is a git tree (a snapshot says where it came from).
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
march=$(sed -n 's/^ATTNVIZ_MARCH:STRING=//p' "$build/CMakeCache.txt")
if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  rev="$(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet HEAD -- core || echo ' + uncommitted changes in core/')"
else
  rev="not a git tree"
  [ -f "$src/SNAPSHOT.txt" ] && rev=$(head -1 "$src/SNAPSHOT.txt")
fi
echo "# $(date -u +%FT%TZ) $(nproc) cores; attnviz built from $src ($rev), -march=$march; T=$T repeats=$R;" \
     "llama.cpp CPU kernels: ${LLAMACPP_CPU:-its choice}; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; sides:$sides"
for v in $variants; do
  f="$models/$stem-$v.gguf"
  [ -f "$f" ] || { echo "no $f: /usr/bin/python3 bench/make_gguf_bench_model.py --shape ${SHAPE:-1b}" >&2; exit 1; }
  cat "$f" > /dev/null
  echo "## $v: $f ($(stat -c %s "$f") bytes)"
  if has llama; then
    run "$v.llama" bash -c 'cd "$1" && exec node reference.mjs bench "$2" "$3" "$4"' _ "$harness" "$f" "$T" "$R"
  fi
  if has anatomy; then run "$v.anatomy" node "$out/anatomy.mjs" "$harness" "$f" "$T"; fi
  if has decoded_now; then
    run "$v.decoded_now" "$bin" "$f" --open decoded_now --tokens "$T" --repeats "$R" --threads 2 "${profile[@]}" \
      "${attnviz_args[@]}"
  fi
  if has model_open; then
    run "$v.model_open" "$bin" "$f" --open model_open --tokens "$T" --repeats "$R" --threads 2 "${attnviz_args[@]}"
  fi
  if has llama; then
    echo "llama.cpp:  $(jq -c 'del(.load_ms, .prompt_eval_ms, .llama_cpp)' "$out/$v.llama.json")  max RSS $(rss "$v.llama")"
    echo "  $(cat "$out/$v.llama.noise")"
  fi
  if has anatomy; then
    echo "llama.cpp anatomy: $(cat "$out/$v.anatomy.json")  max RSS $(rss "$v.anatomy")"
    echo "  $(cat "$out/$v.anatomy.noise")"
  fi
  for o in decoded_now model_open; do
    has "$o" || continue
    echo "attnviz $o: $(cat "$out/$v.$o.json")  max RSS $(rss "$v.$o")"
    echo "  $(cat "$out/$v.$o.noise")"
    has llama && has anatomy || continue
    jq -rn --slurpfile a "$out/$v.$o.json" --slurpfile l "$out/$v.llama.json" --slurpfile n "$out/$v.anatomy.json" '
      def r: . * 100 | round / 100;
      $a[0] as $a | $l[0] as $l | $n[0] as $n |
      "  ratios, attnviz \($a.open) / llama.cpp: forward \($a.forward_s | r) s / prompt eval \($l.prompt_eval_ms_median / 1000 | r) s = \($a.forward_s / ($l.prompt_eval_ms_median / 1000) | r)x (goal <= 2.0); " +
      "load \($a.load_s | r) s / \($l.load_ms_median / 1000 | r) s = \($a.load_s / ($l.load_ms_median / 1000) | r)x (goal <= 1.0); " +
      "first result (load + first forward) \($a.load_s + $a.forward_first_s | r) s / \(($n.load_ms + $n.context_ms + $n.first_eval_ms) / 1000 | r) s = \(($a.load_s + $a.forward_first_s) / (($n.load_ms + $n.context_ms + $n.first_eval_ms) / 1000) | r)x"'
  done
done
echo "# JSON kept in $out"
