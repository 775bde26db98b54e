// The training tasks (web/train/tasks.js) and the head scores (web/train/scores.js), pure JS: shapes,
// ranges, the repeat structure, determinism by seed, the names split; the scores on attention maps
// built by hand, whose answers are written out as fractions below. Training a model on the induction
// task: induction.test.js.
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { createTask, inductionTask, loadNames, loadTask, mulberry32, namesTask, randInt, reverseTask, TASK_NAMES } from '../../web/train/tasks.js';
import { headScores, inductionScore, lossSplit, previousTokenScore, reverseScore } from '../../web/train/scores.js';
import { expectClose, TOL } from './helpers.js';

const rows = (a, t) => Array.from({ length: a.length / t }, (_, b) => Array.from(a.subarray(b * t, (b + 1) * t)));

describe('mulberry32', () => {
  test('the same seed gives the same stream, another seed another; draws lie in [0, 1)', () => {
    const a = mulberry32(42), b = mulberry32(42), c = mulberry32(43);
    const xa = Array.from({ length: 1000 }, a), xb = Array.from({ length: 1000 }, b), xc = Array.from({ length: 1000 }, c);
    expect(xa).toEqual(xb);
    expect(xa).not.toEqual(xc);
    for (const x of xa) expect(x >= 0 && x < 1).toBe(true);
  });
  test('randInt covers [0, n) about evenly (16 bins × 4000 draws: every count within 5σ of 4000)', () => {
    const rng = mulberry32(7), n = 16, draws = 64000, counts = new Array(n).fill(0);
    for (let k = 0; k < draws; k++) counts[randInt(rng, n)]++;
    const mean = draws / n, sigma = Math.sqrt(draws * (1 / n) * (1 - 1 / n));
    for (const c of counts) expect(Math.abs(c - mean)).toBeLessThan(5 * sigma);
  });
  test('a seed that is not an integer is refused', () => {
    expect(() => mulberry32(1.5)).toThrow('mulberry32: seed is 1.5, expected an integer (taken modulo 2^32)');
  });
});

describe('induction task', () => {
  test('defaults: vocab 16, 23 positions, BOS 0, a period drawn from [4, 11] per sequence', () => {
    const d = inductionTask();
    expect([d.vocab, d.context, d.bos, d.period]).toEqual([16, 23, 0, [4, 11]]);
    expect(createTask('induction').period).toEqual([4, 11]);
  });
  const task = inductionTask({ period: 11 });
  test('period 11: BOS, 11 distinct tokens, the same 11 again; targets are the next token', () => {
    expect([task.vocab, task.context, task.period, task.bos]).toEqual([16, 23, 11, 0]);
    const b = task.batch(mulberry32(1), 50);
    expect([b.batch, b.t, b.ids.length, b.targets.length]).toEqual([50, 23, 50 * 23, 50 * 23]);
    expect(b.ids).toBeInstanceOf(Int32Array);
    expect(b.targets).toBeInstanceOf(Int32Array);
    for (const [r, ids] of rows(b.ids, 23).entries()) {
      const targets = rows(b.targets, 23)[r];
      expect(ids[0]).toBe(0);                                              // BOS first, and nowhere else
      const body = ids.slice(1);
      for (const x of body) expect(x >= 1 && x < 16).toBe(true);
      expect(new Set(body.slice(0, 11)).size).toBe(11);                   // the first copy: distinct tokens
      expect(body.slice(11)).toEqual(body.slice(0, 11));                  // the repeat
      expect(targets.slice(0, 22)).toEqual(ids.slice(1));                 // next token
      expect(targets[22]).toBe(ids[1]);                                   // the repeat continues: a1
    }
  });
  test('masks: first = positions 0…11 (fresh tokens, then the repeat\'s start), repeated = 12…22', () => {
    const b = task.batch(mulberry32(2), 3);
    const first = [...Array(12).fill(1), ...Array(11).fill(0)];
    for (let r = 0; r < 3; r++) {
      expect(Array.from(b.first.subarray(r * 23, r * 23 + 23))).toEqual(first);
      expect(Array.from(b.repeated.subarray(r * 23, r * 23 + 23))).toEqual(first.map((x) => 1 - x));
    }
    expect(Array.from(b.period)).toEqual([11, 11, 11]);
  });
  test('at every repeated position the token occurred exactly once before, and its target followed it', () => {
    const b = task.batch(mulberry32(3), 20);
    for (let r = 0; r < 20; r++)
      for (let i = 0; i < 23; i++) {
        if (!b.repeated[r * 23 + i]) continue;
        const ids = b.ids.subarray(r * 23, r * 23 + 23);
        const earlier = [];
        for (let j = 0; j < i; j++) if (ids[j] === ids[i]) earlier.push(j);
        expect(earlier).toEqual([i - 11]);
        expect(b.targets[r * 23 + i]).toBe(ids[i - 11 + 1]);
      }
  });
  test('a period range: each row its own P in range, the sequence periodic with it', () => {
    const t2 = inductionTask();
    const b = t2.batch(mulberry32(4), 200);
    const seen = new Set();
    for (let r = 0; r < 200; r++) {
      const P = b.period[r], ids = Array.from(b.ids.subarray(r * 23, r * 23 + 23)), tg = Array.from(b.targets.subarray(r * 23, r * 23 + 23));
      seen.add(P);
      expect(P >= 4 && P <= 11).toBe(true);
      expect(new Set(ids.slice(1, 1 + P)).size).toBe(P);
      const seq = [...ids, tg[22]];
      for (let p = 1 + P; p < 24; p++) expect(seq[p]).toBe(seq[p - P]);
      for (let i = 0; i < 23; i++) expect([b.first[r * 23 + i], b.repeated[r * 23 + i]]).toEqual(i > P ? [0, 1] : [1, 0]);
    }
    expect(seen.size).toBe(8);
  });
  test('deterministic by seed; heldOut is fixed for a seed and differs from batch() of the same seed', () => {
    const a = task.batch(mulberry32(9), 8), b = task.batch(mulberry32(9), 8), c = task.batch(mulberry32(10), 8);
    expect(a).toEqual(b);
    expect(a.ids).not.toEqual(c.ids);
    expect(task.heldOut(8, 9)).toEqual(task.heldOut(8, 9));
    expect(task.heldOut(8, 9).ids).not.toEqual(a.ids);
    expect(task.heldOut(8).ids).toEqual(task.heldOut(8).ids);
    expect(task.heldOut(8).ids).not.toEqual(task.heldOut(8, 1).ids);
  });
  test('decode shows BOS as ^ and tokens as letters; encode inverts it', () => {
    expect(task.decode([0, 1, 2, 15])).toBe('^ABO');
    expect(Array.from(task.encode('^ABO'))).toEqual([0, 1, 2, 15]);
  });
  test('bad options say what is wrong', () => {
    expect(() => inductionTask({ period: 16 })).toThrow('inductionTask: period 16 is more than the vocab − 1 = 15 distinct tokens, expected period ≤ vocab − 1');
    expect(() => inductionTask({ period: 22 })).toThrow('inductionTask: period 22 is more than the vocab − 1 = 15');
    expect(() => inductionTask({ vocab: 32, period: 22 })).toThrow('inductionTask: period 22 leaves no repeated position in context = 23, expected period ≤ context − 2');
    expect(() => inductionTask({ period: [5, 3] })).toThrow('inductionTask: period is [5, 3], expected min ≤ max');
    expect(() => inductionTask({ size: 3 })).toThrow("inductionTask: unknown option 'size', expected some of: vocab, context, period");
    expect(() => inductionTask({ period: [4, 5, 6] })).toThrow('inductionTask: period is an array of 3, expected a number or [min, max]');
    expect(() => task.batch(Math.random, 0)).toThrow('induction.batch: batchSize is 0, expected a positive integer');
    expect(() => task.batch(42, 1)).toThrow('induction.batch: rng is 42, expected a function returning [0, 1), e.g. mulberry32(seed)');
  });
});

// The shipped list is a text file the names task loads on first use (web/train/data/names.txt).
const NAMES = readFileSync(new URL('../../web/train/data/names.txt', import.meta.url), 'utf8');

test('namesTask without a list of its own needs the shipped one loaded (a module where it is not yet)', async () => {
  const fresh = await import('../../web/train/tasks.js?not-loaded');
  expect(() => fresh.namesTask()).toThrow("namesTask: the shipped names list is not loaded yet, expected `await loadNames()` first (or `await loadTask('names')`)");
  expect(fresh.namesTask({ names: ['ab', 'cd'], heldOutNames: 1 }).trainNames.length).toBe(1);  // its own list: no file
  const task = await fresh.loadTask('names');
  expect(task.trainNames.length + task.heldOutNames.length).toBeGreaterThan(29000);
  expect(await fresh.loadNames()).toBe(await fresh.loadNames());  // read once, then kept
});

describe('names task', async () => {
  await loadNames();
  const task = namesTask();
  const list = NAMES.split('\n').filter((s) => s);
  test('the shipped list: 32,033 names of a–z, 2 to 15 letters (one name and its two dots fit 17 characters)', async () => {
    expect(list.length).toBe(32033);
    for (const s of list) expect(s).toMatch(/^[a-z]{2,15}$/);
    expect(list.slice(0, 3)).toEqual(['emma', 'olivia', 'ava']);
    expect(await loadNames()).toEqual(list);  // what the task loads is the file, in its order
    expect((await loadTask('names')).trainNames).toEqual(task.trainNames);
  });
  test("vocab 27 ('.' + a–z), context 16; windows of the packed stream, targets shifted by one", () => {
    expect([task.vocab, task.context, task.delimiter]).toEqual([27, 16, 0]);
    const b = task.batch(mulberry32(1), 40);
    expect([b.batch, b.t, b.ids.length]).toEqual([40, 16, 640]);
    for (const x of b.ids) expect(x >= 0 && x < 27).toBe(true);
    const trainSet = new Set(task.trainNames);
    for (let r = 0; r < 40; r++) {
      const ids = b.ids.subarray(r * 16, r * 16 + 16), tg = b.targets.subarray(r * 16, r * 16 + 16);
      expect(Array.from(tg.subarray(0, 15))).toEqual(Array.from(ids.subarray(1)));
      const text = task.decode(ids) + task.decode(tg.subarray(15));
      expect(text).not.toContain('..');
      // Every name with a '.' on both sides inside the window is a training name.
      for (const s of text.split('.').slice(1, -1)) expect(trainSet.has(s)).toBe(true);
    }
  });
  test('held out: 1000 distinct names never used for training; heldOut() windows contain only those', () => {
    const trainSet = new Set(task.trainNames), testSet = new Set(task.heldOutNames);
    expect(testSet.size).toBe(1000);
    for (const s of testSet) expect(trainSet.has(s)).toBe(false);
    expect(task.trainNames.length + list.filter((s) => testSet.has(s)).length).toBe(list.length);
    const h = task.heldOut(30, 5);
    expect(h).toEqual(task.heldOut(30, 5));
    for (let r = 0; r < 30; r++) {
      const text = task.decode(h.ids.subarray(r * 16, r * 16 + 16)) + task.decode(h.targets.subarray(r * 16 + 15, r * 16 + 16));
      for (const s of text.split('.').slice(1, -1)) expect(testSet.has(s)).toBe(true);
    }
  });
  test('encode/decode round trip, split() the names of a sample; other characters are refused', () => {
    const s = '.emma.olivia.zyron.';
    const ids = task.encode(s);
    expect(Array.from(ids.subarray(0, 6))).toEqual([0, 5, 13, 13, 1, 0]);
    expect(task.decode(ids)).toBe(s);
    expect(task.split(ids)).toEqual(['emma', 'olivia', 'zyron']);
    expect(() => task.encode('Emma')).toThrow('names.encode: text[0] is "E", expected one of ".abcdefghijklmnopqrstuvwxyz"');
    expect(() => task.decode([27])).toThrow('names.decode: id 27 is not a token, expected an integer in [0, 27)');
  });
  test('a list of your own; deterministic by seed', () => {
    const own = namesTask({ names: ['ab', 'cd', 'ef', 'gh'], heldOutNames: 1, context: 4 });
    expect(own.trainNames.length + own.heldOutNames.length).toBe(4);
    expect(own.batch(mulberry32(3), 5)).toEqual(own.batch(mulberry32(3), 5));
    expect(() => namesTask({ names: ['ok', 'Nope'] })).toThrow('namesTask: names[1] is "Nope", expected a non-empty string of a–z');
  });
});

describe('reverse task', () => {
  const task = reverseTask();
  test('8 digits, |, the digits reversed: 16 positions, vocab 11; answer marks the reversed half', () => {
    expect([task.vocab, task.context, task.length, task.separator]).toEqual([11, 16, 8, 10]);
    const b = task.batch(mulberry32(1), 30);
    for (let r = 0; r < 30; r++) {
      const ids = Array.from(b.ids.subarray(r * 16, r * 16 + 16)), tg = Array.from(b.targets.subarray(r * 16, r * 16 + 16));
      const seq = [...ids, tg[15]];
      const x = seq.slice(0, 8);
      for (const d of x) expect(d >= 0 && d < 10).toBe(true);
      expect(seq[8]).toBe(10);
      expect(seq.slice(9)).toEqual(x.slice().reverse());
      expect(tg.slice(0, 15)).toEqual(ids.slice(1));
      expect(Array.from(b.answer.subarray(r * 16, r * 16 + 16))).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
      // The anti-diagonal: the target at answer position i is the input digit at 2n − 1 − i = 15 − i.
      for (let i = 8; i < 16; i++) expect(tg[i]).toBe(ids[15 - i]);
    }
    expect(task.decode(task.encode('0123|3210'))).toBe('0123|3210');
    expect(task.batch(mulberry32(5), 4)).toEqual(task.batch(mulberry32(5), 4));
    expect(task.heldOut(4, 5).ids).not.toEqual(task.batch(mulberry32(5), 4).ids);
  });
});

test('createTask by name', () => {
  expect(TASK_NAMES).toEqual(['induction', 'names', 'reverse']);
  expect(createTask('induction', { period: 5 }).period).toBe(5);
  expect(createTask('reverse', { length: 4 }).context).toBe(8);
  expect(() => createTask('sort')).toThrow("createTask: name is \"sort\", expected one of 'induction', 'names', 'reverse'");
});

// ---- Scores on hand-built attention maps ----------------------------------------------------------
// Rows are queries, columns keys; weights are dyadic (1, 1/2, 1/4) so every row sums to exactly 1.

const Z = 0;
// t = 4: row 0 [1], row 1 [1/2 1/2], row 2 [1/4 1/2 1/4], row 3 [0 0 1 0].
const A4 = Float32Array.from([
  1, Z, Z, Z,
  0.5, 0.5, Z, Z,
  0.25, 0.5, 0.25, Z,
  Z, Z, 1, Z,
]);
const identityShift = (t, k) => {  // att[i, max(0, i − k)] = 1
  const a = new Float32Array(t * t);
  for (let i = 0; i < t; i++) a[i * t + Math.max(0, i - k)] = 1;
  return a;
};
const uniformCausal = (t) => {
  const a = new Float32Array(t * t);
  for (let i = 0; i < t; i++) for (let j = 0; j <= i; j++) a[i * t + j] = 1 / (i + 1);
  return a;
};

describe('previousTokenScore', () => {
  test('mean of att[i, i−1] over i ≥ 1', () => {
    expectClose(previousTokenScore(A4, 4), (0.5 + 0.5 + 1) / 3, 'A4', TOL.ulps);
    expectClose(previousTokenScore(identityShift(7, 1), 7), 1, 'a previous-token head', TOL.ulps);
    expectClose(previousTokenScore(identityShift(7, 0), 7), 0, 'a self head', TOL.ulps);
    expectClose(previousTokenScore(uniformCausal(4), 4), (1 / 2 + 1 / 3 + 1 / 4) / 3, 'uniform', TOL.ulps);
  });
  test('over a batch: the mean over every row and position', () => {
    const two = new Float32Array(32);
    two.set(A4, 0);
    two.set(identityShift(4, 1), 16);
    expectClose(previousTokenScore(two, 4, 2), (0.5 + 0.5 + 1 + 3) / 6, 'batch 2', TOL.ulps);
  });
  test('positions: only the masked rows count; none selected is NaN', () => {
    expectClose(previousTokenScore(A4, 4, 1, [1, 1, 0, 1]), (0.5 + 1) / 2, 'rows 1, 3', TOL.ulps);
    expect(previousTokenScore(A4, 4, 1, [1, 0, 0, 0])).toBeNaN();
    expect(() => previousTokenScore(A4, 4, 1, [1])).toThrow('previousTokenScore: positions has 1 values, expected batch·t = 4');
  });
  test('refuses a map of the wrong size or t < 2', () => {
    expect(() => previousTokenScore(A4, 3)).toThrow('previousTokenScore: att has 16 values, expected batch·t·t = 9');
    expect(() => previousTokenScore(new Float32Array(1), 1)).toThrow('previousTokenScore: t is 1, expected t ≥ 2 (position 0 has no previous token)');
  });
});

describe('inductionScore', () => {
  // BOS, a b c, a b c: positions 4, 5, 6 repeat positions 1, 2, 3; the induction targets are keys 2, 3, 4.
  const ids = [0, 3, 5, 7, 3, 5, 7], t = 7;
  test('a perfect induction head scores 1, a previous-token head 0 (its keys are one too early)', () => {
    expectClose(inductionScore(identityShift(t, 2), ids, t), 1, 'att[i, i − 2]', TOL.ulps);
    expectClose(inductionScore(identityShift(t, 1), ids, t), 0, 'att[i, i − 1]', TOL.ulps);
  });
  test('partial weights: (1/2 + 1 + 1/4) / 3; first-occurrence rows do not count', () => {
    const a = new Float32Array(t * t);
    for (let i = 0; i < 4; i++) a[i * t + i] = 1;          // rows 0–3: no earlier occurrence, skipped
    a[4 * t + 2] = 0.5; a[4 * t + 0] = 0.5;                // row 4 (token 3, seen at 1): key 2 gets 1/2
    a[5 * t + 3] = 1;                                      // row 5 (token 5, seen at 2): key 3 gets 1
    a[6 * t + 4] = 0.25; a[6 * t + 6] = 0.75;              // row 6 (token 7, seen at 3): key 4 gets 1/4
    expectClose(inductionScore(a, ids, t), (0.5 + 1 + 0.25) / 3, 'partial', TOL.ulps);
    expectClose(inductionScore(a, ids, t, { positions: [0, 0, 0, 0, 0, 1, 1] }), (1 + 0.25) / 2, 'positions 5, 6', TOL.ulps);
  });
  test('several earlier occurrences: the weights after each are summed (each key once)', () => {
    // 0 1 2 1 2 1: row 5 (token 1, seen at 1 and 3) looks at keys 2 and 4; row 3 at key 2; row 4 at key 3.
    const ids2 = [0, 1, 2, 1, 2, 1], t2 = 6, a = new Float32Array(36);
    for (let i = 0; i < 3; i++) a[i * t2] = 1;
    a[3 * t2 + 2] = 0.5; a[3 * t2 + 3] = 0.5;
    a[4 * t2 + 3] = 1;
    a[5 * t2 + 2] = 0.25; a[5 * t2 + 4] = 0.5; a[5 * t2 + 0] = 0.25;
    expectClose(inductionScore(a, ids2, t2), (0.5 + 1 + 0.75) / 3, 'repeats', TOL.ulps);
    // A token right after itself: its earlier occurrence's next key is the query itself (att[i, i]).
    expectClose(inductionScore(identityShift(3, 0), [0, 4, 4], 3), 1, 'a a', TOL.ulps);
  });
  test('over a batch: the mean over every qualifying position of every row; NaN when none qualifies', () => {
    const a = new Float32Array(2 * t * t);
    a.set(identityShift(t, 2), 0);
    a.set(identityShift(t, 1), t * t);
    expectClose(inductionScore(a, [...ids, ...ids], t, { batch: 2 }), 3 / 6, 'batch 2', TOL.ulps);
    expect(inductionScore(identityShift(4, 1), [0, 1, 2, 3], 4)).toBeNaN();
    expect(() => inductionScore(identityShift(t, 1), ids.slice(1), t)).toThrow('inductionScore: ids has 6 values, expected batch·t = 7');
  });
});

test('reverseScore: the anti-diagonal from the separator on', () => {
  // t = 4 (n = 2): rows 2 and 3 should look at keys 1 and 0.
  const a = new Float32Array(16);
  a[0] = 1; a[4] = 1; a[2 * 4 + 1] = 0.5; a[2 * 4 + 2] = 0.5; a[3 * 4 + 0] = 1;
  expectClose(reverseScore(a, 4), (0.5 + 1) / 2, 'anti-diagonal', TOL.ulps);
  expect(() => reverseScore(identityShift(3, 0), 3)).toThrow('reverseScore: t is 3, expected an even t = 2·length');
});

test('lossSplit: the two masked means and their ratio', () => {
  const tokenLosses = Float32Array.from([2, 2, 2, 0.5, 0.25, 4]);
  const s = lossSplit(tokenLosses, { first: [1, 1, 1, 0, 0, 0], repeated: [0, 0, 0, 1, 1, 0] });
  expectClose([s.firstHalfLoss, s.repeatedLoss, s.ratio], [2, 0.375, 0.1875], 'split', TOL.ulps);
  expect(() => lossSplit(tokenLosses, { first: [1], repeated: [] })).toThrow('lossSplit: first has 1 values, expected tokenLosses.length = 6');
});

test('headScores: every layer and head of a forward result', () => {
  const ids = [0, 3, 5, 7, 3, 5, 7], t = 7;
  // identityShift(t, 2) also scores prev 1/6: its row 1 clamps to key 0, which is i − 1 there.
  const fake = { batch: 1, t, attention: [[identityShift(t, 1), identityShift(t, 0)], [identityShift(t, 2), uniformCausal(t)]] };
  const s = headScores(fake, ids);
  expect(s.length).toBe(2);
  expect(s.map((l) => l.length)).toEqual([2, 2]);
  const got = s.flat().flatMap((h) => [h.prev, h.induction]);
  const uniformInduction = (1 / 5 + 1 / 6 + 1 / 7) / 3;
  const uniformPrev = [2, 3, 4, 5, 6, 7].reduce((acc, k) => acc + 1 / k, 0) / 6;
  expectClose(got, [1, 0, 0, 0, 1 / 6, 1, uniformPrev, uniformInduction], 'scores', TOL.ulps);
  expect(() => headScores({ batch: 1, t }, ids)).toThrow('headScores: forwardResult has no attention');
});
