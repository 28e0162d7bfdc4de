#!/usr/bin/python3
"""Checkpoint benchmark: load time, one forward keeping every head, and memory, ours vs PyTorch, on the
same GPT-2-small-sized checkpoint (bench/make_gpt2_small.py; made in /tmp when absent) and the same ids.

Ours: `attnviz-bench-checkpoint --model DIR --tokens T --repeat R --threads N`, one JSON line
{"load_s", "forward_s" (median), "rss_before_mb", "rss_after_load_mb", "rss_peak_mb", "weights_mb"}
(optionally "load_cpu_s", the load's CPU seconds over all threads, "rss_peak_load_mb", the peak
before the forward, and "ids"; without ids both sides use ids[i] = (i * 389) % vocab_size). A load is one shot per
process, so the binary runs --runs times and the run with the median load is reported. With
--before-bin (an older build of the same binary) the two alternate, run for run, so that both see the
same machine, and the table gets a "before" column. Torch: hf_reference's step-by-step GPT-2 forward
(every layer's attention kept), no_grad, in a fresh process per column: as installed, and with
OMP_WAIT_POLICY=PASSIVE. A benchmark, not a test: it fails only when something cannot run. Run with
/usr/bin/python3 (Debian's torch lives there).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))

GOAL_LOAD_S = 0.5
GOAL_RATIO = 0.4
GOAL_EXTRA_MB = 1024.0


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def default_ids(t, vocab_size):
    return [(i * 389) % vocab_size for i in range(t)]


def blas_mapped():
    """Which BLAS library torch really mapped (Netlib's reference BLAS would make torch ~60x slower)."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(os.path.basename(p) for p in libs)) or "?"


def torch_child(args):
    """--torch-child: load, time, print one JSON object for the parent."""
    import torch
    import hf_reference as ref
    torch.set_num_threads(args.threads)
    before = rss_mb()
    with open(os.path.join(args.dir, "config.json")) as f:
        config = json.load(f)
    t0 = time.perf_counter()
    weights = ref.st_load_torch(os.path.join(args.dir, "model.safetensors"))
    load_s = time.perf_counter() - t0
    after_load = rss_mb()
    weights_mb = sum(w.numel() * w.element_size() for w in weights.values()) / 2**20
    ids = json.loads(args.ids) if args.ids else default_ids(args.tokens, config["vocab_size"])
    samples = []
    with torch.no_grad():
        ref.gpt2_forward(weights, config, ids)   # warm-up
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            attns, hidden = ref.gpt2_forward(weights, config, ids)
            del attns, hidden   # freeing the result is part of the cost, as on our side
            samples.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"load_s": load_s, "forward_s": statistics.median(samples), "samples": samples,
                      "rss_before_mb": before, "rss_after_load_mb": after_load, "rss_peak_mb": peak,
                      "weights_mb": weights_mb, "threads": torch.get_num_threads(), "blas": blas_mapped(),
                      "torch": torch.__version__}))


def run_torch(args, ids, passive):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"   # must be set before libgomp starts, hence a fresh process
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-child", "--dir", args.dir, "--tokens",
           str(args.tokens), "--repeat", str(args.repeat), "--threads", str(args.threads), "--ids", json.dumps(ids)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"checkpoint_vs_torch.py: the torch run failed: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_binary(args, binary):
    """The binary's JSON line, or (None, reason) when it is not built or fails."""
    cmd = [binary, "--model", args.dir, "--tokens", str(args.tokens), "--repeat", str(args.repeat),
           "--threads", str(args.threads)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        return None, f"cannot run {binary}: {e.strerror} (build target attnviz-bench-checkpoint)"
    if done.returncode != 0:
        return None, f"{binary} failed ({done.returncode}): {done.stderr.strip()}"
    lines = [l for l in done.stdout.splitlines() if l.strip().startswith("{")]
    if not lines:
        return None, f"{binary} printed no JSON line"
    return json.loads(lines[-1]), None


def run_builds(args, binaries):
    """Runs every binary args.runs times, alternating; per binary, the run with the median load (plus
    "load_all_s", every load) or (None, reason)."""
    runs = {b: [] for b in binaries}
    failed = {}
    for _ in range(args.runs):
        for b in binaries:
            if b not in failed:
                result, why = run_binary(args, b)
                if why:
                    failed[b] = why
                else:
                    runs[b].append(result)
    out = {}
    for b, results in runs.items():
        if b in failed:
            out[b] = (None, failed[b])
            continue
        results.sort(key=lambda r: r["load_s"])
        median = dict(results[len(results) // 2])
        median["load_all_s"] = [r["load_s"] for r in results]
        out[b] = (median, None)
    return out


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def verdict(ok):
    return "n/a" if ok is None else ("MET" if ok else "MISSED")


def print_table(args, ours, before, default, passive):
    o = ours or {}
    b = before or {}

    def ratio(key, side):
        return o[key] / side[key] if key in o and side.get(key, 0) > 0 else None

    def beyond(side):
        return side["rss_peak_mb"] - side["rss_before_mb"] - side["weights_mb"] if side else None

    print(f"\nGPT-2 small checkpoint ({args.dir}), T={args.tokens}, {args.threads} threads, median of {args.repeat}")
    print(f"torch {default['torch']}, BLAS mapped: {default['blas']}")
    print("load average (1 min) before / after: {:.2f} / {:.2f}  (figures mean little on a busy machine)"
          .format(args.load_before, os.getloadavg()[0]))
    for name, side in (("before", before), ("ours", ours)):
        if side:
            print(f"{name} loads over {args.runs} runs: " + ", ".join(f"{x:.3f}" for x in side["load_all_s"]) + " s")
    print()
    print(f"{'':28} {'before':>10} {'ours':>10} {'torch':>10} {'torch':>10} {'ours/torch':>10} {'ours/torch':>10}")
    print(f"{'':28} {'':>10} {'':>10} {'default':>10} {'passive':>10} {'default':>10} {'passive':>10}")
    rows = [("load s (median run)", "load_s", ".3f"), ("load CPU s, all threads", "load_cpu_s", ".3f"),
            ("forward s (median)", "forward_s", ".4f"),
            ("RSS before load MB", "rss_before_mb", ".0f"), ("RSS after load MB", "rss_after_load_mb", ".0f"),
            ("RSS peak of the load MB", "rss_peak_load_mb", ".0f"), ("RSS peak MB", "rss_peak_mb", ".0f"),
            ("weights MB", "weights_mb", ".0f")]
    for label, key, spec in rows:
        print(f"{label:28} {fmt(b.get(key), spec):>10} {fmt(o.get(key), spec):>10} {fmt(default.get(key), spec):>10} "
              f"{fmt(passive.get(key), spec):>10} {fmt(ratio(key, default), '.2f'):>10} {fmt(ratio(key, passive), '.2f'):>10}")
    extra = beyond(ours)
    print(f"{'peak beyond weights MB':28} {fmt(beyond(before), '.0f'):>10} {fmt(extra, '.0f'):>10} "
          f"{beyond(default):>10.0f} {beyond(passive):>10.0f}")

    print("\nGoals:")
    load_ok = None if not ours else o["load_s"] <= GOAL_LOAD_S
    fwd_ok = None if not ours else o["forward_s"] <= GOAL_RATIO * passive["forward_s"]
    fwd_ok_default = None if not ours else o["forward_s"] <= GOAL_RATIO * default["forward_s"]
    mem_ok = None if not ours else extra < GOAL_EXTRA_MB
    print(f"  load <= {GOAL_LOAD_S:g} s (warm cache):            {fmt(o.get('load_s'), '.3f'):>8} s   "
          f"{verdict(load_ok)}")
    print(f"  forward <= {GOAL_RATIO} x torch (passive):        ratio {fmt(ratio('forward_s', passive), '.2f'):>5}   "
          f"{verdict(fwd_ok)}")
    print(f"  forward <= {GOAL_RATIO} x torch (as installed):   ratio {fmt(ratio('forward_s', default), '.2f'):>5}   "
          f"{verdict(fwd_ok_default)}")
    print(f"  peak memory beyond the weights < 1 GB:  {fmt(extra, '.0f'):>8} MB  {verdict(mem_ok)}")
    print("  (beyond the weights = RSS peak - RSS before load - weights; torch's columns for context)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/tmp/attnviz_gpt2_small", help="checkpoint folder (made when absent)")
    ap.add_argument("--bench-bin", default=os.path.join(ROOT, "build", "bench", "attnviz-bench-checkpoint"))
    ap.add_argument("--before-bin", help="an older attnviz-bench-checkpoint to compare with, run for run")
    ap.add_argument("--runs", type=int, default=3, help="runs of each binary; the median load is reported")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ids", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_child:
        torch_child(args)
        return

    if not os.path.exists(os.path.join(args.dir, "model.safetensors")):
        print(f"making {args.dir} (about 500 MB) ...", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(HERE, "make_gpt2_small.py"), args.dir], check=True)
    with open(os.path.join(args.dir, "config.json")) as f:
        vocab_size = json.load(f)["vocab_size"]

    args.load_before = os.getloadavg()[0]
    binaries = [args.before_bin, args.bench_bin] if args.before_bin else [args.bench_bin]
    results = run_builds(args, binaries)
    ours, why = results[args.bench_bin]
    if why:
        print(f"checkpoint_vs_torch.py: ours not measured: {why}", file=sys.stderr)
    before, why_before = results[args.before_bin] if args.before_bin else (None, None)
    if why_before:
        print(f"checkpoint_vs_torch.py: before not measured: {why_before}", file=sys.stderr)
    ids = (ours or {}).get("ids") or default_ids(args.tokens, vocab_size)
    if len(ids) != args.tokens:
        sys.exit(f"checkpoint_vs_torch.py: the binary reported {len(ids)} ids, expected {args.tokens}")
    default = run_torch(args, ids, passive=False)
    passive = run_torch(args, ids, passive=True)
    print_table(args, ours, before, default, passive)


if __name__ == "__main__":
    main()
