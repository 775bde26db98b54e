// attention.js — scaled dot-product attention, the weighted sum of values, and Nadaraya-Watson kernel
// regression (attention with another score). Each function is an AttnLab method (lab = the AttnLab).
import { run, maskFields } from './core.js';
import { requireObject, int, num, matrix, vector, oneOf, fail, mask as parseMask, noUnknownKeys } from './validate.js';

/**
 * Scaled dot-product attention with every intermediate.
 * q: [tq·dk], k: [tk·dk], v: [tk·dv]; scale defaults to 1/√dk.
 * Returns { scores: QKᵀ, scaled: QKᵀ·scale + mask, weights: softmax(scaled), output: weights·V }.
 */
export function attention(lab, args) {
  const fn = 'attention';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['q', 'k', 'v', 'tq', 'tk', 'dk', 'dv', 'mask', 'scale', 'alibiSlope']);
  const tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk);
  const dk = int(fn, 'dk', args.dk), dv = int(fn, 'dv', args.dv);
  const q = matrix(fn, 'q', args.q, tq * dk, `tq·dk = ${tq * dk}`);
  const k = matrix(fn, 'k', args.k, tk * dk, `tk·dk = ${tk * dk}`);
  const v = matrix(fn, 'v', args.v, tk * dv, `tk·dv = ${tk * dv}`);
  const m = parseMask(fn, args.mask, tq, tk);
  const scale = num(fn, 'scale', args.scale, { dflt: 1 / Math.sqrt(dk), positive: true });
  const alibiSlope = num(fn, 'alibiSlope', args.alibiSlope, { dflt: 0, min: 0 });
  const n = tq * tk;
  const [pq, pk, pv, pm, ps, pc, pw, po] = lab.arena.layout(fn, [tq * dk, tk * dk, tk * dv, m.values ? n : 0, n, n, n, tq * dv]);
  lab.arena.put(pq, q);
  lab.arena.put(pk, k);
  lab.arena.put(pv, v);
  lab.arena.put(pm, m.values);
  run(lab, lab.core.module.attention({ q: pq, k: pk, v: pv, tq, tk, dk, dv, scale, ...maskFields(lab.core, m, pm), alibiSlope,
    scores: ps, scaled: pc, weights: pw, output: po }));
  return { scores: lab.arena.take(ps, n), scaled: lab.arena.take(pc, n), weights: lab.arena.take(pw, n), output: lab.arena.take(po, tq * dv) };
}

/** output [tq·dv] = weights [tq·tk] · v [tk·dv]: attention as a convex combination of values. */
export function weightedSum(lab, args) {
  const fn = 'weightedSum';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['weights', 'v', 'tq', 'tk', 'dv']);
  const tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk), dv = int(fn, 'dv', args.dv);
  const w = matrix(fn, 'weights', args.weights, tq * tk, `tq·tk = ${tq * tk}`);
  const v = matrix(fn, 'v', args.v, tk * dv, `tk·dv = ${tk * dv}`);
  const [pw, pv, po] = lab.arena.layout(fn, [tq * tk, tk * dv, tq * dv]);
  lab.arena.put(pw, w);
  lab.arena.put(pv, v);
  run(lab, lab.core.module.weightedSum({ weights: pw, v: pv, tq, tk, dv, output: po }));
  return lab.arena.take(po, tq * dv);
}

/**
 * Nadaraya-Watson kernel regression as attention: queries = Q, xs = K, ys = V.
 * weights = softmax(f(x, x_i) / bandwidth), f = −‖x − x_i‖² ('gaussian') or x·x_i ('dot').
 */
export function kernelRegression(lab, args) {
  const fn = 'kernelRegression';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['xs', 'ys', 'queries', 'bandwidth', 'kernel', 'dim']);
  const dim = int(fn, 'dim', args.dim, { dflt: 1 });
  const ys = vector(fn, 'ys', args.ys), n = ys.length;
  const xs = matrix(fn, 'xs', args.xs, n * dim, `ys.length·dim = ${n * dim}`);
  const queries = vector(fn, 'queries', args.queries);
  if (queries.length % dim !== 0) fail(fn, `queries has ${queries.length} values, expected a multiple of dim = ${dim}`);
  const nq = queries.length / dim;
  const bandwidth = num(fn, 'bandwidth', args.bandwidth, { dflt: 1, positive: true });
  const kernel = lab.core.code('kernel', oneOf(fn, 'kernel', args.kernel, ['gaussian', 'dot'], 'gaussian'));
  const b = lab.arena.named(fn, { xs: n * dim, ys: n, q: nq * dim, scores: nq * n, weights: nq * n, pred: nq });
  lab.arena.put(b.xs, xs); lab.arena.put(b.ys, ys); lab.arena.put(b.q, queries);
  run(lab, lab.core.module.kernelRegression({ xs: b.xs, ys: b.ys, n, queries: b.q, nq, dim, kernel, bandwidth, scores: b.scores, weights: b.weights, predictions: b.pred }));
  return { scores: lab.arena.take(b.scores, nq * n), weights: lab.arena.take(b.weights, nq * n), predictions: lab.arena.take(b.pred, nq) };
}

// The AttnLab methods this file gives (scaled dot-product attention, the weighted sum, kernel regression): lab.<name>(args) = <name>(lab, args).
export const OPS = { attention, weightedSum, kernelRegression };
