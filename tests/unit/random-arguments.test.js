// Seeded random arguments: every entry point and the tokenizer give a finite result or an AttnLabError
// naming the function, never a crash; the widgets' URL-hash parser never throws.
import { beforeAll, expect, test } from 'vitest';
import { AttnLabError, createAttnLab } from 'attnlab';
import { mulberry32 } from '../../web/widgets/shared/rng.js';
import { MAX_PARAM_CHARS, readHashState, sanitize, writeHashState } from '../../web/widgets/shared/hash.js';
import { ENTRY, NAMES } from './entry-points.js';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

// ---- Seeded random arguments: finite results or an AttnLabError naming the function ---------------
const GARBAGE = [
  0, -0, -1, 1, 2, 3, 1.5, NaN, Infinity, -Infinity, 1e300, -1e300, 1e-320, 2 ** 24 + 1, 2 ** 31, '3', '', 'causal',
  true, false, null, undefined, [], [[1, 2]], [NaN], ['a'], {}, { window: 1 }, { base: 2 }, Object.create(null),
  new Float32Array(3), new Float64Array(4).fill(1e39), new Int8Array(2), new BigInt64Array(2), new DataView(new ArrayBuffer(8)),
  Symbol('s'), 10n, () => 1, new Date(0), /re/, new Map(), Float32Array.of(-Infinity, 0),
];

// Random garbage in place of some arguments (or of the whole options object), or a random array of a
// plausible length, or the good call with one number perturbed.
function randomArgs(rand, good) {
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const r = rand();
  if (r < 0.05) return pick(GARBAGE);
  const args = { ...good };
  const keys = Object.keys(args);
  const changes = 1 + Math.floor(rand() * 3);
  for (let c = 0; c < changes; c++) {
    const what = rand();
    if (what < 0.1) args[pick(['bogus', 'mask', 'scale', 'rope', 'alibi', 'kind', 'eps', 'bias', 'context', 'tk', 'intermediates', 'norm', 'activation', 'temperature', 'offset', 'base'])] = pick(GARBAGE);
    else {
      const key = pick(keys);
      const v = args[key];
      if (ArrayBuffer.isView(v) && !(v instanceof DataView) && typeof v[0] !== 'bigint' && what < 0.6) {
        const copy = Float32Array.from(v);
        const special = pick([NaN, Infinity, -Infinity, 1e38, -1e38, 1e-42, 3e38, 0]);
        for (let n = 0; n < 1 + Math.floor(rand() * 3); n++) copy[Math.floor(rand() * copy.length)] = special;
        args[key] = rand() < 0.8 ? copy : Array.from(copy).slice(0, Math.floor(rand() * (copy.length + 2)));
      } else if (typeof v === 'number' && what < 0.6) args[key] = pick([v - 1, v + 1, v * 2, 0, -v, v + 0.5, 1]);
      else if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && !Array.isArray(v)) args[key] = randomArgs(rand, v);
      else args[key] = pick(GARBAGE);
    }
  }
  return args;
}

// Every number in a result is finite (scores/scaled/logits may hold ±Infinity: masks and overflowed
// raw products, documented); never NaN anywhere.
function expectFiniteResult(fn, r, path = fn) {
  if (ArrayBuffer.isView(r)) {
    const rawOk = /\.(scores|scaled|logits)$/.test(path);
    for (let i = 0; i < r.length; i++) {
      if (Number.isNaN(r[i]) || (!rawOk && !Number.isFinite(r[i]))) throw new Error(`${path}[${i}] is ${r[i]}`);
    }
  } else if (r && typeof r === 'object') {
    for (const [k, v] of Object.entries(r)) expectFiniteResult(fn, v, `${path}.${k}`);
  } else if (typeof r === 'number' && !Number.isFinite(r)) throw new Error(`${path} is ${r}`);
}

test('seeded random arguments: a finite result or an AttnLabError naming the function, never a crash', async () => {
  const rand = mulberry32(20261121);
  const refA = lab.attention(ENTRY.attention.good()).output;
  const before = lab.info();
  const seen = { ok: 0, refused: 0 };
  for (let i = 0; i < 1000 * NAMES.length; i++) {
    const fn = NAMES[i % NAMES.length];
    const args = randomArgs(rand, ENTRY[fn].good());
    let result, err;
    // loadModel takes a string as a URL or path now: its answer is a Promise (awaited, so a refusal is
    // checked like a thrown one, never an unhandled rejection).
    try { result = lab[fn](args); if (result instanceof Promise) result = await result; } catch (e) { err = e; }
    if (err) {
      if (!(err instanceof AttnLabError) || !err.message.startsWith(fn + ': '))
        throw new Error(`${fn}(${describeArgs(args)}) threw ${err?.name}: ${err?.message}`);
      seen.refused++;
    } else {
      try { expectFiniteResult(fn, result); } catch (e) { throw new Error(`${fn}(${describeArgs(args)}): ${e.message}`); }
      seen.ok++;
    }
  }
  // Both outcomes happen often (the generator is not all garbage nor all good).
  expect(seen.ok).toBeGreaterThan(500);
  expect(seen.refused).toBeGreaterThan(5000);
  lab.dispose();  // big random requests may have grown the arena; the heap must be back where it was
  lab.attention(ENTRY.attention.good());
  expect(lab.attention(ENTRY.attention.good()).output).toEqual(refA);
  expect(lab.info().stackPointer).toBe(before.stackPointer);
});

test('seeded random arguments to the tokenizer and its methods: a result or an AttnLabError naming it', () => {
  const rand = mulberry32(99);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const texts = ['', 'the cat sat', 'ünï cødé 🙂', 'a'.repeat(300), '\u0000\uD800 x'];
  const check = (prefix, f) => {
    try { return f(); } catch (e) {
      if (!(e instanceof AttnLabError) || !e.message.startsWith(prefix)) throw new Error(`${prefix}: ${e?.name}: ${e?.message}`);
      return undefined;
    }
  };
  for (let i = 0; i < 600; i++) {
    const args = rand() < 0.1 ? pick(GARBAGE) : { kind: rand() < 0.7 ? pick(['char', 'word', 'bpe']) : pick(GARBAGE),
      text: rand() < 0.8 ? pick(texts) : pick(GARBAGE), ...(rand() < 0.3 ? { vocabSize: pick([256, 300, 10, 1e9, ...GARBAGE]) } : {}) };
    const tok = check('createTokenizer: ', () => lab.tokenizer(args));
    if (!tok) continue;
    const ids = check('tokenizer.encode: ', () => tok.encode(rand() < 0.7 ? pick(texts) : pick(GARBAGE)));
    if (ids) expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id < tok.size)).toBe(true);
    check('tokenizer.decode: ', () => tok.decode(rand() < 0.5 && ids ? ids : pick([[0, 1e9], [-1], [1.5], ...GARBAGE])));
    check('tokenizer.token: ', () => tok.token(pick([0, 1, -1, 1e9, ...GARBAGE])));
  }
});

function describeArgs(a) {
  if (!a || typeof a !== 'object') return typeof a === 'symbol' || typeof a === 'bigint' ? typeof a : String(a);
  return '{ ' + Object.entries(a).map(([k, v]) => `${k}: ${ArrayBuffer.isView(v) ? `${v.constructor.name}(${v.length})[${Array.from(v.slice(0, 4)).join(',')}…]` : typeof v === 'object' && v ? describeArgs(v) : typeof v === 'symbol' || typeof v === 'bigint' ? typeof v : String(v)}`).join(', ') + ' }';
}

// ---- The widgets' URL-hash parser (JS, web/widgets/shared/hash.js) ---------------------------------
test('URL hash: random and hostile strings give a valid state or the defaults with a notice, never a throw', () => {
  const schema = { mask: { type: 'enum', values: ['none', 'causal'] }, t: { type: 'num', min: 0.05, max: 20 },
    n: { type: 'int', min: 1, max: 8 }, on: { type: 'bool' }, x: { type: 'nums', maxLength: 4, min: -5, max: 5 },
    w: { type: 'strings', maxLength: 3, maxChars: 5 }, s: { type: 'text', maxChars: 20 } };
  const rand = mulberry32(7);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const valid = writeHashState('#other=1', 'w1', { mask: 'causal', t: 0.5, n: 3, on: true, x: [1, -2], w: ['a'], s: 'hi' });
  const alphabet = ['%', '#', '&', '=', '{', '}', '"', ':', ',', '[', ']', '\\', 'w1', 'a', '1', 'e', '-', '.', '%7B', '%22', '%E0', '%', '<script>', '\u0000', '\uD800', 'null', 'true', '__proto__', 'constructor', ' '];
  const counts = { state: 0, notice: 0, absent: 0 };
  for (let i = 0; i < 20000; i++) {
    let hash;
    const mode = rand();
    if (mode < 0.3) hash = Array.from({ length: Math.floor(rand() * 40) }, () => pick(alphabet)).join('');
    else if (mode < 0.6) {  // a valid link, cut or with a few characters changed
      const chars = valid.slice(0, Math.floor(rand() * (valid.length + 1))).split('');
      for (let n = 0; n < 3; n++) if (chars.length) chars[Math.floor(rand() * chars.length)] = pick(alphabet);
      hash = chars.join('');
    } else {  // random JSON-ish state
      const raw = {};
      const jsonable = GARBAGE.filter((g) => !['symbol', 'bigint', 'function'].includes(typeof g) && (g === null || typeof g !== 'object' || Array.isArray(g) || Object.getPrototypeOf(g) === Object.prototype || g instanceof Float32Array));
      for (const key of Object.keys(schema)) if (rand() < 0.5) raw[rand() < 0.9 ? key : pick(['__proto__', 'constructor', 'x2'])] = pick([...jsonable, 'causal', 0.5, 3, [1, 2], ['a', 'b']]);
      hash = '#w1=' + encodeURIComponent(JSON.stringify(raw) ?? '');
    }
    if (rand() < 0.01) hash += 'a'.repeat(MAX_PARAM_CHARS);
    const r = readHashState(hash, 'w1', schema);
    const fine = Object.keys(r).every((k) => k === 'state' || k === 'notice') && (r.state === null
      ? r.notice === undefined || /showing the defaults\.$/.test(r.notice)
      : sanitize(r.state, schema).ok && Object.getPrototypeOf(r.state) === Object.prototype);  // only schema keys, each valid
    if (!fine) expect({ hash, r }).toBe('a valid state, or null with a notice');
    counts[r.state ? 'state' : r.notice ? 'notice' : 'absent']++;
  }
  expect(counts.state).toBeGreaterThan(100);  // the generator reaches all three outcomes
  expect(counts.notice).toBeGreaterThan(1000);
  expect(counts.absent).toBeGreaterThan(100);
  expect({}.n).toBe(undefined);  // no prototype pollution
});
