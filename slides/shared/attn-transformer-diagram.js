// <attn-transformer-diagram highlight="attention,addnorm">: the encoder–decoder Transformer of
// Vaswani et al. (2017, fig. 1), drawn as inline SVG so the decks need no image files. The modules
// use the source deck's colour code (attention orange, Add & Norm lime, feed forward blue, token
// embedding red, positional encoding green, linear violet, softmax teal). `highlight` is a comma
// list of module names; the others are dimmed:
//   embedding, positional, attention (every attention block), masked (the decoder's masked one),
//   cross (the decoder's encoder–decoder one), addnorm, ffn, linear, softmax, encoder, decoder.
// A name with a leading minus is taken out again: highlight="decoder,-cross" is a decoder-only model
// (the decoder without its cross-attention).
// Slides-only component (a figure, no computation), shared by both decks.

const COLORS = {
  attention: '#fed7aa', addnorm: '#d9f99d', ffn: '#bfdbfe', embedding: '#fecaca', positional: '#bbf7d0',
  linear: '#ddd6fe', softmax: '#99f6e4',
};

// Sizes are in SVG units. Every label is FONT units high and the figure is about 29 × 29 of them (the
// viewBox), so that where the decks draw it (Slidev: 22–27rem ≈ 410–500 px tall at 1280×720; reveal.js:
// 480 canvas px ≈ 420 px wide) one unit is ≥ 0.79 px and a label's glyph box (1.19 em) is ≥ 16 px. Boxes
// are wide enough for "Masked Multi-Head" and "Output Embedding" on one line; the attention labels take two.
const FONT = 18, LINE = 22;
// [module, tags, x, y, w, h, label ("\n" between lines)]: boxes from the bottom of the figure up.
const W = 184, EX = 53, DX = 289, CE = EX + W / 2, CD = DX + W / 2, H1 = 28, H2 = 48;
const BOXES = [
  ['embedding', 'encoder', EX, 452, W, H1, 'Input Embedding'],
  ['embedding', 'decoder', DX, 452, W, H1, 'Output Embedding'],
  ['attention', 'encoder', EX, 344, W, H2, 'Multi-Head\nAttention'],
  ['addnorm', 'encoder', EX, 306, W, H1, 'Add & Norm'],
  ['ffn', 'encoder', EX, 262, W, H1, 'Feed Forward'],
  ['addnorm', 'encoder', EX, 224, W, H1, 'Add & Norm'],
  ['attention', 'decoder masked', DX, 344, W, H2, 'Masked Multi-Head\nAttention'],
  ['addnorm', 'decoder', DX, 306, W, H1, 'Add & Norm'],
  ['attention', 'decoder cross', DX, 242, W, H2, 'Multi-Head\nAttention'],
  ['addnorm', 'decoder', DX, 204, W, H1, 'Add & Norm'],
  ['ffn', 'decoder', DX, 160, W, H1, 'Feed Forward'],
  ['addnorm', 'decoder', DX, 122, W, H1, 'Add & Norm'],
  ['linear', 'decoder', DX, 72, W, H1, 'Linear'],
  ['softmax', 'decoder', DX, 34, W, H1, 'Softmax'],
];

// Lines of text centred (vertically) on cy, LINE apart.
function label(x, cy, text, attrs = '') {
  const ls = text.split('\n');
  return ls.map((t, i) => `<text x="${x}" y="${cy + (i - (ls.length - 1) / 2) * LINE}" dy="0.35em"${attrs}>${t}</text>`).join('');
}

function box([mod, tags, x, y, w, h, text]) {
  return `<g class="m ${mod} ${tags}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="5" fill="${COLORS[mod]}"/>${label(x + w / 2, y + h / 2, text)}</g>`;
}

function arrow(x1, y1, x2, y2) {
  return `<path d="M${x1} ${y1} L${x2} ${y2}" marker-end="url(#ah)"/>`;
}

// A residual connection: from below the sub-layer around its side into the Add & Norm box.
function residual(x, yFrom, yTo, side) {
  const sx = side < 0 ? x - 11 : x + W + 11, bx = side < 0 ? x : x + W;
  return `<path class="res" d="M${x + W / 2} ${yFrom} H${sx} V${yTo} H${bx}" marker-end="url(#ah)"/>`;
}

function pe(cx, cy, labelLeft) {
  const lx = labelLeft ? cx - 18 : cx + 18, anchor = labelLeft ? 'end' : 'start';
  return `<g class="m positional ${labelLeft ? 'encoder' : 'decoder'}">
    <circle cx="${cx}" cy="${cy}" r="12" fill="${COLORS.positional}"/>
    <path d="M${cx - 7} ${cy} q3.5 -8 7 0 t7 0" fill="none" stroke="#1b1f24"/>
    ${label(lx, cy, 'Positional\nEncoding', ` style="text-anchor: ${anchor}"`)}</g>`;
}

// Upward arrow along a column's centre line from y1 to 2 units short of y2 (a box edge).
const up = (cx, y1, y2) => arrow(cx, y1, cx, y2 + 2);

// The viewBox leaves room left of the encoder for its "N×" label and right of the decoder for theirs.
const SVG = `<svg viewBox="-8 0 538 520" role="img" aria-label="The Transformer: encoder (left) and decoder (right)">
  <defs><marker id="ah" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
    <path d="M0 0 L8 4 L0 8 z" fill="#444"/></marker></defs>
  <g class="frame encoder"><rect x="${EX - 18}" y="214" width="${W + 36}" height="188" rx="10"/>
    <text x="${EX - 23}" y="308" dy="0.35em" class="nx">N×</text></g>
  <g class="frame decoder"><rect x="${DX - 18}" y="112" width="${W + 36}" height="290" rx="10"/>
    <text x="${DX + W + 23}" y="257" dy="0.35em" class="nx">N×</text></g>
  <g class="wires">
    ${up(CE, 494, 480)} ${up(CD, 494, 480)}
    ${up(CE, 452, 436)} ${up(CD, 452, 436)}
    ${up(CE, 412, 392)} ${up(CD, 412, 392)}
    ${up(CE, 344, 334)} ${up(CE, 306, 290)} ${up(CE, 262, 252)}
    ${up(CD, 344, 334)} ${up(CD, 306, 290)} ${up(CD, 242, 232)} ${up(CD, 204, 188)}
    ${up(CD, 160, 150)} ${up(CD, 122, 100)} ${up(CD, 72, 62)} ${up(CD, 34, 21)}
    ${residual(EX, 398, 320, -1)} ${residual(EX, 296, 238, -1)}
    ${residual(DX, 398, 320, 1)} ${residual(DX, 296, 218, 1)} ${residual(DX, 196, 136, 1)}
    <path d="M${CE} 224 V196 H${DX - 8} V301 H${DX + 30} V292" marker-end="url(#ah)" class="kv"/>
  </g>
  ${BOXES.map(box).join('')}
  ${pe(CE, 426, true)} ${pe(CD, 426, false)}
  ${label(CE, 507, 'Inputs', ' class="io"')}
  ${label(CD, 507, 'Outputs (shifted right)', ' class="io"')}
  ${label(CD, 11, 'Output Probabilities', ' class="io"')}
</svg>`;

const CSS = `
:host { display: block; }
svg { width: 100%; height: 100%; max-height: inherit; font-family: system-ui, sans-serif; }
text { font-size: ${FONT}px; text-anchor: middle; fill: #1b1f24; }
text.io { font-style: italic; }
text.nx { font-size: ${FONT + 2}px; font-weight: 700; text-anchor: start; }
.frame.encoder text.nx { text-anchor: end; }
.frame rect { fill: #f6f8fa; stroke: #8c959f; }
rect { stroke: #57606a; stroke-width: 1; }
.wires path { fill: none; stroke: #444; stroke-width: 1.3; }
.wires path.kv { stroke-dasharray: 4 3; }
.m, .frame, .wires { transition: opacity 0.3s; }
:host([highlight]) .m { opacity: 0.25; }
:host([highlight]) .wires { opacity: 0.35; }
.m.on { opacity: 1 !important; }
.m.on rect, .m.on circle { stroke: #1b1f24; stroke-width: 2.4; }
@media print { .m, .frame, .wires { transition: none; } }
`;

export class AttnTransformerDiagram extends HTMLElement {
  static observedAttributes = ['highlight'];

  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = `<style>${CSS}</style>${SVG}`;
  }

  attributeChangedCallback() {
    const names = (this.getAttribute('highlight') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const want = names.filter((n) => !n.startsWith('-')), not = names.filter((n) => n.startsWith('-')).map((n) => n.slice(1));
    for (const g of this.shadowRoot.querySelectorAll('.m'))
      g.classList.toggle('on', want.some((w) => g.classList.contains(w)) && !not.some((w) => g.classList.contains(w)));
  }
}

if (!customElements.get('attn-transformer-diagram'))
  customElements.define('attn-transformer-diagram', AttnTransformerDiagram);
