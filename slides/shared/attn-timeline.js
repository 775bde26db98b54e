// <attn-timeline start="1943" end="2012"> with <attn-event year="1957">…</attn-event> children: a
// history timeline for the lecture decks (the source deck's {{TIMELINE:…}} placeholders).
//
// Events stay in the light DOM, so a deck's own step mechanism still sees them: in reveal.js give an
// event `class="fragment" data-fragment-index="1"`, in Slidev wrap it in v-click. The element only
// positions each event along the axis (left = (year − start) / (end − start)) and draws the axis and
// its end years; labels go in lanes above and below the line so neighbouring years do not collide.
// Slides-only component (no attnlab computation), shared by both decks.

const STYLE_ID = 'attn-timeline-style';
const LABEL = 22;  // label width, % of the timeline
const LANE = 4.0;   // em between stacked label lanes
const CSS = `
attn-timeline { display: block; position: relative; margin: 0.2em 0; font-size: 0.52em; }
attn-timeline .attn-tl-axis { position: absolute; left: 0; right: 0; top: var(--axis, 50%); border-top: 3px solid #57606a; }
attn-timeline .attn-tl-end { position: absolute; top: calc(var(--axis, 50%) + 0.2em); font-size: 0.85em; color: #57606a; }
attn-timeline .attn-tl-end.start { left: 0; }
attn-timeline .attn-tl-end.stop { right: 0; }
attn-event { position: absolute; width: ${LABEL}%; transform: translateX(calc(var(--t) * -100%)); text-align: center;
  line-height: 1.15; color: #1b1f24; }
attn-event::before { content: attr(year); display: block; font-weight: 700; color: #0b5cad; }
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
  }

  attributeChangedCallback() {
    if (this.isConnected) this.layout();
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
    const events = [...this.querySelectorAll(':scope > attn-event')]
      .sort((x, y) => Number(x.getAttribute('year')) - Number(y.getAttribute('year')));
    // Greedy lanes: above 0, below 0, above 1, below 1, …: the first lane whose last label ends
    // before this one starts (labels are LABEL% wide, shifted by --t so they stay inside).
    const lastEnd = [];
    let above = 1, below = 0;  // label lanes used on each side of the axis
    for (const ev of events) {
      const year = Number(ev.getAttribute('year'));
      const t = Math.min(1, Math.max(0, (year - start) / (end - start)));
      const from = t * (100 - LABEL);
      let lane = 0;
      while (lastEnd[lane] !== undefined && lastEnd[lane] + 1 > from) lane++;
      lastEnd[lane] = from + LABEL;
      const level = Math.floor(lane / 2);
      if (lane % 2 === 0) above = Math.max(above, level + 1);
      else below = Math.max(below, level + 1);
      ev.style.left = `${(t * 100).toFixed(2)}%`;
      ev.style.setProperty('--t', t.toFixed(3));
      ev.style.setProperty('--off', `${0.4 + level * LANE}em`);
      ev.classList.toggle('attn-tl-above', lane % 2 === 0);
      ev.classList.toggle('attn-tl-below', lane % 2 === 1);
      ev.setAttribute('role', 'listitem');
    }
    // As tall as the lanes in use: no empty lanes below an axis that has no labels under it.
    this.style.setProperty('--axis', `${above * LANE + 0.3}em`);
    this.style.height = `${(above + below) * LANE + 1.3}em`;
  }
}

if (!customElements.get('attn-timeline')) customElements.define('attn-timeline', AttnTimeline);
