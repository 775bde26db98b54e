// The batched multi-head figure's numbers: shapes as the notebook prints them, the fused projection
// equal to three separate ones (within 1e-6), the head split as reshape + permute, and every sequence's
// result the same as the core's unbatched multi-head call.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { CAT_SAT } from '../multihead/logic.js';
import { B, D, DK, H, N, SEQUENCES, STAGES, WEIGHTS, batchX, batchedForward, block, fuse, part, shapeText, splitHeads } from './logic.js';

let lab, r;
beforeAll(async () => {
  lab = await createAttnLab();
  r = batchedForward(lab, { x: batchX(), ...WEIGHTS });
});

/** Plain JS (rows × inner)·(inner × cols), in float64: the reference products. */
function matmul(a, b, rows, inner, cols) {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let p = 0; p < inner; p++) for (let j = 0; j < cols; j++) out[i * cols + j] += a[i * inner + p] * b[p * cols + j];
  return out;
}
const maxDiff = (a, b) => { expect(a.length).toBe(b.length); return Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0); };

describe('batched multi-head self-attention with a fused W_QKV', () => {
  test('the shapes of the notebook: (B, N, D) → (D, 3D) → (B, N, 3D) → (B, H, N, d_k) → (B, H, N, N) → (B, N, D)', () => {
    expect([B, N, D, H, DK]).toEqual([2, 3, 4, 2, 2]);
    expect(r.shapes).toEqual({ x: [2, 3, 4], wqkv: [4, 12], qkv: [2, 3, 12], split: [2, 3, 4], heads: [2, 2, 3, 2], scores: [2, 2, 3, 3], weights: [2, 2, 3, 3], out: [2, 3, 4] });
    const size = (s) => s.reduce((a, b) => a * b, 1);
    expect(r.x.length).toBe(size(r.shapes.x));
    expect(r.wqkv.length).toBe(size(r.shapes.wqkv));
    expect(r.qkv.length).toBe(size(r.shapes.qkv));
    for (const t of [r.q, r.k, r.v]) expect(t.length).toBe(size(r.shapes.split));
    for (const t of [r.qHeads, r.kHeads, r.vHeads]) expect(t.length).toBe(size(r.shapes.heads));
    expect(r.scores.length).toBe(size(r.shapes.scores));
    expect(r.weights.length).toBe(size(r.shapes.weights));
    expect(r.output.length).toBe(size(r.shapes.out));
    expect(STAGES.map((s) => shapeText(s.shape(r.dims)))).toEqual(['(2, 3, 4)', '(4, 12)', '(2, 3, 12)', '(2, 3, 4)', '(2, 2, 3, 2)', '(2, 2, 3, 3)', '(2, 2, 3, 3)', '(2, 3, 4)']);
  });

  test('W_QKV = [W_Q | W_K | W_V]; qkv = x·W_QKV for all B·N rows (the core against a float64 product)', () => {
    for (const [p, w] of [WEIGHTS.wq, WEIGHTS.wk, WEIGHTS.wv].entries()) expect(maxDiff(part(r.wqkv, D, D, p), Float32Array.from(w))).toBe(0);
    expect(maxDiff(r.qkv, matmul(r.x, r.wqkv, B * N, D, 3 * D))).toBeLessThan(1e-6);
  });

  test('the fused projection equals the three separate ones within 1e-6 (and the reported differences are those)', () => {
    for (const key of ['q', 'k', 'v']) {
      const w = WEIGHTS[`w${key}`];
      expect(maxDiff(r[key], r.separate[key])).toBeLessThanOrEqual(1e-6);
      expect(r.maxDiff[key]).toBe(maxDiff(r[key], r.separate[key]));
      expect(maxDiff(r[key], matmul(r.x, w, B * N, D, D))).toBeLessThan(1e-6);
    }
    // a different W_K changes k: the check is not vacuous
    const other = batchedForward(lab, { x: batchX(), ...WEIGHTS, wk: WEIGHTS.wk.map((a) => a + 0.1) });
    expect(maxDiff(other.k, r.k)).toBeGreaterThan(0.05);
  });

  test('heads: view(B, N, H, d_k).permute(0, 2, 1, 3); head h of sequence b is columns [h·d_k, (h+1)·d_k) of q[b]', () => {
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let t = 0; t < N; t++) for (let j = 0; j < DK; j++)
      expect(r.qHeads[((b * H + h) * N + t) * DK + j]).toBe(r.q[(b * N + t) * D + h * DK + j]);
    expect(Array.from(splitHeads([0, 1, 2, 3, 4, 5, 6, 7], 1, 2, 2, 2))).toEqual([0, 1, 4, 5, 2, 3, 6, 7]);
  });

  test('scores = q_h·k_hᵀ, weights = softmax(scores/√d_k) by rows, each row summing to 1', () => {
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) {
      const q = block(r.qHeads, b * H + h, N * DK), k = block(r.kHeads, b * H + h, N * DK);
      const kt = Array.from({ length: DK * N }, (_, i) => k[(i % N) * DK + Math.floor(i / N)]);
      expect(maxDiff(block(r.scores, b * H + h, N * N), matmul(q, kt, N, DK, N))).toBeLessThan(1e-6);
      const w = block(r.weights, b * H + h, N * N), s = block(r.scores, b * H + h, N * N);
      for (let i = 0; i < N; i++) {
        const row = Array.from({ length: N }, (_, j) => Math.exp(s[i * N + j] / Math.sqrt(DK)));
        const z = row.reduce((a, x) => a + x);
        for (let j = 0; j < N; j++) expect(Math.abs(w[i * N + j] - row[j] / z)).toBeLessThan(1e-6);
      }
    }
  });

  test('each sequence of the batch: the same result as the unbatched multi-head call; sequence 0 is the cat/sat slides’ example', () => {
    for (let b = 0; b < B; b++) {
      const one = lab.multiHeadAttention({ x: SEQUENCES[b].x, tq: N, dModel: D, heads: H, ...WEIGHTS });
      expect(maxDiff(block(r.output, b, N * D), one.output)).toBeLessThan(1e-6);
      expect(maxDiff(block(r.concat, b, N * D), one.heads)).toBeLessThan(1e-6);
      expect(maxDiff(r.weights.subarray(b * H * N * N, (b + 1) * H * N * N), one.weights)).toBeLessThan(1e-6);
    }
    expect(SEQUENCES[0].tokens).toEqual(CAT_SAT.tokens);
    expect(SEQUENCES[0].x).toEqual(CAT_SAT.x);
    for (const k of ['wq', 'wk', 'wv', 'wo']) expect(WEIGHTS[k]).toEqual(CAT_SAT[k]);
    // out = concat·W_O
    expect(maxDiff(r.output, matmul(r.concat, WEIGHTS.wo, B * N, D, D))).toBeLessThan(1e-6);
  });

  test('fuse() puts row i of W_Q, W_K, W_V side by side', () => {
    expect(Array.from(fuse([1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], 2))).toEqual([1, 2, 5, 6, 9, 10, 3, 4, 7, 8, 11, 12]);
  });
});
