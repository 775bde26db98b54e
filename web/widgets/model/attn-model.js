// <attn-model>: a whole language model on one sentence — its tokens, every head's attention map (layers ×
// heads at a glance, one opened with labels and numbers), the heads named by role from their scores,
// the next-token distribution with heads switched off beside it, and generation step by step with the
// KV cache. Default: attnlab's shipped induction model (offline, no file), or its names model (a
// character model of the names list: `model="names"` or the choice beside it); a safetensors file from
// the picker or a drop (read in the page, never sent anywhere), or `src` (a URL, e.g. a deck's
// public/models/gpt2.safetensors) loads another, e.g. GPT-2. The shipped models are fetched when chosen.
//
// Attributes: src, model (the shipped model: induction · names), text, stage (0 tokens · 1 one head · 2 all heads · 3 logit lens and next token ·
// 4 generation; absent: all), k (top-k, default 5), hash-key, layout, controls (see AttnWidget).
// Events: attn-state-change (AttnWidget), attn-model-load { source, config } (bubbles, composed) when a
// model is ready.
// Keyboard: Tab reaches every map; Enter (or a click) on a map opens that head; each map's "on/off"
// button switches the head off; in the opened map the arrow keys read the cells.
import { html, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import '../shared/heatmap.js';
import { fmt } from '../shared/format.js';
import { viridis } from '../shared/colormap.js';
import { modelStyles } from './styles.js';
import { ModelSession, SHIPPED_NAMES, SHIPPED_TASKS } from './session.js';
import {
  GPT2_HINT, ROLE_TEXT, resolveHeadSpec, ROLE_THRESHOLD, scoreTexts, unmeasured, STAGES, bytesText, cacheRows, headName,
  roleOf, roles, toggleHead,
} from './logic.js';

const MAX_HEADS = 4096;
/** A small map's caption and the space above its cells (px; attn-heatmap compact, no labels). */
const MAP_CHROME = 34;
/** viridis at 256 levels, [r, g, b] per level: the grid's maps on the fixed 0–1 scale of every attention map. */
const VIRIDIS_LUT = Uint8Array.from({ length: 256 * 3 }, (_, k) => viridis(Math.floor(k / 3) / 255)[k % 3]);

export class AttnModel extends AttnWidget {
  static properties = {
    /** A model file's URL (safetensors; e.g. "models/gpt2.safetensors" from a deck's public/ folder). */
    src: { type: String },
    /** attnlab's own model shown without a file (and while one loads): 'induction' (default) or 'names'. */
    model: { type: String },
    /** The sentence the model reads. */
    text: { type: String },
    /** Show up to this stage (0 … 4; absent: everything). */
    stage: { converter: optionalInt, reflect: true },
    /** The opened head, as its flat index layer·heads + head (absent: the first named induction head, else L0H0). */
    head: { converter: optionalInt },
    /** The heads switched off (flat indices). */
    ablated: { attribute: false },
    /** How many next tokens the distribution lists. */
    k: { type: Number },
    /** A seed: start on a random sequence repeated twice (the induction test) instead of the text. */
    repeat: { converter: optionalInt },
    /** The head opened by default (no `head`): a role ('induction', 'previous-token', 'duplicate-token': the strongest on this sequence) or a name ('L4H11'). */
    open: { type: String },
    /** Heads to switch off, by name or role ('L9H9,L9H6,L10H0 | induction': the first alternative this model has; see logic.js resolveHeadSpec). Clicking a head's switch drops it. */
    ablate: { type: String },
    _over: { state: true },
    _clickMode: { state: true },
  };

  static styles = modelStyles;

  static stateSchema = {
    text: { type: 'text', maxChars: 2000 },
    model: { type: 'enum', values: SHIPPED_TASKS },
    stage: { type: 'int', min: 0, max: 4 },
    head: { type: 'int', min: 0, max: MAX_HEADS - 1 },
    ablated: { type: 'nums', maxLength: MAX_HEADS, min: 0, max: MAX_HEADS - 1 },
    k: { type: 'int', min: 1, max: 20 },
  };

  constructor() {
    super();
    this.src = '';
    this.model = 'induction';
    this.text = null;
    this.stage = null;
    this.head = null;
    this.ablated = [];
    this.k = 5;
    this.repeat = null;
    this.open = null;
    this.ablate = null;
    this._over = false;
    this._clickMode = 'open';
    this.session = new ModelSession(this);
    this._loadedSrc = null;
  }

  labReady() {
    // The model runs in its own worker (session.js → backend.js): this page's module only draws.
    this.session.k = this.k;
    if (this.text) this.session.text = this.text;
    this.session.ablated = this.#ablatedList();
    // The shipped model first (small, offline): the widget works while a large file loads or if it fails.
    const first = this.session.loadShipped(this.#shippedTask()).then(() => {
      const after = this.#afterLoad();
      if (this.src) this.#loadSrc();
      return after;
    });
    // Until its first forward pass is drawn (or the load failed), as tall as its placeholder (widget.js).
    first.finally(() => { this._firstLoadDone = true; this.requestUpdate(); });
  }

  get firstDrawPending() { return !this._firstLoadDone; }

  willUpdate(changed) {
    super.willUpdate(changed);
    if (changed.has('model') && changed.get('model') !== undefined && this._lab) this.#chooseShipped(this.#shippedTask(), false);
    if (changed.has('src') && this._lab && this.session.config && this.src && this.src !== this._loadedSrc) this.#loadSrc();
    this.#applyAblate(changed.has('ablate'));
  }

  /** `ablate` resolved on the sequence shown (roles depend on it): the heads it names switched off. */
  #applyAblate(force) {
    const s = this.session;
    if (this.ablate === null || this.ablate === undefined || !this.shown) return;
    if (!force && this._ablateFor === s.scores) return;
    this._ablateFor = s.scores;
    const list = resolveHeadSpec(this.ablate, s.scores, s.config.layers, s.config.heads) ?? [];
    if (list.join() === this.#ablatedList().join() && list.join() === s.ablated.join()) return;
    this.ablated = list;
    s.setAblated(list);
  }

  #shippedTask() { return SHIPPED_TASKS.includes(this.model) ? this.model : 'induction'; }

  /** One of attnlab's own models (the choice beside the file picker, or the `model` attribute). */
  async #chooseShipped(task, user = true) {
    const s = this.session;
    const has = s.status === 'loading' ? s.pending?.kind === 'shipped' && s.pending.task === task : s.source?.kind === 'shipped' && s.source.task === task;
    if (has) return;
    if (user) {
      this.model = task;
      this.text = null;  // the text typed for the other model: the new model's example instead
      s.text = null;
    }
    await s.loadShipped(task);
    await this.#afterLoad();
    if (user) this.stateChanged();
  }

  #loadSrc() {
    this._loadedSrc = this.src;
    this.session.loadSource(this.src).then(() => this.#afterLoad());
  }

  async #afterLoad() {
    const s = this.session;
    if (s.status !== 'ready') return;
    if (this.repeat !== null && this.repeat !== undefined) await s.repeatRandom(this.repeat);
    this.text = s.text;
    const n = s.config.layers * s.config.heads;
    if (this.head !== null && this.head >= n) this.head = null;
    this.ablated = this.#ablatedList().filter((i) => i < n);
    this.dispatchEvent(new CustomEvent('attn-model-load', { detail: { source: s.source, config: s.config }, bubbles: true, composed: true }));
  }

  #ablatedList() { return Array.isArray(this.ablated) ? this.ablated.map(Number) : []; }

  applyState(state) {
    super.applyState(state);
    const s = this.session;
    s.k = this.k;
    if (!s.ready) { if (state.text) s.text = state.text; s.ablated = this.#ablatedList(); return; }
    s.ablated = this.#ablatedList().filter((i) => i < s.config.layers * s.config.heads);
    if (state.text !== undefined) s.setText(state.text); else s.run();
  }

  /** Drawn once the first run's answer is here (the sequence, its maps and scores). */
  get shown() { const s = this.session; return s.ready && !!s.base && !!s.scores; }

  /** The opened head: `head`, else the strongest named induction head, else L0H0. */
  get openedHead() {
    const s = this.session;
    if (!this.shown) return 0;
    const n = s.config.layers * s.config.heads;
    if (this.head !== null && this.head !== undefined && this.head < n) return this.head;
    if (this.open) {
      const i = resolveHeadSpec(this.open, s.scores, s.config.layers, s.config.heads);
      if (i?.length) return i[0];
    }
    const ind = s.scores ? roles(s.scores).find((r) => r.role === 'induction') : null;
    return ind ? ind.layer * s.config.heads + ind.head : 0;
  }

  // ---- user actions ---------------------------------------------------------------------------------

  #setText(text) {
    this.session.setText(text);
    this.text = text;
    this.stateChanged();
  }

  async #random() {
    await this.session.repeatRandom();
    this.text = this.session.text;
    this.stateChanged();
  }

  #pickPosition(i) {
    this.session.setLensPosition(i === this.session.ids.length - 1 ? null : i);
  }

  #open(i) {
    this.head = i;
    this.stateChanged();
  }

  #toggle(i) {
    this.ablate = null;  // a click decides from now on
    this.ablated = toggleHead(this.#ablatedList(), i);
    this.session.setAblated(this.ablated);
    this.stateChanged();
  }

  #pick(e) {
    this.#loadFiles([...(e.target.files ?? [])]);
  }

  #drop(e) {
    e.preventDefault();
    this._over = false;
    this.#loadFiles([...(e.dataTransfer?.files ?? [])]);
  }

  /** The weights file, and with it (optional) the model's Hugging Face config.json: its n_head, eps, activation. */
  async #loadFiles(files) {
    const json = files.find((f) => /\.json$/i.test(f.name)), file = files.find((f) => f !== json);
    if (!file) return;
    let config;
    if (json) {
      try {
        config = JSON.parse(await json.text());
      } catch (e) {
        this.session.error = `${json.name} is not JSON (${e.message}): the model is loaded without it`;
      }
    }
    await this.session.loadSource(file, file.name, { config });
    this.#afterLoad();
  }

  // ---- rendering ------------------------------------------------------------------------------------

  renderWidget() {
    const s = this.session;
    if (this.slideLayout) return this.#renderSlide();
    return html`
      ${this.#sourceBar()}
      ${this.shown ? html`
        ${this.stageBar(STAGES)}
        ${this.#input()}
        ${this.#strip(this.shows(3))}
        ${this.shows(1) ? html`<div class="stage s1"><h3>One head</h3>${this.#bigMap()}</div>` : nothing}
        ${this.shows(2) ? html`<div class="stage s2"><h3>Every head (layers × heads)</h3>${this.#legend()}${this.#grid()}</div>` : nothing}
        ${this.shows(3) ? html`<div class="stage s3"><h3>Logit lens and the next token</h3><div class="lens-dist">${this.#lens()}${this.#dist()}</div></div>` : nothing}
        ${this.shows(4) ? html`<div class="stage s4"><h3>Generation, token by token</h3>${this.#generation()}</div>` : nothing}` : nothing}`;
  }

  #sourceBar({ compact = false } = {}) {
    const s = this.session, c = s.config;
    const what = s.source ? html`<span class="which">Model: <strong>${s.source.name}</strong>${c ? ` — ${c.layers} layers × ${c.heads} heads, d_model ${c.dModel}, vocab ${c.vocab.toLocaleString('en')}, context ${c.context}` : ''}</span>` : nothing;
    const p = s.progress;
    const loading = s.status === 'loading' ? html`<div class="loading-line" role="status">
        <span>Loading ${s.pending?.name ?? 'the model'}…${p?.loaded ? ` ${bytesText(p.loaded)}${p.total ? ` of ${bytesText(p.total)}` : ''}` : ''}</span>
        ${p?.total ? html`<progress max=${p.total} .value=${p.loaded}></progress>` : html`<progress aria-label="loading"></progress>`}</div>` : nothing;
    const error = s.error || s.runError ? html`<p class=${s.missing ? 'error missing' : 'error'} role="alert">${s.error}${s.error && s.runError ? ' ' : ''}${s.runError}</p>` : nothing;
    if (compact) return html`${loading}${error}`;
    const busy = s.busy && s.status !== 'loading' ? html`<span class="busy" role="status">computing…</span>` : nothing;
    return html`<div class="source">${what}
        <label class=${this._over ? 'drop over' : 'drop'}
          @dragover=${(e) => { e.preventDefault(); this._over = true; }} @dragleave=${() => { this._over = false; }} @drop=${(e) => this.#drop(e)}>
          Open a safetensors file, with its config.json if you have it (or drop them here):
          <input type="file" multiple accept=".safetensors,.json,application/octet-stream" @change=${(e) => this.#pick(e)}></label>
        ${busy}
      </div>
      ${this.#shippedChoice()}
      ${loading}${error}
      ${c?.vocab !== 50257 ? html`<p class="hint">${GPT2_HINT}</p>` : nothing}`;
  }

  /** attnlab's own models, one pressed when it is the one shown (a file's model: none pressed). */
  #shippedChoice() {
    const s = this.session, on = s.source?.kind === 'shipped' ? s.source.task : null;
    return html`<div class="shipped" role="group" aria-label="attnlab’s own models">
      <span>${s.source && s.source.kind !== 'shipped' ? 'Back to attnlab’s own models:' : 'No file needed — attnlab’s own models:'}</span>
      ${SHIPPED_TASKS.map((t) => html`<button type="button" class=${`pick-${t}${on === t ? ' on' : ''}`} aria-pressed=${String(on === t)}
        @click=${() => this.#chooseShipped(t)}>${t === 'induction' ? 'the induction model' : 'the names model'}</button>`)}
      <span class="note">${on === 'names' ? 'a character model of 32,033 first names (27 tokens: “.” and a–z), trained natively like the induction model; generation samples names'
        : on === 'induction' ? 'the 2-layer attention-only model of the training section (tokens ^ and A–O)' : ''}</span></div>`;
  }

  #input() {
    const s = this.session;
    return html`<div class="controls">
      <label>Text <input type="text" .value=${s.text ?? ''} aria-invalid=${String(!!s.inputError && !/^cut/.test(s.inputError))}
        @change=${(e) => this.#setText(e.target.value)}
        @keydown=${(e) => { if (e.key === 'Enter') this.#setText(e.target.value); }}></label>
      <button type="button" class="random" @click=${() => this.#random()}>Repeat a random sequence</button>
      ${s.inputError ? html`<span class=${/^cut/.test(s.inputError) ? 'field-msg note' : 'field-msg refused'} role="status">${s.inputError}</span>` : nothing}
    </div>`;
  }

  /** The tokens; with `pick`, each a button choosing the logit lens's position (the chosen one pressed). */
  #strip(pick = false) {
    const s = this.session, at = s.lens?.position ?? s.lensPosition ?? s.ids.length - 1;
    const small = (i) => (this.slideLayout ? nothing : html`<small>${s.ids[i]}</small>`);
    if (!pick) return html`<ol class="strip" aria-label="tokens">${s.labels.map((l, i) => html`<li title=${`position ${i}, id ${s.ids[i]}`}>${l}${small(i)}</li>`)}</ol>`;
    return html`<ol class="strip pick" aria-label="tokens: press one to read the logit lens there">${s.labels.map((l, i) => html`<li><button type="button"
      class=${i === at ? 'at' : ''} aria-pressed=${String(i === at)} title=${`position ${i}, id ${s.ids[i]}: the logit lens here`}
      @click=${() => this.#pickPosition(i)}>${l}${small(i)}</button></li>`)}</ol>`;
  }

  #legend() {
    return html`<p class="scores-legend">Under each map: its previous-token, duplicate-token and induction scores (mean attention
      where the score looks, 0–1). A head is named by a role only when its score is ≥ ${ROLE_THRESHOLD}; an induction head only from
      layer 1 on (it needs an earlier layer’s previous-token head). Press “Repeat a random sequence” to make induction measurable.
      Enter or a click on a map opens it; “off” switches the head off.${this.#unmeasuredNote()}</p>`;
  }

  // Why a score reads “–” on this text (the same for every head: it depends on the tokens only).
  #unmeasuredNote() {
    const why = unmeasured(this.session?.scores?.[0]?.[0]);
    return why ? html` <strong class="unmeasured">On this text “–”: ${why}.</strong>` : nothing;
  }

  #readout(l, h, att, t) {
    const key = `${l}|${h}`, c = (this._readouts ??= new Map()).get(key), labels = this.session.labels;
    if (c && c.att === att) return c.fn;
    const fn = (i, j) => (j === null ? '' : `${headName(l, h)}: query ${labels[i]} (${i}) → key ${labels[j]} (${j}): ${fmt(att[i * t + j], 4)}`);
    this._readouts.set(key, { att, fn });
    return fn;
  }

  #bigMap(fit = null) {
    const s = this.session, { heads } = s.config, i = this.openedHead, l = Math.floor(i / heads), h = i % heads;
    const src = s.off && this.#ablatedList().includes(i) ? s.base : s.base;
    const att = src.attention[l][h], t = s.ids.length;
    const sc = s.scores[l][h], role = roleOf(sc, l), why = unmeasured(sc);
    const label = `${headName(l, h)}${role ? ` — ${ROLE_TEXT[role]}` : ''}`;
    return html`<attn-heatmap class="big" .label=${label} .values=${att} .rows=${t} .cols=${t} .rowLabels=${s.labels} .colLabels=${s.labels}
      colormap="sequential" .vmin=${0} .vmax=${1} .digits=${2} .cellSize=${40} .maxWidth=${Math.min(760, this.pageFit(760))}
      .compact=${!!fit} .fitWidth=${fit?.width ?? 0} .fitHeight=${fit?.height ?? 0} .minFont=${18} ?raster=${t > 16}
      .readoutFor=${this.#readout(l, h, att, t)}></attn-heatmap>
      ${fit ? nothing : html`<p class="note">${scoreTexts(sc).join(' · ')}${why ? ` (${why})` : ''}${role ? ` — named ${ROLE_TEXT[role]} (score ≥ ${ROLE_THRESHOLD})` : ' — no role reaches the threshold'}</p>`}`;
  }

  /**
   * Every head at a glance: one small map per head, layers × heads. A map is a canvas painted from the
   * weights (paintThumbs, after each render: a pixel per query–key pair, viridis on a fixed 0–1 scale)
   * inside a button: a click or Enter opens that head (or, in "switch off" mode, switches it off). Its
   * numbers are in the opened head's map (with its table and readout), not in 144 hidden tables.
   */
  #grid(fit = null) {
    const s = this.session, { layers, heads } = s.config, t = s.ids.length, off = this.#ablatedList(), open = this.openedHead;
    // Each map's cell size: the grid fills the width (page: the column; slide: the box) and, on a slide, the height.
    // On a slide the scores stand beside each map (18 px lines: ~130 px wide, 4 lines tall) when the
    // map keeps ≥ 60 px that way; else only the maps (a 12 × 12 GPT-2 grid), the named heads outlined.
    const width = fit ? fit.width : this.pageFit(1000);
    const chrome = fit ? MAP_CHROME + 30 : MAP_CHROME;  // a slide: the click-mode line above the grid
    const side = (w) => Math.min((width - 40) / heads - 12 - w, fit ? (fit.height - 4) / layers - 4 - chrome : Infinity);
    const besides = !!fit && side(135) >= 60;
    const mapPx = fit ? side(besides ? 135 : 0) : (width - 40) / heads - 8;
    const cell = Math.max(1, Math.min(fit ? 40 : 16, mapPx / t));
    const px = Math.max(t, Math.floor(cell * t));
    const showScores = !fit || besides;
    const mode = showScores ? 'open' : this._clickMode;
    const modeLine = showScores ? nothing : html`<div class="click-mode" role="radiogroup" aria-label="a click on a map">A click on a map:
      ${[['open', 'opens it'], ['off', 'switches it off']].map(([m, text]) => html`<button type="button" role="radio" aria-checked=${String(mode === m)}
        class=${mode === m ? 'on' : ''} @click=${() => { this._clickMode = m; }}>${text}</button>`)}</div>`;
    return html`${modeLine}<div class="grid" role="group" aria-label="every head">${Array.from({ length: layers }, (_, l) => html`<div class="layer">
      <span class="layer-name">L${l}</span>
      ${Array.from({ length: heads }, (_, h) => {
        const i = l * heads + h, sc = s.scores[l][h], role = roleOf(sc, l), isOff = off.includes(i), name = headName(l, h);
        return html`<div class=${`cell ${name}${i === open ? ' selected' : ''}${isOff ? ' off' : ''}${besides ? ' besides' : ''}${role ? ` named ${role}` : ''}`}>
          <button type="button" class="map" aria-pressed=${mode === 'off' ? String(isOff) : nothing}
            aria-label=${`${name}${role ? `, ${ROLE_TEXT[role]}` : ''}${isOff ? ', switched off' : ''}: ${mode === 'off' ? `press to switch it ${isOff ? 'on' : 'off'}` : 'press to open this head'}`}
            title=${`${name}${role ? ` — ${ROLE_TEXT[role]}` : ''}`} @click=${() => (mode === 'off' ? this.#toggle(i) : this.#open(i))}>
            <span class="map-name">${name}</span>
            <canvas class="thumb" data-head=${i} width=${t} height=${t} style=${`width:${px}px;height:${px}px`} aria-hidden="true"></canvas></button>
          ${showScores ? html`<div class="about" style=${besides ? '' : `max-width:${Math.max(90, px + 12)}px`}>
          <span class="sc" title=${unmeasured(sc) || nothing}>${scoreTexts(sc).map((text) => html`<span class="k">${text}</span> `)}</span>
          ${role ? html`<span class="role">${ROLE_TEXT[role]}</span>` : nothing}
          <button type="button" class="ablate" aria-label=${`${isOff ? 'off' : 'on'}: ${name}, press to switch it ${isOff ? 'on' : 'off'}`}
            @click=${() => this.#toggle(i)}>${isOff ? 'off' : 'on'}</button></div>` : nothing}
        </div>`;
      })}</div>`)}</div>`;
  }

  updated(changed) {
    super.updated(changed);
    this.#paintThumbs();
  }

  /** Paints each grid map whose weights changed since it was last painted (one ImageData per head). */
  #paintThumbs() {
    const s = this.session, root = this.renderRoot;
    if (!this.shown || !root?.querySelectorAll) return;
    const { heads } = s.config, t = s.ids.length;
    for (const c of root.querySelectorAll('canvas.thumb')) {
      const i = Number(c.dataset.head), att = s.base.attention[Math.floor(i / heads)]?.[i % heads];
      if (!att || c._att === att || c.width !== t) continue;
      const ctx = c.getContext('2d');
      if (!ctx) continue;
      const img = ctx.createImageData(t, t), d = img.data;
      for (let k = 0; k < t * t; k++) {
        const q = 3 * Math.max(0, Math.min(255, Math.round(att[k] * 255))), o = 4 * k;
        d[o] = VIRIDIS_LUT[q]; d[o + 1] = VIRIDIS_LUT[q + 1]; d[o + 2] = VIRIDIS_LUT[q + 2]; d[o + 3] = 255;
      }
      ctx.putImageData(img, 0, 0);
      c._att = att;
    }
  }

  /**
   * The logit lens: at the chosen position, the top k tokens read out after each layer (the residual
   * stream through ln_f and the unembedding), the embeddings first, the model's own output last.
   */
  #lens(maxRows = Infinity, maxK = Infinity) {
    const s = this.session, lens = s.lens;
    if (!lens) return html`<p class="note lens-note">${s.lensNote}</p>`;
    const L = lens.layers.length - 1, p = lens.position;
    const name = (i) => (i === 0 ? 'embeddings' : i === L ? `L${i - 1} = output` : `after L${i - 1}`);
    // On a slide with more layers than rows fit: the embeddings, the last rows, the output (the rows left out said).
    let rows = lens.layers.map((e, i) => ({ ...e, i }));
    let cut = 0;
    if (rows.length > maxRows) { cut = rows.length - maxRows; rows = [rows[0], ...rows.slice(cut + 1)]; }
    const k = Math.min(maxK, Math.max(...rows.map((r) => r.ids.length)));
    return html`<div class="lens">
      ${this.slideLayout ? html`<p class="note">Logit lens at ${p} (after “${s.labels[p]}”): the top ${k} after each layer. Click a token to move it.</p>`
        : html`<p class="note">Logit lens at position ${p} (after “${s.labels[p]}”; click a token above to read another): each row reads the
        residual stream after that layer through the final LayerNorm and the unembedding; the top ${k}, p on a 0–1 scale.</p>`}
      <div class="scrollx"><table class="plain lens-table">
        <thead><tr><th>read after</th>${Array.from({ length: k }, (_, j) => html`<th>#${j + 1}</th>`)}</tr></thead>
        <tbody>${rows.map((r, n) => html`${cut && n === 1 ? html`<tr class="cut"><td colspan=${k + 1}>… ${cut} layer${cut > 1 ? 's' : ''} not shown</td></tr>` : nothing}
          <tr class=${r.i === L ? 'final' : ''}><th scope="row">${name(r.i)}</th>${r.ids.slice(0, k).map((id, j) => html`<td class="lt"
            style=${`--p:${Math.max(0, Math.min(1, r.probs[j]))}`}><span class="tok">${r.labels[j]}</span> <span class="p">${fmt(r.probs[j], 2)}</span></td>`)}</tr>`)}</tbody>
      </table></div></div>`;
  }

  /**
   * The next token after the last position: with every head and, beside it, with the heads off (the two
   * answers side by side, then the table of both); the loss of both. `maxRows`: the table's rows on a slide.
   */
  #dist(maxRows = Infinity) {
    const s = this.session, t = s.ids.length, off = this.#ablatedList(), a = s.dist;
    const hasOff = !!s.off;
    const loss = (r) => fmt(r.meanLoss, 3);
    const named = off.map((i) => headName(Math.floor(i / s.config.heads), i % s.config.heads)).join(', ');
    const rows = a.rows.slice(0, maxRows), barPx = this.slideLayout ? 60 : 80;
    const note = this.slideLayout
      ? html`<p class="note">Next token after “${s.labels[t - 1]}”${hasOff ? html`: every head, and ${named} off` : html`, top ${this.k}`}</p>`
      : html`<p class="note">Next token after “${s.labels[t - 1]}” (position ${t - 1}), top ${this.k}${hasOff ? html`, with every head and with ${named} off` : ''}.</p>`;
    return html`<div class="dist-box">${note}
      ${hasOff ? html`<div class="answers" role="group" aria-label="the answer, intact and with heads off">
        <div class="answer"><span class="what">every head</span><span class="tok">${a.topLabel}</span><span class="loss-n">loss ${loss(s.base)}</span></div>
        <div class=${a.topChanged ? 'answer off changed' : 'answer off'}><span class="what">${named} off</span><span class="tok">${a.topOffLabel}</span><span class="loss-n">loss ${loss(s.off)}</span></div>
      </div>` : nothing}
      <div class="scrollx"><table class="plain dist">
        <thead><tr><th>token</th>${this.slideLayout ? html`<th>p</th>${hasOff ? html`<th>p off</th><th>change</th>` : nothing}`
          : html`<th>p (every head)</th>${hasOff ? html`<th>p (heads off)</th><th>change</th>` : nothing}`}</tr></thead>
        <tbody>${rows.map((r) => html`<tr class=${`${r.id === a.top ? 'top' : ''}${hasOff && r.id === a.topOff ? ' top-off' : ''}`}>
          <td class="tok">${r.label}</td>
          <td><span class="bar" style=${`width:${Math.round(r.p * barPx)}px`}></span>${fmt(r.p, 3)}</td>
          ${hasOff ? html`<td><span class="bar off" style=${`width:${Math.round(r.pOff * barPx)}px`}></span>${fmt(r.pOff, 3)}</td>
            <td class=${r.delta > 0 ? 'up' : r.delta < 0 ? 'down' : ''}>${r.delta >= 0 ? '+' : '−'}${fmt(Math.abs(r.delta), 3)}</td>` : nothing}
        </tr>`)}</tbody></table></div>
      ${this.slideLayout ? nothing : html`<p class="note loss">Loss on this text (mean −log p of each next token): <strong>${loss(s.base)}</strong>${hasOff ? html` with every head,
        <strong>${loss(s.off)}</strong> with the heads off${a.topChanged ? html` — the top token changes from “${a.topLabel}” to “${a.topOffLabel}”` : ' — the top token stays'}` : ''}.</p>`}</div>`;
  }

  /**
   * Generation with the KV cache: the text so far (generated tokens marked) and the cache as one chip per
   * row — the prompt's rows, the rows earlier steps added, and the one row this step computed.
   */
  #generation(maxRows = Infinity) {
    const s = this.session, gen = s.gen;
    const tokens = gen?.tokens ?? s.ids, promptLen = gen?.prompt.length ?? s.ids.length;
    const rows = cacheRows(tokens, promptLen, s.config.context);
    const shown = rows.slice(-maxRows);
    const labels = gen?.labels ?? s.labels;
    const made = tokens.length - promptLen;
    return html`<div class="controls">
        <button type="button" class="step" @click=${() => s.generateStep()}>Generate one token</button>
        ${s.tokenizer.kind === 'names' ? html`<button type="button" class="name" @click=${() => s.generateUntil(s.tokenizer.prefix[0])}>Generate a name</button>` : nothing}
        <button type="button" class="reset" ?disabled=${!gen} @click=${() => s.resetGeneration()}>Back to the prompt</button>
        <span class="note">${s.tokenizer.sampled ? `sampled (temperature 1, seed ${gen?.seed ?? s.genSeed}; back to the prompt: the next seed)` : 'greedy (the most likely token)'}${this.#ablatedList().length ? ', with the heads switched off' : ''}</span></div>
      <p class="generated">${labels.slice(0, promptLen).join('')}<mark>${labels.slice(promptLen).join('')}</mark></p>
      <p class="note cache-note">KV cache: ${rows.length} rows, one per token (its keys and values in every layer). ${made
        ? `Step ${made}: the new token computed one row (orange) and read all ${rows.length}; the ${rows.length - 1} before it were cached.`
        : 'The prompt’s rows are computed once; each generated token then adds one.'}${shown.length < rows.length ? ` The last ${shown.length} shown.` : ''}</p>
      <div class="cache" role="list" aria-label="KV cache rows">${shown.map((r) => html`<div role="listitem"
        class=${`kv ${r.state}${r.index >= promptLen && r.state === 'cached' ? ' made' : ''}`}
        title=${`row ${r.index}: ${r.state === 'new' ? 'computed this step' : r.index >= promptLen ? 'computed by an earlier step, cached' : 'the prompt’s, cached'}`}>
        <span class="tok">${labels[r.index]}</span><span class="idx">${r.index}</span></div>`)}</div>`;
  }

  // ---- slide layout ---------------------------------------------------------------------------------

  #renderSlide() {
    const s = this.session, shown = this.shown;
    const stage = this.stage ?? STAGES.length - 1;
    const { width, height } = this.box;
    const avail = { width, height: Math.max(80, height - (this._headH || 90) - 12) };
    // Without GPT-2's file: one line saying where it goes (the page layout says it in full, GPT2_HINT).
    const hint = s.config && s.config.vocab !== 50257 && s.status !== 'loading'
      ? html`<p class="hint slide-hint">${s.missing ? '' : `${SHIPPED_NAMES[s.source?.task] ?? 'attnlab’s induction model'} · `}GPT-2: huggingface.co/gpt2 model.safetensors → public/models/gpt2.safetensors</p>` : nothing;
    const head = html`<div class="slide-head"><div class="topline">${this.stageStrip(STAGES)}${s.busy ? html`<span class="busy" role="status">computing…</span>` : nothing}</div>
      ${this.#sourceBar({ compact: true })}${hint}${shown ? html`${this.controlsMode !== 'none' ? this.#input() : nothing}${stage === 0 ? nothing : this.#strip(stage === 3)}` : nothing}</div>`;
    if (!shown) return html`${head}<p class="loading" role="status">Loading the model…</p>`;
    let main = nothing;
    // Stage 0: the tokens large, each with its id (the strip above shows the pieces only).
    if (stage === 0) main = html`<ol class="strip big" aria-label="tokens and ids">${s.labels.map((l, i) => html`<li><span>${l}</span><small>${s.ids[i]}</small></li>`)}</ol>
      <p class="note">${s.ids.length} tokens${s.tokenizer.kind === 'gpt2' ? ' (GPT-2’s byte-level BPE: · is a space)' : ''}.</p>`;
    else if (stage === 1) main = this.#bigMap(avail);
    else if (stage === 2) main = this.#grid(avail);
    // Heads off in a narrow box: the two answers and the table only (the lens has the box without them).
    else if (stage === 3) main = html`<div class="lens-dist">${s.off && avail.width < 820 ? nothing
      : this.#lens(Math.max(2, Math.floor((avail.height - 70) / 34)), s.off ? (avail.width < 1000 ? 2 : 3) : 5)}${
      this.#dist(Math.max(1, Math.floor((avail.height - (s.off ? 150 : 70)) / 33)))}</div>`;
    else if (stage === 4) main = this.#generation(Math.max(4, Math.floor((avail.height - 150) / 62) * Math.floor(avail.width / 64)));
    return html`${head}<div class=${`slide-main stage s${stage}`} style=${`height:${avail.height}px`}>${main}</div>`;
  }
}
