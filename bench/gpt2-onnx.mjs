// GPT-2 (HF GPT2Model + the tied head) as an ONNX graph built in code, with a KV cache, for
// onnxruntime-web: the same seeded weights as bench/gpt2-model.mjs's file (forEachValue), as
// initializers. No onnx package, no download. The protobuf is assembled from parts (Uint8Arrays), so
// ~500 MB of weights are never an array of numbers.
//
// Inputs: ids, pos int64 [T]; mask float [T, P + T] (additive: 0 or −1e9, causal); past_k_l, past_v_l
// [H, P, dk] per layer. Outputs: logits [T, V]; present_k_l, present_v_l [H, P + T, dk]; att_l [H, T, P + T]
// (every attention map, as attnlab's forward returns them).
//   x = wte[ids] + wpe[pos]; per layer: h = LN1(x); q|k|v = h·c_attn + b → heads; k, v = concat(past, new);
//   att = softmax(q·kᵀ/√dk + mask); x += (att·v → [T, D])·c_proj + b; x += FastGelu(LN2(x)·c_fc + b)·c_proj + b
//   logits = LN_f(x)·wteᵀ (Gemm transB: the embedding table is shared, not copied).
import { forEachValue, gpt2Tensors } from './gpt2-model.mjs';

// ---- protobuf from parts ----
class Msg {
  constructor() { this.parts = []; this.length = 0; }
  #push(u8) { this.parts.push(u8); this.length += u8.length; return this; }
  varint(v) {
    const out = [];
    let n = BigInt.asUintN(64, BigInt(v));
    do { let b = Number(n & 0x7fn); n >>= 7n; if (n) b |= 0x80; out.push(b); } while (n);
    return this.#push(Uint8Array.from(out));
  }
  tag(f, w) { return this.varint((f << 3) | w); }
  int(f, v) { return this.tag(f, 0).varint(v); }
  float(f, v) { this.tag(f, 5); return this.#push(new Uint8Array(new Float32Array([v]).buffer)); }
  bytes(f, chunks) {  // chunks: Uint8Array[]
    const n = chunks.reduce((a, c) => a + c.length, 0);
    this.tag(f, 2).varint(n);
    for (const c of chunks) this.#push(c);
    return this;
  }
  string(f, s) { return this.bytes(f, [new TextEncoder().encode(s)]); }
  message(f, m) { this.tag(f, 2).varint(m.length); for (const p of m.parts) this.#push(p); return this; }
  done() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) out.set(p, at), (at += p.length);
    return out;
  }
}

const FLOAT = 1, INT64 = 7;
const A_FLOAT = 1, A_INT = 2, A_INTS = 7;
const tensor = (name, dims, type, chunks) => {
  const w = new Msg();
  for (const d of dims) w.int(1, d);
  return w.int(2, type).string(8, name).bytes(9, chunks);
};
const u8 = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
function valueInfo(name, type, dims) {  // dims: numbers or strings (symbolic)
  const shape = new Msg();
  for (const d of dims) shape.message(1, typeof d === 'string' ? new Msg().string(2, d) : new Msg().int(1, d));
  return new Msg().string(1, name).message(2, new Msg().message(1, new Msg().int(1, type).message(2, shape)));
}
let seq = 0;
function node(op, inputs, outputs, attrs = [], domain) {
  const w = new Msg();
  for (const i of inputs) w.string(1, i);
  for (const o of outputs) w.string(2, o);
  w.string(3, `${op}_${seq++}`).string(4, op);
  for (const [name, type, value] of attrs) {
    const a = new Msg().string(1, name).int(20, type);
    if (type === A_INT) a.int(3, value);
    else if (type === A_FLOAT) a.float(2, value);
    else for (const v of value) a.int(8, v);
    w.message(5, a);
  }
  if (domain) w.string(7, domain);
  return w;
}

/** The model's bytes for InferenceSession.create; sizes as bench/gpt2-model.mjs's, seed the same. */
export function gpt2OnnxModel(sizes, seed = 1) {
  const { layers: L, d: D, heads: H } = sizes, dk = D / H, eps = 1e-5;
  const g = new Msg(), nodes = [];
  const n = (...a) => nodes.push(node(...a));
  n('Gather', ['wte.weight', 'ids'], ['tok']);
  n('Gather', ['wpe.weight', 'pos'], ['posv']);
  n('Add', ['tok', 'posv'], ['x0']);
  let x = 'x0';
  for (let l = 0; l < L; l++) {
    const p = `h.${l}.`, o = (s) => `${s}_${l}`;
    n('LayerNormalization', [x, p + 'ln_1.weight', p + 'ln_1.bias'], [o('h1')], [['axis', A_INT, -1], ['epsilon', A_FLOAT, eps]]);
    n('MatMul', [o('h1'), p + 'attn.c_attn.weight'], [o('qkv0')]);
    n('Add', [o('qkv0'), p + 'attn.c_attn.bias'], [o('qkv')]);
    n('Split', [o('qkv'), 'split3'], [o('q'), o('k'), o('v')], [['axis', A_INT, 1]]);
    for (const s of ['q', 'k', 'v']) {
      n('Reshape', [o(s), 'thd'], [o(s + '3')]);
      n('Transpose', [o(s + '3')], [o(s + 'h')], [['perm', A_INTS, [1, 0, 2]]]);  // [H, T, dk]
    }
    n('Concat', [`past_k_${l}`, o('kh')], [`present_k_${l}`], [['axis', A_INT, 1]]);
    n('Concat', [`past_v_${l}`, o('vh')], [`present_v_${l}`], [['axis', A_INT, 1]]);
    n('Transpose', [`present_k_${l}`], [o('kt')], [['perm', A_INTS, [0, 2, 1]]]);  // [H, dk, P + T]
    n('MatMul', [o('qh'), o('kt')], [o('s')]);
    n('Mul', [o('s'), 'scale'], [o('ss')]);
    n('Add', [o('ss'), 'mask'], [o('sm')]);
    n('Softmax', [o('sm')], [`att_${l}`], [['axis', A_INT, -1]]);
    n('MatMul', [`att_${l}`, `present_v_${l}`], [o('oh')]);
    n('Transpose', [o('oh')], [o('o3')], [['perm', A_INTS, [1, 0, 2]]]);
    n('Reshape', [o('o3'), 'td'], [o('heads')]);
    n('MatMul', [o('heads'), p + 'attn.c_proj.weight'], [o('ao0')]);
    n('Add', [o('ao0'), p + 'attn.c_proj.bias'], [o('ao')]);
    n('Add', [x, o('ao')], [o('mid')]);
    n('LayerNormalization', [o('mid'), p + 'ln_2.weight', p + 'ln_2.bias'], [o('h2')], [['axis', A_INT, -1], ['epsilon', A_FLOAT, eps]]);
    n('MatMul', [o('h2'), p + 'mlp.c_fc.weight'], [o('f0')]);
    n('FastGelu', [o('f0'), p + 'mlp.c_fc.bias'], [o('f1')], [], 'com.microsoft');  // gelu_new with the bias add fused
    n('MatMul', [o('f1'), p + 'mlp.c_proj.weight'], [o('f2')]);
    n('Add', [o('f2'), p + 'mlp.c_proj.bias'], [o('f3')]);
    n('Add', [o('mid'), o('f3')], [o('x')]);
    x = o('x');
  }
  n('LayerNormalization', [x, 'ln_f.weight', 'ln_f.bias'], ['xf'], [['axis', A_INT, -1], ['epsilon', A_FLOAT, eps]]);
  n('Gemm', ['xf', 'wte.weight'], ['logits'], [['transB', A_INT, 1]]);
  for (const nd of nodes) g.message(1, nd);
  g.string(2, 'gpt2');
  // Initializers: the seeded weights, tensor by tensor (chunks copied: forEachValue reuses its buffer).
  const shapes = new Map(gpt2Tensors(sizes).map(([name, shape]) => [name, shape]));
  const chunks = new Map();
  forEachValue(sizes, (name, _at, data) => {
    if (!chunks.has(name)) chunks.set(name, []);
    chunks.get(name).push(u8(data.slice()));
  }, { seed });
  for (const [name, parts] of chunks) g.message(5, tensor(name, shapes.get(name), FLOAT, parts));
  g.message(5, tensor('split3', [3], INT64, [u8(BigInt64Array.from([D, D, D].map(BigInt)))]));
  g.message(5, tensor('thd', [3], INT64, [u8(BigInt64Array.from([-1, H, dk].map(BigInt)))]));
  g.message(5, tensor('td', [2], INT64, [u8(BigInt64Array.from([-1, D].map(BigInt)))]));
  g.message(5, tensor('scale', [], FLOAT, [u8(new Float32Array([1 / Math.sqrt(dk)]))]));
  g.message(11, valueInfo('ids', INT64, ['T']));
  g.message(11, valueInfo('pos', INT64, ['T']));
  g.message(11, valueInfo('mask', FLOAT, ['T', 'PT']));
  for (let l = 0; l < L; l++) for (const s of ['k', 'v']) g.message(11, valueInfo(`past_${s}_${l}`, FLOAT, [H, 'P', dk]));
  g.message(12, valueInfo('logits', FLOAT, ['T', sizes.vocab]));
  for (let l = 0; l < L; l++) {
    for (const s of ['k', 'v']) g.message(12, valueInfo(`present_${s}_${l}`, FLOAT, [H, 'PT', dk]));
    g.message(12, valueInfo(`att_${l}`, FLOAT, [H, 'T', 'PT']));
  }
  const m = new Msg().int(1, 8);
  m.message(8, new Msg().string(1, '').int(2, 17));
  m.message(8, new Msg().string(1, 'com.microsoft').int(2, 1));
  m.string(2, 'attnlab-bench');
  m.message(7, g);
  return m.done();
}
