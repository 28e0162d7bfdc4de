#!/usr/bin/python3
"""Writes Llama-3.2-1B-shaped GGUF files of random weights for bench/gguf_vs_llamacpp.sh, in the layout
llama.cpp's convert_hf_to_gguf.py (Q8_0) and llama-quantize (Q4_K_M) write: arch llama, C 2048, 16 layers,
32 heads with 8 key/value heads, F 8192, vocab 128256, rope base 500000 with Llama 3.1's scaling as the
rope_freqs.weight tensor, output tied to token_embd (no output.weight), and a "gpt2" / "llama-bpe" tokenizer.

    /usr/bin/python3 bench/make_gguf_bench_model.py [--out /tmp/attnviz-bench] [--variants q8_0,q4_k_m]
                                                    [--shape 1b|8b]

--shape 8b writes Llama-3.1-8B's shape instead, to llama-3.1-8b-shape-VARIANT.gguf: C 4096, 32 layers, 32 heads
with 8 key/value heads (head_dim 128), F 14336, the same vocabulary and tokenizer, rope base 500000 with
Llama 3.1 8B's rope_freqs (factor 8, low 1, high 4, original context 8192), and its own output.weight (not
tied), as the real 8B's files have; no attention.key_length / value_length keys (the converter writes them
only when config.json has head_dim, which Llama 3.1 8B's has not). Its Q4_K_M follows llama-quantize's
choice as it is: output.weight Q6_K, token_embd Q4_K (untied, it is not the output), attn_v and ffn_down
Q6_K only in the layers use_more_bits picks (0-3, 6, 9, ..., 27, 28-31: 16 of 32), the rest Q4_K; its
Q8_0 is every matrix Q8_0, output.weight too. About 4.9 GB (Q4_K_M) or 8.5 GB (Q8_0); the script refuses
to start a file the disk has no room for. The 1B files are unchanged (same bytes as before --shape).

Variants: q8_0 (every matrix Q8_0, 1.3 GB) and q4_k_m (Q4_K, with Q6_K for attn_v, ffn_down and token_embd
in every layer: llama-quantize's Q4_K_M gives Q6_K to only some layers' attn_v / ffn_down, so this file is a
little larger than a real one). The metadata keys, their order and tensor names are tests/fixtures/
make_gguf_models.py's (which read them off convert_hf_to_gguf.py and llama-quantize), with the
attention.key_length / value_length keys the converter writes for Llama 3.2.

Blocks are random but valid, not quantized floats: random quant bytes with every f16 scale overwritten
so that the dequantized weights have a standard deviation near 0.02 (Q8_0: d ~ 2.7e-4; Q4_K: d ~ 9e-5 with
dmin ~ 7e-4 so that blocks centre near 0; Q6_K: d ~ 1.5e-5). Norm weights are F32 1 + N(0, 0.02).

Tokenizer: ids 0..255 are the 256 byte symbols (GPT-2's bytes_to_unicode order), 256..65791 every pair of
them (merge "a b"), 65792..127999 the first 243 pairs each followed by one byte symbol (merge "ab c"), so
every token is one merge of two earlier ones; 128000 <|begin_of_text|> (BOS), 128001 <|end_of_text|> (EOS)
and 128002..128255 <|reserved_special_token_N|>, all type 3 (control), as in Llama 3's vocabulary.

Tensor data is streamed: each tensor is generated in pieces of at most 32 MB and written, so memory stays
near the tokenizer's metadata (about 10 MB) whatever the file's size. The container is
tests/fixtures/make_gguf_fixtures.py's layout (its string and value encoders are used, and --self-check
writes a small model through both its build_gguf and this streaming writer and compares the bytes).
Deterministic: each tensor's bytes come from a seed derived from its name; a re-run writes the same file.
"""
import argparse
import math
import os
import shutil
import struct
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fixtures"))
import make_gguf_fixtures as g  # noqa: E402

SEED = 20261130
F32 = np.float32
STR, U32, I32, F32V, BOOL, ARR = g.STRING, g.UINT32, g.INT32, g.FLOAT32, g.BOOL, g.ARRAY
TYPE_ID = {name: v[0] for name, v in g.TYPES.items()}
NORMAL, CONTROL = 1, 3
FTYPE = {"q8_0": 7, "q4_k_m": 15}      # llama_ftype: MOSTLY_Q8_0, MOSTLY_Q4_K_M
ALIGNMENT = 32                           # general.alignment is not written: GGUF's default

# tied: no output.weight (token_embd is the output); head_dim_keys: attention.key_length / value_length
# written; q6k: which layers' attn_v / ffn_down Q4_K_M stores as Q6_K ("all", or "use_more_bits":
# llama-quantize's choice).
LLAMA_3_2_1B = dict(C=2048, L=16, NH=32, NKV=8, F=8192, V=128256, ctx=131072, eps=1e-5, theta=500000.0,
                    rope=dict(factor=32.0, low=1.0, high=4.0, original=8192),
                    name="Llama-3.2-1B", file="llama-3.2-1b-shape", tied=True, head_dim_keys=True, q6k="all")
LLAMA_3_1_8B = dict(C=4096, L=32, NH=32, NKV=8, F=14336, V=128256, ctx=131072, eps=1e-5, theta=500000.0,
                    rope=dict(factor=8.0, low=1.0, high=4.0, original=8192),
                    name="Llama-3.1-8B", file="llama-3.1-8b-shape", tied=False, head_dim_keys=False,
                    q6k="use_more_bits")
SHAPES = {"1b": LLAMA_3_2_1B, "8b": LLAMA_3_1_8B}

ROLES = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]
HF_NAME = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
           "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
           "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm"}


def use_more_bits(layer, n_layers):
    """llama-quantize's use_more_bits (llama_tensor_get_type): the layers Q4_K_M gives Q6_K attn_v / ffn_down."""
    return layer < n_layers // 8 or layer >= 7 * n_layers // 8 or (layer - n_layers // 8) % 3 == 2


def matrix_type(cfg, variant, role, layer=None):
    """role: a layer's ROLES entry (with its layer), "token_embd" or "output"."""
    if variant == "q8_0":
        return "Q8_0"
    if role == "output" or (role == "token_embd" and cfg.get("tied", True)):
        return "Q6_K"                               # the output head, or token_embd when it is the output
    if role in ("attn_v", "ffn_down"):
        if cfg.get("q6k", "all") == "all" or use_more_bits(layer, cfg["L"]):
            return "Q6_K"
    return "Q4_K"


# ---------------------------------------------------------------------------------------------------
# The tokenizer

def vocabulary(V):
    """(tokens, types, merges, bos, eos) for a vocabulary of V = 128256 (or a smaller one for the self-check:
    the same construction cut short, with the two specials last)."""
    sym = [ch for _, ch in g.bytes_to_unicode()]  # GPT-2's byte symbols, in id order
    n_merged = V - 256 - 256 if V >= 128256 else V - 256 - 2       # 256 specials in Llama 3's vocabulary
    tokens, merges = list(sym), []
    pairs = 0
    for a in sym:                                  # every pair of byte symbols, then pair + symbol
        for b in sym:
            if len(merges) == n_merged:
                break
            tokens.append(a + b)
            merges.append(a + " " + b)
            pairs += 1
        if len(merges) == n_merged:
            break
    k = 0
    while len(merges) < n_merged:
        left = tokens[256 + k // 256]
        right = sym[k % 256]
        tokens.append(left + right)
        merges.append(left + " " + right)
        k += 1
    types = [NORMAL] * len(tokens)
    specials = ["<|begin_of_text|>", "<|end_of_text|>"]
    specials += ["<|reserved_special_token_%d|>" % i for i in range(V - len(tokens) - 2)]
    bos = len(tokens)
    tokens += specials
    types += [CONTROL] * len(specials)
    assert len(tokens) == V and len(set(tokens)) == V
    return tokens, types, merges, bos, bos + 1


# ---------------------------------------------------------------------------------------------------
# Metadata and tensor list

def rope_freq_factors(cfg):
    """convert_hf_to_gguf.py LlamaModel.generate_extra_tensors for rope_type llama3: its float32 freqs, its
    Python-float loop."""
    r = cfg["rope"]
    HS = cfg["C"] // cfg["NH"]
    freqs = F32(1.0) / (F32(cfg["theta"]) ** (np.arange(0, HS, 2, dtype=F32) / F32(HS)))
    low_wl, high_wl = r["original"] / r["low"], r["original"] / r["high"]
    out = []
    for freq in freqs:
        wavelen = 2 * math.pi / float(freq)
        if wavelen < high_wl:
            out.append(1)
        elif wavelen > low_wl:
            out.append(r["factor"])
        else:
            smooth = (r["original"] / wavelen - r["low"]) / (r["high"] - r["low"])
            out.append(1 / ((1 - smooth) / r["factor"] + smooth))
    return np.array(out, dtype=F32)


def metadata(cfg, variant):
    HS = cfg["C"] // cfg["NH"]
    tokens, types, merges, bos, eos = vocabulary(cfg["V"])
    head = [("general.architecture", STR, "llama"), ("general.type", STR, "model"),
            ("general.name", STR, "attnviz bench " + cfg.get("name", "Llama-3.2-1B") + " shape " + variant)]
    params = [("llama.block_count", U32, cfg["L"]), ("llama.context_length", U32, cfg["ctx"]),
              ("llama.embedding_length", U32, cfg["C"]), ("llama.feed_forward_length", U32, cfg["F"]),
              ("llama.attention.head_count", U32, cfg["NH"]), ("llama.attention.head_count_kv", U32, cfg["NKV"]),
              ("llama.rope.freq_base", F32V, float(F32(cfg["theta"]))),
              ("llama.attention.layer_norm_rms_epsilon", F32V, float(F32(cfg["eps"])))]
    if cfg.get("head_dim_keys", True):
        params += [("llama.attention.key_length", U32, HS), ("llama.attention.value_length", U32, HS)]
    ftype = [("general.file_type", U32, FTYPE[variant])]
    extra = [("llama.vocab_size", U32, cfg["V"]), ("llama.rope.dimension_count", U32, HS)]
    vocab = [("tokenizer.ggml.model", STR, "gpt2"), ("tokenizer.ggml.pre", STR, "llama-bpe"),
             ("tokenizer.ggml.tokens", ARR, (STR, tokens)), ("tokenizer.ggml.token_type", ARR, (I32, types)),
             ("tokenizer.ggml.merges", ARR, (STR, merges)),
             ("tokenizer.ggml.bos_token_id", U32, bos), ("tokenizer.ggml.eos_token_id", U32, eos),
             ("tokenizer.ggml.add_bos_token", BOOL, True), ("tokenizer.ggml.add_eos_token", BOOL, False)]
    qv = [("general.quantization_version", U32, 2)]
    if variant == "q4_k_m":                        # llama-quantize re-appends these two at the end
        return head + params + extra + vocab + qv + ftype
    return head + params + ftype + extra + vocab + qv


def tensor_list(cfg, variant):
    """[(gguf name, HF name or None, ne, ggml type name)] in the writer's order."""
    C, F, L = cfg["C"], cfg["F"], cfg["L"]
    KV = cfg["NKV"] * (C // cfg["NH"])
    rows = {"attn_q": C, "attn_k": KV, "attn_v": KV, "attn_output": C, "ffn_gate": F, "ffn_up": F, "ffn_down": C}
    items = [("rope_freqs.weight", None, [C // cfg["NH"] // 2], "F32"),
             ("token_embd.weight", "model.embed_tokens.weight", [C, cfg["V"]], matrix_type(cfg, variant, "token_embd"))]
    if not cfg.get("tied", True):
        items.append(("output.weight", "lm_head.weight", [C, cfg["V"]], matrix_type(cfg, variant, "output")))
    for layer in range(L):
        p = f"model.layers.{layer}."
        items.append((f"blk.{layer}.attn_norm.weight", p + HF_NAME["attn_norm"] + ".weight", [C], "F32"))
        for role in ROLES:
            cols = F if role == "ffn_down" else C
            items.append((f"blk.{layer}.{role}.weight", p + HF_NAME[role] + ".weight", [cols, rows[role]],
                          matrix_type(cfg, variant, role, layer)))
        items.append((f"blk.{layer}.ffn_norm.weight", p + HF_NAME["ffn_norm"] + ".weight", [C], "F32"))
    items.append(("output_norm.weight", "model.norm.weight", [C], "F32"))
    if variant == "q4_k_m":
        # llama-quantize: the loader's weights_map order (non-block tensors by name, then blk.0.*, ... by name)
        def key(it):
            name = it[0]
            return (int(name.split(".")[1]) if name.startswith("blk.") else -1, name.encode())
        return sorted(items, key=key)
    # convert_hf_to_gguf.py: generated tensors first, then the checkpoint's in its order (by HF name)
    gen = [it for it in items if it[1] is None]
    return gen + sorted([it for it in items if it[1] is not None], key=lambda it: it[1].encode())


# ---------------------------------------------------------------------------------------------------
# Blocks: random bytes, f16 scales overwritten (see the docstring for the sizes)

def f16_field(rng, n, base, signed):
    s = rng.uniform(0.8, 1.2, n) * base
    if signed:
        s *= np.where(rng.integers(0, 2, n) == 1, 1.0, -1.0)
    return s.astype("<f2").view(np.uint8).reshape(n, 2)


def random_blocks(rng, tname, nblocks):
    _, _, nb = g.TYPES[tname]
    b = np.frombuffer(rng.bytes(nblocks * nb), dtype=np.uint8).reshape(nblocks, nb).copy()
    if tname == "Q8_0":
        b[:, 0:2] = f16_field(rng, nblocks, 2.7e-4, True)
    elif tname == "Q4_K":
        b[:, 0:2] = f16_field(rng, nblocks, 9.2e-5, False)    # d
        b[:, 2:4] = f16_field(rng, nblocks, 6.9e-4, False)    # dmin: d·E[sc·q] / E[m], so blocks centre near 0
    elif tname == "Q6_K":
        b[:, 208:210] = f16_field(rng, nblocks, 1.46e-5, True)
    else:
        raise ValueError(tname)
    return b


def tensor_seed(name):
    return np.random.default_rng([SEED, zlib.crc32(name.encode())])


def tensor_pieces(cfg, name, ne, tname, piece_bytes=32 << 20):
    """The tensor's bytes, a piece (whole rows) at a time. The random stream is drawn piece by piece, so the
    piece size is part of what the bytes are: change it and every file changes."""
    rng = tensor_seed(name)
    if name == "rope_freqs.weight":
        yield rope_freq_factors(cfg).astype("<f4").tobytes()
        return
    if tname == "F32":
        yield (F32(1) + rng.standard_normal(ne[0]).astype(F32) * F32(0.02)).astype("<f4").tobytes()
        return
    _, nv, nb = g.TYPES[tname]
    per_row = ne[0] // nv
    rows_left = int(np.prod(ne[1:]))
    step = max(1, piece_bytes // (per_row * nb))
    while rows_left:
        r = min(step, rows_left)
        yield random_blocks(rng, tname, r * per_row).tobytes()
        rows_left -= r


def tensor_nbytes(ne, tname):
    _, nv, nb = g.TYPES[tname]
    return int(np.prod(ne)) // nv * nb


# ---------------------------------------------------------------------------------------------------
# The streaming writer: build_gguf's layout (header, key/values, tensor infos, zero padding to the
# alignment, each tensor at the next multiple of it, the data section padded at the end)

def write_gguf_streaming(path, kvs, infos, pieces_of):
    """infos: [(name, ne, ggml type name)]; pieces_of(i) yields tensor i's bytes."""
    offsets, at = [], 0
    for _, ne, tname in infos:
        offsets.append(at)
        at = g.align_up(at + tensor_nbytes(ne, tname), ALIGNMENT)
    head = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kvs)))
    for key, vtype, value in kvs:
        head += g.enc_string(key) + struct.pack("<I", vtype) + g.enc_value(vtype, value)
    for (name, ne, tname), off in zip(infos, offsets):
        head += g.enc_string(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
        head += struct.pack("<IQ", TYPE_ID[tname], off)
    data_offset = g.align_up(len(head), ALIGNMENT)
    head += bytes(data_offset - len(head))
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(head)
        written = 0
        for i, ((name, ne, tname), off) in enumerate(zip(infos, offsets)):
            f.write(bytes(off - written))
            n = 0
            for piece in pieces_of(i):
                f.write(piece)
                n += len(piece)
            assert n == tensor_nbytes(ne, tname), (name, n)
            written = off + n
        f.write(bytes(g.align_up(written, ALIGNMENT) - written))
    os.replace(tmp, path)
    return data_offset


def write_model(path, cfg, variant):
    kvs = metadata(cfg, variant)
    items = tensor_list(cfg, variant)
    infos = [(name, ne, tname) for name, _, ne, tname in items]
    write_gguf_streaming(path, kvs, infos, lambda i: tensor_pieces(cfg, infos[i][0], infos[i][1], infos[i][2]))
    return kvs, infos


# ---------------------------------------------------------------------------------------------------
# Checks

SMALL = dict(C=256, L=2, NH=4, NKV=2, F=512, V=256 + 300 + 2, ctx=131072, eps=1e-5, theta=500000.0,
             rope=LLAMA_3_2_1B["rope"])
# The 8B's choices on the small shape: untied output, no key_length keys, use_more_bits (layer 1 Q6_K, 0 Q4_K).
SMALL_UNTIED = dict(SMALL, rope=LLAMA_3_1_8B["rope"], name="small untied", tied=False, head_dim_keys=False,
                    q6k="use_more_bits")


def self_check(tmpdir):
    """A small model through build_gguf (in memory) and the streaming writer: the same bytes; then read back
    with make_gguf_fixtures.py's independent parser and dequantizers: every value finite, std near 0.02."""
    for small, variant in ((s, v) for s in (SMALL, SMALL_UNTIED) for v in ("q8_0", "q4_k_m")):
        path = os.path.join(tmpdir, f"self_check_{variant}.gguf")
        kvs, infos = write_model(path, small, variant)
        tensors = [(name, ne, TYPE_ID[tname], b"".join(tensor_pieces(small, name, ne, tname)))
                   for name, ne, tname in infos]
        ref, _ = g.build_gguf(kvs, tensors, ALIGNMENT)
        with open(path, "rb") as f:
            mine = f.read()
        assert mine == ref, f"{variant}: the streaming writer's bytes differ from build_gguf's"
        parsed = g.parse_gguf(mine)
        for t in parsed["tensors"]:
            v = g.dequantize(t["type"], t["data"])
            assert np.isfinite(v).all(), t["name"]
            if t["type"] != "F32":
                assert 0.01 < float(v.std()) < 0.04 and abs(float(v.mean())) < 0.01, (t["name"], v.std(), v.mean())
        os.remove(path)
        if small is SMALL_UNTIED:
            types = {name: tname for name, _, tname in infos}
            assert "output.weight" in types and not any(k.endswith("key_length") for k, _, _ in kvs)
            if variant == "q4_k_m":
                assert (types["output.weight"], types["token_embd.weight"]) == ("Q6_K", "Q4_K"), types
                assert [types[f"blk.{i}.attn_v.weight"] for i in range(2)] == ["Q4_K", "Q6_K"], types
    print("self-check: streaming writer = build_gguf on small models (tied and untied, both variants); values "
          "finite, std ~0.02")


class MappedRaw:
    """The mapped file as parse_gguf reads it, without copies: mmap's slices are bytes (a 4.9 GB file read
    back took 4.9 GB of copies), so slices past 1 MB (tensor data) are memoryviews of the mapping instead."""

    def __init__(self, mm):
        self.view = memoryview(mm)

    def __len__(self):
        return len(self.view)

    def __getitem__(self, key):
        part = self.view[key]
        return part if isinstance(key, slice) and len(part) > (1 << 20) else bytes(part)


def read_back(raw, kvs, infos):
    parsed = g.parse_gguf(raw)
    assert [(k, t) for k, t, _ in parsed["kvs"]] == [(k, t) for k, t, _ in kvs]
    assert [(t["name"], list(t["ne"]), t["type"]) for t in parsed["tensors"]] == \
        [(name, list(ne), tname) for name, ne, tname in infos]
    stds = []
    for t in parsed["tensors"]:
        if t["type"] == "F32":
            continue
        _, nv, nb = g.TYPES[t["type"]]
        row = t["ne"][0] // nv * nb
        for chunk in (t["data"][:row], t["data"][-row:]):
            v = g.dequantize(t["type"], bytes(chunk))
            assert np.isfinite(v).all(), t["name"]
            stds.append(float(v.std()))
    return min(stds), max(stds)


def check_written(path, kvs, infos):
    """Reads the big file back through the independent parser (mapped, not copied) and dequantizes the first
    and last rows' blocks of every matrix."""
    import mmap
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        raw = MappedRaw(mm)
        try:
            return read_back(raw, kvs, infos)   # every view of the mapping is gone when it returns
        finally:
            raw.view.release()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="/tmp/attnviz-bench")
    ap.add_argument("--variants", default="q8_0,q4_k_m")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="1b",
                    help="1b: Llama-3.2-1B's shape (the default); 8b: Llama-3.1-8B's, with its own output.weight")
    ap.add_argument("--self-check", action="store_true", help="only the small-model check")
    ap.add_argument("--no-read-back", action="store_true", help="skip reading the written files back")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    self_check(a.out)
    if a.self_check:
        return
    cfg = SHAPES[a.shape]
    for variant in a.variants.split(","):
        path = os.path.join(a.out, f"{cfg['file']}-{variant}.gguf")
        need = sum(tensor_nbytes(ne, tname) for _, _, ne, tname in tensor_list(cfg, variant))
        free = shutil.disk_usage(a.out).free + (os.path.getsize(path) if os.path.exists(path) else 0)
        if free < need + (1 << 30):
            sys.exit(f"{path}: needs {need / 1e9:.2f} GB plus 1 GiB to spare, the disk has {free / 1e9:.2f} GB free")
        t0 = time.time()
        kvs, infos = write_model(path, cfg, variant)
        n_params = sum(int(np.prod(ne)) for _, ne, _ in infos)
        line = (f"{path}: {os.path.getsize(path):,} bytes, {len(infos)} tensors, {n_params:,} values, "
                f"written in {time.time() - t0:.1f} s")
        if not a.no_read_back:
            lo, hi = check_written(path, kvs, infos)
            line += f"; read back: first/last rows finite, std {lo:.4f}..{hi:.4f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
