// Multi-head self-attention forward in the browser users run: attnlab and onnxruntime-web in ONE
// headless Chromium page (Debian's /usr/bin/chromium through playwright-core), on the same inputs,
// timed interleaved. Every other speed figure of `npm run bench` is Node's; V8 in Chromium tiers
// WebAssembly up the same way but the page is slower for both engines.
//   attnlab: the public JS API as a page imports it (web/api/index.js and its .wasm): the layer
//   (createMultiHeadAttention, then forward({ x, tq, out })) with all intermediates and output-only,
//   and multiHeadAttention with all intermediates (new arrays, and out: reused).
//   onnxruntime-web (wasm, SIMD, 1 thread): the plain ONNX graph and its fused com.microsoft.Attention
//   op (bench/onnx-mha.mjs builds both in the page), weights as initializers.
// Files are served from this checkout by a static server on 127.0.0.1 with COOP/COEP headers, so the
// page is cross-origin isolated and performance.now() is precise to 5 µs (100 µs otherwise).
// Every engine warms up ≥ 2 s per shape, in rounds with the others; then one sample of each engine per
// round, the first rotating (a sample: a batch of calls lasting ≥ 5 ms), for ≥ 1.5 s per engine; the
// median sample and its interquartile range are reported, and the ratio to onnxruntime-web per round
// (wall clock: a page has no CPU clock). Outputs are compared with the layer's. Prints the table and writes its section
// of docs/performance.md (between the browser-mha markers; bench/mha.bench.mjs carries it over).
//
//   node bench/browser-mha.mjs [--quick] [--only T,D,H]      (after scripts/build-wasm.sh)
import { createServer } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { launch } from '../tests/e2e/browser.js';

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const QUICK = argv.includes('--quick');
const ONLY = opt('--only', null);  // one shape, docs/performance.md left as it is
const WARMUP_MS = QUICK ? 300 : 2000;
const TIMED_MS = QUICK ? 300 : 1500;
const SHAPES = [[16, 64, 4], [128, 256, 8]].filter((s) => !ONLY || s.join() === ONLY);
if (!SHAPES.length) {
  console.log(`browser-mha: --only ${ONLY} is not one of the shapes (16,64,4 and 128,256,8); nothing to do`);
  process.exit(0);
}
const ROOT = resolve(import.meta.dirname, '..');
if (!existsSync(join(ROOT, 'web/api/wasm/attnlab-core.wasm'))) {
  console.error('browser-mha: web/api/wasm/attnlab-core.wasm is missing: run scripts/build-wasm.sh first');
  process.exit(1);
}

// ---- a static server for this checkout on 127.0.0.1, cross-origin isolated ----
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const PAGE = '<!doctype html><meta charset="utf-8"><title>attnlab bench</title><link rel="icon" href="data:,"><p>multi-head attention bench</p>';
const server = await new Promise((ok) => {
  const s = createServer(async (req, res) => {
    const headers = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cache-control': 'no-store' };
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (path === '/') {
        res.writeHead(200, { ...headers, 'content-type': TYPES['.html'] });
        return res.end(PAGE);
      }
      const file = join(ROOT, normalize(path));
      // Only what the page needs: the API and its .wasm, the ONNX model builder, onnxruntime-web.
      if (!['/web/api/', '/bench/', '/node_modules/onnxruntime-web/dist/'].some((d) => file.startsWith(join(ROOT, d)))) throw new Error('not served');
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  s.listen(0, '127.0.0.1', () => ok(s));
});
const url = `http://127.0.0.1:${server.address().port}/`;

// ---- the benchmark, run inside the page ----
async function inPage({ shapes, warmupMs, timedMs }) {
  const { createAttnLab } = await import('/web/api/index.js');
  const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  const { mhaOnnxModel, mhaOnnxFusedModel } = await import('/bench/onnx-mha.mjs');
  ort.env.wasm.numThreads = 1;
  const lab = await createAttnLab();
  // The inputs of bench/mha.bench.mjs (same seeded generator).
  const rng = (seed) => { let s = seed >>> 0; return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32 * 2 - 1; }; };
  const inputs = (T, D, H) => {
    const r = rng(T * 131 + D * 7 + H), sc = 1 / Math.sqrt(D);
    const m = (n, f = 1) => Float32Array.from({ length: n }, () => r() * f);
    return { T, D, H, x: m(T * D), wq: m(D * D, sc), wk: m(D * D, sc), wv: m(D * D, sc), wo: m(D * D, sc) };
  };
  const median = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
  const quantile = (a, q) => [...a].sort((p, r) => p - r)[Math.min(a.length - 1, Math.floor(q * a.length))];
  const results = [];
  for (const [T, D, H] of shapes) {
    const inp = inputs(T, D, H);
    const weights = { dModel: D, heads: H, wq: inp.wq, wk: inp.wk, wv: inp.wv, wo: inp.wo };
    const layer = lab.createMultiHeadAttention(weights);
    const layerArgs = { x: inp.x, tq: T };
    layerArgs.out = layer.forward(layerArgs);
    const fastArgs = { x: inp.x, tq: T, intermediates: false };
    fastArgs.out = layer.forward(fastArgs);
    const mhaArgs = { x: inp.x, tq: T, ...weights };
    const fastMhaArgs = { ...mhaArgs, intermediates: false };
    const reuseArgs = { ...mhaArgs };
    reuseArgs.out = lab.multiHeadAttention(reuseArgs);
    const session = async (fused) => {
      const s = await ort.InferenceSession.create(fused ? mhaOnnxFusedModel(inp) : mhaOnnxModel(inp), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const x = new ort.Tensor('float32', inp.x, fused ? [1, T, D] : [T, D]);
      return { s, run: async () => (await s.run({ x })).out.data };
    };
    const plain = await session(false), fused = await session(true);
    // sync: a plain call (no await in the loop); async: awaited, as its API needs.
    const engines = [
      { name: 'attnlab layer + out reused (all intermediates)', sync: true, fn: () => layer.forward(layerArgs).output },
      { name: 'attnlab layer + out reused (output-only)', sync: true, fn: () => layer.forward(fastArgs).output },
      { name: 'attnlab multiHeadAttention (all intermediates)', sync: true, fn: () => lab.multiHeadAttention(mhaArgs).output },
      { name: 'attnlab multiHeadAttention, out reused', sync: true, fn: () => lab.multiHeadAttention(reuseArgs).output },
      { name: 'attnlab multiHeadAttention (output-only)', sync: true, fn: () => lab.multiHeadAttention(fastMhaArgs).output },
      { name: 'onnxruntime-web', sync: false, fn: plain.run },
      { name: 'onnxruntime-web fused Attention', sync: false, fn: fused.run },
    ];
    const batchOf = async (e, n) => {
      let out;
      const t0 = performance.now();
      if (e.sync) for (let i = 0; i < n; i++) out = e.fn();
      else for (let i = 0; i < n; i++) out = await e.fn();
      return { ms: (performance.now() - t0) / n, out };
    };
    // Warm-up in rounds (~50 ms per engine each) until every engine has had warmupMs: warming one
    // engine alone first, then the next, left the first one's figures up to 1.9× off in Node.
    for (const e of engines) Object.assign(e, { calls: 0, warmMs: 0, samples: [] });
    while (engines.some((e) => e.warmMs < warmupMs))
      for (const e of engines) {
        const t0 = performance.now();
        do { await batchOf(e, 1); e.calls++; } while (performance.now() - t0 < Math.min(50, warmupMs));
        e.warmMs += performance.now() - t0;
      }
    for (const e of engines) e.batch = Math.max(1, Math.ceil(5 / (e.warmMs / e.calls)));
    // Then one sample of each engine per round, the first engine of a round rotating.
    const t0 = performance.now();
    for (let round = 0; round < 5 || (performance.now() - t0 < timedMs * engines.length && round < 1000); round++)
      for (let j = 0; j < engines.length; j++) {
        const e = engines[(j + round) % engines.length];
        const { ms, out } = await batchOf(e, e.batch);
        e.samples.push(ms);
        e.out = out;
      }
    const ref = engines[0].out;
    let den = 0;
    for (const y of ref) den = Math.max(den, Math.abs(y));
    results.push({
      shape: [T, D, H],
      engines: engines.map((e) => {
        let num = 0;
        for (let i = 0; i < ref.length; i++) num = Math.max(num, Math.abs(e.out[i] - ref[i]));
        // × the faster onnxruntime-web graph, per round (both samples of a round see the same machine load).
        const ortBest = engines.filter((o) => o.name.startsWith('onnxruntime-web')).sort((a, b) => median(a.samples) - median(b.samples))[0];
        const ratios = e.samples.map((x, i) => ortBest.samples[i] / x);
        return { name: e.name, ms: median(e.samples), lo: quantile(e.samples, 0.25), hi: quantile(e.samples, 0.75),
          vsOrt: [median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)], runs: e.samples.length * e.batch, diff: num / den };
      }),
    });
    layer.dispose();
    await plain.s.release();
    await fused.s.release();
  }
  return { results, userAgent: navigator.userAgent, isolated: crossOriginIsolated, ort: ort.env.versions?.web ?? '?', simd128: lab.info().simd128 };
}

const browser = await launch();
let run;
try {
  const page = await browser.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(url);
  console.log(`browser-mha: Chromium, one page; warm-up ${WARMUP_MS} ms per engine and shape, then medians of interleaved samples`);
  run = await page.evaluate(inPage, { shapes: SHAPES, warmupMs: WARMUP_MS, timedMs: TIMED_MS });
  if (problems.length) console.log(`browser-mha: page reported: ${problems.join(' | ')}`);
} finally {
  await browser.close();
  server.close();
}

// ---- table ----
const isOrt = (name) => name.startsWith('onnxruntime-web');
const lines = ['| (T, D, H) | engine | ms per call (wall, median [IQR]) | × best onnxruntime-web (per round [IQR]) | calls timed | max rel diff to the layer |', '| --- | --- | ---: | ---: | ---: | ---: |'];
for (const r of run.results) {
  const best = Math.min(...r.engines.filter((e) => isOrt(e.name)).map((e) => e.ms));
  for (const e of r.engines)
    lines.push(`| (${r.shape.join(', ')}) | ${e.name} | ${e.ms.toFixed(4)} [${e.lo.toFixed(4)}–${e.hi.toFixed(4)}] | ${isOrt(e.name) && e.ms !== best ? '—' : `${e.vsOrt[0].toFixed(2)}× [${e.vsOrt[1].toFixed(2)}–${e.vsOrt[2].toFixed(2)}]`} | ${e.runs} | ${e.diff.toExponential(1)} |`);
}
console.log(`\n${lines.join('\n')}`);
const chrome = (run.userAgent.match(/Chrome\/([\d.]+)/) ?? [])[1] ?? '?';
const cpu = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? cpus()[0]?.model ?? '?';
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average at the end: ${load} on ${cpus().length} CPUs${Number(load.split(' ')[0]) > cpus().length ? ' (loaded: wall-clock figures of the engines that allocate most suffer most)' : ''}`);
if (!run.isolated) console.log('browser-mha: the page was not cross-origin isolated (timer resolution 100 µs)');
if (ONLY || QUICK) {
  console.log(`\n--${ONLY ? 'only' : 'quick'}: docs/performance.md left as it was`);
  process.exit(0);
}
const section = `<!-- browser-mha: begin -->
## Multi-head attention in Chromium: attnlab and onnxruntime-web in one page

bench/browser-mha.mjs: Debian's Chromium ${chrome} (headless, playwright-core) loads one page from a static server on
127.0.0.1 (cross-origin isolated${run.isolated ? '' : ' — not this time'}: a 5 µs timer) that imports attnlab's public API
(\`web/api/index.js\`, SIMD128: ${run.simd128}) and onnxruntime-web ${run.ort} (wasm, \`numThreads = 1\`) and runs the same
multi-head self-attention forward as the Node table (same seeded inputs, no mask). Every engine warms up ${WARMUP_MS / 1000} s per
shape, in rounds with the others; then the engines are timed in rounds, one sample of each per round, the first engine
rotating (a sample: a batch of calls lasting ≥ 5 ms), for ≥ ${TIMED_MS / 1000} s per engine; the median sample is reported
with its interquartile range, and "× best onnxruntime-web" is the median over rounds of the two samples' ratio. Wall-clock time per call (a page has no CPU clock), so a
busy machine inflates every engine of a round alike. "× best onnxruntime-web" = the faster of its two graphs
(plain ONNX ops, fused com.microsoft.Attention) ÷ this engine's time. The layer is
\`lab.createMultiHeadAttention(weights)\` once, then \`layer.forward({ x, tq, out })\` (all intermediates, or
\`intermediates: false\`); \`multiHeadAttention\` sends the weights on every call (new result arrays, or \`out:\` reused).
Machine: ${cpu}, ${cpus().length} logical CPUs; load average at the end of the run: ${load}.

${lines.join('\n')}
<!-- browser-mha: end -->`;
const DOC = join(ROOT, 'docs/performance.md');
const prev = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Performance\n';
const marked = /<!-- browser-mha: begin -->[\s\S]*?<!-- browser-mha: end -->/;
writeFileSync(DOC, marked.test(prev) ? prev.replace(marked, () => section) : `${prev.trimEnd()}\n\n${section}\n`);
console.log('\nwrote the Chromium section of docs/performance.md');
