// Main-thread long tasks (> 50 ms) of the app in Debian's Chromium with the CPU throttled 4× (DevTools'
// "4× slowdown", a phone-class CPU), while the page loads and while a reader scrolls through it to the end.
// Each long task is printed with the widget it belongs to and what it ran:
//   - widget: the page widget (<attn-…> in the document) whose elements' Lit update() ran in the task the
//     longest (an element inside a widget's shadow root counts for that widget), else the widget whose code
//     chunk the task's longest script callback came from;
//   - cause: the task's Lit updates by element (self time), its callbacks by chunk and function, and the
//     browser's own work in it (style, layout, paint, script compilation).
// A load: a fresh tab at 1440×900 opens the app (dist/ or --site DIR); at the first numbers the reader starts
// scrolling (one wheel step of 400 px every 250 ms) to the bottom of the page, then waits until every widget
// shows numbers and the page has been quiet for 2 s. With --no-scroll the reader stays at the top: the load
// ends when the widgets in reach (the first screen's and those lazy.js draws ahead, within AHEAD_MARGIN)
// show numbers.
//   node bench/long-tasks.mjs [--site DIR] [--runs N] [--rate 4] [--no-scroll [--for S]]
//   (--for S: the trace goes on until S seconds after the navigation, whatever the page does meanwhile: builds
//   that draw different amounts ahead of the reader are compared over the same time)
//   node bench/long-tasks.mjs --ab DIR_A,DIR_B [--runs N]   (the two builds load in turn, in one browser)
// Build a site to measure with `npx vite build -c web/app/vite.config.js --outDir $PWD/build/lt/a --emptyOutDir`.
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { serveDist } from '../tests/e2e/server.mjs';
import { launch } from '../tests/e2e/browser.js';
import { PROBE_HELPERS } from './page-probe.mjs';
import { AHEAD_SCREENS } from '../web/widgets/shared/lazy.js';

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const RUNS = Math.max(1, Number(arg('--runs', 3)));
const RATE = Number(arg('--rate', 4));
const SCROLL = !process.argv.includes('--no-scroll');
const VERBOSE = process.argv.includes('--verbose');
const FOR = Number(arg('--for', 0));
const AB = arg('--ab', null)?.split(',').map((d) => resolve(d));
const sites = AB ?? [resolve(arg('--site', 'dist'))];
const TAGS = ['attn-steps', 'attn-convex', 'attn-kernel-regression', 'attn-why-scale', 'attn-cross', 'attn-multihead',
  'attn-batched', 'attn-positional', 'attn-rope', 'attn-block', 'attn-cost', 'attn-train', 'attn-model'];

// In the page before its scripts: each custom element's update() marked in the trace with the page widget
// it belongs to ("lt:<widget>|<element>"), and a promise that resolves when every widget shows numbers.
function probe(tags, reach) {
  const outer = (el) => {
    let host = el;
    for (let r = el.getRootNode(); r instanceof ShadowRoot; r = host.getRootNode()) host = r.host;
    return host.localName;
  };
  const define = customElements.define.bind(customElements);
  customElements.define = (name, cls, options) => {
    const update = cls.prototype.update;
    if (typeof update === 'function' && !Object.prototype.hasOwnProperty.call(cls.prototype, '__ltWrapped')) {
      cls.prototype.__ltWrapped = true;
      cls.prototype.update = function (changed) {
        const t0 = performance.now();
        try { return update.call(this, changed); } finally {
          performance.measure(`lt:${outer(this)}|${name}`, { start: t0, end: performance.now() });
        }
      };
    }
    return define(name, cls, options);
  };
  const seen = (window.__ltShown = {});
  let inReach = null;  // without scrolling: the widgets within `reach` viewport heights of the top, decided at the first numbers
  const tick = () => {
    const now = performance.now();
    if (seen.firstNumbers === undefined) {
      for (const h of document.querySelectorAll('attn-steps')) if (h.shadowRoot) deep(h.shadowRoot, (el) => {
        if (el.localName === 'attn-heatmap' && el.shadowRoot?.querySelector('table td')) { seen.firstNumbers = now; return false; }
        return true;
      });
      if (seen.firstNumbers !== undefined && reach) inReach = tags.filter((t) => { const el = document.querySelector(t); return el && el.getBoundingClientRect().top < innerHeight * reach; });
    }
    for (const t of tags) if (seen[t] === undefined) { const el = document.querySelector(t); if (el && shows(el)) seen[t] = now; }
    if (seen.firstNumbers !== undefined && (inReach ?? tags).every((t) => seen[t] !== undefined || !document.querySelector(t))) seen.all = now;
    else setTimeout(tick, 100);  // not every frame: the probe's own work stays out of the figures
  };
  setTimeout(tick, 100);
}

const chunkOf = (url) => (url ? (url.split('/').pop().replace(/-[\w-]{8}\.js$/, '').replace(/\?.*$/, '') || url) : '');

// The main thread's tasks (the outermost 'toplevel' events) longer than 50 ms, each with what ran in it.
function longTasks(events) {
  const doc = events.find((e) => e.name === 'lt:start' || (e.cat.includes('user_timing') && e.name.startsWith('lt:')));
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain'
    && (!doc || e.pid === doc.pid));
  if (!main) return [];
  const on = events.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const top = on.filter((e) => e.ph === 'X' && e.cat.split(',').includes('toplevel')).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const tasks = [];
  for (const e of top) { const last = tasks[tasks.length - 1]; if (!last || e.ts >= last.ts + last.dur) tasks.push(e); }
  // Lit updates: user-timing measures (async begin/end pairs 'b'/'e', or 'R'/'X'), nested ones subtracted.
  const measures = [];
  const open = new Map();
  for (const e of events.filter((x) => x.cat.includes('user_timing') && x.name.startsWith('lt:'))) {
    if (e.ph === 'b') open.set(`${e.name}:${e.id ?? e.id2?.local}`, e);
    else if (e.ph === 'e') { const b = open.get(`${e.name}:${e.id ?? e.id2?.local}`); if (b) measures.push({ name: e.name, ts: b.ts, end: e.ts }); }
    else if (e.ph === 'X') measures.push({ name: e.name, ts: e.ts, end: e.ts + e.dur });
  }
  measures.sort((a, b) => a.ts - b.ts || b.end - a.end);
  const slices = on.filter((e) => e.ph === 'X');
  const firstNumbers = events.find((e) => e.name === 'lt:first-numbers');
  const out = [];
  let lastWidget = '';
  for (const t of tasks) {
    if (t.dur < 50000) {  // a short task can still tell whose frame comes next
      const m = measures.find((x) => x.ts >= t.ts && x.ts < t.ts + t.dur && x.end - x.ts >= 5000);
      if (m) lastWidget = m.name.slice(3).split('|')[0];
      continue;
    }
    const end = t.ts + t.dur;
    const inTask = (e) => e.ts >= t.ts && e.ts < end;
    // Lit updates by element, self time (a child's update is its own)
    const byElement = {}, byWidget = {};
    const ms = measures.filter(inTask), stack = [];
    for (const m of ms) {
      while (stack.length && m.ts >= stack[stack.length - 1].end) stack.pop();
      const d = (m.end - m.ts) / 1000, [w, el] = m.name.slice(3).split('|');
      if (stack.length) { const p = stack[stack.length - 1]; byElement[p.el] -= d; byWidget[p.w] -= d; }
      byElement[el] = (byElement[el] ?? 0) + d; byWidget[w] = (byWidget[w] ?? 0) + d;
      stack.push({ end: m.end, el, w });
    }
    // script callbacks by chunk (FunctionCall / EvaluateScript / v8.compile carry the script's URL)
    const byChunk = {}, byFn = {};
    let browser = { style: 0, layout: 0, paint: 0, compile: 0, gc: 0 };
    // An event inside another of its own kind (the document's Paint holds a layer's Paint) is counted
    // once, in the outer one: summing both counted its time twice.
    const outerEnd = {};
    const outer = (kind, e) => {
      if (e.ts < (outerEnd[kind] ?? -Infinity)) return false;
      outerEnd[kind] = e.ts + e.dur;
      return true;
    };
    for (const e of slices.filter(inTask).sort((a, b) => a.ts - b.ts)) {
      const d = e.dur / 1000, data = e.args?.data ?? {};
      if (e.name === 'FunctionCall' || e.name === 'EvaluateScript' || e.name === 'v8.compileModule' || e.name === 'v8.evaluateModule') {
        const c = chunkOf(data.url ?? data.fileName ?? e.args?.fileName);
        if (c) { byChunk[c] = (byChunk[c] ?? 0) + d; const f = `${c}:${data.functionName || e.name}`; byFn[f] = (byFn[f] ?? 0) + d; }
      }
      if (e.name === 'UpdateLayoutTree' || e.name === 'RecalculateStyles') { if (outer('style', e)) browser.style += d; }
      else if (e.name === 'Layout') { if (outer('layout', e)) browser.layout += d; }
      else if (e.name === 'Paint' || e.name === 'PrePaint' || e.name === 'Layerize') { if (outer('paint', e)) browser.paint += d; }
      else if (e.name.startsWith('v8.compile') || e.name === 'v8.parseOnBackground') browser.compile += d;
      else if (e.name === 'MajorGC' || e.name === 'MinorGC' || e.name === 'V8.GC_SCAVENGER' || e.name === 'BlinkGC.AtomicPhase') browser.gc += d;
    }
    const top1 = (o) => Object.entries(o).sort((a, b) => b[1] - a[1])[0];
    // The entry chunk is named after <attn-steps> (bundled with it) but also holds the shared code:
    // <attn-tex>'s formula fitting, the lazy loader. A build without minification names the functions.
    const tagOfChunk = (c) => (c === 'steps' ? 'entry chunk (steps, attn-tex)' : c === 'widget' ? 'shared widget chunk'
      : TAGS.find((tag) => c === tag.slice(5) || c.startsWith(tag.slice(5))) ?? c);
    const w = top1(byWidget), f = top1(byFn);
    const rendering = browser.style + browser.layout + browser.paint;
    let widget;
    if (w && w[1] >= 5) widget = w[0];
    else if (f && /:(fitQueued|typesetSome|fitNow|AttnTex)$/.test(f[0]) && f[1] >= 5) widget = 'attn-tex (formulas)';
    else if (f && f[1] >= 5 && f[1] >= rendering / 2) widget = tagOfChunk(f[0].split(':')[0]);
    else if (rendering >= 10) widget = `frame${lastWidget ? ` after ${lastWidget}` : ''}`;
    else widget = 'other';
    if (w && w[1] >= 5) lastWidget = w[0];
    const fmt = (o, n = 4) => Object.entries(o).filter(([, v]) => v >= 3).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
    const cause = [fmt(byElement) && `updates: ${fmt(byElement)}`, fmt(byFn, 3) && `calls: ${fmt(byFn, 3)}`,
      fmt(browser) && `browser: ${fmt(browser, 5)}`].filter(Boolean).join('; ');
    out.push({ at: firstNumbers ? (t.ts - firstNumbers.ts) / 1000 : null, ms: t.dur / 1000, cpu: (t.tdur ?? t.dur) / 1000, widget, cause });
  }
  return out;
}

async function load(browser, url) {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const cdp = await browser.context.newCDPSession(page);
  if (RATE > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => { for (const e of d.value) events.push(e); });
  const traced = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', 'blink.user_timing', 'devtools.timeline', 'v8', 'blink', 'disabled-by-default-devtools.timeline'] }, transferMode: 'ReportEvents' });
  await page.addInitScript({ content: `${PROBE_HELPERS}(${probe})(${JSON.stringify(TAGS)}, ${SCROLL ? 0 : 1 + AHEAD_SCREENS});` });
  await page.goto(url, { waitUntil: 'commit' });
  const shown = () => cdp.send('Runtime.evaluate', { expression: 'JSON.stringify(window.__ltShown ?? {})', returnByValue: true })
    .then((r) => JSON.parse(r.result.value ?? '{}')).catch(() => ({}));
  const t0 = Date.now();
  let s = {};
  while (s.firstNumbers === undefined) {
    if (Date.now() - t0 > 120000) throw new Error('no first numbers within 120 s');
    await new Promise((ok) => setTimeout(ok, 100));
    s = await shown();
  }
  await cdp.send('Runtime.evaluate', { expression: "performance.mark('lt:first-numbers')" });
  if (SCROLL) {
    for (let i = 0; i < 400; i++) {
      await cdp.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: 720, y: 450, deltaX: 0, deltaY: 400 });
      await new Promise((ok) => setTimeout(ok, 250));
      const r = await cdp.send('Runtime.evaluate', { expression: 'scrollY + innerHeight >= document.documentElement.scrollHeight - 2', returnByValue: true }).catch(() => null);
      if (r?.result?.value === true) break;
    }
  }
  while (s.all === undefined) {
    if (Date.now() - t0 > 180000) throw new Error(`not every widget ${SCROLL ? '' : 'in reach '}showed numbers within 180 s: ${JSON.stringify(s)}`);
    await new Promise((ok) => setTimeout(ok, 250));
    s = await shown();
  }
  await page.waitForTimeout(1000 * Math.max(2, RATE / 2));  // tasks that follow the drawing
  if (FOR > 0) await page.waitForTimeout(Math.max(0, t0 + FOR * 1000 - Date.now()));
  await cdp.send('Tracing.end');
  await traced;
  await page.close();
  return { tasks: longTasks(events), firstNumbers: s.firstNumbers, all: s.all };
}

const servers = await Promise.all(sites.map((d) => serveDist(d)));
const urls = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const browser = await launch();
const before = loadavg();
const results = sites.map(() => []);
try {
  for (let i = 0; i < RUNS; i++) for (let n = 0; n < sites.length; n++) { const j = (i + n) % sites.length; results[j].push(await load(browser, urls[j])); }
} finally {
  await browser.close();
  for (const s of servers) s.close();
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : 0; };
console.log(`long tasks > 50 ms, CPU throttled ${RATE}×, 1440×900, ${SCROLL ? 'load + scroll to the bottom' : 'load, no scroll'}, ${RUNS} loads per site; `
  + `load average ${before.map((x) => x.toFixed(2)).join(' ')} before, ${loadavg().map((x) => x.toFixed(2)).join(' ')} after`);
sites.forEach((d, j) => {
  const rs = results[j];
  console.log(`\n${AB ? `${'AB'[j]} ` : ''}${d}`);
  rs.forEach((r, i) => {
    console.log(`  load ${i + 1}: first numbers ${r.firstNumbers.toFixed(0)} ms, ${SCROLL ? 'all widgets' : 'widgets in reach'} ${r.all.toFixed(0)} ms, ${r.tasks.length} long tasks, longest ${Math.max(0, ...r.tasks.map((t) => t.ms)).toFixed(0)} ms`);
    if (VERBOSE || !AB) for (const t of r.tasks) console.log(`    ${t.at == null ? '' : `${t.at >= 0 ? '+' : ''}${(t.at / 1000).toFixed(2)} s `}${t.widget.padEnd(32)} ${t.ms.toFixed(0).padStart(5)} ms (CPU ${t.cpu.toFixed(0)})  ${t.cause}`);
  });
  // per widget over the loads: the median of each load's longest task and count
  const widgets = [...new Set(rs.flatMap((r) => r.tasks.map((t) => t.widget)))];
  console.log('  by widget (median over loads of: the longest task ms, the number of long tasks):');
  for (const w of widgets.sort()) {
    const longest = rs.map((r) => Math.max(0, ...r.tasks.filter((t) => t.widget === w).map((t) => t.ms)));
    const cpu = rs.map((r) => Math.max(0, ...r.tasks.filter((t) => t.widget === w).map((t) => t.cpu)));
    const count = rs.map((r) => r.tasks.filter((t) => t.widget === w).length);
    console.log(`    ${w.padEnd(32)} longest ${median(longest).toFixed(0).padStart(5)} ms (${longest.map((x) => x.toFixed(0)).join(', ')}), CPU ${median(cpu).toFixed(0)} ms, ${median(count)} tasks`);
  }
  console.log(`  total: median ${median(rs.map((r) => r.tasks.length))} long tasks per load, longest ${median(rs.map((r) => Math.max(0, ...r.tasks.map((t) => t.ms)))).toFixed(0)} ms, blocking ${median(rs.map((r) => r.tasks.reduce((a, t) => a + t.ms - 50, 0))).toFixed(0)} ms`);
});
process.exit(0);
