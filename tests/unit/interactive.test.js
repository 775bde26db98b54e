// issue 6: the interactive path of multiHeadAttention — `out` (results written into the caller's
// arrays, no allocation) and the finiteness of x, context, weights and biases checked after the
// computation (core/src/ops/multihead_detail.h): every non-finite input must still be named, with
// the same message as an up-front check, in both modes.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { randomArray, seededRandom } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

function args(rand, { tq = 5, D = 8, H = 2, cross = false, biases = false } = {}) {
  const s = 1 / Math.sqrt(D), a = {
    x: randomArray(tq * D, rand), tq, dModel: D, heads: H,
    wq: randomArray(D * D, rand, s), wk: randomArray(D * D, rand, s), wv: randomArray(D * D, rand, s), wo: randomArray(D * D, rand, s),
  };
  if (biases) for (const b of ['bq', 'bk', 'bv', 'bo']) a[b] = randomArray(D, rand, 0.1);
  if (cross) Object.assign(a, { context: randomArray(7 * D, rand), tk: 7 });
  return a;
}

describe('out: results written into the caller\'s arrays', () => {
  test('same numbers as a fresh call, in the very arrays passed, for every result', () => {
    const rand = seededRandom(61);
    const a = args(rand, { biases: true, cross: true });
    const first = lab.multiHeadAttention(a);
    const keep = Object.fromEntries(Object.entries(first).map(([k, v]) => [k, Float32Array.from(v)]));
    const b = { ...a, x: randomArray(a.x.length, rand), context: randomArray(a.context.length, rand) };
    const fresh = lab.multiHeadAttention(b);
    const reused = lab.multiHeadAttention({ ...b, out: first });
    for (const k of Object.keys(fresh)) {
      expect(reused[k], k).toBe(first[k]);  // the same object …
      expect(Array.from(reused[k]), k).toEqual(Array.from(fresh[k]));  // … now holding the new result
      expect(Array.from(reused[k]), k).not.toEqual(Array.from(keep[k]));
    }
  });

  test('output-only mode fills out.output', () => {
    const a = args(seededRandom(62));
    const out = { output: new Float32Array(a.tq * a.dModel) };
    const r = lab.multiHeadAttention({ ...a, intermediates: false, out });
    expect(r.output).toBe(out.output);
    expect(Array.from(r.output)).toEqual(Array.from(lab.multiHeadAttention({ ...a, intermediates: false }).output));
  });

  test('bad out: a clear Error, nothing written, module still usable', () => {
    const a = args(seededRandom(63));
    const good = lab.multiHeadAttention(a);
    const weights = new Float32Array(good.weights.length - 1).fill(7);
    const cases = [
      [{ ...good, weights }, /^multiHeadAttention: out\.weights has 49 values, expected heads·tq·tk = 50$/],
      [{ ...good, q: [1, 2] }, /^multiHeadAttention: out\.q is an array.*expected a Float32Array of tq·dModel = 40/],
      [{ output: good.output }, /^multiHeadAttention: out\.q is missing, expected a Float32Array of tq·dModel = 40/],
      [new Float32Array(4), /^multiHeadAttention: out is a Float32Array.*, expected an object of Float32Arrays such as a previous result$/],
      ['yes', /^multiHeadAttention: out is .*expected an object of Float32Arrays/],
    ];
    for (const [out, re] of cases) expect(() => lab.multiHeadAttention({ ...a, out })).toThrow(re);
    expect(Array.from(weights)).toEqual(new Array(49).fill(7));
    expect(() => lab.multiHeadAttention({ ...a, intermediates: false, out: { output: new Float32Array(3) } }))
      .toThrow(/^multiHeadAttention: out\.output has 3 values, expected tq·dModel = 40$/);
    expect(Array.from(lab.multiHeadAttention(a).output)).toEqual(Array.from(good.output));
  });
});

describe('a non-finite input is named, though its check runs after the computation', () => {
  const names = ['x', 'context', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];
  const bads = [NaN, Infinity, -Infinity];
  const show = (v) => (Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity');
  for (const intermediates of [true, false])
    test(`every argument, every kind, first and later positions (intermediates: ${intermediates})`, () => {
      const rand = seededRandom(64 + Number(intermediates));
      for (const name of names)
        for (const bad of bads) {
          const a = args(rand, { cross: true, biases: true });
          const n = a[name].length;
          for (const at of [0, n - 1, Math.floor(Math.abs(rand()) * n)]) {
            const v = Float32Array.from(a[name]);
            v[at] = bad;
            // A zero where x meets the bad weight gives 0·∞ = NaN rather than ∞: still non-finite.
            if (name === 'wq') a.x.fill(0, 0, a.dModel);
            expect(() => lab.multiHeadAttention({ ...a, [name]: v, intermediates }), `${name}[${at}] = ${bad}`)
              .toThrow(new RegExp(`^multiHeadAttention: ${name}\\[${at}\\] is ${show(bad)}, expected finite values$`));
          }
        }
      // Two bad inputs: the first in the order x, context, wq, wk, wv, wo, bq … bo is named (as before).
      const a = args(rand, { cross: true, biases: true });
      const wo = Float32Array.from(a.wo), bq = Float32Array.from(a.bq);
      wo[3] = NaN;
      bq[1] = Infinity;
      expect(() => lab.multiHeadAttention({ ...a, wo, bq, intermediates })).toThrow(/^multiHeadAttention: wo\[3\] is NaN, expected finite values$/);
      // Finite inputs whose product overflows float32: reported as an overflow, not as a bad input.
      const big = { ...args(rand), intermediates };
      big.x = new Float32Array(big.x.length).fill(3e38);
      expect(() => lab.multiHeadAttention(big)).toThrow(/^multiHeadAttention: ([qkv])\[\d+\] is -?Infinity after a float32 overflow, expected (x|context)·w\1 \+ b\1 within float32 range$/);
      expect(lab.multiHeadAttention({ ...args(rand), intermediates }).output.every(Number.isFinite)).toBe(true);
    });
});

describe('createMultiHeadAttention: weights checked and copied once, then forward()', () => {
  test('forward gives exactly multiHeadAttention\'s numbers, every option, both modes', () => {
    const rand = seededRandom(71);
    for (const opts of [{}, { cross: true, biases: true }, { biases: true }]) {
      const a = args(rand, opts);
      const { x, tq, context, tk, dModel, heads, ...w } = a;
      const layer = lab.createMultiHeadAttention({ dModel, heads, ...w });
      expect([layer.dModel, layer.heads]).toEqual([dModel, heads]);
      for (const call of [{}, { mask: 'causal' }, { rope: true }, { scale: 0.3, intermediates: false }, { alibi: true }]) {
        if (context && (call.alibi || call.mask)) continue;
        const c = { x, tq, ...(context ? { context, tk } : {}), ...call };
        const want = lab.multiHeadAttention({ ...a, ...c });
        const got = layer.forward(c);
        for (const k of Object.keys(want)) expect(Array.from(got[k]), `${JSON.stringify(call)} ${k}`).toEqual(Array.from(want[k]));
      }
      layer.dispose();
    }
  });

  test('out: works with a layer; a failed forward leaves it usable', () => {
    const a = args(seededRandom(72));
    const { x, tq, dModel, heads, ...w } = a;
    const layer = lab.createMultiHeadAttention({ dModel, heads, ...w });
    const r = layer.forward({ x, tq });
    expect(() => layer.forward({ x: x.subarray(1), tq })).toThrow(/^multiHeadAttention: x has 39 values, expected tq·dModel = 40$/);
    expect(() => layer.forward({ x, tq, wq: w.wq })).toThrow(/^multiHeadAttention: unknown option 'wq'/);
    const again = layer.forward({ x, tq, out: r });
    for (const k of Object.keys(r)) expect(again[k], k).toBe(r[k]);
    expect(Array.from(r.output)).toEqual(Array.from(lab.multiHeadAttention(a).output));
    layer.dispose();
  });

  test('bad weights are refused at creation; dispose frees the memory; forward after dispose is an Error', () => {
    const a = args(seededRandom(73), { biases: true });
    const { x, tq, dModel, heads, ...w } = a;
    const bo = Float32Array.from(w.bo); bo[5] = -Infinity;
    expect(() => lab.createMultiHeadAttention({ dModel, heads, ...w, bo })).toThrow(/^createMultiHeadAttention: bo\[5\] is -Infinity, expected finite values$/);
    expect(() => lab.createMultiHeadAttention({ dModel, heads: 3, ...w })).toThrow(/^createMultiHeadAttention: heads = 3 does not divide dModel = 8/);
    expect(() => lab.createMultiHeadAttention({ dModel, heads, ...w, x })).toThrow(/^createMultiHeadAttention: unknown option 'x'/);
    const before = lab.info().heapInUse;
    const layers = Array.from({ length: 50 }, () => lab.createMultiHeadAttention({ dModel, heads, ...w }));
    expect(lab.info().heapInUse).toBeGreaterThan(before);
    for (const l of layers) l.dispose();
    expect(lab.info().heapInUse).toBe(before);
    layers[0].dispose();  // twice: a no-op
    expect(() => layers[0].forward({ x, tq })).toThrow(/^multiHeadAttention: this layer was disposed/);
  });
});
