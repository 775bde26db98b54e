// The trained encoder–decoder's shipped snapshots (web/train/pretrained/cross/, written by
// tools/pretrain_cross.cc): the asset is what index.json says, and every cross-attention map it ships
// is the map the core computes again from that snapshot's shipped weights (web/widgets/cross/trained.js,
// lab.multiHeadAttention with a context), within 1e-4: the widget shows computed numbers.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { crossForward, digitsOf, loadCrossRun, numberWords } from '../../web/widgets/cross/trained.js';

let lab, run;
beforeAll(async () => { lab = await createAttnLab(); run = await loadCrossRun(); });

describe('the shipped cross-attention snapshots', () => {
  test('index.json describes weights.bin: contiguous tensors, one block of floats per snapshot', () => {
    const { meta, snapshots } = run;
    expect(snapshots.length).toBeGreaterThanOrEqual(8);
    expect(snapshots.length).toBeLessThanOrEqual(12);
    let offset = 0;
    for (const t of meta.tensors) {
      expect(t.offset).toBe(offset);
      offset += t.shape.reduce((a, b) => a * b, 1);
    }
    expect(offset).toBe(meta.floatsPerSnapshot);
    for (const s of snapshots) {
      expect(s.params.length).toBe(meta.floatsPerSnapshot);
      expect(s.params.every(Number.isFinite)).toBe(true);
    }
    const steps = snapshots.map((s) => s.step);
    expect(steps[0]).toBe(0);
    expect(steps).toEqual(steps.slice().sort((a, b) => a - b));
    // Training moved the weights between snapshots.
    expect(snapshots[1].params).not.toEqual(snapshots[0].params);
  });

  test('the examples are the words the training data wrote, and the run learned the task', () => {
    const { meta, snapshots } = run;
    for (const ex of meta.examples) expect(ex.source.map((i) => meta.srcVocab[i])).toEqual(numberWords(ex.number));
    expect(numberWords(4326)).toEqual(['four', 'thousand', 'three', 'hundred', 'twenty', 'six']);
    expect(numberWords(7513)).toEqual(['seven', 'thousand', 'five', 'hundred', 'thirteen']);
    expect(numberWords(9000)).toEqual(['nine', 'thousand']);
    const first = snapshots[0], last = snapshots.at(-1);
    expect(first.accuracy).toBeLessThan(0.01);
    expect(last.accuracy).toBeGreaterThan(0.99);      // exact match of the four digits, held-out numbers
    expect(last.evalLoss).toBeLessThan(first.evalLoss / 100);
    expect(last.maps.map((m) => m.output)).toEqual(meta.examples.map((e) => String(e.number)));
  });

  test('every shipped map is the one the core computes from that snapshot\'s shipped weights (within 1e-4)', () => {
    const { meta, snapshots } = run;
    let worst = 0;
    for (const s of snapshots) {
      meta.examples.forEach((ex, k) => {
        const r = crossForward(lab, run, s.index, ex.number);
        const shipped = s.maps[k].weights;
        expect(r.weights.length).toBe(shipped.length);
        expect(shipped.length).toBe(4 * ex.source.length);
        for (let i = 0; i < shipped.length; i++) worst = Math.max(worst, Math.abs(r.weights[i] - shipped[i]));
        // Each query's weights sum to 1 over the source words.
        for (let row = 0; row < 4; row++) {
          const sum = shipped.slice(row * ex.source.length, (row + 1) * ex.source.length).reduce((a, b) => a + b, 0);
          expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
        }
      });
    }
    expect(worst).toBeLessThan(1e-4);
  });

  test('the final snapshot writes each example\'s digits and aligns each digit with its word', () => {
    const last = run.snapshots.length - 1;
    const r = crossForward(lab, run, last, 4326);
    expect(r.predicted).toEqual(digitsOf(4326));
    const argmax = [0, 1, 2, 3].map((row) => {
      const w = Array.from(r.weights.subarray(row * r.words.length, (row + 1) * r.words.length));
      return r.words[w.indexOf(Math.max(...w))];
    });
    expect(argmax).toEqual(['four', 'three', 'twenty', 'six']);
    // Untrained, the same map is no alignment: no row puts 0.9 on one word.
    const r0 = crossForward(lab, run, 0, 4326);
    expect(Math.max(...r0.weights)).toBeLessThan(0.9);
    expect(crossForward(lab, run, last, 7513).predicted).toEqual([7, 5, 1, 3]);
  });
});
