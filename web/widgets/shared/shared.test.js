// Unit tests of the widgets' shared pure logic: colour maps, hash parsing, RNG, statistics, ticks.
import { describe, expect, test } from 'vitest';
import { diverging, luminance, scaleFor, textOn, viridis } from './colormap.js';
import { MAX_PARAM_CHARS, readHashState, sanitize, writeHashState } from './hash.js';
import { gaussian, mulberry32, uniformMatrix } from './rng.js';
import { convexHull, entropy, fitProportional, fitProportionalRelative, mean, rowEntropies, variance } from './stats.js';
import { barLabels, niceTicks } from './ticks.js';
import { fitTicksX } from './plot.js';
import { fmt } from './format.js';

describe('colour maps', () => {
  test('viridis gets lighter monotonically (readable in greyscale and on a projector)', () => {
    let prev = -1;
    for (let i = 0; i <= 20; i++) {
      const l = luminance(viridis(i / 20));
      expect(l).toBeGreaterThan(prev);
      prev = l;
    }
    expect(viridis(0)).toEqual([0x44, 0x01, 0x54]);
    expect(viridis(1)).toEqual([0xfd, 0xe7, 0x25]);
  });
  test('diverging is white-ish at 0, blue below, orange above, and symmetric in lightness', () => {
    expect(luminance(diverging(0))).toBeGreaterThan(0.9);
    const [rb, , bb] = diverging(-1), [ro, , bo] = diverging(1);
    expect(bb).toBeGreaterThan(rb);
    expect(ro).toBeGreaterThan(bo);
    expect(Math.abs(luminance(diverging(-0.5)) - luminance(diverging(0.5)))).toBeLessThan(0.15);
  });
  test('scaleFor picks diverging for signed values, greys out −∞, and text contrasts', () => {
    expect(scaleFor([-1, 2]).kind).toBe('diverging');
    expect(scaleFor([0, 2]).kind).toBe('sequential');
    const s = scaleFor([0, 1, -Infinity]);
    expect(s.color(-Infinity)).toEqual([200, 200, 200]);
    expect(textOn([0, 0, 0])).toBe('#fff');
    expect(textOn([255, 255, 255])).toBe('#000');
    expect(textOn(viridis(1))).toBe('#000');
    expect(textOn(viridis(0))).toBe('#fff');
  });
  test('cell text reaches WCAG 4.5:1 on every colour of both maps', () => {
    let worst = Infinity;
    for (let i = 0; i <= 1000; i++) {
      for (const rgb of [viridis(i / 1000), diverging(2 * i / 1000 - 1)]) {
        const l = luminance(rgb), t = textOn(rgb) === '#fff' ? 1 : 0;
        worst = Math.min(worst, (Math.max(l, t) + 0.05) / (Math.min(l, t) + 0.05));
      }
    }
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });
  test('a fixed domain keeps a near-uniform row near-uniform', () => {
    // Weights 0.28 and 0.39 (the football example) on [0, 1]: close colours, not the map's two ends.
    const fixed = scaleFor([0.2826, 0.3941], 'sequential', [0, 1]);
    expect(fixed.min).toBe(0);
    expect(fixed.max).toBe(1);
    const dist = (a, b) => Math.hypot(...a.map((c, k) => c - b[k]));
    expect(dist(fixed.color(0.2826), fixed.color(0.3941))).toBeLessThan(0.3 * dist(viridis(0), viridis(1)));
    const own = scaleFor([0.2826, 0.3941], 'sequential');
    expect(own.color(0.2826)).toEqual(viridis(0));
  });
});

describe('URL hash state', () => {
  const schema = { mask: { type: 'enum', values: ['none', 'causal'] }, t: { type: 'num', min: 0.05, max: 20 },
    n: { type: 'int', min: 1, max: 8 }, on: { type: 'bool' }, x: { type: 'nums', maxLength: 4 }, w: { type: 'strings', maxLength: 3, maxChars: 5 } };
  test('round trip, other keys kept', () => {
    const state = { mask: 'causal', t: 0.5, n: 3, on: true, x: [1, -2.5], w: ['a', 'b'] };
    const hash = writeHashState('#other=%7B%7D', 'steps', state);
    expect(readHashState(hash, 'steps', schema)).toEqual({ state });
    expect(readHashState(hash, 'other', schema)).toEqual({ state: {} });
  });
  test('absent key: no state, no notice', () => {
    expect(readHashState('', 'steps', schema)).toEqual({ state: null });
    expect(readHashState('#/3', 'steps', schema)).toEqual({ state: null });
  });
  const hostile = [
    '#steps=%7B%22mask%22%3A%22caus',                    // truncated JSON
    '#steps=%E0%A4%A',                                    // broken percent-encoding
    '#steps=' + encodeURIComponent('{"mask":"<img src=x onerror=alert(1)>"}'),
    '#steps=' + encodeURIComponent('{"__proto__":{"n":1}}'),
    '#steps=' + encodeURIComponent('{"constructor":1}'),
    '#steps=' + encodeURIComponent('{"n":1e308}'),
    '#steps=' + encodeURIComponent('{"n":2.5}'),
    '#steps=' + encodeURIComponent('{"t":"1"}'),
    '#steps=' + encodeURIComponent('{"x":[1,"2"]}'),
    '#steps=' + encodeURIComponent('{"x":[1,2,3,4,5]}'),
    '#steps=' + encodeURIComponent('{"w":["toolongword"]}'),
    '#steps=' + encodeURIComponent('[1,2]'),
    '#steps=null',
    '#steps=' + 'a'.repeat(MAX_PARAM_CHARS + 1),
  ];
  test.each(hostile)('hostile hash %# gives no state and a notice', (hash) => {
    const r = readHashState(hash, 'steps', schema);
    expect(r.state).toBe(null);
    expect(r.notice).toMatch(/defaults/);
  });
  test('sanitize returns only schema keys and copies arrays', () => {
    const x = [1, 2];
    const r = sanitize({ x }, schema);
    expect(r.ok).toBe(true);
    expect(r.state.x).not.toBe(x);
  });
});

describe('rng', () => {
  test('seeded and reproducible, uniform in [0, 1)', () => {
    const a = mulberry32(42), b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, a);
    expect(xs).toEqual(Array.from({ length: 1000 }, b));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(mean(xs)).toBeCloseTo(0.5, 1);
  });
  test('gaussian has mean ≈ 0 and variance ≈ 1 (20,000 samples: 5 standard errors)', () => {
    const g = gaussian(mulberry32(3));
    const xs = Array.from({ length: 20000 }, g);
    expect(Math.abs(mean(xs))).toBeLessThan(5 / Math.sqrt(20000));
    expect(Math.abs(variance(xs) - 1)).toBeLessThan(5 * Math.sqrt(2 / 20000));
  });
  test('uniformMatrix rounds to one decimal in [−1, 1]', () => {
    const m = uniformMatrix(5, 50);
    for (const x of m) { expect(Math.abs(x)).toBeLessThanOrEqual(1); expect(Math.round(x * 10)).toBeCloseTo(x * 10, 9); }
  });
});

describe('statistics', () => {
  test('entropy: uniform is ln n, one-hot is 0', () => {
    expect(entropy([0.25, 0.25, 0.25, 0.25])).toBeCloseTo(Math.log(4), 12);
    expect(entropy([1, 0, 0])).toBe(0);
    expect(rowEntropies(Float32Array.from([0.5, 0.5, 1, 0]), 2, 2).map((h) => Number(h.toFixed(6)))).toEqual([Number(Math.log(2).toFixed(6)), 0]);
  });
  test('variance is unbiased', () => {
    expect(variance([1, 2, 3, 4])).toBeCloseTo(5 / 3, 12);
  });
  test('fitProportional recovers c in y = c·x', () => {
    const xs = [1, 2, 3, 10];
    expect(fitProportional(xs, xs.map((x) => 2.5 * x))).toBeCloseTo(2.5, 12);
  });
  test('fitProportionalRelative weighs relative errors: exact data gives c, a 1% error at each point stays 1%', () => {
    const xs = [1, 10, 100, 1000];
    expect(fitProportionalRelative(xs, xs.map((x) => 3 * x))).toBeCloseTo(3, 12);
    const c = fitProportionalRelative(xs, xs.map((x, i) => 3 * x * (i % 2 ? 1.01 : 0.99)));
    expect(Math.abs(c / 3 - 1)).toBeLessThan(0.011);
  });
  test('convex hull of a square with an inner point', () => {
    const h = convexHull([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]]);
    expect(h).toHaveLength(4);
    expect(h).not.toContainEqual([0.5, 0.5]);
  });
});

test('ticks are round numbers inside the range', () => {
  expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  expect(niceTicks(0, 3, 6, true)).toEqual([1, 10, 100, 1000]);
});

describe('log ticks on an axis of about one decade (the cost plot at T ≤ 256 spanned 15.05 … 272.1)', () => {
  const lo = Math.log10(15.05), hi = Math.log10(272.1);
  const round = (v) => [1, 2, 3, 5].includes(Number((v / 10 ** Math.floor(Math.log10(v) + 1e-9)).toPrecision(6)));
  test.each([6, 5, 4, 3, 2])('count %i: two or more round values, none at the odd ends', (n) => {
    const t = niceTicks(lo, hi, n, true);
    expect(t.length).toBeGreaterThanOrEqual(2);
    for (const v of t) { expect(round(v), String(v)).toBe(true); expect(Math.log10(v)).toBeGreaterThanOrEqual(lo); expect(Math.log10(v)).toBeLessThanOrEqual(hi); }
  });
  test('1–2–5 inside the decade when it fits, every power of ten over many decades, every 3rd over more', () => {
    expect(niceTicks(lo, hi, 6, true)).toEqual([20, 50, 100, 200]);
    expect(niceTicks(Math.log10(0.05), Math.log10(30), 6, true)).toEqual([0.1, 0.3, 1, 3, 10, 30]);
    expect(niceTicks(0, 9, 4, true)).toEqual([1, 1e3, 1e6, 1e9]);
    expect(niceTicks(Math.log10(0.9), Math.log10(1.05), 4, true)).toEqual([0.9, 1]);
  });
});

describe('plot x ticks (plot.js fitTicksX): labels never run together, and given ticks are thinned, not replaced', () => {
  // A label needs 0.6 em per character plus 1 em between neighbours.
  const apart = (t, x0, x1, inner, fs, log) => {
    const at = (v) => (((log ? Math.log10(v) : v) - x0) / (x1 - x0)) * inner;
    return t.every((v, i) => i === 0 || at(v) - at(t[i - 1]) >= 0.3 * fs * (String(v).length + String(t[i - 1]).length) + fs);
  };
  test('given ticks (powers of two) keep every k-th on a narrow plot', () => {
    const Ts = [16, 32, 64, 128, 256, 512, 1024, 2048], x0 = Math.log10(14), x1 = Math.log10(2300);
    expect(fitTicksX({ x0, x1, log: true, inner: 600, fontSize: 12, ticks: Ts })).toEqual(Ts);
    const narrow = fitTicksX({ x0, x1, log: true, inner: 250, fontSize: 12, ticks: Ts });
    expect(narrow).toEqual([16, 64, 256, 1024]);
    expect(apart(narrow, x0, x1, 250, 12, true)).toBe(true);
  });
  test('round numbers without given ticks, fewer as the plot narrows, always apart', () => {
    for (const inner of [80, 150, 300, 600]) {
      const t = fitTicksX({ x0: 0, x1: 1500, inner, fontSize: 16 });
      expect(t.length).toBeGreaterThanOrEqual(2);
      expect(apart(t, 0, 1500, inner, 16, false) || t.length === 2).toBe(true);
    }
    expect(fitTicksX({ x0: Math.log10(15.05), x1: Math.log10(272.1), log: true, inner: 260, fontSize: 12 })).toEqual([20, 50, 100, 200]);
  });
});

test('fmt prints −∞ and never −0', () => {
  expect(fmt(-Infinity)).toBe('−∞');
  expect(fmt(-0.00001, 4)).toBe('0.0000');
  expect(fmt(0.32334, 4)).toBe('0.3233');
});

describe('inline field messages (field.js): a bad value is refused with its range, never applied', () => {
  test('readNumber: the issue’s cases are refused with the range and the reason', async () => {
    const { readNumber } = await import('./field.js');
    const dims = { min: 1, max: 8, integer: true, name: 'd_model' };
    expect(readNumber('2.5', dims)).toEqual({ ok: false, message: '2.5 is not a whole number: d_model takes a whole number from 1 to 8' });
    expect(readNumber('3.7', { ...dims, name: 'd_k' }).ok).toBe(false);
    expect(readNumber('512', dims).message).toBe('512 is out of range: d_model takes a whole number from 1 to 8');
    for (const t of ['-1', '0', '0.01', '25']) expect(readNumber(t, { min: 0.05, max: 20, name: 'τ' }).ok).toBe(false);
    expect(readNumber('500', { min: 3, max: 60, integer: true }).ok).toBe(false);
    expect(readNumber('2', { min: 3, max: 60, integer: true }).ok).toBe(false);
    expect(readNumber('1', { min: 2, max: 32, integer: true }).ok).toBe(false);
    expect(readNumber('abc', dims).message).toMatch(/^not a number: d_model takes a whole number from 1 to 8/);
    expect(readNumber('', { ...dims, badInput: true }).message).toMatch(/^not a number/);
    expect(readNumber('', dims).message).toMatch(/^empty/);
    expect(readNumber(' 4 ', dims)).toEqual({ ok: true, value: 4 });
    expect(readNumber('−0.5', { min: -1, max: 1 })).toEqual({ ok: true, value: -0.5 });
    expect(readNumber('1e9', { min: 0, max: 1e9, integer: true })).toEqual({ ok: true, value: 1e9 });
  });
  test('readTokens: empty is refused, more than 8 words are cut with a note saying so', async () => {
    const { readTokens } = await import('./field.js');
    expect(readTokens('   ').tokens).toEqual([]);
    expect(readTokens('').message).toMatch(/^empty/);
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const r = readTokens(many, { maxTokens: 8 });
    expect(r.tokens).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7']);
    expect(r.note).toBe('cut to 8 tokens (40 typed; at most 8)');
    expect(readTokens('the cat sat')).toEqual({ tokens: ['the', 'cat', 'sat'], note: '' });
    expect(readTokens('a'.repeat(20)).note).toBe('long words cut to 16 characters');
  });
  test('tokens: an emoji is one character, never cut in half (field, parse, label)', async () => {
    const { readTokens } = await import('./field.js');
    const { cutChars, charCount, parseTokens, graphemes } = await import('./tokens.js');
    const lone = (s) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
    // 15 letters then an emoji (2 UTF-16 units): 16 characters, kept whole (slice(0, 16) left half the emoji).
    const w = 'abcdefghijklmno😀';
    expect(readTokens(w)).toEqual({ tokens: [w], note: '' });
    expect(parseTokens(w)).toEqual([w]);
    // 20 emoji: cut to 16 whole emoji, and the note says so.
    const r = readTokens('😀'.repeat(20));
    expect(r.tokens).toEqual(['😀'.repeat(16)]);
    expect(r.note).toBe('long words cut to 16 characters');
    // A family emoji (joined by ZWJ) and a flag are one character each.
    expect(charCount('👩‍👩‍👧‍👦🇫🇷')).toBe(2);
    expect(graphemes('a👩‍👩‍👧‍👦b')).toEqual(['a', '👩‍👩‍👧‍👦', 'b']);
    for (const n of [1, 2, 3, 9, 10]) expect(lone(cutChars('x😀'.repeat(8), n))).toBe(false);
    expect(cutChars('x😀'.repeat(8), 3)).toBe('x😀x');
  });
  test('tokens: a long paste is cut to 8 tokens and says how many were typed (no silent field limit)', async () => {
    const { readTokens } = await import('./field.js');
    const { MAX_SENTENCE_CHARS } = await import('./tokens.js');
    const paste = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    const r = readTokens(paste, { maxTokens: 8 });
    expect(r.note).toBe('cut to 8 tokens (500 typed; at most 8)');
    // The longest sentence a widget keeps is a valid link value (block, cross: type 'text').
    const longest = Array.from({ length: 8 }, () => '😀'.repeat(16)).join(' ');
    expect(sanitize({ s: longest }, { s: { type: 'text', maxChars: MAX_SENTENCE_CHARS } }).ok).toBe(true);
    expect(sanitize({ s: longest + 'x' }, { s: { type: 'text', maxChars: MAX_SENTENCE_CHARS } }).ok).toBe(false);
    expect(sanitize({ w: ['😀'.repeat(16)] }, { w: { type: 'strings', maxLength: 8, maxChars: 16 } }).ok).toBe(true);
  });
  test('fmt: |x| ≥ 1e6 in exponent form (a cell or a colour bar never cuts 25 digits)', () => {
    expect(fmt(2e24, 1)).toBe('2.0e24');
    expect(fmt(-1.41e24, 4)).toBe('-1.41e24');
    expect(fmt(1e6, 0)).toBe('1e6');
    expect(fmt(999999.5, 1)).toBe('999999.5');
    expect(fmt(-Infinity)).toBe('−∞');
  });
  test('one value limit for a matrix cell, typed or from a link', async () => {
    const { cellProblem } = await import('./field.js');
    const { CELL_LIMIT, cellList } = await import('./hash.js');
    expect(CELL_LIMIT).toBe(1e6);
    for (const x of [CELL_LIMIT, -CELL_LIMIT, 5000, -999999.999]) {
      expect(cellProblem(String(x))).toBe('');
      expect(sanitize({ x: [x] }, { x: cellList(1) }).ok).toBe(true);
    }
    for (const x of [CELL_LIMIT * 1.001, -2e6]) {
      expect(cellProblem(String(x))).toMatch(/^too large/);
      expect(sanitize({ x: [x] }, { x: cellList(1) }).ok).toBe(false);
    }
    // The largest state (five 8×8 matrices of -999999.999 and 8 long tokens) fits one link parameter.
    const m = () => Array(64).fill(-999999.999);
    const big = { tokens: Array(8).fill('👩‍👩‍👧‍👦'.repeat(16)), x: m(), wq: m(), wk: m(), wv: m(), wo: m() };
    const schema = { tokens: { type: 'strings', maxLength: 8, maxChars: 16 }, x: cellList(64), wq: cellList(64), wk: cellList(64), wv: cellList(64), wo: cellList(64) };
    const back = readHashState(writeHashState('', 'mh', big), 'mh', schema);
    expect(back.notice).toBeUndefined();
    expect(back.state).toEqual(big);
  });
  test('cellProblem names why a matrix cell is refused', async () => {
    const { cellProblem } = await import('./field.js');
    expect(cellProblem('x')).toBe('not a number');
    expect(cellProblem('2e6')).toBe('too large: |x| ≤ 1e6');
    expect(cellProblem('')).toBe('empty: type a number');
    expect(cellProblem('−0.25')).toBe('');
  });
  test('FieldMessages: error → aria-invalid and a described-by id; note → not invalid; cleared on a good value', async () => {
    const { FieldMessages } = await import('./field.js');
    let updates = 0;
    const f = new FieldMessages({ requestUpdate: () => { updates++; } });
    expect(f.number('d-in', { value: '2.5', validity: {} }, { min: 1, max: 8, integer: true })).toBe(null);
    expect(f.invalid('d-in')).toBe('true');
    expect(f.describedBy('d-in')).toBe('msg-d-in');
    expect(f.hasErrors).toBe(true);
    expect(f.number('d-in', { value: '4', validity: {} }, { min: 1, max: 8, integer: true })).toBe(4);
    expect(f.invalid('d-in')).toBe('false');
    expect(f.tokens('tokens', 'a b c d e f g h i j', { maxTokens: 8 })).toHaveLength(8);
    expect(f.get('tokens')).toMatchObject({ text: 'cut to 8 tokens (10 typed; at most 8)', kind: 'note' });
    expect(f.invalid('tokens')).toBe('false');
    f.tokens('tokens', 'a b c d e f g h', { maxTokens: 8 });  // the field, now the cut text, read again on blur
    expect(f.get('tokens').text).toMatch(/^cut to 8 tokens/);
    f.tokens('tokens', 'a b', { maxTokens: 8 });
    expect(f.get('tokens')).toBe(null);
    expect(f.tokens('tokens', '  ')).toBe(null);
    expect(f.invalid('tokens')).toBe('true');
    expect(updates).toBeGreaterThan(0);
  });
});

describe('the section and the widgets’ states share the hash', () => {
  test('a contents click (writeSection) keeps every widget’s state; a plain #id is read as the section', async () => {
    const { readSection, writeSection } = await import('./hash.js');
    const withState = writeHashState('', 'steps', { stage: 5 });
    const h = writeSection(withState, 't-multihead');
    expect(h.startsWith('#at=t-multihead&')).toBe(true);
    expect(readHashState(h, 'steps', { stage: { type: 'int', min: 0, max: 6 } }).state).toEqual({ stage: 5 });
    expect(readSection(h)).toBe('t-multihead');
    expect(readSection('#t-multihead')).toBe('t-multihead');
    expect(readSection('#steps=%7B%7D')).toBe(null);
    expect(readSection('#at=%3Cimg%3E')).toBe(null);  // not an id: ignored
    expect(writeSection(h, null)).toBe(withState);
  });
  test('a widget edit after a plain #t-multihead keeps the section (no "t-multihead=" that no longer scrolls)', async () => {
    const { readSection } = await import('./hash.js');
    const h = writeHashState('#t-multihead', 'multihead', { heads: 1 });
    expect(h).toBe('#at=t-multihead&multihead=%7B%22heads%22%3A1%7D');
    expect(readSection(h)).toBe('t-multihead');
    expect(writeHashState(h, 'steps', { stage: 2 })).toMatch(/^#at=t-multihead&multihead=.*&steps=/);
  });
  test('a sentence the widget needs (nonBlank) refuses an empty or blank text', () => {
    const schema = { tokens: { type: 'text', maxChars: 120, nonBlank: true } };
    expect(sanitize({ tokens: '' }, schema)).toEqual({ ok: false, problem: 'tokens is empty' });
    expect(sanitize({ tokens: '   ' }, schema).ok).toBe(false);
    expect(readHashState('#block={"tokens":""}', 'block', schema).notice).toMatch(/tokens is empty/);
    expect(sanitize({ tokens: 'the cat' }, schema).ok).toBe(true);
  });
});

test('barLabels: a colour bar\'s three labels as they are, without trailing zeros, or the ends only', () => {
  expect(barLabels(['-1.00', '0.00', '1.00'], 300, 18)).toEqual(['-1.00', '0.00', '1.00']);
  // A two-column map on a slide: a 130 px bar at 18 px.
  expect(barLabels(['-1.00', '0.00', '1.00'], 130, 18)).toEqual(['-1', '0', '1']);
  expect(barLabels(['-0.77', '0.00', '0.77'], 120, 18)).toEqual(['-0.77', '0', '0.77']);
  expect(barLabels(['-1.13', '0.00', '1.13'], 166, 18)).toEqual(['-1.13', '0.00', '1.13']);  // a 2-cell map on a slide: they fit
  expect(barLabels(['-0.77', '0.25', '1.27'], 120, 18)).toEqual(['-0.77', null, '1.27']);
  expect(barLabels(['-1.0e24', '0.0', '1.0e24'], 100, 18)).toEqual(['-1.0e24', null, '1.0e24']);  // an exponent keeps its digits
  expect(barLabels(['10', '150', '290'], 60, 18)).toEqual(['10', null, '290']);  // no decimals: nothing to drop
});
