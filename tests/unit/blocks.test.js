// The rest of the Transformer (issue 3) in the WASM build: LayerNorm/RMSNorm, activations, feed-forward,
// encoder and decoder layers against PyTorch (tests/golden/blocks.json: torch.nn.LayerNorm,
// TransformerEncoderLayer, TransformerDecoderLayer, nn.Embedding + tied head), kernel regression
// against a direct float64 computation, tokenizer round trips, and bad input for every entry point.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab, createTokenizer } from 'attnlab';
import { ABS_FLOOR, REL_TOL, expectClose, golden, matmul, randomArray, seededRandom } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const g = golden('blocks');
const opt = (v) => (v === null ? undefined : v);

// A sum of float32 terms is accurate relative to Σ|terms| (its condition), not to its own size: the
// residual x + MHA(x) of two O(1) values can be 0.003, where one float32 rounding of an operand is
// already 1e-7 absolute. So sums are compared within REL_TOL of scale[i] = Σ|terms| (computed below
// from the goldens themselves), every other value with expectClose.
function expectCloseScaled(actual, expected, scale, what) {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  let worst = 0, at = -1;
  for (let i = 0; i < expected.length; i++) {
    const err = Math.abs(actual[i] - expected[i]) / Math.max(scale[i], Math.abs(expected[i]), ABS_FLOOR / REL_TOL);
    if (!(err <= worst)) { worst = err; at = i; }
  }
  expect(worst, `${what}: worst scaled error at [${at}]: ${actual[at]} vs ${expected[at]}`).toBeLessThanOrEqual(REL_TOL);
}
const absSum = (a, b) => Float64Array.from(a, (v, i) => Math.abs(v) + Math.abs(b[i]));
// Σ_k |x[i,k]|·|W[k,j]| + |b[j]|: the condition of y = x·W + b.
function absMatmul(x, w, b, m, k, n) {
  const out = matmul(x.map(Math.abs), w.map(Math.abs), m, k, n);
  return Float64Array.from(out, (v, i) => v + (b ? Math.abs(b[i % n]) : 0));
}

describe('LayerNorm and RMSNorm vs PyTorch', () => {
  test.each(g.layerNorm.map((c) => [c.name, c]))('layerNorm %s', (_n, c) => {
    const y = lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim, gamma: opt(c.gamma), beta: opt(c.beta), eps: c.eps });
    expectClose(y, c.expected, 'layerNorm');
  });
  test.each(g.rmsNorm.map((c) => [c.name, c]))('rmsNorm %s', (_n, c) => {
    expectClose(lab.rmsNorm({ x: c.x, rows: c.rows, dim: c.dim, gamma: opt(c.gamma), eps: c.eps }), c.expected, 'rmsNorm');
  });
  test('a large common offset does not cancel the variance (two-pass, vs a float64 reference)', () => {
    const c = g.layerNorm.find((x) => x.name.includes('offset100'));
    const y = lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim, gamma: c.gamma, beta: c.beta, eps: c.eps });
    const ref = new Float64Array(c.x.length);
    for (let r = 0; r < c.rows; r++) {
      const row = c.x.slice(r * c.dim, (r + 1) * c.dim);
      const mean = row.reduce((s, v) => s + v, 0) / c.dim;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / c.dim;
      row.forEach((v, i) => { ref[r * c.dim + i] = (v - mean) / Math.sqrt(variance + c.eps) * c.gamma[i] + c.beta[i]; });
    }
    expectClose(y, ref, 'layerNorm offset 100 vs float64');
  });
  test('defaults: eps 1e-5 for LayerNorm, gamma 1 and beta 0', () => {
    const c = g.layerNorm.find((x) => x.gamma === null && x.eps === 1e-5);
    expect(Array.from(lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim }))).toEqual(
      Array.from(lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim, eps: 1e-5, gamma: new Float32Array(c.dim).fill(1), beta: new Float32Array(c.dim) })));
  });
});

describe('activations vs PyTorch', () => {
  test('GELU exact (erf) and tanh approximation, ReLU', () => {
    expectClose(lab.activation({ x: g.gelu.x, kind: 'gelu' }), g.gelu.erf, 'gelu');
    expectClose(lab.activation({ x: g.gelu.x, kind: 'gelu_tanh' }), g.gelu.tanh, 'gelu_tanh');
    expectClose(lab.activation({ x: g.relu.x, kind: 'relu' }), g.relu.expected, 'relu');
  });
});

describe('feed-forward', () => {
  test('matches a float64 reference (ReLU and GELU-tanh, odd sizes, with and without biases)', () => {
    const rand = seededRandom(31);
    for (const [rows, D, F, act, bias] of [[3, 5, 7, 'relu', true], [4, 6, 24, 'gelu_tanh', false], [1, 1, 1, 'relu', true]]) {
      const x = randomArray(rows * D, rand), w1 = randomArray(D * F, rand, 0.5), w2 = randomArray(F * D, rand, 0.5);
      const b1 = bias ? randomArray(F, rand) : undefined, b2 = bias ? randomArray(D, rand) : undefined;
      const r = lab.feedForward({ x, rows, dModel: D, dFF: F, w1, b1, w2, b2, activation: act });
      const pre = Float64Array.from(matmul(Array.from(x), Array.from(w1), rows, D, F), (v, i) => v + (b1 ? b1[i % F] : 0));
      const f = act === 'relu' ? (v) => Math.max(v, 0)
        : (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
      const hidden = pre.map(f);
      const out = Float64Array.from(matmul(Array.from(hidden), Array.from(w2), rows, F, D), (v, i) => v + (b2 ? b2[i % D] : 0));
      expectCloseScaled(r.hidden, pre, absMatmul(Array.from(x), Array.from(w1), b1, rows, D, F), 'hidden');
      expectCloseScaled(r.activated, hidden, absMatmul(Array.from(x), Array.from(w1), b1, rows, D, F), 'activated');
      expectCloseScaled(r.output, out, absMatmul(Array.from(hidden), Array.from(w2), b2, rows, F, D), 'output');
    }
  });
  test("reproduces the FFN inside torch's post-LN encoder layers", () => {
    for (const c of g.encoder.filter((e) => e.norm === 'post')) {
      const w = c.weights;
      const r = lab.feedForward({ x: c.expected.residual1, rows: c.t, dModel: c.dModel, dFF: c.dFF, w1: w.w1, b1: w.b1, w2: w.w2, b2: w.b2, activation: c.activation });
      expectClose(r.activated, c.expected.ffnHidden, `${c.name} ffnHidden`);
      expectCloseScaled(r.output, c.expected.ffnOut, absMatmul(c.expected.ffnHidden, w.w2, w.b2, c.t, c.dFF, c.dModel), `${c.name} ffnOut`);
    }
  });
});

const encoderArgs = (c) => ({ x: c.x, t: c.t, dModel: c.dModel, heads: c.heads, dFF: c.dFF, norm: c.norm, activation: c.activation, mask: c.mask, eps: c.eps, weights: c.weights });
const decoderArgs = (c) => ({ x: c.x, t: c.t, memory: c.memory, tm: c.tm, dModel: c.dModel, heads: c.heads, dFF: c.dFF, norm: c.norm, activation: c.activation, eps: c.eps, weights: c.weights });

describe('encoder layer vs torch.nn.TransformerEncoderLayer', () => {
  test.each(g.encoder.map((c) => [c.name, c]))('%s', (_n, c) => {
    const r = lab.encoderBlock(encoderArgs(c));
    const e = c.expected, w = c.weights, { t, dModel: D, dFF: F } = c;
    expectClose(r.attnWeights, e.attnWeights, 'attnWeights');
    expectCloseScaled(r.attnOut, e.attnOut, absMatmul(Array.from(r.attnHeads), w.wo, w.bo, t, D, D), 'attnOut');
    expectClose(r.ffnHidden, e.ffnHidden, 'ffnHidden');
    expectCloseScaled(r.ffnOut, e.ffnOut, absMatmul(e.ffnHidden, w.w2, w.b2, t, F, D), 'ffnOut');
    // The golden's residual1 is the stream after the first sub-layer: LN1(x + MHA(x)) post-LN, x + MHA(LN1(x)) pre-LN.
    if (c.norm === 'post') {
      expectClose(r.norm1, e.residual1, 'norm1');
      expectClose(r.output, e.output, 'output');
    } else {
      expectCloseScaled(r.residual1, e.residual1, absSum(c.x, e.attnOut), 'residual1');
      expectCloseScaled(r.output, e.output, absSum(e.residual1, e.ffnOut), 'output');
    }
  });

  test('every intermediate is what its formula says (exact float32 sums, LayerNorm, FFN)', () => {
    for (const c of g.encoder) {
      const r = lab.encoderBlock(encoderArgs(c));
      const w = c.weights, D = c.dModel;
      const add = (a, b) => Float32Array.from(a, (v, i) => Math.fround(v + b[i]));
      const ln = (x, i) => lab.layerNorm({ x, rows: c.t, dim: D, gamma: w[`ln${i}Gamma`], beta: w[`ln${i}Beta`], eps: c.eps });
      const attnIn = c.norm === 'post' ? c.x : r.norm1;
      const mha = lab.multiHeadAttention({ x: attnIn, tq: c.t, dModel: D, heads: c.heads, wq: w.wq, wk: w.wk, wv: w.wv, wo: w.wo, bq: w.bq, bk: w.bk, bv: w.bv, bo: w.bo, mask: c.mask });
      for (const [mine, theirs] of [['q', 'q'], ['k', 'k'], ['v', 'v'], ['attnWeights', 'weights'], ['attnHeads', 'heads'], ['attnOut', 'output']])
        expect(Array.from(r[mine]), `${c.name} ${mine}`).toEqual(Array.from(mha[theirs]));
      expect(Array.from(r.residual1)).toEqual(Array.from(add(c.x, r.attnOut)));
      if (c.norm === 'post') {
        expect(Array.from(r.norm1)).toEqual(Array.from(ln(r.residual1, 1)));
        expect(Array.from(r.residual2)).toEqual(Array.from(add(r.norm1, r.ffnOut)));
        expect(Array.from(r.norm2)).toEqual(Array.from(ln(r.residual2, 2)));
        expect(Array.from(r.output)).toEqual(Array.from(r.norm2));
      } else {
        expect(Array.from(r.norm1)).toEqual(Array.from(ln(c.x, 1)));
        expect(Array.from(r.norm2)).toEqual(Array.from(ln(r.residual1, 2)));
        expect(Array.from(r.residual2)).toEqual(Array.from(add(r.residual1, r.ffnOut)));
        expect(Array.from(r.output)).toEqual(Array.from(r.residual2));
      }
      const ffnIn = c.norm === 'post' ? r.norm1 : r.norm2;
      const f = lab.feedForward({ x: ffnIn, rows: c.t, dModel: D, dFF: c.dFF, w1: w.w1, b1: w.b1, w2: w.w2, b2: w.b2, activation: c.activation });
      expect(Array.from(r.ffnPre)).toEqual(Array.from(f.hidden));
      expect(Array.from(r.ffnHidden)).toEqual(Array.from(f.activated));
      expect(Array.from(r.ffnOut)).toEqual(Array.from(f.output));
    }
  });

  test('a causal mask keeps token i from seeing tokens after it: changing the last token leaves the others', () => {
    const c = g.encoder.find((e) => e.mask === 'causal' && e.norm === 'pre');
    const a = lab.encoderBlock(encoderArgs(c));
    const x2 = Float32Array.from(c.x);
    for (let j = 0; j < c.dModel; j++) x2[(c.t - 1) * c.dModel + j] += 1;
    const b = lab.encoderBlock({ ...encoderArgs(c), x: x2 });
    const keep = (c.t - 1) * c.dModel;
    expect(Array.from(b.output.subarray(0, keep))).toEqual(Array.from(a.output.subarray(0, keep)));
    expect(Array.from(b.output.subarray(keep))).not.toEqual(Array.from(a.output.subarray(keep)));
  });
});

describe('decoder layer vs torch.nn.TransformerDecoderLayer', () => {
  test.each(g.decoder.map((c) => [c.name, c]))('%s', (_n, c) => {
    const r = lab.decoderBlock(decoderArgs(c));
    const e = c.expected, w = c.weights, { t, dModel: D, dFF: F } = c;
    expectClose(r.selfWeights, e.selfWeights, 'selfWeights');
    expectClose(r.crossWeights, e.crossWeights, 'crossWeights');
    expectCloseScaled(r.selfAttnOut, e.selfAttnOut, absMatmul(Array.from(r.selfHeads), w.wo, w.bo, t, D, D), 'selfAttnOut');
    expectCloseScaled(r.crossAttnOut, e.crossAttnOut, absMatmul(Array.from(r.crossHeads), w.cwo, w.cbo, t, D, D), 'crossAttnOut');
    expectClose(r.ffnHidden, e.ffnHidden, 'ffnHidden');
    expectCloseScaled(r.ffnOut, e.ffnOut, absMatmul(e.ffnHidden, w.w2, w.b2, t, F, D), 'ffnOut');
    if (c.norm === 'post') expectClose(r.output, e.output, 'output');
    else expectCloseScaled(r.output, e.output, absSum(r.residual2, e.ffnOut), 'output');
    // Cross-attention keys and values come from memory, queries from the decoder stream.
    const cross = lab.multiHeadAttention({ x: c.norm === 'post' ? r.norm1 : r.norm2, tq: t, context: c.memory, tk: c.tm, dModel: D, heads: c.heads,
      wq: w.cwq, wk: w.cwk, wv: w.cwv, wo: w.cwo, bq: w.cbq, bk: w.cbk, bv: w.cbv, bo: w.cbo });
    expect(Array.from(r.crossK)).toEqual(Array.from(cross.k));
    expect(Array.from(r.crossWeights)).toEqual(Array.from(cross.weights));
  });
  test("the default self-attention mask is causal; mask: 'none' lets tokens look ahead", () => {
    const c = g.decoder[0];
    const causal = lab.decoderBlock({ ...decoderArgs(c), mask: 'causal' });
    expect(Array.from(lab.decoderBlock(decoderArgs(c)).output)).toEqual(Array.from(causal.output));
    const open = lab.decoderBlock({ ...decoderArgs(c), mask: 'none' });
    expect(open.selfWeights[1]).toBeGreaterThan(0);  // head 0, query 0, key 1
    expect(causal.selfWeights[1]).toBe(0);
  });
});

describe('batch (B, N, D): each sequence exactly as on its own', () => {
  test('encoder and decoder', () => {
    const [c1, c2] = [g.encoder[5], g.encoder.find((e, i) => i !== 5 && e.t === g.encoder[5].t && e.norm === g.encoder[5].norm)];
    const both = lab.encoderBlock({ ...encoderArgs(c1), x: [...c1.x, ...c2.x], batch: 2 });
    const one = lab.encoderBlock(encoderArgs(c1)), two = lab.encoderBlock({ ...encoderArgs(c1), x: c2.x });
    for (const k of Object.keys(one)) expect(Array.from(both[k]), k).toEqual([...one[k], ...two[k]]);
    const d = g.decoder[1], xs = [...d.x, ...d.x.map((v) => -v)], mem = [...d.memory, ...d.memory.map((v) => 2 * v)];
    const dboth = lab.decoderBlock({ ...decoderArgs(d), x: xs, memory: mem, batch: 2 });
    const d2 = lab.decoderBlock({ ...decoderArgs(d), x: d.x.map((v) => -v), memory: d.memory.map((v) => 2 * v) });
    for (const k of ['output', 'crossWeights', 'crossK', 'selfWeights'])
      expect(Array.from(dboth[k]), k).toEqual([...lab.decoderBlock(decoderArgs(d))[k], ...d2[k]]);
  });
  test('bad input names the batch', () => {
    const c = g.encoder[0];
    expect(() => lab.encoderBlock({ ...encoderArgs(c), batch: 2 })).toThrow(/^encoderBlock: x has 40 values, expected batch·t·dModel = 80$/);
    const x = [...c.x, ...c.x];
    x[41] = NaN;
    expect(() => lab.encoderBlock({ ...encoderArgs(c), x, batch: 2 })).toThrow(/^encoderBlock: x\[1\] is NaN, expected finite values \(in batch element 1\)$/);
    expect(() => lab.encoderBlock({ ...encoderArgs(c), batch: 0 })).toThrow(/^encoderBlock: batch is 0, expected a positive integer$/);
  });
});

describe('embedding and tied output head vs PyTorch', () => {
  test.each(g.embedding.map((c) => [c.name, c]))('%s', (_n, c) => {
    expect(Array.from(lab.embedding({ table: c.table, vocab: c.vocab, dModel: c.dModel, ids: c.ids }))).toEqual(c.embeddings);
    const r = lab.outputHead({ h: c.h, rows: c.ids.length, table: c.table, vocab: c.vocab, dModel: c.dModel, bias: opt(c.bias), temperature: c.temperature });
    expectCloseScaled(r.logits, c.logits, absMatmul(c.h, transpose(c.table, c.vocab, c.dModel), c.bias, c.ids.length, c.dModel, c.vocab), 'logits');
    expectClose(r.probs, c.probs, 'probs');
  });
  test('temperature defaults to 1', () => {
    const c = g.embedding.find((e) => e.temperature === 1);
    const args = { h: c.h, rows: c.ids.length, table: c.table, vocab: c.vocab, dModel: c.dModel, bias: opt(c.bias) };
    expect(Array.from(lab.outputHead(args).probs)).toEqual(Array.from(lab.outputHead({ ...args, temperature: 1 }).probs));
  });
});

function transpose(a, rows, cols) {
  const t = new Array(a.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j];
  return t;
}

describe('kernel regression (Nadaraya-Watson) as attention', () => {
  // Direct float64 computation: w_i = exp(f(x, x_i)/h) / Σ_j exp(f(x, x_j)/h), prediction = Σ w_i y_i.
  function reference(xs, ys, queries, dim, bandwidth, kernel) {
    const n = ys.length, nq = queries.length / dim;
    const weights = new Float64Array(nq * n), predictions = new Float64Array(nq);
    for (let q = 0; q < nq; q++) {
      const f = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let d = 0; d < dim; d++) {
          const a = queries[q * dim + d], b = xs[i * dim + d];
          s += kernel === 'gaussian' ? -((a - b) ** 2) : a * b;
        }
        return s / bandwidth;
      });
      const m = Math.max(...f);
      const e = f.map((v) => Math.exp(v - m)), z = e.reduce((s, v) => s + v, 0);
      e.forEach((v, i) => { weights[q * n + i] = v / z; predictions[q] += (v / z) * ys[i]; });
    }
    return { weights, predictions };
  }

  test("the deck's example: data (1.36, 1.79), (3.40, −1.77), (6.05, −2.17), query x = 4.25", () => {
    const xs = [1.36, 3.40, 6.05], ys = [1.79, -1.77, -2.17], queries = [4.25];
    const r = lab.kernelRegression({ xs, ys, queries, bandwidth: 1 });
    const ref = reference(xs.map(Math.fround), ys.map(Math.fround), queries, 1, 1, 'gaussian');
    expectClose(r.weights, ref.weights, 'weights');
    expectClose(r.predictions, ref.predictions, 'predictions');
    expectClose(r.scores, xs.map((x) => -((Math.fround(4.25) - Math.fround(x)) ** 2)), 'scores');
  });

  test.each([
    ['1-D gaussian, bandwidth 0.5', 1, 'gaussian', 0.5],
    ['1-D dot', 1, 'dot', 2],
    ['2-D gaussian', 2, 'gaussian', 1.5],
    ['3-D dot', 3, 'dot', 1],
  ])('%s vs float64', (_n, dim, kernel, bandwidth) => {
    const rand = seededRandom(dim * 7 + bandwidth * 3);
    const n = 23, nq = 9;
    const xs = randomArray(n * dim, rand, 3), ys = randomArray(n, rand, 2), queries = randomArray(nq * dim, rand, 3);
    const r = lab.kernelRegression({ xs, ys, queries, bandwidth, kernel, dim });
    const ref = reference(xs, ys, queries, dim, bandwidth, kernel);
    expectClose(r.weights, ref.weights, 'weights');
    expectCloseScaled(r.predictions, ref.predictions, Array.from({ length: nq }, () => ys.reduce((m, v) => Math.max(m, Math.abs(v)), 0)), 'predictions');
  });

  test('the dot kernel is exactly scaled dot-product attention with scale 1/bandwidth', () => {
    const rand = seededRandom(5);
    const xs = randomArray(14, rand), ys = randomArray(7, rand), queries = randomArray(6, rand);
    const r = lab.kernelRegression({ xs, ys, queries, dim: 2, kernel: 'dot', bandwidth: 4 });
    const a = lab.attention({ q: queries, k: xs, v: ys, tq: 3, tk: 7, dk: 2, dv: 1, scale: 0.25 });
    expect(Array.from(r.weights)).toEqual(Array.from(a.weights));
    expect(Array.from(r.predictions)).toEqual(Array.from(a.output));
  });
});

describe('tokenizer', () => {
  const text = 'the cat sat on the mat. the cat ate the rat.\nThé café — 猫 🐈  tabs\tand  spaces ';
  test.each(['char', 'word', 'bpe'])('%s: decode(encode(s)) === s on its training text', (kind) => {
    const tok = createTokenizer({ kind, text });
    const ids = tok.encode(text);
    expect(ids).toBeInstanceOf(Int32Array);
    expect(tok.decode(ids)).toBe(text);
    // A byte-level BPE piece may be part of a multibyte character (shown as U+FFFD): join only char/word.
    if (kind !== 'bpe') expect(tok.pieces(text).join('')).toBe(text);
    expect(tok.pieces(text).length).toBe(ids.length);
    for (const id of ids) expect(id >= 0 && id < tok.size).toBe(true);
  });
  test('char and word: unknown pieces are id 0 <unk>', () => {
    const words = createTokenizer({ kind: 'word', text });
    expect(words.token(0)).toBe('<unk>');
    expect(Array.from(words.encode('the dog'))).toEqual([words.encode('the')[0], words.encode(' ')[0], 0]);
    expect(Array.from(createTokenizer({ kind: 'char', text: 'ab' }).encode('abc'))).toEqual([1, 2, 0]);
  });
  test('bpe: any string round-trips (unseen words, emoji, combining marks), and merges shorten the text', () => {
    const tok = createTokenizer({ kind: 'bpe', text: text.repeat(3), vocabSize: 300 });
    for (const s of ['', 'dogs chase cats', 'e\u0301 👩‍👩‍👧 ✓', '   ', 'the the the', text])
      expect(tok.decode(tok.encode(s))).toBe(s);
    expect(tok.encode(text).length).toBeLessThan(new TextEncoder().encode(text).length / 2);
    expect(tok.size).toBe(256 + tok.merges.length);
    expect(tok.pieces(' the cat')).toEqual([' the', ' cat']);
  });
  test('bpe training is deterministic and stops when no pair occurs twice', () => {
    const a = createTokenizer({ kind: 'bpe', text, vocabSize: 290 }), b = createTokenizer({ kind: 'bpe', text, vocabSize: 290 });
    expect(a.merges).toEqual(b.merges);
    expect(createTokenizer({ kind: 'bpe', text: 'abcd', vocabSize: 1000 }).size).toBe(256);
  });
  test('tokens → embedding → tied head: a pipeline the widgets use', () => {
    const tok = lab.tokenizer({ kind: 'word', text });
    const ids = tok.encode('the cat sat');
    const D = 4, table = randomArray(tok.size * D, seededRandom(2));
    const e = lab.embedding({ table, vocab: tok.size, dModel: D, ids });
    // h = the embeddings themselves: each token's own logit e·e is the largest of its row only if
    // no other row is longer in that direction; compare with a float64 reference instead.
    const { probs } = lab.outputHead({ h: e, rows: ids.length, table, vocab: tok.size, dModel: D });
    const ref = matmul(Array.from(e), transpose(Array.from(table), tok.size, D), ids.length, D, tok.size);
    for (let r = 0; r < ids.length; r++) {
      const row = Array.from(ref.subarray(r * tok.size, (r + 1) * tok.size));
      const m = Math.max(...row), z = row.reduce((s, v) => s + Math.exp(v - m), 0);
      expectClose(probs.subarray(r * tok.size, (r + 1) * tok.size), row.map((v) => Math.exp(v - m) / z), `probs row ${r}`);
    }
  });
  test('bad input', () => {
    expect(() => createTokenizer({ kind: 'sentencepiece', text })).toThrow(/^createTokenizer: kind is "sentencepiece", expected one of 'char', 'word', 'bpe'$/);
    expect(() => createTokenizer({ kind: 'bpe' })).toThrow(/^createTokenizer: text is missing, expected a string to learn the vocabulary from$/);
    expect(() => createTokenizer({ kind: 'bpe', text, vocabSize: 100 })).toThrow(/^createTokenizer: vocabSize is 100, expected an integer in \[256, 65536\]/);
    expect(() => createTokenizer({ kind: 'char', text, vocabSize: 300 })).toThrow(/^createTokenizer: vocabSize is for kind 'bpe'/);
    const tok = createTokenizer({ kind: 'char', text: 'ab' });
    expect(() => tok.decode([1, 3])).toThrow(/^tokenizer.decode: ids\[1\] is 3, expected an integer in \[0, size = 3\)$/);
    expect(() => tok.encode(42)).toThrow(/^tokenizer.encode: s is a number, expected a string$/);
  });
});

// ---- bad input: every entry point, exact messages ----------------------------------------------------
const D = 4, F = 8, T = 3;
const fill = (n, v) => new Float32Array(n).fill(v);
const encWeights = () => ({ wq: fill(D * D, 0.1), wk: fill(D * D, 0.2), wv: fill(D * D, 0.3), wo: fill(D * D, 0.1), w1: fill(D * F, 0.1), w2: fill(F * D, 0.1), ln1Gamma: fill(D, 1), ln1Beta: fill(D, 0) });
const enc = () => ({ x: randomArray(T * D, seededRandom(3)), t: T, dModel: D, heads: 2, dFF: F, norm: 'pre', activation: 'gelu', weights: encWeights() });
const dec = () => ({ ...enc(), memory: fill(2 * D, 0.5), tm: 2, weights: { ...encWeights(), cwq: fill(D * D, 0.1), cwk: fill(D * D, 0.1), cwv: fill(D * D, 0.1), cwo: fill(D * D, 0.1) } });
const withNaN = (n, at) => Float32Array.from({ length: n }, (_, i) => (i === at ? NaN : 0.1));

describe('bad input', () => {
  test.each([
    ['layerNorm wrong size', () => lab.layerNorm({ x: fill(7, 1), rows: 2, dim: 4 }), /^layerNorm: x has 7 values, expected rows·dim = 8$/],
    ['layerNorm NaN', () => lab.layerNorm({ x: withNaN(8, 5), rows: 2, dim: 4 }), /^layerNorm: x\[5\] is NaN, expected finite values$/],
    ['layerNorm gamma size', () => lab.layerNorm({ x: fill(8, 1), rows: 2, dim: 4, gamma: fill(3, 1) }), /^layerNorm: gamma has 3 values, expected dim = 4$/],
    ['layerNorm beta Infinity', () => lab.layerNorm({ x: fill(8, 1), rows: 2, dim: 4, beta: [0, Infinity, 0, 0] }), /^layerNorm: beta\[1\] is Infinity, expected finite values$/],
    ['layerNorm eps 0', () => lab.layerNorm({ x: fill(8, 1), rows: 2, dim: 4, eps: 0 }), /^layerNorm: eps is 0, expected a finite number > 0$/],
    ['rmsNorm NaN gamma', () => lab.rmsNorm({ x: fill(4, 1), rows: 1, dim: 4, gamma: withNaN(4, 2) }), /^rmsNorm: gamma\[2\] is NaN, expected finite values$/],
    ['rmsNorm typo', () => lab.rmsNorm({ x: fill(4, 1), rows: 1, dim: 4, beta: fill(4, 0) }), /^rmsNorm: unknown option 'beta', expected some of: x, rows, dim, gamma, eps$/],
    ['activation unknown kind', () => lab.activation({ x: [1], kind: 'swish' }), /^activation: kind is "swish", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
    ['activation NaN', () => lab.activation({ x: [1, NaN], kind: 'relu' }), /^activation: x\[1\] is NaN, expected finite values$/],
    ['activation empty', () => lab.activation({ x: [], kind: 'relu' }), /^activation: x is empty, expected at least 1 value$/],
    ['feedForward missing w2', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: fill(32, 0.1) }), /^feedForward: w2 is missing, expected a Float32Array of dFF·dModel = 32$/],
    ['feedForward b1 size', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: fill(32, 0.1), w2: fill(32, 0.1), b1: fill(4, 0) }), /^feedForward: b1 has 4 values, expected dFF = 8$/],
    ['feedForward unknown activation', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: fill(32, 0.1), w2: fill(32, 0.1), activation: 'tanh' }), /^feedForward: activation is "tanh", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
    ['feedForward NaN weight', () => lab.feedForward({ x: fill(4, 1), rows: 1, dModel: 4, dFF: 8, w1: withNaN(32, 31), w2: fill(32, 0.1) }), /^feedForward: w1\[31\] is NaN, expected finite values$/],
    ['encoderBlock missing weight', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), wk: undefined } }), /^encoderBlock: weights.wk is missing, expected a Float32Array of dModel·dModel = 16$/],
    ['encoderBlock wrong size', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), w1: fill(31, 0) } }), /^encoderBlock: weights.w1 has 31 values, expected dModel·dFF = 32$/],
    ['encoderBlock unknown norm', () => lab.encoderBlock({ ...enc(), norm: 'sandwich' }), /^encoderBlock: norm is "sandwich", expected one of 'post', 'pre'$/],
    ['encoderBlock unknown activation', () => lab.encoderBlock({ ...enc(), activation: 'silu' }), /^encoderBlock: activation is "silu", expected one of 'relu', 'gelu', 'gelu_tanh'$/],
    ['encoderBlock NaN in x', () => lab.encoderBlock({ ...enc(), x: withNaN(12, 4) }), /^encoderBlock: x\[4\] is NaN, expected finite values$/],
    ['encoderBlock NaN in a LayerNorm', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), ln1Gamma: withNaN(4, 0) } }), /^encoderBlock: weights.ln1Gamma\[0\] is NaN, expected finite values$/],
    ['encoderBlock unknown weight', () => lab.encoderBlock({ ...enc(), weights: { ...encWeights(), wqkv: fill(48, 0) } }), /^encoderBlock: weights has unknown key 'wqkv', expected some of: wq, wk/],
    ['encoderBlock no weights', () => lab.encoderBlock({ ...enc(), weights: undefined }), /^encoderBlock: weights is missing, expected an object \{ wq, wk, wv, wo, w1, w2, … \}$/],
    ['encoderBlock heads', () => lab.encoderBlock({ ...enc(), heads: 3 }), /^encoderBlock: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads$/],
    ['encoderBlock eps', () => lab.encoderBlock({ ...enc(), eps: -1 }), /^encoderBlock: eps is -1, expected a finite number > 0$/],
    ['encoderBlock mask', () => lab.encoderBlock({ ...enc(), mask: 'future' }), /^encoderBlock: mask is "future", expected 'none', 'causal'/],
    ['decoderBlock missing cross weight', () => lab.decoderBlock({ ...dec(), weights: { ...dec().weights, cwv: undefined } }), /^decoderBlock: weights.cwv is missing, expected a Float32Array of dModel·dModel = 16$/],
    ['decoderBlock memory size', () => lab.decoderBlock({ ...dec(), memory: fill(7, 0) }), /^decoderBlock: memory has 7 values, expected tm·dModel = 8$/],
    ['decoderBlock NaN in memory', () => lab.decoderBlock({ ...dec(), memory: withNaN(8, 6) }), /^decoderBlock: memory\[6\] is NaN, expected finite values$/],
    ['decoderBlock NaN in a cross bias', () => lab.decoderBlock({ ...dec(), weights: { ...dec().weights, cbo: withNaN(4, 3) } }), /^decoderBlock: weights.cbo\[3\] is NaN, expected finite values$/],
    ['decoderBlock missing tm', () => lab.decoderBlock({ ...dec(), tm: undefined }), /^decoderBlock: tm is missing, expected a positive integer$/],
    ['embedding id out of range', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4, ids: [0, 3] }), /^embedding: ids\[1\] is 3, expected an integer in \[0, vocab = 3\)$/],
    ['embedding fractional id', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4, ids: [1.5] }), /^embedding: ids\[0\] is 1.5, expected an integer in \[0, vocab = 3\)$/],
    ['embedding negative id', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4, ids: new Int32Array([-1]) }), /^embedding: ids\[0\] is -1, expected an integer in \[0, vocab = 3\)$/],
    ['embedding NaN table', () => lab.embedding({ table: withNaN(12, 9), vocab: 3, dModel: 4, ids: [0] }), /^embedding: table\[9\] is NaN, expected finite values$/],
    ['embedding missing ids', () => lab.embedding({ table: fill(12, 0), vocab: 3, dModel: 4 }), /^embedding: ids is missing, expected an array of token ids$/],
    ['outputHead temperature 0', () => lab.outputHead({ h: fill(4, 0), rows: 1, table: fill(12, 0), vocab: 3, dModel: 4, temperature: 0 }), /^outputHead: temperature is 0, expected a finite number > 0$/],
    ['outputHead bias size', () => lab.outputHead({ h: fill(4, 0), rows: 1, table: fill(12, 0), vocab: 3, dModel: 4, bias: fill(4, 0) }), /^outputHead: bias has 4 values, expected vocab = 3$/],
    ['outputHead NaN h', () => lab.outputHead({ h: withNaN(4, 1), rows: 1, table: fill(12, 0), vocab: 3, dModel: 4 }), /^outputHead: h\[1\] is NaN, expected finite values$/],
    ['kernelRegression unknown kernel', () => lab.kernelRegression({ xs: [1], ys: [1], queries: [0], kernel: 'epanechnikov' }), /^kernelRegression: kernel is "epanechnikov", expected one of 'gaussian', 'dot'$/],
    ['kernelRegression xs size', () => lab.kernelRegression({ xs: [1, 2], ys: [1], queries: [0] }), /^kernelRegression: xs has 2 values, expected ys.length·dim = 1$/],
    ['kernelRegression bandwidth', () => lab.kernelRegression({ xs: [1], ys: [1], queries: [0], bandwidth: -1 }), /^kernelRegression: bandwidth is -1, expected a finite number > 0$/],
    ['kernelRegression NaN query', () => lab.kernelRegression({ xs: [1], ys: [1], queries: [0, NaN] }), /^kernelRegression: queries\[1\] is NaN, expected finite values$/],
    ['kernelRegression queries not a multiple of dim', () => lab.kernelRegression({ xs: [1, 2], ys: [1], queries: [0, 1, 2], dim: 2 }), /^kernelRegression: queries has 3 values, expected a multiple of dim = 2$/],
  ])('%s', (_n, call, message) => {
    expect(call).toThrow(message);
  });

  test('failing and good block calls leave heap and stack as they were', () => {
    const good = lab.encoderBlock(enc()).output;
    lab.decoderBlock(dec());
    const before = lab.info();
    for (let i = 0; i < 500; i++) {
      expect(() => lab.encoderBlock({ ...enc(), x: withNaN(12, i % 12) })).toThrow();
      expect(() => lab.decoderBlock({ ...dec(), memory: withNaN(8, i % 8) })).toThrow();
      lab.decoderBlock(dec());
    }
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(Array.from(lab.encoderBlock(enc()).output)).toEqual(Array.from(good));
  });
});
