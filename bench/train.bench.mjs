// npm run bench (after bench/mha.bench.mjs) — one training step of a small GPT (forward, backward,
// Adam), attnlab (model.trainStep) vs TensorFlow.js on its wasm backend (bench/tfjs-gpt.mjs: the same
// model written from gpt.h's math, tfjs autodiff + tf.train.adam), same shapes, same data, same
// initial weights (attnlab's parameters() copied into the tfjs variables), interleaved in one process.
// tfjs runs twice: as written (tfjs's own gradients) and tuned (options of tfjs-gpt.mjs that keep
// its matMuls on XNNPACK and/or run Adam on one flat variable; the same numbers).
//
// Before timing: the loss of the first batch from every engine, then one step on it and its loss
// again — equal when all compute the same function, gradient and Adam update. Every engine warms up
// for the same number of steps, then they alternate blocks of steps (a block of each, × rounds) on the
// same batch stream; the median ms/step over blocks is reported, and a held-out loss before and after
// (it must fall: nobody times a no-op). Replaces its own marked section of docs/performance.md.
// Not a test: nothing here asserts a time.
//
//   node bench/train.bench.mjs [--tfjs-only] [--quick] [--rounds N] [--no-write]   (bench.sh passes its arguments)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createTfjsGpt, loadTfjsWasm } from './tfjs-gpt.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? Number(argv[i + 1]) : dflt; };
const TFJS_ONLY = argv.includes('--tfjs-only');
const QUICK = argv.includes('--quick');
const ROUNDS = opt('--rounds', QUICK ? 3 : 10);
// Like mha.bench.mjs: --quick still writes the page, --only (mha's one-shape mode) leaves it alone.
const WRITE = !TFJS_ONLY && !argv.includes('--no-write') && !argv.includes('--only');

// ---- data (seeded, the same for every engine) ----
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}
// Induction sequences: 0 (BOS), ⌊T/2⌋ random tokens of 1..vocab−1, then the same again; targets are
// the next tokens. The repeat is predictable only by copying (what induction heads learn).
function inductionData(vocab, T, seed) {
  const r = rng(seed), half = T >> 1;
  return (batch) => {
    const ids = new Int32Array(batch * T), targets = new Int32Array(batch * T);
    for (let b = 0; b < batch; b++) {
      const s = [0];
      for (let i = 0; i < half; i++) s.push(1 + Math.floor(r() * (vocab - 1)));
      while (s.length < T + 1) s.push(s[s.length - half]);
      for (let i = 0; i < T; i++) { ids[b * T + i] = s[i]; targets[b * T + i] = s[i + 1]; }
    }
    return { ids, targets, batch };
  };
}
// Characters: a–z, space, full stop (vocab 28); windows of T + 1 at random offsets of a short text.
const TEXT = `attention lets every position of a sequence look at the positions before it. each position
asks a question with its query, every earlier position answers with its key, and the softmax of their
dot products says how much of each value to take. a head that finds the previous copy of the current
token and looks one step past it can continue a pattern it has seen once. two layers are enough for
that. a small model trained on a few lines of text first learns which letters are common, then which
letters follow which, then short words and the spaces between them. the loss falls quickly at first
and then slowly. the gradient of the loss tells every weight which way to move, and adam scales each
step by a running estimate of the size of that weight's gradients. nothing here is large. the whole
model fits in a cache and one step takes about a millisecond, so the time goes to the arithmetic and
to the overhead of calling it, which is what this benchmark compares.`;
const CHARS = 'abcdefghijklmnopqrstuvwxyz .';
const CORPUS = Int32Array.from([...TEXT.replace(/\s+/g, ' ').replace(/[^a-z .]/g, '')], (ch) => CHARS.indexOf(ch));
function charData(T, seed) {
  const r = rng(seed);
  return (batch) => {
    const ids = new Int32Array(batch * T), targets = new Int32Array(batch * T);
    for (let b = 0; b < batch; b++) {
      const o = Math.floor(r() * (CORPUS.length - T - 1));
      ids.set(CORPUS.subarray(o, o + T), b * T);
      targets.set(CORPUS.subarray(o + 1, o + T + 1), b * T);
    }
    return { ids, targets, batch };
  };
}

// block: steps per engine per round (≈ 0.3–2 s of tfjs); tuned: the tfjs-gpt.mjs options that were
// fastest for that shape (flat Adam pays a pad per tensor in the backward: a loss at 100 k parameters).
const ROWS = [
  {
    key: 'induction', name: 'induction: attention-only, no LayerNorm',
    config: { vocab: 16, context: 23, dModel: 32, heads: 2, layers: 2, attentionOnly: true, layerNorm: false, seed: 1 },
    batch: 1, T: 23, data: (seed) => inductionData(16, 23, seed), block: 200, warmup: 600,
    tuned: { layout: 'flat', denseGrad: 'untransposed' },
  },
  {
    key: 'char', name: 'char-level: MLP (GELU) + LayerNorm',
    config: { vocab: 28, context: 32, dModel: 64, heads: 4, layers: 2, dFF: 256, seed: 2 },
    batch: 8, T: 32, data: (seed) => charData(32, seed), block: 30, warmup: 60,
    tuned: { denseGrad: 'untransposed' },
  },
];
const EVAL_BATCHES = 8;  // held-out batches (their own seed)

// ---- engines ----
const { tf, tfwasm, simd: tfSimd, binary: tfBinary } = await loadTfjsWasm();
const tfThreads = tf.backend().getThreadsCount?.() ?? 1;
let lab = null;
if (!TFJS_ONLY) {
  const { createAttnLab } = await import('../web/api/index.js');
  lab = await createAttnLab();
  if (typeof lab.createModel !== 'function') {
    console.log('this build of attnlab has no createModel (web/api/wasm older than the model API): tfjs only');
    lab = null;
  }
}
const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 };  // plain Adam, as tf.train.adam

const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const fmt = (v, d = 3) => (v === undefined || Number.isNaN(v) ? '—' : v.toFixed(d));
const optText = (o) => Object.entries(o).map(([k, v]) => `${k} '${v}'`).join(', ');

function tfjsEngine(name, config, init, options) {
  const t = createTfjsGpt(tf, config, init, options);
  return { name, step: (d) => t.trainStep(d).loss, loss: (d) => t.loss(d), dispose: () => t.dispose() };
}

async function runRow(row) {
  const { config, batch } = row;
  const engines = [];
  let init, numParams;
  if (lab) {
    const model = lab.createModel(config);
    init = model.parameters();
    numParams = model.numParams;
    engines.push({
      name: 'attnlab',
      step: (d) => model.trainStep({ ...d, ...ADAM }).loss,
      loss: (d) => model.forward({ ...d, attention: false }).loss,
      dispose: () => model.dispose(),
    });
    config.dFF = model.config.dFF;
  }
  engines.push(tfjsEngine('tfjs-backend-wasm', config, init, {}));
  engines.push(tfjsEngine('tfjs-backend-wasm, tuned', config, init, row.tuned));

  // Same function, gradient and update: the first batch's loss, one step on it, its loss again.
  const first = row.data(1)(batch);
  for (const e of engines) {
    e.first = e.loss(first);
    e.step(first);
    e.second = e.loss(first);
  }
  const evalSet = ((g) => Array.from({ length: EVAL_BATCHES }, () => g(batch)))(row.data(9999));
  const evalLoss = (e) => evalSet.reduce((s, d) => s + e.loss(d), 0) / EVAL_BATCHES;
  for (const e of engines) {
    e.stream = row.data(2);  // every engine trains on the same batch sequence
    e.before = evalLoss(e);
    e.cpu = []; e.wall = []; e.losses = [];
    for (let i = 0, n = QUICK ? row.warmup / 4 : row.warmup; i < n; i++) e.step(e.stream(batch));
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const e of engines) {
      const data = Array.from({ length: row.block }, () => e.stream(batch));  // drawn outside the timing
      let sum = 0;
      const w = performance.now(), c = cpuNow();
      for (const d of data) sum += e.step(d);
      e.cpu.push((cpuNow() - c) / row.block);
      e.wall.push((performance.now() - w) / row.block);
      e.losses.push(sum / row.block);
    }
  }
  for (const e of engines) {
    e.after = evalLoss(e);
    e.ms = med(e.cpu);
    e.wallMs = med(e.wall);
    e.range = [Math.min(...e.cpu), Math.max(...e.cpu)];
    e.dispose();
  }
  // Per round (paired blocks: a slow patch of the machine hits every engine alike): the faster tfjs
  // block ÷ attnlab's.
  const [A, ...T] = engines;
  const ratios = lab ? A.cpu.map((x, i) => Math.min(...T.map((t) => t.cpu[i])) / x) : [];
  const bestTf = Math.min(...T.map((t) => t.ms));
  return { row, engines, numParams, bestTf, ratio: lab ? bestTf / A.ms : undefined, ratios };
}

console.log(`train bench: ${ROUNDS} rounds; tfjs-backend-wasm ${tfwasm.version_wasm} (${tfBinary}, SIMD ${tfSimd}, threads ${tfThreads})` +
  (lab ? `; attnlab SIMD128 ${lab.info().simd128}` : '; attnlab not run (--tfjs-only)'));
const results = [];
for (const row of ROWS) {
  const r = await runRow(row);
  results.push(r);
  const { config: c, batch, T } = row;
  console.log(`\n${row.name}: vocab ${c.vocab}, T ${T}, dModel ${c.dModel}, ${c.heads} heads, ${c.layers} layers, batch ${batch}; tuned tfjs: ${optText(row.tuned)}`);
  for (const e of r.engines) {
    console.log(`  ${e.name.padEnd(26)} ${fmt(e.ms, 4)} ms/step CPU (blocks ${fmt(e.range[0], 4)}–${fmt(e.range[1], 4)}), ` +
      `${fmt(e.wallMs, 4)} wall | first-batch loss ${e.first.toFixed(6)}, after one step ${e.second.toFixed(6)} | ` +
      `held-out ${e.before.toFixed(4)} → ${e.after.toFixed(4)} | training loss by round ${e.losses.map((l) => l.toFixed(3)).join(' ')}`);
  }
  const spread = (k) => Math.max(...r.engines.map((e) => Math.abs(e[k] - r.engines[0][k])));
  console.log(`  engines differ by ≤ ${spread('first').toExponential(1)} in the first-batch loss, ≤ ${spread('second').toExponential(1)} after one step`);
  if (r.ratio) console.log(`  fastest tfjs ÷ attnlab: ${r.ratio.toFixed(2)}× (per round ${fmt(Math.min(...r.ratios), 2)}–${fmt(Math.max(...r.ratios), 2)}×)`);
}

// ---- docs/performance.md: this script's own marked section, replaced in place or appended ----
// (bench/mha.bench.mjs rewrites the page and carries this section over.)
const BEGIN = '<!-- train.bench.mjs: begin -->', END = '<!-- train.bench.mjs: end -->';
if (WRITE) {
  const lines = ['| setting | engine | ms/step (CPU, median) | blocks min–max | × fastest tfjs | held-out loss before → after | ms/step (wall, median) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of results) {
    for (const e of r.engines) {
      lines.push(`| ${r.row.key} | ${e.name} | ${fmt(e.ms, 3)} | ${fmt(e.range[0], 3)}–${fmt(e.range[1], 3)} | ${fmt(r.bestTf / e.ms, 2)}× | ` +
        `${e.before.toFixed(3)} → ${e.after.toFixed(3)} | ${fmt(e.wallMs, 3)} |`);
    }
  }
  const maxDiff = (r, k) => {
    const d = Math.max(...r.engines.map((e) => Math.abs(e[k] - r.engines[0][k])));
    return d === 0 ? '0 (identical)' : d.toExponential(1);
  };
  const settings = results.map((r) => {
    const { row: { key, config: c, batch, T, block, tuned }, engines, numParams } = r;
    return `- **${key}**: vocab ${c.vocab}, ${T} positions, dModel ${c.dModel}, ${c.heads} heads, ${c.layers} layers` +
      `${c.attentionOnly ? ', attention only' : `, MLP dFF ${c.dFF} (GELU)`}${c.layerNorm === false ? ', no LayerNorm' : ', pre-LN'}, ` +
      `batch ${batch} (${numParams} parameters); blocks of ${block} steps; tuned tfjs: ${optText(tuned)}.\n` +
      `  First-batch loss ${engines[0].first.toFixed(6)} (engines differ by ≤ ${maxDiff(r, 'first')}); ` +
      `after one step on it ${engines[0].second.toFixed(6)} (≤ ${maxDiff(r, 'second')}).`;
  }).join('\n');
  const ind = results.find((r) => r.row.key === 'induction');
  const section = `${BEGIN}
## Training step: a small GPT, attnlab vs TensorFlow.js

bench/train.bench.mjs: one training step — forward, mean cross-entropy, backward, Adam (lr 1e-3, β 0.9/0.999,
eps 1e-8, no weight decay) — of the GPT of core/include/attnlab/gpt.h. attnlab: \`model.trainStep\` (which also
measures the gradient norm). TensorFlow.js: the same model written from gpt.h's math (bench/tfjs-gpt.mjs),
\`optimizer.minimize\` (tfjs autodiff) with \`tf.train.adam\`, @tensorflow/tfjs-backend-wasm ${tfwasm.version_wasm},
setThreadsCount(1), SIMD ${tfSimd ? 'on' : 'off'} (it loaded ${tfBinary}). "tuned" runs the same tfjs model with the options of
tfjs-gpt.mjs that were fastest for the shape: \`denseGrad: 'untransposed'\` gives the dense layers a custom gradient
with explicit transposes (tfjs-backend-wasm runs transposed or batched matMuls — tfjs's own matMul gradient — in a
scalar loop, only untransposed 2-D ones on XNNPACK); \`layout: 'flat'\` keeps all parameters in one variable so Adam
runs once, not once per tensor. The tfjs variables start from attnlab's parameters(), and every engine trains on the
same batch stream. After the same number of warm-up steps the engines alternate blocks of steps for ${ROUNDS} rounds;
the median ms/step over blocks is reported (this process's CPU time; wall clock in the last column). The held-out
loss (${EVAL_BATCHES} fixed batches) must fall.

${settings}

- Target: attnlab ≥ 2× faster per step than tfjs-backend-wasm in the induction setting: ${fmt(ind?.ratio, 2)}× the
  fastest tfjs variant ${ind?.ratio >= 2 ? '(met)' : '(missed)'}; per-round ratios ${fmt(Math.min(...(ind?.ratios ?? [])), 2)}–${fmt(Math.max(...(ind?.ratios ?? [])), 2)}×.
  The ratios move between runs on this shared VM (tfjs, which dispatches hundreds of small kernels per step,
  suffers more from a busy machine than attnlab's one call does); the per-round range shows by how much.
- Learning: in the induction setting the held-out loss falls to about ln 15 ≈ 2.708, the loss of a model that knows
  the token statistics but cannot yet copy (induction heads need thousands of steps more: docs/training.md). After
  ${ROWS.map((r) => (QUICK ? r.warmup / 4 : r.warmup) + 1 + ROUNDS * r.block).join(' / ')} steps the engines' held-out losses differ by
  ≤ ${results.map((r) => maxDiff(r, 'after')).join(' / ')}: they follow the same trajectory.

${lines.join('\n')}
${END}
`;
  const path = 'docs/performance.md';
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const i = old.indexOf(BEGIN), j = old.indexOf(END);
  const next = i >= 0 && j > i ? old.slice(0, i) + section.trimEnd() + old.slice(j + END.length) : `${old.trimEnd()}\n\n${section}`;
  writeFileSync(path, next);
  console.log(`\nwrote its section of ${path}`);
}
