// embedding and outputHead (the tied output head). Vs nn.Embedding + tied head: golden.test.js; bad
// input: bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { golden } from './helpers.js';
import { ENTRY } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const g = golden('blocks');
const opt = (v) => (v === null ? undefined : v);

describe('embedding and tied output head', () => {
  test('temperature defaults to 1', () => {
    const c = g.embedding.find((e) => e.temperature === 1);
    const args = { h: c.h, rows: c.ids.length, table: c.table, vocab: c.vocab, dModel: c.dModel, bias: opt(c.bias) };
    expect(Array.from(lab.outputHead(args).probs)).toEqual(Array.from(lab.outputHead({ ...args, temperature: 1 }).probs));
  });
  test('outputHead at temperature 1e-30 gives the argmax one-hot (subtract the max first)', () => {
    const r = lab.outputHead({ ...ENTRY.outputHead.good(), temperature: 1e-30 });
    for (let row = 0; row < 2; row++) {
      const logits = Array.from(r.logits.slice(row * 5, row * 5 + 5)), probs = Array.from(r.probs.slice(row * 5, row * 5 + 5));
      const best = logits.indexOf(Math.max(...logits));
      expect(probs).toEqual(logits.map((_, j) => (j === best ? 1 : 0)));
    }
  });
});
