import { expect, test } from 'vitest';
import { attentionFlops, lengths, tAxis } from './logic.js';
import { fitTicksX } from '../shared/plot.js';
import { plotInner } from '../shared/fit-boxes.js';
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

test('the attention core counts no projections: 4T²d, and flopsOf picks the op', async () => {
  const { coreFlops, flopsOf } = await import('./logic.js');
  expect(coreFlops(128, 64)).toBe(4 * 128 * 128 * 64);
  expect(flopsOf('attention', 128, 64)).toBe(coreFlops(128, 64));
  expect(flopsOf('multihead', 128, 64)).toBe(attentionFlops(128, 64));
  expect(flopsOf('multihead', 128, 64) - flopsOf('attention', 128, 64)).toBe(8 * 128 * 64 * 64);  // the projections
});

test('reference slopes ∝ T and ∝ T² meet the largest T; lastSlope reads the local power', async () => {
  const { referenceSlopes, lastSlope } = await import('./logic.js');
  const res = [16, 32, 64, 128].map((T) => ({ T, ms: 1e-4 * T * T + 0.01 }));
  const [lin, quad] = referenceSlopes(res);
  expect(lin.power).toBe(1);
  expect(quad.power).toBe(2);
  expect(lin.points.at(-1)).toEqual([128, res[3].ms]);
  expect(quad.points.at(-1)).toEqual([128, res[3].ms]);
  expect(lin.points[0][1]).toBeCloseTo(res[3].ms / 8, 12);
  expect(quad.points[0][1]).toBeCloseTo(res[3].ms / 64, 12);
  expect(lastSlope(res)).toBeGreaterThan(1.5);
  expect(lastSlope(res)).toBeLessThan(2);
  expect(lastSlope([{ T: 16, ms: 1 }, { T: 32, ms: 2 }])).toBeCloseTo(1, 12);
  expect(referenceSlopes([])).toEqual([]);
});

test('op "attention" times lab.attention (Q, K, V of T × d, one head), no projection weights', async () => {
  const { callFor } = await import('./timing.js');
  const calls = [];
  const lab = { attention: (a) => calls.push(['attention', a]), multiHeadAttention: (a) => calls.push(['multihead', a]) };
  callFor(lab, { op: 'attention', dModel: 8, heads: 2 }, 32)();
  expect(calls[0][0]).toBe('attention');
  expect(calls[0][1]).toMatchObject({ tq: 32, tk: 32, dk: 8, dv: 8 });
  expect(calls[0][1].q).toHaveLength(32 * 8);
  expect(calls[0][1].wq).toBeUndefined();
  callFor(lab, { dModel: 8, heads: 2, outputOnly: true }, 16)();
  expect(calls[1][0]).toBe('multihead');
  expect(calls[1][1]).toMatchObject({ tq: 16, dModel: 8, heads: 2, intermediates: false });
});

test('the shipped timings: the attention core at d 64, labelled, T doubling from 16, growing about as T² at the end', async () => {
  const { REFERENCE } = await import('./reference.js');
  const { lastSlope, lengths } = await import('./logic.js');
  expect(REFERENCE).toMatchObject({ op: 'attention', dModel: 64 });
  expect(REFERENCE.where).toMatch(/\w/);
  expect(REFERENCE.date).toMatch(/^\d{4}-\d\d-\d\d$/);
  expect(REFERENCE.results.map((r) => r.T)).toEqual(lengths(REFERENCE.results.at(-1).T));
  for (const r of REFERENCE.results) expect(r.ms).toBeGreaterThan(0);
  expect(lastSlope(REFERENCE.results)).toBeGreaterThan(1.6);
});

test('timeLengths reports the median slice: one preempted slice does not move it', async () => {
  const { timeLengths, median } = await import('./timing.js');
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  // A fake clock: every call takes 10 ms except the 2nd timed call at T = 32, which takes 400 ms.
  let t = 0, at32 = 0;
  const lab = { multiHeadAttention: (a) => { t += a.tq === 32 && ++at32 === 3 ? 400 : 10; } };
  const results = [];
  await timeLengths(lab, { dModel: 8, heads: 2, Ts: [16, 32], outputOnly: true, warmupMs: 1, minTimeMs: 30, sliceMs: 5 },
    { stopped: () => false, onResult: (r) => results.push(r), pause: async () => {}, now: () => t });
  expect(results.map((r) => r.ms)).toEqual([10, 10]);  // the mean at T = 32 would be (10 + 400 + ...) / calls
  expect(results[1].calls).toBeGreaterThanOrEqual(3);
});

// At 390 px the page plot is ~330 px wide; with largest T = 256 its x axis showed only '15.05' and
// '272.1' (the log ticks fell back to the axis ends when no two powers of ten were inside).
test('the T axis is marked at the lengths timed, enough of them at every width and largest T', () => {
  for (const maxT of [128, 256, 512, 1024, 2048]) for (const [width, fs] of [[300, 12], [340, 12], [440, 12], [420, 16], [900, 16]]) {
    const { xDomain, xTicks } = tAxis(maxT, width, fs);
    const [x0, x1] = xDomain.map(Math.log10);
    const shown = fitTicksX({ x0, x1, log: true, inner: plotInner(width, 100, fs).width, fontSize: fs, ticks: xTicks });
    expect(shown.length, `${maxT} at ${width}px`).toBeGreaterThanOrEqual(Math.min(3, lengths(maxT).length));
    for (const T of shown) expect(lengths(maxT)).toContain(T);
    expect(shown[0]).toBe(16);
  }
  expect(tAxis(256, 340, 12).xTicks).toEqual([16, 32, 64, 128, 256]);
});
