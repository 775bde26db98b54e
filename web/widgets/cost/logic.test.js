import { expect, test } from 'vitest';
import { attentionFlops, lengths } from './logic.js';
import { fitProportional } from '../shared/stats.js';

test('lengths double from 16', () => {
  expect(lengths(128)).toEqual([16, 32, 64, 128]);
  expect(lengths(100)).toEqual([16, 32, 64]);
});

test('flop model: quadratic in T at fixed D, and a fit recovers a known rate', () => {
  expect(attentionFlops(2, 1) / attentionFlops(1, 1)).toBeCloseTo((16 + 16) / (4 + 8), 12);
  // T ≫ D: the T² term dominates.
  expect(attentionFlops(2048, 64) / attentionFlops(1024, 64)).toBeGreaterThan(3.5);
  const Ts = lengths(1024), ms = Ts.map((T) => attentionFlops(T, 64) / 1e7);
  expect(fitProportional(Ts.map((T) => attentionFlops(T, 64)), ms)).toBeCloseTo(1e-7, 15);
});

test('timeLengths: one result per T, a pause before every slice, stops when asked', async () => {
  const { timeLengths } = await import('./timing.js');
  const seen = [];
  let pauses = 0;
  const lab = { multiHeadAttention: (a) => { seen.push(a.tq); return { output: new Float32Array(a.tq * a.dModel) }; } };
  const results = [];
  await timeLengths(lab, { dModel: 8, heads: 2, Ts: [16, 32], outputOnly: true, warmupMs: 1, minTimeMs: 1 },
    { stopped: () => false, onResult: (r) => results.push(r), pause: async () => { pauses++; } });
  expect(results.map((r) => r.T)).toEqual([16, 32]);
  for (const r of results) { expect(r.calls).toBeGreaterThanOrEqual(3); expect(r.ms).toBeGreaterThanOrEqual(0); }
  expect(seen.filter((t) => t === 32).length).toBe(results[1].calls + 1);  // + the untimed first call
  expect(pauses).toBeGreaterThanOrEqual(3);
  let n = 0;
  const stopped = [];
  await timeLengths(lab, { dModel: 8, heads: 2, Ts: [16, 32], outputOnly: true, warmupMs: 1, minTimeMs: 1 },
    { stopped: () => ++n > 2, onResult: (r) => stopped.push(r), pause: async () => {} });
  expect(stopped).toEqual([]);
});
