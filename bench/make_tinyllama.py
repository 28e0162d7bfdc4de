#!/usr/bin/python3
"""Writes a TinyLlama-1.1B-shaped checkpoint folder for the scale benchmark (bench/llama_scale_vs_torch.py):
config.json as transformers wrote it for TinyLlama-1.1B (LlamaForCausalLM, 22 layers x 32 heads, 4 key/value
heads, C 2048, F 5632, vocab 32000, untied lm_head) and ONE model.safetensors of 1,100,048,384 random BF16
parameters (about 2.2 GB) in the published layout: "model." names plus a separate lm_head.weight, every tensor
BF16, HF's order (equal dtypes by name), header padded with spaces to a multiple of 8, {"format": "pt"}.
Not a real model, and no tokenizer files (the engine then uses stand-in words "#id", as for tests/fixtures/families).

    /usr/bin/python3 bench/make_tinyllama.py OUT_DIR [--seed 0]

Values are scaled like a trained model's: matrices N(0, 0.02), RMSNorm weights 1 + N(0, 0.02). Each tensor has
its own random stream (numpy's default_rng([seed, tensor index])) and is generated and written in chunks of
about 4M values, so the script holds ~50 MB of arrays at a time. The same seed gives the same bytes.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

# TinyLlama/TinyLlama-1.1B-Chat-v1.0's config.json (transformers 4.35's LlamaConfig.save_pretrained key set).
CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 5632,
    "max_position_embeddings": 2048,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 22,
    "num_key_value_heads": 4,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.35.0",
    "use_cache": True,
    "vocab_size": 32000,
}
CHUNK_VALUES = 1 << 22   # values generated at a time (16 MB as float32)
STD = 0.02


def bf16_bits(a):
    """float32 -> bfloat16 bits (uint16): the upper half of the float32 with round-to-nearest-even, as torch's
    .to(torch.bfloat16) does. NaN stays a (quiet) NaN; overflow rounds to infinity like any IEEE rounding."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = (u + (np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))) >> np.uint32(16)
    nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    if nan.any():
        rounded = np.where(nan, (u >> np.uint32(16)) | np.uint32(0x40), rounded)
    return rounded.astype("<u2")


def tensor_specs(cfg=CONFIG):
    """(name, shape, init) in LlamaForCausalLM's naming; init "normal" (N(0, 0.02)) or "norm" (1 + N(0, 0.02))."""
    c, f, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    kv = cfg["num_key_value_heads"] * (c // cfg["num_attention_heads"])
    specs = [("model.embed_tokens.weight", (v, c), "normal"), ("model.norm.weight", (c,), "norm"),
             ("lm_head.weight", (v, c), "normal")]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        specs += [(p + "input_layernorm.weight", (c,), "norm"), (p + "post_attention_layernorm.weight", (c,), "norm"),
                  (p + "self_attn.q_proj.weight", (c, c), "normal"), (p + "self_attn.k_proj.weight", (kv, c), "normal"),
                  (p + "self_attn.v_proj.weight", (kv, c), "normal"), (p + "self_attn.o_proj.weight", (c, c), "normal"),
                  (p + "mlp.gate_proj.weight", (f, c), "normal"), (p + "mlp.up_proj.weight", (f, c), "normal"),
                  (p + "mlp.down_proj.weight", (c, f), "normal")]
    return specs


def write_safetensors(path, seed):
    # The tensor index k (the stream) is the spec order above, fixed whatever the file order is.
    specs = [(name, shape, init, k) for k, (name, shape, init) in enumerate(tensor_specs())]
    specs.sort(key=lambda s: s[0])   # all BF16: HF's writer orders equal dtypes by name
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape, _, _ in specs:
        nbytes = int(np.prod(shape)) * 2
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape, init, k in specs:
            rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])
            step = max(1, CHUNK_VALUES // cols)
            rng = np.random.default_rng([seed, k])
            for r in range(0, rows, step):
                n = min(step, rows - r)
                chunk = rng.standard_normal((n, cols), dtype=np.float32)
                chunk *= np.float32(STD)
                if init == "norm":
                    chunk += np.float32(1.0)
                f.write(bf16_bits(chunk).tobytes())
    os.replace(tmp, path)
    return offset // 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(CONFIG, f, indent=2, sort_keys=True)
        f.write("\n")
    params = write_safetensors(os.path.join(args.out_dir, "model.safetensors"), args.seed)
    print(f"{args.out_dir}: {params:,} BF16 parameters, {params * 2 / 1e9:.2f} GB "
          f"(F32: {params * 4 / 2**30:.2f} GiB)", file=sys.stderr)


if __name__ == "__main__":
    main()
