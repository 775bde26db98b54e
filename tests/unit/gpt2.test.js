// GPT-2 from its safetensors file through the JS API (web/api/model.js → core/src/model/gpt2_checkpoint.cc):
// the files tests/golden/generate_gpt2.py wrote (random weights; F32, F16, BF16; with and without the
// "transformer." prefix; 2–4 layers) loaded from every kind of source, against the torch reference
// (logits, attention maps, the residual stream, greedy generation); export with layout 'gpt2' read back
// by the torch code; refusals that leave the module as it was.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { TOL, expectClose, expectCloseTensor } from './helpers.js';

const DIR = new URL('../golden/gpt2/', import.meta.url);
const REF = JSON.parse(readFileSync(new URL('reference.json', DIR), 'utf8')).cases;
const GENERATOR = new URL('../golden/generate_gpt2.py', import.meta.url).pathname;
const fileBytes = (c) => new Uint8Array(readFileSync(new URL(c.file, DIR)));

let lab, tmp;
beforeAll(async () => {
  lab = await createAttnLab();
  tmp = mkdtempSync(join(tmpdir(), 'attnlab-gpt2-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Every kind of source loadModel takes; bytes and ArrayBuffer synchronously, the rest as Promises.
const SOURCES = {
  Uint8Array: (c) => lab.loadModel(fileBytes(c), { config: c.config }),
  ArrayBuffer: (c) => { const b = fileBytes(c); return lab.loadModel(b.buffer.slice(b.byteOffset, b.byteOffset + b.length), { config: c.config }); },
  Blob: (c) => lab.loadModel(new Blob([fileBytes(c)]), { config: c.config }),
  'file URL': (c) => lab.loadModel(new URL(c.file, DIR).href, { config: c.config }),
};

function checkAgainstTorch(m, c) {
  const { n_layer: L } = c.config;
  expect(m.config.inferenceOnly).toBe(true);
  expect(m.config.layers).toBe(L);
  expect(m.config.n_layer).toBe(L);
  expect(m.config.activation_function).toBe(c.config.activation_function);
  const r = m.forward({ ids: c.ids });
  expectCloseTensor(r.logits, c.logits, `${c.file} logits`, TOL.model);
  for (let l = 0; l < L; l++)
    for (let h = 0; h < m.config.heads; h++) expectCloseTensor(r.attention[l][h], c.attention[l][h], `${c.file} attention L${l}H${h}`, TOL.model);
  const g = m.generate({ prompt: c.prompt, steps: c.steps, temperature: 0 });
  expect(Array.from(g)).toEqual(c.greedy);
}

describe('GPT-2 safetensors from every source', () => {
  for (const [kind, load] of Object.entries(SOURCES))
    for (const c of REF)
      test(`${c.file} (${c.dtype}${c.prefix ? ', prefix' : ''}, ${c.config.n_layer} layers) from ${kind}`, async () => {
        const loaded = load(c);
        if (kind === 'Uint8Array' || kind === 'ArrayBuffer') expect(loaded).not.toBeInstanceOf(Promise);
        const m = await loaded;
        try { checkAgainstTorch(m, c); } finally { m.dispose(); }
      });

  test('progress reports loaded and total bytes, ending at the file size', async () => {
    const c = REF[0], b = fileBytes(c), seen = [];
    const m = await lab.loadModel(new Blob([b.subarray(0, 1000), b.subarray(1000, 50000), b.subarray(50000)]), { config: c.config, onProgress: (p) => seen.push(p) });
    m.dispose();
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((p) => p.total === b.length)).toBe(true);
    expect(seen.at(-1).loaded).toBe(b.length);
    for (let i = 1; i < seen.length; i++) expect(seen[i].loaded).toBeGreaterThanOrEqual(seen[i - 1].loaded);
  });

  test('an attnlab checkpoint from a Blob or a file URL is the same model as from its bytes', async () => {
    const m = lab.createModel({ vocab: 9, context: 5, layers: 2, heads: 2, dModel: 8, seed: 4 });
    try {
      const bytes = m.save(), file = join(tmp, 'attnlab.safetensors');
      writeFileSync(file, bytes);
      for (const source of [new Blob([bytes]), pathToFileURL(file).href]) {
        const back = await lab.loadModel(source);
        try {
          expect(back.config.inferenceOnly).toBeUndefined();
          expect(Buffer.from(back.save()).equals(Buffer.from(bytes))).toBe(true);
        } finally { back.dispose(); }
      }
    } finally { m.dispose(); }
  });

  test('without a config: 64-wide heads from n_embd', () => {
    const c = REF.find((x) => x.config.n_head === undefined);
    const m = lab.loadModel(fileBytes(c));
    try {
      expect(m.config.heads).toBe(c.config.n_embd / 64);
      checkAgainstTorch(m, c);
    } finally { m.dispose(); }
  });
});

describe('inference-only', () => {
  test('training refuses; forward, generate, head mask and save work', () => {
    const c = REF[0];
    const m = lab.loadModel(fileBytes(c), { config: c.config });
    try {
      expect(() => m.trainStep({ ids: c.ids, targets: c.ids })).toThrow(/trainStep: this model is inference-only/);
      expect(() => m.computeGradients({ ids: c.ids, targets: c.ids })).toThrow(/computeGradients: this model is inference-only/);
      expect(() => m.gradients()).toThrow(/inference-only/);
      const before = m.forward({ ids: c.ids, attention: false }).logits;
      m.setHeadMask(new Float32Array(m.config.layers * m.config.heads).fill(0));
      const ablated = m.forward({ ids: c.ids, attention: false }).logits;
      expect(ablated.some((x, i) => Math.abs(x - before[i]) > 1e-3)).toBe(true);
      m.setHeadMask(null);
      // An attnlab checkpoint of it loads back as a (trainable) model with the same logits.
      const again = lab.loadModel(m.save());
      try {
        expectCloseTensor(again.forward({ ids: c.ids, attention: false }).logits, before, 'attnlab save', TOL.ulps);
      } finally { again.dispose(); }
    } finally { m.dispose(); }
  });
});

// An inference-only model stores W_O, W_in and W_out transposed (read as "nt" by its forward); the API still
// shows and takes [rows, cols]: parameters() equal those of the same model loaded back from its attnlab
// checkpoint (trainable, [in, out] in memory), setParameters() writes the same weights into both, and
// the two compute the same logits bit for bit, before and after.
describe('the inference-only layout', () => {
  test('parameters() and setParameters() speak [rows, cols]; logits equal the trainable copy bit for bit', () => {
    const c = REF[1];  // n_embd 64: the decode reads W_O in eight parts
    const m = lab.loadModel(fileBytes(c), { config: c.config });
    const t = lab.loadModel(m.save());
    try {
      const pm = m.parameters(), pt = t.parameters();
      expect(Object.keys(pm)).toEqual(Object.keys(pt));
      for (const name of Object.keys(pm)) {
        expect(pm[name].shape, name).toEqual(pt[name].shape);
        expect(Array.from(pm[name].data), name).toEqual(Array.from(pt[name].data));
      }
      const same = () => {
        for (const x of [m, t]) x.setHeadMask(null);
        const a = m.forward({ ids: c.ids, attention: false }).logits, b = t.forward({ ids: c.ids, attention: false }).logits;
        expect(Array.from(a)).toEqual(Array.from(b));
        const ga = m.generate({ prompt: c.prompt, steps: 6, temperature: 0 }), gb = t.generate({ prompt: c.prompt, steps: 6, temperature: 0 });
        expect(Array.from(ga)).toEqual(Array.from(gb));
        return a;
      };
      const before = same();
      // A non-symmetric W_O and a [dFF, dModel] W_out, as plain arrays and as { shape, data }.
      const wo = pm['blocks.0.attn.W_O'], wout = pm['blocks.1.mlp.W_out'];
      const newWo = Array.from(wo.data, (x, i) => x + 0.01 * ((i % 7) - 3) * (1 + Math.floor(i / wo.shape[1]) / 10));
      const newWout = { shape: wout.shape, data: wout.data.map((x, i) => -x + 1e-3 * (i % 5)) };
      for (const x of [m, t]) x.setParameters({ 'blocks.0.attn.W_O': newWo, 'blocks.1.mlp.W_out': newWout });
      expect(Array.from(m.parameters()['blocks.0.attn.W_O'].data)).toEqual(Array.from(Float32Array.from(newWo)));
      expect(Array.from(m.parameters()['blocks.1.mlp.W_out'].data)).toEqual(Array.from(newWout.data));
      const after = same();
      expect(after.some((x, i) => x !== before[i])).toBe(true);
      // The attnlab and gpt2 exports write [rows, cols] too: the same bytes as the trainable copy's.
      expect(Array.from(m.save())).toEqual(Array.from(t.save()));
      expect(Array.from(m.save({ layout: 'gpt2' }).bytes)).toEqual(Array.from(t.save({ layout: 'gpt2' }).bytes));
    } finally { m.dispose(); t.dispose(); }
  });
});

describe('the logit lens: forward({ lens })', () => {
  for (const c of REF)
    test(`${c.file}: top-k after each layer matches torch; the last entry is the next-token distribution`, () => {
      const m = lab.loadModel(fileBytes(c), { config: c.config });
      try {
        const L = c.config.n_layer, t = c.ids.length;
        for (const ref of c.lens) {
          const lens = ref.position === t - 1 && ref.k === 5 ? true : { position: ref.position, k: ref.k };
          const r = m.forward({ ids: c.ids, targets: c.ids, lens });
          expect(r.lens).toHaveLength(L + 1);
          for (let l = 0; l <= L; l++) {
            const e = r.lens[l];
            expect(e.ids).toBeInstanceOf(Int32Array);
            expect(e.probs).toBeInstanceOf(Float32Array);
            expect(Array.from(e.ids), `${c.file} position ${ref.position} layer ${l} ids`).toEqual(ref.ids[l]);
            expectClose(e.probs, ref.probs[l], `${c.file} position ${ref.position} layer ${l} probs`, TOL.model);
          }
          // The last entry: softmax of the forward's own logits at that position (float64 here).
          const V = m.config.vocab, row = r.logits.subarray(ref.position * V, (ref.position + 1) * V);
          const mx = Math.max(...row);
          let z = 0;
          for (const x of row) z += Math.exp(x - mx);
          const last = r.lens[L];
          expectClose(last.probs, Array.from(last.ids, (id) => Math.exp(row[id] - mx) / z), 'last entry vs softmax(logits)', TOL.ulps);
        }
      } finally { m.dispose(); }
    });

  test('defaults, a trainable model, and clear refusals naming lens / position / k', () => {
    const c = REF[0];
    const m = lab.loadModel(fileBytes(c), { config: c.config });
    try {
      const t = c.ids.length;
      const d = m.forward({ ids: c.ids, lens: true }).lens;
      const same = m.forward({ ids: c.ids, lens: { position: t - 1, k: 5 } }).lens;
      for (let l = 0; l < d.length; l++) {
        expect(d[l].ids).toHaveLength(5);
        expect(Array.from(d[l].ids)).toEqual(Array.from(same[l].ids));
        expect(Array.from(d[l].probs)).toEqual(Array.from(same[l].probs));
        for (let j = 1; j < 5; j++) expect(d[l].probs[j]).toBeLessThanOrEqual(d[l].probs[j - 1]);
      }
      expect(m.forward({ ids: c.ids }).lens).toBeUndefined();
      expect(m.forward({ ids: c.ids, lens: false }).lens).toBeUndefined();
      const V = m.config.vocab;
      const full = m.forward({ ids: c.ids, lens: { k: V } }).lens;
      for (const e of full) expectClose(e.probs.reduce((a, b) => a + b, 0), 1, 'a full readout sums to 1', TOL.reorder);
      expect(() => m.forward({ ids: c.ids, lens: { position: t } })).toThrow(`forward: lens.position is ${t}, expected an integer in [0, t = ${t})`);
      expect(() => m.forward({ ids: c.ids, lens: { position: -1 } })).toThrow(/forward: lens.position is -1/);
      expect(() => m.forward({ ids: c.ids, lens: { k: 0 } })).toThrow(`forward: lens.k is 0, expected an integer in [1, vocab = ${V}]`);
      expect(() => m.forward({ ids: c.ids, lens: { k: 2.5 } })).toThrow(/forward: lens.k is 2.5/);
      expect(() => m.forward({ ids: c.ids, lens: { pos: 1 } })).toThrow(/forward: unknown lens option 'pos', expected some of: position, k/);
      expect(() => m.forward({ ids: c.ids, lens: 'yes' })).toThrow(/forward: lens is .*yes.*, expected true or \{ position, k \}/);
      expect(() => m.forward({ ids: [...c.ids, ...c.ids], batch: 2, lens: true })).toThrow(/forward: lens reads one sequence, expected batch = 1 \(got batch = 2\)/);
    } finally { m.dispose(); }
    // Any model has a lens: a small trainable one, whose last entry is its next-token distribution.
    const s = lab.createModel({ vocab: 11, context: 6, layers: 2, heads: 2, dModel: 8, seed: 5 });
    try {
      const r = s.forward({ ids: [1, 2, 3], lens: { k: 11 } });
      expect(r.lens).toHaveLength(3);
      const row = r.logits.subarray(2 * 11), top = r.lens[2].ids[0];
      expect(row[top]).toBe(Math.max(...row));
    } finally { s.dispose(); }
  });
});

describe("forward({ logits: 'last' })", () => {
  test("each sequence's last row, the same floats as in the full logits; the lens and attention unchanged", () => {
    const c = REF[1];
    const m = lab.loadModel(fileBytes(c), { config: c.config });
    try {
      const V = m.config.vocab, t = c.ids.length;
      const all = m.forward({ ids: c.ids, lens: true }), last = m.forward({ ids: c.ids, lens: true, logits: 'last' });
      expect(last.logits).toHaveLength(V);
      expect(Array.from(last.logits)).toEqual(Array.from(all.logits.subarray((t - 1) * V)));
      expect(Array.from(last.lens.at(-1).probs)).toEqual(Array.from(all.lens.at(-1).probs));
      expect(Array.from(last.attention[1][0])).toEqual(Array.from(all.attention[1][0]));
      expect(() => m.forward({ ids: c.ids, targets: c.ids, logits: 'last' })).toThrow(/forward: logits is 'last' with targets, expected logits: 'all'/);
      expect(() => m.forward({ ids: c.ids, logits: 'first' })).toThrow(/forward: logits is .*first/);
    } finally { m.dispose(); }
    // Batches: row b of 'last' is sequence b's last row.
    const s = lab.createModel({ vocab: 13, context: 5, layers: 2, heads: 2, dModel: 8, seed: 2 });
    try {
      const ids = [1, 2, 3, 4, 5, 6, 7, 8];
      const all = s.forward({ ids, batch: 2 }).logits, last = s.forward({ ids, batch: 2, logits: 'last' }).logits;
      expect(last).toHaveLength(2 * 13);
      expect(Array.from(last.subarray(0, 13))).toEqual(Array.from(all.subarray(3 * 13, 4 * 13)));
      expect(Array.from(last.subarray(13))).toEqual(Array.from(all.subarray(7 * 13, 8 * 13)));
    } finally { s.dispose(); }
  });
});

describe("save({ layout: 'gpt2' })", () => {
  test('the exported file, read by the torch GPT-2 of generate_gpt2.py, gives the same logits', () => {
    expect(spawnSync('/usr/bin/python3', ['-c', 'import torch']).status, "Debian's python3-torch").toBe(0);
    for (const c of [REF[0], REF[2]]) {
      const m = lab.loadModel(fileBytes(c), { config: c.config });
      try {
        const { bytes, config } = m.save({ layout: 'gpt2' });
        const cfg = JSON.parse(config);
        expect(cfg).toMatchObject({ model_type: 'gpt2', n_layer: c.config.n_layer, n_embd: c.config.n_embd, n_head: m.config.heads, activation_function: c.config.activation_function });
        const file = join(tmp, `export-${c.file}`);
        writeFileSync(file, bytes);
        const r = spawnSync('/usr/bin/python3', [GENERATOR, '--logits', file, config, ...c.ids.map(String)], { encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout);
        expect(out.tensors).toContain('h.0.attn.c_attn.weight');
        expect(out.tensors.some((t) => t.startsWith('transformer.') || t.includes('b_U'))).toBe(false);
        expectCloseTensor(m.forward({ ids: c.ids, attention: false }).logits, out.logits, `${c.file} exported`, TOL.model);
        // And back into attnlab, parameter for parameter.
        const back = lab.loadModel(bytes, { config: cfg });
        try {
          const a = m.parameters(), b = back.parameters();
          for (const k of Object.keys(a)) expect(Array.from(b[k].data), k).toEqual(Array.from(a[k].data));
        } finally { back.dispose(); }
      } finally { m.dispose(); }
    }
  });

  test('a trained attnlab model exports once b_U is zero; a nonzero b_U is refused', () => {
    const m = lab.createModel({ vocab: 13, context: 8, layers: 2, heads: 2, dModel: 16, activation: 'gelu_tanh', seed: 3 });
    try {
      const ids = [1, 2, 3, 4, 5, 6, 7, 8];
      m.trainStep({ ids, targets: ids.map((x) => (x + 1) % 13), lr: 1e-2 });
      expect(() => m.save({ layout: 'gpt2' })).toThrow(/save: layout 'gpt2' has no output bias, but unembed.b_U\[\d+\] is/);
      m.setParameters({ 'unembed.b_U': new Float32Array(13) });
      const { bytes, config } = m.save({ layout: 'gpt2' });
      const back = lab.loadModel(bytes, { config: JSON.parse(config) });
      try {
        expectCloseTensor(back.forward({ ids, attention: false }).logits, m.forward({ ids, attention: false }).logits, 'round trip', TOL.ulps);
      } finally { back.dispose(); }
    } finally { m.dispose(); }
    const ao = lab.createModel({ vocab: 5, context: 4, layers: 1, heads: 1, dModel: 4, attentionOnly: true });
    try { expect(() => ao.save({ layout: 'gpt2' })).toThrow(/attention-only/); } finally { ao.dispose(); }
  });
});

describe('bad files: a clear error, the module as it was', () => {
  const c = REF[3];
  const good = () => fileBytes(c);
  const edit = (from, to) => {
    const b = good(), text = Buffer.from(b).toString('latin1'), at = text.indexOf(from);
    expect(at).toBeGreaterThan(0);
    b.set(Buffer.from(to, 'latin1'), at);
    return b;
  };
  const CASES = [
    ['truncated', () => good().subarray(0, good().length - 333), /loadModel: bytes end after \d+ of the \d+ bytes the header describes \(is the file truncated\?\)/],
    ['a missing tensor', () => edit('"h.2.mlp.c_fc.bias"', '"h.2.mlp.c_fc.bia_"'), /loadModel: bytes have no tensor "h.2.mlp.c_fc.bias"/],
    ['a wrong shape', () => edit('"h.1.ln_1.weight":{"dtype":"F32","shape":[24]', '"h.1.ln_1.weight":{"dtype":"F32","shape":[42]'), /tensor "h.1.ln_1.weight" has shape \[42\], expected \[24\]/],
    ['an unsupported dtype', () => edit('"h.0.ln_2.bias":{"dtype":"F32"', '"h.0.ln_2.bias":{"dtype":"I32"'), /tensor "h.0.ln_2.bias" has dtype "I32", expected "F32", "F16" or "BF16"/],
    ['a .bin pickle renamed', () => new Uint8Array([0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e]), /PyTorch pickle .*not safetensors/],
    ['a torch.save zip renamed', () => new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 8, 8, 0, 0, 1, 2]), /PyTorch zip archive/],
    ['a config that disagrees', () => [good(), { ...c.config, n_layer: 7 }], /config n_layer is 7 but the file has 3/],
  ];
  for (const [what, make, message] of CASES)
    for (const kind of ['Uint8Array', 'Blob'])
      test(`${what} (${kind})`, async () => {
        lab.createModel({ vocab: 5, context: 4, layers: 1, heads: 1, dModel: 4 }).dispose();  // the arena grown once
        const heap = lab.core.heapInUse();
        let v = make(), config = c.config;
        if (Array.isArray(v)) [v, config] = v;
        const load = () => lab.loadModel(kind === 'Blob' ? new Blob([v]) : v, { config });
        if (kind === 'Blob') await expect(load()).rejects.toThrow(message);
        else expect(load).toThrow(message);
        expect(lab.core.heapInUse(), 'heap in use as before').toBe(heap);
        // Still usable: the good file loads and runs.
        const m = lab.loadModel(good(), { config: c.config });
        try { expectCloseTensor(m.forward({ ids: c.ids, attention: false }).logits, c.logits, 'after a refusal', TOL.model); } finally { m.dispose(); }
      });

  test('options are checked', () => {
    expect(() => lab.loadModel(good(), { confg: {} })).toThrow(/loadModel: .*confg/);
    expect(() => lab.loadModel(good(), { config: { activation_function: 'swish' } })).toThrow(/config.activation_function is 'swish'|config.activation_function is "swish"/);
    expect(() => lab.loadModel(42)).toThrow(/loadModel: bytes is 42/);
  });

  test('a path or URL that cannot be read rejects, saying which', async () => {
    await expect(lab.loadModel(join(tmp, 'no-such.safetensors'))).rejects.toThrow(/loadModel: cannot read .*no-such.safetensors \(ENOENT\)/);
    await expect(lab.loadModel(pathToFileURL(join(tmp, 'nope.safetensors')))).rejects.toThrow(/loadModel: cannot read/);
  });
});
