// validate.js — the structural checks of the JS facade: argument types, integer sizes, array lengths
// and option names, and numbers the core's float32 cannot hold. Values (NaN, ±Infinity) are checked in
// C++ (core/src/ops/check.h), whose messages follow the same form: "<function>: <argument> <what is
// wrong>, expected <what is expected>". The rules per entry point: docs/hardening.md.
// Who checks what: the C++ core validates every call itself (it must stay safe when called natively);
// the facade checks only what it needs to build a call (types, sizes, lengths, option names) and what
// gives users a more precise message than the core could (a mask's tq ≠ tk, refused option names).

export class AttnLabError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttnLabError';
  }
}

export function fail(fn, message) {
  throw new AttnLabError(`${fn}: ${message}`);
}

export function describe(v) {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor?.name ?? 'typed array'} of ${v.length}`;
  return `a ${typeof v}`;  // never coerce (a Symbol or a null-prototype object would throw)
}

export function requireObject(fn, args) {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    fail(fn, `expected one options object, e.g. ${fn}({ … }), got ${describe(args)}`);
  return args;
}

// A size: an integer in [min, max].
export function int(fn, name, v, { min = 1, max = 1 << 24, dflt } = {}) {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    const what = min === 1 ? 'a positive integer' : `an integer ≥ ${min}`;
    fail(fn, `${name} is ${describe(v)}, expected ${what}${typeof v === 'number' && v > max ? ` ≤ ${max}` : ''}`);
  }
  return v;
}

export function num(fn, name, v, { dflt, positive = false, min } = {}) {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || (positive && v <= 0) || (min !== undefined && v < min)) {
    const what = positive ? 'a finite number > 0' : min !== undefined ? `a finite number ≥ ${min}` : 'a finite number';
    fail(fn, `${name} is ${describe(v)}, expected ${what}`);
  }
  // The core takes float32: 1e39 would arrive as Infinity and 1e-46 as 0.
  if (!Number.isFinite(Math.fround(v)) || (v !== 0 && Math.fround(v) === 0))
    fail(fn, `${name} is ${describe(v)}, expected a number float32 can hold (${FLOAT32_RANGE})`);
  return v;
}

// What float32 (the core's number type) can hold.
const FLOAT32_RANGE = '|x| ≤ 3.4028235e38, and 0 or |x| ≥ 1.4e-45';

export function bool(fn, name, v, dflt = false) {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') fail(fn, `${name} is ${describe(v)}, expected true or false`);
  return v;
}

// A matrix argument: a flat Float32Array (or number array / other typed array) of exactly `n`
// values. `expr` says where n comes from ("tq·dk = 6").
// exprIn names the expected length, e.g. `tq·dk = 12`; a bare product such as 'dModel·dModel' gets its value
// appended only when a message is built (no string work on the hot path of a valid call).
export function matrix(fn, name, v, n, exprIn, { negInf = false } = {}) {
  // A Float32Array (the common case) can fail only the length check below: that check alone, first.
  if (v instanceof Float32Array && v.length === n) return v;
  const ex = () => (exprIn.includes('=') ? exprIn : `${exprIn} = ${n}`);
  if (v === undefined || v === null) fail(fn, `${name} is missing, expected a Float32Array of ${ex()}`);
  // BigInt arrays cannot be written into float memory (a TypeError deep inside otherwise).
  if (v instanceof BigInt64Array || v instanceof BigUint64Array)
    fail(fn, `${name} is ${describe(v)}, expected a Float32Array of ${ex()}`);
  if (Array.isArray(v) && v.length > 0 && (Array.isArray(v[0]) || ArrayBuffer.isView(v[0])))
    fail(fn, `${name} is an array of rows, expected a flat row-major Float32Array of ${ex()} (use rows.flat())`);
  if (!(v instanceof Float32Array) && !(ArrayBuffer.isView(v) && !(v instanceof DataView)) && !Array.isArray(v))
    fail(fn, `${name} is ${describe(v)}, expected a Float32Array of ${ex()}`);
  if (v.length !== n) fail(fn, `${name} has ${v.length} values, expected ${ex()}`);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++)
      if (typeof v[i] !== 'number') fail(fn, `${name}[${i}] is ${describe(v[i])}, expected a number`);
  }
  // Numbers (not float32 already) beyond float32's range would arrive as ±Infinity, and the
  // core would report "Infinity" for a value the caller never wrote. (NaN/±Infinity: checked in C++.)
  if (Array.isArray(v) || v instanceof Float64Array) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (Number.isFinite(x) && !Number.isFinite(Math.fround(x)) && !(negInf && x < 0))
        fail(fn, `${name}[${i}] is ${x}, expected finite values within float32 range (|x| ≤ 3.4028235e38)`);
    }
  }
  return v;
}

// A non-empty flat array whose length is the caller's choice.
export function vector(fn, name, v) {
  const n = v === undefined || v === null || typeof v.length !== 'number' ? -1 : v.length;
  if (n === 0) fail(fn, `${name} is empty, expected at least 1 value`);
  return matrix(fn, name, v, n, 'at least 1 value');
}

export function optionalMatrix(fn, name, v, n, expr) {
  return v === undefined || v === null ? null : matrix(fn, name, v, n, expr);
}

export function oneOf(fn, name, v, allowed, dflt) {
  if (v === undefined && dflt !== undefined) return dflt;
  if (!allowed.includes(v))
    fail(fn, `${name} is ${describe(v)}, expected one of ${allowed.map((a) => `'${a}'`).join(', ')}`);
  return v;
}

const NO_MASK = Object.freeze({ kind: 'none', window: 0, causal: false, values: null });  // one object for every call without a mask

// mask: 'none' | 'causal' | { window, causal? } | Float32Array(tq·tk) of additive values.
// Returns the kind's name (the core gives its code: web/api/core.js), window, causal and values.
export function mask(fn, v, tq, tk) {
  if (v === undefined || v === null || v === 'none') return NO_MASK;
  const needSquare = () => {
    if (tq !== tk) fail(fn, `mask ${typeof v === 'string' ? `'${v}'` : '{ window }'} needs tq = tk (self-attention), got tq = ${tq}, tk = ${tk}; use an additive Float32Array mask for tq ≠ tk`);
  };
  if (v === 'causal') {
    needSquare();
    return { kind: 'causal', window: 0, causal: true, values: null };
  }
  if (typeof v === 'string') fail(fn, `mask is ${describe(v)}, expected 'none', 'causal', { window, causal? } or a Float32Array of tq·tk = ${tq * tk}`);
  if (ArrayBuffer.isView(v) || Array.isArray(v)) {
    matrix(fn, 'mask', v, tq * tk, `tq·tk = ${tq * tk}`, { negInf: true });
    return { kind: 'additive', window: 0, causal: false, values: v };
  }
  if (typeof v === 'object') {
    const keys = definedKeys(v).filter((k) => k !== 'window' && k !== 'causal');
    if (keys.length) fail(fn, `mask has unknown key '${keys[0]}', expected { window, causal? }`);
    const window = int(fn, 'mask.window', v.window, { min: 0 });
    const causal = bool(fn, 'mask.causal', v.causal, false);
    needSquare();
    return { kind: 'window', window, causal, values: null };
  }
  fail(fn, `mask is ${describe(v)}, expected 'none', 'causal', { window, causal? } or a Float32Array of tq·tk = ${tq * tk}`);
}

// `undefined` means absent: { mask: undefined } is the call without a mask (as spreading a config
// with unset fields gives). An unknown name with a value is refused: a typo must not pass silently.
export function definedKeys(obj) {
  return Object.keys(obj).filter((k) => obj[k] !== undefined);
}

// The one check of option names: an own key with a value that `known` does not list is an error
// (undefined counts as absent). Allocates nothing: trainStep and the interactive calls run it 10^4 times.
// known: an array of the names, or a Set of them (the multi-head call's 20 names: one lookup per key
// instead of a scan, 209 -> 113 ns a call in Node 20).
export function noUnknownKeys(fn, args, known, what = 'option') {
  const set = known instanceof Set;
  for (const k in args)
    if (!(set ? known.has(k) : known.includes(k)) && args[k] !== undefined && Object.hasOwn(args, k))
      fail(fn, `unknown ${what} '${k}', expected some of: ${[...known].join(', ')}`);
}

// The one token-id check: every entry of `v` (an array or typed array) an integer in [0, vocab).
// `what` is how the message names one, e.g. 'a token id' → "ids[3] is 7, expected a token id in [0, vocab = 5)".
export function tokenIdsInRange(fn, name, v, vocab, what = 'a token id') {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= vocab)
      fail(fn, `${name}[${i}] is ${describe(x)}, expected ${what} in [0, vocab = ${vocab})`);
  }
}
