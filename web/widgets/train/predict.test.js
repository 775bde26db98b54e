// <attn-train>'s predict stage (predict.js): the stages, the guess's range, and the reveal against the
// loss the core computes with the head mask (web/train's inspect on a pretrained snapshot).
import { describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { loadPretrained } from '../../train/pretrained.js';
import { evalContext, inspectModel, resolveOptions } from '../../train/engine.js';
import { GUESS_RANGE, PREDICT, fitGuess, revealLoss, uniformLoss } from './predict.js';

describe('training widget predict stage', () => {
  test('stages 0–3 train as before, 4 is the guess (stage 3 shown), 5 the ablation\'s result', () => {
    expect(PREDICT.names).toEqual(['untrained', 'loss falls', 'previous-token head', 'induction head', 'predict', 'ablated']);
    expect([0, 3, 4, 5].map((s) => PREDICT.phase(s))).toEqual(['before', 'before', 'guess', 'reveal']);
    expect([3, 4, 5].map((s) => PREDICT.own(s))).toEqual([3, 3, 4]);
  });

  test('an absent guess starts at the loss with every head; a guess stays on the slider', () => {
    expect(fitGuess(null, 0.967)).toBeCloseTo(0.95, 9);
    expect(fitGuess(99, 1)).toBe(GUESS_RANGE[1]);
    expect(fitGuess(-1, 1)).toBe(GUESS_RANGE[0]);
    expect(uniformLoss(15)).toBeCloseTo(2.70805, 5);
  });

  test('the reveal: the guess against the loss the core computes without the induction head', async () => {
    const lab = await createAttnLab();
    const pre = await loadPretrained('induction');
    const ctx = evalContext(resolveOptions({ task: { name: 'induction', ...pre.meta.taskOptions }, evalSize: pre.meta.evalSize }));
    const model = lab.loadModel(pre.snapshots.at(-1).bytes);
    try {
      const base = inspectModel(model, ctx);
      const [l, h] = [1, base.heads[1].findIndex((x) => x.induction === Math.max(...base.heads[1].map((y) => y.induction)))];
      const mask = [1, 1, 1, 1];
      mask[l * 2 + h] = 0;
      const off = inspectModel(model, ctx, mask);
      // The loss revealed is the mean of the per-position losses with the head masked.
      const mean = Array.from(off.tokenLosses).reduce((a, b) => a + b, 0) / off.tokenLosses.length;
      expect(off.loss).toBeCloseTo(mean, 5);
      expect(off.loss).toBeGreaterThan(base.loss);
      const r = revealLoss({ guess: 2, start: base.loss, actual: off.loss });
      expect(r.error).toBeCloseTo(Math.abs(2 - off.loss), 9);
      expect(r.share).toBeCloseTo(r.error / 8, 9);
      expect(revealLoss({ guess: Math.round(off.loss * 20) / 20, start: base.loss, actual: off.loss }).verdict).toBe('close');
    } finally {
      model.dispose();
    }
  });
});
