// npm run bench — what one call across the JS ↔ WebAssembly boundary costs, at the interactive sizes:
// the smallest call (weightedSum of 1×1: arguments checked, copied in, the Embind call, the core's
// checks, the result copied out), a call whose C++ does nothing (the module's heapInUse: Embind's
// invoker alone), and the multi-head forward at (T 16, d_model 64, 4 heads) through each API path.
// Medians after ≥ 2 s of warm-up (V8 tiers WebAssembly up in the background). Not a test.
//
//   node bench/boundary.bench.mjs [--quick] [--vs other/web/api/index.js]
//
// --vs times a second build of the API (e.g. a checkout of an older commit) interleaved with this one,
// A B A B, in the same process: the before/after figures of a change to the boundary.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createAttnLab } from '../web/api/index.js';
import { threadCpu } from './thread-cpu.mjs';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const vsAt = argv.indexOf('--vs');
const WARMUP_MS = QUICK ? 300 : 2000, ROUNDS = QUICK ? 5 : 31;

const labs = [['this build', await createAttnLab()]];
if (vsAt >= 0) {
  const { createAttnLab: other } = await import(new URL(argv[vsAt + 1], `file://${process.cwd()}/`).href);
  labs.push([argv[vsAt + 1], await other()]);
}

const rng = (() => { let s = 7; return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1; })();
const mat = (n, sc = 1) => Float32Array.from({ length: n }, () => rng() * sc);
const T = 16, D = 64, H = 4;
const w = { wq: mat(D * D, 0.125), wk: mat(D * D, 0.125), wv: mat(D * D, 0.125), wo: mat(D * D, 0.125) };
const x = mat(T * D);

function cases(lab) {
  const layer = lab.createMultiHeadAttention({ dModel: D, heads: H, ...w });
  const args = { x, tq: T };
  args.out = layer.forward(args);
  const free = { dModel: D, heads: H, ...w, x, tq: T };
  const reuse = { ...free, out: lab.multiHeadAttention(free) };
  const one = { weights: [1], v: [2], tq: 1, tk: 1, dv: 1 };
  return {
    'weightedSum 1×1 (the smallest whole call)': () => lab.weightedSum(one),
    'multiHeadAttention (16, 64, 4)': () => lab.multiHeadAttention(free),
    'multiHeadAttention (16, 64, 4), out reused': () => lab.multiHeadAttention(reuse),
    'layer.forward (16, 64, 4), out reused': () => layer.forward(args),
  };
}

// The clock: this thread's CPU time (Linux: /proc/self/task/<pid>/schedstat, brought up to date by
// getrusage), as bench/mha.bench.mjs: a loaded machine inflates wall time for whichever build a slow
// patch hits. Wall time where the file is missing.
const cpuMs = threadCpu ?? (() => performance.now());

// µs per call of `fn` over one round of n calls (~20 ms).
function timeRound(fn, n) {
  const t0 = cpuMs();
  for (let i = 0; i < n; i++) fn();
  return ((cpuMs() - t0) * 1000) / n;
}
function calibrate(fn) {
  let n = 1;
  while (timeRound(fn, n) * n < 20000) n *= 2;
  return n;
}

const all = labs.map(([name, lab]) => [name, cases(lab)]);
const rows = [];
console.log(`boundary bench: Node ${process.versions.node}, warm-up ${WARMUP_MS} ms per case, median of ${ROUNDS} interleaved rounds (µs of main-thread CPU per call)`);
for (const label of Object.keys(all[0][1])) {
  const fns = all.map(([, c]) => c[label]);
  for (const fn of fns) { const t0 = performance.now(); while (performance.now() - t0 < WARMUP_MS) fn(); }
  const ns = fns.map(calibrate), times = fns.map(() => []);
  // A B, then B A, …: with a fixed order the second build always ran after the first one's garbage
  // (a same-build comparison read ×0.88-0.93 that way under load).
  for (let r = 0; r < ROUNDS; r++)
    for (let j = 0; j < fns.length; j++) {
      const i = (j + r) % fns.length;
      times[i].push(timeRound(fns[i], ns[i]));
    }
  const med = times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
  console.log(`  ${label.padEnd(46)} ${all.map(([name], i) => `${name}: ${med[i].toFixed(2)}`).join('   ')}${med.length > 1 ? `   (×${(med[1] / med[0]).toFixed(2)})` : ''}`);
  rows.push(`| ${label} | ${med.map((m) => m.toFixed(2)).join(' | ')} |`);
}

// The doc's section (between its markers; bench/mha.bench.mjs carries it over) — a full run of this
// build alone: a --vs comparison or a --quick run is printed only.
if (!QUICK && labs.length === 1) {
  const section = `<!-- boundary.bench.mjs: begin -->
## The boundary: one call from JS into the core

bench/boundary.bench.mjs, Node ${process.versions.node}: µs of main-thread CPU per call, median of ${ROUNDS} rounds after ${WARMUP_MS / 1000} s of warm-up per case. Every op
crosses Embind with a \`value_object\` call (fields by name) except multi-head attention, whose two entry points
take their numbers and flags as plain arguments and their arrays' addresses as one table in the arena (12 and 10
arguments): Embind writes a \`value_object\` one WebAssembly call per field plus a malloc/free (~1.4 µs for the
30-field multi-head call against ~0.26 µs as arguments, ~9 % of the interactive call), and its invoker costs ~30 ns
per plain argument. Machine: ${cpus()[0]?.model ?? '?'}, ${cpus().length} logical CPUs; load average ${loadavg()[0].toFixed(1)}.

| call | µs |
| --- | --- |
${rows.join('\n')}
<!-- boundary.bench.mjs: end -->`;
  const DOC = new URL('../docs/performance.md', import.meta.url);
  const prev = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Performance\n';
  const marked = /<!-- boundary.bench.mjs: begin -->[\s\S]*?<!-- boundary.bench.mjs: end -->/;
  writeFileSync(DOC, marked.test(prev) ? prev.replace(marked, () => section) : `${prev.trimEnd()}\n\n${section}\n`);
  console.log('wrote the boundary section of docs/performance.md');
}
