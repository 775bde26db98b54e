// The session on attnlab's shipped induction model, in Node: its induction head found by score and
// named, ablation changing the distribution and the loss, generation adding one cached row per token.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { ModelSession, LENS_NOTE, sourceName } from './session.js';
import { ROLE_THRESHOLD, cacheRows, headName, roles } from './logic.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const host = () => ({ updates: 0, requestUpdate() { this.updates++; } });

describe('ModelSession on the shipped induction model', () => {
  test('loads, tokenizes, runs, and names its induction head by score', async () => {
    const h = host(), s = new ModelSession(h, { lab });
    await s.loadShipped();
    expect(s.status).toBe('ready');
    expect(s.config.vocab).toBe(16);
    expect(h.updates).toBeGreaterThan(0);
    await s.repeatRandom(3);
    expect(s.where).toBe('this thread');
    const { layers, heads } = s.config;
    expect(s.ids[0]).toBe(0);
    expect(s.base.attention.length).toBe(layers);
    expect(s.scores.length).toBe(layers);
    expect(s.scores[0].length).toBe(heads);
    const named = roles(s.scores);
    const ind = named.filter((r) => r.role === 'induction');
    expect(ind.length).toBeGreaterThan(0);
    for (const r of ind) {
      expect(r.layer).toBeGreaterThanOrEqual(1);
      expect(s.scores[r.layer][r.head].induction).toBeGreaterThanOrEqual(ROLE_THRESHOLD);
    }
    // the model predicts the repeat: the loss on the second copy is far below the first's
    const t = s.ids.length, half = (t - 1) / 2;
    const tl = s.base.tokenLosses;
    let first = 0, second = 0;
    for (let i = 1; i < half; i++) first += tl[i];
    for (let i = half + 1; i < t - 1; i++) second += tl[i];
    expect(second / (half - 2)).toBeLessThan(0.5 * first / (half - 1));
    // The logit lens, when the API gives it: one readout per layer and the embeddings; the last is the
    // model's own distribution (its top token is the distribution's); else nothing, and the note says why.
    if (s.lens) {
      expect(s.lens.layers.length).toBe(layers + 1);
      expect(s.lens.position).toBe(t - 1);
      expect(s.lens.layers[layers].ids[0]).toBe(s.dist.top);
      expect(s.lens.layers[layers].probs[0]).toBeCloseTo(s.dist.rows.find((r) => r.id === s.dist.top).p, 5);
      await s.setLensPosition(2);
      expect(s.lens.position).toBe(2);
    } else expect(s.lensNote).toBe(LENS_NOTE);
    console.log('induction heads:', ind.map((r) => `${headName(r.layer, r.head)} ${r.score.toFixed(3)}`).join(', '));
  });

  test('switching the induction head off changes the next-token distribution and raises the loss', async () => {
    const s = new ModelSession(host(), { lab });
    await s.loadShipped();
    await s.repeatRandom(11);
    const ind = roles(s.scores).find((r) => r.role === 'induction');
    const before = s.base.meanLoss;
    await s.setAblated([ind.layer * s.config.heads + ind.head]);
    expect(s.off).not.toBeNull();
    expect(s.off.meanLoss).toBeGreaterThan(before);
    expect(s.base.meanLoss).toBe(before);  // the unablated run is unchanged
    const a = s.dist;
    expect(Math.max(...a.rows.map((r) => Math.abs(r.delta)))).toBeGreaterThan(0.05);
    for (const r of a.rows) expect(r.delta).toBeCloseTo(r.pOff - r.p, 12);
    expect(a.topChanged).toBe(a.top !== a.topOff);
    await s.setAblated([]);
    expect(s.off).toBeNull();
  });

  test('a 1-layer model never gets an induction label', async () => {
    const m = lab.createModel({ vocab: 16, context: 23, layers: 1, heads: 2, dModel: 32, attentionOnly: true, layerNorm: false, seed: 1 });
    const s = new ModelSession(host(), { lab });
    await s.loadSource(m.save(), 'one-layer.safetensors');
    m.dispose();
    expect(s.status).toBe('ready');
    expect(s.config.layers).toBe(1);
    await s.setIds([1, 2, 3, 4, 1, 2, 3, 4]);
    expect(roles(s.scores, 0).some((r) => r.role === 'induction')).toBe(false);  // even at threshold 0
  });

  test('generation: each step adds one token and one new cache row', async () => {
    const s = new ModelSession(host(), { lab });
    await s.loadShipped();
    await s.setIds([0, 3, 4, 5, 6, 3, 4]);
    const top = s.dist.top;
    // Two clicks before the first answer: the steps run one after the other.
    const [first] = await Promise.all([s.generateStep(), s.generateStep()]);
    expect(first).toBe(top);  // greedy: the top of the distribution shown
    expect(first).toBe(5);    // and it continues the repeat (5 came after 4)
    expect(s.gen.tokens).toEqual([0, 3, 4, 5, 6, 3, 4, 5, 6]);
    expect(s.gen.labels.slice(-2)).toEqual(['E', 'F']);
    const rows = cacheRows(s.gen.tokens, s.gen.prompt.length, s.config.context);
    expect(rows.filter((r) => r.state === 'new').length).toBe(1);
    expect(rows.filter((r) => r.state === 'cached').length).toBe(8);
  });

  test('a file that is not a model: the error in words, the shipped model still there', async () => {
    const s = new ModelSession(host(), { lab });
    await s.loadShipped();
    await s.loadSource(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), 'junk.safetensors');
    expect(s.status).toBe('ready');
    expect(s.source.kind).toBe('shipped');
    expect(s.error).toMatch(/^Could not load junk\.safetensors: .+/);
  });

  test('text the tokenizer refuses is said, the last sequence kept', async () => {
    const s = new ModelSession(host(), { lab });
    await s.loadShipped();
    await s.setText('^ABCABC');
    const ids = s.ids.slice();
    await s.setText('hello!');
    // Said in the student's words: the character as typed, counted in what they typed (not the
    // tokenizer's uppercased text with its BOS put first), and what the model reads.
    expect(s.inputError).toBe('“!” (character 6 of the text) is not a token of this model: it reads the letters A–O (any case; spaces are skipped) and “^” (the start)');
    await s.setText('the cat');
    expect(s.inputError).toMatch(/^“t” \(character 1 of the text\)/);
    expect(s.ids).toEqual(ids);
  });
});

describe('other models', () => {
  test('a 50257-token vocabulary gets GPT-2\'s tokens, pieces with their spaces shown', async () => {
    const m = lab.createModel({ vocab: 50257, context: 16, layers: 1, heads: 1, dModel: 8, attentionOnly: true, seed: 2 });
    const s = new ModelSession(host(), { lab });
    await s.loadSource(m.save(), 'tiny-gpt2-vocab.safetensors');
    m.dispose();
    expect(s.status).toBe('ready');
    expect(s.tokenizer.kind).toBe('gpt2');
    await s.setText('Hello world');
    expect(s.ids).toEqual([15496, 995]);
    expect(s.labels).toEqual(['Hello', '·world']);
    await s.repeatRandom(5);
    expect(s.ids.length).toBe(12);  // 6 twice: 40 % of 16
    expect(s.ids.slice(0, 6)).toEqual(s.ids.slice(6));
  });
  test('source names', () => {
    expect(sourceName('models/gpt2.safetensors')).toBe('gpt2.safetensors');
    expect(sourceName('https://x.org/a/b%20c.safetensors?x=1')).toBe('b c.safetensors');
    expect(sourceName('data:application/octet-stream;base64,AAAA')).toBe('a data: URL');
    expect(sourceName({ name: 'f.safetensors' })).toBe('f.safetensors');
  });
});

describe('requests across loads', () => {
  test('a load that fails while a run is under way keeps that run (the model did not change)', async () => {
    const s = new ModelSession(host(), { lab });
    await s.loadShipped();
    await s.setIds([0, 3, 4, 5, 6, 3, 4]);
    const running = s.setAblated([2]);
    const failing = s.loadSource(new Uint8Array([1, 2, 3]), 'junk.safetensors');
    await Promise.all([running, failing]);
    expect(s.error).toMatch(/^Could not load junk\.safetensors/);
    expect(s.off).not.toBeNull();
    expect(s.off.meanLoss).not.toBe(s.base.meanLoss);
  });
});
