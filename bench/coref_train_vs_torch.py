#!/usr/bin/python3
"""Coreference demo training: attnviz's coref_train vs PyTorch, same model, data and batches.

attnviz-bench-coref --export DIR writes the initial weights, the data in the order coref_train
consumes it, the options and a logits dump; this script checks that PyTorch's model reproduces
those logits and our first training losses, trains it in PyTorch two ways (one example at a time,
and padded batches), times both to the held-out target, runs the engine binary in the same run and
prints one table. By default the binary's defaults hold (the shipped demo: attention-only layers).
A benchmark, not a test: it fails only when something cannot run or the models do not match.
Run with /usr/bin/python3 (Debian's torch lives there).
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from engine_vs_torch import blas_report  # which BLAS torch's matmuls really go through

GOAL_SECONDS = 1.0       # ours, time to target on 2 cores
LOGITS_TOLERANCE = 1e-5  # max |ours - torch| of the initial logits
LOSS_CHECK_STEPS = 20    # training steps compared loss by loss before timing
LOSS_TOLERANCE = 1e-5    # max |ours - torch| of the loss over those steps (float order drifts later)
VARIANTS = ("loop", "padded")


# ---- files written by attnviz-bench-coref --export ----

def safetensors_read(path):
    """name -> float32 array. Our files hold F32 only (safetensors: u64 header size, JSON header, data)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    out = {}
    for name, t in header.items():
        if t["dtype"] != "F32":
            sys.exit(f"coref_train_vs_torch.py: {path}: tensor {name} is {t['dtype']}, expected F32")
        begin, end = t["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + begin:8 + n + end], dtype="<f4").reshape(t["shape"])
    return out


def export_load(directory):
    def load(name):
        with open(os.path.join(directory, name)) as f:
            return json.load(f)
    options = load("options.json")
    # The C++ floats arrive widened to double (0.8999999761581421); use the decimal they were written as.
    options = {k: float(f"{v:.7g}") if isinstance(v, float) else v for k, v in options.items()}
    return {"options": options, "data": load("data.json"), "init_logits": load("init_logits.json"),
            "trajectory": load("our_trajectory.json"),
            "weights": safetensors_read(os.path.join(directory, "init.safetensors"))}


# ---- the model ----

class AttentionOnlyLayer(nn.Module):
    """A pre-norm encoder layer without its feed-forward block (our d_ff 0): x + SA(LN1(x)).
    Attribute names follow nn.TransformerEncoderLayer's, so our tensor names load unchanged."""

    def __init__(self, c, heads, ln_eps):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(c, heads, dropout=0.0, batch_first=True)
        self.norm1 = nn.LayerNorm(c, eps=ln_eps)

    def forward(self, x, src_key_padding_mask=None):
        h = self.norm1(x)
        return x + self.self_attn(h, h, h, key_padding_mask=src_key_padding_mask, need_weights=False)[0]


def layer_build(o):
    """d_ff 0 (the shipped demo): attention only; otherwise torch's own encoder layer (exact GELU)."""
    if o["d_ff"] == 0:
        return AttentionOnlyLayer(o["d_model"], o["n_heads"], o["ln_eps"])
    return nn.TransformerEncoderLayer(o["d_model"], o["n_heads"], o["d_ff"], dropout=0.0, activation="gelu",
                                      layer_norm_eps=o["ln_eps"], batch_first=True, norm_first=True)


def layer_tensor_names(o):
    """Our per-layer tensors; an attention-only file has no linear1/linear2/norm2 at all."""
    names = ["self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
             "self_attn.out_proj.bias", "norm1.weight", "norm1.bias"]
    if o["d_ff"] > 0:
        names += ["linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm2.weight", "norm2.bias"]
    return names


class CorefNet(nn.Module):
    """Token + learned position embeddings, pre-norm encoder layers (attention-only when d_ff is 0,
    else with an exact-GELU feed-forward block), final LayerNorm, projection to the vocabulary:
    coref_model_init's model, in PyTorch's own modules."""

    def __init__(self, o):
        super().__init__()
        if o["norm"] != "pre" or not o["final_norm"] or (o["d_ff"] > 0 and o["activation"] != "gelu"):
            sys.exit(f"coref_train_vs_torch.py: expected pre-norm, a final norm and GELU; the export says norm "
                     f"{o['norm']}, final_norm {o['final_norm']}, activation {o['activation']}")
        c, v = o["d_model"], o["vocab_size"]
        self.tok = nn.Embedding(v, c)
        self.pos = nn.Parameter(torch.zeros(o["max_positions"], c))
        self.layers = nn.ModuleList(layer_build(o) for _ in range(o["n_layers"]))
        self.norm = nn.LayerNorm(c, eps=o["ln_eps"])
        self.out = nn.Linear(c, v)

    def forward(self, ids, pad=None):
        """ids (B, T) -> logits (B, T, V); pad (B, T) True at padding keys, or None."""
        x = self.tok(ids) + self.pos[:ids.shape[1]]
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=pad)
        return self.out(self.norm(x))

    def load(self, w, o):
        """Copies our tensors in; the scoring-function extras (general/additive) play no part here."""
        sd = {"tok.weight": w["tok_embed.weight"], "pos": w["pos_embed.weight"], "norm.weight": w["norm.weight"],
              "norm.bias": w["norm.bias"], "out.weight": w["output.weight"], "out.bias": w["output.bias"]}
        for i in range(o["n_layers"]):
            for name in layer_tensor_names(o):
                sd[f"layers.{i}.{name}"] = w[f"layers.{i}.{name}"]
        self.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in sd.items()}, strict=True)


def model_build(e):
    model = CorefNet(e["options"])
    model.load(e["weights"], e["options"])
    return model


def optimizer_build(model, o):
    """AdamW with weight decay on matrices only (train.cpp's weights_tensors): not on biases or norms."""
    decay = [model.tok.weight, model.pos, model.out.weight]
    for layer in model.layers:
        decay += [layer.self_attn.in_proj_weight, layer.self_attn.out_proj.weight]
        if o["d_ff"] > 0:
            decay += [layer.linear1.weight, layer.linear2.weight]
    ids = {id(p) for p in decay}
    rest = [p for p in model.parameters() if id(p) not in ids]
    return torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"])


# ---- data ----

def padded(examples):
    """(N, Tmax) ids padded with 0 ([PAD]), (N, Tmax) True at padding, lengths, pronouns, targets."""
    n, tmax = len(examples), max(len(e["ids"]) for e in examples)
    ids = torch.zeros(n, tmax, dtype=torch.long)
    for i, e in enumerate(examples):
        ids[i, :len(e["ids"])] = torch.tensor(e["ids"])
    lengths = torch.tensor([len(e["ids"]) for e in examples])
    pad = torch.arange(tmax)[None, :] >= lengths[:, None]
    return {"ids": ids, "pad": pad, "lengths": lengths, "pronoun": torch.tensor([e["pronoun"] for e in examples]),
            "target": torch.tensor([e["target"] for e in examples])}


def forward_check(e):
    """Max |torch - ours| of the initial logits: one example at a time (train and eval mode) and padded."""
    model = model_build(e)
    dumps = e["init_logits"]
    diffs = {"single_train_mode": 0.0, "single_eval_mode": 0.0, "padded": 0.0}
    with torch.no_grad():
        for d in dumps:
            ours = torch.tensor(d["logits"])
            ids = torch.tensor([d["ids"]])
            model.train()
            diffs["single_train_mode"] = max(diffs["single_train_mode"], (model(ids)[0] - ours).abs().max().item())
            model.eval()  # eval + no_grad may take torch's fused encoder-layer path
            diffs["single_eval_mode"] = max(diffs["single_eval_mode"], (model(ids)[0] - ours).abs().max().item())
        # Padded together with longer and shorter training examples, so padding really occurs.
        mixed = [{"ids": d["ids"], "pronoun": 0, "target": 0} for d in dumps] + e["data"]["train"][:12]
        p = padded(mixed)
        for mode in ("train", "eval"):
            getattr(model, mode)()
            out = model(p["ids"], p["pad"])
            for i, d in enumerate(dumps):
                t = len(d["ids"])
                diffs["padded"] = max(diffs["padded"], (out[i, :t] - torch.tensor(d["logits"])).abs().max().item())
    return diffs


# ---- training (runs in a child process so OMP_WAIT_POLICY takes effect before libgomp starts) ----

def batch_indices(step, batch, n):
    """coref_train's rule: step s (from 1) uses train[((s-1)*batch + b) % n] for b < batch."""
    start = (step - 1) * batch
    return [(start + b) % n for b in range(batch)]


def step_loop(model, opt, train, idx, o):
    """One example at a time, as the engine does; gradients of loss_i / B accumulate."""
    opt.zero_grad(set_to_none=True)
    total = 0.0
    for i in idx:
        ex = train[i]
        logits = model(ex["ids"])
        loss = F.cross_entropy(logits[0, ex["pronoun"]][None], ex["target"]) / len(idx)
        loss.backward()
        total += loss.item()
    nn.utils.clip_grad_norm_(model.parameters(), o["clip_norm"])
    opt.step()
    return total


def step_padded(model, opt, p, idx, o):
    """The batch padded to its longest example, padding keys masked: one forward and backward."""
    rows = torch.tensor(idx)
    t = int(p["lengths"][rows].max())
    ids, pad = p["ids"][rows, :t], p["pad"][rows, :t]
    opt.zero_grad(set_to_none=True)
    logits = model(ids, pad)
    loss = F.cross_entropy(logits[torch.arange(len(idx)), p["pronoun"][rows]], p["target"][rows])
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), o["clip_norm"])
    opt.step()
    return loss.item()


def accuracy_loop(model, heldout):
    correct = 0
    with torch.no_grad():
        for ex in heldout:
            correct += int(model(ex["ids"])[0, ex["pronoun"]].argmax().item() == ex["target"].item())
    return correct / len(heldout)


def accuracy_padded(model, h):
    with torch.no_grad():
        logits = model(h["ids"], h["pad"])
        pred = logits[torch.arange(len(h["target"])), h["pronoun"]].argmax(-1)
    return (pred == h["target"]).float().mean().item()


def variant_build(e, variant):
    """A fresh model with our initial weights and its optimiser, as step(indices) -> loss and
    evaluate() -> held-out accuracy for the variant. Tensor preparation happens here, untimed."""
    o = e["options"]
    model = model_build(e)
    opt = optimizer_build(model, o)
    data = e["data"]
    if variant == "loop":
        as_tensors = lambda ex: {"ids": torch.tensor([ex["ids"]]), "pronoun": ex["pronoun"],
                                 "target": torch.tensor([ex["target"]])}
        train = [as_tensors(ex) for ex in data["train"]]
        heldout = [as_tensors(ex) for ex in data["heldout"]]
        return (model, lambda idx: step_loop(model, opt, train, idx, o), lambda: accuracy_loop(model, heldout))
    train, heldout = padded(data["train"]), padded(data["heldout"])
    return (model, lambda idx: step_padded(model, opt, train, idx, o), lambda: accuracy_padded(model, heldout))


def trajectory_check(e, steps):
    """Max |torch - ours| of the per-step training loss over the first `steps` steps, per variant:
    checks the loss, gradients and optimiser (not only the forward) before anything is timed."""
    o, ours = e["options"], e["trajectory"]["loss"]
    n, out = len(e["data"]["train"]), {}
    for variant in VARIANTS:
        model, step, _ = variant_build(e, variant)
        model.train()
        k = min(steps, len(ours))
        out[variant] = max(abs(step(batch_indices(s, o["batch"], n)) - ours[s - 1]) for s in range(1, k + 1))
    return out


def train_once(e, variant, cap_s):
    """Time from the first step to the evaluation that reaches the target, as coref_train's clock.
    Gives up after cap_s seconds: with spinning libgomp threads on a busy machine a run can take hours."""
    o = e["options"]
    model, step, evaluate = variant_build(e, variant)
    n = len(e["data"]["train"])
    losses, evals, eval_s, capped = [], [], 0.0, False
    t0, c0 = time.perf_counter(), time.process_time()
    for s in range(1, o["max_steps"] + 1):
        if time.perf_counter() - t0 > cap_s:
            capped = True
            break
        model.train()
        losses.append(step(batch_indices(s, o["batch"], n)))
        if s % o["eval_every"] == 0 or s == o["max_steps"]:
            te = time.perf_counter()
            model.eval()
            acc = evaluate()
            eval_s += time.perf_counter() - te
            evals.append({"step": s, "heldout_accuracy": acc})
            if acc >= o["target_accuracy"]:
                break
    seconds, cpu_s = time.perf_counter() - t0, time.process_time() - c0
    last = evals[-1] if evals else {"step": len(losses), "heldout_accuracy": 0.0}
    return {"seconds": seconds, "cpu_s": cpu_s, "eval_s": eval_s, "steps": len(losses) if capped else last["step"],
            "heldout_accuracy": last["heldout_accuracy"], "capped": capped,
            "reached": not capped and last["heldout_accuracy"] >= o["target_accuracy"], "evaluations": evals,
            "losses": losses}


def torch_child_main(args):
    torch.set_num_threads(args.threads)
    e = export_load(args.export_dir)
    runs = []
    for _ in range(args.repeat):
        runs.append(train_once(e, args.variant, args.cap))
        if runs[-1]["capped"]:
            break  # the others would hit the cap too
    ours = e["trajectory"]["loss"]
    first = runs[0]["losses"]
    k = min(len(ours), len(first))
    diff = [abs(a - b) for a, b in zip(first[:k], ours[:k])]
    print(json.dumps({
        "variant": args.variant, "threads": torch.get_num_threads(),
        "runs": [{key: r[key] for key in ("seconds", "cpu_s", "eval_s", "steps", "heldout_accuracy", "reached",
                                          "capped")} for r in runs],
        "median_s": statistics.median(r["seconds"] for r in runs),
        "evaluations": runs[0]["evaluations"],
        # Where the two trajectories part: float sums in a different order drift apart over steps.
        "loss_diff_step1": diff[0] if diff else None,
        "loss_diff_max_first20": max(diff[:20]) if diff else None,
        "loss_diff_max_first100": max(diff[:100]) if diff else None,
    }))


# ---- the parent: export, check, run everything, print the table ----

def env_for(passive):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def run_checked(cmd, env, what):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    except OSError as err:
        sys.exit(f"coref_train_vs_torch.py: cannot run {what}: {err}")
    if done.returncode != 0:
        sys.exit(f"coref_train_vs_torch.py: {what} failed ({done.returncode}): {done.stderr.strip()}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def model_args(args):
    """Only the flags given: otherwise the binary's defaults (CorefTrainOptions{}, the shipped demo) hold."""
    flags = (("--seed", args.seed), ("--d-ff", args.d_ff), ("--heads", args.heads))
    return [x for flag, v in flags if v is not None for x in (flag, str(v))]


def ours_run(args, passive):
    lines = run_checked([args.bench_bin] + model_args(args) + ["--repeat", str(args.repeat)], env_for(passive),
                        "attnviz-bench-coref")
    return {"runs": lines[:-1], "summary": lines[-1]}


def torch_run(args, variant, passive):
    cmd = [sys.executable, os.path.abspath(__file__), "--torch-child", "--variant", variant, "--export-dir",
           args.export_dir, "--repeat", str(args.repeat), "--threads", str(args.threads), "--cap", str(args.cap)]
    return run_checked(cmd, env_for(passive), f"the torch {variant} run")[-1]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def table_row(name, r):
    """(label, median s, per-run s, median CPU s, steps, accuracy, eval s or None, capped)."""
    if name == "ours":
        m = r["summary"]
        return ("attnviz coref_train", m["median_loop_s"], [x["loop_s"] for x in r["runs"]], m["median_cpu_s"],
                m["steps"], m["heldout_accuracy"], None, False)
    runs = r["runs"]
    return (f"PyTorch {name}", r["median_s"], [x["seconds"] for x in runs],
            statistics.median(x["cpu_s"] for x in runs), runs[0]["steps"], runs[0]["heldout_accuracy"],
            statistics.median(x["eval_s"] for x in runs), any(x["capped"] for x in runs))


def print_table(results, cap):
    print(f"\n{'':<20} {'policy':<8} {'median s':>9}  {'runs s':<21} {'CPU s':>6} {'steps':>5} {'held-out':>8} "
          f"{'eval s':>6} {'ours/this':>9}")
    for policy in ("default", "passive"):
        ours = results[("ours", policy)]["summary"]["median_loop_s"]
        for name in ("ours",) + VARIANTS:
            label, med, runs, cpu, steps, acc, ev, capped = table_row(name, results[(name, policy)])
            med_cell = f">{cap:.0f}" if capped else f"{med:.3f}"
            ratio = f"<{ours / med:.3f}" if capped else f"{ours / med:.2f}"
            ev_cell = "" if ev is None else f"{ev:.2f}"
            acc_cell = "capped" if capped else f"{100 * acc:.2f}%"
            print(f"{label:<20} {policy:<8} {med_cell:>9}  {' '.join(f'{x:.2f}' for x in runs):<21} {cpu:6.2f} "
                  f"{steps:>5} {acc_cell:>8} {ev_cell:>6} {ratio:>9}")
    print(f"\nseconds: first training step to the evaluation that reaches the target (evaluations included); "
          f"CPU s: all threads.\nours/this < 1: attnviz is faster. Goal: attnviz under {GOAL_SECONDS:.1f} s.")


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-bin", default=os.path.join(repo, "build", "bench", "attnviz-bench-coref"))
    ap.add_argument("--export-dir", default=None, help="where the export goes (default: a temporary directory)")
    # None: the binary's own defaults, the shipped demo (seed 26, d_ff 0 = attention only, 4 heads, C 32).
    ap.add_argument("--seed", type=int, default=None, help="default: the binary's (the shipped demo's)")
    ap.add_argument("--d-ff", type=int, default=None, help="0: attention-only layers; default: the binary's")
    ap.add_argument("--heads", type=int, default=None, help="default: the binary's")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cap", type=float, default=120.0, help="give up a torch run after this many seconds")
    ap.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--variant", choices=VARIANTS, default="padded", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_child:
        torch_child_main(args)
        return

    with tempfile.TemporaryDirectory(prefix="coref_bench_") as tmp:
        args.export_dir = args.export_dir or tmp
        run_checked([args.bench_bin] + model_args(args) + ["--repeat", "1", "--export", args.export_dir],
                    env_for(False), "attnviz-bench-coref --export")
        e = export_load(args.export_dir)
        o = e["options"]
        ffn = "attention only" if o["d_ff"] == 0 else f"F={o['d_ff']}"
        print(f"PyTorch {torch.__version__}, {args.threads} threads; seed {o['seed']}, model C={o['d_model']} "
              f"NH={o['n_heads']} L={o['n_layers']} {ffn} V={o['vocab_size']}; batch {o['batch']}, lr {o['lr']}, "
              f"eval every {o['eval_every']} steps, target {100 * o['target_accuracy']:.0f}% held-out; "
              f"{len(e['data']['train'])} train / {len(e['data']['heldout'])} held-out examples; "
              f"median of {args.repeat}")
        blas = blas_report()
        print(f"  BLAS alternative: {blas['alternative']}; mapped after a matmul: {', '.join(blas['mapped']) or 'none'}")
        torch.set_num_threads(1)  # the checks are about numbers, not speed: keep them off the busy cores
        diffs = forward_check(e)
        worst = max(diffs.values())
        print("initial logits, max |torch - ours|: " + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items()) +
              f" ({'ok' if worst <= LOGITS_TOLERANCE else 'ABOVE'} {LOGITS_TOLERANCE:g})")
        if worst > LOGITS_TOLERANCE:
            sys.exit("coref_train_vs_torch.py: the PyTorch model does not reproduce ours; timings would mean nothing")
        loss_diffs = trajectory_check(e, LOSS_CHECK_STEPS)
        worst = max(loss_diffs.values())
        print(f"training loss over the first {LOSS_CHECK_STEPS} steps, max |torch - ours|: " +
              ", ".join(f"{k} {v:.2e}" for k, v in loss_diffs.items()) +
              f" ({'ok' if worst <= LOSS_TOLERANCE else 'ABOVE'} {LOSS_TOLERANCE:g})")
        if worst > LOSS_TOLERANCE:
            sys.exit("coref_train_vs_torch.py: PyTorch does not train like ours; timings would mean nothing")
        load_before = load_average()
        results = {}
        for passive in (False, True):
            policy = "passive" if passive else "default"
            results[("ours", policy)] = ours_run(args, passive)
            for variant in VARIANTS:
                results[(variant, policy)] = torch_run(args, variant, passive)
        load_after = load_average()

    print_table(results, args.cap)
    print("attnviz whole coref_train call (model init + data generation + loop), median: " + ", ".join(
        f"{p} {results[('ours', p)]['summary']['median_total_s']:.3f} s" for p in ("default", "passive")))
    print(f"load average (1/5/15 min) before {load_before}, after {load_after}; {os.cpu_count()} CPUs")
    for variant in VARIANTS:
        r = results[(variant, "passive")]
        print(f"PyTorch {variant} vs our per-step loss: step 1 {r['loss_diff_step1']:.2e}, max over the first 20 "
              f"steps {r['loss_diff_max_first20']:.2e}, first 100 {r['loss_diff_max_first100']:.2e}; evaluations " +
              ", ".join(f"{x['step']}: {100 * x['heldout_accuracy']:.2f}%" for x in r["evaluations"]))
    ours_evals = e["trajectory"]["evaluations"]
    print("ours evaluations: " + ", ".join(f"{x['step']}: {100 * x['heldout_accuracy']:.2f}%" for x in ours_evals))


if __name__ == "__main__":
    main()
