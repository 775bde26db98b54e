// Bad input, every public entry point: each class of bad input is an AttnLabError "<function>:
// <argument> …, expected …" with the exact message, nothing allocated is left behind; an option set to
// undefined is the call without it. Rules and edge behaviour: docs/hardening.md.
import { beforeAll, describe, expect, test } from 'vitest';
import { AttnLab, AttnLabError, Model, MultiHeadAttentionLayer, createAttnLab, createTokenizer } from 'attnlab';
import { encoderArgs, golden } from './helpers.js';
import { ENTRY, NAMES, dec, enc, encWeights, fill, ramp, smallAttention, smallMultiHead, withNaN } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const g = golden('blocks');

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
  let r;
  expect(() => { r = lab[fn](ENTRY[fn].good()); }).not.toThrow();
  if (r instanceof Model) r.dispose();
});

// ---- Bad-input tables, generated per entry point ---------------------------------------------------
function badCases(fn) {
  const e = ENTRY[fn], cases = [];
  const add = (what, args, re) => cases.push([`${fn}: ${what}`, fn, args, re]);
  if (e.positional) {  // fn(bytes), not fn({ … }): loadModel
    const a = e.positional, expected = 'expected a Uint8Array or ArrayBuffer of a safetensors file';
    for (const [v, got] of [[42, '42'], [true, 'a boolean'], [null, 'null'], [undefined, 'missing'], [{}, 'a object'], [[1, 2], 'an array of 2'], [Symbol('s'), 'a symbol']])
      add(`${a} = ${got}`, v, new RegExp(`^${fn}: ${a} is ${esc(got)}, ${expected}`));
    const good = e.good();
    add(`${a} cut to 7 bytes`, good.slice(0, 7), new RegExp(`^${fn}: ${a} are 7 bytes long, expected at least 8`));
    add(`${a} cut in the header`, good.slice(0, 40), new RegExp(`^${fn}: ${a} header length is \\d+, past the end of the 40 bytes`));
    add(`${a} one float short`, good.slice(0, good.length - 4), new RegExp(`^${fn}: ${a} hold \\d+ bytes of tensor data, expected at least 4·num_params`));
    return cases;
  }
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
  ['createModel: heads not dividing dModel (the core)', 'createModel', { heads: 3 }, /^createModel: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads$/],
  ['createModel: vocab beyond the limit (the core)', 'createModel', { vocab: 70000 }, /^createModel: vocab is 70000, expected an integer in \[1, 65536\]$/],
  ['createModel: too many parameters (the core)', 'createModel', { vocab: 65536, dModel: 4096, heads: 1 }, /^createModel: the model would have \d+ parameters, expected at most 67108864/],
  ['createModel: dFF 0', 'createModel', { dFF: 0 }, /^createModel: dFF is 0, expected a positive integer$/],
  ['createModel: activation', 'createModel', { activation: 'swish' }, /^createModel: activation is "swish", expected one of 'gelu', 'gelu_tanh', 'relu'$/],
  ['createModel: attentionOnly not boolean', 'createModel', { attentionOnly: 1 }, /^createModel: attentionOnly is 1, expected true or false$/],
  ['createModel: layerNorm not boolean', 'createModel', { layerNorm: 'no' }, /^createModel: layerNorm is "no", expected true or false$/],
  ['createModel: seed negative', 'createModel', { seed: -1 }, /^createModel: seed is -1, expected an integer in \[0, 2\^32\)$/],
  ['createModel: seed 2^32', 'createModel', { seed: 2 ** 32 }, /^createModel: seed is 4294967296, expected an integer in \[0, 2\^32\)$/],
  ['createModel: seed fractional', 'createModel', { seed: 0.5 }, /^createModel: seed is 0.5, expected an integer in \[0, 2\^32\)$/],
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
    try { lab[fn]({ ...ENTRY[fn].good(), ...patch }).dispose?.(); } catch (e) { err = e; }
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

describe('overflow is refused, never NaN or ±Infinity', () => {
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

describe('attention: bad input', () => {
  const cases = [
    ['wrong length', { q: [1, 2, 3, 4, 5] }, /^attention: q has 5 values, expected tq·dk = 6$/],
    ['NaN value', { k: [1, 0, 0, NaN, 1, 1] }, /^attention: k\[3\] is NaN, expected finite values$/],
    ['Infinity value', { v: [1, 2, 3, Infinity, 5, 6] }, /^attention: v\[3\] is Infinity, expected finite values$/],
    ['zero size', { tq: 0 }, /^attention: tq is 0, expected a positive integer$/],
    ['fractional size', { dk: 2.5 }, /^attention: dk is 2.5, expected a positive integer$/],
    ['string size', { tk: '3' }, /^attention: tk is "3", expected a positive integer$/],
    ['negative size', { dv: -1 }, /^attention: dv is -1, expected a positive integer$/],
    ['missing array', { v: undefined }, /^attention: v is missing, expected a Float32Array of tk·dv = 6$/],
    ['nested rows', { q: [[1, 0], [0, 1], [1, 1]] }, /^attention: q is an array of rows, expected a flat row-major Float32Array/],
    ['unknown mask name', { mask: 'upper' }, /^attention: mask is "upper", expected 'none', 'causal'/],
    ['mask with NaN', { mask: new Float32Array([0, 0, 0, 0, NaN, 0, 0, 0, 0]) }, /^attention: mask\[4\] is NaN, expected finite values or -Infinity$/],
    ['mask with +Infinity', { mask: new Float32Array([0, 0, 0, 0, Infinity, 0, 0, 0, 0]) }, /^attention: mask\[4\] is Infinity, expected finite values or -Infinity$/],
    ['mask of wrong size', { mask: new Float32Array(4) }, /^attention: mask has 4 values, expected tq·tk = 9$/],
    ['negative window', { mask: { window: -1 } }, /^attention: mask.window is -1, expected an integer ≥ 0$/],
    ['mask typo', { mask: { windw: 2 } }, /^attention: mask has unknown key 'windw'/],
    ['scale 0', { scale: 0 }, /^attention: scale is 0, expected a finite number > 0$/],
    ['scale NaN', { scale: NaN }, /^attention: scale is NaN, expected a finite number > 0$/],
    ['unknown option', { dropout: 0.1 }, /^attention: unknown option 'dropout'/],
  ];
  test.each(cases)('%s', (_name, patch, message) => {
    expect(() => lab.attention({ ...smallAttention(), ...patch })).toThrow(message);
  });

  test('causal and window masks need tq = tk', () => {
    const args = { q: [1, 0], k: [1, 0, 0, 1, 1, 1], v: [1, 2, 3], tq: 1, tk: 3, dk: 2, dv: 1 };
    expect(() => lab.attention({ ...args, mask: 'causal' })).toThrow(/needs tq = tk \(self-attention\), got tq = 1, tk = 3/);
    expect(() => lab.attention({ ...args, mask: { window: 1 } })).toThrow(/needs tq = tk/);
  });

  test('not an options object', () => {
    expect(() => lab.attention()).toThrow(/^attention: expected one options object/);
    expect(() => lab.attention([1, 2])).toThrow(/^attention: expected one options object/);
  });

  test('a request too large for WASM memory is an Error before anything is allocated', () => {
    const before = lab.info();
    const n = 20000;
    // q/k/v must have the right lengths to reach the size check; use typed arrays that do.
    const q = new Float32Array(n), v = new Float32Array(n);
    expect(() => lab.attention({ q, k: q, v, tq: n, tk: n, dk: 1, dv: 1 })).toThrow(/^attention: these sizes need \d+ MiB of WebAssembly memory, expected at most 1024 MiB/);
    expect(lab.info().heapInUse).toBe(before.heapInUse);
  });
});

describe('multiHeadAttention: bad input', () => {
  const cases = [
    ['heads not dividing dModel', { heads: 3 }, /^multiHeadAttention: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads$/],
    ['weight of wrong size', { wo: new Float32Array(15) }, /^multiHeadAttention: wo has 15 values, expected dModel·dModel = 16$/],
    ['missing weight', { wk: undefined }, /^multiHeadAttention: wk is missing, expected a Float32Array of dModel·dModel = 16$/],
    ['bias of wrong size', { bq: new Float32Array(3) }, /^multiHeadAttention: bq has 3 values, expected dModel = 4$/],
    ['NaN in weights', { wv: new Float32Array(16).fill(NaN) }, /^multiHeadAttention: wv\[0\] is NaN, expected finite values$/],
    ['NaN in x', { x: Float32Array.from({ length: 12 }, (_, i) => (i === 7 ? NaN : 0)) }, /^multiHeadAttention: x\[7\] is NaN, expected finite values$/],
    ['context without tk', { context: new Float32Array(8) }, /^multiHeadAttention: tk is missing, expected a positive integer$/],
    ['context of wrong size', { context: new Float32Array(7), tk: 2 }, /^multiHeadAttention: context has 7 values, expected tk·dModel = 8$/],
    ['causal mask in cross-attention', { context: new Float32Array(8), tk: 2, mask: 'causal' }, /needs tq = tk/],
    ['tk without context', { tk: 5 }, /^multiHeadAttention: tk is 5 without a context/],
    ['alibi with cross-attention', { context: new Float32Array(8), tk: 2, alibi: true }, /alibi is defined for self-attention/],
    ['rope with odd head width', { dModel: 6, heads: 2, x: new Float32Array(18), wq: new Float32Array(36), wk: new Float32Array(36), wv: new Float32Array(36), wo: new Float32Array(36), rope: true }, /rope needs an even head width dModel\/heads, got 3/],
  ];
  test.each(cases)('%s', (_name, patch, message) => {
    expect(() => lab.multiHeadAttention({ ...smallMultiHead(), ...patch })).toThrow(message);
  });
});

describe('positional encodings: bad input', () => {
  test.each([
    [{ kind: 'cosine', length: 4, dModel: 4 }, /^positionalEncoding: kind is "cosine", expected one of 'sinusoidal', 'learned'$/],
    [{ kind: 'sinusoidal', length: 0, dModel: 4 }, /^positionalEncoding: length is 0, expected a positive integer$/],
    [{ kind: 'sinusoidal', length: 4, dModel: 4, base: -2 }, /^positionalEncoding: base is -2, expected a finite number > 0$/],
    [{ kind: 'sinusoidal', length: 4, dModel: 4, base: 1 }, /^positionalEncoding: base is 1(\.0+)?, expected a finite number > 1$/],
    [{ kind: 'learned', table: new Float32Array(8), maxLength: 2, dModel: 4, length: 3 }, /beyond the length it was trained for/],
  ])('%o', (args, message) => {
    expect(() => lab.positionalEncoding(args)).toThrow(message);
  });
  test('rope and alibi', () => {
    expect(() => lab.rope({ x: new Float32Array(6), t: 2, dim: 3 })).toThrow(/^rope: dim is 3, expected an even number/);
    expect(() => lab.alibi({ heads: 0, tq: 3 })).toThrow(/^alibi: heads is 0, expected a positive integer$/);
  });
});

describe('blocks, embedding, kernel regression: bad input, exact messages', () => {
  const fill = (n, v) => new Float32Array(n).fill(v);
  test.each([
    ['layerNorm wrong size', () => lab.layerNorm({ x: fill(7, 1), rows: 2, dim: 4 }), /^layerNorm: x has 7 values, expected rows·dim = 8$/],
    ['layerNorm NaN', () => lab.layerNorm({ x: withNaN(8, 5), rows: 2, dim: 4 }), /^layerNorm: x\[5\] is NaN, expected finite values$/],
    ['layerNorm gamma size', () => lab.layerNorm({ x: fill(8, 1), rows: 2, dim: 4, gamma: fill(3, 1) }), /^layerNorm: gamma has 3 values, expected dim = 4$/],
    ['layerNorm beta Infinity', () => lab.layerNorm({ x: fill(8, 1), rows: 2, dim: 4, beta: [0, Infinity, 0, 0] }), /^layerNorm: beta\[1\] is Infinity, expected finite values$/],
    ['layerNorm eps 0', () => lab.layerNorm({ x: fill(8, 1), rows: 2, dim: 4, eps: 0 }), /^layerNorm: eps is 0, expected a finite number > 0$/],
    ['rmsNorm NaN gamma', () => lab.rmsNorm({ x: fill(4, 1), rows: 1, dim: 4, gamma: withNaN(4, 2) }), /^rmsNorm: gamma\[2\] is NaN, expected finite values$/],
    ['rmsNorm typo', () => lab.rmsNorm({ x: fill(4, 1), rows: 1, dim: 4, beta: fill(4, 0) }), /^rmsNorm: unknown option 'beta', expected some of: x, rows, dim, gamma, eps$/],
    ['activation unknown kind', () => lab.activation({ x: [1], kind: 'swish' }), /^activation: kind is "swish", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
    ['activation NaN', () => lab.activation({ x: [1, NaN], kind: 'relu' }), /^activation: x\[1\] is NaN, expected finite values$/],
    ['activation empty', () => lab.activation({ x: [], kind: 'relu' }), /^activation: x is empty, expected at least 1 value$/],
    ['feedForward missing w2', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: fill(32, 0.1) }), /^feedForward: w2 is missing, expected a Float32Array of dFF·dModel = 32$/],
    ['feedForward b1 size', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: fill(32, 0.1), w2: fill(32, 0.1), b1: fill(4, 0) }), /^feedForward: b1 has 4 values, expected dFF = 8$/],
    ['feedForward unknown activation', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: fill(32, 0.1), w2: fill(32, 0.1), activation: 'tanh' }), /^feedForward: activation is "tanh", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
    ['feedForward NaN weight', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: withNaN(32, 31), w2: fill(32, 0.1) }), /^feedForward: w1\[31\] is NaN, expected finite values$/],
    ['encoderBlock missing weight', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), wk: undefined } }), /^encoderBlock: weights.wk is missing, expected a Float32Array of dModel·dModel = 16$/],
    ['encoderBlock wrong size', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), w1: fill(31, 0) } }), /^encoderBlock: weights.w1 has 31 values, expected dModel·dFF = 32$/],
    ['encoderBlock unknown norm', () => lab.encoderBlock({ ...enc(), norm: 'sandwich' }), /^encoderBlock: norm is "sandwich", expected one of 'post', 'pre'$/],
    ['encoderBlock unknown activation', () => lab.encoderBlock({ ...enc(), activation: 'silu' }), /^encoderBlock: activation is "silu", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
    ['encoderBlock NaN in x', () => lab.encoderBlock({ ...enc(), x: withNaN(12, 4) }), /^encoderBlock: x\[4\] is NaN, expected finite values$/],
    ['encoderBlock NaN in a LayerNorm', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), ln1Gamma: withNaN(4, 0) } }), /^encoderBlock: weights.ln1Gamma\[0\] is NaN, expected finite values$/],
    ['encoderBlock unknown weight', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), wqkv: fill(48, 0) } }), /^encoderBlock: weights has unknown key 'wqkv', expected some of: wq, wk/],
    ['encoderBlock no weights', () => lab.encoderBlock({ ...enc(), weights: undefined }), /^encoderBlock: weights is missing, expected an object \{ wq, wk, wv, wo, w1, w2, … \}$/],
    ['encoderBlock heads', () => lab.encoderBlock({ ...enc(), heads: 3 }), /^encoderBlock: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads$/],
    ['encoderBlock eps', () => lab.encoderBlock({ ...enc(), eps: -1 }), /^encoderBlock: eps is -1, expected a finite number > 0$/],
    ['encoderBlock mask', () => lab.encoderBlock({ ...enc(), mask: 'future' }), /^encoderBlock: mask is "future", expected 'none', 'causal'/],
    ['decoderBlock missing cross weight', () => lab.decoderBlock({ ...dec(), weights: { ...dec().weights, cwv: undefined } }), /^decoderBlock: weights.cwv is missing, expected a Float32Array of dModel·dModel = 16$/],
    ['decoderBlock memory size', () => lab.decoderBlock({ ...dec(), memory: fill(7, 0) }), /^decoderBlock: memory has 7 values, expected tm·dModel = 8$/],
    ['decoderBlock NaN in memory', () => lab.decoderBlock({ ...dec(), memory: withNaN(8, 6) }), /^decoderBlock: memory\[6\] is NaN, expected finite values$/],
    ['decoderBlock NaN in a cross bias', () => lab.decoderBlock({ ...dec(), weights: { ...dec().weights, cbo: withNaN(4, 3) } }), /^decoderBlock: weights.cbo\[3\] is NaN, expected finite values$/],
    ['decoderBlock missing tm', () => lab.decoderBlock({ ...dec(), tm: undefined }), /^decoderBlock: tm is missing, expected a positive integer$/],
    ['embedding id out of range', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4, ids: [0, 3] }), /^embedding: ids\[1\] is 3, expected an integer in \[0, vocab = 3\)$/],
    ['embedding fractional id', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4, ids: [1.5] }), /^embedding: ids\[0\] is 1.5, expected an integer in \[0, vocab = 3\)$/],
    ['embedding negative id', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4, ids: new Int32Array([-1]) }), /^embedding: ids\[0\] is -1, expected an integer in \[0, vocab = 3\)$/],
    ['embedding NaN table', () => lab.embedding({ table: withNaN(12, 9), vocab: 3, dModel: 4, ids: [0] }), /^embedding: table\[9\] is NaN, expected finite values$/],
    ['embedding missing ids', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4 }), /^embedding: ids is missing, expected an array of token ids$/],
    ['outputHead temperature 0', () => lab.outputHead({ h: fill(4, 0), rows: 1, table: fill(12, 0), vocab: 3, dModel: 4, temperature: 0 }), /^outputHead: temperature is 0, expected a finite number > 0$/],
    ['outputHead bias size', () => lab.outputHead({ h: fill(4, 0), rows: 1, table: fill(12, 0), vocab: 3, dModel: 4, bias: fill(4, 0) }), /^outputHead: bias has 4 values, expected vocab = 3$/],
    ['outputHead NaN h', () => lab.outputHead({ h: withNaN(4, 1), rows: 1, table: fill(12, 0), vocab: 3, dModel: 4 }), /^outputHead: h\[1\] is NaN, expected finite values$/],
    ['kernelRegression unknown kernel', () => lab.kernelRegression({ xs: [1], ys: [1], queries: [0], kernel: 'epanechnikov' }), /^kernelRegression: kernel is "epanechnikov", expected one of 'gaussian', 'dot'$/],
    ['kernelRegression xs size', () => lab.kernelRegression({ xs: [1, 2], ys: [1], queries: [0] }), /^kernelRegression: xs has 2 values, expected ys.length·dim = 1$/],
    ['kernelRegression bandwidth', () => lab.kernelRegression({ xs: [1], ys: [1], queries: [0], bandwidth: -1 }), /^kernelRegression: bandwidth is -1, expected a finite number > 0$/],
    ['kernelRegression NaN query', () => lab.kernelRegression({ xs: [1], ys: [1], queries: [0, NaN] }), /^kernelRegression: queries\[1\] is NaN, expected finite values$/],
    ['kernelRegression queries not a multiple of dim', () => lab.kernelRegression({ xs: [1, 2], ys: [1], queries: [0, 1, 2], dim: 2 }), /^kernelRegression: queries has 3 values, expected a multiple of dim = 2$/],
  ])('%s', (_n, call, message) => {
    expect(call).toThrow(message);
  });
  test('bad input names the batch', () => {
    const c = g.encoder[0];
    expect(() => lab.encoderBlock({ ...encoderArgs(c), batch: 2 })).toThrow(/^encoderBlock: x has 40 values, expected batch·t·dModel = 80$/);
    const x = [...c.x, ...c.x];
    x[41] = NaN;
    expect(() => lab.encoderBlock({ ...encoderArgs(c), x, batch: 2 })).toThrow(/^encoderBlock: x\[1\] is NaN, expected finite values \(in batch element 1\)$/);
    expect(() => lab.encoderBlock({ ...encoderArgs(c), batch: 0 })).toThrow(/^encoderBlock: batch is 0, expected a positive integer$/);
  });
});

describe('tokenizer: bad input', () => {
  const text = 'the cat sat on the mat. the cat ate the rat.\nThé café — 猫 🐈  tabs\tand  spaces ';
  test('bad input', () => {
    expect(() => createTokenizer({ kind: 'sentencepiece', text })).toThrow(/^createTokenizer: kind is "sentencepiece", expected one of 'char', 'word', 'bpe'$/);
    expect(() => createTokenizer({ kind: 'bpe' })).toThrow(/^createTokenizer: text is missing, expected a string to learn the vocabulary from$/);
    expect(() => createTokenizer({ kind: 'bpe', text, vocabSize: 100 })).toThrow(/^createTokenizer: vocabSize is 100, expected an integer in \[256, 65536\]/);
    expect(() => createTokenizer({ kind: 'char', text, vocabSize: 300 })).toThrow(/^createTokenizer: vocabSize is for kind 'bpe'/);
    const tok = createTokenizer({ kind: 'char', text: 'ab' });
    expect(() => tok.decode([1, 3])).toThrow(/^tokenizer.decode: ids\[1\] is 3, expected an integer in \[0, size = 3\)$/);
    expect(() => tok.encode(42)).toThrow(/^tokenizer.encode: s is a number, expected a string$/);
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
  test("positionalEncoding({ kind: 'sinusoidal', length: 4, dModel: 8, mask: undefined })", () => {
    same(lab.positionalEncoding({ kind: 'sinusoidal', length: 4, dModel: 8, mask: undefined }),
      lab.positionalEncoding({ kind: 'sinusoidal', length: 4, dModel: 8 }));
  });
  test.each(NAMES.filter((fn) => !ENTRY[fn].positional))('%s: every option set to undefined is the call without it; unknown names too', (fn) => {
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
    } else if (expected instanceof Model) {  // the same model: the same bytes
      const model = lab[fn]({ ...good, ...unset, notAnOption: undefined });
      expect(model.config).toEqual(expected.config);
      expect(Buffer.from(model.save()).equals(Buffer.from(expected.save()))).toBe(true);
      model.dispose();
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
