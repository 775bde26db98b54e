// embedding.js — token embedding (a table lookup) and the tied output head.
import { run } from './core.js';
import { requireObject, int, num, matrix, optionalMatrix, fail, noUnknownKeys, tokenIdsInRange } from './validate.js';

/** Token embedding lookup: row ids[i] of table [vocab·dModel]; returns [ids.length·dModel]. */
export function embedding(lab, args) {
  const fn = 'embedding';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['table', 'vocab', 'dModel', 'ids']);
  const vocab = int(fn, 'vocab', args.vocab), D = int(fn, 'dModel', args.dModel);
  const table = matrix(fn, 'table', args.table, vocab * D, `vocab·dModel = ${vocab * D}`);
  const ids = tokenIds(fn, args.ids, vocab);
  const b = lab.arena.named(fn, { table: vocab * D, ids: ids.length, out: ids.length * D });
  lab.arena.put(b.table, table);
  lab.arena.putI32(b.ids, ids);
  run(lab, lab.core.module.embedding({ table: b.table, vocab, dModel: D, ids: b.ids, n: ids.length, output: b.out }));
  return lab.arena.take(b.out, ids.length * D);
}

/** Tied output head: logits = h·W_Eᵀ (+ bias), probs = softmax(logits / temperature), [rows·vocab]. */
export function outputHead(lab, args) {
  const fn = 'outputHead';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['h', 'rows', 'table', 'vocab', 'dModel', 'bias', 'temperature']);
  const rows = int(fn, 'rows', args.rows), vocab = int(fn, 'vocab', args.vocab), D = int(fn, 'dModel', args.dModel);
  const h = matrix(fn, 'h', args.h, rows * D, `rows·dModel = ${rows * D}`);
  const table = matrix(fn, 'table', args.table, vocab * D, `vocab·dModel = ${vocab * D}`);
  const bias = optionalMatrix(fn, 'bias', args.bias, vocab, `vocab = ${vocab}`);
  const temperature = num(fn, 'temperature', args.temperature, { dflt: 1, positive: true });
  const n = rows * vocab;
  const b = lab.arena.named(fn, { h: rows * D, table: vocab * D, bias: bias ? vocab : 0, logits: n, probs: n });
  lab.arena.put(b.h, h); lab.arena.put(b.table, table); lab.arena.put(b.bias, bias);
  run(lab, lab.core.module.outputHead({ h: b.h, rows, table: b.table, vocab, dModel: D, bias: bias ? b.bias : 0, temperature, logits: b.logits, probs: b.probs }));
  return { logits: lab.arena.take(b.logits, n), probs: lab.arena.take(b.probs, n) };
}

// Token ids: integers in [0, vocab), copied into an Int32Array.
function tokenIds(fn, v, vocab) {
  if (v === undefined || v === null) fail(fn, 'ids is missing, expected an array of token ids');
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView)))
    fail(fn, `ids is a ${typeof v}, expected an array of token ids`);
  if (v.length === 0) fail(fn, 'ids is empty, expected at least 1 token id');
  tokenIdsInRange(fn, 'ids', v, vocab, 'an integer');
  const ids = Int32Array.from(v);
  return ids;
}

// The AttnLab methods this file gives (token embedding and the tied output head): lab.<name>(args) = <name>(lab, args).
export const OPS = { embedding, outputHead };
