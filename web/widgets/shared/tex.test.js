// <attn-tex>'s pure parts: the typesetting queue's slices, the markup cache, the fit's scale rounds.
import { describe, expect, test } from 'vitest';
import { MarkupCache, typesetSlice, fitFormulas, formulaParts, pageParts, pageSplit } from './tex.js';

// A clock the test moves: render() and apply() cost what the test says.
function run(items, cost, budget = 6) {
  let clock = 0;
  const done = [], rendered = [], cache = new Set();
  typesetSlice(items, {
    cached: (t) => cache.has(t),
    render: (t) => { clock += cost[t].render; cache.add(t); rendered.push(t); },
    apply: (t) => { clock += cost[t].apply ?? 0; done.push(t); },
    now: () => clock,
    budget,
  });
  return { done, rendered, cache };
}

describe('typesetSlice', () => {
  test('typesets at most one formula with KaTeX per task, in order', () => {
    const items = new Set(['a', 'b', 'c']);
    const r = run(items, { a: { render: 1 }, b: { render: 1 }, c: { render: 1 } });
    expect(r.rendered).toEqual(['a']);
    expect(r.done).toEqual(['a']);
    expect([...items]).toEqual(['b', 'c']);
  });

  test('a render that spends the budget leaves its DOM to the next task', () => {
    const items = new Set(['a', 'b']);
    const r = run(items, { a: { render: 20 }, b: { render: 1 } });
    expect(r.rendered).toEqual(['a']);
    expect(r.done).toEqual([]);
    expect([...items]).toEqual(['a', 'b']);  // 'a' first next time, its markup then cached
  });

  test('cached formulas cost only their DOM and share a task until the budget is spent', () => {
    let clock = 0;
    const items = new Set(['a', 'b', 'c', 'd', 'e']);
    const done = [];
    typesetSlice(items, {
      cached: (t) => t !== 'e',
      render: () => { throw new Error('no render while the budget is spent'); },
      apply: (t) => { clock += 2.5; done.push(t); },
      now: () => clock,
      budget: 6,
    });
    expect(done).toEqual(['a', 'b', 'c']);  // 7.5 ms > 6 after 'c'
    expect([...items]).toEqual(['d', 'e']);
  });

  test('a queue worked off task by task ends empty, every formula applied once in page order', () => {
    const items = new Set(['a', 'b', 'c', 'd']);
    const cost = { a: { render: 30, apply: 2 }, b: { render: 2, apply: 1 }, c: { render: 2, apply: 1 }, d: { render: 9, apply: 1 } };
    const done = [], cache = new Set();
    let clock = 0, tasks = 0;
    while (items.size && tasks < 20) {
      tasks++;
      typesetSlice(items, {
        cached: (t) => cache.has(t),
        render: (t) => { clock += cost[t].render; cache.add(t); },
        apply: (t) => { clock += cost[t].apply; done.push(t); },
        now: () => clock,
        budget: 6,
      });
    }
    expect(done).toEqual(['a', 'b', 'c', 'd']);
    expect(tasks).toBeLessThan(20);
  });
});

describe('MarkupCache', () => {
  test('makes each key once and keeps the most recently used', () => {
    const c = new MarkupCache(2);
    let made = 0;
    const make = (v) => () => { made++; return v; };
    expect(c.get('x', make('X'))).toBe('X');
    expect(c.get('x', make('other'))).toBe('X');
    expect(made).toBe(1);
    c.get('y', make('Y'));
    c.get('x', make('X2'));          // x used last: y is the oldest
    c.get('z', make('Z'));           // evicts y
    expect(c.has('x')).toBe(true);
    expect(c.has('y')).toBe(false);
    expect(c.has('z')).toBe(true);
    expect(made).toBe(3);
  });
});

// A formula stand-in whose content is `natural` px wide at scale 1 and scales with its font size.
// On a slide its font follows its slide's canvas (`canvas`: { offsetWidth, offsetHeight }), and its
// natural width with it (`natural` at the font of a 1280×720 canvas: 25 px).
function fakeTex(natural, avail, { slide = false, canvas = null } = {}) {
  const style = { fontSize: '', setProperty(k, v) { this[k] = v; } };
  const slideEl = canvas && { classList: { contains: () => false }, closest: () => canvas };
  const px = () => (canvas && style['--attn-slide-tex'] ? parseFloat(style['--attn-slide-tex']) / 25 : 1);
  const layouts = { n: 0 };
  const scaleOf = () => (style.fontSize ? parseFloat(style.fontSize) : 1);
  const inner = { style };
  return {
    _typeset: true,
    isConnected: true,
    layouts,
    renderRoot: { querySelector: () => inner },
    hasAttribute: (a) => a === 'data-slide' && slide,
    get clientWidth() { return avail; },
    get scrollWidth() { layouts.n++; return Math.max(avail, natural * px() * scaleOf()); },
    getRootNode: () => ({}),
    closest: () => slideEl,
    style,
  };
}

describe('fitFormulas', () => {
  test('a formula that fits keeps its natural size, and is not reset (no font-size write)', () => {
    const t = fakeTex(300, 500);
    fitFormulas([t]);
    expect(t._scale).toBe(1);
    expect(t.style.fontSize).toBe('');
  });

  test('a wide formula shrinks in one step to 98 % of its box, then fits', () => {
    const t = fakeTex(1000, 500);
    fitFormulas([t]);
    expect(t._scale).toBeCloseTo(0.49, 6);
    expect(1000 * t._scale).toBeLessThanOrEqual(500);
    expect(t.layouts.n).toBe(2);  // one measurement, one check
  });

  test('never below the smallest scale (page 0.4, slide 0.9)', () => {
    const page = fakeTex(5000, 500), slide = fakeTex(1000, 500, { slide: true });
    fitFormulas([page, slide]);
    expect(page._scale).toBe(0.4);
    expect(slide._scale).toBe(0.9);
  });

  test("a slide's formula takes its font from its canvas as it is when fitted, not when typeset", () => {
    // reveal.js's print view: typeset while the deck was still 1280×720 (25 px), then each slide is
    // wrapped in a 1215×682 page (23.7 px). At 25 px this formula needs 0.88 (below the slide's 0.9).
    const canvas = { offsetWidth: 1280, offsetHeight: 720 };
    const t = fakeTex(1000, 880, { slide: true, canvas });
    fitFormulas([t]);
    expect(t.style['--attn-slide-tex']).toBe('25px');
    expect(t._scale).toBe(0.9);
    expect(1000 * t._scale).toBeGreaterThan(880);  // overflows its box
    Object.assign(canvas, { offsetWidth: 1215, offsetHeight: 682 });
    fitFormulas([t]);
    expect(t.style['--attn-slide-tex']).toBe('23.7px');
    expect(1000 * (23.7 / 25) * t._scale).toBeLessThanOrEqual(880);
    expect(t._scale).toBeGreaterThanOrEqual(0.9);
  });

  test('a shrunk formula whose box grew is reset and fitted again (it grows back)', () => {
    const t = fakeTex(1000, 500);
    fitFormulas([t]);
    const small = t._scale;
    Object.defineProperty(t, 'clientWidth', { get: () => 2000 });
    fitFormulas([t]);
    expect(t._scale).toBe(1);
    expect(t._scale).toBeGreaterThan(small);
    expect(t.style.fontSize).toBe('');
  });
});

describe('a page formula in parts', () => {
  // A display formula of two parts, `whole` px wide typeset whole and `widest` px its widest part:
  // typeset() (the real one re-renders and fits again) switches the width the fake measures.
  function twoParts(whole, widest, avail) {
    const t = fakeTex(whole, avail);
    let natural = whole;
    Object.defineProperty(t, 'scrollWidth', { get: () => Math.max(t.clientWidth, natural * (t.style.fontSize ? parseFloat(t.style.fontSize) : 1)) });
    t.display = true;
    t.partCount = () => 2;
    t.typesets = 0;
    t.typeset = () => { t.typesets++; natural = t._split ? widest : whole; };
    return t;
  }

  test('a phone: typeset in parts when whole it would shrink below 0.85, then fitted at full size', () => {
    const t = twoParts(600, 300, 350);
    fitFormulas([t]);
    expect(t._split).toBe(true);
    expect(t.typesets).toBe(1);
    fitFormulas([t]);  // the fit that follows the new markup
    expect(t._scale).toBe(1);
    expect(t._split).toBe(true);
    expect(t.typesets).toBe(1);
  });

  test('whole while it shrinks no further than 0.85; whole again only once its box holds it at full size', () => {
    const t = twoParts(380, 200, 350);  // 0.90
    fitFormulas([t]);
    expect(t._split).toBeFalsy();
    expect(t._scale).toBeGreaterThan(0.85);
    Object.defineProperty(t, 'clientWidth', { get: () => 300, configurable: true });  // 0.77: parts
    fitFormulas([t]);
    expect(t._split).toBe(true);
    Object.defineProperty(t, 'clientWidth', { get: () => 370, configurable: true });  // would be 0.95 whole: stays in parts
    fitFormulas([t]);
    expect(t._split).toBe(true);
    Object.defineProperty(t, 'clientWidth', { get: () => 400, configurable: true });  // holds it whole
    fitFormulas([t]);
    expect(t._split).toBe(false);
    expect(t.typesets).toBe(2);
  });

  test('one part, text style or a slide: never split on the page', () => {
    expect(pageSplit({ split: false, scale: 0.4, avail: 300, whole: 900, parts: 1 })).toBe(false);
    const inline = twoParts(900, 300, 350);
    inline.display = false;
    const slide = twoParts(900, 300, 350);
    slide.hasAttribute = (a) => a === 'data-slide';
    fitFormulas([inline, slide]);
    expect([inline.typesets, slide.typesets]).toEqual([0, 0]);
  });
});

test('formulaParts splits at top-level \\quad only', () => {
  expect(formulaParts('a = b,\\quad c = d')).toEqual(['a = b,', 'c = d']);
  expect(formulaParts('\\left(a \\quad b\\right)')).toEqual(['\\left(a \\quad b\\right)']);
});

test('pageParts also splits inside one group around the whole formula, and only there', () => {
  expect(pageParts('{a = b,\\qquad c \\in \\{1\\}}')).toEqual(['a = b,', 'c \\in \\{1\\}']);
  expect(formulaParts('{a = b,\\qquad c}')).toEqual(['{a = b,\\qquad c}']);  // a slide keeps it whole
  expect(pageParts('{a}\\quad{b}')).toEqual(['{a}', '{b}']);
  expect(pageParts('{a \\quad b} + {c}')).toEqual(['{a \\quad b} + {c}']);
  expect(pageParts('x = 1')).toEqual(['x = 1']);
});
