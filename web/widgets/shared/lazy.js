// Lazy rendering for widgets on a page: a widget draws (computes in WASM, builds its maps and
// formulas) when it comes near the viewport, and the widgets a little further out of sight draw ahead
// of the reader in idle time — one widget per task, so the page never stops answering for the length
// of ten widgets. Widgets further away wait until the reader comes closer: drawing every widget of the
// page in "idle" time made ~60 tasks of 50–300 ms at 4x CPU throttling (a phone-class CPU) in the
// page's first ten seconds, each one a moment in which the widget being used did not answer.
//
// Order: the widgets within RENDER_MARGIN of the viewport, top to bottom, each in its own task (the
// first one is painted before the next starts: the first numbers appear as soon as they can); then,
// whenever the page is idle, the waiting widget within AHEAD_MARGIN nearest to the viewport. Printing
// draws every widget at once (beforeprint). A widget that is not drawn yet shows its placeholder
// (widget.js), as tall as the app expects the widget to be, so the page does not jump when it is drawn.
//
// Slides do not use this: a widget in slide layout draws at once (the deck shows one slide at a time
// and sizes the widget to it).

/** How far outside the viewport a widget starts drawing (a scroll or two ahead of the reader). */
export const RENDER_MARGIN = '100% 0px';
/** How far out a widget is drawn ahead of the reader when the page is idle, in screens (a reader
 *  scrolling at reading speed finds the next widgets drawn; a jump to a far section draws it when it is there). */
export const AHEAD_SCREENS = 3;
export const AHEAD_MARGIN = `${AHEAD_SCREENS * 100}% 0px`;

/** el → { lab (the promise it waits for), ready (lab resolved), near, ahead (within AHEAD_MARGIN), go (resolves its turn) } */
const waiting = new Map();
let aheadObserver = null;
let observer = null, pumping = false, painted = false, printing = false, printRequested = false;

const hasObserver = () => typeof IntersectionObserver === 'function';

/**
 * Resolves with `lab` (a promise of the WASM module) when it is `el`'s turn to draw. Without
 * IntersectionObserver (Node, old engines) that is as soon as the module is ready.
 */
export function whenWanted(el, lab) {
  if (!hasObserver() || printRequested) return lab;  // after beforeprint: a widget defined late draws at once
  return new Promise((resolve, reject) => {
    const entry = { near: false, ahead: false, ready: false, value: null, go: resolve };
    waiting.set(el, entry);
    lab.then((v) => {
      if (waiting.get(el) !== entry) return;
      entry.ready = true;
      entry.value = v;
      if (entry.near) wake?.();
      pump();
    }, (e) => { if (waiting.get(el) === entry) { forget(el); reject(e); } });
    observer ??= new IntersectionObserver(onIntersect, { rootMargin: RENDER_MARGIN });
    observer.observe(el);
    aheadObserver ??= new IntersectionObserver(onAhead, { rootMargin: AHEAD_MARGIN });
    aheadObserver.observe(el);
    watchPrint();
  });
}

/** `el` left the page before its turn: it is no longer waited for. */
export function forget(el) {
  if (!waiting.delete(el)) return;
  observer?.unobserve(el);
  aheadObserver?.unobserve(el);
}

/** The number of widgets still waiting for their turn (for tests and the benchmark). */
export function waitingCount() {
  return waiting.size;
}

function onIntersect(entries) {
  for (const e of entries) {
    const w = waiting.get(e.target);
    if (w) w.near = e.isIntersecting;
  }
  if (nextNear()) wake?.();
  pump();
}

function onAhead(entries) {
  for (const e of entries) {
    const w = waiting.get(e.target);
    if (w) w.ahead = e.isIntersecting;
  }
  pump();
}

async function start(el) {
  const w = waiting.get(el), t0 = performance.now();
  forget(el);
  w.go(w.value);
  // Lit draws in a microtask: the widget's update, and its maps' and formulas', finish in this task.
  // (One turn first: the widget takes the module in a callback queued by go(); its update starts there.)
  await null;
  await el.updateComplete;
  // In the browser's performance timeline (DevTools, traces): how long drawing each widget took.
  performance.measure?.(`attn: draw ${el.localName}`, { start: t0, end: performance.now() });
}

/** The next waiting widget near the viewport, in page order (null when none is). */
function nextNear() {
  let best = null;
  for (const [el, w] of waiting) {
    if (!w.ready || !w.near) continue;
    if (!best || (best.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING)) best = el;
  }
  return best;
}

/** The waiting widget within AHEAD_MARGIN nearest to the viewport (the layout is clean when idle: reading it is cheap). */
function nearestAhead() {
  let best = null, bestD = Infinity;
  const vh = window.innerHeight;
  for (const [el, w] of waiting) {
    if (!w.ready || !w.ahead) continue;
    const r = el.getBoundingClientRect(), d = r.bottom < 0 ? -r.bottom : r.top > vh ? r.top - vh : 0;
    if (d < bestD) { best = el; bestD = d; }
  }
  return best;
}

const nextTask = () => new Promise((ok) => setTimeout(ok, 0));
const nextFrame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
// Waiting for idle time ends early when a widget comes near the viewport (wake).
let wake = null;
const idle = () => new Promise((ok) => {
  wake = ok;
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => ok(), { timeout: 1500 });
  else setTimeout(ok, 50);
}).finally(() => { wake = null; });

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (waiting.size) {
      const near = nextNear();
      if (near) {
        await start(near);
        // The first widget drawn is painted before anything else is drawn.
        await (painted ? nextTask() : nextFrame());
        painted = true;
        continue;
      }
      // Nothing to draw ahead (the module is still loading, or every waiting widget is far): the
      // observers start the pump again when that changes.
      if (![...waiting.values()].some((w) => w.ready && w.ahead)) break;
      await idle();
      if (nextNear()) continue;  // the reader scrolled meanwhile: that one first
      const ahead = nearestAhead();
      if (ahead) {
        await start(ahead);
        await nextTask();
      }
    }
  } finally {
    pumping = false;
  }
}

function drawAllNow() {
  printRequested = true;
  for (const [el, w] of [...waiting]) if (w.ready) start(el);
}

function watchPrint() {
  if (printing || typeof window === 'undefined') return;
  printing = true;
  window.addEventListener('beforeprint', drawAllNow);
}
