// <attn-cross trained>: the cross-attention of a tiny encoder–decoder trained on number words → digits
// (tools/pretrain_cross.cc), snapshot by snapshot: the map forming over training. Every map and
// prediction is computed here by the core from the snapshot's shipped weights (trained.js); the
// held-out loss and accuracy are the training run's, as shipped.
//
// Stages (deck clicks): the key snapshots KEY_STEPS (0 untrained … the last); the scrubber moves over
// every shipped snapshot.
import { html, nothing } from 'lit';
import { crossForward, digitsOf, loadCrossRun, MAX_NUMBER, MIN_NUMBER, numberWords } from './trained.js';

/** The snapshots the deck's clicks step through (training steps; the last is the run's end). */
export const KEY_STEPS = [0, 100, 300, 600, Infinity];
export const STAGE_COUNT = KEY_STEPS.length;

// Whole numbers with thousands separators ("12,000"), as toLocaleString('en-US') writes them, without
// it: its first call on a page set up a number formatter (~0.1 s of the widget's first draw at 4x CPU
// throttling), and each call made one.
export const thousands = (n) => (Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : String(n));

// The stage strip of AttnWidget.stageStrip, with the current item given (a scrubbed snapshot between
// two key steps shows the one before).
const stageStrip = (names, cur) => html`<ol class="stagestrip" aria-label="stages">${names.map((n, i) => html`<li class=${i === cur ? 'current' : i < cur ? 'done' : 'todo'}
  aria-current=${i === cur ? 'step' : 'false'}>${n}</li>`)}</ol>`;

/** The snapshot index a stage shows: the last snapshot at or before its key step. */
export function keySnapshot(snapshots, stage) {
  const step = KEY_STEPS[Math.max(0, Math.min(STAGE_COUNT - 1, stage))];
  let k = 0;
  snapshots.forEach((s, i) => { if (s.step <= step) k = i; });
  return k;
}

/**
 * Type sizes on a slide drawn at `scale` screen px per CSS px: numbers with an 18 px glyph box
 * (≈ 1.16 em), labels at 14 px or more (0.9 em).
 */
function slideFonts(scale) {
  const s = scale > 0.05 ? scale : 1;
  const numFont = Math.ceil(18.5 / (1.16 * s));
  return { numFont, minFont: Math.max(numFont, Math.ceil(14.2 / (0.9 * s))), text: Math.max(16, Math.ceil(15 / s)) };
}

/** The trained mode's state and drawing, held by an <attn-cross>. */
export class TrainedView {
  constructor(host) {
    this.host = host;
    this.run = null;
    this.error = '';
    this.cache = new Map();
    this.loading = false;
  }

  /** Starts loading the shipped run once; the host re-renders when it arrives. */
  ensure() {
    if (this.run || this.loading || this.error) return;
    this.loading = true;
    loadCrossRun().then((run) => { this.run = run; }, (e) => { this.error = e.message; })
      .finally(() => { this.loading = false; this.host.requestUpdate(); });
  }

  /** The snapshot shown: the scrubber's, else the deck stage's key snapshot, else the last. */
  shown() {
    const { snapshots } = this.run, h = this.host;
    if (Number.isInteger(h.snapshot) && h.snapshot >= 0 && h.snapshot < snapshots.length) return h.snapshot;
    if (Number.isInteger(h.stage)) return keySnapshot(snapshots, h.stage);
    return snapshots.length - 1;
  }

  number() {
    const n = this.host.number;
    return Number.isInteger(n) && n >= MIN_NUMBER && n <= MAX_NUMBER ? n : 4326;
  }

  forward(lab, k, n) {
    const key = `${k}:${n}`;
    if (!this.cache.has(key)) this.cache.set(key, crossForward(lab, this.run, k, n));
    return this.cache.get(key);
  }

  /** The stage strip's current item: the stage whose key snapshot is shown (scrubbed between two: the one before). */
  #stageOf(k) {
    let st = 0;
    for (let s = 0; s < STAGE_COUNT; s++) if (keySnapshot(this.run.snapshots, s) <= k) st = s;
    return st;
  }

  #scrubber(k, fonts) {
    const { snapshots } = this.run, h = this.host;
    const set = (v) => h.setState({ snapshot: Number(v) });
    return html`<label class="scrub" style=${fonts ? `font-size:${fonts.text}px` : ''}>training step
      <input type="range" class="snapshot" min="0" max=${snapshots.length - 1} step="1" .value=${String(k)}
        aria-valuetext=${`step ${thousands(snapshots[k].step)} of ${thousands(snapshots.at(-1).step)}`}
        @input=${(e) => set(e.target.value)}>
      <output class="step">${thousands(snapshots[k].step)}</output></label>`;
  }

  // A number out of the task's range is refused in place, as every other field is: the typed text stays,
  // the message gives the range and the number still shown.
  #numberField() {
    const h = this.host, f = h.fields, n = this.number();
    return html`<label class="number">number <input type="number" class="number" min=${MIN_NUMBER} max=${MAX_NUMBER} step="1" .value=${String(n)}
      aria-invalid=${f.invalid('number')} aria-describedby=${f.describedBy('number')}
      @change=${(e) => { const v = f.number('number', e.target, { min: MIN_NUMBER, max: MAX_NUMBER, integer: true, name: `the number (still ${n})` }); if (v !== null) h.setState({ number: v }); }}></label>${f.message('number')}`;
  }

  /** "step 300 · held-out loss 0.436 · 54.0 % of 900 numbers right" and what the model writes here. */
  #caption(k, r) {
    const s = this.run.snapshots[k], right = r.predicted.filter((d, i) => d === r.digits[i]).length;
    return html`<p class="caption" aria-live="polite"><span class="stat">step ${thousands(s.step)} · held-out loss ${s.evalLoss.toFixed(3)} ·
        <strong class="accuracy">${(100 * s.accuracy).toFixed(1)} %</strong> of ${this.run.meta.heldOutSize} numbers exactly right</span>
      <span class="writes">predicts <strong class=${right === 4 ? 'ok' : 'bad'}>${r.predicted.join(' ')}</strong> (${right} of 4 digits right)</span></p>`;
  }

  #heatmap(r, fit, fonts) {
    return html`<attn-heatmap class="alignment trained" label="digits (queries) × words (keys)"
      .values=${r.weights} .rows=${4} .cols=${r.words.length} .rowLabels=${r.digits.map(String)} .colLabels=${r.words}
      colormap="sequential" .vmin=${0} .vmax=${1} .digits=${2} .cellSize=${fit ? 120 : 64}
      .minFont=${fonts?.minFont ?? 16} ?compact=${!!fit} .fitWidth=${fit?.width ?? 0} .fitHeight=${fit?.height ?? 0}
      max-width=${fit ? nothing : 560}></attn-heatmap>`;
  }

  render(lab) {
    this.ensure();
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    if (!this.run) return html`<p class="loading" role="status">Loading the trained snapshots…</p>`;
    const h = this.host, k = this.shown(), n = this.number(), r = this.forward(lab, k, n);
    if (h.slideLayout) {
      const fonts = slideFonts(h.screenScale());
      const names = KEY_STEPS.map((_, s) => (s === 0 ? 'untrained' : `step ${thousands(this.run.snapshots[keySnapshot(this.run.snapshots, s)].step)}`));
      const { width, height } = h.box;
      const fit = { width, height: Math.max(80, height - h._headH - 8) };
      return html`<div class="slide-head trained" style=${`font-size:${fonts.text}px`}>
          <div class="topline">${stageStrip(names, this.#stageOf(k))}${h.controlsMode === 'none' ? nothing : this.#scrubber(k, fonts)}</div>
          ${this.#caption(k, r)}</div>
        <div class="slide-main">${this.#heatmap(r, fit, fonts)}</div>`;
    }
    return html`<p class="note">A tiny encoder–decoder (d = 16, ${thousands(this.run.meta.trainSize)} training numbers) learned to write a number
        given in words as its four digits. Each row is the decoder’s query while it writes one digit; each column a word of the encoder’s input.
        The map is computed here from the weights saved at that training step, for “${numberWords(n).join(' ')}” → ${digitsOf(n).join(' ')}
        (${this.run.meta.heldOutSize} numbers, 4326 among them, were held out of training).</p>
      <div class="controls">${this.#scrubber(k)}${h.controlsMode === 'full' ? this.#numberField() : nothing}</div>
      ${this.#caption(k, r)}
      <div class="row">${this.#heatmap(r, null, null)}</div>`;
  }
}
