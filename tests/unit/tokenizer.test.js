// createTokenizer (char, word, byte-level BPE): round trips, unknown pieces, training, and the pipeline
// tokens → embedding → tied head. Bad input: bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab, createTokenizer } from 'attnlab';
import { expectClose, matmul, randomArray, seededRandom, transpose } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

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
    for (const s of ['', 'dogs chase cats', 'e\u0301 👩‍👩‍👧 ✓', '   ', 'the the the', '\uFEFFa leading BOM', text])
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
});
