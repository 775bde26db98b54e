"""attnlab for Jupyter (python/attnlab): argument checks, the notebook's reference numbers, the cell's HTML
and the offline wheel. Run: /usr/bin/python3 -m unittest discover -s tests/python (from the repository;
torch and numpy from Debian's python3-torch / python3-numpy; the standalone build from `npm run build`).
"""
import base64
from html import unescape as html_unescape
import gzip
import json
import math
import re
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "python" / "_build"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import attnlab  # noqa: E402
from attnlab import AttnLabError  # noqa: E402

TOL = attnlab.TOLERANCE


def close(a, b):
    return len(a) == len(b) and all(abs(x - y) <= TOL["abs"] + TOL["rel"] * abs(y) for x, y in zip(a, b))


def flat(t):
    return [float(x) for x in t.reshape(-1).tolist()]


class BadInput(unittest.TestCase):
    """Every refusal is an AttnLabError (a ValueError) raised by the call itself, naming the argument."""

    def setUp(self):
        g = torch.Generator().manual_seed(1)
        self.q, self.k, self.v = (torch.randn(3, 2, generator=g) for _ in range(3))

    def refuses(self, pattern, fn, *args, **kwargs):
        with self.assertRaises(AttnLabError) as cm:
            fn(*args, **kwargs)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertRegex(str(cm.exception), pattern)
        return str(cm.exception)

    def test_three_d_where_two_d_is_needed(self):
        msg = self.refuses(r"^attnlab\.attention: q has shape \(2, 3, 2\) \(3-D\) where 2-D \(tq, dk\) is needed: pass batch=",
                           attnlab.attention, torch.randn(2, 3, 2), torch.randn(2, 3, 2), torch.randn(2, 3, 2))
        self.assertIn("0 to 1", msg)
        self.refuses(r"positional: pe has shape \(2, 3, 4\) \(3-D\); expected \(N, D\)", attnlab.positional, torch.randn(2, 3, 4))

    def test_four_d_needs_a_head(self):
        x = torch.randn(2, 2, 3, 4)
        self.refuses(r"attention: q has a head axis \(2 heads\): pass head=", attnlab.attention, x, x, x, batch=0)
        self.refuses(r"attention: head=5 is out of range: q's head axis has 2 entries", attnlab.attention, x, x, x, batch=0, head=5)
        self.refuses(r"attention: batch=2 is out of range: q's first axis has 2 entries", attnlab.attention, x, x, x, batch=2, head=0)
        self.refuses(r"attention: batch is '0'; expected an integer", attnlab.attention, x, x, x, batch="0", head=0)

    def test_wrong_shapes(self):
        self.refuses(r"attention: k has 3 columns but q has 2", attnlab.attention, self.q, torch.randn(3, 3), self.v)
        self.refuses(r"attention: v has 4 rows but k has 3", attnlab.attention, self.q, self.k, torch.randn(4, 2))
        self.refuses(r"attention: k has shape \(1, 3, 2\) but q has \(3, 2\)", attnlab.attention, self.q, self.k[None], self.v)
        self.refuses(r"attention: q has shape \(6,\) \(1-D\); expected \(tq, dk\)", attnlab.attention, torch.randn(6), self.k, self.v)
        self.refuses(r"attention: mask has shape \(3, 4\); expected \(tq, tk\) = \(3, 3\)", attnlab.attention,
                     self.q, self.k, self.v, mask=torch.ones(3, 4, dtype=torch.bool))
        self.refuses(r"attention: tokens has 2 entries; expected 3", attnlab.attention, self.q, self.k, self.v, tokens=["a", "b"])
        self.refuses(r"attention: weights has shape \(3, 2\) for this sequence; expected \(tq, tk\) = \(3, 3\)", attnlab.attention,
                     self.q, self.k, self.v, weights=torch.ones(3, 2), output=torch.ones(3, 2))
        self.refuses(r"attention: tq \(q's rows\) is 65; a widget shows at most 64", attnlab.attention,
                     torch.randn(65, 2), torch.randn(65, 2), torch.randn(65, 2))
        self.refuses(r"heads: weights has shape \(3, 3\) \(2-D\); expected \(H, tq, tk\)", attnlab.heads, torch.ones(3, 3) / 3)
        self.refuses(r"heads: q has shape \(3, 3, 2\) for this sequence; expected \(H, tq, dk\) with H = 2", attnlab.heads,
                     torch.ones(2, 3, 3) / 3, q=torch.randn(3, 3, 2), k=torch.randn(2, 3, 2))
        self.refuses(r"positional: d_model is 7; .* an even d_model", attnlab.positional, length=8, d_model=7)

    def test_not_finite(self):
        q = self.q.clone()
        q[1, 0] = float("nan")
        self.refuses(r"attention: q\[1, 0\] is nan; attnlab needs finite numbers", attnlab.attention, q, self.k, self.v)
        v = self.v.numpy().copy()
        v[2, 1] = np.inf
        self.refuses(r"attention: v\[2, 1\] is inf", attnlab.attention, self.q.numpy(), self.k.numpy(), v)
        self.refuses(r"heads: weights\[0, 0, 1\] is nan", attnlab.heads, [[[0.5, math.nan], [0.5, 0.5]]])
        self.refuses(r"attention: mask\[0, 1\] is nan; an additive mask", attnlab.attention, self.q, self.k, self.v,
                     mask=[[0, math.nan, 0]] * 3)

    def test_wrong_types(self):
        self.refuses(r"attention: q is a str; expected a torch tensor, a numpy array or nested lists", attnlab.attention, "q", self.k, self.v)
        self.refuses(r"attention: k is ragged: \[1\] has 1 entries where 2 were expected", attnlab.attention, self.q, [[1, 2], [3], [4, 5]], self.v)
        self.refuses(r"attention: q is a complex tensor", attnlab.attention, torch.randn(3, 2, dtype=torch.complex64), self.k, self.v)
        self.refuses(r"attention: mask 'upper' is not a mask", attnlab.attention, self.q, self.k, self.v, mask="upper")
        self.refuses(r"attention: scale is -1; expected a positive finite number", attnlab.attention, self.q, self.k, self.v, scale=-1)
        self.refuses(r"show: tag 'attn-nope' is not an attnlab widget", attnlab.show, "attn-nope")
        self.refuses(r"show: attn-train needs the training worker", attnlab.show, "attn-train")
        self.refuses(r"show: stage is a list", attnlab.show, "attn-steps", stage=[3])
        self.refuses(r"heads: weights has negative entries", attnlab.heads, torch.tensor([[[1.5, -0.5], [0.5, 0.5]]]))


def payload_of(html):
    m = re.search(r'<script type="application/json" id="(attnlab-[0-9a-f]+)-data">(.*?)</script>', html, re.S)
    return m.group(1), json.loads(m.group(2))


class Reference(unittest.TestCase):
    """The numbers that travel in the cell are the notebook's: torch computes torch tensors, numpy numpy arrays."""

    def test_torch_tensors_are_computed_by_torch(self):
        g = torch.Generator().manual_seed(7)
        q, k, v = torch.randn(4, 3, generator=g), torch.randn(5, 3, generator=g), torch.randn(5, 2, generator=g)
        p = attnlab.attention(q, k, v).payload
        w = torch.softmax((q @ k.T) * (1 / math.sqrt(3)), dim=-1)
        self.assertEqual(p["reference"]["source"], "PyTorch (float32)")
        self.assertEqual(p["reference"]["weights"], flat(w))  # bit for bit: the same torch ops in the same dtype
        self.assertEqual(p["reference"]["output"], flat(w @ v))
        self.assertEqual((p["tq"], p["tk"], p["dk"], p["dv"]), (4, 5, 3, 2))
        self.assertEqual(p["q"], flat(q))

    def test_numpy_and_lists(self):
        rng = np.random.default_rng(3)
        q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
        pn = attnlab.attention(q, k, v, mask="causal").payload
        pl = attnlab.attention(q.tolist(), k.tolist(), v.tolist(), mask="causal").payload
        self.assertEqual(pn["reference"]["source"], "numpy (float64)")
        self.assertEqual(pl["reference"]["source"], "Python (float64)")
        s = q @ k.T / math.sqrt(2) + np.triu(np.full((3, 3), -np.inf), 1)
        w = np.exp(s - s.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        for p in (pn, pl):
            self.assertTrue(np.allclose(p["reference"]["weights"], w.ravel(), rtol=1e-12, atol=1e-15))
            self.assertTrue(np.allclose(p["reference"]["output"], (w @ v).ravel(), rtol=1e-12, atol=1e-15))
            self.assertEqual(p["mask"], "causal")
        self.assertEqual(pn["reference"]["weights"][1:3], [0.0, 0.0])

    def test_batch_and_head_pick_the_slice(self):
        g = torch.Generator().manual_seed(5)
        q, k, v = (torch.randn(2, 3, 4, 2, generator=g) for _ in range(3))
        w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(2), -1)
        p = attnlab.attention(q, k, v, batch=1, head=2, weights=w, output=w @ v).payload
        self.assertEqual(p["q"], flat(q[1, 2]))
        self.assertEqual(p["v"], flat(v[1, 2]))
        self.assertEqual(p["reference"]["weights"], flat(w[1, 2]))
        self.assertEqual(p["where"], "batch 1, head 2")
        h = attnlab.heads(w, batch=0, q=q, k=k, tokens="a b c d").payload
        self.assertEqual(h["weights"], flat(w[0]))
        self.assertEqual(h["q"], flat(q[0]))
        self.assertEqual((h["heads"], h["tq"], h["tk"], h["dk"]), (3, 4, 4, 2))
        self.assertEqual(h["tokens"], ["a", "b", "c", "d"])

    def test_boolean_and_additive_masks(self):
        g = torch.Generator().manual_seed(2)
        q, k, v = (torch.randn(3, 2, generator=g) for _ in range(3))
        keep = torch.tensor([[True, False, True], [True, True, False], [False, False, True]])
        p = attnlab.attention(q, k, v, mask=keep).payload
        additive = torch.zeros(3, 3).masked_fill(~keep, float("-inf"))
        w = torch.softmax((q @ k.T) * (1 / math.sqrt(2)) + additive, -1)
        self.assertEqual(p["reference"]["weights"], flat(w))
        self.assertEqual(p["mask"], [0.0, None, 0.0, 0.0, 0.0, None, None, None, 0.0])  # -inf travels as null
        p2 = attnlab.attention(q, k, v, mask=additive).payload
        self.assertEqual(p2["reference"]["weights"], flat(w))


class CellHtml(unittest.TestCase):
    """The cell's HTML carries the data, the glue and the standalone build; nothing is fetched."""

    @classmethod
    def setUpClass(cls):
        g = torch.Generator().manual_seed(0)
        cls.q, cls.k, cls.v = (torch.randn(3, 2, generator=g) for _ in range(3))
        cls.html = attnlab.attention(cls.q, cls.k, cls.v, tokens=["I", "play", "</script><b>x"])._repr_html_()

    def test_payload_and_ids(self):
        i, p = payload_of(self.html)
        self.assertEqual(p["kind"], "attention")
        self.assertEqual(p["tokens"][2], "</script><b>x")  # a token cannot close the data script
        self.assertEqual(self.html.count("</script>"), 3)
        self.assertIn(f'attnlabNotebook.mount("{i}")', self.html)
        self.assertNotEqual(i, payload_of(attnlab.attention(self.q, self.k, self.v)._repr_html_())[0])

    def test_the_build_travels_compressed(self):
        m = re.search(r'data-js="([^"]+)" data-wasm="([^"]+)" data-css="([^"]+)"', self.html)
        js, wasm, css = (gzip.decompress(base64.b64decode(m.group(n))) for n in (1, 2, 3))
        self.assertEqual(wasm[:4], b"\0asm")
        self.assertIn(b"createAttnLab", js)
        self.assertIn(b"import.meta.url", js)  # the glue replaces it with its own base
        self.assertIn(b".katex", css)
        self.assertNotRegex(css.decode(), r"url\((?!data:)")  # every font is inline or dropped: no request
        self.assertIn(b"data:font/woff2;base64,", css)
        # Lazily imported chunks travel too (KaTeX), named as attnlab.js imports them; GPT-2's vocabulary does not.
        chunks = json.loads(html_unescape(re.search(r'data-chunks="([^"]*)"', self.html).group(1)))
        self.assertTrue(chunks and all(k.startswith("./assets/") for k in chunks))
        self.assertFalse(any("r50k_base" in k for k in chunks))
        for k, v in chunks.items():
            self.assertIn(f"import(`{k}`)".encode(), js)
            self.assertGreater(len(gzip.decompress(base64.b64decode(v))), 1000)

    def test_page_and_widget_tags(self):
        with tempfile.TemporaryDirectory() as d:
            page = attnlab.show("attn-steps", preset="football", stage=3, hash_key=None, d_model=4).save(Path(d) / "w.html")
            text = Path(page).read_text(encoding="utf-8")
        self.assertTrue(text.startswith("<!doctype html>"))
        _, p = payload_of(text)
        self.assertEqual(p, {"kind": "show", "tag": "attn-steps", "attributes": {"preset": "football", "stage": "3", "d-model": "4"}})


class Wheel(unittest.TestCase):
    """The stdlib build backend: a wheel with the package and the standalone files (pip install ./python)."""

    def test_build_wheel(self):
        import backend
        with tempfile.TemporaryDirectory() as d:
            name = backend.build_wheel(d)
            self.assertEqual(name, "attnlab-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(Path(d) / name) as z:
                names = z.namelist()
                self.assertIn("attnlab/__init__.py", names)
                self.assertIn("attnlab/notebook.js", names)
                self.assertIn("attnlab/_static/attnlab.js", names)
                self.assertTrue(any(re.fullmatch(r"attnlab/_static/assets/attnlab-core.*\.wasm", n) for n in names))
                self.assertTrue(any(n.endswith(".css") for n in names))
                record = z.read("attnlab-0.1.0.dist-info/RECORD").decode()
                self.assertEqual(len(record.strip().splitlines()), len(names))
                self.assertEqual(backend.get_requires_for_build_wheel(), [])


if __name__ == "__main__":
    unittest.main()
