// A widget's first draw on a page in parts, one task each (a frame apart): the page never waits for a
// whole widget of maps in one task. With the CPU throttled 4× (a phone-class CPU), a widget of a few
// dozen-row maps drawn at once took 0.5–1 s in one task; each part is a map or two.
//
// The widget declares `_drawPart: { state: true }`, calls drawInParts(this, n) from labReady(), and
// renders part k only when drawn(this, k) (part 0 is its first draw, with the controls). A slide draws at
// once (the deck shows one slide, sized to it). An edit meanwhile draws what is drawn so far; the
// remaining parts come as planned. Without requestAnimationFrame (Node) everything is drawn at once.

/** Resolves in a task after the next frame (the frame before it is painted first). */
export const nextFrame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));

/**
 * Starts the parts 1 … n − 1 of `el`'s first draw (its next update draws part 0). `partial: false` for a
 * widget already drawn (its height is its own, not the placeholder's): its first maps come in parts.
 * Returns, when the draw comes in parts, one promise per part that resolves once that part is drawn
 * (e.g. to hold other work until the first numbers are painted); null when everything is drawn at once.
 */
export function drawInParts(el, n, { partial = true } = {}) {
  if (el.slideLayout || typeof requestAnimationFrame !== 'function' || n <= 1) { el._drawPart = null; return null; }
  el._drawPart = 0;
  if (partial) el._partial = true;
  let chain = el.updateComplete;
  const parts = [chain];
  for (let k = 1; k < n; k++) {
    chain = chain.then(nextFrame).then(() => {
      if (el._drawPart === null) return undefined;
      const last = k === n - 1 || el.slideLayout;
      el._drawPart = last ? null : k;
      if (partial) el._partial = !last;
      return el.updateComplete;
    });
    parts.push(chain);
  }
  return parts;
}

/** True when part `k` of `el`'s first draw is drawn (or the first draw is over). */
export const drawn = (el, k) => el._drawPart === null || el._drawPart === undefined || k <= el._drawPart;
