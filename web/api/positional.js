// positional.js — where a token is: sinusoidal and learned positional encodings, RoPE, ALiBi.
import { run } from './core.js';
import { requireObject, int, num, matrix, oneOf, fail, noUnknownKeys } from './validate.js';

/**
 * Positional encodings added to token embeddings, [length·dModel]:
 *   { kind: 'sinusoidal', length, dModel, base = 10000 }
 *   { kind: 'learned', table, maxLength, dModel, length }  (rows of a trained table; length ≤ maxLength)
 */
export function positionalEncoding(lab, args) {
  const fn = 'positionalEncoding';
  requireObject(fn, args);
  const kind = oneOf(fn, 'kind', args.kind, ['sinusoidal', 'learned'], 'sinusoidal');
  if (kind === 'learned') {
    noUnknownKeys(fn, args, ['kind', 'table', 'maxLength', 'dModel', 'length']);
    const maxLength = int(fn, 'maxLength', args.maxLength), D = int(fn, 'dModel', args.dModel);
    const length = int(fn, 'length', args.length);
    const table = matrix(fn, 'table', args.table, maxLength * D, `maxLength·dModel = ${maxLength * D}`);
    if (length > maxLength)
      fail(fn, `length is ${length}, expected ≤ maxLength = ${maxLength}: a learned table has no rows beyond the length it was trained for`);
    for (let i = 0; i < length * D; i++)
      if (!Number.isFinite(table[i])) fail(fn, `table[${i}] is ${table[i]}, expected finite values`);
    return Float32Array.from(table.subarray ? table.subarray(0, length * D) : table.slice(0, length * D));
  }
  noUnknownKeys(fn, args, ['kind', 'length', 'dModel', 'base']);
  const length = int(fn, 'length', args.length), D = int(fn, 'dModel', args.dModel);
  const base = num(fn, 'base', args.base, { dflt: 10000, positive: true });
  const [po] = lab.arena.layout(fn, [length * D]);
  run(lab, lab.core.module.sinusoidal({ length, dModel: D, base, output: po }));
  return lab.arena.take(po, length * D);
}

/**
 * RoPE: rotates pairs (2i, 2i+1) of each row of x [t·dim] by angle (offset + row)·base^(−2i/dim).
 * Returns the rotated copy.
 */
export function rope(lab, args) {
  const fn = 'rope';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 't', 'dim', 'base', 'offset']);
  const t = int(fn, 't', args.t), dim = int(fn, 'dim', args.dim);
  if (dim % 2 !== 0) fail(fn, `dim is ${dim}, expected an even number (RoPE rotates pairs)`);
  const x = matrix(fn, 'x', args.x, t * dim, `t·dim = ${t * dim}`);
  const base = num(fn, 'base', args.base, { dflt: 10000, positive: true });
  const offset = int(fn, 'offset', args.offset, { min: 0, dflt: 0 });
  const [px, po] = lab.arena.layout(fn, [t * dim, t * dim]);
  lab.arena.put(px, x);
  run(lab, lab.core.module.rope({ x: px, t, dim, base, offset, output: po }));
  return lab.arena.take(po, t * dim);
}

/** ALiBi: per-head slopes [heads] and the bias −slope·|i−j| added to the scores, [heads·tq·tk]. */
export function alibi(lab, args) {
  const fn = 'alibi';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['heads', 'tq', 'tk']);
  const heads = int(fn, 'heads', args.heads), tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk, { dflt: tq });
  const [ps, pb] = lab.arena.layout(fn, [heads, heads * tq * tk]);
  run(lab, lab.core.module.alibi({ heads, tq, tk, slopes: ps, bias: pb }));
  return { slopes: lab.arena.take(ps, heads), bias: lab.arena.take(pb, heads * tq * tk) };
}

// The AttnLab methods this file gives (positional encodings, RoPE, ALiBi): lab.<name>(args) = <name>(lab, args).
export const OPS = { positionalEncoding, rope, alibi };
