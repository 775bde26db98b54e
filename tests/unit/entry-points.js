// Fixtures shared by the cross-cutting suites (bad-input, memory, random-arguments) and some op suites:
// one good call per public entry point of AttnLab, and small blocks with constant weights.
import { randomArray, seededRandom } from './helpers.js';

export const fill = (n, f) => Float32Array.from({ length: n }, (_, i) => f(i));
export const ramp = (n, s = 0.1) => fill(n, (i) => Math.sin(i + 1) * s);

// ---- One good call per entry point ------------------------------------------------------------------
// `sizes`: integer size arguments (all must be positive integers); `arrays`: matrix arguments with a
// length fixed by the sizes (dotted paths for nested ones); `vectors`: free-length arrays.
const D = 4, F = 6;
const attnWeights = (c = '') => ({ [c + 'wq']: ramp(16, 0.3), [c + 'wk']: ramp(16, 0.2), [c + 'wv']: ramp(16, 0.4), [c + 'wo']: ramp(16, 0.5) });
export const ENTRY = {
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
  createMultiHeadAttention: {  // a layer: weights checked and copied once
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
  // The model: createModel returns a Model (its methods are covered in model.test.js: they are
  // methods of a Model, not of AttnLab, so they do not fit this table). loadModel takes the bytes
  // themselves, not an options object (`positional`): bad-input.test.js gives it its own table.
  createModel: {
    good: () => ({ vocab: 5, context: 4, layers: 1, heads: 2, dModel: 4 }),
    sizes: ['vocab', 'context', 'layers', 'heads', 'dModel'], arrays: [],
  },
  loadModel: {
    good: () => tinyCheckpoint(),
    positional: 'bytes', sizes: [], arrays: [],
  },
};
export const NAMES = Object.keys(ENTRY);

// One attention and one multi-head call with fixed small inputs.
export const smallAttention = () => ({ q: [1, 0, 0, 1, 1, 1], k: [1, 0, 0, 1, 1, 1], v: [1, 2, 3, 4, 5, 6], tq: 3, tk: 3, dk: 2, dv: 2 });
export const smallMultiHead = () => ({ x: new Float32Array(12).fill(0.5), tq: 3, dModel: 4, heads: 2, wq: new Float32Array(16).fill(0.1), wk: new Float32Array(16).fill(0.2), wv: new Float32Array(16).fill(0.3), wo: new Float32Array(16).fill(0.4) });

// A small encoder and decoder block (T = 3, dModel = 4, dFF = 8) with constant weights.
export const { enc, dec, encWeights, withNaN } = (() => {
const D = 4, F = 8, T = 3;
const fill = (n, v) => new Float32Array(n).fill(v);
const encWeights = () => ({ wq: fill(D * D, 0.1), wk: fill(D * D, 0.2), wv: fill(D * D, 0.3), wo: fill(D * D, 0.1), w1: fill(D * F, 0.1), w2: fill(F * D, 0.1), ln1Gamma: fill(D, 1), ln1Beta: fill(D, 0) });
const enc = () => ({ x: randomArray(T * D, seededRandom(3)), t: T, dModel: D, heads: 2, dFF: F, norm: 'pre', activation: 'gelu', weights: encWeights() });
const dec = () => ({ ...enc(), memory: fill(2 * D, 0.5), tm: 2, weights: { ...encWeights(), cwq: fill(D * D, 0.1), cwk: fill(D * D, 0.1), cwv: fill(D * D, 0.1), cwo: fill(D * D, 0.1) } });
const withNaN = (n, at) => Float32Array.from({ length: n }, (_, i) => (i === at ? NaN : 0.1));
  return { enc, dec, encWeights, withNaN };
})();

// A safetensors file written here, by hand, from gpt.h's description of the format (not by
// model.save()): an attention-only 1-layer model without LayerNorm, vocab 3, context 2, dModel 2,
// one head. Parameter i of the flat array is sin(i + 1)/4. The header is JSON padded with spaces to a
// multiple of 8; tensors in gpt.h's order, F32 little-endian.
export const TINY_CHECKPOINT = Object.freeze({
  config: { vocab: 3, context: 2, layers: 1, heads: 1, dModel: 2, attentionOnly: true, layerNorm: false, activation: 'gelu' },
  tensors: [['embed.W_E', [3, 2]], ['pos_embed.W_pos', [2, 2]],
    ...['W_Q', 'W_K', 'W_V', 'W_O'].map((w) => [`blocks.0.attn.${w}`, [2, 2]]),
    ...['b_Q', 'b_K', 'b_V', 'b_O'].map((b) => [`blocks.0.attn.${b}`, [2]]), ['unembed.b_U', [3]]],
});
export function tinyCheckpoint({ metadata = {}, value = (i) => Math.sin(i + 1) / 4 } = {}) {
  const c = TINY_CHECKPOINT.config;
  const header = { __metadata__: { format: 'attnlab-gpt', version: '1', vocab: '3', context: '2', layers: '1', heads: '1',
    d_model: '2', d_ff: '8', attention_only: 'true', layer_norm: 'false', activation: c.activation, ln_eps: '1e-05', steps_taken: '0', ...metadata } };
  let at = 0;
  for (const [name, shape] of TINY_CHECKPOINT.tensors) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  for (const k of Object.keys(metadata)) if (metadata[k] === undefined) delete header.__metadata__[k];
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const text = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + text.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  const data = new DataView(out.buffer, 8 + text.length);
  for (let i = 0; i < at / 4; i++) data.setFloat32(4 * i, value(i), true);
  return out;
}
