#!/usr/bin/python3
"""Writes a GPT-2-small-sized checkpoint folder for the load / forward / memory benchmark: 124M random
parameters in the GPT2LMHeadModel layout as one F32 model.safetensors (~500 MB), config.json, and a
synthetic byte-level BPE vocab.json + merges.txt of GPT-2's size (50257 entries). Not a real model.

    /usr/bin/python3 bench/make_gpt2_small.py DIR [--seed 0]

The safetensors file is written tensor by tensor in row chunks, so Python holds at most ~25 MB of weights.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures"))
from make_hf_checkpoints import bytes_to_unicode  # noqa: E402  (GPT-2's byte table, written once)

VOCAB, C, NH, L, P = 50257, 768, 12, 12, 1024
FF = 4 * C
EOT = "<|endoftext|>"
CHUNK_FLOATS = 1 << 22   # 16 MB of float32 per generated chunk


def tensor_specs():
    """(name, shape, init) in GPT2LMHeadModel's naming; init is "normal" (N(0, 0.02)), "ones" or "zeros"."""
    specs = [("transformer.wte.weight", (VOCAB, C), "normal"), ("transformer.wpe.weight", (P, C), "normal")]
    for i in range(L):
        p = f"transformer.h.{i}."
        specs += [(p + "ln_1.weight", (C,), "ones"), (p + "ln_1.bias", (C,), "zeros"),
                  (p + "attn.c_attn.weight", (C, 3 * C), "normal"), (p + "attn.c_attn.bias", (3 * C,), "zeros"),
                  (p + "attn.c_proj.weight", (C, C), "normal"), (p + "attn.c_proj.bias", (C,), "zeros"),
                  (p + "ln_2.weight", (C,), "ones"), (p + "ln_2.bias", (C,), "zeros"),
                  (p + "mlp.c_fc.weight", (C, FF), "normal"), (p + "mlp.c_fc.bias", (FF,), "zeros"),
                  (p + "mlp.c_proj.weight", (FF, C), "normal"), (p + "mlp.c_proj.bias", (C,), "zeros")]
    specs += [("transformer.ln_f.weight", (C,), "ones"), ("transformer.ln_f.bias", (C,), "zeros")]
    return specs


def write_safetensors(path, seed):
    specs = sorted(tensor_specs())   # all F32: HF's writer orders equal dtypes by name
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape, _ in specs:
        nbytes = int(np.prod(shape)) * 4
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for k, (name, shape, init) in enumerate(specs):
            rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])
            step = max(1, CHUNK_FLOATS // cols)
            rng = np.random.default_rng([seed, k])   # one stream per tensor: reproducible, order-independent
            for r in range(0, rows, step):
                n = min(step, rows - r)
                if init == "normal":
                    chunk = rng.standard_normal((n, cols), dtype=np.float32) * np.float32(0.02)
                else:
                    chunk = np.full((n, cols), 1.0 if init == "ones" else 0.0, dtype="<f4")
                f.write(chunk.astype("<f4", copy=False).tobytes())
    os.replace(tmp, path)
    return len(text), offset


def synthetic_merges(seed, n_merges):
    """n_merges byte-level merges over GPT-2's 256 byte symbols: each joins two tokens already in the
    vocabulary into a new one (their concatenation), biased toward word-like tokens ("Ġ" + letters)."""
    from_bytes, _ = bytes_to_unicode()
    letters = [from_bytes[b] for b in range(ord("a"), ord("z") + 1)]
    starts = letters + [from_bytes[b] for b in range(ord("A"), ord("Z") + 1)] + [from_bytes[0x20]]
    vocab = set(from_bytes.values())
    pool = list(starts)          # tokens that grow further
    merges = []
    rng = np.random.default_rng([seed, 1 << 20])
    while len(merges) < n_merges:
        a = pool[int(rng.integers(len(pool)))] if rng.random() < 0.8 else starts[int(rng.integers(len(starts)))]
        b = letters[int(rng.integers(len(letters)))] if rng.random() < 0.9 else pool[int(rng.integers(len(pool)))]
        if a + b in vocab or len(a + b) > 16:
            continue
        merges.append((a, b))
        vocab.add(a + b)
        pool.append(a + b)
    return merges


def write_tokenizer(folder, seed):
    table, _ = bytes_to_unicode()
    order = [b for b in range(256) if table[b] == chr(b)] + [b for b in range(256) if table[b] != chr(b)]
    vocab = {table[b]: i for i, b in enumerate(order)}
    merges = synthetic_merges(seed, VOCAB - 256 - 1)
    for a, b in merges:
        vocab[a + b] = len(vocab)
    vocab[EOT] = len(vocab)
    assert len(vocab) == VOCAB
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("#version: 0.2\n")
        f.writelines(f"{a} {b}\n" for a, b in merges)


def write_config(folder):
    config = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
              "bos_token_id": VOCAB - 1, "embd_pdrop": 0.1, "eos_token_id": VOCAB - 1, "initializer_range": 0.02,
              "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": P, "n_embd": C, "n_head": NH,
              "n_layer": L, "n_positions": P, "resid_pdrop": 0.1, "torch_dtype": "float32", "vocab_size": VOCAB}
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)


def check(folder):
    """Header re-read: every tensor present with its shape, contiguous, and the file exactly that long."""
    path = os.path.join(folder, "model.safetensors")
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        header.pop("__metadata__")
        specs = {name: list(shape) for name, shape, _ in tensor_specs()}
        assert {k: v["shape"] for k, v in header.items()} == specs
        pos = 0
        for info in sorted(header.values(), key=lambda v: v["data_offsets"][0]):
            assert info["data_offsets"][0] == pos
            pos = info["data_offsets"][1]
        assert os.path.getsize(path) == 8 + n + pos
        f.seek(8 + n)
        sample = np.frombuffer(f.read(4096 * 4), dtype="<f4")
        assert np.isfinite(sample).all()
    params = sum(int(np.prod(s)) for s in specs.values())
    return params, pos


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    write_config(args.dir)
    write_tokenizer(args.dir, args.seed)
    write_safetensors(os.path.join(args.dir, "model.safetensors"), args.seed)
    params, nbytes = check(args.dir)
    print(f"make_gpt2_small.py: {args.dir}: {params:,} parameters, {nbytes / 2**20:.1f} MB of F32 weights",
          file=sys.stderr)


if __name__ == "__main__":
    main()
