// The slide layout of <attn-multihead> at the boxes the two decks give it at 1280×720: every map a
// click is about is drawn with cells that hold its numbers at an 18 px glyph box on screen.
import { describe, expect, test } from 'vitest';
import { cellOf } from '../shared/pack.js';
import { numberFont } from '../shared/heatmap.js';
import { CAT_SAT, headSlice } from './logic.js';
import { cellFor, numberChars, pickSlide, slideFonts, slideLevels } from './slide.js';

// A stand-in for lab.multiHeadAttention's result: the layout depends on shapes and value ranges only.
const result = (t, D, H) => ({
  q: new Float32Array(t * D).fill(1.2), k: new Float32Array(t * D).fill(1.4), v: new Float32Array(t * D).fill(0.6),
  weights: new Float32Array(H * t * t).fill(0.33), heads: new Float32Array(t * D).fill(1.27), output: new Float32Array(t * D).fill(4.1),
});
// [deck slide, box width, box height under the widget's strip and formula (measured in the built
// decks), screen px per CSS px, heads, the stages its clicks show]
const BOXES = [
  ['Slidev worked example (two-cols is-4)', 672, 416, 1.16, 2, [0, 1, 2, 3, 4]],
  ['Slidev multi-head (two-cols is-5)', 588, 416, 1.16, 2, [0, 1, 2, 3, 4]],
  ['reveal.js multi-head (two-col)', 575, 507, 1239 / 1180, 2, [0, 1, 2, 3, 4]],
  ['reveal.js linear output layer (two-col, one head)', 575, 507, 1239 / 1180, 1, [3, 4]],
];

describe('slide layout: the maps of each stage show their numbers', () => {
  for (const [name, width, height, scale, heads, stages] of BOXES) {
    {
      test(name, () => {
        const { minFont } = slideFonts(scale);
        const m = { ...CAT_SAT, heads, r: result(3, 4, heads), fixed: true, minFont, headSlice, phase: null };
        for (const stage of stages) {
          const pick = pickSlide(slideLevels(stage, m), width, height, minFont, { maxCell: 110 });
          expect(pick.fit.fits, `stage ${stage}`).toBe(true);
          const drawn = pick.rows.flatMap((r, i) => r.panels.map((p, j) => [p.cls, pick.fit.sizes[i][j].cell, numberChars(p)]));
          const cls = drawn.map(([c]) => c);
          if (stage === 0) expect(cls).toEqual(expect.arrayContaining(['x', 'wq', 'wk', 'wv']));
          if (stage === 4) expect(cls).toEqual(expect.arrayContaining(['concat', 'wo', 'output']));
          // Every map's numbers, with 2 decimals, at the font that makes an 18 px glyph box on screen.
          for (const [c, cell, chars] of drawn) expect(numberFont(cell, chars), `stage ${stage} ${c}: ${cell} px cells`).toBeGreaterThanOrEqual(minFont);
        }
      });
    }
  }
});

test('slideFonts: 18 px numbers and 14 px legends on screen; cellFor is the smallest cell for a font', () => {
  for (const s of [1, 1.05, 1.16, 2]) {
    const f = slideFonts(s);
    expect(f.numFont * 1.16 * s).toBeGreaterThanOrEqual(18.5);
    expect(f.minFont * 0.9 * s).toBeGreaterThanOrEqual(14);
    for (const chars of [1, 3, 4]) {
      const c = cellFor(chars, f.minFont);
      expect(numberFont(c, chars)).toBeGreaterThanOrEqual(f.minFont);
      expect(numberFont(c - 1, chars)).toBeLessThan(f.minFont);
    }
  }
  expect(numberChars({ values: [0.1, 1.6], digits: 1 })).toBe(3);
  expect(numberChars({ values: [-0.4, 3.1], digits: 4 })).toBe(5);
  expect(cellOf({ weight: 1 }, 40)).toBe(40);
});
