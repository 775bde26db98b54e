// The source notebook's multi-head self-attention (lecture source 002), batched and with the fused
// projection, computed by the core:
//
//   B, N, D = x.shape                                   # x: (B, N, D)
//   qkv = self.qkv(x)                                   # W_QKV: (D, 3D) → qkv: (B, N, 3D)
//   q, k, v = qkv.reshape(B, N, 3, H, d_k).permute(2, 0, 3, 1, 4)   # each (B, H, N, d_k)
//   scores = q @ k.transpose(-2, -1)                    # (B, H, N, N)
//   A = softmax(scores / √d_k)                          # (B, H, N, N)
//   out = (A @ v).transpose(1, 2).reshape(B, N, D) @ W_O  # (B, N, D)
//
// The numbers: qkv = x·W_QKV is one product over all B·N rows (lab.weightedSum, a plain matrix
// product); q, k, v, the scores, the weights and the output come from one multi-head layer
// (lab.createMultiHeadAttention, weights held once) run on each sequence of the batch with the three
// separate W_Q, W_K, W_V. The fused slices equal the separate projections (maxDiff).
import { uniformMatrix } from '../shared/rng.js';

/** Dimension letters, as in the notebook: batch, tokens, model width, heads; d_k = D / H. */
export const B = 2, N = 3, D = 4, H = 2, DK = D / H;

/**
 * The batch: "the / cat / sat" (the study notes' example of the multi-head slides, <attn-multihead>'s
 * CAT_SAT: the same x and weights, so its rows match those slides; logic.test.js holds them equal)
 * and a second, seeded sequence.
 */
export const SEQUENCES = [
  { tokens: ['the', 'cat', 'sat'], x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0] },
  { tokens: ['a', 'dog', 'ran'], x: uniformMatrix(7, N * D) },
];

/** The weights (x·W, [D·D]): the multi-head slides' W_Q, W_K, W_V, W_O, head h owning columns [2h, 2h+2). */
export const WEIGHTS = {
  wq: [0.1, 0.2, 0.9, 0.8, 0.3, 0.4, 0.7, 0.6, 0.5, 0.6, 0.5, 0.4, 0.7, 0.8, 0.3, 0.2],
  wk: [0.8, 0.7, 0.2, 0.3, 0.6, 0.5, 0.4, 0.5, 0.4, 0.3, 0.6, 0.7, 0.2, 0.1, 0.8, 0.9],
  wv: [0.1, 0.1, 0.5, 0.5, 0.2, 0.2, 0.6, 0.6, 0.3, 0.3, 0.7, 0.7, 0.4, 0.4, 0.8, 0.8],
  wo: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
};

/** The stages a deck steps through (stage i), with the tensor each shows and its shape. */
export const STAGES = [
  { key: 'x', name: 'x', shape: (s) => [s.B, s.N, s.D] },
  { key: 'wqkv', name: 'W_QKV', shape: (s) => [s.D, 3 * s.D] },
  { key: 'qkv', name: 'qkv', shape: (s) => [s.B, s.N, 3 * s.D] },
  { key: 'split', name: 'q, k, v', shape: (s) => [s.B, s.N, s.D] },
  { key: 'heads', name: 'heads', shape: (s) => [s.B, s.H, s.N, s.D / s.H] },
  { key: 'scores', name: 'scores', shape: (s) => [s.B, s.H, s.N, s.N] },
  { key: 'weights', name: 'weights', shape: (s) => [s.B, s.H, s.N, s.N] },
  { key: 'out', name: 'out', shape: (s) => [s.B, s.N, s.D] },
];

/** W_QKV [D·3D] = [W_Q | W_K | W_V] side by side: row i is row i of W_Q, then of W_K, then of W_V. */
export function fuse(wq, wk, wv, dModel) {
  const out = new Float32Array(dModel * 3 * dModel);
  for (let i = 0; i < dModel; i++)
    for (const [p, w] of [wq, wk, wv].entries())
      for (let j = 0; j < dModel; j++) out[i * 3 * dModel + p * dModel + j] = w[i * dModel + j];
  return out;
}

/** Part p (0 q, 1 k, 2 v) of qkv [rows·3D]: columns [p·D, (p+1)·D), [rows·D]. */
export function part(qkv, rows, dModel, p) {
  const out = new Float32Array(rows * dModel);
  for (let r = 0; r < rows; r++) for (let j = 0; j < dModel; j++) out[r * dModel + j] = qkv[r * 3 * dModel + p * dModel + j];
  return out;
}

/** (B, N, D) → (B, H, N, d_k): view(B, N, H, d_k).permute(0, 2, 1, 3), as a flat copy. */
export function splitHeads(m, b, n, heads, dk) {
  const out = new Float32Array(b * heads * n * dk);
  for (let bi = 0; bi < b; bi++)
    for (let h = 0; h < heads; h++)
      for (let t = 0; t < n; t++)
        for (let j = 0; j < dk; j++) out[((bi * heads + h) * n + t) * dk + j] = m[(bi * n + t) * heads * dk + h * dk + j];
  return out;
}

/** The block [i] of a flat array cut in blocks of `size` (batch item i, or (b, h) pair i). */
export const block = (a, i, size) => a.subarray(i * size, (i + 1) * size);

const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/**
 * The whole batched forward pass with every tensor the figure shows, from the core.
 * x [B·N·D] (B sequences of N tokens), weights { wq, wk, wv, wo } [D·D] (x·W), heads H.
 * Returns { dims: { B, N, D, H, dk }, x, wqkv [D·3D], qkv [B·N·3D], q, k, v [B·N·D] (the fused
 * slices), separate: { q, k, v } [B·N·D] (three separate projections, per sequence), maxDiff: { q, k, v },
 * qHeads, kHeads, vHeads [B·H·N·dk], scores [B·H·N·N] (raw q·kᵀ per head), weights [B·H·N·N]
 * (softmax(scores/√d_k)), concat [B·N·D] (heads' outputs side by side), output [B·N·D], shapes }.
 */
export function batchedForward(lab, { x, b = B, n = N, dModel = D, heads = H, wq, wk, wv, wo }) {
  const dk = dModel / heads, rows = b * n;
  const wqkv = fuse(wq, wk, wv, dModel);
  // (B, N, D)·(D, 3D): the batch and the tokens flattened into B·N rows, one matrix product.
  const qkv = lab.weightedSum({ weights: x, v: wqkv, tq: rows, tk: dModel, dv: 3 * dModel });
  const [q, k, v] = [0, 1, 2].map((p) => part(qkv, rows, dModel, p));
  // The same layer (the separate W_Q, W_K, W_V, W_O, held once) on each sequence of the batch.
  const layer = lab.createMultiHeadAttention({ dModel, heads, wq, wk, wv, wo });
  const separate = { q: new Float32Array(rows * dModel), k: new Float32Array(rows * dModel), v: new Float32Array(rows * dModel) };
  const scores = new Float32Array(b * heads * n * n), weights = new Float32Array(b * heads * n * n);
  const concat = new Float32Array(rows * dModel), output = new Float32Array(rows * dModel);
  try {
    for (let bi = 0; bi < b; bi++) {
      const r = layer.forward({ x: block(x instanceof Float32Array ? x : Float32Array.from(x), bi, n * dModel), tq: n });
      separate.q.set(r.q, bi * n * dModel); separate.k.set(r.k, bi * n * dModel); separate.v.set(r.v, bi * n * dModel);
      scores.set(r.scores, bi * heads * n * n); weights.set(r.weights, bi * heads * n * n);
      concat.set(r.heads, bi * n * dModel); output.set(r.output, bi * n * dModel);
    }
  } finally {
    layer.dispose();
  }
  const dims = { B: b, N: n, D: dModel, H: heads, dk };
  return {
    dims, x: Float32Array.from(x), wqkv, qkv, q, k, v, separate,
    maxDiff: { q: maxAbsDiff(q, separate.q), k: maxAbsDiff(k, separate.k), v: maxAbsDiff(v, separate.v) },
    qHeads: splitHeads(q, b, n, heads, dk), kHeads: splitHeads(k, b, n, heads, dk), vHeads: splitHeads(v, b, n, heads, dk),
    scores, weights, concat, output,
    shapes: Object.fromEntries(STAGES.map((s) => [s.key, s.shape(dims)])),
  };
}

/** The batch the figure shows: SEQUENCES stacked into x [B·N·D]. */
export const batchX = () => Float32Array.from(SEQUENCES.flatMap((s) => s.x));

/** A shape as the notebook prints it: (2, 3, 12). */
export const shapeText = (shape) => `(${shape.join(', ')})`;
