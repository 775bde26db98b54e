// Widget state in the URL hash, so a lecturer can send a link to exactly this configuration.
//
//   #steps=%7B%22preset%22%3A%22football%22%2C%22mask%22%3A%22causal%22%7D&why=…
//
// Each widget with a `hash-key` owns one parameter: its state as JSON. Reading is defensive: the hash
// comes from anyone's link. A value that does not match the widget's schema (wrong type, out of range,
// too long, not JSON) gives the default state and a notice — never an exception, never a partial state.
import { charCount } from './tokens.js';

// A widget's largest state with every matrix cell at the cell limit fits: <attn-multihead>'s five 8×8
// matrices of "-999999.999" are 320 × 12 characters, plus 8 tokens of 16 characters (an emoji with
// joiners is up to ~11 UTF-16 units each).
export const MAX_PARAM_CHARS = 16000;

/**
 * The largest |value| a matrix cell takes, typed (attn-matrix-editor, cellProblem) or from a link (the
 * schema's cellList): one limit for both, so whatever a student can type, a link restores.
 */
export const CELL_LIMIT = 1e6;

/** Schema rule for a matrix of at most `maxLength` cells, each within ±CELL_LIMIT. */
export const cellList = (maxLength) => ({ type: 'nums', maxLength, min: -CELL_LIMIT, max: CELL_LIMIT });

/**
 * Schema entries: { type: 'int', min, max } | { type: 'num', min, max } | { type: 'bool' }
 * | { type: 'enum', values } | { type: 'nums', maxLength, min?, max? } (a flat number list)
 * | { type: 'strings', maxLength, maxChars } (token lists) | { type: 'text', maxChars, nonBlank? }
 * (maxChars counts characters as read: graphemes, an emoji is one; nonBlank: a sentence the widget cannot do without — an empty one is refused like any bad value).
 * Returns { ok: true, state } with only the schema's keys, or { ok: false, problem }.
 */
export function sanitize(raw, schema) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, problem: 'not an object' };
  const state = {};
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(schema, key)) return { ok: false, problem: `unknown setting "${String(key).slice(0, 20)}"` };
  }
  for (const [key, rule] of Object.entries(schema)) {
    if (!Object.hasOwn(raw, key)) continue;
    const v = raw[key];
    const bad = (why) => ({ ok: false, problem: `${key} ${why}` });
    switch (rule.type) {
      case 'int':
      case 'num':
        if (typeof v !== 'number' || !Number.isFinite(v) || (rule.type === 'int' && !Number.isInteger(v))) return bad(`is not a${rule.type === 'int' ? 'n integer' : ' number'}`);
        if ((rule.min !== undefined && v < rule.min) || (rule.max !== undefined && v > rule.max)) return bad(`is out of range [${rule.min}, ${rule.max}]`);
        break;
      case 'bool':
        if (typeof v !== 'boolean') return bad('is not true/false');
        break;
      case 'enum':
        if (!rule.values.includes(v)) return bad('is not one of the choices');
        break;
      case 'nums':
        if (!Array.isArray(v) || v.length > rule.maxLength) return bad('is not a short list of numbers');
        for (const x of v) {
          if (typeof x !== 'number' || !Number.isFinite(x)) return bad('holds a non-number');
          if ((rule.min !== undefined && x < rule.min) || (rule.max !== undefined && x > rule.max)) return bad('holds a value out of range');
        }
        break;
      case 'text':
        if (typeof v !== 'string' || charCount(v) > rule.maxChars) return bad('is not a short text');
        if (rule.nonBlank && !v.trim()) return bad('is empty');
        break;
      case 'strings':
        if (!Array.isArray(v) || v.length > rule.maxLength || v.length === 0) return bad('is not a short list of words');
        for (const s of v) if (typeof s !== 'string' || charCount(s) > rule.maxChars) return bad('holds a word that is too long');
        break;
      default:
        return bad('has an unknown rule');
    }
    state[key] = Array.isArray(v) ? v.slice() : v;
  }
  return { ok: true, state };
}

/**
 * Reads `key` from a hash string ("#a=…&b=…"). Returns { state: null } when the key is absent,
 * { state } when valid, or { state: null, notice } when present but unusable.
 */
export function readHashState(hash, key, schema) {
  let params;
  try {
    params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return { state: null, notice: 'The link’s settings could not be read; showing the defaults.' };
  }
  if (!params.has(key)) return { state: null };
  const text = params.get(key);
  const notice = (why) => ({ state: null, notice: `The link’s settings for this widget were ignored (${why}); showing the defaults.` });
  if (text.length > MAX_PARAM_CHARS) return notice('too long');
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    return notice('not readable, perhaps cut off');
  }
  const r = sanitize(raw, schema);
  return r.ok ? { state: r.state } : notice(r.problem);
}

// The section a link scrolls to is a key of its own, `at`, so it and the widgets' states share the
// hash: #at=t-multihead&steps=…. A plain fragment (#t-multihead, a key without a value) is read as
// the section too, and turned into `at=` when a widget writes its state, so the link keeps scrolling.
export const SECTION_KEY = 'at';
const SECTION_ID = /^[A-Za-z][\w-]{0,63}$/;

function paramsOf(hash) {
  try {
    return new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return new URLSearchParams();
  }
}

/** Keys with no value that look like an element id ("#t-multihead") become `at=<id>`. */
function normalizeSection(params) {
  for (const [k, v] of [...params]) {
    if (k === SECTION_KEY || v !== '' || !SECTION_ID.test(k)) continue;
    params.delete(k);
    if (!params.has(SECTION_KEY)) params.set(SECTION_KEY, k);
  }
  // `at` first: the section reads first in a shared link.
  const at = params.get(SECTION_KEY);
  if (at === null) return params;
  const out = new URLSearchParams([[SECTION_KEY, at]]);
  for (const [k, v] of params) if (k !== SECTION_KEY) out.append(k, v);
  return out;
}

/** The section id the hash asks to scroll to (`at=…` or a plain #id), or null. Ids are checked: letters, digits, - and _. */
export function readSection(hash) {
  const at = normalizeSection(paramsOf(hash)).get(SECTION_KEY);
  return at !== null && SECTION_ID.test(at) ? at : null;
}

/** The hash with the section set to `id` (null removes it), every widget's state kept. */
export function writeSection(hash, id) {
  const params = normalizeSection(paramsOf(hash));
  if (id) params.set(SECTION_KEY, id);
  else params.delete(SECTION_KEY);
  const out = normalizeSection(params).toString();
  return out ? '#' + out : '';
}

/** The hash with `key` set to `state` (other widgets' parameters and the section kept). */
export function writeHashState(hash, key, state) {
  const params = normalizeSection(paramsOf(hash));
  params.set(key, JSON.stringify(state));
  return '#' + params.toString();
}
