// Properties the lecture states, checked on random inputs.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { randomArray, seededRandom } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const rand = seededRandom(42);

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
        expect(s).toBeCloseTo(1, 5);
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
    expect(r.weights[0] + r.weights[1]).toBeCloseTo(1, 6);
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
    for (let i = 0; i < tq * dv; i++) expect(b.output[i]).toBeCloseTo(a.output[i], 5);
  });

  test('permuting the tokens of self-attention permutes its outputs ("I am Sam" ~ "Sam I am")', () => {
    const t = 3, D = 4;
    const x = randomArray(t * D, rand), w = () => randomArray(D * D, rand, 0.5);
    const W = { wq: w(), wk: w(), wv: w(), wo: w() };
    const perm = [2, 0, 1];
    const xp = new Float32Array(t * D);
    perm.forEach((src, dst) => xp.set(x.subarray(src * D, src * D + D), dst * D));
    const a = lab.multiHeadAttention({ x, tq: t, dModel: D, heads: 2, ...W });
    const b = lab.multiHeadAttention({ x: xp, tq: t, dModel: D, heads: 2, ...W });
    perm.forEach((src, dst) => {
      for (let c = 0; c < D; c++) expect(b.output[dst * D + c]).toBeCloseTo(a.output[src * D + c], 5);
    });
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

  test('RoPE: q·k after rotation depends only on the position offset', () => {
    const q = randomArray(8, rand), k = randomArray(8, rand);
    const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
    const d1 = dot(lab.rope({ x: q, t: 1, dim: 8, offset: 7 }), lab.rope({ x: k, t: 1, dim: 8, offset: 3 }));
    const d2 = dot(lab.rope({ x: q, t: 1, dim: 8, offset: 20 }), lab.rope({ x: k, t: 1, dim: 8, offset: 16 }));
    expect(d1).toBeCloseTo(d2, 4);
  });

  test('multi-head with ALiBi equals attention with the ALiBi bias as an additive mask', () => {
    const t = 5, D = 4, H = 2;
    const W = { wq: randomArray(D * D, rand), wk: randomArray(D * D, rand), wv: randomArray(D * D, rand), wo: randomArray(D * D, rand) };
    const x = randomArray(t * D, rand);
    const r = lab.multiHeadAttention({ x, tq: t, dModel: D, heads: H, ...W, alibi: true });
    const { bias } = lab.alibi({ heads: H, tq: t });
    for (let h = 0; h < H; h++) {
      const sl = (m) => { const o = new Float32Array(t * 2); for (let i = 0; i < t; i++) o.set(m.subarray(i * D + h * 2, i * D + h * 2 + 2), i * 2); return o; };
      const a = lab.attention({ q: sl(r.q), k: sl(r.k), v: sl(r.v), tq: t, tk: t, dk: 2, dv: 2, mask: bias.subarray(h * t * t, (h + 1) * t * t) });
      for (let i = 0; i < t * t; i++) expect(r.weights[h * t * t + i]).toBeCloseTo(a.weights[i], 5);
    }
  });

  test('learned positional encodings are rows of the table, and refuse to go past it', () => {
    const table = randomArray(6 * 4, rand);
    expect(Array.from(lab.positionalEncoding({ kind: 'learned', table, maxLength: 6, dModel: 4, length: 3 }))).toEqual(Array.from(table.slice(0, 12)));
    expect(() => lab.positionalEncoding({ kind: 'learned', table, maxLength: 6, dModel: 4, length: 7 })).toThrow(/beyond the length it was trained for/);
  });
});
