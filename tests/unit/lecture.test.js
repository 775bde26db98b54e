// The lecture's worked examples, exactly as the notes and the deck print them.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { TOL, expectClose, matmul } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const round4 = (xs) => Array.from(xs, (x) => Number(x.toFixed(4)));

describe('study notes: "I / play / football"', () => {
  const X = [0.2, 0.4, 0.6, 0.8, 0.3, 0.3, 0.1, 0.2, 0.5];
  const WQ = [1, 0, 0, 1, 1, -1], WK = [0.5, -0.5, 1, 0, 0, 1], WV = [1, 1, 0.5, -0.5, 1, 0];
  test('Q, K, V, weights and outputs match the notes to 4 decimals', () => {
    const q = matmul(X, WQ, 3, 3, 2), k = matmul(X, WK, 3, 3, 2), v = matmul(X, WV, 3, 3, 2);
    expect(round4(q)).toEqual([0.8, -0.2, 1.1, 0, 0.6, -0.3]);
    expect(round4(k)).toEqual([0.5, 0.5, 0.7, -0.1, 0.25, 0.45]);
    expect(round4(v)).toEqual([1, 0, 1.25, 0.65, 0.7, 0]);
    const r = lab.attention({ q, k, v, tq: 3, tk: 3, dk: 2, dv: 2 });
    // The notes' scores (OCR-garbled digits recomputed): QKᵀ row 0 = [0.30, 0.58, 0.11].
    expect(round4(r.scores.slice(0, 3))).toEqual([0.3, 0.58, 0.11]);
    expect(round4(r.scaled.slice(0, 3))).toEqual([0.2121, 0.4101, 0.0778]);
    expect(round4(r.weights)).toEqual([0.3233, 0.3941, 0.2826, 0.3343, 0.3905, 0.2752, 0.3179, 0.3931, 0.289]);
    expect(round4(r.output)).toEqual([1.0137, 0.2561, 1.0151, 0.2538, 1.0116, 0.2555]);
  });
});

describe('study notes: "the / cat / sat", two heads', () => {
  // W_K of head 2 was lost in the OCR; [[0.2,0.3],[0.4,0.5],[0.6,0.7],[0.8,0.9]] reproduces the
  // surviving K_sat,2 = [0.6, 0.8]. Heads are column slices: [head 1 | head 2].
  const X = [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0];
  const side = (a, b) => [0, 1, 2, 3].flatMap((r) => [a[2 * r], a[2 * r + 1], b[2 * r], b[2 * r + 1]]);
  const wq = side([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]);
  const wk = side([0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1], [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
  const wv = side([0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4], [0.5, 0.5, 0.6, 0.6, 0.7, 0.7, 0.8, 0.8]);
  const wo = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6];
  test('the notes’ per-head vectors and head-1 scaled scores', () => {
    const r = lab.multiHeadAttention({ x: X, tq: 3, dModel: 4, heads: 2, wq, wk, wv, wo });
    expect(round4(r.q.slice(0, 2))).toEqual([0.6, 0.8]);          // Q_the,1
    expect(round4(r.k.slice(0, 2))).toEqual([1.2, 1]);            // K_the,1
    expect(round4([r.k[2 * 4 + 2], r.k[2 * 4 + 3]])).toEqual([0.6, 0.8]);  // K_sat,2
    expect(round4([r.q[2 * 4 + 2], r.q[2 * 4 + 3]])).toEqual([1.6, 1.4]);  // Q_sat,2
    expect(round4([r.v[0 + 2], r.v[4 + 2], r.v[8 + 2]])).toEqual([1.2, 1.4, 1.1]);  // V_·,2
    expect(round4([r.v[0], r.v[4], r.v[8]])).toEqual([0.4, 0.6, 0.3]);  // V_·,1
    // Head 1, "the": scores [1.52, 0.96, 1.80]/√2 = [1.07, 0.68, 1.27] as in the notes.
    const s = Array.from(r.scores.slice(0, 3), (x) => Number((x / Math.SQRT2).toFixed(2)));
    expect(s).toEqual([1.07, 0.68, 1.27]);
    // Softmax of those (the notes' printed [0.43, 0.29, 0.28] is an arithmetic slip).
    const e = [1.52, 0.96, 1.8].map((x) => Math.exp(x / Math.SQRT2));
    const z = e[0] + e[1] + e[2];
    expect(round4(r.weights.slice(0, 3))).toEqual(round4(e.map((x) => x / z)));
    // Output = Concat(heads)·W_O.
    const ref = matmul(r.heads, wo, 3, 4, 4);
    expectClose(r.output, ref, 'output', TOL.reorder);
  });
});

describe('Slidev deck: attention as a convex combination ("I am Sam")', () => {
  const A = [0.6, 0.1, 0.3, 0.3, 0.5, 0.2, 0.2, 0.1, 0.7];
  const V = [2, 1, -0.5, 2, -1, -0.5];
  test('A·V through weightedSum', () => {
    expect(round4(lab.weightedSum({ weights: A, v: V, tq: 3, tk: 3, dv: 2 }))).toEqual([0.85, 0.65, 0.15, 1.2, -0.35, 0.05]);
  });
  test('the same A produced by attention (an additive mask of log A) gives the same A·V', () => {
    const r = lab.attention({ q: [0, 0, 0], k: [0, 0, 0], v: V, tq: 3, tk: 3, dk: 1, dv: 2, mask: Float32Array.from(A, Math.log) });
    expect(round4(r.weights)).toEqual(A);
    expect(round4(r.output)).toEqual([0.85, 0.65, 0.15, 1.2, -0.35, 0.05]);
  });
});
