#!/usr/bin/env python3
"""Small GPT-2-layout safetensors files with random weights, and what GPT-2 computes on them.

    /usr/bin/python3 tests/golden/generate_gpt2.py            write tests/golden/gpt2/*.safetensors + reference.json
    /usr/bin/python3 tests/golden/generate_gpt2.py --logits FILE CONFIG_JSON ID ID ...
                                                               print {"logits": [...]} of that file (F32/F16/BF16)

GPT-2 is written here in torch (float64) following Hugging Face's GPT2Model/GPT2LMHeadModel
(transformers/models/gpt2/modeling_gpt2.py): Conv1D is x·W + b with W [in, out]; c_attn's output is
split into Q | K | V; heads of n_embd / n_head; causal softmax(QKᵀ/√d_head); c_proj; pre-LN with
LayerNorm(eps = layer_norm_epsilon); MLP c_fc → gelu_new (tanh approximation) or exact gelu → c_proj;
ln_f; logits = ln_f(x)·wteᵀ (the tied lm_head, no bias). No transformers package is needed.

The reference holds, per file: the logits of a prompt, every layer's attention maps [L][H][T][T], the
residual stream entering each layer and after the last one ([L+1][T][D]), the logit lens at two
positions (each residual row through ln_f and the tied unembedding, softmaxed, top k: ids and probs
[L+1][k]; the last row is the model's own next-token distribution), and a greedy generation. F16/BF16 files hold rounded weights; the reference is computed from exactly those
values (as float64). Deterministic (seeded): running it again gives the same files.
"""
import json
import math
import os
import struct
import sys

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpt2")

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
SIZES = {"F32": 4, "F16": 2, "BF16": 2}

# name, dtype, prefix, layers, n_embd, n_head (None: not in the config → 64-wide heads), vocab,
# n_positions, n_inner, activation, extra buffers (attn.bias / attn.masked_bias as old HF files have)
CASES = [
    ("f32-prefix", "F32", "transformer.", 2, 32, 4, 61, 16, 128, "gelu_new", True),
    ("f16-default-heads", "F16", "", 2, 64, None, 40, 16, 64, "gelu_new", False),
    ("bf16-gelu", "BF16", "", 4, 32, 2, 97, 12, 64, "gelu", True),
    ("f32-3layers", "F32", "", 3, 24, 3, 113, 16, 96, "gelu_new", False),
    ("f16-prefix", "F16", "transformer.", 3, 32, 4, 53, 20, 128, "gelu_new", False),
]


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gelu_exact(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def forward(W, ids, cfg, prefix=""):
    """W: name (without prefix) → float64 tensor. Returns logits [T, V], attention [L][H][T][T],
    residuals [L+1][T][D]."""
    L, H, eps = cfg["n_layer"], cfg["n_head"], cfg["layer_norm_epsilon"]
    act = gelu_new if cfg["activation_function"] in ("gelu_new", "gelu_pytorch_tanh") else gelu_exact
    T = len(ids)
    x = W["wte.weight"][ids] + W["wpe.weight"][:T]
    D = x.shape[1]
    dh = D // H
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    attn, res = [], []
    for l in range(L):
        p = f"h.{l}."
        res.append(x.clone())
        h = layer_norm(x, W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        qkv = h @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]  # Conv1D
        q, k, v = qkv.split(D, dim=1)
        q = q.view(T, H, dh).transpose(0, 1)
        k = k.view(T, H, dh).transpose(0, 1)
        v = v.view(T, H, dh).transpose(0, 1)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh)
        s = s.masked_fill(~mask, float("-inf"))
        a = torch.softmax(s, dim=-1)
        attn.append(a)
        o = (a @ v).transpose(0, 1).reshape(T, D)
        x = x + o @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        h = layer_norm(x, W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
        m = act(h @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"])
        x = x + m @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
    res.append(x.clone())
    logits = layer_norm(x, W["ln_f.weight"], W["ln_f.bias"], eps) @ W["wte.weight"].T
    return logits, attn, res


def logit_lens(W, res, position, k, cfg):
    """The top k of softmax(ln_f(res[l][position])·wteᵀ) for l = 0 … L: {"position", "k", "ids", "probs"}.
    Refuses a near-tie at the k-th place (float32 could order it either way)."""
    ids, probs = [], []
    for r in res:
        logits = layer_norm(r[position], W["ln_f.weight"], W["ln_f.bias"], cfg["layer_norm_epsilon"]) @ W["wte.weight"].T
        p = torch.softmax(logits, dim=-1)
        top = torch.topk(p, min(k + 1, p.numel()))
        vals = top.values.tolist()
        for a, b in zip(vals, vals[1:]):
            assert a - b > 1e-5 * a, "a near-tie in the lens's top k: pick another seed"
        ids.append(top.indices[:k].tolist())
        probs.append(vals[:k])
    return {"position": position, "k": k, "ids": ids, "probs": probs}


def greedy(W, prompt, steps, cfg):
    ids = list(prompt)
    out = []
    for _ in range(steps):
        logits, _, _ = forward(W, ids, cfg)
        nxt = int(torch.argmax(logits[-1]))
        out.append(nxt)
        ids.append(nxt)
    return out


# ---- safetensors, by hand (the format: u64 N, N bytes of JSON padded with spaces, the data) ----------

def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype string, torch tensor already in that dtype or uint8 for BOOL)."""
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    blobs, off = [], 0
    for name, dt, t in tensors:
        raw = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        blobs.append(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__" or e["dtype"] not in DTYPES:
            continue
        b, en = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[base + b:base + en]), dtype=DTYPES[e["dtype"]]) if en > b else torch.zeros(0)
        out[name] = t.reshape(e["shape"]).to(torch.float64)
    return out


def strip(W):
    return {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in W.items()}


def make_case(case, seed):
    name, dt, prefix, L, D, H, V, C, F, act, extra = case
    g = torch.Generator().manual_seed(seed)
    rnd = lambda *s, std=0.1: torch.randn(*s, generator=g, dtype=torch.float64) * std
    W = {"wte.weight": rnd(V, D, std=0.5), "wpe.weight": rnd(C, D, std=0.3)}
    for l in range(L):
        p = f"h.{l}."
        W[p + "ln_1.weight"] = 1 + rnd(D)
        W[p + "ln_1.bias"] = rnd(D)
        W[p + "attn.c_attn.weight"] = rnd(D, 3 * D, std=0.5 / math.sqrt(D) * 2)
        W[p + "attn.c_attn.bias"] = rnd(3 * D)
        W[p + "attn.c_proj.weight"] = rnd(D, D, std=1 / math.sqrt(D))
        W[p + "attn.c_proj.bias"] = rnd(D)
        W[p + "ln_2.weight"] = 1 + rnd(D)
        W[p + "ln_2.bias"] = rnd(D)
        W[p + "mlp.c_fc.weight"] = rnd(D, F, std=1 / math.sqrt(D))
        W[p + "mlp.c_fc.bias"] = rnd(F)
        W[p + "mlp.c_proj.weight"] = rnd(F, D, std=1 / math.sqrt(F))
        W[p + "mlp.c_proj.bias"] = rnd(D)
    W["ln_f.weight"] = 1 + rnd(D)
    W["ln_f.bias"] = rnd(D)
    # Round to the file's dtype; the reference uses exactly the stored values.
    stored = {k: v.to(DTYPES[dt]) for k, v in W.items()}
    W64 = {k: v.to(torch.float64) for k, v in stored.items()}
    tensors = []
    order = list(stored.keys())
    for k in order:
        tensors.append((prefix + k, dt, stored[k]))
        if extra and k.endswith("attn.c_attn.bias"):  # the causal buffers old HF files carry
            lp = k[: -len("attn.c_attn.bias")]
            tensors.append((prefix + lp + "attn.bias", "F32", torch.tril(torch.ones(1, 1, C, C, dtype=torch.float32))))
            tensors.append((prefix + lp + "attn.masked_bias", "F32", torch.tensor(-1e4, dtype=torch.float32)))
    cfg = {"n_layer": L, "n_embd": D, "n_positions": C, "vocab_size": V, "n_inner": F,
           "activation_function": act, "layer_norm_epsilon": 1e-5}
    if H is not None:
        cfg["n_head"] = H
    fcfg = dict(cfg, n_head=H if H is not None else D // 64)
    write_safetensors(os.path.join(OUT, name + ".safetensors"), tensors, {"format": "pt"})
    gen = torch.Generator().manual_seed(seed + 1000)
    T = min(C, 9)
    ids = torch.randint(0, V, (T,), generator=gen).tolist()
    logits, attn, res = forward(W64, ids, fcfg)
    prompt = ids[:4]
    steps = min(6, C - len(prompt))
    return {
        "file": name + ".safetensors", "dtype": dt, "prefix": prefix, "config": cfg,
        "ids": ids,
        "logits": logits.flatten().tolist(),
        "attention": [[a[h].flatten().tolist() for h in range(a.shape[0])] for a in attn],
        "residuals": [r.flatten().tolist() for r in res],
        "lens": [logit_lens(W64, res, T - 1, 5, fcfg), logit_lens(W64, res, 2, 7, fcfg)],
        "prompt": prompt, "steps": steps, "greedy": greedy(W64, prompt, steps, fcfg),
    }


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--logits":
        path, cfg = sys.argv[2], json.loads(sys.argv[3])
        ids = [int(x) for x in sys.argv[4:]]
        W = strip(read_safetensors(path))
        cfg = dict(cfg)
        cfg.setdefault("layer_norm_epsilon", 1e-5)
        cfg.setdefault("activation_function", "gelu_new")
        if cfg.get("n_head") is None:
            cfg["n_head"] = W["wte.weight"].shape[1] // 64
        logits, _, _ = forward(W, ids, cfg)
        print(json.dumps({"logits": logits.flatten().tolist(), "tensors": sorted(read_safetensors(path).keys())}))
        return
    os.makedirs(OUT, exist_ok=True)
    ref = [make_case(c, 100 + i) for i, c in enumerate(CASES)]
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        f.write('{"_generator": "tests/golden/generate_gpt2.py (do not edit)",\n "cases": ')
        json.dump(ref, f, separators=(",", ":"))
        f.write("}\n")
    for c in CASES:
        print(c[0], os.path.getsize(os.path.join(OUT, c[0] + ".safetensors")), "bytes")


if __name__ == "__main__":
    main()
