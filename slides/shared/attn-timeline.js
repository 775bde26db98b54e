// <attn-timeline start="1943" end="2012"> with <attn-event year="1957">…</attn-event> children: a
// history timeline for the lecture decks (the source deck's {{TIMELINE:…}} placeholders).
//
// Events stay in the light DOM, so a deck's own step mechanism still sees them: in reveal.js give an
// event `class="fragment" data-fragment-index="1"`, in Slidev wrap it in v-click. The element only
// positions each event along the axis (left = (year − start) / (end − start)) and draws the axis and
// its end years; labels go in lanes above and below the line so neighbouring years do not collide.
// Lanes are as tall as their labels (measured), the element as tall as the lanes it uses, labels as
// wide as their text (up to LABEL %), and the type at least ~16 px on screen whatever the deck's scale
// (laid out again when the width or the deck's scale changes, e.g. when a hidden slide is shown).
// Slides-only component (no attnlab computation), shared by both decks.

const STYLE_ID = 'attn-timeline-style';
const LABEL = 21;  // largest label width, % of the timeline (a short label is as wide as its text)
const FONT = 0.52;  // em of the surrounding text …
const MIN_SCREEN_PX = 16;  // … but at least this many px on screen
const CSS = `
attn-timeline { display: block; position: relative; margin: 0.2em 0; font-size: ${FONT}em; }
attn-timeline .attn-tl-axis { position: absolute; left: 0; right: 0; top: var(--axis, 50%); border-top: 3px solid #57606a; }
attn-timeline .attn-tl-end { position: absolute; top: calc(var(--axis, 50%) + 0.2em); font-size: 0.85em; color: #57606a; }
attn-timeline .attn-tl-end.start { left: 0; }
attn-timeline .attn-tl-end.stop { right: 0; }
attn-event { position: absolute; width: max-content; max-width: ${LABEL}%; transform: translateX(calc(var(--t) * -100%));
  text-align: center; line-height: 1.15; color: #1b1f24; }
attn-event::before { content: attr(year) ' '; font-weight: 700; color: #0b5cad; }
attn-event.attn-tl-above { bottom: calc(100% - var(--axis, 50%) + var(--off)); }
attn-event.attn-tl-below { top: calc(var(--axis, 50%) + var(--off)); }
attn-event::after { content: ''; position: absolute; left: calc(var(--t) * 100%); width: 2px; margin-left: -1px;
  height: var(--off); background: #0b5cad; }
attn-event.attn-tl-above::after { top: 100%; }
attn-event.attn-tl-below::after { bottom: 100%; }
attn-event[highlight] { color: #9a3412; font-weight: 600; }
attn-event[highlight]::before { color: #c2410c; }
attn-event[highlight]::after { background: #c2410c; }
`;

function ensureStyle(doc) {
  if (doc.getElementById(STYLE_ID)) return;
  const s = doc.createElement('style');
  s.id = STYLE_ID;
  s.textContent = CSS;
  doc.head.append(s);
}

export class AttnTimeline extends HTMLElement {
  static observedAttributes = ['start', 'end'];

  connectedCallback() {
    ensureStyle(this.ownerDocument);
    if (!this.getAttribute('role')) this.setAttribute('role', 'list');
    this.layout();
    // Labels wrap differently at another width (and can be measured only once shown): lay out again.
    if (typeof ResizeObserver !== 'undefined' && !this._observer) {
      this._observer = new ResizeObserver(() => {
        if (this.offsetWidth !== this._width || Math.abs(this.#scale() - (this._scale ?? 0)) > 0.01) this.layout();
      });
    }
    this._observer?.observe(this);
    // The deck's web fonts may arrive after the first layout: labels measured in the fallback font were
    // narrower (a stem then ran through a label set in the real font). Lay out again once they are in.
    const fonts = this.ownerDocument.fonts;
    if (fonts && !this._fontsWatched) {
      this._fontsWatched = true;
      fonts.ready.then(() => { if (this.isConnected) this.layout(); });
      fonts.addEventListener?.('loadingdone', () => { if (this.isConnected) this.layout(); });
    }
  }

  disconnectedCallback() {
    this._observer?.disconnect();
  }

  attributeChangedCallback() {
    if (this.isConnected) this.layout();
  }

  /** Screen px per CSS px (reveal.js and Slidev scale the slide canvas). */
  #scale() {
    const s = this.getBoundingClientRect().width / (this.offsetWidth || 1);
    return s > 0.05 ? s : 1;
  }

  /** The axis and its two end labels (made once; attributes may arrive before connectedCallback). */
  #ends() {
    let ends = this.querySelectorAll(':scope > .attn-tl-end');
    if (ends.length === 2) return ends;
    const doc = this.ownerDocument;
    const axis = doc.createElement('div');
    axis.className = 'attn-tl-axis';
    axis.setAttribute('aria-hidden', 'true');
    const a = doc.createElement('span'), b = doc.createElement('span');
    a.className = 'attn-tl-end start';
    b.className = 'attn-tl-end stop';
    this.prepend(axis, a, b);
    return [a, b];
  }

  /** Places every <attn-event> child on the axis. */
  layout() {
    const start = Number(this.getAttribute('start')), end = Number(this.getAttribute('end'));
    if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return;
    const [a, b] = this.#ends();
    a.textContent = String(start);
    b.textContent = String(end);
    // Type: FONT em of the text around, at least MIN_SCREEN_PX on screen.
    const scale = this.#scale();
    this._scale = scale;
    this._width = this.offsetWidth;
    const around = parseFloat(getComputedStyle(this.parentElement ?? this).fontSize) || 16;
    const font = Math.max(FONT * around, MIN_SCREEN_PX / scale);
    this.style.fontSize = `${font.toFixed(1)}px`;
    const width = this.offsetWidth;
    const events = [...this.querySelectorAll(':scope > attn-event')]
      .sort((x, y) => Number(x.getAttribute('year')) - Number(y.getAttribute('year')));
    const ts = events.map((ev) => {
      const t = Math.min(1, Math.max(0, (Number(ev.getAttribute('year')) - start) / (end - start)));
      ev.style.left = `${(t * 100).toFixed(2)}%`;
      ev.style.setProperty('--t', t.toFixed(3));
      ev.setAttribute('role', 'listitem');
      return t;
    });
    // Greedy lanes: above 0, below 0, above 1, below 1, …: the first lane where the label overlaps no
    // other (with a gap), its stem (from the axis at t·W) crosses no label nearer the axis on its side
    // and no stem of a label farther out crosses it. A label w wide spans t·(W − w) … t·(W − w) + w.
    // Not laid out yet (a hidden slide): a label counts as LABEL % wide and 3 lines high.
    // The end years sit under the axis at both ends: obstacles in the first lane below (lane 1), and its
    // height at least theirs, so a label farther out clears them.
    const gap = 0.6 * font, spans = [], laneHeight = [];
    const endH = 1.3 * 0.85 * font;
    for (const [el, left] of [[a, true], [b, false]]) {
      const w = el.offsetWidth || 2.6 * 0.85 * font;
      spans.push({ lane: 1, from: left ? 0 : width - w, to: left ? w : width, x: NaN });
    }
    laneHeight[1] = endH;
    const lanes = events.map((ev, k) => {
      const w = ev.offsetWidth || (LABEL / 100) * width;
      const from = ts[k] * (width - w), to = from + w, x = ts[k] * width;
      const apart = (sp) => sp.to + gap <= from || to + gap <= sp.from;
      // A stem at x crosses a label spanning [f, t] when it runs more than 2 px inside it (a stem along
      // the edge of a wrapped label's box passes beside its centred lines).
      const clear = (px, f, t) => Number.isNaN(px) || px <= f + 2 || px >= t - 2;
      // Labels this one would overlap (Infinity) or whose box its stem, or whose stem it, crosses.
      const cost = (lane) => spans.reduce((c, sp) => (sp.lane % 2 !== lane % 2 ? c : sp.lane === lane ? (apart(sp) ? c : Infinity)
        : c + ((sp.lane < lane ? clear(x, sp.from, sp.to) : clear(sp.x, from, to)) ? 0 : 1)), 0);
      // The first lane with no overlap and no crossing; when every lane has some (years so close), the
      // lane with the fewest crossings.
      let lane = 0, best = 0, bestCost = Infinity;
      for (; lane < 12; lane++) {
        const c = cost(lane);
        if (c === 0) break;
        if (c < bestCost) { best = lane; bestCost = c; }
      }
      if (lane === 12) {
        lane = best;
        if (bestCost === Infinity) for (lane = 12; cost(lane) === Infinity;) lane++;
      }
      spans.push({ lane, from, to, x });
      laneHeight[lane] = Math.max(laneHeight[lane] ?? 0, ev.offsetHeight || 3 * 1.15 * font);
      return lane;
    });
    // Offsets from the axis: a lane starts where the previous lane on its side (lane − 2) ends.
    for (let lane = 0; lane < laneHeight.length; lane++) laneHeight[lane] ??= 0;  // a lane left empty on one side
    const off = [], stem = 0.35 * font, between = 0.2 * font;
    for (let lane = 0; lane < laneHeight.length; lane++)
      off[lane] = lane < 2 ? stem : off[lane - 2] + (laneHeight[lane - 2] ?? 0) + between;
    const extent = (side) => Math.max(0, ...laneHeight.map((h, lane) => (lane % 2 === side ? off[lane] + h : 0)));
    const above = Math.max(extent(0), 0.5 * font), below = Math.max(extent(1), 1.3 * 0.85 * font);  // end years under the axis
    events.forEach((ev, k) => {
      ev.style.setProperty('--off', `${off[lanes[k]].toFixed(1)}px`);
      ev.classList.toggle('attn-tl-above', lanes[k] % 2 === 0);
      ev.classList.toggle('attn-tl-below', lanes[k] % 2 === 1);
    });
    // As tall as the lanes in use on each side of the axis.
    this.style.setProperty('--axis', `${Math.ceil(above + 2)}px`);
    this.style.height = `${Math.ceil(above + below + 3)}px`;
  }
}

if (!customElements.get('attn-timeline')) customElements.define('attn-timeline', AttnTimeline);
