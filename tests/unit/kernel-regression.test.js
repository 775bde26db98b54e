// kernelRegression (Nadaraya-Watson) as attention, against a direct float64 computation. Bad input:
// bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { expectClose, expectCloseScaled, randomArray, seededRandom } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

describe('kernel regression (Nadaraya-Watson) as attention', () => {
  // Direct float64 computation: w_i = exp(f(x, x_i)/h) / Σ_j exp(f(x, x_j)/h), prediction = Σ w_i y_i.
  function reference(xs, ys, queries, dim, bandwidth, kernel) {
    const n = ys.length, nq = queries.length / dim;
    const weights = new Float64Array(nq * n), predictions = new Float64Array(nq);
    for (let q = 0; q < nq; q++) {
      const f = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let d = 0; d < dim; d++) {
          const a = queries[q * dim + d], b = xs[i * dim + d];
          s += kernel === 'gaussian' ? -((a - b) ** 2) : a * b;
        }
        return s / bandwidth;
      });
      const m = Math.max(...f);
      const e = f.map((v) => Math.exp(v - m)), z = e.reduce((s, v) => s + v, 0);
      e.forEach((v, i) => { weights[q * n + i] = v / z; predictions[q] += (v / z) * ys[i]; });
    }
    return { weights, predictions };
  }

  test("the deck's example: data (1.36, 1.79), (3.40, −1.77), (6.05, −2.17), query x = 4.25", () => {
    const xs = [1.36, 3.40, 6.05], ys = [1.79, -1.77, -2.17], queries = [4.25];
    const r = lab.kernelRegression({ xs, ys, queries, bandwidth: 1 });
    const ref = reference(xs.map(Math.fround), ys.map(Math.fround), queries, 1, 1, 'gaussian');
    expectClose(r.weights, ref.weights, 'weights');
    expectClose(r.predictions, ref.predictions, 'predictions');
    expectClose(r.scores, xs.map((x) => -((Math.fround(4.25) - Math.fround(x)) ** 2)), 'scores');
  });

  test.each([
    ['1-D gaussian, bandwidth 0.5', 1, 'gaussian', 0.5],
    ['1-D dot', 1, 'dot', 2],
    ['2-D gaussian', 2, 'gaussian', 1.5],
    ['3-D dot', 3, 'dot', 1],
  ])('%s vs float64', (_n, dim, kernel, bandwidth) => {
    const rand = seededRandom(dim * 7 + bandwidth * 3);
    const n = 23, nq = 9;
    const xs = randomArray(n * dim, rand, 3), ys = randomArray(n, rand, 2), queries = randomArray(nq * dim, rand, 3);
    const r = lab.kernelRegression({ xs, ys, queries, bandwidth, kernel, dim });
    const ref = reference(xs, ys, queries, dim, bandwidth, kernel);
    expectClose(r.weights, ref.weights, 'weights');
    expectCloseScaled(r.predictions, ref.predictions, Array.from({ length: nq }, () => ys.reduce((m, v) => Math.max(m, Math.abs(v)), 0)), 'predictions');
  });

  test('the dot kernel is exactly scaled dot-product attention with scale 1/bandwidth', () => {
    const rand = seededRandom(5);
    const xs = randomArray(14, rand), ys = randomArray(7, rand), queries = randomArray(6, rand);
    const r = lab.kernelRegression({ xs, ys, queries, dim: 2, kernel: 'dot', bandwidth: 4 });
    const a = lab.attention({ q: queries, k: xs, v: ys, tq: 3, tk: 7, dk: 2, dv: 1, scale: 0.25 });
    expect(Array.from(r.weights)).toEqual(Array.from(a.weights));
    expect(Array.from(r.predictions)).toEqual(Array.from(a.output));
  });
});
