// Inline messages next to a widget's fields, so a bad value never strands a student: the field keeps
// what was typed, says what is wrong and what range it takes (aria-invalid, aria-describedby), and the
// widget keeps showing its last good result (a refused value is never applied, so never saved to the
// URL hash). A note (kind 'note') says what was done to an accepted value ("cut to 8 tokens").
//
//   this.fields = new FieldMessages(this);                     // in the widget (AttnWidget has one)
//   <input class="d-in" aria-invalid=${f.invalid('d-in')} aria-describedby=${f.describedBy('d-in')}
//     @change=${(e) => { const v = f.number('d-in', e.target, { min: 1, max: 8, integer: true, name: 'd_model' }); if (v !== null) … }}>
//   ${f.message('d-in')}
import { html, nothing } from 'lit';
import { CELL_LIMIT } from './hash.js';
import { MAX_TOKEN_CHARS, charCount, cutChars } from './tokens.js';

/** "between 1 and 8" / "a whole number between 1 and 8". */
export function rangeText({ min, max, integer = false } = {}) {
  const lo = min ?? -Infinity, hi = max ?? Infinity;
  const kind = integer ? 'a whole number' : 'a number';
  if (Number.isFinite(lo) && Number.isFinite(hi)) return `${kind} from ${lo} to ${hi}`;
  if (Number.isFinite(lo)) return `${kind} ≥ ${lo}`;
  if (Number.isFinite(hi)) return `${kind} ≤ ${hi}`;
  return kind;
}

/**
 * Reads a number typed into a field (text; "−" accepted as minus). `badInput` is a number input's
 * validity.badInput (the browser blanks letters typed into type=number). Returns { ok: true, value }
 * or { ok: false, message } — the message names the field, the range, and that nothing changed.
 */
export function readNumber(text, { min, max, integer = false, name = 'this field', badInput = false } = {}) {
  const t = String(text ?? '').trim().replace(/^−/, '-');
  const range = rangeText({ min, max, integer });
  if (badInput || (t !== '' && !Number.isFinite(Number(t)))) return { ok: false, message: `not a number: ${name} takes ${range}` };
  if (t === '') return { ok: false, message: `empty: ${name} takes ${range}` };
  const x = Number(t);
  if (integer && !Number.isInteger(x)) return { ok: false, message: `${x} is not a whole number: ${name} takes ${range}` };
  if ((min !== undefined && x < min) || (max !== undefined && x > max)) return { ok: false, message: `${x} is out of range: ${name} takes ${range}` };
  return { ok: true, value: x };
}

/**
 * Splits a sentence into words (whitespace), at most `maxTokens` of at most `maxChars` characters.
 * Returns { tokens, note } — note says what was cut ('' when nothing was), or a refusal
 * { tokens: [], message } when there is no word at all.
 */
export function readTokens(text, { maxTokens = 8, maxChars = MAX_TOKEN_CHARS, name = 'tokens' } = {}) {
  const words = String(text ?? '').split(/\s+/).filter(Boolean);
  if (!words.length) return { tokens: [], message: `empty: type at least one word (${name} take 1 to ${maxTokens} words)` };
  // Characters are graphemes: an emoji is one, and a cut never splits it.
  const tokens = words.slice(0, maxTokens).map((w) => cutChars(w, maxChars));
  const notes = [];
  if (words.length > maxTokens) notes.push(`cut to ${maxTokens} tokens (${words.length} typed; at most ${maxTokens})`);
  if (words.some((w, i) => i < maxTokens && charCount(w) > maxChars)) notes.push(`long words cut to ${maxChars} characters`);
  return { tokens, note: notes.join('; ') };
}

/** The reason a matrix cell's text is refused ('' when it is a usable number). */
export function cellProblem(text, limit = CELL_LIMIT) {
  const t = String(text ?? '').trim().replace(/^−/, '-');
  if (t === '') return 'empty: type a number';
  const x = Number(t);
  if (!Number.isFinite(x)) return 'not a number';
  if (Math.abs(x) > limit) return `too large: |x| ≤ ${limit.toExponential().replace('e+', 'e')}`;
  return '';
}

/** A widget's per-field messages (a Lit reactive controller: setting one re-renders the host). */
export class FieldMessages {
  constructor(host) {
    this.host = host;
    this.map = new Map();
    host.addController?.(this);
  }

  hostConnected() {}

  /** Shows `text` next to field `name`: kind 'error' (aria-invalid, refused) or 'note' (accepted, adjusted). */
  set(name, text, kind = 'error') {
    const old = this.map.get(name);
    if (old && old.text === text && old.kind === kind) return;
    this.map.set(name, { text, kind });
    this.host.requestUpdate?.();
  }

  clear(name) {
    if (this.map.delete(name)) this.host.requestUpdate?.();
  }

  clearAll() {
    if (this.map.size) { this.map.clear(); this.host.requestUpdate?.(); }
  }

  get(name) { return this.map.get(name) ?? null; }

  /** True when some field holds a refused value. */
  get hasErrors() { return [...this.map.values()].some((m) => m.kind === 'error'); }

  invalid(name) { return this.map.get(name)?.kind === 'error' ? 'true' : 'false'; }

  describedBy(name) { return this.map.has(name) ? `msg-${name}` : nothing; }

  /** The message element (placed right after the field's label). */
  message(name) {
    const m = this.map.get(name);
    if (!m) return nothing;
    return html`<span id=${`msg-${name}`} class=${`field-msg ${m.kind === 'error' ? 'refused' : 'note'}`} role=${m.kind === 'error' ? 'alert' : 'status'}>${m.text}</span>`;
  }

  /**
   * Reads number field `input` (its value and validity) with readNumber's options: the value, and
   * the message cleared; or null, and the message shown.
   */
  number(name, input, opts) {
    const r = readNumber(input.value, { ...opts, badInput: !!input.validity?.badInput });
    if (!r.ok) { this.set(name, r.message); return null; }
    this.clear(name);
    return r.value;
  }

  /** Reads a token field: the tokens (with a note when cut), or null with the refusal shown. */
  tokens(name, text, opts) {
    const r = readTokens(text, opts);
    if (!r.tokens.length) { this.set(name, r.message); return null; }
    const joined = r.tokens.join(' ');
    if (r.note) {
      this.set(name, r.note, 'note');
      this.map.get(name).cutTo = joined;
    } else if (this.map.get(name)?.cutTo !== joined) this.clear(name);  // the cut text read again (blur): the note stays
    return r.tokens;
  }
}
