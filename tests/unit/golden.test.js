// The WASM build against PyTorch and the formulas (tests/golden/generate.py, Debian python3-torch): every
// op with a golden file, every case, every intermediate, within TOL.ref (helpers.js).
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { ADAM_NOISE_STEP, TOL, absMatmul, absSum, decoderArgs, encoderArgs, expectClose, expectCloseScaled, expectCloseTensor, golden, maskArg, transpose } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

describe('attention vs PyTorch', () => {
  const { cases } = golden('attention');
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const r = lab.attention({
      q: c.q, k: c.k, v: c.v, tq: c.tq, tk: c.tk, dk: c.dk, dv: c.dv,
      mask: maskArg(c.mask), ...(c.scale !== null ? { scale: c.scale } : {}),
    });
    expectClose(r.scores, c.expected.scores, 'scores');
    expectClose(r.scaled, c.expected.scaled, 'scaled');
    expectClose(r.weights, c.expected.weights, 'weights');
    expectClose(r.output, c.expected.output, 'output');
  });
});

describe('multi-head attention vs torch.nn.MultiheadAttention', () => {
  const { cases } = golden('multihead');
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const args = {
      x: c.x, tq: c.tq, dModel: c.dModel, heads: c.heads, wq: c.wq, wk: c.wk, wv: c.wv, wo: c.wo,
      mask: maskArg(c.mask),
    };
    for (const b of ['bq', 'bk', 'bv', 'bo']) if (c[b]) args[b] = c[b];
    if (c.context) Object.assign(args, { context: c.context, tk: c.tk });
    const r = lab.multiHeadAttention(args);
    for (const key of ['q', 'k', 'v', 'weights', 'heads', 'output']) expectClose(r[key], c.expected[key], key);
  });
});

describe('positional encodings vs the formulas (float64)', () => {
  const g = golden('positional');
  test.each(g.cases.map((c) => [`sinusoidal L${c.length} D${c.dModel} base ${c.base}`, c]))('%s', (_n, c) => {
    expectClose(lab.positionalEncoding({ kind: 'sinusoidal', length: c.length, dModel: c.dModel, base: c.base }), c.expected, 'pe');
  });
  test.each(g.rope.map((c) => [`rope t${c.t} d${c.d}`, c]))('%s', (_n, c) => {
    expectClose(lab.rope({ x: c.x, t: c.t, dim: c.d, base: c.base }), c.expected, 'rope');
  });
  test.each(g.alibi.map((c) => [`alibi heads ${c.heads} t${c.t}`, c]))('%s', (_n, c) => {
    const r = lab.alibi({ heads: c.heads, tq: c.t });
    expectClose(r.slopes, c.slopes, 'slopes');
    expectClose(r.bias, c.bias, 'bias');
  });
});

describe('streaming multi-head attention vs torch.nn.MultiheadAttention', () => {
  const { cases } = golden('multihead');
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const args = {
      x: c.x, tq: c.tq, dModel: c.dModel, heads: c.heads, wq: c.wq, wk: c.wk, wv: c.wv, wo: c.wo,
      mask: maskArg(c.mask), intermediates: false,
    };
    for (const b of ['bq', 'bk', 'bv', 'bo']) if (c[b]) args[b] = c[b];
    if (c.context) Object.assign(args, { context: c.context, tk: c.tk });
    const r = lab.multiHeadAttention(args);
    expect(Object.keys(r)).toEqual(['output']);
    expectClose(r.output, c.expected.output, 'output');
  });
});

const g = golden('blocks');
const opt = (v) => (v === null ? undefined : v);

describe('LayerNorm and RMSNorm vs PyTorch', () => {
  test.each(g.layerNorm.map((c) => [c.name, c]))('layerNorm %s', (_n, c) => {
    const y = lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim, gamma: opt(c.gamma), beta: opt(c.beta), eps: c.eps });
    expectClose(y, c.expected, 'layerNorm');
  });
  test.each(g.rmsNorm.map((c) => [c.name, c]))('rmsNorm %s', (_n, c) => {
    expectClose(lab.rmsNorm({ x: c.x, rows: c.rows, dim: c.dim, gamma: opt(c.gamma), eps: c.eps }), c.expected, 'rmsNorm');
  });
});

describe('activations vs PyTorch', () => {
  test('GELU exact (erf) and tanh approximation, ReLU', () => {
    expectClose(lab.activation({ x: g.gelu.x, kind: 'gelu' }), g.gelu.erf, 'gelu');
    expectClose(lab.activation({ x: g.gelu.x, kind: 'gelu_tanh' }), g.gelu.tanh, 'gelu_tanh');
    expectClose(lab.activation({ x: g.relu.x, kind: 'relu' }), g.relu.expected, 'relu');
  });
});

describe('feed-forward vs PyTorch', () => {
  test("reproduces the FFN inside torch's post-LN encoder layers", () => {
    for (const c of g.encoder.filter((e) => e.norm === 'post')) {
      const w = c.weights;
      const r = lab.feedForward({ x: c.expected.residual1, rows: c.t, dModel: c.dModel, dFF: c.dFF, w1: w.w1, b1: w.b1, w2: w.w2, b2: w.b2, activation: c.activation });
      expectClose(r.activated, c.expected.ffnHidden, `${c.name} activated`);
      expectCloseScaled(r.output, c.expected.ffnOut, absMatmul(c.expected.ffnHidden, w.w2, w.b2, c.t, c.dFF, c.dModel), `${c.name} ffnOut`);
    }
  });
});

describe('encoder layer vs torch.nn.TransformerEncoderLayer', () => {
  test.each(g.encoder.map((c) => [c.name, c]))('%s', (_n, c) => {
    const r = lab.encoderBlock(encoderArgs(c));
    const e = c.expected, w = c.weights, { t, dModel: D, dFF: F } = c;
    expectClose(r.attnWeights, e.attnWeights, 'attnWeights');
    expectCloseScaled(r.attnOut, e.attnOut, absMatmul(Array.from(r.attnHeads), w.wo, w.bo, t, D, D), 'attnOut');
    expectClose(r.ffnActivated, e.ffnHidden, 'ffnActivated');
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
});

describe('decoder layer vs torch.nn.TransformerDecoderLayer', () => {
  test.each(g.decoder.map((c) => [c.name, c]))('%s', (_n, c) => {
    const r = lab.decoderBlock(decoderArgs(c));
    const e = c.expected, w = c.weights, { t, dModel: D, dFF: F } = c;
    expectClose(r.selfWeights, e.selfWeights, 'selfWeights');
    expectClose(r.crossWeights, e.crossWeights, 'crossWeights');
    expectCloseScaled(r.selfAttnOut, e.selfAttnOut, absMatmul(Array.from(r.selfHeads), w.wo, w.bo, t, D, D), 'selfAttnOut');
    expectCloseScaled(r.crossAttnOut, e.crossAttnOut, absMatmul(Array.from(r.crossHeads), w.cwo, w.cbo, t, D, D), 'crossAttnOut');
    expectClose(r.ffnActivated, e.ffnHidden, 'ffnActivated');
    expectCloseScaled(r.ffnOut, e.ffnOut, absMatmul(e.ffnHidden, w.w2, w.b2, t, F, D), 'ffnOut');
    if (c.norm === 'post') expectClose(r.output, e.output, 'output');
    else expectCloseScaled(r.output, e.output, absSum(r.residual2, e.ffnOut), 'output');
    // Cross-attention keys and values come from memory, queries from the decoder stream.
    const cross = lab.multiHeadAttention({ x: c.norm === 'post' ? r.norm1 : r.norm2, tq: t, context: c.memory, tk: c.tm, dModel: D, heads: c.heads,
      wq: w.cwq, wk: w.cwk, wv: w.cwv, wo: w.cwo, bq: w.cbq, bk: w.cbk, bv: w.cbv, bo: w.cbo });
    expect(Array.from(r.crossK)).toEqual(Array.from(cross.k));
    expect(Array.from(r.crossWeights)).toEqual(Array.from(cross.weights));
  });
});

describe('embedding and tied output head vs PyTorch', () => {
  test.each(g.embedding.map((c) => [c.name, c]))('%s', (_n, c) => {
    expect(Array.from(lab.embedding({ table: c.table, vocab: c.vocab, dModel: c.dModel, ids: c.ids }))).toEqual(c.embeddings);
    const r = lab.outputHead({ h: c.h, rows: c.ids.length, table: c.table, vocab: c.vocab, dModel: c.dModel, bias: opt(c.bias), temperature: c.temperature });
    expectCloseScaled(r.logits, c.logits, absMatmul(c.h, transpose(c.table, c.vocab, c.dModel), c.bias, c.ids.length, c.dModel, c.vocab), 'logits');
    expectClose(r.probs, c.probs, 'probs');
  });
});

// ---- The small GPT (gpt.h) vs a torch model written from the header's math (tests/golden/generate_gpt.py,
// float64): the parameters go in through setParameters, the numbers come out of forward,
// computeGradients/gradients and trainStep — the JS API end to end. Per tensor (TOL.model, TOL.trainSteps).
describe('GPT model vs torch (gpt.json)', () => {
  const gg = golden('gpt');
  const make = (c) => {
    const k = c.config;
    const m = lab.createModel({ vocab: k.vocab, context: k.context, layers: k.layers, heads: k.heads, dModel: k.dModel,
      dFF: k.dFf || undefined, attentionOnly: k.attentionOnly, layerNorm: k.layerNorm, activation: k.activation });
    m.setParameters(Object.fromEntries(c.params.map((p) => [p.name, { shape: p.shape, data: p.values }])));
    return m;
  };
  test.each(gg.configs.map((c) => [c.name, c]))('%s: forward and gradients', (_n, c) => {
    const m = make(c);
    try {
      const { batch: B, t } = c, H = c.config.heads, e = c.expected;
      expect(Object.keys(m.parameters())).toEqual(c.params.map((p) => p.name));
      const r = m.forward({ ids: c.ids, targets: c.targets, batch: B });
      expectCloseTensor([r.loss], [e.loss], 'loss', TOL.model);
      expectCloseTensor(r.tokenLosses, e.tokenLosses, 'tokenLosses', TOL.model);
      expectCloseTensor(r.logits, e.logits, 'logits', TOL.model);
      // The golden's attention[l] is [batch, heads, t, t]; the API's attention[l][h] is head h's [batch·t·t].
      for (let l = 0; l < c.config.layers; l++)
        for (let h = 0; h < H; h++) {
          const want = [];
          for (let b = 0; b < B; b++) want.push(...e.attention[l].slice((b * H + h) * t * t, (b * H + h + 1) * t * t));
          expectCloseTensor(r.attention[l][h], want, `attention[${l}][${h}]`, TOL.model);
        }
      const { loss } = m.computeGradients({ ids: c.ids, targets: c.targets, batch: B });
      expect(loss).toBe(r.loss);
      // A gradient that is exactly 0 in float64 (b_K) is float32 rounding noise: measured against the
      // scale of the whole gradient instead of its own.
      let scale = 0;
      for (const g of Object.values(e.grads)) for (const x of g) scale = Math.max(scale, Math.abs(x));
      const grads = m.gradients();
      expect(Object.keys(grads)).toEqual(Object.keys(e.grads));
      for (const [name, { data }] of Object.entries(grads))
        expectCloseTensor(data, e.grads[name], `grad ${name}`, TOL.model, c.roundingNoiseGrads.includes(name) ? scale : 0);
    } finally {
      m.dispose();
    }
  });

  test('three AdamW steps (clip, weight decay on rank-2 tensors) as torch.optim.AdamW in float32', () => {
    const a = gg.adamw, c = gg.configs.find((x) => x.name === a.config);
    const m = make(c);
    try {
      expect(Object.entries(m.parameters()).filter(([, p]) => p.shape.length === 2).map(([n]) => n)).toEqual(a.decayed);
      let before = m.parameters();
      a.steps.forEach((s, i) => {
        const r = m.trainStep({ ids: s.ids, targets: s.targets, batch: c.batch, lr: a.lr, beta1: a.beta1, beta2: a.beta2,
          eps: a.eps, weightDecay: a.weightDecay, maxGradNorm: a.maxGradNorm });
        expect(r.step).toBe(i + 1);
        expectCloseTensor([r.loss], [s.loss], `step ${i + 1} loss`, TOL.model);
        expectCloseTensor([r.gradNorm], [s.gradNorm], `step ${i + 1} gradNorm`, TOL.model);
        const now = m.parameters();
        for (const [name, { data }] of Object.entries(now)) {
          if (c.roundingNoiseGrads.includes(name)) {
            // Only the bound on Adam's step holds for a noise gradient (ADAM_NOISE_STEP).
            const moved = Math.max(...data.map((x, j) => Math.abs(x - before[name].data[j])));
            expect(moved, `step ${i + 1} ${name} moved`).toBeLessThanOrEqual(ADAM_NOISE_STEP * a.lr);
          } else expectCloseTensor(data, s.params[name], `step ${i + 1} ${name}`, TOL.trainSteps);
        }
        before = now;
      });
      expect(m.step).toBe(a.steps.length);
    } finally {
      m.dispose();
    }
  });
});

// Golden calls replayed as they are (tests/golden/generate_calls.py → calls.json): lab[op](args), every
// key of expected compared. A new op's PyTorch reference is a case there; no code here.
describe('golden calls vs PyTorch (calls.json)', () => {
  const { cases } = golden('calls');
  test('the file has cases for every op it names', () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) expect(typeof lab[c.op], c.name).toBe('function');
  });
  test.each(cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const r = lab[c.op](c.args);
    for (const [key, want] of Object.entries(c.expected)) expectClose(r[key], want, key);
  });
});
