import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { drawInParts, drawn } from './parts.js';

// A widget as drawInParts sees it: each change of _drawPart is one update, recorded when it completes.
function fakeWidget({ slide = false } = {}) {
  const el = { slideLayout: slide, _partial: false, seen: [] };
  Object.defineProperty(el, 'updateComplete', { get: () => Promise.resolve().then(() => { el.seen.push(el._drawPart); return true; }) });
  return el;
}

describe('drawInParts', () => {
  let raf;
  beforeEach(() => { raf = globalThis.requestAnimationFrame; globalThis.requestAnimationFrame = (f) => setTimeout(f, 1); });
  afterEach(() => { globalThis.requestAnimationFrame = raf; });

  it('draws the parts in order, one per frame, and resolves each part\'s promise once it is drawn', async () => {
    const el = fakeWidget();
    const parts = drawInParts(el, 4);
    expect(parts).toHaveLength(4);
    expect(el._drawPart).toBe(0);
    expect(el._partial).toBe(true);
    expect(drawn(el, 0)).toBe(true);
    expect(drawn(el, 1)).toBe(false);
    await parts[1];
    expect(el._drawPart).toBe(1);
    expect(drawn(el, 2)).toBe(false);
    await parts[3];
    expect(el._drawPart).toBe(null);
    expect(el._partial).toBe(false);
    expect(drawn(el, 3)).toBe(true);
    expect(el.seen).toEqual([0, 1, 2, null]);
  });

  it('draws everything at once on a slide, and returns no parts', () => {
    const el = fakeWidget({ slide: true });
    expect(drawInParts(el, 4)).toBe(null);
    expect(el._drawPart).toBe(null);
    expect(drawn(el, 3)).toBe(true);
  });

  it('leaves the widget\'s own height alone with partial: false', async () => {
    const el = fakeWidget();
    const parts = drawInParts(el, 2, { partial: false });
    expect(el._partial).toBe(false);
    await parts[1];
    expect(el._partial).toBe(false);
    expect(el._drawPart).toBe(null);
  });
});
