// Linked highlighting's readouts and highlights, on the core's numbers (the real WASM build).
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from '../../api/index.js';
import { fmt } from '../shared/format.js';
import { project } from '../shared/lab.js';
import { PRESETS, maskArgument } from './logic.js';
import { linkFrom, linkProps, readoutFor } from './link.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

// The widget's compute() for the football preset with a hand-edited mask (keep flags) and τ.
function compute(keep, temperature = 1) {
  const p = PRESETS.football, t = 3;
  const q = project(lab, p.x, p.wq, t, p.dIn, p.dk), k = project(lab, p.x, p.wk, t, p.dIn, p.dk), v = project(lab, p.x, p.wv, t, p.dIn, p.dk);
  const base = { q, k, v, tq: t, tk: t, dk: 2, dv: 2, scale: 1 / Math.sqrt(2) / temperature };
  const unmasked = lab.attention(base), r = lab.attention({ ...base, mask: maskArgument('custom', t, { keep }) });
  const m = Float32Array.from(r.scaled, (s) => (s === -Infinity ? -Infinity : 0));
  return { c: { t, q, k, v, unmasked, r, m }, s: { ...p, scale: 'sqrt', temperature } };
}

describe('steps/link', () => {
  test('a cell names its query, key and value dimension', () => {
    expect(linkFrom('weights', { row: 1, col: 2 })).toEqual({ query: 1, key: 2, dcol: null, source: 'weights' });
    expect(linkFrom('output', { row: 0, col: 1 })).toEqual({ query: 0, key: null, dcol: 1, source: 'output' });
    expect(linkFrom('v', { row: 2, col: 0 })).toEqual({ query: null, key: 2, dcol: 0, source: 'v' });
    expect(linkFrom('weights', null)).toBe(null);
  });

  test('V is weighted by the query\u2019s row of A; t×t maps get its row and the key\u2019s column', () => {
    const { c } = compute([1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const link = linkFrom('weights', { row: 0, col: 1 });
    expect(linkProps('v', link, c.r.weights, 3).weights).toEqual(Array.from(c.r.weights.subarray(0, 3)));
    expect(linkProps('scaled', link, c.r.weights, 3)).toMatchObject({ rows: [0], cols: [1] });
    expect(linkProps('x', link, c.r.weights, 3)).toEqual({ rows: null, cols: null, weights: null });
  });

  test('readouts: masked keys leave the softmax sum, a row with no visible key says so, τ shows in the scaling', () => {
    const { c, s } = compute([1, 0, 1, 0, 0, 0, 1, 1, 1], 0.5);
    const sc = (i) => fmt(c.r.scaled[i], 4);
    expect(readoutFor('weights', c, s)(0, 0)).toBe(`I, I: e^s_ij / Σ_j' e^s_ij' = e^${sc(0)} / (e^${sc(0)} + e^${sc(2)}) = ${fmt(c.r.weights[0], 4)}`);
    expect(readoutFor('weights', c, s)(0, 1)).toBe('I, play: key masked: e^−∞ = 0, A_ij = 0.0000');
    expect(readoutFor('weights', c, s)(1, 0)).toBe('play, I: no key is visible to this query: e^−∞ = 0, A_ij = 0.0000');
    expect(readoutFor('masked', c, s)(0, 1)).toBe(`I, play: s_ij + M_ij = ${fmt(c.unmasked.scaled[1], 4)} + (−∞) = −∞`);
    expect(readoutFor('scaled', c, s)(0, 0)).toBe(`I, I: s_ij ÷ (√d_k·τ) = 0.3000 ÷ (√2·0.5) = ${fmt(c.unmasked.scaled[0], 4)}`);
    expect(readoutFor('q', c, s)(0, 0)).toBe('I, d1: x_i·W_Q[:, 1] = 0.2·1 + 0.4·0 + 0.6·1 = 0.8000');
    expect(readoutFor('scores', c, s)(0, null)).toBe('');  // a row label: the map's default readout
    // A slide's caption (compact): no cell prefix, the softmax without its symbolic form.
    expect(readoutFor('weights', c, s)(0, 0, { compact: true })).toBe(`e^${sc(0)} / (e^${sc(0)} + e^${sc(2)}) = ${fmt(c.r.weights[0], 4)}`);
    expect(readoutFor('scores', c, s)(0, 0, { compact: true })).toBe('q_i·k_j = 0.8·0.5 + (−0.2)·0.5 = 0.3000');
  });
});
