// <attn-multihead>'s slide layout: what each stage draws (the maps as pack.js panels, in order of
// preference) and the type sizes that keep its numbers legible on the deck's screen.
import { choose, chunks, inputDigits } from '../shared/pack.js';
import { numberFont } from '../shared/heatmap.js';

const SUB = (n) => String(n).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[d]);

/**
 * Type sizes on a slide the deck draws at `scale` screen px per CSS px: numbers with an 18 px glyph box
 * (≈ 1.16 em) and axis labels at 14 px or more on screen. The label font keeps 0.9 of it at 14 px too
 * (the size a page's colour-bar legends are drawn at; a slide's legends use the label font itself).
 */
export function slideFonts(scale = 1) {
  const s = scale > 0.05 ? scale : 1;
  const numFont = Math.ceil(18.5 / (1.16 * s));
  return { numFont, minFont: Math.max(numFont, Math.ceil(14.2 / (0.9 * s))) };
}

/** Characters of a panel's longest number as the heatmap writes it (up to 2 decimals; its own rule). */
export function numberChars(p) {
  let longest = 1;
  for (const x of p.values) longest = Math.max(longest, String(Math.trunc(Math.abs(x))).length + (x < 0 ? 1 : 0));
  const d = Math.min(p.digits ?? 4, 2);
  return longest + (d ? d + 1 : 0);
}

/** The smallest cell (px) in which `chars` characters reach `font` px (heatmap.js's numberFont). */
export function cellFor(chars, font) {
  let c = 8;
  while (numberFont(c, chars) < font && c < 200) c++;
  return c;
}

/**
 * What to draw: the first level (richest first) whose best arrangement fits and gives every map at full
 * weight a cell that holds its numbers at `minFont`; else choose()'s pick over all levels.
 */
export function pickSlide(levels, width, height, minFont, opts = {}) {
  for (const level of levels) {
    const main = level.flat().flatMap((r) => r.panels).filter((p) => (p.weight ?? 1) >= 1);
    const enough = Math.max(...main.map((p) => cellFor(numberChars(p), minFont)));
    const top = choose([level], width, height, { ...opts, enough });
    if (top?.fit.fits && top.fit.cell >= enough) return top;
  }
  return choose(levels, width, height, { ...opts, enough: Infinity });
}

/**
 * The stage's panels for pack.js's choose(): levels (richest first) of arrangements (rows of panels).
 * m: { tokens, dModel, heads, x, wq, wk, wv, wo, r (lab.multiHeadAttention's result), phase (predict
 * phase or null), fixed (weights on [0, 1]), minFont, headSlice }.
 */
export function slideLevels(stage, m) {
  const { tokens, dModel: D, heads: H, r, fixed, minFont = 16, headSlice } = m, t = tokens.length, dk = D / H;
  const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);
  const concatLabels = Array.from({ length: D }, (_, j) => `h${Math.floor(j / dk) + 1}·${(j % dk) + 1}`);
  // Head·column without the "h" (3 characters): column labels that stay upright over ~37 px cells,
  // where "h1·1" turns and takes a row of the slide's height.
  const shortLabels = concatLabels.map((l) => l.slice(1));
  const P = (cls, label, values, rows, cols, rowLabels, colLabels, o = {}) => ({
    cls, label, values, rows, cols, rowLabels, colLabels, group: o.group ?? cls, weight: o.weight ?? 1, below: o.below ?? 0,
    digits: o.digits ?? 4, colormap: o.prob ? 'sequential' : 'diverging', minFont,
    vmin: o.prob && fixed ? 0 : null, vmax: o.prob && fixed ? 1 : null, groups: o.groups ?? false,
  });
  const perHead = (fn) => Array.from({ length: H }, (_, h) => fn(h));
  const row = (panels, ops) => ({ panels, ops });
  if (stage === 0) {
    const x = P('x', 'X', m.x, t, D, tokens, dims(D), { digits: inputDigits(m.x) });
    const w = (key, label, rl, cl) => P(key, label, m[key], D, D, rl, cl, { group: 'w', digits: inputDigits(m[key]) });
    const ws = [w('wq', 'W_Q', dims(D), shortLabels), w('wk', 'W_K', dims(D), shortLabels), w('wv', 'W_V', dims(D), shortLabels)];
    const wo = w('wo', 'W_O', shortLabels, dims(D));
    const layouts = (list) => [1, 2, 3].filter((n) => n <= list.length).map((k) => chunks(list, Math.ceil(list.length / k)).map((ps) => row(ps)));
    const small = (ps) => ps.map((p) => ({ ...p, weight: 0.55 }));
    // The W's are what this click is about: X and W_Q, W_K, W_V with their numbers (W_O is the point of
    // the output stage, drawn there with its numbers); X's 0/1 are written in its cells, so it needs no
    // colour bar, and the W's beside each other share one. Only if that cannot fit: the W's smaller.
    const xBare = { ...x, legend: false };
    const lim = Math.max(...ws.flatMap((p) => Array.from(p.values, Math.abs))) || 1;
    const wsOne = ws.map((p, i) => ({ ...p, vmin: -lim, vmax: lim, legend: i === ws.length - 1 }));  // one colour bar for the three
    return [[...layouts([x, ...ws, wo]), ...layouts([xBare, ...ws]), ...layouts([xBare, ...wsOne]), [row([xBare]), row(wsOne)]], layouts([x, ...small([...ws, wo])]), layouts([x, ...small(ws)]), [[row([x])]]];
  }
  if (stage === 1) {
    const which = m.phase === 'guess' ? [['q', 'Q', r.q], ['k', 'K', r.k]] : [['q', 'Q', r.q], ['k', 'K', r.k], ['v', 'V', r.v]];
    const qkv = (h) => which.map(([c, l, mat]) =>
      P(`${c} head${h + 1}`, `${l}${SUB(h + 1)}`, headSlice(mat, t, D, h, dk), t, dk, tokens, dims(dk), { group: 'qkv' }));
    const byHead = perHead(qkv);
    const arr = [];
    for (let k = 1; k <= H; k++) if (H % k === 0) arr.push(chunks(byHead, k).map((hs) => row(hs.flat(), hs.flatMap((_, i) => [i ? '|' : '', ...which.slice(1).map(() => '')]))));
    arr.push(which.map((_, i) => row(byHead.map((ps) => ps[i]))));
    return [arr];
  }
  if (stage === 2) {
    const ws = perHead((h) => P(`weights head${h + 1}`, `head ${h + 1}: A${SUB(h + 1)}`, r.weights.subarray(h * t * t, (h + 1) * t * t), t, t, tokens, tokens, { prob: true, group: 'A' }));
    const arr = [];
    for (let k = 1; k <= H; k++) if (H % k === 0) arr.push(chunks(ws, k).map((ps) => row(ps)));
    return [arr];
  }
  if (stage === 3) {
    const concat = P('concat', `Concat(${perHead((h) => `Z${SUB(h + 1)}`).join(', ')})`, r.heads, t, D, tokens, concatLabels, { group: 'z', below: 26, groups: true });
    return [[[row([concat])]]];
  }
  // Concat · W_O = output: all three with their numbers (W_O is the weight map this click is about).
  const concat = P('concat', 'Concat', r.heads, t, D, tokens, shortLabels, { group: 'z' });
  const wo = P('wo', 'W_O', m.wo, D, D, shortLabels, dims(D), { group: 'w', digits: inputDigits(m.wo) });
  const out = P('output', 'output', r.output, t, D, tokens, dims(D), { group: 'out' });
  const small = (p) => ({ ...p, weight: 0.6 });
  // Concat's numbers are written in its cells (and its colour bar was the last stage's): bare, it leaves
  // W_O beside it room for its numbers in a half-slide column.
  const bare = { ...concat, legend: false };
  return [
    [[row([concat, wo, out], ['', '×', '='])], [row([concat, wo], ['', '×']), row([out], ['='])], [row([bare, wo], ['', '×']), row([out], ['='])]],
    [[row([small(concat), small(wo), out], ['', '×', '='])], [row([small(concat), small(wo)], ['', '×']), row([out], ['='])]], [[row([out], ['='])]]];
}
