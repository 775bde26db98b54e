// tasks.js — the training tasks that ship with attnlab: what a small GPT (lab.createModel) learns in the
// lecture. Pure JS: the same module runs in Node, in a module Web Worker and under Vite. Every random
// draw comes from a seeded PRNG (mulberry32), so a run is reproducible from its seeds. Only the names
// task reads a file (data/names.txt, loaded by loadNames() the first time it is needed: a page or a
// worker that never trains on names never downloads it).
//
//   induction  BOS, P random tokens, the same P again (Olsson et al. 2022, "In-context learning and
//              induction heads"): the second copy is predictable only by finding the token's earlier
//              occurrence and copying what followed it — an induction head.
//   names      character-level first names packed with '.' separators (makemore): '.' + a–z.
//   reverse    n digits, a separator, the same digits reversed: one head reads the input backwards,
//              an anti-diagonal attention pattern.
//
// A task is { name, vocab, context, encode(string) → Int32Array, decode(ids) → string,
// batch(rng, batchSize), heldOut(n, seed), describe }. batch() returns next-token pairs
//   { ids: Int32Array [batch·t], targets: Int32Array [batch·t], batch, t, ...masks }
// (row-major [batch, t]; targets[i] is the token after ids[i]), ready for
// model.trainStep({ ids, targets, batch }). heldOut(n, seed) is one fixed batch of n sequences from a
// stream apart from training's (names: from names never used for training). Masks are Uint8Array
// [batch·t] with 1 at the positions they name.
//
// Making a task is synchronous once its data is here: createTask(name, options) — for 'names' without
// a list of its own, after `await loadNames()` (or `await loadTask(name, options)`, which does both).

import { describe as show, fail, int, noUnknownKeys, requireObject } from '../api/validate.js';

// ---- The PRNG ----------------------------------------------------------------------------------

// mulberry32 (Tommy Ettinger's 32-bit generator): one 32-bit state, period 2^32, passes
// PractRand/BigCrush well enough for drawing tokens. Returns rng() → a float in [0, 1).
export function mulberry32(seed) {
  if (typeof seed !== 'number' || !Number.isInteger(seed))
    fail('mulberry32', `seed is ${show(seed)}, expected an integer (taken modulo 2^32)`);
  let state = seed >>> 0;
  return function rng() {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

// An integer in [0, n): n ≤ 2^16 here, so the bias of flooring a 32-bit draw is below 2^-16.
export const randInt = (rng, n) => Math.floor(rng() * n);

// heldOut(n, seed) draws from mulberry32(seed ^ HELD_OUT_SALT), so batch(mulberry32(s), …) and
// heldOut(…, s) with the same s do not return the same sequences.
const HELD_OUT_SALT = 0x5eed0ff5;
const DEFAULT_HELD_OUT_SEED = 1234;

// ---- Shared plumbing ---------------------------------------------------------------------------

// A factory's options: absent, or one object with only the names it knows (validate.js's check).
function checkOptions(fn, options, allowed) {
  if (options === undefined) return {};
  requireObject(fn, options);
  noUnknownKeys(fn, options, allowed);
  return options;
}

function checkBatchArgs(name, rng, batchSize) {
  const fn = `${name}.batch`;
  if (typeof rng !== 'function') fail(fn, `rng is ${show(rng)}, expected a function returning [0, 1), e.g. mulberry32(seed)`);
  int(fn, 'batchSize', batchSize);
}

function heldOutRng(name, n, seed) {
  const fn = `${name}.heldOut`;
  int(fn, 'n', n);
  if (seed === undefined) seed = DEFAULT_HELD_OUT_SEED;
  if (typeof seed !== 'number' || !Number.isInteger(seed)) fail(fn, `seed is ${show(seed)}, expected an integer`);
  return mulberry32((seed ^ HELD_OUT_SALT) >>> 0);
}

// A code table: token id ↔ one character.
function charCodec(name, symbols) {
  const index = new Map(Array.from(symbols, (c, i) => [c, i]));
  return {
    encode(s) {
      if (typeof s !== 'string') fail(`${name}.encode`, `text is ${show(s)}, expected a string`);
      const chars = Array.from(s);
      const ids = new Int32Array(chars.length);
      chars.forEach((c, i) => {
        const id = index.get(c);
        if (id === undefined) fail(`${name}.encode`, `text[${i}] is ${JSON.stringify(c)}, expected one of "${symbols}"`);
        ids[i] = id;
      });
      return ids;
    },
    decode(ids) {
      let s = '';
      for (const id of ids) {
        if (!Number.isInteger(id) || id < 0 || id >= symbols.length)
          fail(`${name}.decode`, `id ${show(id)} is not a token, expected an integer in [0, ${symbols.length})`);
        s += symbols[id];
      }
      return s;
    },
  };
}

// ---- induction ---------------------------------------------------------------------------------

// Sequence (vocab 16, 23 positions; P = 11 shown, the longest that fits):
//   seq = BOS a1 … a11 a1 … a11 a1 …   (the P tokens repeated periodically)
//   ids = seq[0 : t], targets = seq[1 : t + 1]    t = context = 23
// BOS (id 0) marks the start (a place for heads to rest; it never repeats). a1 … aP are drawn from
// ids 1 … vocab−1 without replacement: with only 15 token values, tokens drawn with replacement
// would repeat inside the first copy (P = 11 of 15: almost always), and "the token after its earlier
// occurrence" would be ambiguous; distinct tokens give the large-vocabulary setting of Olsson et al.
// in a small model.
// P is drawn per sequence from `period` = [min, max], default [4, 11]. With one fixed P the repeat
// can be predicted from positions alone (the answer at i is always the token at i − P + 1), and a
// 2-layer model learns that instead: with P = 11 (no LN, dModel 32, 2 heads, single sequences, lr
// 3e-3; seeds 0–4, 40,000 steps) 3 of 5 runs predict the repeat (loss ratio < 0.15) with no layer-1
// head above 0.18 on induction and no layer-0 head above 0.14 on previous token (chance: ~0.1). A P
// that changes leaves only the content-based solution, the induction head. `period: 11` gives the
// fixed layout.
export function inductionTask(options) {
  const fn = 'inductionTask';
  const o = checkOptions(fn, options, ['vocab', 'context', 'period']);
  const vocab = int(fn, 'vocab', o.vocab, { min: 3, max: 65536, dflt: 16 });
  const context = int(fn, 'context', o.context, { min: 3, max: 4096, dflt: 23 });
  // Default period: [4, 11] for 23 positions — the longest P whose copy and repeat both fit (and that
  // has enough distinct tokens), down to 4.
  const longest = Math.max(1, Math.min((context - 1) >> 1, vocab - 1));
  if (Array.isArray(o.period) && o.period.length !== 2) fail(fn, `period is an array of ${o.period.length}, expected a number or [min, max]`);
  let [minP, maxP] = Array.isArray(o.period) ? o.period : o.period !== undefined ? [o.period, o.period] : [Math.min(4, longest), longest];
  minP = int(fn, 'period', minP);
  maxP = int(fn, 'period', maxP);
  if (minP > maxP) fail(fn, `period is [${minP}, ${maxP}], expected min ≤ max`);
  if (maxP > vocab - 1) fail(fn, `period ${maxP} is more than the vocab − 1 = ${vocab - 1} distinct tokens, expected period ≤ vocab − 1`);
  if (maxP > context - 2) fail(fn, `period ${maxP} leaves no repeated position in context = ${context}, expected period ≤ context − 2`);
  const t = context;
  const BOS = 0;
  // Display: BOS '^', tokens 1… as 'A', 'B', … (then more Unicode letters for a large vocab).
  const symbols = '^' + Array.from({ length: vocab - 1 }, (_, i) => String.fromCodePoint(i < 26 ? 65 + i : 0x100 + i)).join('');
  const codec = charCodec('induction', symbols);

  function generate(rng, batch) {
    const ids = new Int32Array(batch * t), targets = new Int32Array(batch * t);
    const first = new Uint8Array(batch * t), repeated = new Uint8Array(batch * t);
    const period = new Int32Array(batch);
    const pool = new Int32Array(vocab - 1);
    const seq = new Int32Array(t + 1);
    for (let b = 0; b < batch; b++) {
      const P = minP + randInt(rng, maxP - minP + 1);
      // The first P entries of a Fisher–Yates shuffle of 1 … vocab−1: P distinct tokens.
      for (let k = 0; k < pool.length; k++) pool[k] = k + 1;
      for (let k = 0; k < P; k++) {
        const r = k + randInt(rng, pool.length - k);
        const tmp = pool[k]; pool[k] = pool[r]; pool[r] = tmp;
      }
      seq[0] = BOS;
      for (let p = 1; p <= t; p++) seq[p] = pool[(p - 1) % P];
      period[b] = P;
      for (let i = 0; i < t; i++) {
        ids[b * t + i] = seq[i];
        targets[b * t + i] = seq[i + 1];
        if (i > P) repeated[b * t + i] = 1; else first[b * t + i] = 1;
      }
    }
    return { ids, targets, batch, t, first, repeated, period };
  }

  const fixed = minP === maxP;
  return Object.freeze({
    name: 'induction',
    vocab,
    context,
    bos: BOS,
    period: fixed ? minP : Object.freeze([minP, maxP]),
    ...codec,
    batch(rng, batchSize) { checkBatchArgs('induction', rng, batchSize); return generate(rng, batchSize); },
    heldOut(n, seed) { return generate(heldOutRng('induction', n, seed), n); },
    describe:
      `Induction: BOS then ${fixed ? minP : `P ∈ [${minP}, ${maxP}]`} distinct random tokens (of ${vocab - 1}), ` +
      `repeated to fill ${t} positions. The first copy cannot be predicted; the repeat can, by attending ` +
      'from a token to the one after its earlier occurrence (a previous-token head in layer 0 feeding an ' +
      'induction head in layer 1). Masks: first, repeated.',
  });
}

// ---- names -------------------------------------------------------------------------------------

// The shipped list, data/names.txt: one name per line, loaded once (by the first loadNames() call) and
// kept. One `new URL(…, import.meta.url)` expression: Vite emits the file as an asset of the app, the
// decks and the training worker, and rewrites the URL to it; in Node it is a file: URL, read with fs.
const NAMES_URL = new URL('./data/names.txt', import.meta.url);
let shippedNames = null;   // a frozen string[] once loaded
let namesLoading = null;   // the promise of the load under way (or done)

function isNode() {
  return typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
}

async function readNamesText(url) {
  const where = 'web/train/data/names.txt';
  if (isNode() && url.protocol === 'file:') {
    const fsName = 'node:fs/promises';  // hidden from bundlers: never loaded in a browser
    const { readFile } = await import(/* @vite-ignore */ fsName);
    try {
      return await readFile(url, 'utf8');
    } catch (e) {
      fail('loadNames', `cannot read ${where} (${e.code ?? e.message}), expected the file to ship with attnlab`);
    }
  }
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    fail('loadNames', `cannot fetch ${where} (${e.message}), expected the file to ship with attnlab`);
  }
  if (!res.ok) fail('loadNames', `${where} answered HTTP ${res.status}, expected the file to ship with attnlab`);
  return res.text();
}

/**
 * The shipped names (data/names.txt: 32,033 lowercase first names, most common first), fetched or
 * read once; later calls return the same frozen array. namesTask() without `names` needs them loaded.
 */
export function loadNames() {
  namesLoading ??= readNamesText(NAMES_URL).then((text) => {
    const names = text.split('\n').filter((s) => s.length > 0);
    names.forEach((s, i) => {
      if (!/^[a-z]+$/.test(s)) fail('loadNames', `names.txt line ${i + 1} is ${show(s)}, expected a–z only`);
    });
    return (shippedNames = Object.freeze(names));
  }, (e) => {
    namesLoading = null;  // a failed fetch may be tried again
    throw e;
  });
  return namesLoading;
}


// The 32,033 names of data/names.txt (US SSA baby names via makemore; licence: data/README.md) packed
// as makemore packs them: '.' + name + '.' + name + … so '.' both ends and starts a name. A batch
// row is a random window of t + 1 characters of that stream (ids = window[0:t], targets =
// window[1:t+1]). The split is fixed: a seeded shuffle puts `heldOutNames` distinct names (default
// 1000, the size of makemore's test set) apart; batch() never sees them, heldOut() draws only from them.
export function namesTask(options) {
  const fn = 'namesTask';
  const o = checkOptions(fn, options, ['context', 'heldOutNames', 'names']);
  const context = int(fn, 'context', o.context, { min: 1, max: 4096, dflt: 16 });
  let all;
  if (o.names === undefined) {
    if (!shippedNames) fail(fn, 'the shipped names list is not loaded yet, expected `await loadNames()` first (or `await loadTask(\'names\')`)');
    all = shippedNames.slice();
  } else {
    if (!Array.isArray(o.names) || o.names.length === 0) fail(fn, `names is ${show(o.names)}, expected a non-empty array of a–z strings`);
    o.names.forEach((s, i) => {
      if (typeof s !== 'string' || !/^[a-z]+$/.test(s)) fail(fn, `names[${i}] is ${show(s)}, expected a non-empty string of a–z`);
    });
    all = o.names.slice();
  }
  // The list repeats some names (29,494 distinct of 32,033: a name given to girls and to boys), so the
  // split is over distinct names: a held-out name never occurs in training.
  const distinct = [...new Set(all)];
  const heldOutNames = int(fn, 'heldOutNames', o.heldOutNames, { min: 1, max: distinct.length - 1, dflt: Math.min(1000, Math.floor(distinct.length / 10) || 1) });
  const symbols = '.abcdefghijklmnopqrstuvwxyz';
  const codec = charCodec('names', symbols);
  // Fixed split: shuffle the distinct names with a fixed seed, the last heldOutNames are held out;
  // trainNames keeps the list's order and repeats (the most common names first, as in the file).
  const shuffle = (names, seed) => {
    const rng = mulberry32(seed);
    for (let k = names.length - 1; k > 0; k--) {
      const r = randInt(rng, k + 1);
      [names[k], names[r]] = [names[r], names[k]];
    }
    return names;
  };
  shuffle(distinct, 20220609);
  const testNames = distinct.slice(distinct.length - heldOutNames);
  const testSet = new Set(testNames);
  const trainNames = all.filter((s) => !testSet.has(s));
  const pack = (names) => {
    let stream = '.' + names.join('.') + '.';
    while (stream.length < context + 1) stream += names.join('.') + '.';  // a tiny list and a long context
    return codec.encode(stream);
  };
  // The training stream packs them in a shuffled order (fixed seed), as the held-out stream is: in the
  // file's order the rarer names run alphabetically, and a window holds several names, so a model learned
  // that the next name starts like the last one — training loss down to ~1.95 while the held-out loss
  // stayed at ~2.4, and samples sharing their first letters.
  const trainStream = pack(shuffle(trainNames.slice(), 20220609 ^ 0x6e616d65)), testStream = pack(testNames);

  function windows(stream, rng, batch) {
    const t = context;
    const ids = new Int32Array(batch * t), targets = new Int32Array(batch * t);
    for (let b = 0; b < batch; b++) {
      const s = randInt(rng, stream.length - t);  // window stream[s : s + t + 1]
      ids.set(stream.subarray(s, s + t), b * t);
      targets.set(stream.subarray(s + 1, s + t + 1), b * t);
    }
    return { ids, targets, batch, t };
  }

  return Object.freeze({
    name: 'names',
    vocab: symbols.length,
    context,
    delimiter: 0,
    ...codec,
    // '.emma.olivia.' → ['emma', 'olivia']: the names in a decoded sample.
    split(ids) { return codec.decode(ids).split('.').filter((s) => s.length > 0); },
    trainNames: Object.freeze(trainNames),
    heldOutNames: Object.freeze(testNames),
    batch(rng, batchSize) { checkBatchArgs('names', rng, batchSize); return windows(trainStream, rng, batchSize); },
    heldOut(n, seed) { return windows(testStream, heldOutRng('names', n, seed), n); },
    describe:
      `Names: ${all.length} first names (US SSA via makemore), lowercase, packed as ".emma.olivia." — ` +
      `vocab ${symbols.length} ('.' + a–z), windows of ${context} characters; ${heldOutNames} names held out. ` +
      'Start generation from "." and split the sample at "."s.',
  });
}

// ---- reverse -----------------------------------------------------------------------------------

// Sequence (length n = 8, digits 0–9, separator '|' = id 10):
//   seq = x1 … xn | xn … x1,   ids = seq[0 : 2n], targets = seq[1 : 2n + 1],   t = context = 2n
// Why reverse rather than sort: the head that solves it attends by position only, so its pattern is
// the same picture for every input — the anti-diagonal i + j = 2n − 1: the query at position i ≥ n
// (the separator, then each reversed digit) looks at key j = 2n − 1 − i, the next digit to copy.
// Sort's solving attention depends on the values (each output looks for the next-larger digit), a
// different permutation for every input: harder to read in one heat map.
//   answer[i] = 1 for i ≥ n: the targets are the reversed digits (the input half is random).
export function reverseTask(options) {
  const fn = 'reverseTask';
  const o = checkOptions(fn, options, ['length', 'digits']);
  const n = int(fn, 'length', o.length, { min: 1, max: 2048, dflt: 8 });
  const digits = int(fn, 'digits', o.digits, { min: 2, max: 26, dflt: 10 });
  const SEP = digits;
  const symbols = '0123456789abcdefghijklmnop'.slice(0, digits) + '|';
  const codec = charCodec('reverse', symbols);
  const t = 2 * n;

  function generate(rng, batch) {
    const ids = new Int32Array(batch * t), targets = new Int32Array(batch * t), answer = new Uint8Array(batch * t);
    const seq = new Int32Array(t + 1);
    for (let b = 0; b < batch; b++) {
      for (let k = 0; k < n; k++) seq[k] = randInt(rng, digits);
      seq[n] = SEP;
      for (let k = 0; k < n; k++) seq[n + 1 + k] = seq[n - 1 - k];
      ids.set(seq.subarray(0, t), b * t);
      targets.set(seq.subarray(1, t + 1), b * t);
      answer.fill(1, b * t + n, b * t + t);
    }
    return { ids, targets, batch, t, answer };
  }

  return Object.freeze({
    name: 'reverse',
    vocab: digits + 1,
    context: t,
    length: n,
    separator: SEP,
    ...codec,
    batch(rng, batchSize) { checkBatchArgs('reverse', rng, batchSize); return generate(rng, batchSize); },
    heldOut(count, seed) { return generate(heldOutRng('reverse', count, seed), count); },
    describe:
      `Reverse: ${n} random digits (0–${symbols[digits - 1]}), '|', the same digits reversed (${t} positions). ` +
      `Solved by a head whose attention is the anti-diagonal: from position i ≥ ${n} to ${t - 1} − i, the next ` +
      'digit to copy. Mask: answer (the reversed half).',
  });
}

// ---- By name -----------------------------------------------------------------------------------

const FACTORIES = { induction: inductionTask, names: namesTask, reverse: reverseTask };
export const TASK_NAMES = Object.freeze(Object.keys(FACTORIES));

/** The task `name` with its options (synchronous: for 'names' without its own list, loadNames() first). */
export function createTask(name, options) {
  if (!Object.hasOwn(FACTORIES, name))
    fail('createTask', `name is ${show(name)}, expected one of ${TASK_NAMES.map((s) => `'${s}'`).join(', ')}`);
  return FACTORIES[name](options);
}

/** Loads what task `name` with these options reads from a file (names: the shipped list), if anything. */
export async function loadTaskData(name, options) {
  if (name === 'names' && (options === undefined || options === null || options.names === undefined)) await loadNames();
}

/** createTask after loading the task's data: `await loadTask('names')` works on a fresh page. */
export async function loadTask(name, options) {
  await loadTaskData(name, options);
  return createTask(name, options);
}
