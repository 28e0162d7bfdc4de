#!/usr/bin/python3
"""Engine vs PyTorch: one forward of a GPT-2-small-shaped stack, every head's weights kept.

Times PyTorch (Debian's python3-torch, CPU, torch.no_grad) and attnviz-bench-forward in the same
run, with the same shapes, warm-up and median, and prints one table. A benchmark, not a test: it
fails only when something cannot run. Run with /usr/bin/python3 (Debian's torch lives there).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

GOAL_RATIO = 0.4        # ours / torch at every T
GOAL_SGEMM = 0.75       # our effective GFLOP/s over Eigen's sgemm GFLOP/s, for T >= 128
GOAL_SGEMM_FROM_T = 128


class Block(nn.Module):
    """One layer as attnviz computes it: nn.MultiheadAttention returning every head's weights."""

    def __init__(self, c, nh, f, norm, activation):
        super().__init__()
        self.pre = norm == "pre"
        self.activation = activation
        self.ln1 = nn.LayerNorm(c)
        self.attn = nn.MultiheadAttention(c, nh, batch_first=True)
        self.ln2 = nn.LayerNorm(c)
        self.ff1 = nn.Linear(c, f)
        self.ff2 = nn.Linear(f, c)

    def act(self, x):
        if self.activation == "relu":
            return F.relu(x)
        return F.gelu(x, approximate="tanh" if self.activation == "gelu_tanh" else "none")

    def attend(self, x, mask):
        return self.attn(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)

    def forward(self, x, mask):
        if self.pre:
            a, w = self.attend(self.ln1(x), mask)
            x = x + a
            x = x + self.ff2(self.act(self.ff1(self.ln2(x))))
        else:
            a, w = self.attend(x, mask)
            x = self.ln1(x + a)
            x = self.ln2(x + self.ff2(self.act(self.ff1(x))))
        return x, w


class Stack(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.blocks = nn.ModuleList(
            Block(args.d_model, args.heads, args.ffn, args.norm, args.activation) for _ in range(args.layers))
        self.final = nn.LayerNorm(args.d_model) if args.norm == "pre" else nn.Identity()  # GPT's ln_f

    def forward(self, x, mask):
        weights = []  # (1, NH, T, T) per layer: every head kept, as the engine's Trace does
        for b in self.blocks:
            x, w = b(x, mask)
            weights.append(w)
        return self.final(x), weights


def mask_for(kind, t):
    if kind == "none":
        return None
    if kind == "causal":
        return torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
    sys.exit(f"engine_vs_torch.py: --mask {kind}: only causal and none are compared")


def median_seconds(fn, repeat):
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        del out  # freeing the result is part of the cost, as on the engine side
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples), samples


def torch_sgemm_gflops(m, k, n):
    x, w = torch.randn(m, k), torch.randn(n, k)
    F.linear(x, w)  # warm-up
    t0 = time.perf_counter()
    F.linear(x, w)
    one = time.perf_counter() - t0
    batch = max(1, int(0.02 / max(one, 1e-7)))
    rates = []
    for _ in range(9):
        t0 = time.perf_counter()
        for _ in range(batch):
            F.linear(x, w)
        rates.append(2.0 * m * k * n * batch / (time.perf_counter() - t0) / 1e9)
    return statistics.median(rates)


def run_quiet(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def blas_report():
    """Which BLAS torch's sgemm really goes through: the alternatives link, ldd, and the mapped file."""
    alt = run_quiet(["update-alternatives", "--display", "libblas.so.3-x86_64-linux-gnu"])
    current = next((l.split("points to")[-1].strip() for l in alt.splitlines() if "points to" in l), "?")
    lib = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
    ldd = next((l.strip() for l in run_quiet(["ldd", lib]).splitlines() if "libblas" in l), "?")
    torch.randn(64, 64) @ torch.randn(64, 64)
    with open("/proc/self/maps") as f:
        mapped = sorted({l.split()[-1] for l in f if "blas" in l.lower() and "/" in l})
    reference = any("/blas/libblas" in m for m in mapped) or (not mapped and "/blas/" in current)
    return {"alternative": current, "ldd": ldd, "mapped": mapped, "reference_blas": reference}


def shape_args(args):
    return ["--layers", str(args.layers), "--d-model", str(args.d_model), "--heads", str(args.heads),
            "--ffn", str(args.ffn), "--norm", args.norm, "--activation", args.activation, "--mask", args.mask,
            "--T", ",".join(map(str, args.T)), "--repeat", str(args.repeat), "--threads", str(args.threads),
            "--seed", str(args.seed)]


def engine_lines(args):
    cmd = [args.bench_bin] + shape_args(args) + (["--profile"] if args.profile else [])
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        sys.exit(f"engine_vs_torch.py: cannot run {args.bench_bin}: {e} (build target attnviz-bench-forward)")
    if done.returncode != 0:
        sys.exit(f"engine_vs_torch.py: {args.bench_bin} failed ({done.returncode}): {done.stderr.strip()}")
    return {j["T"]: j for j in (json.loads(l) for l in done.stdout.splitlines() if l.strip())}


def torch_child_main(args):
    """--torch-only: time torch in this process and print one JSON object for the parent."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = Stack(args).eval()
    out = {"threads": torch.get_num_threads(), "times": {}, "sgemm": {}}
    with torch.no_grad():
        for t in args.T:
            x = torch.randn(1, t, args.d_model)
            mask = mask_for(args.mask, t)
            med, samples = median_seconds(lambda: model(x, mask), args.repeat)
            out["times"][str(t)] = {"median": med, "samples": samples}
        for t in args.T:
            out["sgemm"][str(t)] = torch_sgemm_gflops(t, args.d_model, args.ffn)
        out["sgemm"]["square"] = torch_sgemm_gflops(1024, 1024, 1024)
    print(json.dumps(out))


def torch_run(args, passive):
    """Torch in a fresh process; passive sets OMP_WAIT_POLICY=PASSIVE before libgomp starts.

    Debian's torch runs its own ops on libgomp threads and its matmuls on OpenBLAS's pthreads. By
    default idle libgomp threads spin and hold the cores OpenBLAS needs; the passive run shows torch
    without that fight, the default run shows torch as installed.
    """
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-only"] + shape_args(args)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"engine_vs_torch.py: the torch run failed: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_busy(seconds=1.0):
    """Share of the machine's CPU time that was not idle over the next `seconds` (/proc/stat)."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # idle + iowait
    total0, idle0 = sample()
    time.sleep(seconds)
    total1, idle1 = sample()
    return 1.0 - (idle1 - idle0) / max(1, total1 - total0)


def print_table(args, ours, default, passive):
    print(f"\n{'T':>5} {'torch s':>9} {'torch s':>9} {'ours s':>8} {'ours/torch':>10} {'ours/torch':>10} "
          f"{'our':>7} {'% sgemm':>8} {'% sgemm':>8}  goal")
    print(f"{'':>5} {'default':>9} {'passive':>9} {'':>8} {'default':>10} {'passive':>10} "
          f"{'GFLOP/s':>7} {'(T)':>8} {'1024^3':>8}  (vs passive)")
    for t in args.T:
        o = ours[t]
        td, tp = default["times"][str(t)]["median"], passive["times"][str(t)]["median"]
        rd, rp = o["forward_s"] / td, o["forward_s"] / tp
        pct_t, pct_sq = 100 * o["ratio_vs_sgemm_tcf"], 100 * o["ratio_vs_sgemm_square"]
        ok = rp <= GOAL_RATIO and (t < GOAL_SGEMM_FROM_T or pct_t >= 100 * GOAL_SGEMM)
        print(f"{t:>5} {td:>9.4f} {tp:>9.4f} {o['forward_s']:>8.4f} {rd:>10.2f} {rp:>10.2f} "
              f"{o['forward_gflops']:>7.1f} {pct_t:>7.1f}% {pct_sq:>7.1f}%  {'met' if ok else 'MISSED'}")
    print(f"Goal: ours/torch <= {GOAL_RATIO} at every T, and >= {100 * GOAL_SGEMM:.0f}% of sgemm(T) for "
          f"T >= {GOAL_SGEMM_FROM_T}; judged against the passive (faster) torch.")
    print(f"sgemm(T) = Eigen (T, {args.d_model}) x ({args.d_model}, {args.ffn}) at {ours[args.T[0]]['threads']} "
          "threads, measured by the engine binary (weights hot in cache).")
    print("\nsgemm GFLOP/s at the same thread count: Eigen hot | Eigen cold weights | torch default | torch passive")
    for t in args.T:
        print(f"  ({t:>4}, {args.d_model}) x ({args.d_model}, {args.ffn}): {ours[t]['sgemm_tcf_gflops']:6.1f} | "
              f"{ours[t]['sgemm_tcf_cold_gflops']:6.1f} | {default['sgemm'][str(t)]:6.1f} | "
              f"{passive['sgemm'][str(t)]:6.1f}")
    print(f"  1024^3: {ours[args.T[0]]['sgemm_square_gflops']:6.1f} | {'':>6} | {default['sgemm']['square']:6.1f} | "
          f"{passive['sgemm']['square']:6.1f}")


def print_profile(ours):
    print("\nWhere the engine's time goes (median seconds per phase of the mirrored forward, bench_phases.cpp):")
    ts = sorted(ours)
    phases = list(ours[ts[0]]["profile"]["phases_s"].keys())
    print(f"{'phase':<13}" + "".join(f"{'T=' + str(t):>18}" for t in ts))
    for p in phases:
        cells = []
        for t in ts:
            prof = ours[t]["profile"]
            s = prof["phases_s"][p]
            cells.append(f"{s:9.4f} {100 * s / prof['total_s']:5.1f}%  ")
        print(f"{p:<13}" + "".join(f"{c:>18}" for c in cells))
    print(f"{'mirror total':<13}" + "".join(f"{ours[t]['profile']['total_s']:>16.4f}  " for t in ts))
    print(f"{'trace_run':<13}" + "".join(f"{ours[t]['forward_s']:>16.4f}  " for t in ts))
    print("max |mirror - trace_run| of the output: " +
          ", ".join(f"T={t}: {ours[t]['profile']['max_abs_diff_vs_trace_run']:.2e}" for t in ts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--bench-bin", default=os.path.join(repo, "build", "bench", "attnviz-bench-forward"))
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--ffn", type=int, default=3072)
    ap.add_argument("--norm", choices=["pre", "post"], default="pre")
    ap.add_argument("--activation", choices=["relu", "gelu", "gelu_tanh"], default="gelu_tanh")
    ap.add_argument("--mask", choices=["causal", "none"], default="causal")
    ap.add_argument("--T", type=lambda s: [int(v) for v in s.split(",")], default=[16, 128, 512])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="also print the engine's time per phase")
    ap.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_only:
        torch_child_main(args)
        return

    torch.set_num_threads(args.threads)
    blas = blas_report()
    busy = cpu_busy()
    print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads; BLAS alternative: {blas['alternative']}")
    print(f"  libtorch_cpu.so -> {blas['ldd']}")
    print(f"  mapped after a matmul: {', '.join(blas['mapped']) or 'none'}")
    if blas["reference_blas"]:
        print("  WARNING: torch runs on Netlib's reference BLAS (~3 GFLOP/s), not a fair comparison: "
              "apt-get install libopenblas0-pthread")
    print(f"Shape: L={args.layers} C={args.d_model} NH={args.heads} F={args.ffn} {args.norm}-norm {args.activation} "
          f"mask={args.mask}; median of {args.repeat} after 1 warm-up; CPU busy before start: {100 * busy:.0f}%")
    if busy > 0.1:
        print("  WARNING: something else is using the CPU; timings will be noisy")

    ours = engine_lines(args)
    default = torch_run(args, passive=False)
    passive = torch_run(args, passive=True)
    busy_after = cpu_busy()
    print_table(args, ours, default, passive)
    print(f"CPU busy right after the runs: {100 * busy_after:.0f}%")
    if args.profile:
        print_profile(ours)


if __name__ == "__main__":
    main()
