import { describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { CAT_SAT } from './logic.js';
import { PREDICT, PREDICT_SHORT, fitPicks, revealPicks } from './predict.js';

describe('multi-head predict stage', () => {
  test('the predict stage sits before the per-head weights; forward and back', () => {
    expect(PREDICT_SHORT.names).toEqual(['inputs', 'Q, K, V', 'predict', 'weights', 'concat', 'output']);
    expect([0, 1, 2, 3, 4, 5].map((s) => PREDICT.phase(s))).toEqual(['before', 'before', 'guess', 'reveal', 'reveal', 'reveal']);
    expect([0, 1, 2, 3, 4, 5].map((s) => PREDICT.own(s))).toEqual([0, 1, 1, 2, 3, 4]);
    expect(PREDICT.phase(2)).toBe('guess');  // stepping back from the reveal hides the weights again
  });

  test('picks are kept per head, out-of-range ones dropped', () => {
    expect(fitPicks([2, 7], 2, 3)).toEqual([2, -1]);
    expect(fitPicks(null, 3, 3)).toEqual([-1, -1, -1]);
    expect(fitPicks([0, 1, 2, 0], 2, 3)).toEqual([0, 1]);
  });

  test('"the / cat / sat": the reveal reads each head\'s row of the core\'s weights', async () => {
    const lab = await createAttnLab();
    const p = CAT_SAT, t = 3;
    const r = lab.multiHeadAttention({ x: p.x, tq: t, dModel: p.dModel, heads: p.heads, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo });
    const row = 2;  // "sat"
    const rows = [0, 1].map((h) => Array.from(r.weights.slice(h * 9 + row * 3, h * 9 + row * 3 + 3)));
    const tops = rows.map((a) => a.indexOf(Math.max(...a)));
    const right = revealPicks({ picks: tops, weights: r.weights, heads: 2, t, row });
    expect(right.right).toBe(2);
    expect(right.heads.map((h) => h.gap)).toEqual([0, 0]);
    const wrongPick = (tops[0] + 1) % 3;
    const one = revealPicks({ picks: [wrongPick, -1], weights: r.weights, heads: 2, t, row });
    expect(one.right).toBe(0);
    expect(one.heads[0].gap).toBeCloseTo(rows[0][tops[0]] - rows[0][wrongPick], 7);
    expect(one.heads[0].gap).toBeGreaterThan(0);
    expect(one.heads[1].gap).toBeCloseTo(rows[1][tops[1]], 7);  // nothing picked: the whole top weight
    // Each head's row is a probability row.
    for (const a of rows) expect(a.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 5);
  });
});
