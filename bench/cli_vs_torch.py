#!/usr/bin/python3
"""The whole attnviz-cli process against PyTorch's forward alone, on a saved PyTorch TransformerEncoder.

Writes, in --dir (default /tmp/attnviz_cli_bench), a 12-layer C=768 NH=12 F=3072 pre-norm
nn.TransformerEncoder's state dict as .safetensors (its own names: layers.0.self_attn.in_proj_weight...)
and (T, 768) float32 inputs as .npy; then, in one run, for each T:
  - each --cli binary (label=path; e.g. before=/tmp/before/attnviz-cli after=build/app/attnviz-cli):
    `attention --input-npy x.npy --weights w.safetensors --mask causal --csv o.csv --layer 0 --head 0`,
    the whole process timed from start to exit (loading, checks, forward, CSV);
  - PyTorch's forward alone (model already built, torch.no_grad, 2 threads), as installed and with
    OMP_WAIT_POLICY=PASSIVE, each in a fresh process;
and the sandbox (random weights, no file) at 12 x 768 and at the default size, whole process, against
PyTorch building the same encoder (its own random init) and running it on as many tokens, timed
inside a fresh process after `import torch` (as installed and passive, as above).
The weights file is written anew on every run, so that it is cached as a file just saved is (on
this machine's kernel, in 2 MB blocks): how the kernel caches a file depends on its history, and an
older file that the kernel evicted in part and read back in 4 KB pages costs the CLI twice the time
to map (bench/README.md, "The page cache's block size"). A second table shows that case as each
CLI leaves it: the file is evicted from the cache, read back by one run of that CLI (timed, cold),
then timed warm at T=16.
Prints one table of medians and ratios, with the load average before and after. A benchmark, not a
test: it fails only when something cannot run. Run with /usr/bin/python3 (Debian's torch).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
from torch import nn

LAYERS, C, NH, F = 12, 768, 12, 3072
GOALS = {16: 1.0, 128: 0.5}  # whole CLI process / torch forward alone (as installed)
SANDBOX_TEXT = "the animal did not cross the street because it was too tired"  # 12 words, 12 tokens
# The CLI's sandbox shapes (post-norm, ReLU, no mask: the CLI's defaults) and the goal for the
# whole CLI process / torch building and running the same encoder (as installed).
SANDBOXES = {"sandbox 12x768": (["--layers", "12", "--d-model", "768", "--heads", "12", "--ffn", "3072"],
                                (12, 768, 12, 3072), 0.5),
             "sandbox default": ([], (1, 512, 8, 2048), None)}


def write_safetensors(path, tensors):
    """safetensors: u64 header length, JSON header (dtype, shape, offsets), then raw little-endian F32."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for b in blobs:
            f.write(b)
        f.flush()
        os.fsync(f.fileno())  # written to disk, so that evict() can drop it from the cache


def evict(path):
    """Drops the file's pages from the kernel's cache (they are clean: the file was synced)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def make_encoder(seed, layers=LAYERS, c=C, nh=NH, f=F, norm_first=True):
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(c, nh, f, dropout=0.0, batch_first=True, norm_first=norm_first)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).eval()


def prepare(args):
    os.makedirs(args.dir, exist_ok=True)
    weights = os.path.join(args.dir, "encoder_12x768.safetensors")
    write_safetensors(weights, make_encoder(args.seed).state_dict())
    for t in args.T:
        x = os.path.join(args.dir, f"x_{t}.npy")
        if not os.path.exists(x):
            np.save(x, np.random.default_rng(t).standard_normal((t, C)).astype(np.float32))
    return weights


def run_timed(cmd):
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"cli_vs_torch.py: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds


def time_process(cmd, repeat):
    """Median of `repeat` runs after one that warms the page cache (dropped)."""
    samples = [run_timed(cmd) for _ in range(repeat + 1)]
    return statistics.median(samples[1:])


def attention_cmd(path, args, weights, t, label):
    x = os.path.join(args.dir, f"x_{t}.npy")
    csv = os.path.join(args.dir, f"o_{label}_{t}.csv")
    return [path, "attention", "--input-npy", x, "--weights", weights, "--heads", str(NH), "--norm", "pre",
            "--mask", "causal", "--csv", csv, "--layer", "0", "--head", "0"]


def torch_child(args):
    """--torch-only: the forward alone, and the sandbox's build + forward, medians of --repeat after one
    warm-up; one JSON line."""
    torch.set_num_threads(args.threads)
    model = make_encoder(args.seed)
    out = {}
    with torch.no_grad():
        for t in args.T:
            x = torch.from_numpy(np.load(os.path.join(args.dir, f"x_{t}.npy"))).unsqueeze(0)
            mask = nn.Transformer.generate_square_subsequent_mask(t)
            model(x, mask=mask)
            samples = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                model(x, mask=mask)
                samples.append(time.perf_counter() - t0)
            out[str(t)] = statistics.median(samples)
        # The sandbox's counterpart: build the encoder (random init) and run it, each time anew.
        for what, (_, (layers, c, nh, f), _) in SANDBOXES.items():
            tokens = len(SANDBOX_TEXT.split())
            x = torch.from_numpy(np.random.default_rng(1).standard_normal((1, tokens, c)).astype(np.float32))
            samples = []
            for i in range(args.repeat + 1):
                t0 = time.perf_counter()
                make_encoder(args.seed + i, layers, c, nh, f, norm_first=False)(x)
                samples.append(time.perf_counter() - t0)
            out[what] = statistics.median(samples[1:])
    print(json.dumps(out))


def torch_times(args, passive):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-only", "--dir", args.dir, "--seed", str(args.seed),
           "--repeat", str(args.repeat), "--threads", str(args.threads), "--T", ",".join(map(str, args.T))]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"cli_vs_torch.py: the torch run failed: {done.stderr.strip()}")
    return {int(k) if k.isdigit() else k: v for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", action="append", default=[], help="label=path of an attnviz-cli (repeat)")
    p.add_argument("--dir", default="/tmp/attnviz_cli_bench")
    p.add_argument("--T", type=lambda s: [int(v) for v in s.split(",")], default=[16, 128, 512])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_only:
        return torch_child(args)
    clis = [tuple(c.split("=", 1)) for c in args.cli] or [("ours", "build/app/attnviz-cli")]
    weights = prepare(args)
    load_before = os.getloadavg()
    env_threads = {"OMP_NUM_THREADS": str(args.threads)}
    os.environ.update(env_threads)
    ours = {}
    for label, path in clis:
        for t in args.T:
            ours[(label, t)] = time_process(attention_cmd(path, args, weights, t, label), args.repeat)
        for what, (flags, _, _) in SANDBOXES.items():
            ours[(label, what)] = time_process([path, "attention", "--text", SANDBOX_TEXT] + flags, args.repeat)
    read_back = {}  # label -> (cold run, warm median) at the smallest T, the file read back by that CLI
    for label, path in clis:
        evict(weights)
        cmd = attention_cmd(path, args, weights, min(args.T), label)
        read_back[label] = (run_timed(cmd), statistics.median(run_timed(cmd) for _ in range(args.repeat)))
    default = torch_times(args, passive=False)
    passive = torch_times(args, passive=True)
    load_after = os.getloadavg()

    print(f"load average before {load_before[0]:.2f} / after {load_after[0]:.2f}; {args.threads} threads; median of {args.repeat}")
    print("\n12 x 768 pre-norm TransformerEncoder from .safetensors, causal mask: whole CLI process vs torch forward alone")
    head = f"{'T':>5} {'torch s':>9} {'torch s':>9}"
    for label, _ in clis:
        head += f" {label + ' s':>11} {label + '/default':>15} {label + '/passive':>15}"
    print(head + "  goal (vs default)")
    print(f"{'':>5} {'default':>9} {'passive':>9}")
    for t in args.T:
        row = f"{t:>5} {default[t]:>9.4f} {passive[t]:>9.4f}"
        for label, _ in clis:
            s = ours[(label, t)]
            row += f" {s:>11.4f} {s / default[t]:>15.2f} {s / passive[t]:>15.2f}"
        last = ours[(clis[-1][0], t)] / default[t]
        goal = GOALS.get(t)
        row += f"  <= {goal}: {'MET' if last <= goal else 'MISSED'}" if goal else ""
        print(row)
    t = min(args.T)
    print(f"\nthe file evicted from the cache and read back by each CLI, T={t}: cold run, then warm median")
    for label, _ in clis:
        cold, warm = read_back[label]
        print(f"  {label:<10} cold {cold:.4f} s   warm {warm:.4f} s = {warm / default[t]:.2f} x torch default")
    print(f"\nsandbox (random weights drawn by the CLI), whole process, vs torch building the same encoder and running it on"
          f" {len(SANDBOX_TEXT.split())} tokens (after import), seconds")
    for what, (_, _, goal) in SANDBOXES.items():
        row = f"  {what:<16} torch {default[what]:.4f} / passive {passive[what]:.4f}"
        for label, _ in clis:
            s = ours[(label, what)]
            row += f"  {label}: {s:.4f} = {s / default[what]:.2f} x / {s / passive[what]:.2f} x"
        last = ours[(clis[-1][0], what)] / default[what]
        row += f"  goal <= {goal} x torch as installed: {'MET' if last <= goal else 'MISSED'}" if goal else ""
        print(row)


if __name__ == "__main__":
    main()
