// Bad input: every class gives an Error naming the function, the argument and what was expected, and
// the module keeps working (and keeps its memory) afterwards.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const good = () => ({ q: [1, 0, 0, 1, 1, 1], k: [1, 0, 0, 1, 1, 1], v: [1, 2, 3, 4, 5, 6], tq: 3, tk: 3, dk: 2, dv: 2 });
const mha = () => ({ x: new Float32Array(12).fill(0.5), tq: 3, dModel: 4, heads: 2, wq: new Float32Array(16).fill(0.1), wk: new Float32Array(16).fill(0.2), wv: new Float32Array(16).fill(0.3), wo: new Float32Array(16).fill(0.4) });

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
    expect(() => lab.attention({ ...good(), ...patch })).toThrow(message);
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
    expect(() => lab.multiHeadAttention({ ...mha(), ...patch })).toThrow(message);
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

describe('after failures the module is intact', () => {
  test('10,000 failing calls interleaved with good ones: same results, no heap or stack growth', () => {
    const ref = lab.attention(good());
    const m0 = lab.multiHeadAttention(mha());
    const before = lab.info();
    const bad = [
      () => lab.attention({ ...good(), k: [1, 0, 0, NaN, 1, 1] }),                       // fails in C++
      () => lab.attention({ ...good(), mask: new Float32Array([0, 0, 0, 0, NaN, 0, 0, 0, 0]) }),
      () => lab.multiHeadAttention({ ...mha(), wv: new Float32Array(16).fill(NaN) }),
      () => lab.attention({ ...good(), q: [1] }),                                        // fails in JS
      () => lab.positionalEncoding({ kind: 'sinusoidal', length: 3, dModel: 2, base: NaN }),
    ];
    for (let i = 0; i < 10000; i++) {
      expect(bad[i % bad.length]).toThrow();
      if (i % 100 === 0) {
        expect(Array.from(lab.attention(good()).output)).toEqual(Array.from(ref.output));
      }
    }
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(Array.from(lab.multiHeadAttention(mha()).output)).toEqual(Array.from(m0.output));
  });

  test('20,000 good interactive calls keep memory flat', () => {
    lab.multiHeadAttention(mha());
    const before = lab.info();
    for (let i = 0; i < 20000; i++) lab.multiHeadAttention(mha());
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
  });
});
