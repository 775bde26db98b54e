// logic.js — <attn-model>'s pure functions: head scores and the roles they name, the next-token
// distribution, ablation deltas, random repeated sequences, the KV cache rows of a generation, and
// token labels. No DOM, no WebAssembly: tested in Node beside this file (logic.test.js).
import { scores } from '../../train/index.js';
import { fmt } from '../shared/format.js';
// Seeded, so "repeat a random sequence" can be reproduced from a link: the widgets' shared generator.
export { mulberry32 } from '../shared/rng.js';

/** A head is named by a role only when its score reaches this (stated in the widget's legend). */
export const ROLE_THRESHOLD = 0.5;

/** The scores, in the order the grid shows them, and what each role is called. */
export const SCORE_KINDS = Object.freeze(['prev', 'dup', 'induction']);
export const SCORE_SHORT = Object.freeze({ prev: 'prev', dup: 'dup', induction: 'ind' });
export const ROLE_TEXT = Object.freeze({ prev: 'previous-token head', dup: 'duplicate-token head', induction: 'induction head' });

/** The stages a deck steps through (attribute `stage`: 0 … 4). */
export const STAGES = Object.freeze(['tokens', 'one head', 'all heads', 'logit lens', 'generation']);

export const headName = (layer, head) => `L${layer}H${head}`;

/**
 * A head's scores as the widget writes them: "prev 0.53", and "dup –" for a score the text gives
 * nothing to measure (NaN: one token, or no token repeats), with `unmeasured` saying why.
 */
export function scoreTexts(s) {
  return SCORE_KINDS.map((k) => `${SCORE_SHORT[k]} ${Number.isFinite(s?.[k]) ? fmt(s[k], 2) : '–'}`);
}
export function unmeasured(s) {
  if (!s) return '';
  if (!Number.isFinite(s.prev)) return 'no scores: the text needs at least 2 tokens';
  if (!Number.isFinite(s.dup) || !Number.isFinite(s.induction)) return 'dup and ind need a token that repeats in the text';
  return '';
}

/**
 * Duplicate-token score: at each position i whose token occurred before (ids[j] = ids[i], j < i), the
 * weight the head puts on those earlier occurrences, Σ att[i, j], averaged over such positions. NaN when
 * no token repeats. att: one head's [t·t] weights (row i: query i over keys), ids: [t].
 */
export function duplicateTokenScore(att, ids, t) {
  let sum = 0, n = 0;
  for (let i = 1; i < t; i++) {
    let s = 0, found = false;
    for (let j = 0; j < i; j++) if (ids[j] === ids[i]) { s += att[i * t + j]; found = true; }
    if (found) { sum += s; n++; }
  }
  return n === 0 ? NaN : sum / n;
}

/**
 * Every head's scores on one sequence: [layer][head] → { prev, dup, induction } (each in [0, 1], NaN
 * when the sequence gives the score nothing to measure: t < 2, or no repeated token).
 * attention: forward()'s attention[layer][head] [t·t] (batch 1).
 */
export function headScores(attention, ids, t) {
  return attention.map((row) => row.map((att) => ({
    prev: t >= 2 ? scores.previousTokenScore(att, t) : NaN,
    dup: duplicateTokenScore(att, ids, t),
    induction: scores.inductionScore(att, ids, t),
  })));
}

/**
 * Where a role can be: an induction head reads what a previous-token head in an earlier layer wrote,
 * so it needs a layer before it (layer ≥ 1): a 1-layer model never has one, whatever its scores.
 */
export const rolePossible = (kind, layer) => (kind === 'induction' ? layer >= 1 : true);

/**
 * The role a head is named by: the kind with the highest score that reaches `threshold` in a layer
 * where it is possible, or null (no name is better than a wrong one). When a head's induction score
 * passes, it is named for that even if its duplicate score is higher: an induction head on a repeated
 * sequence also looks near earlier copies, and the induction score is the more specific one.
 */
export function roleOf(s, layer, threshold = ROLE_THRESHOLD) {
  if (!s) return null;
  const ok = (k) => Number.isFinite(s[k]) && s[k] >= threshold && rolePossible(k, layer);
  if (ok('induction')) return 'induction';
  const rest = ['prev', 'dup'].filter(ok).sort((a, b) => s[b] - s[a]);
  return rest[0] ?? null;
}

/** Every named head: [{ layer, head, role, score }], strongest first per role. */
export function roles(headScoreGrid, threshold = ROLE_THRESHOLD) {
  const out = [];
  headScoreGrid.forEach((row, l) => row.forEach((s, h) => {
    const role = roleOf(s, l, threshold);
    if (role) out.push({ layer: l, head: h, role, score: s[role] });
  }));
  return out.sort((a, b) => (a.role === b.role ? b.score - a.score : SCORE_KINDS.indexOf(a.role) - SCORE_KINDS.indexOf(b.role)));
}

/** Softmax of logits row `position` of [t·vocab] (numerically stable), as a Float64Array [vocab]. */
export function softmaxRow(logits, vocab, position) {
  const p = new Float64Array(vocab), off = position * vocab;
  let max = -Infinity;
  for (let v = 0; v < vocab; v++) max = Math.max(max, logits[off + v]);
  let sum = 0;
  for (let v = 0; v < vocab; v++) sum += (p[v] = Math.exp(logits[off + v] - max));
  for (let v = 0; v < vocab; v++) p[v] /= sum;
  return p;
}

/** The k most likely next tokens at `position`: [{ id, p }], most likely first (ties: the lower id). */
export function topK(logits, vocab, position, k = 5) {
  const p = softmaxRow(logits, vocab, position);
  const best = [];  // kept sorted, at most k long: k ≪ vocab (50257 for GPT-2)
  for (let id = 0; id < vocab; id++) {
    if (best.length === k && p[id] <= best[k - 1].p) continue;
    let i = best.length;
    while (i > 0 && best[i - 1].p < p[id]) i--;
    best.splice(i, 0, { id, p: p[id] });
    if (best.length > k) best.pop();
  }
  return best;
}

/**
 * The next-token distribution with every head and with some switched off, side by side: the union of
 * both top-k lists, each row { id, p, pOff, delta: pOff − p }, ordered by the unablated p; and
 * `topChanged` when the most likely token differs.
 */
export function ablationRows(logits, logitsOff, vocab, position, k = 5) {
  const p = softmaxRow(logits, vocab, position), q = softmaxRow(logitsOff, vocab, position);
  const ids = new Set([...topK(logits, vocab, position, k), ...topK(logitsOff, vocab, position, k)].map((r) => r.id));
  const rows = [...ids].map((id) => ({ id, p: p[id], pOff: q[id], delta: q[id] - p[id] })).sort((a, b) => b.p - a.p || a.id - b.id);
  const argmax = (x) => x.reduce((b, v, i) => (v > x[b] ? i : b), 0);
  return { rows, top: argmax(p), topOff: argmax(q), topChanged: argmax(p) !== argmax(q) };
}

/** [layers·heads] head mask (1 keep, 0 off) with the flat indices in `off` switched off; null when none is. */
export function headMask(off, layers, heads) {
  if (!off.length) return null;
  const m = new Float32Array(layers * heads).fill(1);
  for (const i of off) if (i >= 0 && i < m.length) m[i] = 0;
  return m;
}

/** `list` with flat head index i switched (added or removed), sorted. */
export const toggleHead = (list, i) => (list.includes(i) ? list.filter((x) => x !== i) : [...list, i].sort((a, b) => a - b));

/**
 * A random sequence repeated twice (the induction test of Olsson et al. 2022): `length` distinct ids
 * drawn from [from, to) with `rng` (a function returning [0, 1)), then the same ids again; `prefix`
 * (e.g. the induction model's BOS) goes first.
 */
export function repeatedRandom(rng, { length, from, to, prefix = [] }) {
  const n = Math.min(length, to - from);
  const pool = Array.from({ length: to - from }, (_, i) => from + i);
  const picked = [];
  for (let k = 0; k < n; k++) {
    const r = k + Math.floor(rng() * (pool.length - k));
    [pool[k], pool[r]] = [pool[r], pool[k]];
    picked.push(pool[k]);
  }
  return [...prefix, ...picked, ...picked];
}

/**
 * The KV cache during generation, one row per token: rows 0 … cached−1 already exist (the prompt's,
 * and each earlier step's), the last row is the one the newest token computed. A cache holds at most
 * `context` rows; past it the window slides (generate rebuilds it from the last `context` tokens).
 * → [{ index, token, state: 'cached' | 'new' }] for `tokens` (the prompt then the generated ids).
 */
export function cacheRows(tokens, promptLength, context) {
  const start = Math.max(0, tokens.length - context);
  const last = tokens.length > promptLength ? tokens.length - 1 : -1;
  return tokens.slice(start).map((token, k) => ({ index: start + k, token, state: start + k === last ? 'new' : 'cached' }));
}

/** A token as the strip shows it: a leading space as '·' (GPT-2's 'Ġ'), a newline '↵', a tab '⇥'. */
export function pieceLabel(piece) {
  return String(piece).replace(/^ /, '·').replace(/\n/g, '↵').replace(/\t/g, '⇥').replace(/ /g, '·');
}

/** Bytes as the loading line says them: '548 MB', '40.6 kB'. */
export function bytesText(n) {
  if (!Number.isFinite(n)) return '';
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

/** Where GPT-2's weights come from and where they go, in words (shown while the shipped model is used). */
export const GPT2_HINT = 'For GPT-2: download model.safetensors (~548 MB) from the Hugging Face repository “gpt2” '
  + '(huggingface.co/gpt2, Files → model.safetensors), then drop it here or pick it — it is read in this page and never '
  + 'leaves the machine. For an offline lecture, put it in the deck’s public/models/gpt2.safetensors and give the widget '
  + 'src="models/gpt2.safetensors".';

/** What a role is called in attributes (open="previous-token", ablate="induction") → its score's key. */
export const ROLE_NAMES = Object.freeze({ 'previous-token': 'prev', 'duplicate-token': 'dup', induction: 'induction' });

/**
 * The head a role names on this sequence: the head with the highest score of that kind in a layer where
 * the role is possible (rolePossible), or null when no head has a finite score. `kind`: 'prev' | 'dup' |
 * 'induction'. → flat index layer·heads + head.
 */
export function strongestHead(headScoreGrid, kind) {
  let best = null, bestScore = -Infinity;
  headScoreGrid.forEach((row, l) => row.forEach((s, h) => {
    const v = s[kind];
    if (rolePossible(kind, l) && Number.isFinite(v) && v > bestScore) { bestScore = v; best = l * row.length + h; }
  }));
  return best;
}

/**
 * Heads named in an attribute → flat indices, or null when the text names a head this model does not
 * have. `spec`: comma-separated head names ('L9H9') and roles ('induction', 'previous-token',
 * 'duplicate-token': the strongest such head on this sequence); alternatives separated by '|' — the
 * first whose every head exists in this model is used ('L9H9,L9H6,L10H0 | induction': GPT-2 small's
 * name movers, or, in a smaller model, its induction head). '' → [].
 */
export function resolveHeadSpec(spec, headScoreGrid, layers, heads) {
  for (const alt of String(spec ?? '').split('|')) {
    const names = alt.split(',').map((x) => x.trim()).filter(Boolean);
    const out = [];
    let ok = true;
    for (const name of names) {
      const m = /^L(\d+)H(\d+)$/i.exec(name);
      let i = null;
      if (m) { const l = Number(m[1]), h = Number(m[2]); if (l < layers && h < heads) i = l * heads + h; }
      else if (ROLE_NAMES[name] && headScoreGrid) i = strongestHead(headScoreGrid, ROLE_NAMES[name]);
      if (i === null) { ok = false; break; }
      if (!out.includes(i)) out.push(i);
    }
    if (ok) return out.sort((a, b) => a - b);
  }
  return null;
}
