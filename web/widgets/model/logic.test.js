import { describe, expect, test } from 'vitest';
import {
  ROLE_THRESHOLD, ablationRows, cacheRows, duplicateTokenScore, headMask, headScores, mulberry32, pieceLabel,
  repeatedRandom, resolveHeadSpec, roleOf, roles, scoreTexts, softmaxRow, strongestHead, toggleHead, topK, unmeasured,
} from './logic.js';

/** A causal [t·t] map putting all of row i's weight on key f(i) (clamped to [0, i]). */
const oneHot = (t, f) => {
  const a = new Float32Array(t * t);
  for (let i = 0; i < t; i++) a[i * t + Math.max(0, Math.min(i, f(i)))] = 1;
  return a;
};

describe('head scores', () => {
  const ids = [0, 5, 6, 7, 5, 6, 7];  // BOS, a random sequence, again (period 3)
  const t = ids.length;
  test('a previous-token map scores 1 on prev, an induction map 1 on induction, a duplicate map 1 on dup', () => {
    const prev = oneHot(t, (i) => i - 1), ind = oneHot(t, (i) => (i >= 4 ? i - 2 : 0)), dup = oneHot(t, (i) => (i >= 4 ? i - 3 : 0));
    const [[p, n, d]] = headScores([[prev, ind, dup]], ids, t);
    expect(p.prev).toBe(1);
    expect(n.induction).toBe(1);
    expect(d.dup).toBe(1);
    expect(p.induction).toBe(0);
    expect(n.prev).toBeLessThan(0.5);
  });
  test('duplicate-token score is NaN when no token repeats', () => {
    expect(duplicateTokenScore(oneHot(3, (i) => i), [1, 2, 3], 3)).toBeNaN();
  });
});

describe('roles (threshold ' + ROLE_THRESHOLD + ')', () => {
  test('a role only at or above the threshold; induction never in layer 0', () => {
    expect(ROLE_THRESHOLD).toBe(0.5);
    expect(roleOf({ prev: 0.49, dup: 0.1, induction: 0.2 }, 0)).toBeNull();
    expect(roleOf({ prev: 0.5, dup: 0.1, induction: 0.2 }, 0)).toBe('prev');
    expect(roleOf({ prev: 0.1, dup: 0.1, induction: 0.9 }, 0)).toBeNull();
    expect(roleOf({ prev: 0.1, dup: 0.7, induction: 0.9 }, 0)).toBe('dup');
    expect(roleOf({ prev: 0.1, dup: 0.7, induction: 0.6 }, 1)).toBe('induction');
    expect(roleOf({ prev: NaN, dup: NaN, induction: NaN }, 2)).toBeNull();
  });
  test('roles() lists the named heads', () => {
    const grid = [[{ prev: 0.9, dup: 0, induction: 0 }, { prev: 0.1, dup: 0, induction: 0 }], [{ prev: 0, dup: 0.3, induction: 0.8 }, { prev: 0.2, dup: 0.2, induction: 0.2 }]];
    expect(roles(grid)).toEqual([{ layer: 0, head: 0, role: 'prev', score: 0.9 }, { layer: 1, head: 0, role: 'induction', score: 0.8 }]);
  });
});

describe('next-token distribution', () => {
  const vocab = 4, logits = Float32Array.from([0, 0, 0, 0, /* row 1 */ 1, 3, 2, 0]);
  test('softmax sums to 1; top-k is ordered and exact', () => {
    const p = softmaxRow(logits, vocab, 1);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const z = Math.exp(1) + Math.exp(3) + Math.exp(2) + 1;
    const top = topK(logits, vocab, 1, 2);
    expect(top.map((r) => r.id)).toEqual([1, 2]);
    expect(top[0].p).toBeCloseTo(Math.exp(3) / z, 12);
    expect(topK(logits, vocab, 0, 4).map((r) => r.id)).toEqual([0, 1, 2, 3]);  // ties: lower id first
  });
  test('ablation rows: deltas, the union of both lists, a changed top token', () => {
    const off = Float32Array.from([0, 0, 0, 0, 1, 0, 4, 0]);
    const a = ablationRows(logits, off, vocab, 1, 1);
    expect(a.rows.map((r) => r.id)).toEqual([1, 2]);
    for (const r of a.rows) expect(r.delta).toBeCloseTo(r.pOff - r.p, 12);
    expect(a.top).toBe(1);
    expect(a.topOff).toBe(2);
    expect(a.topChanged).toBe(true);
    expect(ablationRows(logits, logits, vocab, 1).topChanged).toBe(false);
  });
});

describe('masks, sequences, cache, labels', () => {
  test('head mask and toggling', () => {
    expect(headMask([], 2, 2)).toBeNull();
    expect(Array.from(headMask([1, 2], 2, 2))).toEqual([1, 0, 0, 1]);
    expect(toggleHead([3], 1)).toEqual([1, 3]);
    expect(toggleHead([1, 3], 1)).toEqual([3]);
  });
  test('a random sequence repeated twice: distinct ids in range, seeded', () => {
    const s = repeatedRandom(mulberry32(7), { length: 5, from: 1, to: 16, prefix: [0] });
    expect(s.length).toBe(11);
    expect(s[0]).toBe(0);
    expect(s.slice(1, 6)).toEqual(s.slice(6));
    expect(new Set(s.slice(1, 6)).size).toBe(5);
    for (const id of s.slice(1)) expect(id >= 1 && id < 16).toBe(true);
    expect(repeatedRandom(mulberry32(7), { length: 5, from: 1, to: 16 })).toEqual(s.slice(1));
  });
  test('KV cache rows: the prompt cached, one new row per generated token, a sliding window past the context', () => {
    expect(cacheRows([1, 2, 3], 3, 8).map((r) => r.state)).toEqual(['cached', 'cached', 'cached']);
    const rows = cacheRows([1, 2, 3, 4, 5], 3, 8);
    expect(rows.map((r) => r.state)).toEqual(['cached', 'cached', 'cached', 'cached', 'new']);
    expect(cacheRows([1, 2, 3, 4, 5], 3, 3).map((r) => r.index)).toEqual([2, 3, 4]);
  });
  test('pieces show their spaces', () => {
    expect(pieceLabel(' world')).toBe('·world');
    expect(pieceLabel('\n')).toBe('↵');
  });
});

describe('heads named in attributes', () => {
  // 2 layers × 2 heads: L0H1 the strongest previous-token head, L1H0 the strongest induction score
  // (L0H0's induction score is higher, but layer 0 cannot hold an induction head).
  const grid = [
    [{ prev: 0.2, dup: 0.1, induction: 0.9 }, { prev: 0.7, dup: 0.3, induction: 0.1 }],
    [{ prev: 0.1, dup: 0.6, induction: 0.8 }, { prev: 0.3, dup: NaN, induction: 0.2 }],
  ];
  test('strongestHead by kind, induction only from layer 1', () => {
    expect(strongestHead(grid, 'prev')).toBe(1);
    expect(strongestHead(grid, 'induction')).toBe(2);
    expect(strongestHead(grid, 'dup')).toBe(2);
    expect(strongestHead([[{ prev: NaN }]], 'prev')).toBeNull();
  });
  test('resolveHeadSpec: names, roles, and the first alternative the model has', () => {
    expect(resolveHeadSpec('L1H1, L0H0', grid, 2, 2)).toEqual([0, 3]);
    expect(resolveHeadSpec('previous-token', grid, 2, 2)).toEqual([1]);
    expect(resolveHeadSpec('L9H9,L9H6,L10H0 | induction', grid, 2, 2)).toEqual([2]);
    expect(resolveHeadSpec('L9H9,L9H6,L10H0 | induction', null, 12, 12)).toEqual([114, 117, 120]);
    expect(resolveHeadSpec('L5H0', grid, 2, 2)).toBeNull();
    expect(resolveHeadSpec('', grid, 2, 2)).toEqual([]);
  });
});

describe('scores a text gives nothing to measure', () => {
  test('no repeated token: dup and ind read “–” with the reason, never NaN; one token: no scores', () => {
    const ids = [0, 1, 2], t = 3;  // "abc": no token repeats
    const [[s]] = headScores([[oneHot(t, (i) => i - 1)]], ids, t);
    expect(scoreTexts(s)).toEqual(['prev 1.00', 'dup –', 'ind –']);
    expect(unmeasured(s)).toBe('dup and ind need a token that repeats in the text');
    const [[one]] = headScores([[oneHot(1, () => 0)]], [0], 1);
    expect(scoreTexts(one).join(' ')).not.toMatch(/NaN/);
    expect(unmeasured(one)).toBe('no scores: the text needs at least 2 tokens');
    const rep = [0, 5, 6, 5, 6];
    const [[r]] = headScores([[oneHot(5, (i) => i - 1)]], rep, 5);
    expect(unmeasured(r)).toBe('');
    expect(scoreTexts(r).join(' ')).not.toMatch(/–|NaN/);
  });
});
