// layerNorm and rmsNorm: a float64 reference at a large offset, defaults, constant rows. Vs PyTorch:
// golden.test.js; bad input: bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { expectClose, golden } from './helpers.js';
import { fill } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const g = golden('blocks');

describe('LayerNorm and RMSNorm', () => {
  test('a large common offset does not cancel the variance (two-pass, vs a float64 reference)', () => {
    const c = g.layerNorm.find((x) => x.name.includes('offset100'));
    const y = lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim, gamma: c.gamma, beta: c.beta, eps: c.eps });
    const ref = new Float64Array(c.x.length);
    for (let r = 0; r < c.rows; r++) {
      const row = c.x.slice(r * c.dim, (r + 1) * c.dim);
      const mean = row.reduce((s, v) => s + v, 0) / c.dim;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / c.dim;
      row.forEach((v, i) => { ref[r * c.dim + i] = (v - mean) / Math.sqrt(variance + c.eps) * c.gamma[i] + c.beta[i]; });
    }
    expectClose(y, ref, 'layerNorm offset 100 vs float64');
  });
  test('defaults: eps 1e-5 for LayerNorm, gamma 1 and beta 0', () => {
    const c = g.layerNorm.find((x) => x.gamma === null && x.eps === 1e-5);
    expect(Array.from(lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim }))).toEqual(
      Array.from(lab.layerNorm({ x: c.x, rows: c.rows, dim: c.dim, eps: 1e-5, gamma: new Float32Array(c.dim).fill(1), beta: new Float32Array(c.dim) })));
  });
  test('layerNorm of a constant row is 0 (variance 0 + eps), rmsNorm of zeros is 0', () => {
    expect(Array.from(lab.layerNorm({ x: fill(4, () => 1e30), rows: 1, dim: 4 }))).toEqual([0, 0, 0, 0]);
    expect(Array.from(lab.rmsNorm({ x: fill(4, () => 0), rows: 1, dim: 4 }))).toEqual([0, 0, 0, 0]);
  });
});
