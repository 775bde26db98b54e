// Builds the multi-head self-attention forward as an ONNX model in code (no download, no onnx
// package): a ~60-line protobuf writer and the graph
//   Q, K, V = X·W_Q, X·W_K, X·W_V → [H, T, d_k] (Reshape + Transpose) → softmax(Q·Kᵀ·scale)·V
//   → [T, D] → ·W_O
// with the weights as initializers (so a run sends only X, as a deployed model would).

// ---- protobuf wire format: varints, length-delimited fields ----
class Writer {
  constructor() { this.bytes = []; }
  varint(v) {
    let n = BigInt.asUintN(64, BigInt(v));
    do {
      let b = Number(n & 0x7fn);
      n >>= 7n;
      if (n) b |= 0x80;
      this.bytes.push(b);
    } while (n);
    return this;
  }
  tag(field, wire) { return this.varint((field << 3) | wire); }
  int(field, v) { return this.tag(field, 0).varint(v); }
  float(field, v) {
    const b = new Uint8Array(new Float32Array([v]).buffer);
    this.tag(field, 5);
    this.bytes.push(...b);
    return this;
  }
  bytesField(field, u8) {
    this.tag(field, 2).varint(u8.length);
    for (let i = 0; i < u8.length; i++) this.bytes.push(u8[i]);
    return this;
  }
  string(field, s) { return this.bytesField(field, new TextEncoder().encode(s)); }
  message(field, w) { return this.bytesField(field, Uint8Array.from(w.bytes)); }
  done() { return Uint8Array.from(this.bytes); }
}

const FLOAT = 1, INT64 = 7;
const ATTR_FLOAT = 1, ATTR_INT = 2, ATTR_INTS = 7;

function tensor(name, dims, dataType, raw) {
  const w = new Writer();
  for (const d of dims) w.int(1, d);
  w.int(2, dataType).string(8, name).bytesField(9, new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
  return w;
}

function valueInfo(name, dims) {
  const shape = new Writer();
  for (const d of dims) shape.message(1, new Writer().int(1, d));
  const tt = new Writer().int(1, FLOAT).message(2, shape);
  return new Writer().string(1, name).message(2, new Writer().message(1, tt));
}

function node(op, inputs, outputs, attrs = []) {
  const w = new Writer();
  for (const i of inputs) w.string(1, i);
  for (const o of outputs) w.string(2, o);
  w.string(3, `${op}_${outputs[0]}`).string(4, op);
  for (const [name, type, value] of attrs) {
    const a = new Writer().string(1, name).int(20, type);
    if (type === ATTR_INT) a.int(3, value);
    else if (type === ATTR_FLOAT) a.float(2, value);
    else if (type === ATTR_INTS) for (const v of value) a.int(8, v);
    w.message(5, a);
  }
  return w;
}

/** The model's bytes, for onnxruntime's InferenceSession.create(). Input 'x' [T, D], output 'out'. */
export function mhaOnnxModel({ T, D, H, wq, wk, wv, wo }) {
  const dk = D / H;
  const g = new Writer();
  const nodes = [
    node('MatMul', ['x', 'wq'], ['q']), node('MatMul', ['x', 'wk'], ['k']), node('MatMul', ['x', 'wv'], ['v']),
    node('Reshape', ['q', 'thd'], ['q3']), node('Reshape', ['k', 'thd'], ['k3']), node('Reshape', ['v', 'thd'], ['v3']),
    node('Transpose', ['q3'], ['qh'], [['perm', ATTR_INTS, [1, 0, 2]]]),   // [H, T, dk]
    node('Transpose', ['k3'], ['kht'], [['perm', ATTR_INTS, [1, 2, 0]]]),  // [H, dk, T]
    node('Transpose', ['v3'], ['vh'], [['perm', ATTR_INTS, [1, 0, 2]]]),
    node('MatMul', ['qh', 'kht'], ['s']),
    node('Mul', ['s', 'scale'], ['ss']),
    node('Softmax', ['ss'], ['p'], [['axis', ATTR_INT, 2]]),
    node('MatMul', ['p', 'vh'], ['oh']),
    node('Transpose', ['oh'], ['o3'], [['perm', ATTR_INTS, [1, 0, 2]]]),
    node('Reshape', ['o3', 'td'], ['heads']),
    node('MatMul', ['heads', 'wo'], ['out']),
  ];
  for (const n of nodes) g.message(1, n);
  g.string(2, 'mha');
  for (const [name, w] of [['wq', wq], ['wk', wk], ['wv', wv], ['wo', wo]]) g.message(5, tensor(name, [D, D], FLOAT, Float32Array.from(w)));
  g.message(5, tensor('thd', [3], INT64, BigInt64Array.from([T, H, dk].map(BigInt))));
  g.message(5, tensor('td', [2], INT64, BigInt64Array.from([T, D].map(BigInt))));
  g.message(5, tensor('scale', [], FLOAT, new Float32Array([1 / Math.sqrt(dk)])));
  g.message(11, valueInfo('x', [T, D]));
  g.message(12, valueInfo('out', [T, D]));
  const m = new Writer().int(1, 8);  // ir_version 8
  m.message(8, new Writer().string(1, '').int(2, 17));  // opset 17
  m.string(2, 'attnlab-bench');
  m.message(7, g);
  return m.done();
}

/** The same forward through onnxruntime's fused contrib op com.microsoft.Attention (QKV projection,
 *  softmax and A·V in one kernel) followed by ·W_O: the fastest form onnxruntime offers for this graph
 *  (what its transformer optimizer produces). Input 'x' [1, T, D], output 'out' [1, T, D]. */
export function mhaOnnxFusedModel({ T, D, H, wq, wk, wv, wo }) {
  const g = new Writer();
  const attn = node('Attention', ['x', 'wqkv', 'bqkv'], ['heads'], [['num_heads', ATTR_INT, H]]);
  attn.string(7, 'com.microsoft');
  g.message(1, attn);
  g.message(1, node('MatMul', ['heads', 'wo'], ['out']));
  g.string(2, 'mha-fused');
  const wqkv = new Float32Array(D * 3 * D);  // [D, 3D] = [W_Q | W_K | W_V]
  for (let i = 0; i < D; i++)
    for (let j = 0; j < D; j++) {
      wqkv[i * 3 * D + j] = wq[i * D + j];
      wqkv[i * 3 * D + D + j] = wk[i * D + j];
      wqkv[i * 3 * D + 2 * D + j] = wv[i * D + j];
    }
  g.message(5, tensor('wqkv', [D, 3 * D], FLOAT, wqkv));
  g.message(5, tensor('bqkv', [3 * D], FLOAT, new Float32Array(3 * D)));
  g.message(5, tensor('wo', [D, D], FLOAT, Float32Array.from(wo)));
  g.message(11, valueInfo('x', [1, T, D]));
  g.message(12, valueInfo('out', [1, T, D]));
  const m = new Writer().int(1, 8);
  m.message(8, new Writer().string(1, '').int(2, 17));
  m.message(8, new Writer().string(1, 'com.microsoft').int(2, 1));
  m.string(2, 'attnlab-bench');
  m.message(7, g);
  return m.done();
}
