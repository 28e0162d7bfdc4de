#!/usr/bin/python3
"""TinyLlama-scale benchmark: a 1.1 B-parameter Llama-shaped checkpoint (bench/make_tinyllama.py, random BF16
weights) opened and run for T tokens by the engine and by PyTorch on the same weights and ids, in one run.

    /usr/bin/python3 bench/llama_scale_vs_torch.py [--model DIR] [--tokens 32] [--repeat 3] [--runs 3]
                                                   [--bench-bin build/bench/attnviz-bench-llama-scale] [--profile]

Without --model the checkpoint is made in a temporary folder under /tmp (2.2 GB, about 1-2 minutes) and removed
afterwards; with --model DIR it is made there only when DIR has no model.safetensors, and kept.

Ours: `attnviz-bench-llama-scale`, one JSON line (open seconds by stage, RSS after the open and at its peak,
the weights' F32 size, the median forward), run --runs times as installed and --runs times with
OMP_WAIT_POLICY=PASSIVE (alternating), each a fresh process (an open is one shot per process); each policy's run
with the median open is shown. Its final hidden states (T, C) come back through --dump.
PyTorch: each tensor read from model.safetensors into a numpy buffer and widened BF16 -> F32 by torch, then a
step-by-step Llama forward in float32 (tests/fixtures/family_reference.py's building blocks, every layer's
(NH, T, T) attention weights kept, output_attentions-style, and no logits, as ours computes none), no_grad,
torch.set_num_threads(--threads), median of --repeat after a warm-up; one fresh process per column: as installed
and with OMP_WAIT_POLICY=PASSIVE (bench/README.md, "Two torch columns"). The forward's hidden states are checked
against family_reference.decoder_forward's once, outside the clock.
A benchmark, not a test: it fails only when something cannot run.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))

GOAL_OPEN_S = 5.0
GOAL_EXTRA_MB = 1024.0          # peak RSS <= the weights' F32 size + 1 GB
GOAL_FORWARD_S = 2.0


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def blas_mapped():
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(os.path.basename(p) for p in libs)) or "?"


# ---------------------------------------------------------------------------------------------------
# The PyTorch side (a child process).

def torch_load(path):
    """{name: float32 torch tensor}: each tensor's bytes read by numpy into one reused buffer, widened by torch."""
    import numpy as np
    import torch
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n).decode("utf-8"))
        header.pop("__metadata__", None)
        base = 8 + n
        largest = max(info["data_offsets"][1] - info["data_offsets"][0] for info in header.values())
        buf = np.empty(largest // 2, dtype=np.int16)
        out = {}
        for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
            if info["dtype"] != "BF16":
                raise ValueError(f"{name}: {info['dtype']}, this benchmark reads BF16 checkpoints")
            begin, end = info["data_offsets"]
            count = (end - begin) // 2
            f.seek(base + begin)
            if f.readinto(memoryview(buf)[:count].cast("B")) != end - begin:
                raise ValueError(f"{name}: file too short")
            out[name] = torch.from_numpy(buf[:count]).view(torch.bfloat16).to(torch.float32).view(info["shape"])
    return out


def llama_forward(w, config, ids):
    """family_reference.decoder_forward for a Llama without biases or sliding window, to the final norm: no
    logits. Returns (every layer's (NH, T, T) attention weights, hidden (T, C))."""
    import torch
    import family_reference as fr
    c, nh = config["hidden_size"], config["num_attention_heads"]
    nkv = config["num_key_value_heads"]
    hs = c // nh
    eps = config["rms_norm_eps"]
    t = len(ids)
    x = w["model.embed_tokens.weight"][torch.tensor(ids, dtype=torch.long)]
    cos, sin = fr.rope_cos_sin(fr.rope_inv_freq(config, hs, config["rope_theta"]), torch.arange(t))
    mask = fr.causal_additive_mask(t, None)[None]
    attns = []
    for layer in range(config["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        a = p + "self_attn."
        residual = x
        h = fr.rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = fr.linear(h, w[a + "q_proj.weight"]).view(t, nh, hs).transpose(0, 1)
        k = fr.linear(h, w[a + "k_proj.weight"]).view(t, nkv, hs).transpose(0, 1)
        v = fr.linear(h, w[a + "v_proj.weight"]).view(t, nkv, hs).transpose(0, 1)
        q, k = fr.apply_rope(q, cos, sin), fr.apply_rope(k, cos, sin)
        k_all, v_all = fr.repeat_kv(k, nh // nkv), fr.repeat_kv(v, nh // nkv)
        scores = torch.matmul(q, k_all.transpose(1, 2)) * hs ** -0.5 + mask
        probs = torch.softmax(scores, dim=-1, dtype=torch.float32)
        attns.append(probs)
        ctx = torch.matmul(probs, v_all).transpose(0, 1).reshape(t, nh * hs)
        x = residual + fr.linear(ctx, w[a + "o_proj.weight"])
        residual = x
        h = fr.rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        m = p + "mlp."
        h = fr.linear(torch.nn.functional.silu(fr.linear(h, w[m + "gate_proj.weight"])) * fr.linear(h, w[m + "up_proj.weight"]),
                      w[m + "down_proj.weight"])
        x = residual + h
    return attns, fr.rms_norm(x, w["model.norm.weight"], eps)


def torch_child(args):
    import numpy as np
    import torch
    import family_reference as fr
    torch.set_num_threads(args.threads)
    before = rss_mb()
    with open(os.path.join(args.model, "config.json")) as f:
        config = json.load(f)
    t0 = time.perf_counter()
    weights = torch_load(os.path.join(args.model, "model.safetensors"))
    load_s = time.perf_counter() - t0
    after_load = rss_mb()
    peak_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    n_weights = sum(w.numel() for w in weights.values())
    ids = json.loads(args.ids)
    samples = []
    with torch.no_grad():
        attns, hidden = llama_forward(weights, config, ids)   # warm-up, and the hidden states compared
        hidden = hidden.numpy().copy()
        del attns
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            attns, h = llama_forward(weights, config, ids)
            del attns, h   # freeing the result is part of the cost, as on our side
            samples.append(time.perf_counter() - t0)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        same_as_reference = None
        if args.check_reference:   # this copy of the forward against family_reference's own (logits included)
            ref = fr.decoder_forward(weights, config, ids)["hidden"].numpy()
            same_as_reference = float(np.abs(ref - hidden).max())
    np.save(args.dump, hidden)
    print(json.dumps({"load_s": load_s, "forward_s": statistics.median(samples), "forward_all_s": samples,
                      "rss_before_mb": before, "rss_after_open_mb": after_load, "rss_peak_open_mb": peak_load,
                      "rss_peak_mb": peak, "weights": n_weights, "weights_f32_mb": n_weights * 4 / 2**20,
                      "max_abs_diff_vs_decoder_forward": same_as_reference, "threads": torch.get_num_threads(),
                      "blas": blas_mapped(), "torch": torch.__version__}))


def run_torch(args, ids, passive, dump, check_reference):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"   # read when libgomp starts, hence a fresh process
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-child", "--model", args.model, "--repeat",
           str(args.repeat), "--threads", str(args.threads), "--ids", json.dumps(ids), "--dump", dump]
    if check_reference:
        cmd.append("--check-reference")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"llama_scale_vs_torch.py: the torch run failed: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------------
# Ours.

def run_ours(args, dump, passive):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    cmd = [args.bench_bin, "--model", args.model, "--tokens", str(args.tokens), "--repeat", str(args.repeat),
           "--threads", str(args.threads), "--dump", dump]
    if args.profile:
        cmd.append("--profile")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    except OSError as e:
        sys.exit(f"llama_scale_vs_torch.py: cannot run {args.bench_bin}: {e.strerror} "
                 "(build target attnviz-bench-llama-scale)")
    if done.returncode != 0:
        sys.exit(f"llama_scale_vs_torch.py: {args.bench_bin} failed ({done.returncode}): {done.stderr.strip()}")
    lines = [l for l in done.stdout.splitlines() if l.strip().startswith("{")]
    return json.loads(lines[-1])


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def verdict(ok):
    return "MET" if ok else "MISSED"


def rel_diff(ours, ref):
    """max |ours - ref| / max(1, max |ref|), the measure of tests/reference/test_families_vs_torch.cpp, and the
    plain max |ours - ref|."""
    import numpy as np
    a, b = np.load(ours).astype(np.float64), np.load(ref).astype(np.float64)
    if a.shape != b.shape:
        sys.exit(f"llama_scale_vs_torch.py: hidden states of shapes {a.shape} and {b.shape}")
    d = float(np.abs(a - b).max())
    return d / max(1.0, float(np.abs(b).max())), d, float(np.abs(b).max())


def print_table(args, ours, ours_passive, opens, default, passive, diffs):
    print(f"\nTinyLlama-shaped checkpoint ({args.model}): {ours['weights']:,} parameters, BF16 on disk, "
          f"F32 {ours['weights_f32_mb']:.0f} MB in memory; T={args.tokens}, {args.threads} threads, "
          f"median of {args.repeat} forwards")
    print(f"torch {default['torch']}, BLAS mapped: {default['blas']}")
    print("load average (1 min) before / after: {:.2f} / {:.2f}".format(args.load_before, os.getloadavg()[0]))
    print(f"our opens over {len(opens)} runs (both policies): " + ", ".join(f"{x:.3f}" for x in opens) +
          " s (each policy's median run shown)")
    st = ours["open_stages"]
    print("our open by stage: config {:.3f} s, map {:.3f} s, hf_model_from_tensors {:.3f} s ({:.2f} CPU s; quarters "
          "of the tensors done at {}), stand-in vocab {:.3f} s".format(
              st["config_s"], st["map_s"], st["from_tensors_s"], st["from_tensors_cpu_s"],
              ", ".join(f"{x:.2f}" for x in st["from_tensors_quarters_s"]), st["vocab_s"]))
    print()
    print(f"{'':30} {'ours':>10} {'ours':>10} {'torch':>10} {'torch':>10} {'ours/torch':>10} {'ours/torch':>10}")
    print(f"{'':30} {'default':>10} {'passive':>10} {'default':>10} {'passive':>10} {'default':>10} {'passive':>10}")

    def row(label, ko, kt, spec):
        o, op = ours.get(ko), ours_passive.get(ko)
        d, p = default.get(kt), passive.get(kt)
        rd = o / d if o is not None and d else None
        rp = op / p if op is not None and p else None
        print(f"{label:30} {fmt(o, spec):>10} {fmt(op, spec):>10} {fmt(d, spec):>10} {fmt(p, spec):>10} "
              f"{fmt(rd, '.2f'):>10} {fmt(rp, '.2f'):>10}")

    row("open / load s", "open_s", "load_s", ".3f")
    row(f"forward s ({args.tokens} tokens, median)", "forward_s", "forward_s", ".3f")
    row("RSS before MB", "rss_before_mb", "rss_before_mb", ".0f")
    row("RSS after open MB", "rss_after_open_mb", "rss_after_open_mb", ".0f")
    row("RSS peak of the open MB", "rss_peak_open_mb", "rss_peak_open_mb", ".0f")
    row("RSS peak MB", "rss_peak_mb", "rss_peak_mb", ".0f")
    row("weights F32 MB", "weights_f32_mb", "weights_f32_mb", ".0f")
    for side in (ours, ours_passive, default, passive):   # the process's own start (torch's import: ~230 MB) left out
        side["beyond_mb"] = side["rss_peak_mb"] - side["rss_before_mb"] - side["weights_f32_mb"]
    row("peak - before - weights MB", "beyond_mb", "beyond_mb", ".0f")
    print(f"\nforward samples: ours {', '.join(f'{x:.3f}' for x in ours['forward_all_s'])}; ours passive "
          f"{', '.join(f'{x:.3f}' for x in ours_passive['forward_all_s'])}; torch default "
          f"{', '.join(f'{x:.3f}' for x in default['forward_all_s'])}; torch passive "
          f"{', '.join(f'{x:.3f}' for x in passive['forward_all_s'])} s")
    rel, absd, scale = diffs
    print(f"final hidden states, ours vs torch: max |diff| {absd:.3g} (max |torch| {scale:.3g}), relative {rel:.3g}")
    ref = default.get("max_abs_diff_vs_decoder_forward")
    if ref is not None:
        print(f"torch forward here vs family_reference.decoder_forward: max |diff| {ref:.3g}")

    limit = ours["weights_f32_mb"] + GOAL_EXTRA_MB
    print("\nGoals:")
    print(f"  open <= {GOAL_OPEN_S:g} s:                      {ours['open_s']:8.3f} s    {verdict(ours['open_s'] <= GOAL_OPEN_S)}")
    print(f"  peak RSS <= F32 size + 1 GB ({limit:.0f} MB): {ours['rss_peak_mb']:8.0f} MB   "
          f"{verdict(ours['rss_peak_mb'] <= limit)}")
    print(f"  {args.tokens}-token forward <= {GOAL_FORWARD_S:g} s:          {ours['forward_s']:8.3f} s    "
          f"{verdict(ours['forward_s'] <= GOAL_FORWARD_S)}  (passive: {ours_passive['forward_s']:.3f} s, "
          f"{verdict(ours_passive['forward_s'] <= GOAL_FORWARD_S)})")
    print("  (the goals are judged on ours as installed, the default policy)")
    if "profile" in ours:
        print("\nprofile (ours): " + json.dumps(ours["profile"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="checkpoint folder (made when it has no model.safetensors); default: a temp dir")
    ap.add_argument("--bench-bin", default=os.path.join(ROOT, "build", "bench", "attnviz-bench-llama-scale"))
    ap.add_argument("--runs", type=int, default=3, help="runs of our binary; the median open is reported")
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--profile", action="store_true", help="our binary's --profile on its last run")
    ap.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--check-reference", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ids", help=argparse.SUPPRESS)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_child:
        torch_child(args)
        return

    made = None
    if not args.model:
        made = args.model = tempfile.mkdtemp(prefix="attnviz_tinyllama_", dir="/tmp")
    try:
        if not os.path.exists(os.path.join(args.model, "model.safetensors")):
            print(f"making {args.model} (2.2 GB) ...", file=sys.stderr)
            subprocess.run([sys.executable, os.path.join(HERE, "make_tinyllama.py"), args.model], check=True)
        work = tempfile.mkdtemp(prefix="attnviz_llama_scale_", dir="/tmp")
        args.load_before = os.getloadavg()[0]
        ours_dump = os.path.join(work, "ours.npy")
        runs, runs_passive = [], []
        profile = args.profile
        for r in range(args.runs):   # the two policies alternate, run for run
            args.profile = profile and r == args.runs - 1
            runs.append(run_ours(args, ours_dump, passive=False))
            args.profile = False
            runs_passive.append(run_ours(args, os.path.join(work, "ours_passive.npy"), passive=True))
        prof = next((x["profile"] for x in runs if "profile" in x), None)
        opens = sorted(x["open_s"] for x in runs + runs_passive)
        ours = dict(sorted(runs, key=lambda x: x["open_s"])[len(runs) // 2])
        ours_passive = dict(sorted(runs_passive, key=lambda x: x["open_s"])[len(runs_passive) // 2])
        if prof is not None:
            ours["profile"] = prof
        ids = ours["ids"]
        default = run_torch(args, ids, False, os.path.join(work, "torch.npy"), check_reference=True)
        passive = run_torch(args, ids, True, os.path.join(work, "torch_passive.npy"), check_reference=False)
        diffs = rel_diff(ours_dump, os.path.join(work, "torch.npy"))
        print_table(args, ours, ours_passive, opens, default, passive, diffs)
        shutil.rmtree(work)
    finally:
        if made:
            shutil.rmtree(made, ignore_errors=True)


if __name__ == "__main__":
    main()
