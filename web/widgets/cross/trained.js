// The trained encoder–decoder of <attn-cross trained>: the snapshots tools/pretrain_cross.cc wrote
// (web/train/pretrained/cross/: index.json + weights.bin) and its forward pass up to the decoder's
// cross-attention, computed by the core (lab.embedding, lab.positionalEncoding, lab.multiHeadAttention,
// lab.feedForward, lab.outputHead); only the residual sums are added here.
//
//   encoder   x_s = E_src[words] + PE        m  = x_s + MHA_enc(x_s)
//   decoder   x_d = E_tgt[<s> d1 d2 d3] + PE h1 = x_d + MHA_self(x_d, causal)
//             h2  = h1 + MHA_cross(h1, m)    h3 = h2 + FFN(h2)      logits = h3·W_outᵀ + b_out
//
// The task: a number from 1000 to 9999 in English words → its four digits.
import { pretrainedUrl } from '../../train/pretrained-files.js';

const ONES = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
export const MIN_NUMBER = 1000, MAX_NUMBER = 9999;

/** n in [1000, 9999] → its words, as the training data wrote them ("four thousand three hundred twenty six"). */
export function numberWords(n) {
  if (!Number.isInteger(n) || n < MIN_NUMBER || n > MAX_NUMBER) throw new RangeError(`numberWords: ${n} is not an integer from ${MIN_NUMBER} to ${MAX_NUMBER}`);
  const w = [ONES[Math.floor(n / 1000) - 1], 'thousand'];
  const h = Math.floor(n / 100) % 10, r = n % 100;
  if (h) w.push(ONES[h - 1], 'hundred');
  if (r >= 20) { w.push(TENS[Math.floor(r / 10) - 2]); if (r % 10) w.push(ONES[(r % 10) - 1]); } else if (r) w.push(ONES[r - 1]);
  return w;
}

/** The four digits of n, as numbers. */
export const digitsOf = (n) => [Math.floor(n / 1000), Math.floor(n / 100) % 10, Math.floor(n / 10) % 10, n % 10];

const isNode = () => typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

// The two files, located by the same helper as loadPretrained's (one table of every shipped file: a
// second `new URL()` of its own would put a second copy of weights.bin in the standalone inline build).
const INDEX_URL = pretrainedUrl('cross', 'index.json');
const WEIGHTS_URL = pretrainedUrl('cross', 'weights.bin');

async function readBytes(url) {
  if (isNode() && url.protocol === 'file:') {
    const fsName = 'node:fs/promises';  // hidden from bundlers: never loaded in a browser
    const { readFile } = await import(/* @vite-ignore */ fsName);
    return new Uint8Array(await readFile(url));
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`<attn-cross>: ${url.pathname.split('/').slice(-2).join('/')} answered HTTP ${res.status}, expected the trained snapshots to ship with attnlab`);
  return new Uint8Array(await res.arrayBuffer());
}

let loading = null;
/**
 * The shipped run: { meta (index.json without its snapshots), snapshots: [{ step, trainLoss, evalLoss,
 * accuracy, digitAccuracy, maps, params: Float32Array }] } — loaded once per page.
 */
export function loadCrossRun() {
  loading ??= (async () => {
    const [indexBytes, weightBytes] = await Promise.all([readBytes(INDEX_URL), readBytes(WEIGHTS_URL)]);
    return parseCrossRun(JSON.parse(new TextDecoder().decode(indexBytes)), weightBytes);
  })();
  loading.catch(() => { loading = null; });
  return loading;
}

/** index.json's object and weights.bin's bytes → the run (each snapshot's parameters a Float32Array view). */
export function parseCrossRun(index, bytes) {
  const n = index.floatsPerSnapshot, k = index.snapshots.length;
  if (bytes.byteLength !== n * k * 4) throw new Error(`<attn-cross>: weights.bin has ${bytes.byteLength} bytes, expected ${k} snapshots × ${n} floats × 4`);
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const { snapshots, ...meta } = index;
  return { meta, snapshots: snapshots.map((s, i) => ({ ...s, index: i, params: all.subarray(i * n, (i + 1) * n) })) };
}

/** The named tensors of one snapshot's parameters (views). */
function tensors(meta, params) {
  const t = {};
  for (const { name, shape, offset } of meta.tensors) t[name] = params.subarray(offset, offset + shape.reduce((a, b) => a * b, 1));
  return t;
}

const mhaWeights = (t, p) => ({ wq: t[`${p}.wq`], wk: t[`${p}.wk`], wv: t[`${p}.wv`], wo: t[`${p}.wo`], bq: t[`${p}.bq`], bk: t[`${p}.bk`], bv: t[`${p}.bv`], bo: t[`${p}.bo`] });
const add = (a, b) => { const o = new Float32Array(a.length); for (let i = 0; i < a.length; i++) o[i] = a[i] + b[i]; return o; };

/**
 * One snapshot's model on a number, teacher-forced (the decoder reads <s> and the right digits):
 *   { words, digits, weights: Float32Array [4·words] (the cross-attention map: row i = the query that
 *     predicts digit i), predicted: [4] (each row's most likely digit), probs: [4] (its probability) }
 */
export function crossForward(lab, run, snapshot, number) {
  const { meta } = run, D = meta.config.dModel, snap = run.snapshots[snapshot];
  const t = tensors(meta, snap.params);
  const words = numberWords(number), digits = digitsOf(number);
  const src = words.map((w) => meta.srcVocab.indexOf(w)), tgtIn = [meta.bos, ...digits.slice(0, 3)];
  const ts = src.length, td = tgtIn.length, base = meta.config.positionalBase;
  const pe = lab.positionalEncoding({ kind: 'sinusoidal', length: Math.max(ts, td), dModel: D, base });
  const xs = add(lab.embedding({ table: t.src_embedding, vocab: meta.srcVocab.length, dModel: D, ids: src }), pe.subarray(0, ts * D));
  const mem = add(xs, lab.multiHeadAttention({ x: xs, tq: ts, dModel: D, heads: meta.config.encoderHeads, ...mhaWeights(t, 'encoder.self_attn') }).output);
  const xd = add(lab.embedding({ table: t.tgt_embedding, vocab: meta.tgtVocab.length, dModel: D, ids: tgtIn }), pe.subarray(0, td * D));
  const h1 = add(xd, lab.multiHeadAttention({ x: xd, tq: td, dModel: D, heads: meta.config.selfHeads, mask: 'causal', ...mhaWeights(t, 'decoder.self_attn') }).output);
  const cross = lab.multiHeadAttention({ x: h1, tq: td, context: mem, tk: ts, dModel: D, heads: meta.config.crossHeads, ...mhaWeights(t, 'decoder.cross_attn') });
  const h2 = add(h1, cross.output);
  const ffn = lab.feedForward({ x: h2, rows: td, dModel: D, dFF: meta.config.dFF, w1: t['decoder.ffn.w1'], b1: t['decoder.ffn.b1'], w2: t['decoder.ffn.w2'], b2: t['decoder.ffn.b2'], activation: meta.config.activation });
  const h3 = add(h2, ffn.output);
  const V = t['out.bias'].length;
  const { probs } = lab.outputHead({ h: h3, rows: td, table: t['out.weight'], vocab: V, dModel: D, bias: t['out.bias'] });
  const predicted = [], p = [];
  for (let i = 0; i < td; i++) {
    let best = 0;
    for (let d = 1; d < V; d++) if (probs[i * V + d] > probs[i * V + best]) best = d;
    predicted.push(best); p.push(probs[i * V + best]);
  }
  return { words, digits, weights: cross.weights.subarray(0, td * ts), predicted, probs: p };
}
