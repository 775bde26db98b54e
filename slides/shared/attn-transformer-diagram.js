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

// [module, tags, x, y, w, h, label]: boxes from the bottom of the figure up.
const W = 130, EX = 40, DX = 230;
const BOXES = [
  ['embedding', 'encoder', EX, 430, W, 26, 'Input Embedding'],
  ['embedding', 'decoder', DX, 430, W, 26, 'Output Embedding'],
  ['attention', 'encoder', EX, 322, W, 34, 'Multi-Head Attention'],
  ['addnorm', 'encoder', EX, 292, W, 22, 'Add & Norm'],
  ['ffn', 'encoder', EX, 236, W, 34, 'Feed Forward'],
  ['addnorm', 'encoder', EX, 206, W, 22, 'Add & Norm'],
  ['attention', 'decoder masked', DX, 322, W, 34, 'Masked Multi-Head Attention'],
  ['addnorm', 'decoder', DX, 292, W, 22, 'Add & Norm'],
  ['attention', 'decoder cross', DX, 226, W, 34, 'Multi-Head Attention'],
  ['addnorm', 'decoder', DX, 196, W, 22, 'Add & Norm'],
  ['ffn', 'decoder', DX, 142, W, 34, 'Feed Forward'],
  ['addnorm', 'decoder', DX, 112, W, 22, 'Add & Norm'],
  ['linear', 'decoder', DX, 64, W, 22, 'Linear'],
  ['softmax', 'decoder', DX, 32, W, 22, 'Softmax'],
];

function box([mod, tags, x, y, w, h, label]) {
  const words = label.length > 22 ? label.replace('Multi-Head', '\nMulti-Head').split('\n') : [label];
  const lines = words.map((t, i) =>
    `<text x="${x + w / 2}" y="${y + h / 2 + 4 + (i - (words.length - 1) / 2) * 12}">${t}</text>`).join('');
  return `<g class="m ${mod} ${tags}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="5" fill="${COLORS[mod]}"/>${lines}</g>`;
}

function arrow(x1, y1, x2, y2) {
  return `<path d="M${x1} ${y1} L${x2} ${y2}" marker-end="url(#ah)"/>`;
}

// A residual connection: from below the sub-layer around its side into the Add & Norm box.
function residual(x, yFrom, yTo, side) {
  const sx = side < 0 ? x - 14 : x + W + 14, bx = side < 0 ? x : x + W;
  return `<path class="res" d="M${x + W / 2} ${yFrom} H${sx} V${yTo} H${bx}" marker-end="url(#ah)"/>`;
}

function pe(cx, cy, labelLeft) {
  const lx = labelLeft ? cx - 16 : cx + 16, anchor = labelLeft ? 'end' : 'start';
  return `<g class="m positional ${labelLeft ? 'encoder' : 'decoder'}">
    <circle cx="${cx}" cy="${cy}" r="10" fill="${COLORS.positional}"/>
    <path d="M${cx - 6} ${cy} q3 -7 6 0 t6 0" fill="none" stroke="#1b1f24"/>
    <text x="${lx}" y="${cy - 2}" style="text-anchor: ${anchor}" class="small">Positional</text>
    <text x="${lx}" y="${cy + 10}" style="text-anchor: ${anchor}" class="small">Encoding</text></g>`;
}

// The viewBox leaves room left of the encoder for its "N×" label and right of the decoder for theirs (they were clipped).
const SVG = `<svg viewBox="-14 0 428 500" role="img" aria-label="The Transformer: encoder (left) and decoder (right)">
  <defs><marker id="ah" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
    <path d="M0 0 L8 4 L0 8 z" fill="#444"/></marker></defs>
  <g class="frame encoder"><rect x="${EX - 22}" y="196" width="${W + 44}" height="174" rx="10"/>
    <text x="${EX - 28}" y="290" text-anchor="end" class="nx">N×</text></g>
  <g class="frame decoder"><rect x="${DX - 22}" y="102" width="${W + 44}" height="268" rx="10"/>
    <text x="${DX + W + 28}" y="240" class="nx">N×</text></g>
  <g class="wires">
    ${arrow(EX + W / 2, 476, EX + W / 2, 458)} ${arrow(DX + W / 2, 476, DX + W / 2, 458)}
    ${arrow(EX + W / 2, 430, EX + W / 2, 406)} ${arrow(DX + W / 2, 430, DX + W / 2, 406)}
    ${arrow(EX + W / 2, 386, EX + W / 2, 358)} ${arrow(DX + W / 2, 386, DX + W / 2, 358)}
    ${arrow(EX + W / 2, 322, EX + W / 2, 316)} ${arrow(EX + W / 2, 292, EX + W / 2, 272)}
    ${arrow(EX + W / 2, 236, EX + W / 2, 230)}
    ${arrow(DX + W / 2, 322, DX + W / 2, 316)} ${arrow(DX + W / 2, 292, DX + W / 2, 262)}
    ${arrow(DX + W / 2, 226, DX + W / 2, 220)} ${arrow(DX + W / 2, 196, DX + W / 2, 178)}
    ${arrow(DX + W / 2, 142, DX + W / 2, 136)} ${arrow(DX + W / 2, 112, DX + W / 2, 88)}
    ${arrow(DX + W / 2, 64, DX + W / 2, 56)} ${arrow(DX + W / 2, 32, DX + W / 2, 14)}
    ${residual(EX, 372, 303, -1)} ${residual(EX, 284, 217, -1)}
    ${residual(DX, 372, 303, 1)} ${residual(DX, 280, 207, 1)} ${residual(DX, 190, 123, 1)}
    <path d="M${EX + W / 2} 206 V186 H${DX - 8} V270 H${DX + 30} V262" marker-end="url(#ah)" class="kv"/>
  </g>
  ${BOXES.map(box).join('')}
  ${pe(EX + W / 2, 396, true)} ${pe(DX + W / 2, 396, false)}
  <text x="${EX + W / 2}" y="492" class="io">Inputs</text>
  <text x="${DX + W / 2}" y="492" class="io">Outputs (shifted right)</text>
  <text x="${DX + W / 2}" y="10" class="io">Output Probabilities</text>
</svg>`;

const CSS = `
:host { display: block; }
svg { width: 100%; height: 100%; max-height: inherit; font-family: system-ui, sans-serif; }
text { font-size: 11px; text-anchor: middle; fill: #1b1f24; }
text.small { font-size: 9.5px; }
text.io { font-size: 11px; font-style: italic; }
text.nx { font-size: 14px; font-weight: 700; text-anchor: start; }
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
