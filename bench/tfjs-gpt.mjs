// The small GPT of core/include/attnlab/gpt.h, written again in TensorFlow.js from that header's math,
// so bench/train.bench.mjs can time one training step of each on the same model:
//
//   ids [B, T] → x = W_E[ids] + W_pos[0:T]
//   per layer: x = x + MHA(LN1(x))  (causal, biases)      x = x + MLP(LN2(x))  (unless attentionOnly)
//   logits = LN_final(x)·W_Eᵀ + b_U  (tied)               loss = mean over B·T of −log softmax[target]
//   (layerNorm: false drops every LN)
//
// Parameters are tf.Variables under attnlab's names and shapes (W is [in, out], x·W), so the weights
// of an attnlab model (model.parameters()) can be copied in and both compute the same function.
// Gradients come from tfjs's autodiff (optimizer.minimize → variableGrads), the update from
// tf.train.adam (plain Adam, no weight decay, no clipping).
//
// Written for tfjs-backend-wasm: the embedding is a one-hot matMul (the wasm backend has no
// UnsortedSegmentSum, so gather's gradient would not run), dense layers are tf.fused.matMul with
// bias (one _FusedMatMul kernel forward), heads are batched 3-D matMuls. Two options make a tuned
// variant (same numbers, fewer or faster kernels): layout 'flat' and denseGrad 'untransposed' below.

import { register } from 'node:module';

// tfjs-core's Node bundle (dist/tf-core.node.js) leaves out the gradient functions (the umbrella
// @tensorflow/tfjs package adds them); they ship only as extensionless ES modules
// (dist/register_all_gradients.js), which Node loads once these hooks add '.js' and mark them as ESM.
// They register into tfjs's global gradient registry and run on the same global engine.
const ESM_HOOKS = `
const DIST = '/@tensorflow/tfjs-core/dist/';
export async function resolve(spec, ctx, next) {
  if (ctx.parentURL?.includes(DIST) && spec.startsWith('.') && !spec.endsWith('.js')) {
    try { return await next(spec + '.js', ctx); } catch { return next(spec + '/index.js', ctx); }
  }
  return next(spec, ctx);
}
export async function load(url, ctx, next) {
  if (url.includes(DIST) && !/\\/tf-core[^/]*\\.js$/.test(url)) return next(url, { ...ctx, format: 'module' });
  return next(url, ctx);
}`;

// tfjs-core with its gradients on the wasm backend, one thread. Returns { tf, tfwasm, simd, binary }.
export async function loadTfjsWasm() {
  register(`data:text/javascript,${encodeURIComponent(ESM_HOOKS)}`, import.meta.url);
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const tfwasm = await import('@tensorflow/tfjs-backend-wasm');
  tfwasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  // Which binary tfjs loaded: threaded builds only where it has threads (never in Node).
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  const binary = `tfjs-backend-wasm${threads && simd ? '-threaded-simd' : simd ? '-simd' : ''}.wasm`;
  return { tf, tfwasm, simd, binary };
}

// ---- init as gpt.h: W_* ~ N(0, 0.02²), W_O and W_out ~ N(0, (0.02/√(2·layers))²), biases 0, LN 1/0 ----
function gaussian(seed) {
  let s = seed >>> 0;
  const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

// [name, shape, init] in gpt.h's order. init: 'w' (0.02), 'wres' (residual-scaled), 'zero', 'one'.
export function gptTensors(c) {
  const { vocab, context, layers, dModel: D, dFF, attentionOnly, layerNorm } = c;
  const t = [['embed.W_E', [vocab, D], 'w'], ['pos_embed.W_pos', [context, D], 'w']];
  for (let l = 0; l < layers; l++) {
    const b = `blocks.${l}`;
    if (layerNorm) t.push([`${b}.ln1.w`, [D], 'one'], [`${b}.ln1.b`, [D], 'zero']);
    for (const w of ['W_Q', 'W_K', 'W_V', 'W_O']) t.push([`${b}.attn.${w}`, [D, D], w === 'W_O' ? 'wres' : 'w']);
    for (const w of ['b_Q', 'b_K', 'b_V', 'b_O']) t.push([`${b}.attn.${w}`, [D], 'zero']);
    if (!attentionOnly) {
      if (layerNorm) t.push([`${b}.ln2.w`, [D], 'one'], [`${b}.ln2.b`, [D], 'zero']);
      t.push([`${b}.mlp.W_in`, [D, dFF], 'w'], [`${b}.mlp.b_in`, [dFF], 'zero'],
        [`${b}.mlp.W_out`, [dFF, D], 'wres'], [`${b}.mlp.b_out`, [D], 'zero']);
    }
  }
  if (layerNorm) t.push(['ln_final.w', [D], 'one'], ['ln_final.b', [D], 'zero']);
  t.push(['unembed.b_U', [vocab], 'zero']);
  return t;
}

// config: attnlab's createModel options (vocab, context, layers, heads, dModel, dFF, attentionOnly,
// layerNorm, activation 'gelu' | 'gelu_tanh' | 'relu', seed). init: { name: Float32Array } (e.g. from
// model.parameters(), values or { data }) — missing tensors are drawn as gpt.h draws them (not the
// same numbers as attnlab's generator).
let created = 0;  // tfjs variable names must be unique in the process
export function createTfjsGpt(tf, config, init = {}, { layout = 'tensors', denseGrad = 'autodiff' } = {}) {
  const c = {
    dFF: 4 * config.dModel, attentionOnly: false, layerNorm: true, activation: 'gelu', seed: 0, lnEps: 1e-5,
    ...config,
  };
  const { vocab, layers, heads, dModel: D, attentionOnly, layerNorm, lnEps } = c;
  const dh = D / heads;
  const rand = gaussian(c.seed * 2654435761 + 12345);
  const tensors = gptTensors(c), values = [];
  for (const [name, shape, kind] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    let data = init[name]?.data ?? init[name];
    if (!data) {
      const sd = kind === 'w' ? 0.02 : kind === 'wres' ? 0.02 / Math.sqrt(2 * layers) : 0;
      data = Float32Array.from({ length: n }, () => (kind === 'one' ? 1 : sd ? sd * rand() : 0));
    }
    if (data.length !== n) throw new Error(`createTfjsGpt: ${name} has ${data.length} values, expected ${n}`);
    values.push(data);
  }
  const id = created++;
  // layout 'tensors': one tf.Variable per tensor. 'flat': one variable holding them all (attnlab's
  // layout), each tensor a slice of it inside the loss: Adam then runs its ~15 kernels once instead
  // of once per tensor, at the price of a slice forward and a pad backward per tensor.
  let vars, params;
  if (layout === 'flat') {
    const total = values.reduce((s, v) => s + v.length, 0), all = new Float32Array(total);
    let o = 0;
    const slots = tensors.map(([name, shape], i) => { all.set(values[i], o); o += values[i].length; return [name, shape, o - values[i].length, values[i].length]; });
    const flat = tf.variable(tf.tensor1d(all), true, `gpt${id}/flat`);
    vars = { flat };
    params = () => Object.fromEntries(slots.map(([name, shape, off, n]) => [name, tf.reshape(tf.slice(flat, off, n), shape)]));
  } else {
    vars = Object.fromEntries(tensors.map(([name, shape], i) => [name, tf.variable(tf.tensor(values[i], shape, 'float32'), true, `gpt${id}/${name}`)]));
    params = () => vars;
  }
  // Causal mask [T, T]: 0 on and below the diagonal, −1e9 above (exp underflows to exactly 0).
  const masks = new Map();
  const mask = (T) => {
    if (!masks.has(T)) {
      const m = new Float32Array(T * T);
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[i * T + j] = -1e9;
      masks.set(T, tf.keep(tf.tensor2d(m, [T, T])));
    }
    return masks.get(T);
  };
  const scale = tf.keep(tf.scalar(1 / Math.sqrt(dh)));

  const ln = (x, w, b) => {  // x: [N, D]
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, lnEps))), w), b);
  };
  const act = (x) => {
    if (c.activation === 'relu') return tf.relu(x);
    if (c.activation === 'gelu_tanh') {  // ½x(1 + tanh(√(2/π)(x + 0.044715x³)))
      const inner = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
      return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
    }
    return tf.mul(tf.mul(x, 0.5), tf.add(tf.erf(tf.mul(x, Math.SQRT1_2)), 1));  // exact: x·Φ(x)
  };
  // denseGrad 'autodiff': tfjs's own gradient of matMul, dX = dY·Wᵀ and dW = Xᵀ·dY as transposed
  // matMuls — which tfjs-backend-wasm runs in its scalar fallback loop (its XNNPACK path takes only
  // untransposed, unbatched operands). 'untransposed': the same gradient through tf.customGrad with
  // explicit transposes, so all three matMuls take the XNNPACK path.
  const fusedDense = (x, w, b) => tf.fused.matMul({ a: x, b: w, bias: b });
  const xnnDense = tf.customGrad((x, w, b, save) => {
    save([x, w]);
    return {
      value: tf.fused.matMul({ a: x, b: w, bias: b }),
      gradFunc: (dy, [xs, ws]) => [tf.matMul(dy, tf.transpose(ws)), tf.matMul(tf.transpose(xs), dy), tf.sum(dy, 0)],
    };
  });
  const dense = denseGrad === 'untransposed' ? xnnDense : fusedDense;

  // Causal multi-head attention of q, k, v [B·T, D] → the heads concatenated [B·T, D], the heads as
  // batched matMuls over [B, H] (per-(sequence, head) 2-D matMuls were no faster: more kernels).
  function mha(q, k, v, B, T) {
    const split = (y) => tf.transpose(tf.reshape(y, [B, T, heads, dh]), [0, 2, 1, 3]);  // [B, H, T, dh]
    const s = tf.add(tf.mul(tf.matMul(split(q), split(k), false, true), scale), mask(T));  // [B, H, T, T]
    return tf.reshape(tf.transpose(tf.matMul(tf.softmax(s), split(v)), [0, 2, 1, 3]), [B * T, D]);
  }

  // Mean cross-entropy of targets [B·T] (int32 tensor) given ids [B·T]: a scalar tensor.
  function loss(ids, targets, B, T) {
    const N = B * T, p = params();
    let x = tf.matMul(tf.oneHot(ids, vocab), p['embed.W_E']);                      // [N, D]
    x = tf.reshape(tf.add(tf.reshape(x, [B, T, D]), tf.slice(p['pos_embed.W_pos'], [0, 0], [T, D])), [N, D]);
    for (let l = 0; l < layers; l++) {
      const a = `blocks.${l}.attn.`;
      const h = layerNorm ? ln(x, p[`blocks.${l}.ln1.w`], p[`blocks.${l}.ln1.b`]) : x;
      const o = mha(dense(h, p[`${a}W_Q`], p[`${a}b_Q`]), dense(h, p[`${a}W_K`], p[`${a}b_K`]),
        dense(h, p[`${a}W_V`], p[`${a}b_V`]), B, T);
      x = tf.add(x, dense(o, p[`${a}W_O`], p[`${a}b_O`]));
      if (!attentionOnly) {
        const m = `blocks.${l}.mlp.`;
        const h2 = layerNorm ? ln(x, p[`blocks.${l}.ln2.w`], p[`blocks.${l}.ln2.b`]) : x;
        x = tf.add(x, dense(act(dense(h2, p[`${m}W_in`], p[`${m}b_in`])), p[`${m}W_out`], p[`${m}b_out`]));
      }
    }
    if (layerNorm) x = ln(x, p['ln_final.w'], p['ln_final.b']);
    const logits = tf.add(tf.matMul(x, p['embed.W_E'], false, true), p['unembed.b_U']);  // [N, vocab]
    return tf.neg(tf.mean(tf.sum(tf.mul(tf.oneHot(targets, vocab), tf.logSoftmax(logits)), -1)));
  }

  const optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-8);
  const varList = Object.values(vars);
  const idsTensor = (a) => tf.tensor1d(a instanceof Int32Array ? a : Int32Array.from(a), 'int32');
  return {
    config: c,
    variables: vars,
    // The loss of a forward pass, as a number (no update).
    loss({ ids, targets, batch = 1 }) {
      return tf.tidy(() => loss(idsTensor(ids), idsTensor(targets), batch, ids.length / batch).dataSync()[0]);
    },
    // One training step: forward, backward (autodiff), Adam. Returns the loss before the update.
    trainStep({ ids, targets, batch = 1 }) {
      const cost = tf.tidy(() => {
        const i = idsTensor(ids), t = idsTensor(targets);
        return optimizer.minimize(() => loss(i, t, batch, ids.length / batch), true, varList);
      });
      const v = cost.dataSync()[0];
      cost.dispose();
      return { loss: v };
    },
    dispose() {
      varList.forEach((v) => v.dispose());
      masks.forEach((m) => m.dispose());
      scale.dispose();
      optimizer.dispose();
    },
  };
}
