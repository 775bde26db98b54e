import { describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { PREDICT, angle, fitGuess, revealScore, scoreAt, scoreBound } from './predict.js';

describe('RoPE predict stage and the relative-distance property, through the core', () => {
  test('stage 0 guesses, stage 1 reveals; back hides it', () => {
    expect([0, 1, 0].map((s) => PREDICT.phase(s))).toEqual(['guess', 'reveal', 'guess']);
  });

  test('q·k after RoPE depends on j − i only: the score at (2, 0) equals the one at (22, 20)', async () => {
    const lab = await createAttnLab();
    const dim = 8, n = 24, q = [0.9, -0.3, 0.5, 0.8, -0.6, 0.2, 0.4, -0.7], k = [0.3, 0.7, -0.8, 0.1, 0.5, 0.6, -0.2, 0.4];
    const rows = (v) => Float32Array.from({ length: n * dim }, (_, i) => v[i % dim]);
    const rq = lab.rope({ x: rows(q), t: n, dim }), rk = lab.rope({ x: rows(k), t: n, dim });
    const s = lab.attention({ q: rq, k: rk, v: new Float32Array(n), tq: n, tk: n, dk: dim, dv: 1, scale: 1 }).scores;
    expect(scoreAt(s, n, 22, 20)).toBeCloseTo(scoreAt(s, n, 2, 0), 4);
    expect(scoreAt(s, n, 13, 17)).toBeCloseTo(scoreAt(s, n, 0, 4), 4);
    // Not a constant: other offsets give other scores.
    expect(Math.abs(scoreAt(s, n, 2, 0) - scoreAt(s, n, 0, 0))).toBeGreaterThan(0.01);
    const bound = scoreBound(q, k);
    for (const x of s) expect(Math.abs(x)).toBeLessThanOrEqual(bound + 1e-5);
    const r = revealScore({ guess: scoreAt(s, n, 2, 0), actual: scoreAt(s, n, 22, 20), bound });
    expect(r.verdict).toBe('close');
    expect(revealScore({ guess: -bound, actual: bound, bound }).share).toBeCloseTo(1, 6);
    expect(fitGuess(undefined, bound)).toBe(0);
    // The angle lab.rope uses for pair 0 at position 1 is 1 rad: row 1 of a rotated (1, 0) is (cos 1, sin 1).
    const one = lab.rope({ x: [1, 0, 1, 0], t: 2, dim: 2 });
    expect(one[2]).toBeCloseTo(Math.cos(angle(1, 0, 2, 10000)), 6);
    expect(one[3]).toBeCloseTo(Math.sin(angle(1, 0, 2, 10000)), 6);
  });
});
