// Positional encodings: sinusoidal (positionalEncoding({ kind: 'sinusoidal' })), learned, RoPE (rope) and
// ALiBi (alibi). Vs the formulas: golden.test.js; bad input: bad-input.test.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { TOL, expectClose, golden, randomArray, seededRandom } from './helpers.js';
import { ramp } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

const rand = seededRandom(42);

describe('positional encodings', () => {
  const g = golden('positional');
  test('sinusoidal default base is 10000', () => {
    const c = g.cases.find((x) => x.base === 10000 && x.length > 1);
    expect(Array.from(lab.positionalEncoding({ kind: 'sinusoidal', length: c.length, dModel: c.dModel })))
      .toEqual(Array.from(lab.positionalEncoding({ kind: 'sinusoidal', length: c.length, dModel: c.dModel, base: 10000 })));
  });
  test('RoPE: q·k after rotation depends only on the position offset', () => {
    const q = randomArray(8, rand), k = randomArray(8, rand);
    const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
    const d1 = dot(lab.rope({ x: q, t: 1, dim: 8, offset: 7 }), lab.rope({ x: k, t: 1, dim: 8, offset: 3 }));
    const d2 = dot(lab.rope({ x: q, t: 1, dim: 8, offset: 20 }), lab.rope({ x: k, t: 1, dim: 8, offset: 16 }));
    expectClose(d1, d2, 'q·k', TOL.reorder);
  });
  test('learned positional encodings are rows of the table, and refuse to go past it', () => {
    const table = randomArray(6 * 4, rand);
    expect(Array.from(lab.positionalEncoding({ kind: 'learned', table, maxLength: 6, dModel: 4, length: 3 }))).toEqual(Array.from(table.slice(0, 12)));
    expect(() => lab.positionalEncoding({ kind: 'learned', table, maxLength: 6, dModel: 4, length: 7 })).toThrow(/beyond the length it was trained for/);
  });
  test('rope at position 2^24 stays a rotation (finite, lengths kept)', () => {
    const x = ramp(8, 1);
    const r = lab.rope({ x, t: 2, dim: 4, offset: 2 ** 24 });
    for (let i = 0; i < 8; i += 2) expectClose(Math.hypot(r[i], r[i + 1]), Math.hypot(x[i], x[i + 1]), `pair ${i / 2} length`, TOL.reorder);
  });
});
