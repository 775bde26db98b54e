// The small GPT through the JS API (web/api/model.js → core/src/model/gpt.cc, safetensors.cc): shapes
// for the four variants, causality, training, sampling, checkpoints, parameters by name, disposal and
// memory; bad input to every Model method (they are methods of a Model, not of AttnLab, so the
// generated tables of bad-input.test.js and memory.test.js, which call lab[fn](args), do not reach
// them: they are covered here, with the same checks). Numbers against PyTorch: golden.test.js.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AttnLabError, Model, createAttnLab } from 'attnlab';
import { mulberry32 } from '../../web/widgets/shared/rng.js';
import { TOL, expectClose } from './helpers.js';
import { tinyCheckpoint } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const ints = (n, f) => Int32Array.from({ length: n }, (_, i) => f(i));
const same = (a, b) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
// All parameters as one array of bits (bit-identical comparisons; NaN-safe).
const bits = (m) => Object.values(m.parameters()).flatMap((p) => Array.from(new Uint32Array(p.data.buffer, p.data.byteOffset, p.data.length)));
function withModel(args, f) {
  const m = lab.createModel(args);
  try { return f(m); } finally { m.dispose(); }
}

// The four variants of gpt.h: MLP + LN, attention-only + LN, attention-only without LN, MLP without LN.
const VARIANTS = [
  ['MLP + LayerNorm, gelu', { vocab: 11, context: 9, layers: 2, heads: 2, dModel: 12 }],
  ['attention-only + LayerNorm', { vocab: 11, context: 9, layers: 2, heads: 2, dModel: 8, attentionOnly: true }],
  ['attention-only, no LayerNorm', { vocab: 16, context: 23, layers: 2, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false }],
  ['MLP, no LayerNorm, relu, dFF 20', { vocab: 7, context: 6, layers: 3, heads: 4, dModel: 8, dFF: 20, layerNorm: false, activation: 'relu' }],
];

// gpt.h's tensor list, written out from the header (names, shapes, order).
function expectedTensors(c) {
  const D = c.dModel, F = c.dFF ?? 4 * D, ln = c.layerNorm !== false, mlp = !c.attentionOnly;
  const t = [['embed.W_E', [c.vocab, D]], ['pos_embed.W_pos', [c.context, D]]];
  for (let l = 0; l < c.layers; l++) {
    const b = `blocks.${l}`;
    if (ln) t.push([`${b}.ln1.w`, [D]], [`${b}.ln1.b`, [D]]);
    for (const w of ['W_Q', 'W_K', 'W_V', 'W_O']) t.push([`${b}.attn.${w}`, [D, D]]);
    for (const w of ['b_Q', 'b_K', 'b_V', 'b_O']) t.push([`${b}.attn.${w}`, [D]]);
    if (mlp) {
      if (ln) t.push([`${b}.ln2.w`, [D]], [`${b}.ln2.b`, [D]]);
      t.push([`${b}.mlp.W_in`, [D, F]], [`${b}.mlp.b_in`, [F]], [`${b}.mlp.W_out`, [F, D]], [`${b}.mlp.b_out`, [D]]);
    }
  }
  if (ln) t.push(['ln_final.w', [D]], ['ln_final.b', [D]]);
  t.push(['unembed.b_U', [c.vocab]]);
  return t;
}

// First in this file: the module's memory is still at its initial size, so these calls grow it.
describe('memory growth inside a model call', () => {
  test('a trainStep and a forward that grow WebAssembly memory return their results through fresh views', () => {
    const cfg = { vocab: 64, context: 64, layers: 2, heads: 4, dModel: 64, seed: 3 };
    const a = lab.createModel(cfg), b = lab.createModel(cfg);
    try {
      const B = 48, ids = ints(B * 64, (i) => (i * 13) % 64), targets = ints(B * 64, (i) => (i * 5 + 1) % 64);
      const before = lab.info().heapBytes;
      const r = a.trainStep({ ids, targets, batch: B });  // the activations for batch 48 do not fit yet
      const grown = lab.info().heapBytes;
      console.log(`[model] heap ${before} → ${grown} bytes during trainStep (batch ${B}, t 64)`);
      expect(grown).toBeGreaterThan(before);
      const f = b.forward({ ids, targets, batch: B });  // the same model before its step: the same loss
      expect(r.loss).toBe(f.loss);
      expect(Number.isFinite(r.gradNorm) && r.gradNorm > 0).toBe(true);
      expect(r.step).toBe(1);
      expect(f.logits.length).toBe(B * 64 * 64);
      expect(f.tokenLosses.every((x) => Number.isFinite(x) && x > 0)).toBe(true);
    } finally { a.dispose(); b.dispose(); }
  });
});

describe('create and forward: the four variants', () => {
  test.each(VARIANTS)('%s', (_name, cfg) => withModel(cfg, (m) => {
    const D = cfg.dModel, want = expectedTensors(cfg);
    expect(m).toBeInstanceOf(Model);
    expect(m.config).toEqual({ dFF: 4 * D, attentionOnly: false, layerNorm: true, activation: 'gelu', initStd: 0.02, seed: 0, ...cfg, ...(cfg.attentionOnly ? { dFF: m.config.dFF } : {}) });
    expect(Object.isFrozen(m.config)).toBe(true);
    expect(m.numParams).toBe(want.reduce((n, [, s]) => n + s.reduce((a, b) => a * b, 1), 0));
    expect(m.step).toBe(0);
    const p = m.parameters();
    expect(Object.entries(p).map(([n, { shape }]) => [n, shape])).toEqual(want);
    // Init (gpt.h): biases 0, LN gains 1, weights small and not all equal.
    for (const [name, { data }] of Object.entries(p)) {
      if (/\.b(_\w+)?$|\.b$/.test(name) || name === 'unembed.b_U') expect(data.every((x) => x === 0), name).toBe(true);
      else if (name.endsWith('.w')) expect(data.every((x) => x === 1), name).toBe(true);
      else expect(new Set(data).size > data.length / 2 && data.every((x) => Math.abs(x) < 0.2), name).toBe(true);
    }
    const B = 2, t = cfg.context - 1, V = cfg.vocab, n = B * t;
    const ids = ints(n, (i) => (i * 5 + 1) % V), targets = ints(n, (i) => (i * 3 + 2) % V);
    const r = m.forward({ ids, targets, batch: B });
    expect([r.batch, r.t]).toEqual([B, t]);
    expect(r.logits).toBeInstanceOf(Float32Array);
    expect(r.logits.length).toBe(n * V);
    expect(r.attention.length).toBe(cfg.layers);
    for (const layer of r.attention) {
      expect(layer.length).toBe(cfg.heads);
      for (const head of layer) expect(head.length).toBe(B * t * t);
    }
    expect(r.tokenLosses.length).toBe(n);
    expect(r.logits.every(Number.isFinite) && r.tokenLosses.every((x) => x > 0)).toBe(true);
    // loss = mean of the token losses; each token loss = −log softmax(logits)[target].
    expectClose(r.loss, r.tokenLosses.reduce((a, b) => a + b, 0) / n, 'loss', TOL.ulps);
    const logSoftmax = (row, k) => { const mx = Math.max(...row); return row[k] - mx - Math.log(row.reduce((s, x) => s + Math.exp(x - mx), 0)); };
    expectClose(Array.from(r.tokenLosses), Array.from(targets, (k, i) => -logSoftmax(Array.from(r.logits.subarray(i * V, (i + 1) * V)), k)), 'tokenLosses', TOL.ref);
    // Without targets: no loss; attention: false leaves it out; the logits are the same numbers.
    const r2 = m.forward({ ids, batch: B, attention: false });
    expect(r2.loss).toBeUndefined();
    expect(r2.attention).toBeUndefined();
    expect(same(r2.logits, r.logits)).toBe(true);
    // Each batch row is computed on its own: row 1 alone gives the same logits.
    const r3 = m.forward({ ids: ids.slice(t), attention: false });
    expect(same(r3.logits, r.logits.subarray(t * V))).toBe(true);
  }));

  test('number[] and Int32Array ids give the same numbers; the same seed gives the same model', () => {
    const cfg = VARIANTS[0][1];
    const a = lab.createModel({ ...cfg, seed: 7 }), b = lab.createModel({ ...cfg, seed: 7 }), c = lab.createModel({ ...cfg, seed: 8 });
    try {
      expect(same(a.save(), b.save())).toBe(true);
      expect(same(a.save(), c.save())).toBe(false);
      const ids = [1, 2, 3, 4];
      expect(same(a.forward({ ids }).logits, a.forward({ ids: Int32Array.from(ids) }).logits)).toBe(true);
      expect(a.config.seed).toBe(7);
      expect(lab.createModel({ ...cfg, seed: 2 ** 32 - 1 }).config.seed).toBe(2 ** 32 - 1);
    } finally { a.dispose(); b.dispose(); c.dispose(); }
  });
});

describe('initStd', () => {
  // σ of the W_* init (gpt.h): the sample standard deviation of W_Q's 32·32 = 1024 draws is within
  // a few standard errors (σ/√(2·1024) ≈ 2.2 % of σ) of the σ asked for; biases stay 0.
  test('scales the W_* init; biases stay 0; a checkpoint records it; bad values are refused', () => {
    for (const initStd of [0.02, 0.25]) withModel({ vocab: 16, context: 23, layers: 2, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false, initStd, seed: 3 }, (m) => {
      const p = m.parameters();
      const w = p['blocks.0.attn.W_Q'].data;
      const sd = Math.sqrt(w.reduce((a, x) => a + x * x, 0) / w.length);
      expect(Math.abs(sd / initStd - 1)).toBeLessThan(0.1);
      expect(p['blocks.0.attn.b_Q'].data.every((x) => x === 0)).toBe(true);
      expect(m.config.initStd).toBe(initStd);
      const again = lab.loadModel(m.save());
      try { expect(Math.fround(again.config.initStd)).toBe(Math.fround(initStd)); } finally { again.dispose(); }
    });
    for (const [v, msg] of [[0, 'createModel: initStd is 0, expected a finite number > 0'],
      [NaN, 'createModel: initStd is NaN, expected a finite number > 0'],
      [11, 'createModel: initStd is 11, expected a finite number in (0, 10]']])
      expect(() => lab.createModel({ vocab: 4, context: 4, layers: 1, heads: 1, dModel: 4, initStd: v })).toThrow(msg);
  });
});

describe('causal attention', () => {
  test.each(VARIANTS)('%s: the upper triangle is 0, rows sum to 1', (_name, cfg) => withModel({ ...cfg, seed: 3 }, (m) => {
    const B = 2, t = cfg.context;
    const { attention } = m.forward({ ids: ints(B * t, (i) => (i * 7) % cfg.vocab), batch: B });
    for (const layer of attention)
      for (const head of layer)
        for (let b = 0; b < B; b++)
          for (let i = 0; i < t; i++) {
            const row = head.subarray((b * t + i) * t, (b * t + i + 1) * t);
            for (let j = i + 1; j < t; j++) expect(row[j]).toBe(0);
            expectClose(row.reduce((s, x) => s + x, 0), 1, `row ${i}`, TOL.reorder);
          }
    // Changing a later token changes nothing before it.
    const ids = ints(t, (i) => i % cfg.vocab), later = ids.slice();
    later[t - 1] = (later[t - 1] + 1) % cfg.vocab;
    const V = cfg.vocab, x = m.forward({ ids, attention: false }).logits, y = m.forward({ ids: later, attention: false }).logits;
    expect(same(x.subarray(0, (t - 1) * V), y.subarray(0, (t - 1) * V))).toBe(true);
    expect(same(x.subarray((t - 1) * V), y.subarray((t - 1) * V))).toBe(false);
  }));
});

describe('training', () => {
  test('a tiny model overfits a fixed batch (loss < 0.05)', () => withModel({ vocab: 8, context: 8, layers: 2, heads: 2, dModel: 16, seed: 1 }, (m) => {
    const ids = ints(16, (i) => (i * 5 + (i >> 3)) % 8), targets = ints(16, (i) => (i * 3 + 1) % 8);
    const first = m.trainStep({ ids, targets, batch: 2, lr: 1e-2 });
    let r = first;
    for (let i = 0; i < 400 && r.loss >= 0.05; i++) r = m.trainStep({ ids, targets, batch: 2, lr: 1e-2 });
    console.log(`[model] overfit: loss ${first.loss.toFixed(3)} → ${r.loss.toFixed(4)} in ${r.step} steps`);
    expect(first.loss).toBeGreaterThan(1.5);
    expect(r.loss).toBeLessThan(0.05);
    expect(m.step).toBe(r.step);
    const f = m.forward({ ids, targets, batch: 2 });
    expect(f.loss).toBeLessThan(0.05);
  }));

  test('trainStep = computeGradients + AdamW: its gradients are those of computeGradients; gradNorm is their norm', () => withModel({ ...VARIANTS[1][1], seed: 4 }, (m) => {
    const ids = ints(9, (i) => i % 11), targets = ints(9, (i) => (i + 1) % 11);
    const { loss } = m.computeGradients({ ids, targets });
    const g = m.gradients();
    expect(Object.keys(g)).toEqual(Object.keys(m.parameters()));
    const norm = Math.sqrt(Object.values(g).reduce((s, { data }) => s + data.reduce((a, x) => a + x * x, 0), 0));
    expect(m.step).toBe(0);
    const r = m.trainStep({ ids, targets });
    expect(r.loss).toBe(loss);
    expectClose(r.gradNorm, norm, 'gradNorm', TOL.ulps);
    expect(r.step).toBe(1);
    const g2 = m.gradients();
    for (const name of Object.keys(g)) expect(same(g2[name].data, g[name].data), name).toBe(true);
  }));

  // Parameters (finite) that make the step overflow float32: embeddings of 1e19 without LayerNorm
  // (the tied logits x·W_Eᵀ ~ 1e38·dModel), and output biases ±3e38 with every target on the −3e38
  // token (the loss lse − logit ≈ 6e38). The step is refused whatever notices first; nothing changes.
  test.each([
    ['embeddings of 1e19, no LayerNorm', (p) => ({ 'embed.W_E': p['embed.W_E'].data.map((_, i) => (i % 2 ? 1e19 : -1e19)) }), [2, 3, 4, 5, 0]],
    ['output bias ±3e38, loss beyond float32', (p) => ({ 'unembed.b_U': p['unembed.b_U'].data.map((_, i) => (i === 1 ? -3e38 : 3e38)) }), [1, 1, 1, 1, 1]],
  ])('a trainStep that goes non-finite throws and changes nothing (parameters, moments, step): %s', (_name, patch, targets) => withModel({ vocab: 6, context: 5, layers: 2, heads: 2, dModel: 8, layerNorm: false, seed: 5 }, (m) => {
    const ids = [1, 2, 3, 4, 5];
    for (let i = 0; i < 3; i++) m.trainStep({ ids, targets: [2, 3, 4, 5, 0], lr: 1e-2 });
    m.setParameters(patch(m.parameters()));
    const before = { bits: bits(m), bytes: m.save({ optimizer: true }), step: m.step };
    expect(before.step).toBe(3);
    for (let i = 0; i < 2; i++) {
      let err;
      try { m.trainStep({ ids, targets, lr: 1e-2 }); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(AttnLabError);
      expect(err.message).toMatch(/^trainStep: /);
      if (i === 0) console.log(`[model] refused step: ${err.message}`);
      expect(bits(m)).toEqual(before.bits);
      expect(m.step).toBe(3);
      expect(same(m.save({ optimizer: true }), before.bytes)).toBe(true);  // moments and steps_taken too
    }
  }));

  test('heap flat: 10,000 trainSteps leave heapInUse unchanged after the first few', () => withModel({ vocab: 16, context: 23, layers: 2, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false }, (m) => {
    const ids = ints(23, (i) => (i * 7) % 16), targets = ints(23, (i) => (i * 7 + 1) % 16);
    for (let i = 0; i < 5; i++) m.trainStep({ ids, targets });
    const before = lab.info();
    let r;
    for (let i = 0; i < 10000; i++) r = m.trainStep({ ids, targets });
    const after = lab.info();
    console.log(`[model] heapInUse after 5 steps ${before.heapInUse}, after 10,005 ${after.heapInUse}; heap ${before.heapBytes} → ${after.heapBytes} bytes; loss ${r.loss.toExponential(2)}`);
    expect(r.step).toBe(10005);
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(after.stackPointer).toBe(before.stackPointer);
  }));
});

describe('generate', () => {
  const cfg = { vocab: 9, context: 6, layers: 2, heads: 2, dModel: 16, seed: 11 };
  // The next token from the last min(length, context) tokens (gpt.h: past the context the window slides).
  const argmaxNext = (m, seq) => {
    const win = seq.slice(-m.config.context), V = m.config.vocab;
    const logits = m.forward({ ids: win, attention: false }).logits.subarray((win.length - 1) * V);
    let best = 0;
    for (let k = 1; k < V; k++) if (logits[k] > logits[best]) best = k;
    return best;
  };

  test('greedy (temperature 0) is the argmax of repeated forwards, also past the context', () => withModel(cfg, (m) => {
    // Train a little so the argmax is not a near tie everywhere.
    const ids = [1, 2, 3, 4, 5, 6], targets = [2, 3, 4, 5, 6, 7];
    for (let i = 0; i < 30; i++) m.trainStep({ ids, targets, lr: 1e-2 });
    for (const prompt of [[3], [1, 2, 3], [0, 8, 1, 2, 3, 4]]) {
      const out = m.generate({ prompt, steps: 12, temperature: 0 });
      expect(out).toBeInstanceOf(Int32Array);
      expect(out.length).toBe(12);
      const seq = [...prompt], want = [];
      for (let i = 0; i < 12; i++) { const k = argmaxNext(m, seq); want.push(k); seq.push(k); }
      expect(Array.from(out)).toEqual(want);
    }
  }));

  test('sampling: the same seed gives the same tokens, tokens are in range, topK 1 is greedy', () => withModel(cfg, (m) => {
    const a = m.generate({ prompt: [1, 2], steps: 40, seed: 5 });
    expect(Array.from(m.generate({ prompt: [1, 2], steps: 40, seed: 5 }))).toEqual(Array.from(a));
    const others = [6, 7, 8].map((seed) => Array.from(m.generate({ prompt: [1, 2], steps: 40, seed })).join());
    expect(others.some((o) => o !== Array.from(a).join())).toBe(true);
    expect(a.every((k) => k >= 0 && k < cfg.vocab)).toBe(true);
    expect(Array.from(m.generate({ prompt: [4], steps: 10, topK: 1, temperature: 2, seed: 9 })))
      .toEqual(Array.from(m.generate({ prompt: [4], steps: 10, temperature: 0 })));
    expect(m.generate({ prompt: [4], steps: 0 }).length).toBe(0);
  }));

  test('setHeadMask: all ones is no mask; an ablated head changes forward and generate; null restores', () => withModel({ ...cfg, attentionOnly: true }, (m) => {
    const ids = [1, 2, 3, 4, 5];
    const base = m.forward({ ids }).logits;
    m.setHeadMask([1, 1, 1, 1]);
    expect(same(m.forward({ ids }).logits, base)).toBe(true);
    m.setHeadMask(new Float32Array([1, 0, 1, 1]));
    const ablated = m.forward({ ids });
    expect(same(ablated.logits, base)).toBe(false);
    // Gradients need the whole model: refused while a head is ablated; trainStep ignores the mask.
    expect(() => m.computeGradients({ ids, targets: ids })).toThrow(/^computeGradients: .*ablated/);
    m.setHeadMask(null);
    expect(same(m.forward({ ids }).logits, base)).toBe(true);
  }));
});

describe('save and load (safetensors)', () => {
  test.each(VARIANTS)('%s: bit-identical parameters and bytes; save(load(save(m))) = save(m)', (_name, cfg) => withModel({ ...cfg, seed: 2 }, (m) => {
    const ids = ints(cfg.context, (i) => (i * 3) % cfg.vocab);
    for (let i = 0; i < 3; i++) m.trainStep({ ids, targets: ids, lr: 1e-2 });
    for (const optimizer of [false, true]) {
      const bytes = m.save({ optimizer });
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(same(m.save({ optimizer }), bytes)).toBe(true);
      const n = lab.loadModel(bytes);
      try {
        expect(n.config).toEqual(Object.fromEntries(Object.entries(m.config).filter(([k]) => k !== 'seed')));
        expect(bits(n)).toEqual(bits(m));
        expect(same(n.save({ optimizer }), bytes)).toBe(true);
        expect(n.step).toBe(optimizer ? 3 : 0);
        expect(same(n.forward({ ids }).logits, m.forward({ ids }).logits)).toBe(true);
        // With the optimizer state, training goes on exactly as the original's.
        if (optimizer) {
          const x = lab.loadModel(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));  // an ArrayBuffer
          const r1 = x.trainStep({ ids, targets: ids, lr: 1e-2 }), r2 = n.trainStep({ ids, targets: ids, lr: 1e-2 });
          expect(r1).toEqual(r2);
          expect(r1.step).toBe(4);
          x.dispose();
        }
      } finally { n.dispose(); }
    }
  }));

  test('a file written by hand from the format description loads, with its values', () => {
    const m = lab.loadModel(tinyCheckpoint());
    try {
      expect(m.config).toEqual({ vocab: 3, context: 2, layers: 1, heads: 1, dModel: 2, dFF: 8, attentionOnly: true, layerNorm: false, activation: 'gelu', initStd: 0.02 });
      const flat = Object.values(m.parameters()).flatMap((p) => Array.from(p.data));
      expect(flat).toEqual(flat.map((_, i) => Math.fround(Math.sin(i + 1) / 4)));
    } finally { m.dispose(); }
  });

  test('loadModel refuses truncated bytes, random bytes, other safetensors files, with messages; heap as it was', () => {
    const good = tinyCheckpoint(), rand = mulberry32(17);
    const cases = [
      [good.subarray(0, 5), /^loadModel: bytes are 5 bytes long, expected at least 8/],
      [good.subarray(0, 60), /^loadModel: bytes header length is \d+, past the end of the 60 bytes, expected at most 52 \(is the file truncated\?\)$/],
      [good.subarray(0, good.length - 4), /^loadModel: bytes hold \d+ bytes of tensor data, expected at least 4·num_params = 148/],
      [Uint8Array.from({ length: 400 }, () => Math.floor(rand() * 256)), /^loadModel: bytes header length is \d+, past the end of the 400 bytes/],
      [(() => { const b = Uint8Array.from({ length: 64 }, () => Math.floor(rand() * 256)); b.set([40, 0, 0, 0, 0, 0, 0, 0]); return b; })(), /^loadModel: bytes header (starts with .*, expected '\{'|is not valid (JSON|UTF-8))/],
      // A Hugging Face file (format "pt"), and one with no __metadata__ at all.
      [tinyCheckpoint({ metadata: { format: 'pt' } }), /^loadModel: bytes have __metadata__ format "pt" \(a Hugging Face checkpoint.*expected format "attnlab-gpt"$/],
      [tinyCheckpoint({ metadata: { format: undefined } }), /^loadModel: bytes have no format in __metadata__, so they are not an attnlab GPT checkpoint/],
      [tinyCheckpoint({ metadata: { heads: '3' } }), /^loadModel: heads = 3 does not divide dModel = 2/],
      [tinyCheckpoint({ value: (i) => (i === 4 ? NaN : 0) }), /^loadModel: bytes tensor "embed.W_E"\[4\] is NaN, expected finite values/],
      [new Uint8Array(0), /^loadModel: bytes are 0 bytes long/],
    ];
    const before = lab.info();
    for (const [bytes, re] of cases) {
      let err;
      try { lab.loadModel(bytes); } catch (e) { err = e; }
      expect(err, String(re)).toBeInstanceOf(AttnLabError);
      expect(err.message).toMatch(re);
      expect(lab.info().heapInUse).toBe(before.heapInUse);
    }
    for (const [v, got] of [[42, '42'], [true, 'a boolean'], [null, 'null'], [undefined, 'missing'], [[1, 2], 'an array of 2'], [{ bytes: good }, 'a object']])
      expect(() => lab.loadModel(v)).toThrow(`loadModel: bytes is ${got}, expected a Uint8Array or ArrayBuffer of a safetensors file (from model.save())`);
    expect(lab.info().stackPointer).toBe(before.stackPointer);
  });

  // tests/golden/read_safetensors.py: a reader written from the format's description with Python's
  // standard library only (no attnlab code). It prints {metadata, tensors: {name: {shape, sum, first}}}
  // and, given an EXPECTED.json of the same shape, compares (shape and first 8 values exactly, sum to
  // the rounding of a float64 sum) and exits 1 on a difference.
  const reader = new URL('../golden/read_safetensors.py', import.meta.url).pathname;
  // python3 is installed by scripts/ensure-deps.sh: its absence is a failure, not a skip.
  test('a file written by save() is read by tests/golden/read_safetensors.py', () => withModel({ ...VARIANTS[0][1], seed: 9 }, (m) => {
    expect(spawnSync('python3', ['--version']).status, 'python3 runs (scripts/ensure-deps.sh installs it)').toBe(0);
    m.trainStep({ ids: [1, 2, 3], targets: [2, 3, 4] });
    const dir = mkdtempSync(join(tmpdir(), 'attnlab-model-'));
    try {
      const file = join(dir, 'model.safetensors'), withOpt = join(dir, 'optimizer.safetensors'), want = join(dir, 'expected.json');
      writeFileSync(file, m.save());
      writeFileSync(withOpt, m.save({ optimizer: true }));
      const c = m.config, tensors = {};
      for (const [name, { shape, data }] of Object.entries(m.parameters()))
        tensors[name] = { shape, first: Array.from(data.subarray(0, 8)), sum: data.reduce((a, x) => a + x, 0) };
      writeFileSync(want, JSON.stringify({
        metadata: { format: 'attnlab-gpt', version: '1', vocab: String(c.vocab), context: String(c.context), layers: String(c.layers),
          heads: String(c.heads), d_model: String(c.dModel), d_ff: String(c.dFF), attention_only: 'false', layer_norm: 'true', activation: 'gelu' },
        tensors,
      }));
      const r = spawnSync('python3', [reader, file, want], { encoding: 'utf8' });
      expect(r.stderr).not.toMatch(/read_safetensors: (?!also read)/);
      expect(r.status).toBe(0);
      expect(Object.keys(JSON.parse(r.stdout).tensors)).toEqual(Object.keys(tensors));
      // With the optimizer: every parameter, then Adam's m and v of each, and steps_taken.
      const o = spawnSync('python3', [reader, withOpt], { encoding: 'utf8' });
      expect(o.status, o.stderr).toBe(0);
      const read = JSON.parse(o.stdout);
      const names = Object.keys(tensors);
      expect(Object.keys(read.tensors).sort()).toEqual([...names, ...names.map((n) => `optimizer.m.${n}`), ...names.map((n) => `optimizer.v.${n}`)].sort());
      expect(read.metadata.steps_taken).toBe('1');
      for (const n of names) expect(read.tensors[`optimizer.v.${n}`].shape, n).toEqual(tensors[n].shape);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  }));
});

describe('parameters and setParameters', () => {
  test('round trip: setParameters(parameters()) of another model makes it the same model', () => {
    const cfg = VARIANTS[0][1];
    const a = lab.createModel({ ...cfg, seed: 1 }), b = lab.createModel({ ...cfg, seed: 2 });
    try {
      const pa = a.parameters();
      pa['embed.W_E'].data[0] = 123;  // a copy: the model does not change
      expect(a.parameters()['embed.W_E'].data[0]).not.toBe(123);
      b.setParameters(a.parameters());
      expect(same(b.save(), a.save())).toBe(true);
      // A subset, as flat Float32Arrays or number[]; the rest stays.
      const q = Float32Array.from({ length: 144 }, (_, i) => i / 1000);
      b.setParameters({ 'blocks.1.attn.W_Q': q, 'unembed.b_U': Array.from({ length: 11 }, (_, i) => -i) });
      const pb = b.parameters();
      expect(same(pb['blocks.1.attn.W_Q'].data, q)).toBe(true);
      expect(Array.from(pb['unembed.b_U'].data)).toEqual(Array.from({ length: 11 }, (_, i) => -i));
      expect(same(pb['blocks.0.attn.W_Q'].data, a.parameters()['blocks.0.attn.W_Q'].data)).toBe(true);
      b.setParameters({ 'blocks.1.attn.W_Q': undefined });  // undefined: absent
    } finally { a.dispose(); b.dispose(); }
  });

  test('refusals name the tensor; nothing is written unless everything is valid', () => withModel({ ...VARIANTS[1][1] }, (m) => {
    const before = bits(m), good = new Float32Array(64);
    const cases = [
      [{ 'blocks.0.attn.W_q': good }, /^setParameters: unknown parameter 'blocks.0.attn.W_q', expected some of: embed.W_E, pos_embed.W_pos, blocks.0.ln1.w, .*, …$/],
      [{ 'blocks.0.attn.W_Q': new Float32Array(63) }, /^setParameters: blocks.0.attn.W_Q has 63 values, expected shape \[8, 8\] = 64$/],
      [{ 'blocks.0.attn.W_Q': undefined, 'blocks.0.attn.b_Q': new Float32Array(7) }, /^setParameters: blocks.0.attn.b_Q has 7 values, expected shape \[8\] = 8$/],
      [{ 'blocks.0.attn.W_Q': good, 'embed.W_E': Float32Array.from({ length: 88 }, (_, i) => (i === 5 ? NaN : 0)) }, /^setParameters: embed.W_E\[5\] is NaN, expected finite values$/],
      [{ 'embed.W_E': Array.from({ length: 88 }, (_, i) => (i === 2 ? 1e39 : 0)) }, /^setParameters: embed.W_E\[2\] is 1e\+39, expected finite values within float32 range/],
      [{ 'embed.W_E': Array.from({ length: 88 }, (_, i) => (i === 2 ? -Infinity : 0)) }, /^setParameters: embed.W_E\[2\] is -Infinity, expected finite values$/],
      [{ 'blocks.0.attn.W_Q': { shape: [4, 16], data: good } }, /^setParameters: blocks.0.attn.W_Q.shape is \[4, 16\], expected \[8, 8\]$/],
      [{ 'blocks.0.attn.W_Q': { shape: [8, 8], values: good } }, /^setParameters: blocks.0.attn.W_Q has unknown key 'values', expected a Float32Array or \{ shape, data \}$/],
      [{ 'blocks.0.attn.W_Q': 'abc' }, /^setParameters: blocks.0.attn.W_Q is "abc", expected a Float32Array of shape \[8, 8\] = 64$/],
      [{ 'blocks.0.attn.W_Q': new BigInt64Array(64) }, /^setParameters: blocks.0.attn.W_Q is a BigInt64Array of 64, expected a Float32Array/],
      [{ 'blocks.0.attn.W_Q': null }, /^setParameters: blocks.0.attn.W_Q is missing, expected a Float32Array of shape \[8, 8\] = 64$/],
      [[good], /^setParameters: expected one options object/],
      [42, /^setParameters: expected one options object/],
    ];
    const info = lab.info();
    for (const [arg, re] of cases) {
      expect(() => m.setParameters(arg)).toThrow(re);
      expect(bits(m)).toEqual(before);
    }
    expect(lab.info().heapInUse).toBe(info.heapInUse);
  }));
});

describe('dispose', () => {
  test('a disposed model refuses every call with a clear message; dispose twice is fine', () => {
    const m = lab.createModel({ vocab: 5, context: 4, layers: 1, heads: 2, dModel: 4 });
    m.dispose();
    m.dispose();
    const calls = {
      forward: () => m.forward({ ids: [1] }), trainStep: () => m.trainStep({ ids: [1], targets: [2] }),
      computeGradients: () => m.computeGradients({ ids: [1], targets: [2] }), generate: () => m.generate({ prompt: [1], steps: 1 }),
      parameters: () => m.parameters(), gradients: () => m.gradients(), setParameters: () => m.setParameters({}),
      setHeadMask: () => m.setHeadMask(null), save: () => m.save(), step: () => m.step,
    };
    for (const [name, call] of Object.entries(calls))
      expect(call).toThrow(new AttnLabError(`model: this model was disposed, expected a model that is still alive (${name} was called after dispose())`));
    expect(m.config.vocab).toBe(5);  // the description stays
  });

  test('create + dispose keeps memory flat; a deleted handle is refused by Embind before any C++ runs', () => {
    const cfg = { vocab: 16, context: 23, layers: 2, heads: 2, dModel: 32 };
    withModel(cfg, (m) => m.trainStep({ ids: [1, 2], targets: [2, 3] }));  // first-use allocations
    const before = lab.info();
    for (let i = 0; i < 300; i++) withModel(cfg, (m) => { m.trainStep({ ids: [1, 2], targets: [2, 3] }); m.generate({ prompt: [1], steps: 3 }); m.save(); });
    expect(lab.info().heapInUse).toBe(before.heapInUse);
    // The core's class (core/bindings/embind.cc): a deleted handle throws Embind's BindingError.
    const { Model: CoreModel, Activation } = lab.core.module;
    const h = CoreModel.create({ ...cfg, dFF: 0, attentionOnly: false, layerNorm: true, activation: Activation.gelu, initStd: 0.02, seed: 0 });
    h.delete();
    expect(() => h.step()).toThrow(/deleted/);
    expect(() => h.forward({ ids: 0, targets: 0, batch: 1, t: 1, logits: 0, attention: 0, tokenLosses: 0 })).toThrow(/deleted/);
    expect(() => h.delete()).toThrow(/deleted/);
    expect(lab.info().heapInUse).toBe(before.heapInUse);
    expect(lab.info().stackPointer).toBe(before.stackPointer);
  });

  test('a view of the parameters is never stale: one taken before the memory grows is detached, the API reads fresh ones', () => {
    withModel({ vocab: 16, context: 8, layers: 1, heads: 2, dModel: 8, seed: 4 }, (m) => {
      const want = m.parameters()['embed.W_E'].data;
      // A view straight from the core (what the facade copies at once): valid until the memory grows.
      const view = lab.core.module.Model.create({ vocab: 4, context: 2, layers: 1, heads: 1, dModel: 4, dFF: 0, attentionOnly: false,
        layerNorm: true, activation: lab.core.module.Activation.gelu, initStd: 0.02, seed: 0 });
      const stale = view.parameters();
      expect(stale.length).toBeGreaterThan(0);
      const heapBefore = lab.info().heapBytes;
      const big = lab.createModel({ vocab: 4096, context: 256, layers: 4, heads: 4, dModel: 256 });  // ~40 MB: grows memory
      try {
        expect(lab.info().heapBytes).toBeGreaterThan(heapBefore);
        expect(stale.length).toBe(0);  // detached by the growth: it reads nothing, never old memory
        expect(view.parameters().length).toBeGreaterThan(0);  // a view made now is of the new memory
        expect(m.parameters()['embed.W_E'].data).toEqual(want);
        m.setParameters({ 'embed.W_E': want.map((x) => x * 2) });
        expect(m.parameters()['embed.W_E'].data).toEqual(want.map((x) => x * 2));
        expect(m.forward({ ids: [1, 2, 3] }).logits.every(Number.isFinite)).toBe(true);
      } finally { big.dispose(); view.delete(); }
    });
  });
});

// ---- Bad input to every Model method: exact messages; heap, stack and the model as they were ---------
describe('bad input: Model methods', () => {
  const cfg = { vocab: 5, context: 4, layers: 1, heads: 2, dModel: 4 };
  let m;
  beforeAll(() => {
    m = lab.createModel(cfg);
    // First calls allocate the model's workspace and KV cache and may grow the arena, kept for later
    // calls (as memory.test.js warms the streaming path): the failures below are measured after them.
    m.forward({ ids: [1, 2, 3, 4], targets: [1, 2, 3, 4] });
    m.computeGradients({ ids: [1, 2, 3, 4], targets: [1, 2, 3, 4] });
    m.generate({ prompt: [1, 2, 3, 4], steps: 2 });
    m.save({ optimizer: true });
  });
  afterAll(() => m.dispose());
  const ids = [1, 2, 3], targets = [2, 3, 4];
  const OPT = {
    forward: 'ids, batch, targets, attention, lens, logits', trainStep: 'ids, targets, batch, lr, beta1, beta2, eps, weightDecay, maxGradNorm',
    computeGradients: 'ids, targets, batch', generate: 'prompt, steps, temperature, topK, seed', save: 'optimizer, layout',
  };
  const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const CASES = [
    ...['forward', 'trainStep', 'computeGradients', 'generate', 'save'].flatMap((fn) => [
      [fn, 42, `${fn}: expected one options object, e.g. ${fn}({ … }), got 42`],
      [fn, { dropout: 0.1 }, `${fn}: unknown option 'dropout', expected some of: ${OPT[fn]}`],
    ]),
    ...['forward', 'trainStep', 'computeGradients'].flatMap((fn) => [
      [fn, { ids: undefined, targets }, `${fn}: ids is missing, expected an Int32Array or number[] of batch·t token ids`],
      [fn, { ids: 'abc', targets }, `${fn}: ids is "abc", expected an Int32Array or number[] of batch·t token ids`],
      [fn, { ids: new BigInt64Array(3), targets }, `${fn}: ids is a BigInt64Array of 3, expected an Int32Array or number[] of batch·t token ids`],
      [fn, { ids: [1, 1.5, 2], targets }, `${fn}: ids[1] is 1.5, expected a token id in [0, vocab = 5)`],
      [fn, { ids: [1, '2', 2], targets }, `${fn}: ids[1] is "2", expected a token id in [0, vocab = 5)`],
      [fn, { ids: [1, 2, -1], targets }, `${fn}: ids[2] is -1, expected a token id in [0, vocab = 5)`],
      // The same message from the core (an Int32Array is not scanned in JS).
      [fn, { ids: new Int32Array([1, 5, 2]), targets }, `${fn}: ids[1] is 5, expected a token id in [0, vocab = 5)`],
      [fn, { ids, targets: new Int32Array([0, 0, 7]) }, `${fn}: targets[2] is 7, expected a token id in [0, vocab = 5)`],
      [fn, { ids, targets: [0, 2 ** 40, 0] }, `${fn}: targets[1] is 1099511627776, expected a token id in [0, vocab = 5)`],
      [fn, { ids: [], targets: [] }, `${fn}: ids has 0 values, expected batch·t with batch = 1 and 1 ≤ t ≤ context = 4`],
      [fn, { ids: [1, 2, 3, 4, 0], targets: [1, 2, 3, 4, 0] }, `${fn}: ids has 5 values, expected batch·t with batch = 1 and 1 ≤ t ≤ context = 4`],
      [fn, { ids, targets, batch: 2 }, `${fn}: ids has 3 values, expected batch·t with batch = 2 and 1 ≤ t ≤ context = 4`],
      [fn, { ids, targets, batch: 0 }, `${fn}: batch is 0, expected a positive integer`],
      [fn, { ids, targets, batch: 1.5 }, `${fn}: batch is 1.5, expected a positive integer`],
      [fn, { ids, targets: [1, 2] }, `${fn}: targets has 2 values, expected batch·t = 3`],
      [fn, { ids, targets: 'abc' }, `${fn}: targets is "abc", expected an Int32Array or number[] of batch·t = 3 token ids`],
    ]),
    ['forward', { ids, attention: 'yes' }, 'forward: attention is "yes", expected true or false'],
    ['trainStep', { ids }, 'trainStep: targets is missing, expected an Int32Array or number[] of batch·t = 3 token ids'],
    ['computeGradients', { ids, targets: null }, 'computeGradients: targets is missing, expected an Int32Array or number[] of batch·t = 3 token ids'],
    ['trainStep', { ids, targets, lr: 1e300 }, 'trainStep: lr is 1e+300, expected a number float32 can hold'],
    ['trainStep', { ids, targets, eps: 1e-300 }, 'trainStep: eps is 1e-300, expected a number float32 can hold'],
    ...[['lr', 0, 'a finite number > 0'], ['lr', NaN, 'a finite number > 0'], ['lr', Infinity, 'a finite number > 0'], ['lr', '1e-3', 'a finite number > 0'],
      ['beta1', 1, 'a number in [0, 1)'], ['beta2', -0.1, 'a number in [0, 1)'], ['beta2', NaN, 'a number in [0, 1)'], ['eps', 0, 'a finite number > 0'],
      ['weightDecay', -1, 'a finite number ≥ 0'], ['weightDecay', Infinity, 'a finite number ≥ 0'],
      ['maxGradNorm', 0, 'a number > 0 (Infinity: measure only, no clipping)'], ['maxGradNorm', NaN, 'a number > 0 (Infinity: measure only, no clipping)']]
      .map(([k, v, want]) => ['trainStep', { ids, targets, [k]: v }, `trainStep: ${k} is ${typeof v === 'string' ? `"${v}"` : v}, expected ${want}`]),
    ['generate', { steps: 3 }, 'generate: prompt is missing, expected an Int32Array or number[] of 1 to context = 4 token ids'],
    ['generate', { prompt: [], steps: 3 }, 'generate: prompt has 0 tokens, expected 1 to context = 4 token ids'],
    ['generate', { prompt: [1, 2, 3, 4, 0], steps: 3 }, 'generate: prompt has 5 tokens, expected 1 to context = 4 token ids'],
    ['generate', { prompt: [1, 9], steps: 3 }, 'generate: prompt[1] is 9, expected a token id in [0, vocab = 5)'],
    ['generate', { prompt: new Int32Array([1, 9]), steps: 3 }, 'generate: prompt[1] is 9, expected a token id in [0, vocab = 5)'],
    ['generate', { prompt: [1] }, 'generate: steps is missing, expected an integer ≥ 0'],
    ['generate', { prompt: [1], steps: -1 }, 'generate: steps is -1, expected an integer ≥ 0'],
    ['generate', { prompt: [1], steps: 2 ** 25 }, 'generate: steps is 33554432, expected an integer ≥ 0 ≤ 16777216'],
    ['generate', { prompt: [1], steps: 2, temperature: -1 }, 'generate: temperature is -1, expected a finite number ≥ 0'],
    ['generate', { prompt: [1], steps: 2, temperature: NaN }, 'generate: temperature is NaN, expected a finite number ≥ 0'],
    ['generate', { prompt: [1], steps: 2, topK: 6 }, 'generate: topK is 6, expected an integer in [0, vocab = 5] (0: the whole vocabulary)'],
    ['generate', { prompt: [1], steps: 2, topK: 1.5 }, 'generate: topK is 1.5, expected an integer ≥ 0'],
    ['generate', { prompt: [1], steps: 2, seed: -1 }, 'generate: seed is -1, expected an integer in [0, 2^32)'],
    ['generate', { prompt: [1], steps: 2, seed: 2 ** 32 }, 'generate: seed is 4294967296, expected an integer in [0, 2^32)'],
    ['save', { optimizer: 'yes' }, 'save: optimizer is "yes", expected true or false'],
    ['setHeadMask', [1, 1, 1], 'setHeadMask: mask has 3 values, expected layers·heads = 2'],
    ['setHeadMask', [1, NaN], 'setHeadMask: mask[1] is NaN, expected finite values'],
    ['setHeadMask', 'abc', 'setHeadMask: mask is "abc", expected a Float32Array of layers·heads = 2'],
    ['setHeadMask', { 0: 1, 1: 1 }, 'setHeadMask: mask is a object, expected a Float32Array of layers·heads = 2'],
  ];
  test.each(CASES.map(([fn, args, msg]) => [`${fn}: ${msg.slice(fn.length + 2)}`, fn, args, msg]))('%s', (_n, fn, args, msg) => {
    const before = lab.info(), state = bits(m), step = m.step;
    let err;
    try { m[fn](args); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(AttnLabError);
    expect(err.message).toMatch(new RegExp(`^${esc(msg)}`));
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(bits(m)).toEqual(state);
    expect(m.step).toBe(step);
  });

  test('the good calls of the table work', () => {
    expect(m.forward({ ids, targets }).loss).toBeGreaterThan(0);
    expect(m.computeGradients({ ids, targets }).loss).toBeGreaterThan(0);
    expect(m.generate({ prompt: [1], steps: 2, topK: 5, seed: 2 ** 32 - 1 }).length).toBe(2);
    expect(m.save().length).toBeGreaterThan(8);
  });

  test('undefined means absent, for every option of every method (the names come from the unknown-option message)', () => {
    const goodArgs = {
      forward: { ids, targets }, computeGradients: { ids, targets }, trainStep: { ids, targets }, generate: { prompt: [1, 2], steps: 3 }, save: {},
    };
    for (const [fn, good] of Object.entries(goodArgs)) {
      let known;
      try { m[fn]({ ...good, notAnOption: 1 }); } catch (e) { known = e.message.split('expected some of: ')[1].split(', '); }
      expect(known, fn).toEqual(OPT[fn].split(', '));
      const unset = Object.fromEntries([...known, 'notAnOption'].filter((k) => !(k in good)).map((k) => [k, undefined]));
      // trainStep changes the model: two identical models, one call each.
      const [a, b] = fn === 'trainStep' ? [lab.createModel(cfg), lab.createModel(cfg)] : [m, m];
      const x = a[fn]({ ...good, ...unset }), y = b[fn](good);
      expect(JSON.stringify(x, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)), fn).toBe(JSON.stringify(y, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
      if (fn === 'trainStep') { expect(same(a.save({ optimizer: true }), b.save({ optimizer: true }))).toBe(true); a.dispose(); b.dispose(); }
    }
    expect(same(m.save(undefined), m.save())).toBe(true);
  });
});

// ---- Memory and random arguments for the Model methods (memory.test.js / random-arguments.test.js do
// the same for the lab's entry points) ------------------------------------------------------------------
describe('memory and random arguments: Model methods', () => {
  test('20,000 failing calls (JS- and C++-side) interleaved with good ones: heap, stack and the model as they were', () => withModel({ vocab: 6, context: 5, layers: 2, heads: 2, dModel: 8 }, (m) => {
    const ids = [1, 2, 3], targets = [2, 3, 4];
    m.trainStep({ ids, targets }); m.forward({ ids, targets }); m.generate({ prompt: [1], steps: 3 }); m.save({ optimizer: true });
    const ref = m.forward({ ids, targets }), state = bits(m);
    const before = lab.info();
    const bad = [
      () => m.trainStep({ ids: new Int32Array([1, 7, 2]), targets }),               // C++: id out of range
      () => m.forward({ ids: new Int32Array([1, 2, 9]) }),
      () => m.computeGradients({ ids, targets: new Int32Array([0, -3, 1]) }),
      () => m.generate({ prompt: [1], steps: 3, topK: 7 }),
      () => m.setHeadMask([1, 1, 1, NaN]),                                            // JS
      () => m.trainStep({ ids, targets, lr: -1 }),
      () => m.forward({ ids: [1, 2, 3, 4, 5, 0] }),
      () => m.setParameters({ 'embed.W_E': new Float32Array(3) }),
      () => lab.loadModel(tinyCheckpoint({ metadata: { format: 'pt' } })),            // C++ (load)
      () => lab.createModel({ vocab: 6, context: 5, layers: 2, heads: 3, dModel: 8 }),  // C++ (config)
    ];
    let failures = 0;
    for (let i = 0; i < 20000; i++) {
      try { bad[i % bad.length](); } catch (e) { if (e instanceof AttnLabError) failures++; }
      if (i % 2000 === 0) expect(same(m.forward({ ids, targets }).logits, ref.logits)).toBe(true);
    }
    expect(failures).toBe(20000);
    const after = lab.info();
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(after.stackPointer).toBe(before.stackPointer);
    expect(bits(m)).toEqual(state);
    expect(m.forward({ ids, targets }).loss).toBe(ref.loss);
  }));

  test('seeded random arguments to every method: a result or an AttnLabError naming it, never a crash', () => withModel({ vocab: 6, context: 5, layers: 1, heads: 2, dModel: 4 }, (m) => {
    const rand = mulberry32(2026), pick = (a) => a[Math.floor(rand() * a.length)];
    const GARBAGE = [0, -1, 1, 2, 5, 6, 1.5, NaN, Infinity, -Infinity, 1e300, 2 ** 32, '3', '', true, null, undefined, [], [NaN], ['a'], {},
      new Float32Array(3), new Int8Array(2), new BigInt64Array(2), new DataView(new ArrayBuffer(8)), Symbol('s'), 10n, () => 1, new Int32Array([1, 9]), [0, 1, 2, 3, 4, 5]];
    const good = {
      forward: () => ({ ids: [1, 2, 3], targets: [2, 3, 4] }), trainStep: () => ({ ids: [1, 2, 3], targets: [2, 3, 4], lr: 1e-3 }),
      computeGradients: () => ({ ids: [1, 2, 3], targets: [2, 3, 4] }), generate: () => ({ prompt: [1, 2], steps: 4, temperature: 0.5, topK: 3 }),
      save: () => ({ optimizer: true }), setHeadMask: () => [1, 0], setParameters: () => ({ 'unembed.b_U': new Float32Array(6) }),
    };
    const seen = { ok: 0, refused: 0 };
    for (let i = 0; i < 4000; i++) {
      const fn = pick(Object.keys(good));
      let args = good[fn]();
      if (rand() < 0.1) args = pick(GARBAGE);
      else if (Array.isArray(args)) args = rand() < 0.5 ? args.map((x) => (rand() < 0.5 ? pick(GARBAGE) : x)) : pick(GARBAGE);
      else for (let c = 0; c < 1 + Math.floor(rand() * 2); c++) {
        const keys = [...Object.keys(args), 'batch', 'bogus', 'seed', 'attention', 'maxGradNorm'];
        const k = pick(keys), v = args[k];
        args[k] = Array.isArray(v) && rand() < 0.5 ? v.map((x) => (rand() < 0.3 ? pick([-1, 6, 1.5, 2 ** 31, NaN]) : x)) : pick(GARBAGE);
      }
      try {
        const r = m[fn](args);
        if (r && typeof r === 'object') for (const v of Object.values(r)) if (typeof v === 'number') expect(Number.isFinite(v), `${fn} result`).toBe(true);
        seen.ok++;
      } catch (e) {
        if (!(e instanceof AttnLabError) || !e.message.startsWith(fn + ': ')) throw new Error(`${fn}: ${e?.name}: ${e?.message}`);
        seen.refused++;
      }
    }
    expect(seen.ok).toBeGreaterThan(200);
    expect(seen.refused).toBeGreaterThan(1000);
    // Accepted steps never leave a parameter that is not finite.
    expect(Object.values(m.parameters()).every(({ data }) => data.every(Number.isFinite))).toBe(true);
  }));
});
