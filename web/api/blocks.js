// blocks.js — the rest of a Transformer layer: LayerNorm, RMSNorm, activations, the feed-forward
// network, and the encoder and decoder blocks with every intermediate. Heads dividing dModel is
// checked by the core (the same message).
import { run, maskFields } from './core.js';
import { MHA_WEIGHTS } from './multihead.js';
import {
  AttnLabError, requireObject, int, num, matrix, optionalMatrix, vector, oneOf, fail, mask as parseMask, noUnknownKeys, definedKeys,
} from './validate.js';

/** LayerNorm over rows of x [rows·dim] (torch.nn.LayerNorm: biased variance, two-pass). */
export function layerNorm(lab, args) {
  const fn = 'layerNorm';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 'rows', 'dim', 'gamma', 'beta', 'eps']);
  const rows = int(fn, 'rows', args.rows), dim = int(fn, 'dim', args.dim), n = rows * dim;
  const x = matrix(fn, 'x', args.x, n, `rows·dim = ${n}`);
  const gamma = optionalMatrix(fn, 'gamma', args.gamma, dim, `dim = ${dim}`);
  const beta = optionalMatrix(fn, 'beta', args.beta, dim, `dim = ${dim}`);
  const eps = num(fn, 'eps', args.eps, { dflt: 1e-5, positive: true });
  const b = lab.arena.named(fn, { x: n, gamma: gamma ? dim : 0, beta: beta ? dim : 0, out: n });
  lab.arena.put(b.x, x); lab.arena.put(b.gamma, gamma); lab.arena.put(b.beta, beta);
  run(lab, lab.core.module.layerNorm({ x: b.x, rows, dim, gamma: gamma ? b.gamma : 0, beta: beta ? b.beta : 0, eps, output: b.out }));
  return lab.arena.take(b.out, n);
}

/** RMSNorm over rows of x [rows·dim]: x / √(mean(x²) + eps) · gamma. */
export function rmsNorm(lab, args) {
  const fn = 'rmsNorm';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 'rows', 'dim', 'gamma', 'eps']);
  const rows = int(fn, 'rows', args.rows), dim = int(fn, 'dim', args.dim), n = rows * dim;
  const x = matrix(fn, 'x', args.x, n, `rows·dim = ${n}`);
  const gamma = optionalMatrix(fn, 'gamma', args.gamma, dim, `dim = ${dim}`);
  const eps = num(fn, 'eps', args.eps, { dflt: 1e-6, positive: true });
  const b = lab.arena.named(fn, { x: n, gamma: gamma ? dim : 0, out: n });
  lab.arena.put(b.x, x); lab.arena.put(b.gamma, gamma);
  run(lab, lab.core.module.rmsNorm({ x: b.x, rows, dim, gamma: gamma ? b.gamma : 0, eps, output: b.out }));
  return lab.arena.take(b.out, n);
}

/** Element-wise activation: 'gelu' (exact, erf), 'gelu_tanh' (tanh approximation) or 'relu'. */
export function activation(lab, args) {
  const fn = 'activation';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 'kind']);
  const kind = lab.core.code('activation', oneOf(fn, 'kind', args.kind, ACTIVATIONS));
  const x = vector(fn, 'x', args.x);
  const b = lab.arena.named(fn, { x: x.length, out: x.length });
  lab.arena.put(b.x, x);
  run(lab, lab.core.module.activation({ kind, x: b.x, n: x.length, output: b.out }));
  return lab.arena.take(b.out, x.length);
}

/**
 * Feed-forward x·W1 + b1 → activation → ·W2 + b2. Returns { pre, activated, output }: pre = x·W1 + b1,
 * activated = activation(pre), output = activated·W2 + b2.
 */
export function feedForward(lab, args) {
  const fn = 'feedForward';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 'rows', 'dModel', 'dFF', 'w1', 'b1', 'w2', 'b2', 'activation']);
  const rows = int(fn, 'rows', args.rows), D = int(fn, 'dModel', args.dModel), F = int(fn, 'dFF', args.dFF);
  const x = matrix(fn, 'x', args.x, rows * D, `rows·dModel = ${rows * D}`);
  const w = ffnWeights(fn, args, D, F);
  const act = lab.core.code('activation', oneOf(fn, 'activation', args.activation, ACTIVATIONS, 'relu'));
  const b = lab.arena.named(fn, { x: rows * D, w1: D * F, b1: w.b1 ? F : 0, w2: F * D, b2: w.b2 ? D : 0, pre: rows * F, activated: rows * F, out: rows * D });
  const a = lab.arena;
  a.put(b.x, x); a.put(b.w1, w.w1); a.put(b.b1, w.b1); a.put(b.w2, w.w2); a.put(b.b2, w.b2);
  run(lab, lab.core.module.feedForward({ x: b.x, rows, dModel: D, dFF: F, w: { w1: b.w1, b1: w.b1 ? b.b1 : 0, w2: b.w2, b2: w.b2 ? b.b2 : 0 },
    activation: act, pre: b.pre, activated: b.activated, output: b.out }));
  return { pre: a.take(b.pre, rows * F), activated: a.take(b.activated, rows * F), output: a.take(b.out, rows * D) };
}

/**
 * One Transformer encoder layer with every intermediate. norm 'post' (default): y = LN1(x + MHA(x)),
 * out = LN2(y + FFN(y)); 'pre': y = x + MHA(LN1(x)), out = y + FFN(LN2(y)).
 */
export function encoderBlock(lab, args) {
  const fn = 'encoderBlock';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 't', 'dModel', 'heads', 'dFF', 'norm', 'activation', 'mask', 'eps', 'weights', 'batch']);
  const { t, D, H, F, norm, act, eps, B } = blockSizes(lab.core, fn, args);
  const x = matrix(fn, 'x', args.x, B * t * D, B > 1 ? `batch·t·dModel = ${B * t * D}` : `t·dModel = ${t * D}`);
  const m = parseMask(fn, args.mask, t, t);
  const w = blockWeights(fn, args.weights, D, F, ENCODER_WEIGHTS);
  const tD = t * D, tF = t * F, hw = H * t * t;
  const outs = { q: tD, k: tD, v: tD, attnWeights: hw, attnHeads: tD, attnOut: tD, residual1: tD, norm1: tD,
    ffnPre: tF, ffnActivated: tF, ffnOut: tD, residual2: tD, norm2: tD, output: tD };
  const call = { t, dModel: D, heads: H, dFF: F, norm, activation: act, eps };
  return block(lab, fn, 'encoderBlock', B, x, m, w, outs, call);
}

/**
 * One Transformer decoder layer: masked self-attention, cross-attention to memory (K, V from the
 * encoder output), FFN, each with Add & Norm; every intermediate.
 */
export function decoderBlock(lab, args) {
  const fn = 'decoderBlock';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['x', 't', 'memory', 'tm', 'dModel', 'heads', 'dFF', 'norm', 'activation', 'mask', 'eps', 'weights', 'batch']);
  const { t, D, H, F, norm, act, eps, B } = blockSizes(lab.core, fn, args);
  const tm = int(fn, 'tm', args.tm);
  const x = matrix(fn, 'x', args.x, B * t * D, B > 1 ? `batch·t·dModel = ${B * t * D}` : `t·dModel = ${t * D}`);
  const memory = matrix(fn, 'memory', args.memory, B * tm * D, B > 1 ? `batch·tm·dModel = ${B * tm * D}` : `tm·dModel = ${tm * D}`);
  const m = parseMask(fn, args.mask === undefined ? 'causal' : args.mask, t, t);
  const w = blockWeights(fn, args.weights, D, F, DECODER_WEIGHTS);
  const tD = t * D, tF = t * F, mD = tm * D;
  const outs = {
    selfQ: tD, selfK: tD, selfV: tD, selfWeights: H * t * t, selfHeads: tD, selfAttnOut: tD, residual1: tD, norm1: tD,
    crossQ: tD, crossK: mD, crossV: mD, crossWeights: H * t * tm, crossHeads: tD, crossAttnOut: tD, residual2: tD, norm2: tD,
    ffnPre: tF, ffnActivated: tF, ffnOut: tD, residual3: tD, norm3: tD, output: tD };
  const call = { t, tm, dModel: D, heads: H, dFF: F, norm, activation: act, eps };
  return block(lab, fn, 'decoderBlock', B, x, m, w, outs, call, memory);
}

// Shared by the blocks: lays out inputs, weights and outputs, writes the call (sizes and options in
// `call`, then every weight and output address by name), runs, copies every output out.
// A batch (the notebook's (B, N, D)) runs the same layer on each sequence: x, memory and every
// output are batch-major, and sequence i gets the call with its addresses moved by i.
function block(lab, fn, op, B, x, m, w, outs, call, memory = null) {
  const wNames = Object.keys(w), oNames = Object.keys(outs);
  const spec = { x: x.length, memory: memory ? memory.length : 0, mask: m.values ? m.values.length : 0 };
  for (const k of wNames) spec['w:' + k] = w[k] ? w[k].length : 0;
  for (const k of oNames) spec['o:' + k] = B * outs[k];
  const b = lab.arena.named(fn, spec);
  const a = lab.arena;
  a.put(b.x, x); a.put(b.memory, memory); a.put(b.mask, m.values);
  for (const k of wNames) a.put(b['w:' + k], w[k]);
  const values = { ...call, ...maskFields(lab.core, m, m.values ? b.mask : 0) };
  // The weights as the core's call groups them: { attn: { wq, … }, ln1: { gamma, beta }, ffn: { w1, … } }.
  for (const [group, names] of Object.entries(WEIGHT_GROUPS[op])) {
    values[group] = {};
    for (const [field, k] of names) values[group][field] = w[k] ? b['w:' + k] : 0;
  }
  const xStep = 4 * x.length / B, memStep = memory ? 4 * memory.length / B : 0;
  for (let i = 0; i < B; i++) {
    values.x = b.x + i * xStep;
    if (memory) values.memory = b.memory + i * memStep;
    for (const k of oNames) values[k] = b['o:' + k] + 4 * i * outs[k];
    const status = lab.core.module[op](values);
    if (status !== 0) throw new AttnLabError(lab.core.lastError() + (B > 1 ? ` (in batch element ${i})` : ''));
  }
  return Object.fromEntries(oNames.map((k) => [k, a.take(b['o:' + k], B * outs[k])]));
}

// The activations users name (their codes come from the core: core.code('activation', name)).
const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh'];

function blockSizes(core, fn, args) {
  const t = int(fn, 't', args.t), D = int(fn, 'dModel', args.dModel), H = int(fn, 'heads', args.heads);
  const F = int(fn, 'dFF', args.dFF);
  const norm = core.code('norm', oneOf(fn, 'norm', args.norm, ['post', 'pre'], 'post'));
  const act = core.code('activation', oneOf(fn, 'activation', args.activation, ACTIVATIONS, 'relu'));
  const eps = num(fn, 'eps', args.eps, { dflt: 1e-5, positive: true });
  const B = int(fn, 'batch', args.batch, { dflt: 1 });
  return { t, D, H, F, norm, act, eps, B };
}

// The weight names of each block (the names users pass in `weights`), with
// their sizes ('DD' = dModel·dModel, 'D', 'DF', 'FD', 'F') and whether they are required.
const ATTN_WEIGHTS = (c) => MHA_WEIGHTS.map((n) => (n[0] === 'w' ? [c + n, 'DD', 1] : [c + n, 'D', 0]));
const LN_WEIGHTS = (n) => Array.from({ length: n }, (_, i) => [[`ln${i + 1}Gamma`, 'D', 0], [`ln${i + 1}Beta`, 'D', 0]]).flat();
const FFN_WEIGHTS = [['w1', 'DF', 1], ['b1', 'F', 0], ['w2', 'FD', 1], ['b2', 'D', 0]];
const ENCODER_WEIGHTS = [...ATTN_WEIGHTS(''), ...LN_WEIGHTS(2), ...FFN_WEIGHTS];
const DECODER_WEIGHTS = [...ATTN_WEIGHTS(''), ...ATTN_WEIGHTS('c'), ...LN_WEIGHTS(3), ...FFN_WEIGHTS];

// The core's call groups a block's weights (core/bindings/embind.cc): group → [[field, weight name], …].
const attnGroup = (c) => MHA_WEIGHTS.map((n) => [n, c + n]);
const lnGroup = (i) => [['gamma', `ln${i}Gamma`], ['beta', `ln${i}Beta`]];
const ffnGroup = FFN_WEIGHTS.map(([n]) => [n, n]);
const WEIGHT_GROUPS = {
  encoderBlock: { attn: attnGroup(''), ln1: lnGroup(1), ln2: lnGroup(2), ffn: ffnGroup },
  decoderBlock: { selfAttn: attnGroup(''), crossAttn: attnGroup('c'), ln1: lnGroup(1), ln2: lnGroup(2), ln3: lnGroup(3), ffn: ffnGroup },
};

function sizeOf(kind, D, F) {
  const n = { DD: D * D, D, DF: D * F, FD: F * D, F }[kind];
  const expr = { DD: `dModel·dModel = ${n}`, D: `dModel = ${n}`, DF: `dModel·dFF = ${n}`, FD: `dFF·dModel = ${n}`, F: `dFF = ${n}` }[kind];
  return [n, expr];
}

// weights → { name: Float32Array | number[] | null }, every size checked.
function blockWeights(fn, weights, D, F, names) {
  if (weights === null || typeof weights !== 'object' || Array.isArray(weights))
    fail(fn, `weights is ${weights === undefined ? 'missing' : weights === null ? 'null' : `a ${typeof weights}`}, expected an object { ${names.filter((n) => n[2]).map((n) => n[0]).join(', ')}, … }`);
  const known = names.map((n) => n[0]);
  for (const k of definedKeys(weights))
    if (!known.includes(k)) fail(fn, `weights has unknown key '${k}', expected some of: ${known.join(', ')}`);
  const out = {};
  for (const [name, kind, required] of names) {
    const [n, expr] = sizeOf(kind, D, F);
    out[name] = required ? matrix(fn, `weights.${name}`, weights[name], n, expr) : optionalMatrix(fn, `weights.${name}`, weights[name], n, expr);
  }
  return out;
}

// w1 b1 w2 b2 of feedForward (top-level arguments there).
function ffnWeights(fn, args, D, F) {
  return {
    w1: matrix(fn, 'w1', args.w1, D * F, `dModel·dFF = ${D * F}`), b1: optionalMatrix(fn, 'b1', args.b1, F, `dFF = ${F}`),
    w2: matrix(fn, 'w2', args.w2, F * D, `dFF·dModel = ${F * D}`), b2: optionalMatrix(fn, 'b2', args.b2, D, `dModel = ${D}`),
  };
}

// The AttnLab methods this file gives (norms, activations, feed-forward, encoder and decoder blocks): lab.<name>(args) = <name>(lab, args).
export const OPS = { layerNorm, rmsNorm, activation, feedForward, encoderBlock, decoderBlock };
