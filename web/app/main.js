// The attnlab app: every widget in lecture order. Each widget loads the one shared WASM module
// itself; this file registers them and says so when the browser cannot run WASM SIMD.
//
// Only the first section's widget (<attn-steps>) comes with this file; every other widget's code is a
// chunk of its own, fetched and run when its element comes near the viewport, and the rest in idle
// time after the first numbers are drawn (page order, one per task). Until then the element is
// undefined and app.css gives it its placeholder's height. (On a phone-class CPU, 4× slower, parsing
// and running all eleven widgets' code before the first one drew cost ~0.5 s.)
import { supportsWasmSimd } from '../widgets/shared/lab.js';
import { NO_SIMD_MESSAGE } from '../widgets/shared/widget.js';
import { readSection, writeSection } from '../widgets/shared/hash.js';
import { RENDER_MARGIN } from '../widgets/shared/lazy.js';
import '../widgets/steps/index.js';
import './app.css';

const LATER = {
  'attn-convex': () => import('../widgets/convex/index.js'),
  'attn-kernel-regression': () => import('../widgets/kernel-regression/index.js'),
  'attn-why-scale': () => import('../widgets/why-scale/index.js'),
  'attn-cross': () => import('../widgets/cross/index.js'),
  'attn-multihead': () => import('../widgets/multihead/index.js'),
  'attn-batched': () => import('../widgets/batched/index.js'),
  'attn-positional': () => import('../widgets/positional/index.js'),
  'attn-rope': () => import('../widgets/rope/index.js'),
  'attn-block': () => import('../widgets/block/index.js'),
  'attn-cost': () => import('../widgets/cost/index.js'),
  'attn-train': () => import('../widgets/train/index.js'),
  'attn-model': () => import('../widgets/model/index.js'),
};
const loading = new Map();
const define = (tag) => {
  if (!loading.has(tag)) loading.set(tag, LATER[tag]().catch((e) => { console.error(`${tag}: its code did not load`, e); }));
  return loading.get(tag);
};
const later = [...document.querySelectorAll(Object.keys(LATER).join(','))];
if (typeof IntersectionObserver === 'function') {
  const near = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) { near.unobserve(e.target); define(e.target.localName); }
  }, { rootMargin: RENDER_MARGIN });
  for (const el of later) near.observe(el);
}
// The rest in idle time, in page order, once the page has loaded (the first numbers come first).
const idle = () => new Promise((ok) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(() => ok(), { timeout: 2000 }) : setTimeout(ok, 50)));
const defineRest = async () => {
  for (const el of later) {
    if (loading.has(el.localName)) continue;
    await idle();
    await define(el.localName);
  }
};
if (document.readyState === 'complete') defineRest();
else window.addEventListener('load', () => defineRest(), { once: true });
// Printing needs every widget (lazy.js draws the defined ones at beforeprint).
window.addEventListener('beforeprint', () => { for (const el of later) define(el.localName); });

const status = document.querySelector('.status');
if (!supportsWasmSimd()) {
  status.textContent = NO_SIMD_MESSAGE;
  status.classList.add('failure');
} else status.hidden = true;

// Sections and widget states share the hash (#at=t-multihead&steps=…, see hash.js): a contents link
// scrolls to its section and writes only `at`, so every widget's saved state stays in the link; a
// shared link with both opens at its section.
function scrollToSection(id, { focus = false } = {}) {
  const target = id ? document.getElementById(id) : null;
  if (!target) return false;
  (target.closest('section') ?? target).scrollIntoView({ block: 'start' });
  if (focus) {
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
  }
  return true;
}

// After a jump, widgets drawn around the section change the page's height: a placeholder above it
// replaced by a shorter widget, or one below it (the last sections) drawn briefly shorter than its
// placeholder, which makes the browser clamp the scroll and lose the place. The section is held at
// the top while the page resizes, for up to 10 s (the widgets around it may take seconds to load on a slow phone) or until the reader scrolls or presses a key.
let releaseHold = null;
function holdSection(id, ms = 10000) {
  releaseHold?.();
  const main = document.querySelector('main');
  if (!main || typeof ResizeObserver === 'undefined') return;
  const events = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
  const observer = new ResizeObserver(() => scrollToSection(id));
  const release = () => {
    observer.disconnect();
    clearTimeout(timer);
    for (const type of events) window.removeEventListener(type, release, true);
    if (releaseHold === release) releaseHold = null;
  };
  const timer = setTimeout(release, ms);
  for (const type of events) window.addEventListener(type, release, { capture: true, passive: true });
  observer.observe(main);
  releaseHold = release;
}

document.querySelector('nav.toc')?.addEventListener('click', (e) => {
  const a = e.target.closest?.('a[href^="#"]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const id = a.getAttribute('href').slice(1);
  if (!document.getElementById(id)) return;
  e.preventDefault();
  const hash = writeSection(window.location.hash, id);
  try {
    history.pushState(history.state, '', hash || window.location.pathname + window.location.search);
  } catch { /* a sandboxed frame may refuse: still scroll */ }
  scrollToSection(id, { focus: true });
  holdSection(id);
});

const scrollToHashSection = () => scrollToSection(readSection(window.location.hash));
// A link opening at a section ("#at=t-multihead&…", which the browser does not scroll to, or a plain
// "#t-multihead", which it does once): the widgets drawn above and around it move it afterwards, so it
// is held as after a contents click.
const opening = readSection(window.location.hash);
if (scrollToSection(opening)) holdSection(opening);
window.addEventListener('popstate', scrollToHashSection);

// Keyboard: a "skip this widget" link at the top of each section moves the focus to the next
// section's heading (the next Tab is that section's first control) without touching the hash; and
// the page's scroll padding follows the sticky contents bar, so a focused control is never under it.
const headings = [...document.querySelectorAll('main section > h2[id]')];
const pageEnd = document.querySelector('footer');
if (pageEnd) { pageEnd.id ||= 'page-end'; pageEnd.setAttribute('tabindex', '-1'); }
headings.forEach((h2, i) => {
  const next = headings[i + 1], a = document.createElement('a');
  a.className = 'skip';
  a.href = next ? `#${next.id}` : '#page-end';
  a.textContent = next ? `Skip this widget: next is ${next.textContent.trim()}` : 'Skip this widget: to the end of the page';
  a.addEventListener('click', (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (next) { scrollToSection(next.id, { focus: true }); holdSection(next.id); } else pageEnd?.focus();
  });
  h2.after(a);
});
// app.css lays out the paragraphs below the first section only when they come near the viewport; one
// that has been drawn is kept (class .drawn), not skipped again when the reader scrolls past it.
document.addEventListener('contentvisibilityautostatechange', (e) => {
  if (!e.skipped && e.target instanceof HTMLParagraphElement) e.target.classList.add('drawn');
}, { capture: true, passive: true });
const toc = document.querySelector('nav.toc');
if (toc && typeof ResizeObserver !== 'undefined') {
  new ResizeObserver(() => { document.documentElement.style.scrollPaddingTop = `${Math.ceil(toc.getBoundingClientRect().height) + 8}px`; }).observe(toc);
}
