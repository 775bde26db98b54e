import { describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { PRESETS, keepFromScaled, maskArgument, maskIsEmpty, parseTokens, resize, sharedRange } from './logic.js';

describe('steps logic', () => {
  test('parseTokens splits on whitespace and caps count and length', () => {
    expect(parseTokens('  I  play\tfootball ')).toEqual(['I', 'play', 'football']);
    expect(parseTokens('a b c d e f g h i j')).toHaveLength(8);
    expect(parseTokens('x'.repeat(40))[0]).toHaveLength(16);
  });

  test('resize keeps the overlapping block and is reproducible', () => {
    const m = [1, 2, 3, 4, 5, 6];  // 2×3
    const r = resize(m, 2, 3, 3, 2, 7);
    expect([r[0], r[1], r[2], r[3]]).toEqual([1, 2, 4, 5]);
    expect(r).toHaveLength(6);
    expect(resize(m, 2, 3, 3, 2, 7)).toEqual(r);
  });

  test('padding and custom masks remove exactly the chosen keys (checked through the core)', async () => {
    const lab = await createAttnLab();
    const t = 3, z = new Float32Array(t * 2), v = [1, 0, 0, 1, 1, 1];
    const pad = lab.attention({ q: z, k: z, v, tq: t, tk: t, dk: 2, dv: 2, mask: maskArgument('padding', t, { padding: 1 }) });
    expect(keepFromScaled(pad.scaled)).toEqual([1, 1, 0, 1, 1, 0, 1, 1, 0]);
    const keep = [1, 0, 1, 0, 1, 1, 1, 1, 0];
    const cus = lab.attention({ q: z, k: z, v, tq: t, tk: t, dk: 2, dv: 2, mask: maskArgument('custom', t, { keep }) });
    expect(keepFromScaled(cus.scaled)).toEqual(keep);
    expect(maskArgument('causal', t)).toBe('causal');
    expect(maskArgument('window', t, { window: 2 })).toEqual({ window: 2 });
    expect(maskArgument('none', t)).toBe('none');
  });

  test('presets have consistent sizes', () => {
    for (const p of Object.values(PRESETS)) {
      expect(p.x).toHaveLength(p.tokens.length * p.dIn);
      for (const w of [p.wq, p.wk, p.wv]) expect(w).toHaveLength(p.dIn * p.dk);
    }
  });

  test('scores and scaled scores share one colour range: the larger |value| of the two, −∞ ignored', async () => {
    const lab = await createAttnLab();
    const p = PRESETS.football, t = p.tokens.length;
    const q = new Float32Array(t * p.dk), k = new Float32Array(t * p.dk);
    for (let i = 0; i < t; i++) for (let j = 0; j < p.dk; j++) for (let a = 0; a < p.dIn; a++) {
      q[i * p.dk + j] += p.x[i * p.dIn + a] * p.wq[a * p.dk + j];
      k[i * p.dk + j] += p.x[i * p.dIn + a] * p.wk[a * p.dk + j];
    }
    const base = { q, k, v: q, tq: t, tk: t, dk: p.dk, dv: p.dk, scale: 1 / Math.sqrt(p.dk) };
    const r = lab.attention(base), causal = lab.attention({ ...base, mask: 'causal' });
    const own = (a) => Math.max(...Array.from(a).filter(Number.isFinite).map(Math.abs));
    // The lecture's example: scores up to 0.77, scaled up to 0.54 — one range, the scores'.
    expect(own(r.scores)).toBeCloseTo(0.77, 2);
    expect(own(r.scaled)).toBeCloseTo(0.544, 2);
    expect(sharedRange(r.scores, r.scaled)).toBeCloseTo(own(r.scores), 6);
    // The scaled map on that range uses only 1/√2 of it: ÷√d_k pales the colours.
    expect(own(r.scaled) / sharedRange(r.scores, r.scaled)).toBeCloseTo(Math.SQRT1_2, 5);
    expect(sharedRange([0, -Infinity], [0])).toBe(1);
    expect(sharedRange(causal.scaled)).toBeLessThanOrEqual(own(r.scaled));  // −∞ does not count
    expect(maskIsEmpty(causal.scaled)).toBe(false);
    expect(maskIsEmpty(r.scaled)).toBe(true);
  });
});
