// Linked highlighting in <attn-steps>: follow one query (or one key) through every step. A hover or
// keyboard-cursor move on any map names a query i (rows of Q, S, scaled, M, masked, A, Z), a key j
// (rows of K and V, columns of the t×t maps) and, for Z and V, a value dimension d; every map then
// outlines what it holds of them, V's rows are weighted by A_i·, and each cell's readout shows the
// arithmetic that made it — operands and results are the core's numbers, never recomputed here.
import { fmt } from '../shared/format.js';
import { dotTerms, operand } from '../shared/arith.js';

const QUERY_ROWS = new Set(['q', 'scores', 'scaled', 'mask-m', 'masked', 'weights', 'output']);
const SQUARE = new Set(['scores', 'scaled', 'mask-m', 'masked', 'weights']);

/** What a cell (or a row label: col null) of map `cls` points at: { query, key, dcol, source }, or null. */
export function linkFrom(cls, cell) {
  if (!cell) return null;
  const { row, col } = cell;
  if (QUERY_ROWS.has(cls)) return { query: row, key: SQUARE.has(cls) ? col : null, dcol: cls === 'output' ? col : null, source: cls };
  if (cls === 'k' || cls === 'v') return { query: null, key: row, dcol: cls === 'v' ? col : null, source: cls };
  return null;
}

/** The highlight of map `cls` for a link: { rows, cols, weights } (heatmap highlightRows / highlightCols / rowWeights). */
export function linkProps(cls, link, weights, t) {
  const none = { rows: null, cols: null, weights: null };
  if (!link) return none;
  const { query: q, key: k, dcol } = link, has = (x) => x !== null && x !== undefined;
  const rows = [], cols = [];
  let w = null;
  if (cls === 'q') { if (has(q)) rows.push(q); }
  else if (cls === 'k') { if (has(k)) rows.push(k); }
  else if (cls === 'v') {
    if (has(q)) w = Array.from(weights.subarray(q * t, (q + 1) * t));  // the rows query q mixes, by their weight
    if (has(k)) rows.push(k);
    if (has(dcol)) cols.push(dcol);
  } else if (cls === 'output') {
    if (has(q)) rows.push(q);
    if (has(dcol)) cols.push(dcol);
  } else if (SQUARE.has(cls)) {
    if (has(q)) rows.push(q);
    if (has(k)) cols.push(k);
  } else return none;
  if (!rows.length && !cols.length && !w) return none;
  return { rows: rows.length ? rows : null, cols: cols.length ? cols : null, weights: w };
}

const row = (m, i, n) => m.subarray ? m.subarray(i * n, (i + 1) * n) : m.slice(i * n, (i + 1) * n);
const col = (m, j, rows, n) => Array.from({ length: rows }, (_, i) => m[i * n + j]);

/**
 * The readout of map `cls`: (i, j) → "row, col: arithmetic = result" ('' on a row label: the map's
 * default). `c` is the widget's computation (q, k, v, unmasked, r, m); `s` the inputs and settings.
 * { compact } (a slide's caption, one line): no "row, col:" (the cursor shows the cell), the softmax
 * without its symbolic form, and sums of more than 4 terms by name only.
 */
export function readoutFor(cls, c, s) {
  const { tokens, dIn, dk } = s, t = tokens.length;
  let compact = false;
  const at = (i, j, square) => (compact ? '' : `${tokens[i]}, ${square ? tokens[j] : `d${j + 1}`}: `);
  const terms = (a, b, name) => (compact && a.length > 4 ? name : dotTerms(a, b));
  const proj = { q: ['W_Q', s.wq, c.q], k: ['W_K', s.wk, c.k], v: ['W_V', s.wv, c.v] }[cls];
  return (i, j, o = {}) => {
    if (j === null || j === undefined) return '';
    compact = !!o.compact;
    const ij = i * t + j;
    switch (cls) {
      case 'q': case 'k': case 'v': {
        const [name, w, m] = proj;
        return `${at(i, j)}x_i·${name}[:, ${j + 1}] = ${terms(row(s.x, i, dIn), col(w, j, dIn, dk), `Σ_m x_im·${name}_m${j + 1}`)} = ${fmt(m[i * dk + j], 4)}`;
      }
      case 'scores':
        return `${at(i, j, true)}q_i·k_j = ${terms(row(c.q, i, dk), row(c.k, j, dk), 'Σ_d q_id·k_jd')} = ${fmt(c.unmasked.scores[ij], 4)}`;
      case 'scaled': {
        const S = fmt(c.unmasked.scores[ij], 4), out = fmt(c.unmasked.scaled[ij], 4), tau = s.temperature !== 1;
        if (s.scale === 'none') return tau ? `${at(i, j, true)}s_ij ÷ τ = ${S} ÷ ${operand(s.temperature)} = ${out}` : `${at(i, j, true)}s_ij, unscaled = ${out}`;
        return tau ? `${at(i, j, true)}s_ij ÷ (√d_k·τ) = ${S} ÷ (√${dk}·${operand(s.temperature)}) = ${out}`
          : `${at(i, j, true)}s_ij ÷ √d_k = ${S} ÷ √${dk} = ${out}`;
      }
      case 'mask-m':
        return c.m[ij] === -Infinity ? `${at(i, j, true)}M_ij = −∞: key “${tokens[j]}” hidden from query “${tokens[i]}”`
          : `${at(i, j, true)}M_ij = 0: key “${tokens[j]}” visible to query “${tokens[i]}”`;
      case 'masked':
        return `${at(i, j, true)}s_ij + M_ij = ${fmt(c.unmasked.scaled[ij], 4)} + ${c.m[ij] === -Infinity ? '(−∞)' : '0'} = ${fmt(c.r.scaled[ij], 4)}`;
      case 'weights': {
        const sr = row(c.r.scaled, i, t), A = fmt(c.r.weights[ij], 4);
        if (sr[j] === -Infinity) {
          const none = Array.from(sr).every((x) => x === -Infinity);
          return `${at(i, j, true)}${none ? 'no key is visible to this query' : 'key masked'}: e^−∞ = 0, A_ij = ${A}`;
        }
        const es = Array.from(sr).filter((x) => x !== -Infinity).map((x) => `e^${operand(x)}`);
        if (compact) return `e^${operand(sr[j])} / ${es.length > 4 ? `Σ_j' e^s_ij' (${es.length} keys)` : `(${es.join(' + ')})`} = ${A}`;
        return `${at(i, j, true)}e^s_ij / Σ_j' e^s_ij' = e^${operand(sr[j])} / (${es.join(' + ')}) = ${A}`;
      }
      case 'output':
        return `${at(i, j)}Σ_j A_ij·v_jd = ${compact && t > 4 ? '' : `${dotTerms(row(c.r.weights, i, t), col(c.v, j, t, dk))} = `}${fmt(c.r.output[i * dk + j], 4)}`;
      default: return '';
    }
  };
}
