// A/B of attnlab builds on the GPT-2-small-sized model of bench/gpt2.bench.mjs, in one process, the
// builds and onnxruntime-web timed in turn (the order rotating each round) so that each sees the same
// machine load. Each build is a directory holding a copy of web/api (index.js and wasm/).
//
//   node bench/gpt2-ab.mjs --ab DIR_A,DIR_B[,...] [--rounds 7] [--gen 16] [--no-ort] [--layers 12 --d 768 ...]
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GPT2_SMALL, writeGpt2File } from './gpt2-model.mjs';
import { gpt2OnnxModel } from './gpt2-onnx.mjs';
import { attnlabRun, cpu, onnxRun } from './gpt2-runs.mjs';

const argv = process.argv.slice(2);
const arg = (k, d) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? Number(argv[i + 1]) : d; };
const sizes = { layers: arg('layers', GPT2_SMALL.layers), d: arg('d', GPT2_SMALL.d), heads: arg('heads', GPT2_SMALL.heads),
  vocab: arg('vocab', GPT2_SMALL.vocab), ctx: arg('ctx', GPT2_SMALL.ctx) };
const ROUNDS = arg('rounds', 7), GEN = arg('gen', 16), T = Math.min(64, sizes.ctx - GEN - 1), WARMUP_MS = 2000;
const abIdx = argv.indexOf('--ab');
if (abIdx < 0) throw new Error('--ab DIR_A,DIR_B expected');
const dirs = argv[abIdx + 1].split(',');
const withOrt = !argv.includes('--no-ort');
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

const tmp = mkdtempSync(join(tmpdir(), 'attnlab-gpt2-ab-'));
try {
  const file = join(tmp, 'gpt2.safetensors');
  const { weightBytes } = writeGpt2File(file, sizes);
  const ids = Int32Array.from({ length: T }, (_, i) => (i * 7919 + 13) % sizes.vocab);
  const engines = [];
  for (const d of dirs) {
    const { createAttnLab } = await import(pathToFileURL(resolve(d, 'index.js')).href);
    const lab = await createAttnLab();
    const model = await lab.loadModel(file, { config: { n_head: sizes.heads } });
    engines.push({ name: d, lab, model, ...attnlabRun(model, ids) });
  }
  if (withOrt) {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.simd = true;
    const session = await ort.InferenceSession.create(gpt2OnnxModel(sizes), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    engines.push({ name: 'onnxruntime-web', ...onnxRun(ort, session, sizes, ids) });
  }
  // Same results: the builds' logits bit for bit, the greedy tokens.
  const ref = engines[0].forward().logits;
  for (const e of engines.slice(1, dirs.length)) {
    const lg = e.forward().logits;
    let diff = 0;
    for (let i = 0; i < lg.length; i++) diff = Math.max(diff, Math.abs(lg[i] - ref[i]));
    console.log(`check: ${e.name} logits max |diff| vs ${engines[0].name} = ${diff}`);
  }
  const toks0 = engines[0].generate(GEN).toks;
  for (const e of engines.slice(1)) {
    const t = (await e.generate(GEN)).toks;
    console.log(`check: ${e.name} greedy tokens ${t.every((x, i) => x === toks0[i]) ? 'equal' : 'DIFFER'}`);
  }
  for (const e of engines) {
    const end = performance.now() + WARMUP_MS;
    while (performance.now() < end) { await e.forward(); await e.generate(4); }
  }
  const F = engines.map(() => []), G = engines.map(() => []), Fc = engines.map(() => []), Gc = engines.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < engines.length; j++) {
      const i = (j + r) % engines.length, e = engines[i];
      const a = performance.now(), c = cpu();
      await e.forward();
      F[i].push(performance.now() - a);
      Fc[i].push(cpu() - c);
      const g = await e.generate(GEN);
      G[i].push(g.perToken);
      Gc[i].push(g.perTokenCpu);
    }
  }
  const o = withOrt ? engines.length - 1 : -1;
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}; ${ROUNDS} rounds, medians`);
  const mn = (a) => Math.min(...a);
  engines.forEach((e, i) => {
    const mem = e.lab ? `, memory ${(e.lab.core.module.HEAPU8.length / weightBytes).toFixed(3)}× the weights` : '';
    const vs = o >= 0 && i !== o ? `\n    onnxruntime-web / this: wall forward ${(med(F[o]) / med(F[i])).toFixed(2)}×, token ${(med(G[o]) / med(G[i])).toFixed(2)}×; CPU forward ${(med(Fc[o]) / med(Fc[i])).toFixed(2)}×, token ${(med(Gc[o]) / med(Gc[i])).toFixed(2)}×` : '';
    const mins = o >= 0 && i !== o ? `; minima: forward ${(mn(Fc[o]) / mn(Fc[i])).toFixed(2)}×, token ${(mn(Gc[o]) / mn(Gc[i])).toFixed(2)}×` : '';
    console.log(`${e.name}: CPU minima forward ${ms(mn(Fc[i]))} ms, ${ms(mn(Gc[i]))} ms/token${mins}`);
    console.log(`${e.name}: wall forward ${ms(med(F[i]))} ms, ${ms(med(G[i]))} ms/token; CPU forward ${ms(med(Fc[i]))} ms [${Fc[i].map(ms).join(' ')}], ${ms(med(Gc[i]))} ms/token [${Gc[i].map(ms).join(' ')}]${mem}${vs}`);
  });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
