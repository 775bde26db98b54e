// A/B of two attnlab builds at one multi-head shape, in one process: each build's five call forms
// (those of bench/mha.bench.mjs) and onnxruntime-web's fused Attention, timed in paired rounds (the
// order rotating), main-thread CPU time per call; "B vs A" is the median over rounds of A's sample ÷
// B's (above 1: B faster). Each build is a directory holding a copy of web/api (index.js and wasm/).
// Checks first that both builds give the same results, bit for bit. The build loaded second ran
// 1-4 % slower in an A/A run (the same build twice, loaded machine): run both orders.
//   node bench/mha-ab.mjs DIR_A DIR_B [T D H] [rounds]
// (e.g. DIR_A = a worktree of the base commit's web/api, built with scripts/build-wasm.sh there)
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { threadCpu } from './thread-cpu.mjs';
import { mhaOnnxFusedModel } from './onnx-mha.mjs';
const [A, B, T = 16, D = 64, H = 4, ROUNDS = 40] = process.argv.slice(2).map((v, i) => (i < 2 ? v : Number(v)));
function rng(seed) { let s = seed >>> 0; return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32 * 2 - 1; }; }
const r = rng(T * 131 + D * 7 + H), sc = 1 / Math.sqrt(D);
const m = (n, s = 1) => Float32Array.from({ length: n }, () => r() * s);
const inp = { T, D, H, x: m(T * D), wq: m(D * D, sc), wk: m(D * D, sc), wv: m(D * D, sc), wo: m(D * D, sc) };
const { x, wq, wk, wv, wo } = inp;
const engines = [];
const results = [];
for (const dir of [A, B]) {
  const { createAttnLab } = await import(pathToFileURL(resolve(dir, 'index.js')).href);
  const lab = await createAttnLab();
  const L = lab.createMultiHeadAttention({ dModel: D, heads: H, wq, wk, wv, wo });
  const reuse = { x, tq: T, dModel: D, heads: H, wq, wk, wv, wo }; reuse.out = lab.multiHeadAttention(reuse);
  const la = { x, tq: T }; la.out = L.forward(la);
  const lf = { x, tq: T, intermediates: false }; lf.out = L.forward(lf);
  const tag = dir.split('/').slice(-3, -2)[0] || dir;
  engines.push(
    [`${tag} default`, () => lab.multiHeadAttention({ x, tq: T, dModel: D, heads: H, wq, wk, wv, wo }).output],
    [`${tag} output-only`, () => lab.multiHeadAttention({ x, tq: T, dModel: D, heads: H, wq, wk, wv, wo, intermediates: false }).output],
    [`${tag} out reused`, () => lab.multiHeadAttention(reuse).output],
    [`${tag} layer+out`, () => L.forward(la).output],
    [`${tag} out-only layer+out`, () => L.forward(lf).output]);
  const full = lab.multiHeadAttention({ x, tq: T, dModel: D, heads: H, wq, wk, wv, wo });
  const fast = lab.multiHeadAttention({ x, tq: T, dModel: D, heads: H, wq, wk, wv, wo, intermediates: false });
  results.push({ ...full, fast: fast.output });
}
for (const k of Object.keys(results[0])) {
  const a = results[0][k], b = results[1][k];
  let same = a.length === b.length;
  for (let i = 0; same && i < a.length; i++) same = Object.is(a[i], b[i]);
  console.log(`check ${k}: ${same ? 'bit-identical' : 'DIFFERENT'}`);
}
const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = 1; ort.env.wasm.simd = true;
const session = await ort.InferenceSession.create(mhaOnnxFusedModel(inp), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
const xt = new ort.Tensor('float32', x, [1, T, D]);
engines.push(['ort fused', async () => (await session.run({ x: xt })).out.data, true]);
const S = engines.map(() => []);
const per = engines.map(() => 1);
// warm-up 2 s each, interleaved
for (let w = 0; w < 40; w++) for (let i = 0; i < engines.length; i++) {
  const [, fn, as] = engines[i]; const t = performance.now(); let n = 0;
  do { if (as) await fn(); else fn(); n++; } while (performance.now() - t < 50);
  per[i] = Math.max(1, Math.ceil(n / 10));  // ~5 ms samples
}
for (let rd = 0; rd < ROUNDS; rd++) for (let j = 0; j < engines.length; j++) {
  const i = (j + rd) % engines.length, [, fn, as] = engines[i], n = per[i];
  const c = threadCpu();
  if (as) for (let k = 0; k < n; k++) await fn(); else for (let k = 0; k < n; k++) fn();
  S[i].push((threadCpu() - c) / n * 1000);
}
const q = (a, f) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(f * (s.length - 1))]; };
const o = engines.length - 1;
console.log(`(${T}, ${D}, ${H}), ${ROUNDS} rounds, main-thread CPU µs per call, load ${loadavg().map((v) => v.toFixed(1)).join(' ')}`);
engines.forEach(([name], i) => {
  const ratio = S[o].map((v, k) => v / S[i][k]);
  const vsA = i >= 5 && i < 10 ? S[i - 5].map((v, k) => v / S[i][k]) : null;
  console.log(`${name.padEnd(28)} ${q(S[i], 0.5).toFixed(2).padStart(8)} [${q(S[i], 0.25).toFixed(2)}–${q(S[i], 0.75).toFixed(2)}]  × ort ${q(ratio, 0.5).toFixed(2)} [${q(ratio, 0.25).toFixed(2)}–${q(ratio, 0.75).toFixed(2)}]${vsA ? `  B vs A ${q(vsA, 0.5).toFixed(3)} [${q(vsA, 0.25).toFixed(3)}–${q(vsA, 0.75).toFixed(3)}]` : ''}`);
});
await session.release();
