#!/usr/bin/env python3
"""Encodes multi-head attention backward cases as inputs of tests/fuzz/fuzz_grad_multihead_streaming.cc,
so that cases chosen by hand can be committed to its corpus and replayed by `npm test`.

FuzzedDataProvider hands out integers from the END of the input (one byte each for the ranges used
here, two for the generator's seed, high byte first), so the bytes are written in the order the harness
consumes them and then reversed. Every case here uses the harness's generator (synth), so only the
header (and an additive mask's entries) is encoded: the values — x, context, the weights and biases
scaled by 2^-wexp, dout — come from the seed.

    python3 tests/fuzz/tools/encode_grad_multihead_streaming.py tests/fuzz/corpus/grad_multihead_streaming

writes the named cases below into that directory.
"""
import os
import sys

MASK = {'none': 0, 'causal': 1, 'window': 2, 'additive': 3, 'additive-null': 4}


def flag(b):
    return [1 if b else 0]


def encode(t_q, d_model, heads, t_k=None, scale=None, rope=False, alibi=False, biases=False,
           mask='none', window=0, causal_window=False, mask_pattern=None, want=(True,) * 10,
           init_one=False, wexp=7, seed=1):
    b = [t_q, d_model, heads]
    b += flag(t_k is not None) + ([t_k] if t_k is not None else [])
    assert scale is None, 'only the default scale (1/sqrt(d_k)) is encoded here'
    b += flag(True)                      # scale: flag set → 0 → 1/sqrt(d_k)
    b += flag(rope) + flag(True)         # RoPE, default base 10000
    b += flag(alibi) + flag(biases)
    b += [MASK[mask]]
    if mask == 'window':
        b += [window + 3] + flag(causal_window)   # integer(-3, 70), then causal
    elif mask == 'additive':
        # clean() (nonzero: finite entries), then per entry integer(0, 3) (0: −∞) and, else, a value().
        b += [1]
        tk = t_k if t_k is not None else t_q
        for i in range(t_q):
            for j in range(tk):
                v = mask_pattern(i, j)
                if v is None:
                    b += [0]
                else:
                    assert -128 <= round(v * 16) <= 127 and round(v * 16) / 16 == v
                    b += [1, 0, round(v * 16) & 0xFF]
    b += [1 if w else 0 for w in want]
    b += flag(init_one)                  # flag set → the gradients start at 1 (else 0)
    b += [wexp]                          # integer(0, 10): weights and biases times 2^-wexp
    b += flag(True)                      # synth: values from the generator
    b += [seed >> 8, seed & 0xFF]        # integer(0, 65535)
    return bytes(reversed(b))


CASES = {
    # self-attention, every mask kind, past the 48-query block and (t = 140) the 128-key block
    'self-none-t140-keyblock': dict(t_q=140, d_model=8, heads=2),
    'self-causal-t100-rope-biases': dict(t_q=100, d_model=12, heads=3, mask='causal', rope=True, biases=True),
    'self-window7-t120-alibi': dict(t_q=120, d_model=8, heads=4, mask='window', window=7, alibi=True),
    'self-causal-window3-t60-rope-alibi': dict(t_q=60, d_model=16, heads=4, mask='window', window=3,
                                               causal_window=True, rope=True, alibi=True),
    'self-additive-padding-t20-emptyrow': dict(t_q=20, d_model=6, heads=3, mask='additive', biases=True,
                                               mask_pattern=lambda i, j: None if j >= 15 or i == 1 else 0.0),
    # cross-attention (t_q ≠ t_k): no mask, additive mask; the gradients start at 1 (accumulate)
    'cross-tq50-tk135-biases-accumulate': dict(t_q=50, t_k=135, d_model=8, heads=2, biases=True, init_one=True),
    'cross-tq9-tk13-additive-rope': dict(t_q=9, t_k=13, d_model=4, heads=1, mask='additive', rope=True,
                                         mask_pattern=lambda i, j: None if (i + 2 * j) % 3 == 0 else (i - j) / 4),
    # large scores (weights not scaled down): nearly one-hot softmax rows, float32 lse at its limit
    'self-causal-t64-large-scores': dict(t_q=64, d_model=8, heads=2, mask='causal', wexp=0),
    # only some gradients wanted (dx, dwo, dbk)
    'self-causal-t49-some-grads': dict(t_q=49, d_model=16, heads=2, mask='causal',
                                       want=(True, False, False, False, False, True, False, True, False, False)),
    # refusals (both backwards refuse with the same reason): 3 heads do not divide dModel 8; a causal
    # mask in cross-attention; ALiBi in cross-attention; an additive mask without values
    'refuse-heads-divide': dict(t_q=4, d_model=8, heads=3),
    'refuse-causal-cross': dict(t_q=4, t_k=5, d_model=4, heads=2, mask='causal'),
    'refuse-alibi-cross': dict(t_q=4, t_k=5, d_model=4, heads=2, alibi=True),
    'refuse-additive-null': dict(t_q=4, d_model=4, heads=2, mask='additive-null'),
}

if __name__ == '__main__':
    out = sys.argv[1] if len(sys.argv) > 1 else '.'
    for name, kw in CASES.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(encode(**kw))
