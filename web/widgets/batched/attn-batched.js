// <attn-batched>: the source notebook's batched multi-head self-attention with a fused W_QKV, one tensor
// per stage, with its shape: x (B, N, D) → W_QKV (D, 3D) → qkv (B, N, 3D) → q, k, v (B, N, D) →
// heads (B, H, N, d_k) → scores (B, H, N, N) → weights → out (B, N, D), for a batch of two sequences
// (B = 2, N = 3, D = 4, H = 2). Every number from the core (logic.js: lab.weightedSum for the fused
// product, one lab.createMultiHeadAttention layer run on each sequence); the split stage shows the
// fused slices' largest difference from the three separate projections.
//
// Attributes: stage (0 … 7 as in STAGES; absent = all), hash-key, and AttnWidget's layout / controls /
// fit-height. Decks step `stage` with their clicks. Events: attn-state-change { state }.
// Page layout: the stage buttons and every stage up to `stage`, one below the other. Slide layout: the
// stage strip, the stage's shape line, and only the stage's maps, as large as the box allows.
import { html, css, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { matrixRowStyles, widgetStyles } from '../shared/styles.js';
import { chunks, choose, geometryOf, inputDigits } from '../shared/pack.js';
import { fmt } from '../shared/format.js';
import '../shared/heatmap.js';
import { SEQUENCES, STAGES, WEIGHTS, batchX, batchedForward, block, shapeText } from './logic.js';

/** Column-group colours: q, k, v (Okabe–Ito), and the heads. */
const PART_COLORS = ['#0072b2', '#e69f00', '#009e73'];
const PARTS = ['q', 'k', 'v'];
const SUB = (n) => String(n).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[d]);

/** The code line and what it does, per stage (HTML: shapes in the text are ≥ the widget's type). */
const CODE = [
  'B, N, D = x.shape',
  'self.qkv = nn.Linear(D, 3*D)',
  'qkv = self.qkv(x)',
  'q, k, v = qkv[..., :D], qkv[..., D:2*D], qkv[..., 2*D:]',
  'qkv.reshape(B, N, 3, H, d_k).permute(2, 0, 3, 1, 4)',
  'scores = q @ k.transpose(-2, -1)',
  'A = softmax(scores / √d_k, dim=-1)',
  'out = proj((A @ v).transpose(1, 2).reshape(B, N, D))',
];

export class AttnBatched extends AttnWidget {
  static properties = {
    stage: { converter: optionalInt, reflect: true },
  };

  static stateSchema = { stage: { type: 'int', min: 0, max: STAGES.length - 1 } };

  static styles = [widgetStyles, matrixRowStyles, css`
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .stagestrip { margin: 0; }
    .shape-line { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 14px; margin: 0; font-size: 18px; }
    .shape-line code { font-size: 16px; background: #f6f8fa; border-radius: 4px; padding: 0 6px; overflow-wrap: anywhere; }
    .wrap.slide .shape-line code { white-space: nowrap; }
    .shape-line .shape { font-weight: 700; font-variant-numeric: tabular-nums; white-space: nowrap; }
    .fused { margin: 2px 0 0; font-size: 18px; }
    .fused .num { font-weight: 700; font-variant-numeric: tabular-nums; }
    .groups { font-size: 16px; }
    .stage h3 .shape { font-variant-numeric: tabular-nums; }
  `];

  constructor() {
    super();
    this.stage = null;
    this._result = null;
    this._headH = 90;
  }

  /** The batch's forward pass (computed once per WebAssembly module: its inputs are fixed). */
  result(lab) {
    if (this._result?.lab !== lab) this._result = { lab, r: batchedForward(lab, { x: batchX(), ...WEIGHTS }) };
    return this._result.r;
  }

  /** The stage to draw in slide layout (absent: the last). */
  get current() {
    return Number.isInteger(this.stage) ? Math.max(0, Math.min(STAGES.length - 1, this.stage)) : STAGES.length - 1;
  }

  /** The fused-equals-separate line of the split stage. */
  #fusedLine(r) {
    return html`<p class="fused">fused slices vs x·W<sub>Q</sub>, x·W<sub>K</sub>, x·W<sub>V</sub> computed separately:
      max |Δ| = <span class="num">${PARTS.map((p) => fmt(r.maxDiff[p], 1)).join(', ')}</span></p>`;
  }

  /**
   * What stage i draws, for pack.js's choose(): levels (richest first) of arrangements (rows of heatmap
   * panels). A (B, N, ·) tensor is drawn as one map per sequence, or — where two maps of 3 rows would
   * leave cells too small for numbers — as one map of the B·N rows (the fused product's own view).
   */
  #levels(r, i) {
    const { B, N, D, H, dk } = r.dims;
    const dims = (n, p = 'd') => Array.from({ length: n }, (_, j) => `${p}${j + 1}`);
    const qkvLabels = PARTS.flatMap((p) => dims(D, p));
    const tok = (b) => SEQUENCES[b].tokens, allTok = SEQUENCES.flatMap((q) => q.tokens);
    const range = (...arrays) => { const m = Math.max(1e-6, ...arrays.flatMap((a) => Array.from(a, Math.abs))); return [-m, m]; };
    const P = (cls, label, values, rows, cols, rowLabels, colLabels, o = {}) => ({
      cls, label, values, rows, cols, rowLabels, colLabels, group: o.group ?? cls.split(' ')[0], weight: 1, below: o.groups ? 26 : 0,
      digits: o.digits ?? 2, colormap: o.prob ? 'sequential' : 'diverging',
      vmin: o.range ? o.range[0] : 0, vmax: o.range ? o.range[1] : 1, groups: o.groups ?? null,
    });
    const perB = (fn) => Array.from({ length: B }, (_, b) => fn(b));
    const perH = (fn) => Array.from({ length: H }, (_, h) => fn(h));
    const row = (panels, ops) => ({ panels, ops });
    const both = Array.from({ length: B }, (_, b) => b).join(', ');
    const key = STAGES[i].key;
    if (key === 'x') {
      const rg = range(r.x), digits = inputDigits(r.x);
      const xs = perB((b) => P(`x b${b}`, `x[${b}]: “${tok(b).join(' ')}”`, block(r.x, b, N * D), N, D, tok(b), dims(D), { range: rg, digits }));
      return [[[row(xs)], xs.map((p) => row([p]))]];
    }
    if (key === 'wqkv') {
      return [[[row([P('wqkv', 'W_QKV = [W_Q | W_K | W_V]', r.wqkv, D, 3 * D, dims(D), qkvLabels,
        { range: range(r.wqkv), digits: inputDigits(r.wqkv), groups: { n: 3, size: D, names: ['W_Q', 'W_K', 'W_V'] } })])]]];
    }
    if (key === 'qkv') {
      const rg = range(r.qkv), groups = { n: 3, size: D, names: PARTS };
      const per = perB((b) => P(`qkv b${b}`, `qkv[${b}]`, block(r.qkv, b, N * 3 * D), N, 3 * D, tok(b), qkvLabels, { range: rg, groups }));
      const flat = P('qkv', `qkv[${both}]: the B·N = ${B * N} rows of x·W_QKV`, r.qkv, B * N, 3 * D, allTok, qkvLabels, { range: rg, groups });
      return [[per.map((p) => row([p]))], [[row([flat])]]];
    }
    if (key === 'split') {
      const rg = range(r.q, r.k, r.v);
      const per = perB((b) => PARTS.map((p) => P(`${p} b${b}`, `${p}[${b}]`, block(r[p], b, N * D), N, D, tok(b), dims(D), { range: rg, group: 'proj' })));
      const flat = PARTS.map((p) => P(`${p}`, `${p}[${both}]`, r[p], B * N, D, allTok, dims(D), { range: rg, group: 'proj' }));
      return [[per.map((rw) => row(rw))], [[row(flat)]]];
    }
    if (key === 'heads') {
      const rg = range(r.qHeads, r.kHeads);
      const ps = perB((b) => perH((h) => ['q', 'k'].map((p) => P(`${p} head b${b} h${h}`, `${p}[${b}, ${h}]`,
        block(r[`${p}Heads`], b * H + h, N * dk), N, dk, tok(b), dims(dk), { range: rg, group: 'heads' }))).flat());
      const ops = perH((h) => [h ? '|' : '', '']).flat();
      return [[ps.map((rw) => row(rw, ops)), ps.flatMap((rw) => chunks(rw, 2).map((c) => row(c)))]];
    }
    if (key === 'scores' || key === 'weights') {
      const prob = key === 'weights', src = prob ? r.weights : r.scores, rg = prob ? [0, 1] : range(r.scores);
      const ps = perB((b) => perH((h) => P(`${key} b${b} h${h}`, `${prob ? 'A' : 'S'}[${b}, ${h}]`, block(src, b * H + h, N * N), N, N, tok(b), tok(b),
        { range: rg, prob, group: key })));
      return [[ps.map((rw) => row(rw)), [row(ps.flat())]]];
    }
    // out: the heads' outputs side by side (B, N, D), then · W_O; else the output alone
    const rz = range(r.concat), ro = range(r.output);
    const ps = perB((b) => [P(`concat b${b}`, `concat[${b}]: ${perH((h) => `head ${h + 1}`).join(' | ')}`, block(r.concat, b, N * D), N, D, tok(b), dims(D, 'z'), { range: rz, group: 'concat' }),
      P(`out b${b}`, `out[${b}] = concat[${b}]·W_O`, block(r.output, b, N * D), N, D, tok(b), dims(D), { range: ro, group: 'out' })]);
    return [[ps.map((rw) => row(rw, ['', '→']))], [[row(ps.map((rw) => rw[1]))], ps.map((rw) => row([rw[1]]))]];
  }

  /** The shape line: the stage's code, its tensor's shape with the letters, and the numbers. */
  #shapeLine(r, i) {
    const s = STAGES[i], letters = { x: '(B, N, D)', wqkv: '(D, 3D)', qkv: '(B, N, 3D)', split: '(B, N, D) each', heads: '(B, H, N, d_k)',
      scores: '(B, H, N, N)', weights: '(B, H, N, N)', out: '(B, N, D)' }[s.key];
    return html`<p class="shape-line"><code>${CODE[i]}</code><span><strong>${s.name}</strong> ${letters} =
      <span class="shape">${shapeText(r.shapes[s.key])}</span></span></p>`;
  }

  renderWidget(lab) {
    const r = this.result(lab);
    return this.slideLayout ? this.#renderSlide(r) : this.#renderPage(r);
  }

  #heatmap(p, s) {
    return html`<attn-heatmap class=${p.cls} .label=${p.label} .values=${p.values} .rows=${p.rows} .cols=${p.cols}
      .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} .colormap=${p.colormap} .vmin=${p.vmin} .vmax=${p.vmax} .legend=${p.legend}
      .digits=${p.digits} .cellSize=${110} compact .fitWidth=${s.fitWidth} .fitHeight=${s.fitHeight}></attn-heatmap>`;
  }

  /** The column groups under a map (q | k | v of qkv, W_Q | W_K | W_V of W_QKV). */
  #groups(p, cell) {
    const g = geometryOf(p, cell), { n, size, names } = p.groups;
    return html`<div class="groups" style=${`width:${g.w}px`} aria-hidden="true">${Array.from({ length: n }, (_, k) => html`<span
      style=${`left:${g.left + k * size * g.cell + 2}px;width:${size * g.cell - 4}px;border-color:${PART_COLORS[k % 3]}`}>${names[k]}</span>`)}</div>`;
  }

  #renderSlide(r) {
    const i = this.current;
    const { width, height } = this.box;
    const pick = choose(this.#levels(r, i), width, Math.max(60, height - this._headH - 8), { maxCell: 110, enough: 45 });
    const names = STAGES.map((s) => s.name);
    return html`<div class="slide-head">${this.stageStrip(names)}${this.#shapeLine(r, i)}${STAGES[i].key === 'split' ? this.#fusedLine(r) : nothing}</div>
      <div class=${`slide-main s${i}`}>${pick.rows.map((rw, a) => html`<div class="prow">${rw.panels.map((p, j) => html`
        ${rw.ops?.[j] ? html`<span class=${rw.ops[j] === '|' ? 'op sep' : 'op'} aria-hidden="true">${rw.ops[j]}</span>` : nothing}
        ${p.groups ? html`<div class="panel">${this.#heatmap(p, pick.fit.sizes[a][j])}${this.#groups(p, pick.fit.sizes[a][j].cell)}</div>`
          : this.#heatmap(p, pick.fit.sizes[a][j])}`)}</div>`)}</div>`;
  }

  #renderPage(r) {
    const names = STAGES.map((s) => s.name);
    const shown = STAGES.map((_, i) => i).filter((i) => this.shows(i));
    const avail = this.pageFit(900);
    return html`${this.stageBar(names)}
      ${shown.map((i) => {
        const arrangement = this.#levels(r, i)[0][0];
        return html`<div class=${`stage s${i}`}><h3>${i} · ${STAGES[i].name}: <span class="shape">${shapeText(r.shapes[STAGES[i].key])}</span></h3>
          ${this.#shapeLine(r, i)}${STAGES[i].key === 'split' ? this.#fusedLine(r) : nothing}
          ${arrangement.map((rw) => html`<div class="row">${rw.panels.map((p) => html`<attn-heatmap class=${p.cls} .label=${p.label} .values=${p.values}
            .rows=${p.rows} .cols=${p.cols} .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} .colormap=${p.colormap} .vmin=${p.vmin} .vmax=${p.vmax}
            .digits=${p.digits} max-width=${Math.min(avail, p.cols > 6 ? 760 : 300)}></attn-heatmap>`)}</div>`)}</div>`;
      })}`;
  }
}
