// Hardening, against the real WASM build: every public entry point answers each class of bad
// input with an AttnLabError "<function>: <argument> …, expected …"; numerical edges give finite,
// documented results (checked against an independent float64 reference); 100,000 failing calls leave
// heap, stack and results unchanged; and a seeded random-argument run never gets anything but a
// finite result or an AttnLabError naming the function. Rules and edge behaviour: docs/hardening.md.
import { beforeAll, describe, expect, test } from 'vitest';
import { AttnLab, AttnLabError, MultiHeadAttentionLayer, createAttnLab, createTokenizer } from 'attnlab';
import { mulberry32 } from '../../web/widgets/shared/rng.js';
import { MAX_PARAM_CHARS, readHashState, sanitize, writeHashState } from '../../web/widgets/shared/hash.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const fill = (n, f) => Float32Array.from({ length: n }, (_, i) => f(i));
const ramp = (n, s = 0.1) => fill(n, (i) => Math.sin(i + 1) * s);

// ---- One good call per entry point ------------------------------------------------------------------
// `sizes`: integer size arguments (all must be positive integers); `arrays`: matrix arguments with a
// length fixed by the sizes (dotted paths for nested ones); `vectors`: free-length arrays.
const D = 4, F = 6;
const attnWeights = (c = '') => ({ [c + 'wq']: ramp(16, 0.3), [c + 'wk']: ramp(16, 0.2), [c + 'wv']: ramp(16, 0.4), [c + 'wo']: ramp(16, 0.5) });
const ENTRY = {
  attention: {
    good: () => ({ q: ramp(6), k: ramp(6, 0.2), v: ramp(6, 0.3), tq: 3, tk: 3, dk: 2, dv: 2 }),
    sizes: ['tq', 'tk', 'dk', 'dv'], arrays: ['q', 'k', 'v'],
  },
  weightedSum: {
    good: () => ({ weights: fill(6, () => 0.5), v: ramp(6), tq: 3, tk: 2, dv: 3 }),
    sizes: ['tq', 'tk', 'dv'], arrays: ['weights', 'v'],
  },
  multiHeadAttention: {
    good: () => ({ x: ramp(12), tq: 3, dModel: D, heads: 2, ...attnWeights() }),
    sizes: ['tq', 'dModel', 'heads'], arrays: ['x', 'wq', 'wk', 'wv', 'wo'],
  },
  createMultiHeadAttention: {  // issue 6: weights checked and copied once (a layer)
    good: () => ({ dModel: D, heads: 2, ...attnWeights() }),
    sizes: ['dModel', 'heads'], arrays: ['wq', 'wk', 'wv', 'wo'],
  },
  positionalEncoding: {
    good: () => ({ kind: 'sinusoidal', length: 5, dModel: 4 }),
    sizes: ['length', 'dModel'], arrays: [],
  },
  rope: {
    good: () => ({ x: ramp(8), t: 2, dim: 4 }),
    sizes: ['t', 'dim'], arrays: ['x'],
  },
  alibi: {
    good: () => ({ heads: 4, tq: 3 }),
    sizes: ['heads', 'tq'], arrays: [],
  },
  layerNorm: {
    good: () => ({ x: ramp(8), rows: 2, dim: 4 }),
    sizes: ['rows', 'dim'], arrays: ['x'],
  },
  rmsNorm: {
    good: () => ({ x: ramp(8), rows: 2, dim: 4 }),
    sizes: ['rows', 'dim'], arrays: ['x'],
  },
  activation: {
    good: () => ({ x: ramp(5), kind: 'gelu' }),
    sizes: [], arrays: [], vectors: ['x'],
  },
  feedForward: {
    good: () => ({ x: ramp(8), rows: 2, dModel: D, dFF: F, w1: ramp(D * F, 0.3), w2: ramp(F * D, 0.2) }),
    sizes: ['rows', 'dModel', 'dFF'], arrays: ['x', 'w1', 'w2'],
  },
  encoderBlock: {
    good: () => ({ x: ramp(8), t: 2, dModel: D, heads: 2, dFF: F, weights: { ...attnWeights(), w1: ramp(D * F, 0.3), w2: ramp(F * D, 0.2) } }),
    sizes: ['t', 'dModel', 'heads', 'dFF'], arrays: ['x', 'weights.wq', 'weights.w2'],
  },
  decoderBlock: {
    good: () => ({ x: ramp(8), t: 2, memory: ramp(12, 0.2), tm: 3, dModel: D, heads: 2, dFF: F,
      weights: { ...attnWeights(), ...attnWeights('c'), w1: ramp(D * F, 0.3), w2: ramp(F * D, 0.2) } }),
    sizes: ['t', 'tm', 'dModel', 'heads', 'dFF'], arrays: ['x', 'memory', 'weights.cwk', 'weights.w1'],
  },
  embedding: {
    good: () => ({ table: ramp(20), vocab: 5, dModel: 4, ids: [0, 4, 2] }),
    sizes: ['vocab', 'dModel'], arrays: ['table'],
  },
  outputHead: {
    good: () => ({ h: ramp(8), rows: 2, table: ramp(20, 0.2), vocab: 5, dModel: 4 }),
    sizes: ['rows', 'vocab', 'dModel'], arrays: ['h', 'table'],
  },
  kernelRegression: {
    good: () => ({ xs: ramp(5), ys: ramp(5, 0.2), queries: ramp(3, 0.3) }),
    sizes: [], arrays: ['xs'], vectors: ['ys', 'queries'],
  },
};
const NAMES = Object.keys(ENTRY);

const getPath = (o, path) => path.split('.').reduce((a, k) => a[k], o);
function withPath(o, path, value) {
  const copy = { ...o };
  const keys = path.split('.');
  let at = copy;
  for (let i = 0; i < keys.length - 1; i++) { at[keys[i]] = { ...at[keys[i]] }; at = at[keys[i]]; }
  if (value === undefined) delete at[keys.at(-1)];
  else at[keys.at(-1)] = value;
  return copy;
}
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('every public entry point of AttnLab is covered here', () => {
  const methods = Object.getOwnPropertyNames(AttnLab.prototype).filter((m) => !['constructor', 'info', 'dispose', 'tokenizer'].includes(m));
  expect(methods.sort()).toEqual([...NAMES].sort());
});

test.each(NAMES)('%s: the good call works (the tables below change one thing at a time)', (fn) => {
  expect(() => lab[fn](ENTRY[fn].good())).not.toThrow();
});

// ---- Bad-input tables, generated per entry point ---------------------------------------------------
function badCases(fn) {
  const e = ENTRY[fn], cases = [];
  const add = (what, args, re) => cases.push([`${fn}: ${what}`, fn, args, re]);
  add('not an object', 42, new RegExp(`^${fn}: expected one options object`));
  add('unknown option', { ...e.good(), dropout: 0.1 }, new RegExp(`^${fn}: unknown option 'dropout', expected some of: `));
  for (const s of e.sizes) {
    for (const [v, got] of [[0, '0'], [-1, '-1'], [2.5, '2.5'], ['3', '"3"'], [NaN, 'NaN'], [Infinity, 'Infinity'], [null, 'null'], [2 ** 25, '33554432']])
      add(`${s} = ${got}`, { ...e.good(), [s]: v }, new RegExp(`^${fn}: ${s} is ${esc(got)}, expected a positive integer`));
  }
  for (const a of e.arrays) {
    const good = getPath(e.good(), a), n = good.length;
    add(`${a} one value short`, withPath(e.good(), a, good.slice(0, n - 1)), new RegExp(`^${fn}: ${esc(a)} has ${n - 1} values, expected .*= ${n}$`));
    add(`${a} missing`, withPath(e.good(), a, undefined), new RegExp(`^${fn}: ${esc(a)} is missing, expected a Float32Array of .*= ${n}$`));
    add(`${a} a string`, withPath(e.good(), a, 'abc'), new RegExp(`^${fn}: ${esc(a)} is "abc", expected a Float32Array of`));
    add(`${a} a BigInt64Array`, withPath(e.good(), a, new BigInt64Array(n)), new RegExp(`^${fn}: ${esc(a)} is a BigInt64Array of ${n}, expected a Float32Array of`));
    add(`${a} holds a string`, withPath(e.good(), a, Array.from(good, (x, i) => (i === 1 ? '1' : x))), new RegExp(`^${fn}: ${esc(a)}\\[1\\] is "1", expected a number$`));
    add(`${a} holds 1e300`, withPath(e.good(), a, Array.from(good, (x, i) => (i === 1 ? 1e300 : x))), new RegExp(`^${fn}: ${esc(a)}\\[1\\] is 1e\\+300, expected finite values within float32 range`));
    for (const [v, got] of [[NaN, 'NaN'], [Infinity, 'Infinity'], [-Infinity, '-Infinity']])
      add(`${a}[1] = ${got}`, withPath(e.good(), a, Float32Array.from(good, (x, i) => (i === 1 ? v : x))), new RegExp(`^${fn}: ${esc(a)}\\[1\\] is ${got}, expected finite values$`));
  }
  for (const a of e.vectors ?? []) {
    add(`${a} empty`, { ...e.good(), [a]: [] }, new RegExp(`^${fn}: ${a} is empty, expected at least 1 value`));
    add(`${a}[0] = NaN`, { ...e.good(), [a]: Float32Array.from(e.good()[a], (x, i) => (i === 0 ? NaN : x)) }, new RegExp(`^${fn}: ${a}\\[0\\] is NaN, expected finite values$`));
    add(`${a}[0] = -Infinity`, { ...e.good(), [a]: Float32Array.from(e.good()[a], (x, i) => (i === 0 ? -Infinity : x)) }, new RegExp(`^${fn}: ${a}\\[0\\] is -Infinity, expected finite values$`));
  }
  return cases;
}

// Options and combinations, per entry point (the generic table above covers sizes and arrays).
const MiB = /these sizes need \d+ MiB of WebAssembly memory, expected at most 1024 MiB/;
const big = (n) => new Float32Array(n);
const SPECIFIC = [
  ['attention: mask name', 'attention', { mask: 'upper' }, /^attention: mask is "upper", expected 'none', 'causal', \{ window, causal\? \} or a Float32Array of tq·tk = 9$/],
  ['attention: mask NaN', 'attention', { mask: fill(9, (i) => (i === 4 ? NaN : 0)) }, /^attention: mask\[4\] is NaN, expected finite values or -Infinity$/],
  ['attention: mask +Infinity', 'attention', { mask: fill(9, (i) => (i === 4 ? Infinity : 0)) }, /^attention: mask\[4\] is Infinity, expected finite values or -Infinity$/],
  ['attention: mask window typo', 'attention', { mask: { windw: 1 } }, /^attention: mask has unknown key 'windw', expected \{ window, causal\? \}$/],
  ['attention: mask window fractional', 'attention', { mask: { window: 1.5 } }, /^attention: mask.window is 1.5, expected an integer ≥ 0$/],
  ['attention: mask causal not boolean', 'attention', { mask: { window: 1, causal: 'yes' } }, /^attention: mask.causal is "yes", expected true or false$/],
  ['attention: causal mask with tq ≠ tk', 'attention', { q: ramp(2), tq: 1, mask: 'causal' }, /^attention: mask 'causal' needs tq = tk \(self-attention\), got tq = 1, tk = 3/],
  ['attention: scale 0', 'attention', { scale: 0 }, /^attention: scale is 0, expected a finite number > 0$/],
  ['attention: scale 1e-50 (0 in float32)', 'attention', { scale: 1e-50 }, /^attention: scale is 1e-50, expected a number float32 can hold/],
  ['attention: scale 1e39 (Infinity in float32)', 'attention', { scale: 1e39 }, /^attention: scale is 1e\+39, expected a number float32 can hold/],
  ['attention: alibiSlope negative', 'attention', { alibiSlope: -1 }, /^attention: alibiSlope is -1, expected a finite number ≥ 0$/],
  ['attention: oversized', 'attention', { q: big(20000), k: big(20000), v: big(20000), tq: 20000, tk: 20000, dk: 1, dv: 1 }, new RegExp(`^attention: ${MiB.source}`)],
  ['weightedSum: oversized weights come with their own length', 'weightedSum', { weights: big(5), tq: 3 }, /^weightedSum: weights has 5 values, expected tq·tk = 6$/],
  ['multiHeadAttention: heads not dividing dModel', 'multiHeadAttention', { heads: 3 }, /^multiHeadAttention: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads$/],
  ['multiHeadAttention: tk without context', 'multiHeadAttention', { tk: 5 }, /^multiHeadAttention: tk is 5 without a context, expected a context/],
  ['multiHeadAttention: tk a symbol', 'multiHeadAttention', { tk: Symbol('t') }, /^multiHeadAttention: tk is a symbol without a context/],
  ['multiHeadAttention: alibi with context', 'multiHeadAttention', { context: ramp(8), tk: 2, alibi: true }, /^multiHeadAttention: alibi is defined for self-attention, expected no context with alibi$/],
  ['multiHeadAttention: rope typo', 'multiHeadAttention', { rope: { bse: 500 } }, /^multiHeadAttention: rope has unknown key 'bse', expected true or \{ base \}$/],
  ['multiHeadAttention: rope an array', 'multiHeadAttention', { rope: [] }, /^multiHeadAttention: rope is an array of 0, expected true or \{ base \}$/],
  ['multiHeadAttention: rope a string', 'multiHeadAttention', { rope: 'yes' }, /^multiHeadAttention: rope is "yes", expected true or \{ base \}$/],
  ['multiHeadAttention: rope base 1', 'multiHeadAttention', { rope: { base: 1 } }, /^multiHeadAttention: rope base is 1, expected a finite number > 1$/],
  ['multiHeadAttention: alibi not boolean', 'multiHeadAttention', { alibi: 1 }, /^multiHeadAttention: alibi is 1, expected true or false$/],
  ['multiHeadAttention: intermediates not boolean', 'multiHeadAttention', { intermediates: 'no' }, /^multiHeadAttention: intermediates is "no", expected true or false$/],
  ['multiHeadAttention: bias NaN', 'multiHeadAttention', { bv: fill(4, (i) => (i === 2 ? NaN : 0)) }, /^multiHeadAttention: bv\[2\] is NaN, expected finite values$/],
  ['multiHeadAttention: oversized', 'multiHeadAttention', { x: big(8192 * 64), tq: 8192, dModel: 64, heads: 64, wq: big(4096), wk: big(4096), wv: big(4096), wo: big(4096) }, new RegExp(`^multiHeadAttention: ${MiB.source}`)],
  ['positionalEncoding: kind', 'positionalEncoding', { kind: 'cosine' }, /^positionalEncoding: kind is "cosine", expected one of 'sinusoidal', 'learned'$/],
  ['positionalEncoding: base NaN', 'positionalEncoding', { base: NaN }, /^positionalEncoding: base is NaN, expected a finite number > 0$/],
  ['positionalEncoding: learned past maxLength', 'positionalEncoding', { kind: 'learned', table: big(8), maxLength: 2, dModel: 4, length: 3 }, /^positionalEncoding: length is 3, expected ≤ maxLength = 2/],
  ['positionalEncoding: learned table NaN', 'positionalEncoding', { kind: 'learned', table: fill(8, (i) => (i === 5 ? NaN : 0)), maxLength: 2, dModel: 4, length: 2 }, /^positionalEncoding: table\[5\] is NaN, expected finite values$/],
  ['positionalEncoding: oversized', 'positionalEncoding', { length: 2 ** 24, dModel: 64 }, new RegExp(`^positionalEncoding: ${MiB.source}`)],
  ['rope: odd dim', 'rope', { x: ramp(6), dim: 3 }, /^rope: dim is 3, expected an even number \(RoPE rotates pairs\)$/],
  ['rope: negative offset', 'rope', { offset: -1 }, /^rope: offset is -1, expected an integer ≥ 0$/],
  ['rope: base 0.5', 'rope', { base: 0.5 }, /^rope: base is 0.5, expected a finite number > 1$/],
  ['alibi: tk fractional', 'alibi', { tk: 1.5 }, /^alibi: tk is 1.5, expected a positive integer$/],
  ['alibi: oversized', 'alibi', { heads: 64, tq: 4096 }, new RegExp(`^alibi: ${MiB.source}`)],
  ['layerNorm: eps 0', 'layerNorm', { eps: 0 }, /^layerNorm: eps is 0, expected a finite number > 0$/],
  ['layerNorm: gamma wrong length', 'layerNorm', { gamma: ramp(3) }, /^layerNorm: gamma has 3 values, expected dim = 4$/],
  ['rmsNorm: gamma Infinity', 'rmsNorm', { gamma: fill(4, (i) => (i ? 1 : Infinity)) }, /^rmsNorm: gamma\[0\] is Infinity, expected finite values$/],
  ['activation: kind', 'activation', { kind: 'swish' }, /^activation: kind is "swish", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
  ['feedForward: activation', 'feedForward', { activation: 'tanh' }, /^feedForward: activation is "tanh", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
  ['feedForward: b1 wrong length', 'feedForward', { b1: ramp(4) }, /^feedForward: b1 has 4 values, expected dFF = 6$/],
  ['encoderBlock: norm', 'encoderBlock', { norm: 'middle' }, /^encoderBlock: norm is "middle", expected one of 'post', 'pre'$/],
  ['encoderBlock: weights typo', 'encoderBlock', { weights: { ...ENTRY.encoderBlock.good().weights, wQ: ramp(16) } }, /^encoderBlock: weights has unknown key 'wQ', expected some of: /],
  ['encoderBlock: weights missing', 'encoderBlock', { weights: undefined }, /^encoderBlock: weights is missing, expected an object \{ wq, wk, wv, wo, w1, w2, … \}$/],
  ['encoderBlock: heads not dividing dModel', 'encoderBlock', { heads: 3 }, /^encoderBlock: heads = 3 does not divide dModel = 4/],
  ['encoderBlock: oversized', 'encoderBlock', { x: big(20000), t: 20000, dModel: 1, heads: 1, dFF: 1, weights: { wq: big(1), wk: big(1), wv: big(1), wo: big(1), w1: big(1), w2: big(1) } }, new RegExp(`^encoderBlock: ${MiB.source}`)],
  ['decoderBlock: memory wrong length', 'decoderBlock', { memory: ramp(11) }, /^decoderBlock: memory has 11 values, expected tm·dModel = 12$/],
  ['decoderBlock: cross weights missing', 'decoderBlock', { weights: { ...ENTRY.encoderBlock.good().weights } }, /^decoderBlock: weights.cwq is missing, expected a Float32Array of dModel·dModel = 16$/],
  ['embedding: id out of range', 'embedding', { ids: [0, 5] }, /^embedding: ids\[1\] is 5, expected an integer in \[0, vocab = 5\)$/],
  ['embedding: id a BigInt', 'embedding', { ids: [1n] }, /^embedding: ids\[0\] is a bigint, expected an integer in \[0, vocab = 5\)$/],
  ['embedding: ids empty', 'embedding', { ids: [] }, /^embedding: ids is empty, expected at least 1 token id$/],
  ['embedding: oversized', 'embedding', { table: big(300), vocab: 1, dModel: 300, ids: new Int32Array(1e6) }, new RegExp(`^embedding: ${MiB.source}`)],
  ['outputHead: temperature 0', 'outputHead', { temperature: 0 }, /^outputHead: temperature is 0, expected a finite number > 0$/],
  ['outputHead: bias wrong length', 'outputHead', { bias: ramp(4) }, /^outputHead: bias has 4 values, expected vocab = 5$/],
  ['outputHead: oversized', 'outputHead', { h: big(20000), rows: 20000, table: big(20000), vocab: 20000, dModel: 1 }, new RegExp(`^outputHead: ${MiB.source}`)],
  ['kernelRegression: kernel', 'kernelRegression', { kernel: 'epanechnikov' }, /^kernelRegression: kernel is "epanechnikov", expected one of 'gaussian', 'dot'$/],
  ['kernelRegression: queries not a multiple of dim', 'kernelRegression', { xs: ramp(10), dim: 2 }, /^kernelRegression: queries has 3 values, expected a multiple of dim = 2$/],
  ['kernelRegression: bandwidth negative', 'kernelRegression', { bandwidth: -1 }, /^kernelRegression: bandwidth is -1, expected a finite number > 0$/],
  ['kernelRegression: oversized', 'kernelRegression', { xs: big(20000), ys: big(20000), queries: big(20000) }, new RegExp(`^kernelRegression: ${MiB.source}`)],
];

describe('bad input: one table per entry point', () => {
  test.each(NAMES.flatMap(badCases))('%s', (_name, fn, args, re) => {
    const before = lab.info();
    let err;
    try { lab[fn](args); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(AttnLabError);
    expect(err.message).toMatch(re);
    expect(lab.info().heapInUse).toBe(before.heapInUse);
    expect(lab.info().stackPointer).toBe(before.stackPointer);
  });
  test.each(SPECIFIC)('%s', (_name, fn, patch, re) => {
    const before = lab.info();
    let err;
    try { lab[fn]({ ...ENTRY[fn].good(), ...patch }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(AttnLabError);
    expect(err.message).toMatch(re);
    expect(lab.info().heapInUse).toBe(before.heapInUse);
  });
  test('tokenizer: bad options name createTokenizer (lab.tokenizer is the same function)', () => {
    for (const [args, re] of [
      [5, /^createTokenizer: expected one options object/],
      [{ kind: 'nope', text: 'a' }, /^createTokenizer: kind is "nope", expected one of 'char', 'word', 'bpe'$/],
      [{ kind: 'bpe', text: 'a', vocabSize: 10 }, /^createTokenizer: vocabSize is 10, expected an integer in \[256, 65536\]/],
      [{ kind: 'char', text: 7 }, /^createTokenizer: text is a number, expected a string/],
      [{ kind: 'char', text: 'a', extra: 1 }, /^createTokenizer: unknown option 'extra'/],
    ]) expect(() => lab.tokenizer(args)).toThrow(re);
    const tok = lab.tokenizer({ kind: 'char', text: 'abc' });
    expect(() => tok.encode(3)).toThrow(/^tokenizer.encode: s is a number, expected a string$/);
    expect(() => tok.decode([0, 9])).toThrow(/^tokenizer.decode: ids\[1\] is 9, expected an integer in \[0, size = 4\)$/);
  });
});

// ---- Numerical edges against an independent float64 reference -------------------------------------
// softmax(scale·q·kᵀ + mask)·v in float64, rows whose keys are all masked → weights 0, output 0.
function attentionF64({ q, k, v, tq, tk, dk, dv, mask, scale = 1 / Math.sqrt(dk) }) {
  const weights = new Float64Array(tq * tk), output = new Float64Array(tq * dv);
  for (let i = 0; i < tq; i++) {
    const s = new Float64Array(tk);
    let mx = -Infinity;
    for (let j = 0; j < tk; j++) {
      let dot = 0;
      for (let p = 0; p < dk; p++) dot += q[i * dk + p] * k[j * dk + p];
      s[j] = dot * scale + (mask ? mask[i * tk + j] : 0);
      mx = Math.max(mx, s[j]);
    }
    if (mx === -Infinity) continue;
    let sum = 0;
    for (let j = 0; j < tk; j++) sum += (s[j] = Math.exp(s[j] - mx));
    for (let j = 0; j < tk; j++) {
      weights[i * tk + j] = s[j] / sum;
      for (let c = 0; c < dv; c++) output[i * dv + c] += weights[i * tk + j] * v[j * dv + c];
    }
  }
  return { weights, output };
}
// |actual − expected| ≤ abs + rel·|expected| everywhere; reports the worst element (one expect, so a
// 100,000-long row stays fast).
function expectNear(actual, expected, rel = 1e-4, abs = 1e-6) {
  expect(actual.length).toBe(expected.length);
  let worst = 0, at = -1;
  for (let i = 0; i < expected.length; i++) {
    const excess = Math.abs(actual[i] - expected[i]) / (abs + rel * Math.abs(expected[i]));
    if (!(excess <= worst)) { worst = excess; at = i; }  // NaN counts as worst
  }
  expect(worst <= 1, `[${at}]: ${actual[at]} vs ${expected[at]}`).toBe(true);
}
function checkAttention(args, tol) {
  const r = lab.attention(args), ref = attentionF64(args);
  expectNear(r.weights, ref.weights, tol?.rel, tol?.abs);
  expectNear(r.output, ref.output, tol?.rel, tol?.abs);
  return r;
}

describe('numerical edges: finite, documented results', () => {
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
  test("the issue's input: both multi-head paths, the layer and the block refuse it alike", () => {
    // Self-attention, t = 10, dModel = 2, 2 heads, window mask, scale = FLT_MAX, one input −1e19
    // (tests/fuzz/corpus/multihead_streaming/regress-scores-overflow-window). The streaming and the
    // full path once gave −1e19/8 and −1e19/9: scores overflowed to +∞ or not by summation order.
    const FLT_MAX = 3.4028234663852886e38;
    const x = [-0.5, 0.25, 0.25, 2, 0.5, 0, -1e19, 0.5, 0.5, 1, 2, 0, -1, 0.25, 2, 0.25, 0.25, -0.5, 0.25, 2];
    const w = { wq: [2, 0.25, 0, 0.25], wk: [2, -0.5, -0.5, 0.5], wv: [-0.5, -1, 2, 0.25], wo: [-0.5, 0.25, -1, 0.5] };
    const call = { x, tq: 10, dModel: 2, heads: 2, ...w, mask: { window: 5 }, scale: FLT_MAX };
    const message = (f) => { try { f(); } catch (e) { return e.message; } return 'accepted'; };
    const full = message(() => lab.multiHeadAttention(call));
    expect(full).toBe('multiHeadAttention: scores q·kᵀ of head 0 can exceed float32 range (bound 4e38), expected |q|·|k| within 3.4e38');
    expect(message(() => lab.multiHeadAttention({ ...call, intermediates: false }))).toBe(full);
    const layer = lab.createMultiHeadAttention({ dModel: 2, heads: 2, ...w });
    expect(message(() => layer.forward({ x, tq: 10, mask: { window: 5 }, scale: FLT_MAX }))).toBe(full);
    expect(message(() => layer.forward({ x, tq: 10, mask: { window: 5 }, scale: FLT_MAX, intermediates: false }))).toBe(full);
    layer.dispose();
    // The block (default scale) refuses the same scores under its own name.
    const block = { x, t: 10, dModel: 2, heads: 2, dFF: 2, mask: { window: 5 }, weights: { ...w, w1: [1, 0, 0, 1], w2: [1, 0, 0, 1] } };
    expect(message(() => lab.encoderBlock(block))).toBe('encoderBlock: attention scores q·kᵀ of head 0 can exceed float32 range (bound 4e38), expected |q|·|k| within 3.4e38');
    // −1e17 instead: the scores fit, both paths accept and agree.
    const small = { ...call, x: x.map((v) => (v === -1e19 ? -1e17 : v)), scale: undefined };
    const a = lab.multiHeadAttention(small).output, b = lab.multiHeadAttention({ ...small, intermediates: false }).output;
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(1e-5 * Math.abs(a[i]) + 1e-3);
  });
  test('huge values: the streaming path gives the all-intermediates output (no overflow summing p·v)', () => {
    const call = { x: fill(9, () => 3e38), tq: 9, dModel: 1, heads: 1, wq: [0], wk: [0], wv: [1], wo: [1] };
    const a = lab.multiHeadAttention(call).output, b = lab.multiHeadAttention({ ...call, intermediates: false }).output;
    for (const r of [a, b]) for (const o of r) expect(Math.abs(o / 3e38 - 1)).toBeLessThan(1e-6);  // the mean of equal values
    expect(() => lab.multiHeadAttention({ ...call, wo: [2] })).toThrow(/^multiHeadAttention: output heads·wo \+ bo can exceed float32 range \(bound 6e38\)/);
    expect(() => lab.multiHeadAttention({ ...call, wo: [2], intermediates: false })).toThrow(/^multiHeadAttention: output heads·wo \+ bo can exceed float32 range \(bound 6e38\)/);
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
    expectNear(s.output, m.output);
    // −∞ everywhere in a window mask of width 0 that is causal keeps only the diagonal: never empty.
    const w = lab.attention({ ...a, mask: { window: 0, causal: true } });
    expect(Array.from(w.weights)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });
  test('denormal inputs: scores underflow to 0, weights uniform, output the mean of v', () => {
    const tiny = 1e-40;  // a float32 denormal
    const args = { q: fill(4, () => tiny), k: fill(6, (i) => tiny * (i + 1)), v: fill(3, (i) => tiny * (i + 1)), tq: 2, tk: 3, dk: 2, dv: 1 };
    const r = checkAttention(args, { rel: 1e-3, abs: 1e-45 });
    expectNear(r.weights, new Float64Array(6).fill(1 / 3));
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
    const r = checkAttention({ q, k, v, tq: 1, tk, dk, dv }, { rel: 1e-3, abs: 1e-7 });
    let sum = 0;
    for (const w of r.weights) sum += w;
    expect(Math.abs(sum - 1)).toBeLessThan(1e-3);
  });
  test('outputHead at temperature 1e-30 gives the argmax one-hot (subtract the max first)', () => {
    const r = lab.outputHead({ ...ENTRY.outputHead.good(), temperature: 1e-30 });
    for (let row = 0; row < 2; row++) {
      const logits = Array.from(r.logits.slice(row * 5, row * 5 + 5)), probs = Array.from(r.probs.slice(row * 5, row * 5 + 5));
      const best = logits.indexOf(Math.max(...logits));
      expect(probs).toEqual(logits.map((_, j) => (j === best ? 1 : 0)));
    }
  });
  test('layerNorm of a constant row is 0 (variance 0 + eps), rmsNorm of zeros is 0', () => {
    expect(Array.from(lab.layerNorm({ x: fill(4, () => 1e30), rows: 1, dim: 4 }))).toEqual([0, 0, 0, 0]);
    expect(Array.from(lab.rmsNorm({ x: fill(4, () => 0), rows: 1, dim: 4 }))).toEqual([0, 0, 0, 0]);
  });
  test('rope at position 2^24 stays a rotation (finite, lengths kept)', () => {
    const x = ramp(8, 1);
    const r = lab.rope({ x, t: 2, dim: 4, offset: 2 ** 24 });
    for (let i = 0; i < 8; i += 2) expect(Math.hypot(r[i], r[i + 1])).toBeCloseTo(Math.hypot(x[i], x[i + 1]), 5);
  });
  test('overflow inside any op is an AttnLabError, not NaN or ±Infinity', () => {
    const huge = fill(16, () => 3e38);
    expect(() => lab.weightedSum({ weights: [2, 2], v: [3e38, 3e38], tq: 1, tk: 2, dv: 1 })).toThrow(/^weightedSum: output\[0\] is Infinity after a float32 overflow, expected /);
    const ones = fill(12, () => 1);
    expect(() => lab.multiHeadAttention({ ...ENTRY.multiHeadAttention.good(), x: ones, wq: huge })).toThrow(/^multiHeadAttention: q\[\d+\] is -?Infinity after a float32 overflow, expected x·wq \+ bq within float32 range$/);
    expect(() => lab.multiHeadAttention({ ...ENTRY.multiHeadAttention.good(), x: ones, wq: huge, intermediates: false })).toThrow(/^multiHeadAttention: .* after a float32 overflow/);
    expect(() => lab.layerNorm({ x: [1, 2], rows: 1, dim: 2, gamma: [3e38, 3e38], beta: [3e38, 3e38] })).toThrow(/^layerNorm: output\[1\] is Infinity after a float32 overflow/);
    expect(() => lab.rope({ x: [3e38, 3e38], t: 2, dim: 2 })).toThrow(/^rope: x has 2 values, expected t·dim = 4$/);
    expect(() => lab.rope({ x: [1, 1, 3e38, 3e38], t: 2, dim: 2 })).toThrow(/^rope: output\[3\] is Infinity after a float32 overflow, expected \|x\| < 2.4e38/);
    expect(() => lab.encoderBlock({ ...ENTRY.encoderBlock.good(), x: fill(8, () => 1), weights: { ...ENTRY.encoderBlock.good().weights, wq: huge } })).toThrow(/^encoderBlock: attention q\[\d+\] is -?Infinity after a float32 overflow/);
  });
});

// ---- undefined means absent -------------------------------------------------------------------------
// An option whose value is undefined is the call without it (spreading a config with unset fields, or
// `mask: cond ? m : undefined`); an unknown name with a value stays an error. Every option of every
// entry point: the names come from the "unknown option" message itself.
const knownOptions = (call) => {
  try { call(); } catch (e) { return e.message.split('expected some of: ')[1].split(', '); }
  throw new Error('an unknown option was accepted');
};
const same = (a, b) => expect(JSON.stringify(a, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)))
  .toBe(JSON.stringify(b, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
describe('undefined means absent', () => {
  test("the issue's call: positionalEncoding({ kind: 'sinusoidal', length: 4, dModel: 8, mask: undefined })", () => {
    same(lab.positionalEncoding({ kind: 'sinusoidal', length: 4, dModel: 8, mask: undefined }),
      lab.positionalEncoding({ kind: 'sinusoidal', length: 4, dModel: 8 }));
  });
  test.each(NAMES)('%s: every option set to undefined is the call without it; unknown names too', (fn) => {
    const good = ENTRY[fn].good();
    const known = knownOptions(() => lab[fn]({ ...good, notAnOption: 1 }));
    const unset = Object.fromEntries(known.filter((k) => !(k in good)).map((k) => [k, undefined]));
    expect(Object.keys(unset).length + Object.keys(good).length).toBe(known.length);
    const expected = lab[fn](good);
    if (expected instanceof MultiHeadAttentionLayer) {
      const layer = lab[fn]({ ...good, ...unset, notAnOption: undefined });
      expect(layer).toBeInstanceOf(MultiHeadAttentionLayer);
      same(layer.forward({ x: ramp(12), tq: 3 }), expected.forward({ x: ramp(12), tq: 3 }));
      layer.dispose();
      expected.dispose();
    } else {
      same(lab[fn]({ ...good, ...unset, notAnOption: undefined }), expected);
    }
    expect(() => lab[fn]({ ...good, notAnOption: 0 })).toThrow(new RegExp(`^${fn}: unknown option 'notAnOption', expected some of: `));
  });
  test('positionalEncoding learned: the sinusoidal-only base undefined is absent', () => {
    const args = { kind: 'learned', table: ramp(8), maxLength: 2, dModel: 4, length: 1 };
    same(lab.positionalEncoding({ ...args, base: undefined }), lab.positionalEncoding(args));
    expect(() => lab.positionalEncoding({ ...args, base: 100 })).toThrow(/^positionalEncoding: unknown option 'base'/);
  });
  test('layer.forward: every call option undefined, and an unknown one', () => {
    const layer = lab.createMultiHeadAttention(ENTRY.createMultiHeadAttention.good());
    const known = knownOptions(() => layer.forward({ x: ramp(12), tq: 3, notAnOption: 1 }));
    const unset = Object.fromEntries(known.filter((k) => k !== 'x' && k !== 'tq').map((k) => [k, undefined]));
    same(layer.forward({ x: ramp(12), tq: 3, ...unset, notAnOption: undefined }), layer.forward({ x: ramp(12), tq: 3 }));
    expect(() => layer.forward({ x: ramp(12), tq: 3, notAnOption: 0 })).toThrow(/^multiHeadAttention: unknown option 'notAnOption'/);
    layer.dispose();
  });
  test('nested options: mask { window, causal }, rope { base }, block weights', () => {
    const a = ENTRY.attention.good();
    same(lab.attention({ ...a, mask: { window: 1, causal: undefined, other: undefined } }), lab.attention({ ...a, mask: { window: 1 } }));
    expect(() => lab.attention({ ...a, mask: { window: 1, other: 0 } })).toThrow(/^attention: mask has unknown key 'other'/);
    const m = ENTRY.multiHeadAttention.good();
    same(lab.multiHeadAttention({ ...m, rope: { base: undefined, bse: undefined } }), lab.multiHeadAttention({ ...m, rope: true }));
    expect(() => lab.multiHeadAttention({ ...m, rope: { bse: 10 } })).toThrow(/^multiHeadAttention: rope has unknown key 'bse'/);
    for (const fn of ['encoderBlock', 'decoderBlock']) {
      const b = ENTRY[fn].good();
      const names = knownOptions(() => lab[fn]({ ...b, weights: { ...b.weights, zz: [1] } }));
      const unset = Object.fromEntries(names.filter((k) => !(k in b.weights)).map((k) => [k, undefined]));
      same(lab[fn]({ ...b, weights: { ...b.weights, ...unset, zz: undefined } }), lab[fn](b));
      expect(() => lab[fn]({ ...b, weights: { ...b.weights, zz: [1] } })).toThrow(new RegExp(`^${fn}: weights has unknown key 'zz'`));
    }
  });
  test('createTokenizer and lab.tokenizer', () => {
    for (const make of [createTokenizer, (a) => lab.tokenizer(a)]) {
      const t = make({ kind: 'char', text: 'abc', vocabSize: undefined, other: undefined });
      expect(Array.from(t.encode('cab'))).toEqual([3, 1, 2]);
      expect(make({ kind: 'bpe', text: 'abab', vocabSize: undefined }).size).toBe(make({ kind: 'bpe', text: 'abab' }).size);
      expect(() => make({ kind: 'char', text: 'a', other: 1 })).toThrow(/^createTokenizer: unknown option 'other'/);
    }
  });
});

// ---- No leak on any path ---------------------------------------------------------------------------
describe('after failures the module is intact', () => {
  test('100,000 failing calls (every entry point, JS- and C++-side failures) interleaved with good ones', () => {
    const refA = lab.attention(ENTRY.attention.good()).output;
    const refM = lab.multiHeadAttention(ENTRY.multiHeadAttention.good()).output;
    const refE = lab.encoderBlock(ENTRY.encoderBlock.good()).output;
    const before = lab.info();
    const nanAt = (a) => Float32Array.from(a, (x, i) => (i === 1 ? NaN : x));
    // Failures found by the C++ checks (values, overflow) and by the JS checks (shapes, options).
    const bad = [
      ['attention', { ...ENTRY.attention.good(), k: nanAt(ENTRY.attention.good().k) }],
      ['attention', { q: [1e30, 1e30], k: [1e30, -1e30], v: [1], tq: 1, tk: 1, dk: 2, dv: 1 }],
      ['multiHeadAttention', { ...ENTRY.multiHeadAttention.good(), wv: nanAt(ramp(16)) }],
      ['multiHeadAttention', { ...ENTRY.multiHeadAttention.good(), wv: nanAt(ramp(16)), intermediates: false }],
      ['feedForward', { ...ENTRY.feedForward.good(), w2: nanAt(ramp(24)) }],
      ['layerNorm', { ...ENTRY.layerNorm.good(), x: nanAt(ramp(8)) }],
      ['kernelRegression', { ...ENTRY.kernelRegression.good(), ys: nanAt(ramp(5)) }],
      ['outputHead', { ...ENTRY.outputHead.good(), h: nanAt(ramp(8)) }],
      ['rope', { ...ENTRY.rope.good(), x: nanAt(ramp(8)) }],
      ['positionalEncoding', { kind: 'sinusoidal', length: 3, dModel: 2, base: 0.5 }],
      ['attention', { ...ENTRY.attention.good(), q: [1] }],
      ['embedding', { ...ENTRY.embedding.good(), ids: [7] }],
      ['alibi', { heads: 64, tq: 4096 }],
    ];
    // The blocks' JS layer costs ~10x a single op per call: they fail every 50th call (2,000 times).
    const heavy = [
      ['encoderBlock', { ...ENTRY.encoderBlock.good(), x: nanAt(ramp(8)) }],
      ['decoderBlock', { ...ENTRY.decoderBlock.good(), memory: nanAt(ramp(12)) }],
    ];
    let failures = 0;
    for (let i = 0; i < 100000; i++) {
      const [fn, args] = i % 50 === 0 ? heavy[(i / 50) % 2] : bad[i % bad.length];
      try {
        lab[fn](args);
      } catch (e) {
        if (e instanceof AttnLabError && e.message.startsWith(fn + ': ')) failures++;
      }
      if (i % 5000 === 0) expect(lab.attention(ENTRY.attention.good()).output).toEqual(refA);
    }
    expect(failures).toBe(100000);
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(lab.attention(ENTRY.attention.good()).output).toEqual(refA);
    expect(lab.multiHeadAttention(ENTRY.multiHeadAttention.good()).output).toEqual(refM);
    expect(lab.encoderBlock(ENTRY.encoderBlock.good()).output).toEqual(refE);
  });

  test('20,000 good interactive calls across the entry points keep memory flat', () => {
    // A layer (createMultiHeadAttention) owns its weights' memory until dispose(): disposed here.
    const call = (fn) => { const r = lab[fn](ENTRY[fn].good()); if (r instanceof MultiHeadAttentionLayer) r.dispose(); };
    for (const fn of NAMES) call(fn);
    const before = lab.info();
    for (let i = 0; i < 20000; i++) call(NAMES[i % NAMES.length]);
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(after.stackPointer).toBe(before.stackPointer);
  });
});

// ---- Seeded random arguments: finite results or an AttnLabError naming the function ---------------
const GARBAGE = [
  0, -0, -1, 1, 2, 3, 1.5, NaN, Infinity, -Infinity, 1e300, -1e300, 1e-320, 2 ** 24 + 1, 2 ** 31, '3', '', 'causal',
  true, false, null, undefined, [], [[1, 2]], [NaN], ['a'], {}, { window: 1 }, { base: 2 }, Object.create(null),
  new Float32Array(3), new Float64Array(4).fill(1e39), new Int8Array(2), new BigInt64Array(2), new DataView(new ArrayBuffer(8)),
  Symbol('s'), 10n, () => 1, new Date(0), /re/, new Map(), Float32Array.of(-Infinity, 0),
];

// Random garbage in place of some arguments (or of the whole options object), or a random array of a
// plausible length, or the good call with one number perturbed.
function randomArgs(rand, good) {
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const r = rand();
  if (r < 0.05) return pick(GARBAGE);
  const args = { ...good };
  const keys = Object.keys(args);
  const changes = 1 + Math.floor(rand() * 3);
  for (let c = 0; c < changes; c++) {
    const what = rand();
    if (what < 0.1) args[pick(['bogus', 'mask', 'scale', 'rope', 'alibi', 'kind', 'eps', 'bias', 'context', 'tk', 'intermediates', 'norm', 'activation', 'temperature', 'offset', 'base'])] = pick(GARBAGE);
    else {
      const key = pick(keys);
      const v = args[key];
      if (ArrayBuffer.isView(v) && !(v instanceof DataView) && typeof v[0] !== 'bigint' && what < 0.6) {
        const copy = Float32Array.from(v);
        const special = pick([NaN, Infinity, -Infinity, 1e38, -1e38, 1e-42, 3e38, 0]);
        for (let n = 0; n < 1 + Math.floor(rand() * 3); n++) copy[Math.floor(rand() * copy.length)] = special;
        args[key] = rand() < 0.8 ? copy : Array.from(copy).slice(0, Math.floor(rand() * (copy.length + 2)));
      } else if (typeof v === 'number' && what < 0.6) args[key] = pick([v - 1, v + 1, v * 2, 0, -v, v + 0.5, 1]);
      else if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && !Array.isArray(v)) args[key] = randomArgs(rand, v);
      else args[key] = pick(GARBAGE);
    }
  }
  return args;
}

// Every number in a result is finite (scores/scaled/logits may hold ±Infinity: masks and overflowed
// raw products, documented); never NaN anywhere.
function expectFiniteResult(fn, r, path = fn) {
  if (ArrayBuffer.isView(r)) {
    const rawOk = /\.(scores|scaled|logits)$/.test(path);
    for (let i = 0; i < r.length; i++) {
      if (Number.isNaN(r[i]) || (!rawOk && !Number.isFinite(r[i]))) throw new Error(`${path}[${i}] is ${r[i]}`);
    }
  } else if (r && typeof r === 'object') {
    for (const [k, v] of Object.entries(r)) expectFiniteResult(fn, v, `${path}.${k}`);
  } else if (typeof r === 'number' && !Number.isFinite(r)) throw new Error(`${path} is ${r}`);
}

test('seeded random arguments: a finite result or an AttnLabError naming the function, never a crash', () => {
  const rand = mulberry32(20261121);
  const refA = lab.attention(ENTRY.attention.good()).output;
  const before = lab.info();
  const seen = { ok: 0, refused: 0 };
  for (let i = 0; i < 1000 * NAMES.length; i++) {
    const fn = NAMES[i % NAMES.length];
    const args = randomArgs(rand, ENTRY[fn].good());
    let result, err;
    try { result = lab[fn](args); } catch (e) { err = e; }
    if (err) {
      if (!(err instanceof AttnLabError) || !err.message.startsWith(fn + ': '))
        throw new Error(`${fn}(${describeArgs(args)}) threw ${err?.name}: ${err?.message}`);
      seen.refused++;
    } else {
      try { expectFiniteResult(fn, result); } catch (e) { throw new Error(`${fn}(${describeArgs(args)}): ${e.message}`); }
      seen.ok++;
    }
  }
  // Both outcomes happen often (the generator is not all garbage nor all good).
  expect(seen.ok).toBeGreaterThan(500);
  expect(seen.refused).toBeGreaterThan(5000);
  lab.dispose();  // big random requests may have grown the arena; the heap must be back where it was
  lab.attention(ENTRY.attention.good());
  expect(lab.attention(ENTRY.attention.good()).output).toEqual(refA);
  expect(lab.info().stackPointer).toBe(before.stackPointer);
});

test('seeded random arguments to the tokenizer and its methods: a result or an AttnLabError naming it', () => {
  const rand = mulberry32(99);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const texts = ['', 'the cat sat', 'ünï cødé 🙂', 'a'.repeat(300), '\u0000\uD800 x'];
  const check = (prefix, f) => {
    try { return f(); } catch (e) {
      if (!(e instanceof AttnLabError) || !e.message.startsWith(prefix)) throw new Error(`${prefix}: ${e?.name}: ${e?.message}`);
      return undefined;
    }
  };
  for (let i = 0; i < 600; i++) {
    const args = rand() < 0.1 ? pick(GARBAGE) : { kind: rand() < 0.7 ? pick(['char', 'word', 'bpe']) : pick(GARBAGE),
      text: rand() < 0.8 ? pick(texts) : pick(GARBAGE), ...(rand() < 0.3 ? { vocabSize: pick([256, 300, 10, 1e9, ...GARBAGE]) } : {}) };
    const tok = check('createTokenizer: ', () => lab.tokenizer(args));
    if (!tok) continue;
    const ids = check('tokenizer.encode: ', () => tok.encode(rand() < 0.7 ? pick(texts) : pick(GARBAGE)));
    if (ids) expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id < tok.size)).toBe(true);
    check('tokenizer.decode: ', () => tok.decode(rand() < 0.5 && ids ? ids : pick([[0, 1e9], [-1], [1.5], ...GARBAGE])));
    check('tokenizer.token: ', () => tok.token(pick([0, 1, -1, 1e9, ...GARBAGE])));
  }
});

function describeArgs(a) {
  if (!a || typeof a !== 'object') return typeof a === 'symbol' || typeof a === 'bigint' ? typeof a : String(a);
  return '{ ' + Object.entries(a).map(([k, v]) => `${k}: ${ArrayBuffer.isView(v) ? `${v.constructor.name}(${v.length})[${Array.from(v.slice(0, 4)).join(',')}…]` : typeof v === 'object' && v ? describeArgs(v) : typeof v === 'symbol' || typeof v === 'bigint' ? typeof v : String(v)}`).join(', ') + ' }';
}

// ---- The widgets' URL-hash parser (JS, web/widgets/shared/hash.js) ---------------------------------
test('URL hash: random and hostile strings give a valid state or the defaults with a notice, never a throw', () => {
  const schema = { mask: { type: 'enum', values: ['none', 'causal'] }, t: { type: 'num', min: 0.05, max: 20 },
    n: { type: 'int', min: 1, max: 8 }, on: { type: 'bool' }, x: { type: 'nums', maxLength: 4, min: -5, max: 5 },
    w: { type: 'strings', maxLength: 3, maxChars: 5 }, s: { type: 'text', maxChars: 20 } };
  const rand = mulberry32(7);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const valid = writeHashState('#other=1', 'w1', { mask: 'causal', t: 0.5, n: 3, on: true, x: [1, -2], w: ['a'], s: 'hi' });
  const alphabet = ['%', '#', '&', '=', '{', '}', '"', ':', ',', '[', ']', '\\', 'w1', 'a', '1', 'e', '-', '.', '%7B', '%22', '%E0', '%', '<script>', '\u0000', '\uD800', 'null', 'true', '__proto__', 'constructor', ' '];
  const counts = { state: 0, notice: 0, absent: 0 };
  for (let i = 0; i < 20000; i++) {
    let hash;
    const mode = rand();
    if (mode < 0.3) hash = Array.from({ length: Math.floor(rand() * 40) }, () => pick(alphabet)).join('');
    else if (mode < 0.6) {  // a valid link, cut or with a few characters changed
      const chars = valid.slice(0, Math.floor(rand() * (valid.length + 1))).split('');
      for (let n = 0; n < 3; n++) if (chars.length) chars[Math.floor(rand() * chars.length)] = pick(alphabet);
      hash = chars.join('');
    } else {  // random JSON-ish state
      const raw = {};
      const jsonable = GARBAGE.filter((g) => !['symbol', 'bigint', 'function'].includes(typeof g) && (g === null || typeof g !== 'object' || Array.isArray(g) || Object.getPrototypeOf(g) === Object.prototype || g instanceof Float32Array));
      for (const key of Object.keys(schema)) if (rand() < 0.5) raw[rand() < 0.9 ? key : pick(['__proto__', 'constructor', 'x2'])] = pick([...jsonable, 'causal', 0.5, 3, [1, 2], ['a', 'b']]);
      hash = '#w1=' + encodeURIComponent(JSON.stringify(raw) ?? '');
    }
    if (rand() < 0.01) hash += 'a'.repeat(MAX_PARAM_CHARS);
    const r = readHashState(hash, 'w1', schema);
    const fine = Object.keys(r).every((k) => k === 'state' || k === 'notice') && (r.state === null
      ? r.notice === undefined || /showing the defaults\.$/.test(r.notice)
      : sanitize(r.state, schema).ok && Object.getPrototypeOf(r.state) === Object.prototype);  // only schema keys, each valid
    if (!fine) expect({ hash, r }).toBe('a valid state, or null with a notice');
    counts[r.state ? 'state' : r.notice ? 'notice' : 'absent']++;
  }
  expect(counts.state).toBeGreaterThan(100);  // the generator reaches all three outcomes
  expect(counts.notice).toBeGreaterThan(1000);
  expect(counts.absent).toBeGreaterThan(100);
  expect({}.n).toBe(undefined);  // no prototype pollution
});
