#!/usr/bin/env python3
"""Reads a safetensors checkpoint with nothing but Python's standard library — a reader written
from the format's description (huggingface/safetensors), independent of attnlab's C++ — and prints
what it holds, or compares it with what a test expected.

    read_safetensors.py FILE                 print {metadata, tensors: {name: {shape, sum, first}}}
    read_safetensors.py FILE EXPECTED.json   also compare; exit 1 and say what differs

The format: 8 bytes little-endian u64 N; N bytes of UTF-8 JSON {"__metadata__": {str: str},
name: {"dtype", "shape", "data_offsets": [begin, end]}, ...} (trailing spaces allowed); then the
data, each tensor at [begin, end) of it, little-endian, row-major. Only F32 is read (attnlab's
only dtype). `sum` is the float64 sum of the values in file order, `first` the first 8 values
(float32 values are exact in JSON's doubles).

EXPECTED.json has the same shape as the output. metadata: every key given must be equal (keys not
given are not checked). tensors: the same set of names; per tensor, the fields given (shape, first,
sum) must agree — shape and first exactly, sum up to the rounding of a float64 sum taken in another
order (both sums are within (n-1)·2^-53·sum|x| of the exact one).

With torch and the `safetensors` package importable (Debian's python3-torch is /usr/bin/python3;
safetensors is a pip package, usually absent), the file is also loaded with
safetensors.torch.load_file and every tensor compared bit for bit with this reader's values.

Exit status: 0 ok, 1 a comparison failed, 2 the file is malformed (message on stderr).
"""
import array
import json
import math
import struct
import sys

MAX_HEADER = 100_000_000  # as the reference implementation


class Malformed(Exception):
    pass


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise Malformed(f"{len(raw)} bytes, expected at least 8")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8 or n > MAX_HEADER:
        raise Malformed(f"header length {n} does not fit in {len(raw)} bytes")
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Malformed(f"header is not UTF-8 JSON: {e}")
    if not isinstance(header, dict):
        raise Malformed("header is not a JSON object")
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise Malformed("__metadata__ is not an object of strings")
    data = raw[8 + n:]
    tensors = {}
    spans = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise Malformed(f"{name}: expected exactly dtype, shape, data_offsets")
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if dtype != "F32":
            raise Malformed(f"{name}: dtype {dtype!r}, this reader knows only F32")
        if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            raise Malformed(f"{name}: shape {shape!r} is not a list of non-negative integers")
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
            raise Malformed(f"{name}: data_offsets {offsets!r} is not [begin, end]")
        begin, end = offsets
        if not 0 <= begin <= end <= len(data):
            raise Malformed(f"{name}: data_offsets [{begin}, {end}] outside the {len(data)} bytes of data")
        if end - begin != 4 * math.prod(shape):
            raise Malformed(f"{name}: {end - begin} bytes for shape {shape}")
        values = array.array("f")
        values.frombytes(data[begin:end])
        if sys.byteorder != "little":
            values.byteswap()
        tensors[name] = (shape, values)
        spans.append((begin, end, name))
    spans.sort()
    at = 0
    for begin, end, name in spans:
        if begin != at:
            raise Malformed(f"{name} begins at {begin}, expected {at} (no gaps, no overlaps)")
        at = end
    if at != len(data):
        raise Malformed(f"the data has {len(data)} bytes, the tensors cover {at}")
    return metadata, tensors


def summary(metadata, tensors):
    return {
        "metadata": metadata,
        "tensors": {
            name: {"shape": shape, "sum": sum(values, 0.0), "first": values[:8].tolist()}
            for name, (shape, values) in tensors.items()
        },
    }


def compare(got, want, tensors):
    problems = []
    for k, v in want.get("metadata", {}).items():
        if got["metadata"].get(k) != v:
            problems.append(f"metadata {k}: {got['metadata'].get(k)!r}, expected {v!r}")
    if "tensors" in want:
        g, w = set(got["tensors"]), set(want["tensors"])
        if g != w:
            problems.append(f"tensors: extra {sorted(g - w)}, missing {sorted(w - g)}")
        for name in sorted(g & w):
            gt, wt = got["tensors"][name], want["tensors"][name]
            for field in ("shape", "first"):
                if field in wt and gt[field] != wt[field]:
                    problems.append(f"{name}.{field}: {gt[field]}, expected {wt[field]}")
            if "sum" in wt:
                # Two float64 sums of the same n values in any order: each is within
                # (n-1)·2^-53·sum|x| of the exact sum (recursive summation's error bound).
                values = tensors[name][1]
                bound = 2 * max(len(values) - 1, 0) * 2.0**-53 * sum(abs(x) for x in values)
                if not abs(gt["sum"] - wt["sum"]) <= bound:
                    problems.append(f"{name}.sum: {gt['sum']!r}, expected {wt['sum']!r} (to within {bound:.3g})")
    return problems


def compare_with_safetensors(path, tensors):
    try:
        import torch  # noqa: F401
        from safetensors.torch import load_file
    except ImportError:
        return None
    loaded = load_file(path)
    problems = []
    if set(loaded) != set(tensors):
        problems.append(f"safetensors.torch sees tensors {sorted(loaded)}")
    for name, (shape, values) in tensors.items():
        t = loaded.get(name)
        if t is None:
            continue
        if list(t.shape) != shape or t.flatten().tolist() != [float(x) for x in values]:
            problems.append(f"safetensors.torch reads {name} differently")
    return problems


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        metadata, tensors = read(argv[1])
    except Malformed as e:
        print(f"read_safetensors: {argv[1]}: {e}", file=sys.stderr)
        return 2
    got = summary(metadata, tensors)
    print(json.dumps(got))
    problems = []
    if len(argv) == 3:
        with open(argv[2]) as f:
            problems += compare(got, json.load(f), tensors)
    extra = compare_with_safetensors(argv[1], tensors)
    if extra is not None:
        problems += extra
        print("read_safetensors: also read with safetensors.torch", file=sys.stderr)
    for p in problems:
        print(f"read_safetensors: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
