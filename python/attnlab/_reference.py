"""The notebook's own reference numbers: attention computed by the library the arrays came from.

torch tensors are computed with torch (in their own dtype), numpy arrays with numpy, nested lists in
plain Python (float64). The results travel in the cell's HTML; the widget recomputes in the browser with
attnlab's core (float32) and says whether the two agree.
"""
import math


def _softmax_rows(rows):
    out = []
    for row in rows:
        finite = [s for s in row if s != -math.inf]
        if not finite:
            out.append([0.0] * len(row))  # every key masked: attnlab's convention (weights 0, output 0)
            continue
        m = max(finite)
        e = [math.exp(s - m) if s != -math.inf else 0.0 for s in row]
        z = sum(e)
        out.append([x / z for x in e])
    return out


def attention_python(q, k, v, additive, scale):
    """Plain Python, float64. q (tq, dk), k (tk, dk), v (tk, dv) as lists of rows; additive (tq, tk) or None."""
    scores = [[sum(a * b for a, b in zip(qi, kj)) * scale for kj in k] for qi in q]
    if additive is not None:
        scores = [[s + m for s, m in zip(srow, mrow)] for srow, mrow in zip(scores, additive)]
    w = _softmax_rows(scores)
    out = [[sum(w_ij * v[j][d] for j, w_ij in enumerate(wrow)) for d in range(len(v[0]))] for wrow in w]
    return w, out


def attention_torch(q, k, v, additive, scale):
    import torch
    with torch.no_grad():
        s = (q @ k.transpose(-1, -2)) * scale
        if additive is not None:
            s = s + torch.tensor(additive, dtype=s.dtype, device=s.device)
        w = torch.softmax(s, dim=-1)
        w = torch.nan_to_num(w, nan=0.0)  # a row with every key masked: 0, as attnlab returns
        out = w @ v
    return w.cpu().tolist(), out.cpu().tolist()


def attention_numpy(q, k, v, additive, scale):
    import numpy as np
    s = (q @ k.T) * scale
    if additive is not None:
        s = s + np.asarray(additive, dtype=s.dtype)
    with np.errstate(invalid="ignore"):
        m = np.max(s, axis=-1, keepdims=True)
        e = np.exp(s - np.where(np.isfinite(m), m, 0))
        w = e / np.sum(e, axis=-1, keepdims=True)
    w = np.nan_to_num(w, nan=0.0)
    return w.tolist(), (w @ v).tolist()


def attention(orig, arrays, additive, scale):
    """(weights, output, source): computed by the library the notebook's q, k, v came from."""
    q, k, v = orig
    kinds = {a.kind for a in arrays}
    if kinds == {"torch"}:
        try:
            w, out = attention_torch(q, k, v, additive, scale)
            return w, out, f"PyTorch ({arrays[0].dtype})"
        except ImportError:  # pragma: no cover - a torch tensor without torch cannot happen
            pass
    if kinds == {"numpy"}:
        w, out = attention_numpy(q, k, v, additive, scale)
        return w, out, f"numpy ({arrays[0].dtype})"
    w, out = attention_python(arrays[0].rows(), arrays[1].rows(), arrays[2].rows(), additive, scale)
    return w, out, "Python (float64)"
