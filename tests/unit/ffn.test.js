// feedForward (x·W1 + b1 → activation → ·W2 + b2) against a float64 reference. activation and the FFN
// inside torch's encoder layers vs PyTorch: golden.test.js; bad input: bad-input.test.js.
import { beforeAll, describe, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { absMatmul, expectCloseScaled, matmul, randomArray, seededRandom } from './helpers.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

describe('feed-forward', () => {
  test('matches a float64 reference (ReLU and GELU-tanh, odd sizes, with and without biases)', () => {
    const rand = seededRandom(31);
    for (const [rows, D, F, act, bias] of [[3, 5, 7, 'relu', true], [4, 6, 24, 'gelu_tanh', false], [1, 1, 1, 'relu', true]]) {
      const x = randomArray(rows * D, rand), w1 = randomArray(D * F, rand, 0.5), w2 = randomArray(F * D, rand, 0.5);
      const b1 = bias ? randomArray(F, rand) : undefined, b2 = bias ? randomArray(D, rand) : undefined;
      const r = lab.feedForward({ x, rows, dModel: D, dFF: F, w1, b1, w2, b2, activation: act });
      const pre = Float64Array.from(matmul(Array.from(x), Array.from(w1), rows, D, F), (v, i) => v + (b1 ? b1[i % F] : 0));
      const f = act === 'relu' ? (v) => Math.max(v, 0)
        : (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
      const hidden = pre.map(f);
      const out = Float64Array.from(matmul(Array.from(hidden), Array.from(w2), rows, F, D), (v, i) => v + (b2 ? b2[i % D] : 0));
      expectCloseScaled(r.pre, pre, absMatmul(Array.from(x), Array.from(w1), b1, rows, D, F), 'pre');
      expectCloseScaled(r.activated, hidden, absMatmul(Array.from(x), Array.from(w1), b1, rows, D, F), 'activated');
      expectCloseScaled(r.output, out, absMatmul(Array.from(hidden), Array.from(w2), b2, rows, F, D), 'output');
    }
  });
});
