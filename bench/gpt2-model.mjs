// A GPT-2-layout safetensors file with seeded random weights, written in chunks (never whole in
// memory), for the GPT-2 benchmark (bench/gpt2.bench.mjs) and profiling. Default: GPT-2 small's sizes
// (12 layers, d_model 768, 12 heads, vocab 50257, context 1024, d_ff 3072), F32, ~498 MB.
//
//   node bench/gpt2-model.mjs OUT.safetensors [--layers 12 --d 768 --vocab 50257 --ctx 1024]
import { closeSync, openSync, writeSync } from 'node:fs';

export const GPT2_SMALL = { layers: 12, d: 768, heads: 12, vocab: 50257, ctx: 1024 };

// The tensors of HF's GPT2Model, in its order (no prefix), each [name, shape, std, kind]:
// kind 'w' ~ U(−√3·std, √3·std) (std as given), 'one' LN gains, 'zero' biases.
export function gpt2Tensors({ layers, d, vocab, ctx }) {
  const f = 4 * d, t = [['wte.weight', [vocab, d], 0.02, 'w'], ['wpe.weight', [ctx, d], 0.01, 'w']];
  const proj = 0.02 / Math.sqrt(2 * layers);
  for (let l = 0; l < layers; l++) {
    const p = `h.${l}.`;
    t.push([p + 'ln_1.weight', [d], 0, 'one'], [p + 'ln_1.bias', [d], 0, 'zero'],
      [p + 'attn.c_attn.weight', [d, 3 * d], 0.02, 'w'], [p + 'attn.c_attn.bias', [3 * d], 0.02, 'w'],
      [p + 'attn.c_proj.weight', [d, d], proj, 'w'], [p + 'attn.c_proj.bias', [d], 0, 'zero'],
      [p + 'ln_2.weight', [d], 0, 'one'], [p + 'ln_2.bias', [d], 0, 'zero'],
      [p + 'mlp.c_fc.weight', [d, f], 0.02, 'w'], [p + 'mlp.c_fc.bias', [f], 0.02, 'w'],
      [p + 'mlp.c_proj.weight', [f, d], proj, 'w'], [p + 'mlp.c_proj.bias', [d], 0, 'zero']);
  }
  t.push(['ln_f.weight', [d], 0, 'one'], ['ln_f.bias', [d], 0, 'zero']);
  return t;
}

// mulberry32: a seeded uniform in [0, 1).
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Streams the tensor values, tensor by tensor, as Float32Array chunks of at most `chunk` floats:
 * onChunk(name, offsetInTensor, data). The same seed gives the same values (for attnlab's file and
 * the ONNX graph's initializers alike).
 */
export function forEachValue(sizes, onChunk, { seed = 1, chunk = 1 << 20 } = {}) {
  const rnd = mulberry32(seed), buf = new Float32Array(chunk);
  for (const [name, shape, std, kind] of gpt2Tensors(sizes)) {
    const n = shape.reduce((a, b) => a * b, 1), a = Math.sqrt(3) * std;
    for (let at = 0; at < n; at += chunk) {
      const m = Math.min(chunk, n - at), out = buf.subarray(0, m);
      if (kind === 'one') out.fill(1);
      else if (kind === 'zero') out.fill(0);
      else for (let i = 0; i < m; i++) out[i] = (2 * rnd() - 1) * a;
      onChunk(name, at, out);
    }
  }
}

/** Writes the file; returns { bytes, weightBytes, params }. */
export function writeGpt2File(path, sizes = GPT2_SMALL, seed = 1) {
  const header = {}, tensors = gpt2Tensors(sizes);
  let off = 0;
  for (const [name, shape] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [off, off + 4 * n] };
    off += 4 * n;
  }
  header.__metadata__ = { format: 'pt' };
  let h = JSON.stringify(header);
  h += ' '.repeat((8 - ((8 + h.length) % 8)) % 8);
  const fd = openSync(path, 'w');
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(h.length));
    writeSync(fd, len);
    writeSync(fd, Buffer.from(h, 'latin1'));
    forEachValue(sizes, (_n, _a, data) => writeSync(fd, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)), { seed });
  } finally {
    closeSync(fd);
  }
  return { bytes: 8 + h.length + off, weightBytes: off, params: off / 4 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  const arg = (k, d) => { const i = process.argv.indexOf(`--${k}`); return i > 0 ? Number(process.argv[i + 1]) : d; };
  const sizes = { layers: arg('layers', 12), d: arg('d', 768), heads: arg('heads', 12), vocab: arg('vocab', 50257), ctx: arg('ctx', 1024) };
  const t0 = performance.now();
  const r = writeGpt2File(out, sizes);
  console.log(`${out}: ${r.params} parameters, ${(r.bytes / 2 ** 20).toFixed(1)} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
