import { describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { dataset } from './logic.js';
import { PREDICT, fitGuess, guessRange, revealPrediction } from './predict.js';

describe('kernel regression predict stage', () => {
  test('stage 0 is the guess, stage 1 the result; stepping back hides it again', () => {
    expect([PREDICT.phase(0), PREDICT.phase(1), PREDICT.phase(0)]).toEqual(['guess', 'reveal', 'guess']);
    expect(PREDICT.names).toEqual(['predict', 'result']);
  });

  test('the guess range covers the targets; an absent guess starts in its middle', () => {
    const ys = [1.79, -1.77, -2.17];
    const [lo, hi] = guessRange(ys);
    expect(lo).toBeLessThanOrEqual(-2.17);
    expect(hi).toBeGreaterThanOrEqual(1.79);
    expect(fitGuess(undefined, [lo, hi])).toBeCloseTo((lo + hi) / 2, 1);
    expect(fitGuess(99, [lo, hi])).toBe(hi);
  });

  test('the reveal uses ŷ from the core: off by |guess − ŷ| over the targets\' range', async () => {
    const lab = await createAttnLab();
    const data = dataset(20, 1);
    const xs = data.map((p) => p[0]), ys = data.map((p) => p[1]);
    const yhat = lab.kernelRegression({ xs, ys, queries: [4.25], bandwidth: 0.5 }).predictions[0];
    const span = Math.max(...ys) - Math.min(...ys);
    const exact = revealPrediction({ guess: Math.round(yhat * 100) / 100, yhat, ys });
    expect(exact.error).toBeLessThan(0.006);
    expect(exact.verdict).toBe('close');
    const off = revealPrediction({ guess: yhat + 1, yhat, ys });
    expect(off.error).toBeCloseTo(1, 5);
    expect(off.share).toBeCloseTo(1 / span, 5);
    expect(off.verdict).toBe(1 / span <= 0.15 ? 'partly right' : 'far off');
  });
});
