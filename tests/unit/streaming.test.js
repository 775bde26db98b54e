// issue 6: multiHeadAttention({ …, intermediates: false }) — the streaming throughput mode — against
// PyTorch's goldens, against the all-intermediates path for every option, and on a long sequence
// against an independent float64 reference, without memory for the [heads·T·T] weights.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { expectClose, golden, maskArg, randomArray, seededRandom } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

describe('streaming multi-head attention vs torch.nn.MultiheadAttention', () => {
  const { cases } = golden('multihead');
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const args = {
      x: c.x, tq: c.tq, dModel: c.dModel, heads: c.heads, wq: c.wq, wk: c.wk, wv: c.wv, wo: c.wo,
      mask: maskArg(c.mask), intermediates: false,
    };
    for (const b of ['bq', 'bk', 'bv', 'bo']) if (c[b]) args[b] = c[b];
    if (c.context) Object.assign(args, { context: c.context, tk: c.tk });
    const r = lab.multiHeadAttention(args);
    expect(Object.keys(r)).toEqual(['output']);
    expectClose(r.output, c.expected.output, 'output');
  });
});

function randomMha(rand, tq, D, H, extra = {}) {
  const s = 1 / Math.sqrt(D);
  return {
    x: randomArray(tq * D, rand), tq, dModel: D, heads: H,
    wq: randomArray(D * D, rand, s), wk: randomArray(D * D, rand, s), wv: randomArray(D * D, rand, s),
    wo: randomArray(D * D, rand, s), ...extra,
  };
}

describe('streaming equals the all-intermediates output', () => {
  const rand = seededRandom(6);
  const padding = (tq, tk) => {
    const m = new Float32Array(tq * tk);
    for (let i = 0; i < tq; i++) for (let j = 0; j < tk; j++) if ((i + 2 * j) % 5 === 0) m[i * tk + j] = -Infinity;
    return m;
  };
  const cases = [
    ['no mask, crosses 48-query and 128-key blocks', randomMha(rand, 200, 32, 4)],
    ['causal', randomMha(rand, 200, 32, 4, { mask: 'causal' })],
    ['window 9', randomMha(rand, 150, 24, 3, { mask: { window: 9 } })],
    ['causal window 4', randomMha(rand, 150, 24, 3, { mask: { window: 4, causal: true } })],
    ['additive mask, cross-attention tq ≠ tk', randomMha(rand, 97, 20, 5, { context: randomArray(263 * 20, rand), tk: 263, mask: padding(97, 263) })],
    ['biases', randomMha(rand, 61, 16, 2, { bq: randomArray(16, rand), bk: randomArray(16, rand), bv: randomArray(16, rand), bo: randomArray(16, rand) })],
    ['rope', randomMha(rand, 130, 16, 2, { rope: true, mask: 'causal' })],
    ['alibi', randomMha(rand, 130, 16, 4, { alibi: true })],
    ['scale 1', randomMha(rand, 33, 8, 2, { scale: 1 })],
  ];
  test.each(cases)('%s', (_name, args) => {
    const full = lab.multiHeadAttention(args);
    const fast = lab.multiHeadAttention({ ...args, intermediates: false });
    expectClose(fast.output, full.output, 'output');
  });

  test('intermediates must be a boolean', () => {
    expect(() => lab.multiHeadAttention(randomMha(rand, 2, 4, 2, { intermediates: 'no' })))
      .toThrow('multiHeadAttention: intermediates is "no", expected true or false');
  });
});

describe('a long sequence streams in O(T·dModel) memory', () => {
  test('T = 4096, dModel = 64, 2 heads, causal: rows match a float64 reference', () => {
    const T = 4096, D = 64, H = 2, dk = D / H;
    const args = randomMha(seededRandom(4096), T, D, H, { mask: 'causal', intermediates: false });
    const { output } = lab.multiHeadAttention(args);
    // The weights alone would need heads·T·T floats (128 MiB); the call used a few [T·dModel] buffers.
    expect(lab.info().arenaBytes).toBeLessThan(16 * T * D * 4);
    // float64 reference for a few query rows (all keys they see), straight from the definition.
    const proj = (w, rows) => {
      const out = new Float64Array(rows.length * D);
      rows.forEach((t, r) => {
        for (let c = 0; c < D; c++) {
          let s = 0;
          for (let p = 0; p < D; p++) s += args.x[t * D + p] * w[p * D + c];
          out[r * D + c] = s;
        }
      });
      return out;
    };
    const allRows = Array.from({ length: T }, (_, t) => t);
    const K = proj(args.wk, allRows), V = proj(args.wv, allRows);
    for (const i of [0, 1, 47, 48, 1000, 4095]) {
      const q = proj(args.wq, [i]);
      const head = new Float64Array(D);
      for (let h = 0; h < H; h++) {
        const s = new Float64Array(i + 1);
        let mx = -Infinity;
        for (let j = 0; j <= i; j++) {
          let d = 0;
          for (let c = 0; c < dk; c++) d += q[h * dk + c] * K[j * D + h * dk + c];
          s[j] = d / Math.sqrt(dk);
          mx = Math.max(mx, s[j]);
        }
        let z = 0;
        for (let j = 0; j <= i; j++) z += (s[j] = Math.exp(s[j] - mx));
        for (let j = 0; j <= i; j++)
          for (let c = 0; c < dk; c++) head[h * dk + c] += (s[j] / z) * V[j * D + h * dk + c];
      }
      const expected = new Float64Array(D);
      for (let c = 0; c < D; c++) for (let p = 0; p < D; p++) expected[c] += head[p] * args.wo[p * D + c];
      expectClose(output.subarray(i * D, (i + 1) * D), expected, `row ${i}`);
    }
  });
});
