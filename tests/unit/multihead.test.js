// multiHeadAttention and createMultiHeadAttention (a layer): results written into the caller's arrays
// (`out`), non-finite inputs named though their check runs after the computation, the layer's forward,
// the output-only streaming mode (intermediates: false) against the all-intermediates path and on a long
// sequence against float64, multi-head properties and numerical edges. Vs PyTorch: golden.test.js; bad
// input: bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { TOL, expectClose, randomArray, seededRandom } from './helpers.js';
import { fill } from './entry-points.js';

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

function randomMha(rand, tq, D, H, extra = {}) {
  const s = 1 / Math.sqrt(D);
  return {
    x: randomArray(tq * D, rand), tq, dModel: D, heads: H,
    wq: randomArray(D * D, rand, s), wk: randomArray(D * D, rand, s), wv: randomArray(D * D, rand, s),
    wo: randomArray(D * D, rand, s), ...extra,
  };
}

describe('streaming equals the all-intermediates output', () => {
  const rand = seededRandom(6);
  const padding = (tq, tk) => {
    const m = new Float32Array(tq * tk);
    for (let i = 0; i < tq; i++) for (let j = 0; j < tk; j++) if ((i + 2 * j) % 5 === 0) m[i * tk + j] = -Infinity;
    return m;
  };
  const cases = [
    ['no mask, crosses 48-query and 128-key blocks', randomMha(rand, 200, 32, 4)],
    ['causal', randomMha(rand, 200, 32, 4, { mask: 'causal' })],
    ['window 9', randomMha(rand, 150, 24, 3, { mask: { window: 9 } })],
    ['causal window 4', randomMha(rand, 150, 24, 3, { mask: { window: 4, causal: true } })],
    ['additive mask, cross-attention tq ≠ tk', randomMha(rand, 97, 20, 5, { context: randomArray(263 * 20, rand), tk: 263, mask: padding(97, 263) })],
    ['biases', randomMha(rand, 61, 16, 2, { bq: randomArray(16, rand), bk: randomArray(16, rand), bv: randomArray(16, rand), bo: randomArray(16, rand) })],
    ['rope', randomMha(rand, 130, 16, 2, { rope: true, mask: 'causal' })],
    ['alibi', randomMha(rand, 130, 16, 4, { alibi: true })],
    ['scale 1', randomMha(rand, 33, 8, 2, { scale: 1 })],
  ];
  test.each(cases)('%s', (_name, args) => {
    const full = lab.multiHeadAttention(args);
    const fast = lab.multiHeadAttention({ ...args, intermediates: false });
    expectClose(fast.output, full.output, 'output');
  });

  test('intermediates must be a boolean', () => {
    expect(() => lab.multiHeadAttention(randomMha(rand, 2, 4, 2, { intermediates: 'no' })))
      .toThrow('multiHeadAttention: intermediates is "no", expected true or false');
  });
});

describe('a long sequence streams in O(T·dModel) memory', () => {
  test('T = 4096, dModel = 64, 2 heads, causal: rows match a float64 reference', () => {
    const T = 4096, D = 64, H = 2, dk = D / H;
    const args = randomMha(seededRandom(4096), T, D, H, { mask: 'causal', intermediates: false });
    const { output } = lab.multiHeadAttention(args);
    // The weights alone would need heads·T·T floats (128 MiB); the call used a few [T·dModel] buffers.
    expect(lab.info().arenaBytes).toBeLessThan(16 * T * D * 4);
    // float64 reference for a few query rows (all keys they see), straight from the definition.
    const proj = (w, rows) => {
      const out = new Float64Array(rows.length * D);
      rows.forEach((t, r) => {
        for (let c = 0; c < D; c++) {
          let s = 0;
          for (let p = 0; p < D; p++) s += args.x[t * D + p] * w[p * D + c];
          out[r * D + c] = s;
        }
      });
      return out;
    };
    const allRows = Array.from({ length: T }, (_, t) => t);
    const K = proj(args.wk, allRows), V = proj(args.wv, allRows);
    for (const i of [0, 1, 47, 48, 1000, 4095]) {
      const q = proj(args.wq, [i]);
      const head = new Float64Array(D);
      for (let h = 0; h < H; h++) {
        const s = new Float64Array(i + 1);
        let mx = -Infinity;
        for (let j = 0; j <= i; j++) {
          let d = 0;
          for (let c = 0; c < dk; c++) d += q[h * dk + c] * K[j * D + h * dk + c];
          s[j] = d / Math.sqrt(dk);
          mx = Math.max(mx, s[j]);
        }
        let z = 0;
        for (let j = 0; j <= i; j++) z += (s[j] = Math.exp(s[j] - mx));
        for (let j = 0; j <= i; j++)
          for (let c = 0; c < dk; c++) head[h * dk + c] += (s[j] / z) * V[j * D + h * dk + c];
      }
      const expected = new Float64Array(D);
      for (let c = 0; c < D; c++) for (let p = 0; p < D; p++) expected[c] += head[p] * args.wo[p * D + c];
      expectClose(output.subarray(i * D, (i + 1) * D), expected, `row ${i}`);
    }
  });
});

describe('multi-head attention properties', () => {
  const rand = seededRandom(42);
  test('permuting the tokens of self-attention permutes its outputs ("I am Sam" ~ "Sam I am")', () => {
    const t = 3, D = 4;
    const x = randomArray(t * D, rand), w = () => randomArray(D * D, rand, 0.5);
    const W = { wq: w(), wk: w(), wv: w(), wo: w() };
    const perm = [2, 0, 1];
    const xp = new Float32Array(t * D);
    perm.forEach((src, dst) => xp.set(x.subarray(src * D, src * D + D), dst * D));
    const a = lab.multiHeadAttention({ x, tq: t, dModel: D, heads: 2, ...W });
    const b = lab.multiHeadAttention({ x: xp, tq: t, dModel: D, heads: 2, ...W });
    perm.forEach((src, dst) => {
      expectClose(b.output.subarray(dst * D, dst * D + D), a.output.subarray(src * D, src * D + D), `row ${dst}`, TOL.reorder);
    });
  });
  test('multi-head with ALiBi equals attention with the ALiBi bias as an additive mask', () => {
    const t = 5, D = 4, H = 2;
    const W = { wq: randomArray(D * D, rand), wk: randomArray(D * D, rand), wv: randomArray(D * D, rand), wo: randomArray(D * D, rand) };
    const x = randomArray(t * D, rand);
    const r = lab.multiHeadAttention({ x, tq: t, dModel: D, heads: H, ...W, alibi: true });
    const { bias } = lab.alibi({ heads: H, tq: t });
    for (let h = 0; h < H; h++) {
      const sl = (m) => { const o = new Float32Array(t * 2); for (let i = 0; i < t; i++) o.set(m.subarray(i * D + h * 2, i * D + h * 2 + 2), i * 2); return o; };
      const a = lab.attention({ q: sl(r.q), k: sl(r.k), v: sl(r.v), tq: t, tk: t, dk: 2, dv: 2, mask: bias.subarray(h * t * t, (h + 1) * t * t) });
      expectClose(r.weights.subarray(h * t * t, (h + 1) * t * t), a.weights, `head ${h} weights`, TOL.reorder);
    }
  });
});

describe('multi-head attention: numerical edges', () => {
  test("the fuzzer's input regress-scores-overflow-window: both multi-head paths, the layer and the block refuse it alike", () => {
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
    expectClose(b, a, 'output', TOL.ulps);
  });
  test('huge values: the streaming path gives the all-intermediates output (no overflow summing p·v)', () => {
    const call = { x: fill(9, () => 3e38), tq: 9, dModel: 1, heads: 1, wq: [0], wk: [0], wv: [1], wo: [1] };
    const a = lab.multiHeadAttention(call).output, b = lab.multiHeadAttention({ ...call, intermediates: false }).output;
    for (const r of [a, b]) expectClose(r, new Float64Array(9).fill(3e38), 'output', TOL.ulps);  // the mean of equal values
    expect(() => lab.multiHeadAttention({ ...call, wo: [2] })).toThrow(/^multiHeadAttention: output heads·wo \+ bo can exceed float32 range \(bound 6e38\)/);
    expect(() => lab.multiHeadAttention({ ...call, wo: [2], intermediates: false })).toThrow(/^multiHeadAttention: output heads·wo \+ bo can exceed float32 range \(bound 6e38\)/);
  });
});

// The options are read in one pass over the caller's object (multihead.js, options()): every way an
// object can hold them must give what reading each name gives.
describe('options read from any kind of object, as reading each name reads them', () => {
  const a = args(seededRandom(83), { biases: true });
  const opts = { scale: 0.3, mask: 'causal', rope: { base: 500 } };
  const want = (lab) => lab.multiHeadAttention({ ...a, ...opts });
  const same = (r, w) => { for (const k of Object.keys(w)) expect(Array.from(r[k]), k).toEqual(Array.from(w[k])); };

  test('spread with out, a class instance with getters, a null prototype, Object.create(base)', () => {
    const w = want(lab);
    let r = lab.multiHeadAttention({ ...a, ...opts });
    for (let i = 0; i < 3; i++) r = lab.multiHeadAttention({ ...a, ...opts, out: r });
    same(r, w);
    class Opts { get scale() { return 0.3; } get mask() { return 'causal'; } }
    same(lab.multiHeadAttention(Object.assign(new Opts(), a, { rope: { base: 500 } })), w);
    same(lab.multiHeadAttention(Object.assign(Object.create(null), a, opts)), w);
    same(lab.multiHeadAttention(Object.assign(Object.create(opts), a)), w);
  });

  test('an option defined non-enumerable, or on Object.prototype, still counts', () => {
    const w = want(lab);
    const o = { ...a, rope: { base: 500 } };
    Object.defineProperty(o, 'scale', { value: 0.3, enumerable: false });
    Object.defineProperty(o, 'mask', { value: 'causal', enumerable: false });
    same(lab.multiHeadAttention(o), w);
    try {
      Object.defineProperty(Object.prototype, 'scale', { value: 0.3, configurable: true, writable: true });
      same(lab.multiHeadAttention({ ...a, mask: 'causal', rope: { base: 500 } }), w);
    } finally { delete Object.prototype.scale; }
    expect(Object.prototype.scale).toBeUndefined();
  });

  // The facade names its options three times for speed (the fixed-shape object, the for-in's switch, the
  // Object.prototype probe): each of the 20 must be read wherever the caller puts it. A bad value for an
  // optional name is refused only if that name was read.
  const OPTIONAL = ['mask', 'context', 'tk', 'scale', 'rope', 'alibi', 'intermediates', 'out', 'bq', 'bk', 'bv', 'bo'];
  const REQUIRED = ['x', 'tq', 'dModel', 'heads', 'wq', 'wk', 'wv', 'wo'];
  test('every option name is read, in a plain object, a spread with out, and on Object.prototype', () => {
    const plain = { ...a };
    for (const b of ['bq', 'bk', 'bv', 'bo']) delete plain[b];
    expect(Object.keys(plain).sort()).toEqual([...REQUIRED].sort());
    const r = lab.multiHeadAttention(plain);
    for (const name of [...OPTIONAL, ...REQUIRED]) {
      expect(() => lab.multiHeadAttention({ ...plain, [name]: 'bad' }), name).toThrow(/^multiHeadAttention: /);
      expect(() => lab.multiHeadAttention({ ...plain, out: r, [name]: 'bad' }), name).toThrow(/^multiHeadAttention: /);
    }
    for (const name of OPTIONAL) {
      try {
        Object.defineProperty(Object.prototype, name, { value: 'bad', configurable: true, writable: true });
        expect(() => lab.multiHeadAttention({ ...plain }), name).toThrow(/^multiHeadAttention: /);
      } finally { delete Object.prototype[name]; }
    }
    expect(lab.multiHeadAttention(plain).output).toEqual(r.output);  // and the module still usable
  });

  test('unknown names refused with the same message, however the object holds them', () => {
    const msg = /multiHeadAttention: unknown option 'sclae', expected some of: dModel, heads, wq/;
    const r = lab.multiHeadAttention(a);
    expect(() => lab.multiHeadAttention({ ...a, out: r, sclae: 1 })).toThrow(msg);
    expect(() => lab.multiHeadAttention(Object.assign(Object.create(null), a, { sclae: 1 }))).toThrow(msg);
    expect(lab.multiHeadAttention({ ...a, sclae: undefined }).output).toEqual(r.output);  // undefined = absent
    const layer = lab.createMultiHeadAttention({ dModel: a.dModel, heads: a.heads, wq: a.wq, wk: a.wk, wv: a.wv, wo: a.wo });
    expect(() => layer.forward({ x: a.x, tq: a.tq, wq: a.wq })).toThrow(/unknown option 'wq', expected some of: x, tq, mask/);
    layer.dispose();
  });
});
