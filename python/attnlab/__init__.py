"""attnlab in Jupyter: the lecture's widgets in a notebook cell, fed with the notebook's own arrays.

    import attnlab
    attnlab.show("attn-steps", preset="football", stage=3)      # any widget, as on a page
    attnlab.attention(q, k, v, mask="causal")                    # (tq, dk), (tk, dk), (tk, dv)
    attnlab.attention(q, k, v, batch=0, head=1)                  # (B, H, N, d): one sequence, one head
    attnlab.heads(weights, tokens=["the", "cat", "sat"])         # (H, tq, tk) or (B, H, N, N) with batch=
    attnlab.positional(pe)                                       # the notebook's sinusoidal table (N, D)

Each call checks its arguments at once (``AttnLabError``, a ``ValueError`` naming the argument) and
returns an object that Jupyter displays through ``_repr_html_``. The cell's HTML carries the notebook's
arrays, the notebook's own results (computed with torch for tensors, numpy for arrays) and attnlab's
standalone build (compressed), so a notebook exported with ``jupyter nbconvert --to html`` works offline,
opened as a file. In the browser the widget recomputes every step with attnlab's WebAssembly core and
says whether its numbers equal the notebook's (float32 tolerance: |a - b| <= 1e-6 + 1e-4 |b|).

Standard library only; torch and numpy are used when the arrays come from them.
"""
import html as _html
import json
import math
import uuid
from pathlib import Path

from . import _arrays, _reference, _static
from ._arrays import AttnLabError

__all__ = ["show", "attention", "heads", "positional", "Widget", "AttnLabError", "TOLERANCE", "WIDGETS"]
__version__ = "0.1.0"

# A float32 result against the notebook's own (the JS tests' TOL.ref): |a - b| <= abs + rel * |b|.
TOLERANCE = {"rel": 1e-4, "abs": 1e-6}

# Tags attnlab.show() displays: every widget that needs only the core (the build registers them all).
WIDGETS = ("attn-steps", "attn-multihead", "attn-positional", "attn-why-scale", "attn-convex",
           "attn-kernel-regression", "attn-cross", "attn-block", "attn-cost",
           "attn-embedding-lookup", "attn-output-projection")
# These load files a cell does not carry (the training worker, the shipped snapshots and model).
NOT_IN_A_CELL = ("attn-train", "attn-model")

_GLUE = Path(__file__).resolve().parent / "notebook.js"


class Widget:
    """One attnlab view. Jupyter displays it (``_repr_html_``); ``html()`` / ``save(path)`` give a page."""

    def __init__(self, payload):
        _static.library()  # a missing build is an error of the call, not a traceback in the display
        self.payload = payload
        self.id = "attnlab-" + uuid.uuid4().hex[:12]

    def __repr__(self):
        return f"<attnlab.Widget {self.payload['kind']}{' ' + self.payload.get('tag', '') if self.payload['kind'] == 'show' else ''}>"

    def _repr_html_(self):
        return self.html(full_page=False)

    def html(self, full_page=True):
        """The widget as HTML that needs nothing else: attnlab's build travels inside it."""
        lib = _static.library()
        data = json.dumps(self.payload, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
        glue = _GLUE.read_text(encoding="utf-8").replace("</script", "<\\/script")
        i = self.id
        body = (
            f'<div class="attnlab-output" id="{i}" data-kind="{_html.escape(self.payload["kind"])}">'
            f'<p class="attnlab-loading" style="font:14px system-ui,sans-serif;color:#57606a">'
            f'attnlab: loading the widget (this needs JavaScript: a trusted notebook or an HTML page)…</p></div>\n'
            f'<script type="application/json" id="{i}-data">{data}</script>\n'
            f'<script type="text/plain" id="{i}-lib" data-js="{lib["js"]}" data-wasm="{lib["wasm"]}" data-css="{lib["css"]}" '
            f'data-chunks="{_html.escape(json.dumps(lib["chunks"]))}"></script>\n'
            f"<script>\n{glue}\nattnlabNotebook.mount({json.dumps(i)});\n</script>"
        )
        if not full_page:
            return body
        title = _html.escape(self.payload.get("title") or "attnlab")
        return f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>\n<body>\n{body}\n</body></html>\n'

    def save(self, path):
        """Writes a standalone page (works opened as a file, offline)."""
        Path(path).write_text(self.html(full_page=True), encoding="utf-8")
        return path


def _nums(a):
    return [float(x) for x in a.values]


def _json_row_major(rows):
    return [float(x) for row in rows for x in row]


def _check_title(title, fn):
    if title is not None and not isinstance(title, str):
        raise AttnLabError(f"{fn}: title is a {type(title).__name__}; expected a string")
    return title


def show(tag, **attributes):
    """Any attnlab widget by its tag, with its attributes (``d_model=8`` is the attribute ``d-model``)."""
    fn = "attnlab.show"
    if tag in NOT_IN_A_CELL:
        raise AttnLabError(f"{fn}: {tag} needs the training worker and the shipped snapshots, which a notebook cell does "
                           "not carry; open it on a page that loads standalone/attnlab.js (README, 'One script tag')")
    if not isinstance(tag, str) or tag not in WIDGETS:
        raise AttnLabError(f"{fn}: tag {tag!r} is not an attnlab widget; expected one of {', '.join(WIDGETS)}")
    attrs = {}
    for name, value in attributes.items():
        attr = name.replace("_", "-")
        if value is None:
            continue
        if isinstance(value, bool):
            if value:
                attrs[attr] = ""
            continue
        if isinstance(value, (int, float)):
            if not math.isfinite(value):
                raise AttnLabError(f"{fn}: {name} is {value}; expected a finite number")
            attrs[attr] = repr(value) if isinstance(value, float) else str(value)
        elif isinstance(value, str):
            attrs[attr] = value
        else:
            raise AttnLabError(f"{fn}: {name} is a {type(value).__name__}; attributes are strings, numbers or booleans")
    return Widget({"kind": "show", "tag": tag, "attributes": attrs})


def _mask(mask, tq, tk, fn):
    """(description for the browser, additive float list of rows or None)."""
    if mask is None or (isinstance(mask, str) and mask == "none"):
        return "none", None
    if isinstance(mask, str):
        if mask != "causal":
            raise AttnLabError(f"{fn}: mask {mask!r} is not a mask; expected None, 'causal' or an array (tq, tk)")
        additive = [[0.0 if j <= i else -math.inf for j in range(tk)] for i in range(tq)]
        return "causal", additive
    m = _mask_array(mask, fn)
    if m.shape != (tq, tk):
        raise AttnLabError(f"{fn}: mask has shape {m.shape_text()}; expected (tq, tk) = ({tq}, {tk})")
    return m.values, [m.values[i * tk:(i + 1) * tk] for i in range(tq)]


def _mask_array(mask, fn):
    """A boolean mask (True = the key is visible, as torch's attn_mask) or an additive one (0 / -inf)."""
    mod = type(mask).__module__ or ""
    is_bool = False
    if mod.startswith("torch"):
        is_bool = str(mask.dtype) == "torch.bool"
        raw = mask.detach().cpu()
        shape, flat = list(raw.shape), raw.reshape(-1).tolist()
    elif hasattr(mask, "dtype") and hasattr(mask, "tolist"):
        is_bool = str(mask.dtype) == "bool"
        shape, flat = list(mask.shape), mask.reshape(-1).tolist()
    elif isinstance(mask, (list, tuple)):
        shape, flat = _arrays._flatten(mask, fn, "mask")
        is_bool = bool(flat) and all(isinstance(x, bool) for x in flat)
    else:
        raise AttnLabError(f"{fn}: mask is a {type(mask).__name__}; expected None, 'causal', or an array (tq, tk)")
    if len(shape) != 2:
        raise AttnLabError(f"{fn}: mask has shape {_arrays._shape_text(shape)}; expected 2-D (tq, tk)")
    if is_bool:
        vals = [0.0 if x else -math.inf for x in flat]
    else:
        vals = []
        for i, x in enumerate(flat):
            f = float(x)
            if math.isnan(f) or f == math.inf:
                raise AttnLabError(f"{fn}: mask{_arrays._index_text(shape, i)} is {f}; an additive mask holds finite numbers or -inf")
            vals.append(f)
    return _arrays.Array(shape, vals, "float", "list")


def _js_numbers(values):
    """JSON has no -inf: masked entries travel as null."""
    return [None if v == -math.inf else v for v in values]


def _scale(scale, dk, fn):
    if scale is None:
        return 1.0 / math.sqrt(dk)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
        raise AttnLabError(f"{fn}: scale is {scale!r}; expected a positive finite number (default 1/sqrt(dk))")
    return float(scale)


def _sub(x, batch, head, extra):
    if extra >= 1:
        x = x[batch]
    if extra == 2:
        x = x[head]
    return x


def attention(q, k, v, mask=None, *, tokens=None, keys=None, batch=None, head=None, scale=None,
              weights=None, output=None, title=None):
    """Scaled dot-product attention on the notebook's q (tq, dk), k (tk, dk), v (tk, dv).

    (B, N, d) arrays take ``batch=``; (B, H, N, d) arrays take ``batch=`` and ``head=``. ``mask``: None,
    ``'causal'``, a boolean (tq, tk) array (True: the key is visible, as torch's ``attn_mask``) or an
    additive one (0 / -inf). ``scale`` defaults to 1/sqrt(dk). ``weights`` / ``output``: the module's own
    results (same layouts) to compare with; without them the reference is computed here, with torch for
    tensors (in their dtype), numpy for arrays, float64 Python for lists.
    """
    fn = "attnlab.attention"
    raw = {"q": q, "k": k, "v": v}
    arrays = {name: _arrays.as_array(x, fn, name) for name, x in raw.items()}
    extra = arrays["q"].ndim - 2
    if not 2 <= arrays["q"].ndim <= 4:  # q's own layout first: its message lists the layouts taken
        _arrays.pick(arrays["q"], fn, "q", 2, ("tq", "dk"), batch, head)
    for name, a in arrays.items():
        if a.ndim != arrays["q"].ndim:
            raise AttnLabError(f"{fn}: {name} has shape {a.shape_text()} but q has {arrays['q'].shape_text()}: give q, k and v the same layout")
        if a.ndim > 2 and a.shape[:a.ndim - 2] != arrays["q"].shape[:a.ndim - 2]:
            raise AttnLabError(f"{fn}: {name} has shape {a.shape_text()}; its batch/head axes differ from q's {arrays['q'].shape_text()}")
    picked = {name: _arrays.pick(a, fn, name, 2, ("tq" if name == "q" else "tk", "dv" if name == "v" else "dk"), batch, head)
              for name, a in arrays.items()}
    qa, ka, va = picked["q"], picked["k"], picked["v"]
    tq, dk = qa.shape
    tk, dk2 = ka.shape
    tv, dv = va.shape
    if dk2 != dk:
        raise AttnLabError(f"{fn}: k has {dk2} columns but q has {dk}: q (tq, dk) and k (tk, dk) need the same dk")
    if tv != tk:
        raise AttnLabError(f"{fn}: v has {tv} rows but k has {tk}: one value per key (v is (tk, dv))")
    _arrays.check_size(tq, _arrays.MAX_TOKENS, fn, "tq (q's rows)")
    _arrays.check_size(tk, _arrays.MAX_TOKENS, fn, "tk (k's rows)")
    _arrays.check_size(dk, _arrays.MAX_DIM, fn, "dk (q's columns)")
    _arrays.check_size(dv, _arrays.MAX_DIM, fn, "dv (v's columns)")
    s = _scale(scale, dk, fn)
    mask_desc, additive = _mask(mask, tq, tk, fn)
    row_tokens = _arrays.tokens_for(tokens, tq, fn)
    if keys is None and tokens is not None and tq == tk:
        key_tokens = row_tokens
    else:
        key_tokens = _arrays.tokens_for(keys, tk, fn, "keys")
    _check_title(title, fn)

    if weights is not None or output is not None:
        if weights is None or output is None:
            raise AttnLabError(f"{fn}: pass both weights= and output= (the module's own results), or neither")
        wa = _arrays.pick(_arrays.as_array(weights, fn, "weights"), fn, "weights", 2, ("tq", "tk"), batch, head)
        oa = _arrays.pick(_arrays.as_array(output, fn, "output"), fn, "output", 2, ("tq", "dv"), batch, head)
        if wa.shape != (tq, tk):
            raise AttnLabError(f"{fn}: weights has shape {wa.shape_text()} for this sequence; expected (tq, tk) = ({tq}, {tk})")
        if oa.shape != (tq, dv):
            raise AttnLabError(f"{fn}: output has shape {oa.shape_text()} for this sequence; expected (tq, dv) = ({tq}, {dv})")
        ref_w, ref_o = wa.values, oa.values
        source = f"the notebook's weights= and output= ({wa.dtype})"
    else:
        orig = tuple(_sub(raw[n], batch, head, extra) for n in ("q", "k", "v"))
        w_rows, o_rows, source = _reference.attention(orig, (qa, ka, va), additive, s)
        ref_w, ref_o = _json_row_major(w_rows), _json_row_major(o_rows)

    payload = {
        "kind": "attention", "title": title, "tq": tq, "tk": tk, "dk": dk, "dv": dv, "scale": s,
        "q": _nums(qa), "k": _nums(ka), "v": _nums(va),
        "mask": mask_desc if isinstance(mask_desc, str) else _js_numbers(mask_desc),
        "tokens": row_tokens, "keys": key_tokens,
        "where": _where(batch, head, extra),
        "reference": {"weights": ref_w, "output": ref_o, "source": source},
        "tolerance": TOLERANCE,
    }
    return Widget(payload)


def _where(batch, head, extra):
    parts = []
    if extra >= 1:
        parts.append(f"batch {batch}")
    if extra == 2:
        parts.append(f"head {head}")
    return ", ".join(parts)


def heads(weights, tokens=None, *, keys=None, batch=None, q=None, k=None, mask=None, scale=None, title=None):
    """Every head's attention weights: (H, tq, tk), or (B, H, N, N) with ``batch=``.

    With the heads' ``q`` and ``k`` ((H, tq, dk), or (B, H, N, dk) with the same ``batch=``) the browser
    recomputes each head's weights with attnlab's core and compares them with ``weights``; without them it
    checks that every row is a distribution (sums to 1, computed by the core as A·1).
    """
    fn = "attnlab.heads"
    wa = _arrays.as_array(weights, fn, "weights")
    if wa.ndim not in (3, 4):
        raise AttnLabError(f"{fn}: weights has shape {wa.shape_text()} ({wa.ndim}-D); expected (H, tq, tk), or (B, H, N, N) with batch=")
    w = _arrays.pick(wa, fn, "weights", 3, ("H", "tq", "tk"), batch, None, head_axis=False)
    h, tq, tk = w.shape
    _arrays.check_size(h, _arrays.MAX_HEADS, fn, "the number of heads")
    _arrays.check_size(tq, _arrays.MAX_TOKENS, fn, "tq")
    _arrays.check_size(tk, _arrays.MAX_TOKENS, fn, "tk")
    if any(x < 0 for x in w.values):
        raise AttnLabError(f"{fn}: weights has negative entries; attention weights are probabilities (softmax rows)")
    row_tokens = _arrays.tokens_for(tokens, tq, fn)
    key_tokens = row_tokens if keys is None and tokens is not None and tq == tk else _arrays.tokens_for(keys, tk, fn, "keys")
    _check_title(title, fn)
    payload = {"kind": "heads", "title": title, "heads": h, "tq": tq, "tk": tk, "weights": w.values,
               "tokens": row_tokens, "keys": key_tokens, "where": f"batch {batch}" if wa.ndim == 4 else "",
               "tolerance": TOLERANCE, "source": f"the notebook's weights ({wa.dtype})"}
    if (q is None) != (k is None):
        raise AttnLabError(f"{fn}: pass both q= and k= (to recompute the weights), or neither")
    if q is not None:
        qs = _arrays.pick(_arrays.as_array(q, fn, "q"), fn, "q", 3, ("H", "tq", "dk"), batch if wa.ndim == 4 else None, None, head_axis=False)
        ks = _arrays.pick(_arrays.as_array(k, fn, "k"), fn, "k", 3, ("H", "tk", "dk"), batch if wa.ndim == 4 else None, None, head_axis=False)
        if qs.shape[:2] != (h, tq):
            raise AttnLabError(f"{fn}: q has shape {qs.shape_text()} for this sequence; expected (H, tq, dk) with H = {h}, tq = {tq}")
        if ks.shape[:2] != (h, tk) or ks.shape[2] != qs.shape[2]:
            raise AttnLabError(f"{fn}: k has shape {ks.shape_text()} for this sequence; expected (H, tk, dk) = ({h}, {tk}, {qs.shape[2]})")
        dk = qs.shape[2]
        _arrays.check_size(dk, _arrays.MAX_DIM, fn, "dk")
        mask_desc, _ = _mask(mask, tq, tk, fn)
        payload.update({"q": qs.values, "k": ks.values, "dk": dk, "scale": _scale(scale, dk, fn),
                        "mask": mask_desc if isinstance(mask_desc, str) else _js_numbers(mask_desc)})
    elif mask is not None or scale is not None:
        raise AttnLabError(f"{fn}: mask= and scale= are used only to recompute from q= and k=")
    return Widget(payload)


def positional(pe=None, *, length=None, d_model=None, base=10000.0, view=None, title=None):
    """The sinusoidal positional encoding: ``<attn-positional>`` for the notebook's table ``pe`` (N, D)
    (or for ``length`` and ``d_model``), and whether ``pe`` equals attnlab's sinusoidal table."""
    fn = "attnlab.positional"
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not math.isfinite(base) or base <= 1:
        raise AttnLabError(f"{fn}: base is {base!r}; expected a number > 1 (10000 in the paper)")
    values = None
    if pe is not None:
        a = _arrays.as_array(pe, fn, "pe")
        if a.ndim == 3 and a.shape[0] == 1:
            a = a.take(0)  # a (1, N, D) buffer, as modules register it
        if a.ndim != 2:
            raise AttnLabError(f"{fn}: pe has shape {a.shape_text()} ({a.ndim}-D); expected (N, D): one row per position")
        n, d = a.shape
        if length is not None and length != n:
            raise AttnLabError(f"{fn}: length={length} but pe has {n} rows")
        if d_model is not None and d_model != d:
            raise AttnLabError(f"{fn}: d_model={d_model} but pe has {d} columns")
        length, d_model, values = n, d, a.values
    for name, val, lo, hi in (("length", length, 2, 128), ("d_model", d_model, 2, 128)):
        if val is None:
            raise AttnLabError(f"{fn}: pass pe (N, D), or length= and d_model=")
        if isinstance(val, bool) or not isinstance(val, int) or not lo <= val <= hi:
            raise AttnLabError(f"{fn}: {name} is {val!r}; the widget takes an integer from {lo} to {hi}")
    if d_model % 2:
        raise AttnLabError(f"{fn}: d_model is {d_model}; sinusoidal encodings pair sin and cos: an even d_model")
    if view is not None and view not in ("heatmap", "curves", "dot", "learned"):
        raise AttnLabError(f"{fn}: view {view!r}; expected 'heatmap', 'curves', 'dot' or 'learned'")
    _check_title(title, fn)
    return Widget({"kind": "positional", "title": title, "length": length, "dModel": d_model, "base": float(base),
                   "view": view, "pe": values, "tolerance": TOLERANCE,
                   "source": f"the notebook's pe ({a.dtype})" if values is not None else None})
