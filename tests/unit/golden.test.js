// The WASM build against PyTorch (tests/golden/generate.py, Debian python3-torch): every case, every
// intermediate, float32 within 1e-4 relative.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { expectClose, golden, maskArg } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

describe('attention vs PyTorch', () => {
  const { cases } = golden('attention');
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const r = lab.attention({
      q: c.q, k: c.k, v: c.v, tq: c.tq, tk: c.tk, dk: c.dk, dv: c.dv,
      mask: maskArg(c.mask), ...(c.scale !== null ? { scale: c.scale } : {}),
    });
    expectClose(r.scores, c.expected.scores, 'scores');
    expectClose(r.scaled, c.expected.scaled, 'scaled');
    expectClose(r.weights, c.expected.weights, 'weights');
    expectClose(r.output, c.expected.output, 'output');
  });
});

describe('multi-head attention vs torch.nn.MultiheadAttention', () => {
  const { cases } = golden('multihead');
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const args = {
      x: c.x, tq: c.tq, dModel: c.dModel, heads: c.heads, wq: c.wq, wk: c.wk, wv: c.wv, wo: c.wo,
      mask: maskArg(c.mask),
    };
    for (const b of ['bq', 'bk', 'bv', 'bo']) if (c[b]) args[b] = c[b];
    if (c.context) Object.assign(args, { context: c.context, tk: c.tk });
    const r = lab.multiHeadAttention(args);
    for (const key of ['q', 'k', 'v', 'weights', 'heads', 'output']) expectClose(r[key], c.expected[key], key);
  });
});

describe('positional encodings vs the formulas (float64)', () => {
  const g = golden('positional');
  test.each(g.cases.map((c) => [`sinusoidal L${c.length} D${c.dModel} base ${c.base}`, c]))('%s', (_n, c) => {
    expectClose(lab.positionalEncoding({ kind: 'sinusoidal', length: c.length, dModel: c.dModel, base: c.base }), c.expected, 'pe');
  });
  test.each(g.rope.map((c) => [`rope t${c.t} d${c.d}`, c]))('%s', (_n, c) => {
    expectClose(lab.rope({ x: c.x, t: c.t, dim: c.d, base: c.base }), c.expected, 'rope');
  });
  test.each(g.alibi.map((c) => [`alibi heads ${c.heads} t${c.t}`, c]))('%s', (_n, c) => {
    const r = lab.alibi({ heads: c.heads, tq: c.t });
    expectClose(r.slopes, c.slopes, 'slopes');
    expectClose(r.bias, c.bias, 'bias');
  });
  test('sinusoidal default base is 10000', () => {
    const c = g.cases.find((x) => x.base === 10000 && x.length > 1);
    expect(Array.from(lab.positionalEncoding({ kind: 'sinusoidal', length: c.length, dModel: c.dModel })))
      .toEqual(Array.from(lab.positionalEncoding({ kind: 'sinusoidal', length: c.length, dModel: c.dModel, base: 10000 })));
  });
});
