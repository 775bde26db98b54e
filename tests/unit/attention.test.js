// attention (scaled dot-product, one head): the properties the lecture states, on random inputs, and
// numerical edges against an independent float64 reference. The same op vs PyTorch: golden.test.js;
// its bad input: bad-input.test.js; its memory: memory.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { TOL, attentionF64, expectClose, randomArray, seededRandom } from './helpers.js';
import { ENTRY, fill, ramp } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const rand = seededRandom(42);

function checkAttention(args, tol = TOL.ref) {
  const r = lab.attention(args), ref = attentionF64(args);
  expectClose(r.weights, ref.weights, 'weights', tol);
  expectClose(r.output, ref.output, 'output', tol);
  return r;
}

describe('attention properties', () => {
  test('rows of weights sum to 1, entries in [0, 1]', () => {
    for (const [tq, tk, dk] of [[1, 1, 1], [5, 9, 3], [17, 4, 8], [33, 33, 16]]) {
      const r = lab.attention({ q: randomArray(tq * dk, rand, 3), k: randomArray(tk * dk, rand, 3), v: randomArray(tk * 2, rand), tq, tk, dk, dv: 2 });
      for (let i = 0; i < tq; i++) {
        let s = 0;
        for (let j = 0; j < tk; j++) {
          const w = r.weights[i * tk + j];
          expect(w).toBeGreaterThanOrEqual(0);
          expect(w).toBeLessThanOrEqual(1);
          s += w;
        }
        expectClose(s, 1, 'Σ weights', TOL.reorder);
      }
    }
  });

  test('causal weights above the diagonal are exactly 0', () => {
    const t = 11, dk = 4;
    const r = lab.attention({ q: randomArray(t * dk, rand), k: randomArray(t * dk, rand), v: randomArray(t * 3, rand), tq: t, tk: t, dk, dv: 3, mask: 'causal' });
    for (let i = 0; i < t; i++)
      for (let j = i + 1; j < t; j++) {
        expect(r.weights[i * t + j]).toBe(0);
        expect(r.scaled[i * t + j]).toBe(-Infinity);
      }
    expect(r.weights[0]).toBe(1);  // the first token can only attend to itself
  });

  test('window masks allow exactly |i−j| ≤ w, causal windows 0 ≤ i−j ≤ w', () => {
    const t = 9, dk = 3;
    const args = { q: randomArray(t * dk, rand), k: randomArray(t * dk, rand), v: randomArray(t, rand), tq: t, tk: t, dk, dv: 1 };
    const sym = lab.attention({ ...args, mask: { window: 2 } });
    const back = lab.attention({ ...args, mask: { window: 2, causal: true } });
    for (let i = 0; i < t; i++)
      for (let j = 0; j < t; j++) {
        expect(sym.weights[i * t + j] > 0).toBe(Math.abs(i - j) <= 2);
        expect(back.weights[i * t + j] > 0).toBe(i - j >= 0 && i - j <= 2);
      }
  });

  test('a fully masked row gives weights 0 and output 0, never NaN', () => {
    const mask = new Float32Array([0, 0, -Infinity, -Infinity, -Infinity, -Infinity]);
    const r = lab.attention({ q: [1, 2], k: [1, 2, 3], v: [1, 2, 3], tq: 2, tk: 3, dk: 1, dv: 1, mask });
    expect(Array.from(r.weights.slice(3))).toEqual([0, 0, 0]);
    expect(r.output[1]).toBe(0);
    expectClose(r.weights[0] + r.weights[1], 1, 'Σ weights', TOL.reorder);
  });

  test('permuting keys and values together leaves the output unchanged (permutation equivariance)', () => {
    const tq = 4, tk = 6, dk = 5, dv = 3;
    const q = randomArray(tq * dk, rand), k = randomArray(tk * dk, rand), v = randomArray(tk * dv, rand);
    const perm = [4, 2, 0, 5, 1, 3];
    const kp = new Float32Array(tk * dk), vp = new Float32Array(tk * dv);
    perm.forEach((src, dst) => {
      kp.set(k.subarray(src * dk, src * dk + dk), dst * dk);
      vp.set(v.subarray(src * dv, src * dv + dv), dst * dv);
    });
    const a = lab.attention({ q, k, v, tq, tk, dk, dv }), b = lab.attention({ q, k: kp, v: vp, tq, tk, dk, dv });
    expectClose(b.output, a.output, 'output', TOL.reorder);
  });


  test('huge logits (±1e30) stay finite', () => {
    const mask = new Float32Array([1e30, -1e30, 0, -Infinity]);
    const r = lab.attention({ q: [0], k: [0, 0, 0, 0], v: [1, 2, 3, 4], tq: 1, tk: 4, dk: 1, dv: 1, mask });
    expect(Array.from(r.weights)).toEqual([1, 0, 0, 0]);
    expect(r.output[0]).toBe(1);
    const big = lab.attention({ q: [1e15], k: [1e15, -1e15], v: [5, 7], tq: 1, tk: 2, dk: 1, dv: 1, scale: 1 });
    expect(Array.from(big.weights)).toEqual([1, 0]);
  });

  test('scale 1 vs 1/√dk: without scaling, large dk saturates the softmax', () => {
    const dk = 256, tk = 8;
    const q = randomArray(dk, rand, 1.7), k = randomArray(tk * dk, rand, 1.7), v = randomArray(tk, rand);
    const scaled = lab.attention({ q, k, v, tq: 1, tk, dk, dv: 1 });
    const raw = lab.attention({ q, k, v, tq: 1, tk, dk, dv: 1, scale: 1 });
    expect(Math.max(...raw.weights)).toBeGreaterThan(Math.max(...scaled.weights));
  });
});

describe('attention: numerical edges, finite and documented results', () => {
  test('logits ±1e30: the max-subtracted softmax picks the largest, no overflow', () => {
    // scores = q·k = ±1e30 (scale 1): weights [1, 0] and [0, 1]; equal 1e30 logits share evenly.
    const q = Float32Array.of(1e15, -1e15), k = Float32Array.of(1e15, -1e15, 1e15), v = Float32Array.of(1, 2, 3);
    const r = checkAttention({ q, k, v, tq: 2, tk: 3, dk: 1, dv: 1, scale: 1 });
    const s = Math.fround(Math.fround(1e15) ** 2);  // ≈ 1e30, the float32 product
    expect(Array.from(r.scaled)).toEqual([s, -s, s, -s, s, -s]);
  });
  test('scores that could overflow float32 are refused before computing, one-sided or NaN', () => {
    // Whether a float32 dot product overflows depends on its summation order; the bound does not.
    expect(() => lab.attention({ q: [1e20], k: [1e20, 1], v: [5, 7], tq: 1, tk: 2, dk: 1, dv: 1, scale: 1 }))
      .toThrow(/^attention: scores q·kᵀ can exceed float32 range \(bound 1e40\), expected \|q\|·\|k\| within 3.4e38$/);
    expect(() => lab.attention({ q: [1e30, 1e30], k: [1e30, -1e30], v: [1], tq: 1, tk: 1, dk: 2, dv: 1 }))
      .toThrow(/^attention: scores q·kᵀ can exceed float32 range \(bound 2e60\), expected \|q\|·\|k\| within 3.4e38$/);
    // scaled = q·k·scale + mask: a finite mask entry counts, −Infinity does not.
    const q = [1e19], k = [1e19, 1], v = [5, 7];
    expect(() => lab.attention({ q, k, v, tq: 1, tk: 2, dk: 1, dv: 1, scale: 1, mask: [-3e38, 0] }))
      .toThrow(/^attention: scores q·kᵀ·scale can exceed float32 range \(bound 4e38\), expected \|q\|·\|k\|·scale \+ \|mask\| within 3.4e38$/);
    expect(Array.from(lab.attention({ q, k, v, tq: 1, tk: 2, dk: 1, dv: 1, scale: 1, mask: [-Infinity, 0] }).output)).toEqual([7]);
  });
  test('all-masked rows give weights 0 and output 0, in every entry point that masks', () => {
    const mask = fill(9, (i) => (i < 3 ? -Infinity : 0));  // row 0: every key removed
    const a = ENTRY.attention.good();
    const r = checkAttention({ ...a, mask });
    expect(Array.from(r.weights.slice(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from(r.output.slice(0, 2))).toEqual([0, 0]);
    const m = lab.multiHeadAttention({ ...ENTRY.multiHeadAttention.good(), mask });
    for (let h = 0; h < 2; h++) expect(Array.from(m.weights.slice(h * 9, h * 9 + 3))).toEqual([0, 0, 0]);
    expect(Array.from(m.heads.slice(0, 4))).toEqual([0, 0, 0, 0]);
    const s = lab.multiHeadAttention({ ...ENTRY.multiHeadAttention.good(), mask, intermediates: false });
    expectClose(s.output, m.output, 'output');
    // −∞ everywhere in a window mask of width 0 that is causal keeps only the diagonal: never empty.
    const w = lab.attention({ ...a, mask: { window: 0, causal: true } });
    expect(Array.from(w.weights)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });
  test('denormal inputs: scores underflow to 0, weights uniform, output the mean of v', () => {
    const tiny = 1e-40;  // a float32 denormal
    const args = { q: fill(4, () => tiny), k: fill(6, (i) => tiny * (i + 1)), v: fill(3, (i) => tiny * (i + 1)), tq: 2, tk: 3, dk: 2, dv: 1 };
    const r = checkAttention(args, TOL.denormal);
    expectClose(r.weights, new Float64Array(6).fill(1 / 3), 'weights');
    for (const x of r.output) expect(x).toBeGreaterThan(0);  // denormal outputs survive (no flush to zero)
  });
  test('dk = 1, t = 1: one key gets weight 1 and the output is its value', () => {
    const r = lab.attention({ q: [0.3], k: [-7], v: [2.5, -1], tq: 1, tk: 1, dk: 1, dv: 2 });
    expect(Array.from(r.weights)).toEqual([1]);
    expect(Array.from(r.output)).toEqual([2.5, -1]);
    const m = lab.multiHeadAttention({ x: [0.5], tq: 1, dModel: 1, heads: 1, wq: [1], wk: [1], wv: [2], wo: [3] });
    expect(Array.from(m.weights)).toEqual([1]);
    expect(Array.from(m.output)).toEqual([3]);  // 0.5·2·3
  });
  test('a very long row: tq = 1, tk = 100,000 matches float64 and sums to 1', () => {
    const tk = 100000, dk = 4, dv = 2;
    const q = ramp(dk, 1), k = fill(tk * dk, (i) => Math.sin(i * 0.37)), v = fill(tk * dv, (i) => Math.cos(i * 0.11));
    const r = checkAttention({ q, k, v, tq: 1, tk, dk, dv }, TOL.long);
    let sum = 0;
    for (const w of r.weights) sum += w;
    expectClose(sum, 1, 'Σ weights', TOL.long);
  });
});
