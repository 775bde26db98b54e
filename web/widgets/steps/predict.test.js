import { describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { PREDICT, STAGES, fitGuess, fitRow, revealRow } from './predict.js';
import { PRESETS } from './logic.js';
import { normalise, totalVariation } from '../shared/predict.js';

describe('steps predict stage', () => {
  test('the predict stage sits before the softmax; stepping forward and back maps to the widget\'s own stages', () => {
    expect(PREDICT.names).toEqual(['inputs', 'Q, K, V', 'scores', 'scaled', 'masked', 'predict', 'softmax', 'output']);
    const forward = PREDICT.names.map((_, s) => [PREDICT.phase(s), PREDICT.own(s)]);
    expect(forward).toEqual([['before', 0], ['before', 1], ['before', 2], ['before', 3], ['before', 4], ['guess', 4], ['reveal', 5], ['reveal', 6]]);
    // Back from the reveal: the guess stage again, which hides the softmax.
    expect(PREDICT.phase(5)).toBe('guess');
    expect(STAGES[PREDICT.own(6)]).toBe('softmax');
    expect(PREDICT.fromOwn(5)).toBe(6);
    expect(PREDICT.fromOwn(3)).toBe(3);
    expect(PREDICT.phase(null)).toBe('reveal');
    expect(PREDICT.own(99)).toBe(6);
  });

  test('a guess is kept, clamped to 0 … 100, padded with 50 when the sequence grows', () => {
    expect(fitGuess([10, 200, -3], 4)).toEqual([10, 100, 0, 50]);
    expect(fitGuess(null, 3)).toEqual([50, 50, 50]);
    expect(fitRow(7, 3)).toBe(2);
    expect(fitRow(undefined, 3)).toBe(0);
  });

  test('the reveal compares the guess with the row the core computed ("I / play / football", row "I")', async () => {
    const lab = await createAttnLab();
    const p = PRESETS.football, t = 3;
    const proj = (w) => lab.weightedSum({ weights: p.x, v: w, tq: t, tk: p.dIn, dv: p.dk });
    const r = lab.attention({ q: proj(p.wq), k: proj(p.wk), v: proj(p.wv), tq: t, tk: t, dk: p.dk, dv: p.dk });
    const row0 = Array.from(r.weights.slice(0, 3));
    // The study notes' row: 0.3233 0.3941 0.2826.
    expect(row0[1]).toBeCloseTo(0.3941, 3);
    // A uniform guess is close: TVD = ½ Σ |1/3 − a_j|.
    const uniform = revealRow({ guess: [50, 50, 50], weights: r.weights, row: 0, t });
    expect(uniform.tvd).toBeCloseTo(totalVariation([1 / 3, 1 / 3, 1 / 3], row0), 6);
    expect(uniform.tvd).toBeLessThan(0.1);
    expect(uniform.verdict).toBe('close');
    expect(uniform.top).toBe(1);
    expect(uniform.tied).toBe(true);
    // All the weight on "football": far off (TVD = 1 − a_football).
    const wrong = revealRow({ guess: [0, 0, 100], weights: r.weights, row: 0, t });
    expect(wrong.tvd).toBeCloseTo(1 - row0[2], 6);
    expect(wrong.verdict).toBe('far off');
    expect(wrong.topGuess).toBe(2);
    expect(wrong.tied).toBe(false);
    // Every guess's row is a probability row.
    expect(normalise([0, 0, 0])).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(wrong.guess.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  test('a masked key: the causal row 0 has one visible key, a guess spread over three is ⅔ off', async () => {
    const lab = await createAttnLab();
    const z = new Float32Array(6);
    const r = lab.attention({ q: z, k: z, v: z, tq: 3, tk: 3, dk: 2, dv: 2, mask: 'causal' });
    expect(revealRow({ guess: [50, 50, 50], weights: r.weights, row: 0, t: 3 }).tvd).toBeCloseTo(2 / 3, 6);
    expect(revealRow({ guess: [50, 50, 50], weights: r.weights, row: 2, t: 3 }).tvd).toBeCloseTo(0, 6);
  });

  test('PredictStages refuses an index outside the stages', async () => {
    const { PredictStages } = await import('../shared/predict.js');
    expect(() => new PredictStages(['a'], 3)).toThrow(/not a stage index/);
    const kr = new PredictStages(['result'], 0);
    expect(kr.names).toEqual(['predict', 'result']);
    expect([kr.phase(0), kr.phase(1), kr.own(0), kr.own(1)]).toEqual(['guess', 'reveal', -1, 0]);
  });
});
