// Page load in Debian's Chromium (playwright-core) against the app built fresh into build/bench/site
// (vite build, the same as dist/ without the decks), at 1440×900:
//   - first numbers: navigation start → the first widget shows a heatmap of numbers computed in WASM
//     (its first heatmap cell exists, seen by the page at the next animation frame);
//   - widgets in reach: → every widget the page draws while the reader stays at its top shows its numbers
//     (drawn past "Loading…" and any placeholder, with digits in it): those within the first screen and
//     lazy.js's AHEAD_MARGIN below it, drawn ahead of the reader in idle time (the ones further down
//     wait for the reader to come near; bench/long-tasks.mjs scrolls through them);
//   - the longest main-thread task until then (+1 s), from a PerformanceObserver('longtask') registered
//     before the page's own scripts (tasks ≥ 50 ms; "none" when every task was shorter), their count,
//     and the total blocking time (Σ duration − 50 ms);
//   - first contentful paint, and when the page's first script ran (the time before it is the browser's:
//     navigation, the new document, its window; none of it is the page's code).
// Run 1 is a cold load (fresh profile, nothing cached), runs 2… reload in new tabs; then the same with
// the CPU throttled 4× (Chromium's `Emulation.setCPUThrottlingRate`, DevTools' "4× slowdown": a
// phone-class CPU). Writes build/bench/page-load.json for bench/mha.bench.mjs to include.
//   node bench/page-load.mjs [--runs N]   (after scripts/build-wasm.sh; N loads of each kind, default 6)
//   node bench/page-load.mjs --no-build [--site DIR] [--out FILE]   (measure a site built before, as it is)
//   node bench/page-load.mjs --ab DIR_A,DIR_B[,…] [--runs N] [--throttled-only]   (an A/B of builds: the sites load
//   in turn (the order rotates), in one browser, so both see the same machine load; prints both, writes nothing);
//   add --first to end each load at the first numbers instead of waiting for the widgets in reach
//   add --phases to split the main thread's CPU before the first numbers by what ran (it traces more
//   categories, which costs the page some CPU: compare phases with phases, totals without --phases):
//   navigation (the new document and its window), parse (HTML), frames before the page's scripts ran
//   (the first style, layout and paint), scripts (every module evaluated, the custom elements upgraded),
//   frames after them, core start (the microtask task that instantiates the WebAssembly module: Embind's
//   registrations), first draw (the first widget's first part), the frame that lays it out and paints it,
//   other; and the style recalculation and layout time inside all of these
//   add --breakdown for what the CPU before the first numbers was spent on: the trace events with the most
//   self time (layout, text shaping, style, paint, script…; the same extra categories as --phases) and each
//   custom element's Lit update() time (its render and DOM commit; a child's update is its own), medians
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { serveDist } from '../tests/e2e/server.mjs';
import { launch } from '../tests/e2e/browser.js';
import { PROBE_HELPERS } from './page-probe.mjs';
import { AHEAD_SCREENS } from '../web/widgets/shared/lazy.js';

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const RUNS = Math.max(2, Number(arg('--runs', 6)));
const TAGS = ['attn-steps', 'attn-convex', 'attn-kernel-regression', 'attn-why-scale', 'attn-cross', 'attn-multihead',
  'attn-positional', 'attn-block', 'attn-cost', 'attn-train'];

// The widgets in reach: their tops within this many viewport heights of the page's top (the viewport
// and lazy.js's AHEAD_MARGIN below it).
const REACH = 1 + AHEAD_SCREENS;
const AB = arg('--ab', null)?.split(',').map((d) => resolve(d));
const THROTTLED_ONLY = process.argv.includes('--throttled-only');
// --first: a load ends at the first numbers (+ the settling time), not when every widget shows its own.
const FIRST_ONLY = process.argv.includes('--first');
const PHASES = process.argv.includes('--phases');
const BREAKDOWN = process.argv.includes('--breakdown');
const site = resolve(arg('--site', 'build/bench/site'));
const OUT = arg('--out', 'build/bench/page-load.json');
if (!AB && !process.argv.includes('--no-build'))
  execFileSync('npx', ['vite', 'build', '-c', 'web/app/vite.config.js', '--logLevel', 'warn', '--outDir', site, '--emptyOutDir'], { stdio: 'inherit' });
const servers = await Promise.all((AB ?? [site]).map((d) => serveDist(d)));
const urls = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const browser = await launch();

// Runs in the page before its scripts: long tasks, and the frame at which each widget first shows
// numbers (checked once per animation frame, so a time is when the browser could paint it).
function probe(tags, firstOnly, breakdown, reach) {
  performance.mark('attn:document');
  // --breakdown: each custom element class's update() time (ms) until the first numbers, by tag.
  const updates = {};
  if (breakdown) {
    const define = customElements.define.bind(customElements);
    customElements.define = (name, cls, options) => {
      const update = cls.prototype.update;
      if (typeof update === 'function') {
        cls.prototype.update = function (changed) {
          const t0 = performance.now();
          try { return update.call(this, changed); } finally { updates[name] = (updates[name] ?? 0) + performance.now() - t0; }
        };
      }
      return define(name, cls, options);
    };
  }
  const lt = (window.__attnLongTasks = []);
  try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) lt.push({ start: e.startTime, duration: e.duration }); })
      .observe({ type: 'longtask', buffered: true });
  } catch { /* no longtask support: reported as null */ }
  const seen = (window.__attnShown = {});
  let done;
  window.__attnDone = new Promise((ok) => { done = ok; });
  const firstCell = () => {
    let found = false;
    for (const host of document.querySelectorAll(tags.join(','))) {
      if (!host.shadowRoot) continue;
      deep(host.shadowRoot, (el) => {
        if (el.localName === 'attn-heatmap' && el.shadowRoot?.querySelector('table td')) { found = true; return false; }
        return true;
      });
      if (found) return true;
    }
    return false;
  };
  // The widgets in reach, decided once at the first numbers (every widget below is a placeholder of its
  // height by then, so where each starts does not move as the others draw).
  let inReach = null;
  const tick = () => {
    const now = performance.now();
    if (seen.firstNumbers === undefined && firstCell()) {
      seen.firstNumbers = now; performance.mark('attn:first-numbers'); window.__attnUpdates = { ...updates };
      inReach = tags.filter((t) => { const el = document.querySelector(t); return el && el.getBoundingClientRect().top < innerHeight * reach; });
      seen.inReach = inReach;
    }
    for (const t of tags) if (seen[t] === undefined) { const el = document.querySelector(t); if (el && shows(el)) seen[t] = now; }
    if (firstOnly && seen.firstNumbers !== undefined) { seen.all = seen.firstNumbers; done(true); }
    else if (seen.firstNumbers === undefined || inReach.some((t) => seen[t] === undefined)) requestAnimationFrame(tick);
    else { seen.all = Math.max(...inReach.map((t) => seen[t])); performance.mark('attn:all-widgets'); done(true); }
  };
  requestAnimationFrame(tick);
}

// The page's main-thread tasks from a Chromium trace ('toplevel': every task with its wall and thread CPU
// time; 'blink.user_timing': the probe's marks). CPU time is what a loaded machine inflates least: the
// wall-clock figures of this shared VM move with the other jobs on it; the CPU ones much less.
function mainThreadTasks(events) {
  const mark = (name) => events.find((e) => e.name === name && e.cat.includes('user_timing'));
  const doc = mark('attn:document'), first = mark('attn:first-numbers'), all = mark('attn:all-widgets');
  if (!doc) return null;
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === doc.pid && e.args?.name === 'CrRendererMain');
  // Tasks: the outermost 'toplevel' events of the main thread (a posted task, or a microtask checkpoint
  // that Blink runs on its own: Lit's renders after a promise resolves are one of those).
  const top = events.filter((e) => e.ph === 'X' && e.cat.split(',').includes('toplevel') && e.pid === doc.pid
    && (!main || e.tid === main.tid) && e.ts + e.dur >= doc.ts).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const tasks = [];
  for (const e of top) { const last = tasks[tasks.length - 1]; if (!last || e.ts >= last.ts + last.dur) tasks.push(e); }
  const cpuUntil = (m) => (m ? tasks.filter((t) => t.ts < m.ts).reduce((s, t) => s + (t.tdur ?? t.dur), 0) / 1000 : null);
  const longest = tasks.reduce((a, t) => ((t.tdur ?? 0) > (a?.tdur ?? -1) ? t : a), null);
  // The longest task until the first numbers, the frame that paints them included (the tasks
  // cpuBeforeFirstNumbers adds up; longestTaskCpu also counts the settling time after the load's end).
  const before = first ? tasks.filter((t) => t.ts < first.ts) : [];
  const longestBefore = before.reduce((a, t) => Math.max(a, (t.tdur ?? t.dur) / 1000), 0);
  return { cpuBeforeFirstNumbers: cpuUntil(first), cpuBeforeAllWidgets: cpuUntil(all), longestTaskCpu: longest ? longest.tdur / 1000 : null,
    longestTaskCpuBeforeFirstNumbers: first ? longestBefore : null,
    phases: PHASES && first ? phasesBefore(first, tasks, events.filter((e) => e.ph === 'X' && e.pid === doc.pid && (!main || e.tid === main.tid))) : null,
    selfTime: BREAKDOWN && first ? selfTimeBefore(first, tasks, events.filter((e) => e.ph === 'X' && e.pid === doc.pid && (!main || e.tid === main.tid))) : null };
}

// --breakdown: self CPU (ms) by trace event name inside the main-thread tasks before the first numbers
// (an event's time less that of the events nested in it).
function selfTimeBefore(first, tasks, onMain) {
  const out = {};
  const sorted = onMain.filter((e) => e.ts < first.ts).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  for (const t of tasks.filter((x) => x.ts < first.ts)) {
    const stack = [];
    for (const e of sorted) {
      if (e.ts < t.ts || e.ts + e.dur > t.ts + t.dur) continue;
      while (stack.length && e.ts >= stack[stack.length - 1].ts + stack[stack.length - 1].dur) stack.pop();
      const cpu = (e.tdur ?? e.dur) / 1000;
      if (stack.length) out[stack[stack.length - 1].name] -= cpu;
      out[e.name] = (out[e.name] ?? 0) + cpu;
      stack.push(e);
    }
  }
  return out;
}

// --phases: each main-thread task before the first numbers by what it ran (CPU ms), in page order.
function phasesBefore(first, tasks, onMain) {
  const out = {};
  let scripts = false, core = false, drawn = false;
  const inside = (t, name) => onMain.some((e) => e.name === name && e.ts >= t.ts && e.ts < t.ts + t.dur);
  for (const t of tasks.filter((x) => x.ts < first.ts)) {
    const cpu = (t.tdur ?? t.dur) / 1000, frame = inside(t, 'WebFrameWidgetImpl::UpdateLifecycle');
    let k = 'other';
    if (inside(t, 'DocumentLoader::CommitNavigation')) k = 'navigation';
    else if (inside(t, 'HTMLParserScriptRunner ExecuteScript')) { k = 'scripts'; scripts = true; }
    else if (scripts && !core && t.name === 'BlinkScheduler_PerformMicrotaskCheckpoint' && cpu > 10) { k = 'coreStart'; core = true; }
    else if (core && !drawn && !frame && cpu > 20) { k = 'firstDraw'; drawn = true; }
    else if (frame) k = drawn ? 'drawFrame' : scripts ? 'framesAfterScripts' : 'framesBeforeScripts';
    else if (inside(t, 'ParseHTML')) k = 'parse';
    out[k] = (out[k] ?? 0) + cpu;
    if (cpu > (out.longestCpu ?? 0)) { out.longestCpu = cpu; out.longestKind = k; }
  }
  const sum = (name) => onMain.filter((e) => e.name === name && e.ts < first.ts).reduce((a, e) => a + (e.tdur ?? e.dur), 0) / 1000;
  out['(style)'] = sum('UpdateLayoutTree');
  out['(layout)'] = sum('Layout');
  return out;
}

async function load(throttle, url = urls[0]) {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const cdp = await browser.context.newCDPSession(page);
  if (throttle > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => { for (const e of d.value) events.push(e); });
  const traced = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
  const categories = ['toplevel', 'blink.user_timing', ...(PHASES || BREAKDOWN ? ['loading', 'blink', 'devtools.timeline'] : []), ...(BREAKDOWN ? ['v8'] : [])];
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: categories }, transferMode: 'ReportEvents' });
  await page.addInitScript({ content: `${PROBE_HELPERS}(${probe})(${JSON.stringify(TAGS)}, ${FIRST_ONLY}, ${BREAKDOWN}, ${REACH});` });
  await page.goto(url, { waitUntil: 'commit' });
  // Waits through the DevTools protocol for the probe's promise: no polling, and none of Playwright's
  // own scripts (its selector engine, ~0.1 s of main-thread CPU at 4×) run in the page while it loads.
  for (const t0 = Date.now(); ;) {
    if (Date.now() - t0 > 120000) throw new Error('the widgets in reach did not all show numbers within 120 s');
    const r = await cdp.send('Runtime.evaluate', { expression: 'window.__attnDone', awaitPromise: true, returnByValue: true }).catch(() => null);
    if (r?.result?.value === true) break;
    await new Promise((ok) => setTimeout(ok, 50));  // the new document's probe has not run yet
  }
  const settle = 1000 * Math.max(1, throttle / 2);
  await page.waitForTimeout(settle);  // tasks that follow the drawing (font loads, refits)
  const r = await page.evaluate(() => ({
    shown: window.__attnShown,
    longTasks: window.__attnLongTasks,
    domContentLoaded: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? null,
    firstContentfulPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    documentStart: performance.getEntriesByName('attn:document')[0]?.startTime ?? null,
    updates: window.__attnUpdates ?? null,
  }));
  await cdp.send('Tracing.end');
  await traced;
  await page.close();
  const within = r.longTasks.filter((t) => t.start <= r.shown.all + settle);
  const cpu = mainThreadTasks(events) ?? {};
  return {
    firstNumbers: r.shown.firstNumbers,
    allWidgets: r.shown.all,
    perWidget: Object.fromEntries(TAGS.map((t) => [t, r.shown[t] === undefined ? null : Math.round(r.shown[t])])),
    inReach: r.shown.inReach ?? null,
    longestTask: within.length ? Math.max(...within.map((t) => t.duration)) : 0,
    longTasks: within.length,
    blocking: within.reduce((s, t) => s + Math.max(0, t.duration - 50), 0),
    longestTaskCpu: cpu.longestTaskCpu ?? NaN,
    longestTaskCpuBeforeFirstNumbers: cpu.longestTaskCpuBeforeFirstNumbers ?? NaN,
    cpuBeforeFirstNumbers: cpu.cpuBeforeFirstNumbers ?? NaN,
    cpuBeforeAllWidgets: cpu.cpuBeforeAllWidgets ?? NaN,
    phases: cpu.phases ?? null,
    selfTime: cpu.selfTime ?? null,
    updates: r.updates,
    domContentLoaded: r.domContentLoaded,
    firstContentfulPaint: r.firstContentfulPaint,
    documentStart: r.documentStart,
  };
}

const runs = [], throttled = [];
const loadBefore = loadavg();  // this machine is shared: the figures move with its load
const abRuns = urls.map(() => ({ quiet: [], throttled: [] }));
try {
  if (AB) {
    for (const [kind, rate] of THROTTLED_ONLY ? [['throttled', 4]] : [['quiet', 1], ['throttled', 4]])
      for (let i = 0; i < RUNS; i++) for (let n = 0; n < urls.length; n++) { const j = (i + n) % urls.length; abRuns[j][kind].push(await load(rate, urls[j])); }
  } else {
    for (let i = 0; i < RUNS; i++) runs.push(await load(1));
    for (let i = 0; i < RUNS; i++) throttled.push(await load(4));
  }
} finally {
  await browser.close();
  for (const s of servers) s.close();
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const summary = (rs) => {
  const of = (k) => rs.map((r) => r[k]);
  return {
    firstNumbersMedianMs: median(of('firstNumbers')), firstNumbersRuns: of('firstNumbers').map(Math.round),
    allWidgetsMedianMs: median(of('allWidgets')), allWidgetsRuns: of('allWidgets').map(Math.round),
    longestTaskMedianMs: median(of('longestTask')), longestTaskRuns: of('longestTask').map(Math.round),
    longTasksMedian: median(of('longTasks')), blockingMedianMs: median(of('blocking')),
    longestTaskCpuMedianMs: median(of('longestTaskCpu')), longestTaskCpuRuns: of('longestTaskCpu').map(Math.round),
    longestBeforeFirstCpuMedianMs: median(of('longestTaskCpuBeforeFirstNumbers')), longestBeforeFirstCpuRuns: of('longestTaskCpuBeforeFirstNumbers').map(Math.round),
    cpuBeforeFirstNumbersMedianMs: median(of('cpuBeforeFirstNumbers')), cpuBeforeFirstNumbersRuns: of('cpuBeforeFirstNumbers').map(Math.round),
    cpuBeforeAllWidgetsMedianMs: median(of('cpuBeforeAllWidgets')),
    firstContentfulPaintMedianMs: median(of('firstContentfulPaint')), documentStartMedianMs: median(of('documentStart')),
    // Per widget, over the loads that drew it (a widget out of reach is drawn only if the reader scrolls).
    perWidgetMedianMs: Object.fromEntries(TAGS.flatMap((t) => {
      const xs = rs.map((r) => r.perWidget[t]).filter((x) => x !== null);
      return xs.length ? [[t, Math.round(median(xs))]] : [];
    })),
    inReach: rs[0]?.inReach ?? null,
    phasesMedianCpuMs: PHASES ? Object.fromEntries([...new Set(rs.flatMap((r) => Object.keys(r.phases ?? {})))].filter((k) => !k.startsWith('longest'))
      .map((k) => [k, Math.round(median(rs.map((r) => r.phases?.[k] ?? 0)))])) : null,
    // --phases: which phase the longest task before the first numbers was, load by load.
    longestKinds: PHASES ? rs.map((r) => `${r.phases?.longestKind} ${Math.round(r.phases?.longestCpu ?? 0)}`) : null,
    selfTimeMedianCpuMs: BREAKDOWN ? Object.fromEntries([...new Set(rs.flatMap((r) => Object.keys(r.selfTime ?? {})))]
      .map((k) => [k, Math.round(median(rs.map((r) => r.selfTime?.[k] ?? 0)))]).sort((a, b) => b[1] - a[1]).slice(0, 12)) : null,
    updatesMedianMs: BREAKDOWN ? Object.fromEntries([...new Set(rs.flatMap((r) => Object.keys(r.updates ?? {})))]
      .map((k) => [k, Math.round(median(rs.map((r) => r.updates?.[k] ?? 0)))])) : null,
  };
};
const line = (name, s) => `${name}: first numbers median ${s.firstNumbersMedianMs.toFixed(0)} ms (${s.firstNumbersRuns.join(', ')}), ` +
  `the ${s.inReach?.length ?? '?'} widgets in reach ${s.allWidgetsMedianMs.toFixed(0)} ms (${s.allWidgetsRuns.join(', ')}), longest task ${s.longestTaskMedianMs.toFixed(0)} ms ` +
  `(${s.longestTaskRuns.join(', ')}; 0 = none ≥ 50 ms), ${s.longTasksMedian} long tasks, blocking ${s.blockingMedianMs.toFixed(0)} ms;\n` +
  `    main-thread CPU: before first numbers ${s.cpuBeforeFirstNumbersMedianMs.toFixed(0)} ms (${s.cpuBeforeFirstNumbersRuns.join(', ')}), ` +
  `before the widgets in reach ${s.cpuBeforeAllWidgetsMedianMs.toFixed(0)} ms, longest task ${s.longestTaskCpuMedianMs.toFixed(0)} ms (${s.longestTaskCpuRuns.join(', ')}), ` +
  `longest task until the first numbers ${s.longestBeforeFirstCpuMedianMs.toFixed(0)} ms (${s.longestBeforeFirstCpuRuns.join(', ')});\n` +
  `    first contentful paint ${s.firstContentfulPaintMedianMs.toFixed(0)} ms, the page's first script ran at ${s.documentStartMedianMs.toFixed(0)} ms (medians)` +
  (s.phasesMedianCpuMs ? `;\n    main-thread CPU before the first numbers by phase (medians, ms): ${Object.entries(s.phasesMedianCpuMs).map(([k, v]) => `${k} ${v}`).join(', ')}` +
    `;\n    the longest task before them, by load: ${s.longestKinds.join(', ')}` : '') +
  (s.selfTimeMedianCpuMs ? `;\n    the most self CPU before the first numbers, by trace event (medians, ms): ${Object.entries(s.selfTimeMedianCpuMs).map(([k, v]) => `${k} ${v}`).join(', ')}` +
    `;\n    Lit update() time before the first numbers, by element (medians, ms): ${Object.entries(s.updatesMedianMs).map(([k, v]) => `${k} ${v}`).join(', ')}` : '');
if (AB) {
  const la = loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`A/B page load at 1440×900, ${RUNS} loads of each site per kind, alternating; load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${la} after:`);
  AB.forEach((d, j) => {
    console.log(`${'AB'[j] ?? j} ${d}`);
    if (!THROTTLED_ONLY) console.log(line('  quiet', summary(abRuns[j].quiet)));
    console.log(line('  CPU throttled 4×', summary(abRuns[j].throttled)));
  });
  process.exit(0);
}
const warm = runs.slice(1);
const result = {
  chromium: '/usr/bin/chromium (headless, --disable-gpu), viewport 1440×900',
  runsPerKind: RUNS,
  loadAverage: { before: loadBefore.map((x) => Number(x.toFixed(2))), after: loadavg().map((x) => Number(x.toFixed(2))) },
  coldMs: runs[0].firstNumbers,
  coldAllWidgetsMs: runs[0].allWidgets,
  coldLongestTaskMs: runs[0].longestTask,
  coldDomContentLoadedMs: runs[0].domContentLoaded,
  warmMedianMs: median(warm.map((r) => r.firstNumbers)),
  runs: runs.map((r) => Math.round(r.firstNumbers)),
  quiet: summary(runs),
  throttled4x: summary(throttled),
  // The names the page-load section has always read:
  throttled4xMedianMs: median(throttled.map((r) => r.firstNumbers)),
  throttled4xMaxMs: Math.max(...throttled.map((r) => r.firstNumbers)),
  throttled4xRuns: throttled.map((r) => Math.round(r.firstNumbers)),
};
mkdirSync('build/bench', { recursive: true });
writeFileSync(OUT, JSON.stringify(result, null, 2));
console.log(`page load at 1440×900, ${RUNS} loads each (the first quiet one cold); load average (1, 5, 15 min) ${result.loadAverage.before.join(' ')} before, ${result.loadAverage.after.join(' ')} after:`);
console.log(line('  quiet', result.quiet));
console.log(line('  CPU throttled 4×', result.throttled4x));
console.log(`  per widget, throttled, median ms: ${Object.entries(result.throttled4x.perWidgetMedianMs).map(([t, v]) => `${t.slice(5)} ${v}`).join(', ')}`);
