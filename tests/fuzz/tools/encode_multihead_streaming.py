#!/usr/bin/env python3
"""Encodes one multi-head call as an input of tests/fuzz/fuzz_multihead_streaming.cc, so a case found
by hand (or in an issue) can be committed to the corpus and replayed by `npm test`.

FuzzedDataProvider hands out integers from the END of the input, one byte each for the ranges used
here, so the bytes are written in the order the harness consumes them and then reversed. value()
reads a mode byte (< 160: int8/16 follows; < 220: an index into fuzz::special follows).

    python3 tests/fuzz/tools/encode_multihead_streaming.py > tests/fuzz/corpus/multihead_streaming/regress-…

writes the regression case this corpus entry holds: self-attention, t = 10, dModel = 2, 2 heads, window mask (w = 5),
scale = FLT_MAX, one input −1e19 (the full and the streaming paths used to disagree on it).
"""
import sys

SPECIAL = {1e19: 17, -1e19: 18, 'FLT_MAX': 12}  # indices into fuzz::special


def value(v):
    if v in SPECIAL:
        return [160, SPECIAL[v]]
    i = round(v * 16)
    assert -128 <= i <= 127 and i / 16 == v, f'{v} is not an int8/16 value'
    return [0, i & 0xFF]


def encode(t, d_model, heads, window, scale, x, weights):
    b = [t, d_model, heads, 0]           # t_q, D, H; cross = false
    b += [0] + value(scale)              # scale: flag even → value()
    b += [0, 1, 0, 0]                    # rope off, default rope base, alibi off, no biases
    b += [2, window + 3, 0]              # mask kind 2 = window: integer(-3, 70) = w, not causal
    b += [1]                             # clean(): all values finite
    for v in x:
        b += value(v)
    for w in weights:                    # wq, wk, wv, wo [D·D]
        for v in w:
            b += value(v)
    return bytes(reversed(b))


if __name__ == '__main__':
    x = [-0.5, 0.25, 0.25, 2.0, 0.5, 0.0, -1e19, 0.5, 0.5, 1.0,
         2.0, 0.0, -1.0, 0.25, 2.0, 0.25, 0.25, -0.5, 0.25, 2.0]
    w = [[2.0, 0.25, 0.0, 0.25], [2.0, -0.5, -0.5, 0.5], [-0.5, -1.0, 2.0, 0.25], [-0.5, 0.25, -1.0, 0.5]]
    sys.stdout.buffer.write(encode(10, 2, 2, 5, 'FLT_MAX', x, w))
