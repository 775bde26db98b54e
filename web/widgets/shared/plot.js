// A small SVG x–y plot (lines, dots, polygons) for the widgets' curves. Returns a Lit template.
//   plot({ series: [{ points: [[x, y], …], kind: 'line' | 'dots' | 'polygon', color, label, labels?, r?, rs? (a radius per dot) }],
//          xLabel, yLabel, width, height, logX, logY, xDomain?, yDomain?, xTicks?, title, equal?, fontSize? })
// `xTicks` (optional) are the x values to mark, e.g. the lengths a sweep measured (16, 32, 64 …): on a
// narrow plot every 2nd, 3rd … is kept so the labels fit; without it, round numbers (ticks.js).
// `fontSize` (px, default 12) sizes ticks, axis labels and point labels; the margins grow with it
// (slides pass ~16–18 so the axes read from the back of the room).
import { html, nothing, noChange } from 'lit';
import { Directive, directive, PartType } from 'lit/directive.js';
import { niceTicks } from './ticks.js';

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';
/** Okabe–Ito colours: distinguishable with every common colour-vision deficiency. */
export const SERIES_COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#000000'];

export function plot({ series, xLabel = '', yLabel = '', width = 420, height = 260, logX = false, logY = false, xDomain, yDomain, xTicks, title = '', equal = false, fontSize = 12 }) {
  const fs = fontSize;
  const fx = logX ? Math.log10 : (v) => v, fy = logY ? Math.log10 : (v) => v;
  const xs = [], ys = [];
  for (const s of series) for (const [x, y] of s.points) if (Number.isFinite(fx(x)) && Number.isFinite(fy(y))) { xs.push(fx(x)); ys.push(fy(y)); }
  let [x0, x1] = xDomain ? xDomain.map(fx) : [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = yDomain ? yDomain.map(fy) : [Math.min(...ys), Math.max(...ys)];
  if (!Number.isFinite(x0)) [x0, x1] = [0, 1];
  if (!Number.isFinite(y0)) [y0, y1] = [0, 1];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const padY = (y1 - y0) * 0.06;
  if (!yDomain) { y0 -= padY; y1 += padY; }
  const m = { l: 32 + 2 * fs, r: 12, t: Math.round(fs / 2 + 6), b: 18 + 2 * fs };
  const W = width - m.l - m.r, H = height - m.t - m.b;
  if (equal) {  // same units per pixel on both axes (the convex-hull picture must not be squashed)
    const ux = (x1 - x0) / W, uy = (y1 - y0) / H;
    if (ux > uy) { const c = (y0 + y1) / 2, h = ux * H / 2; y0 = c - h; y1 = c + h; } else { const c = (x0 + x1) / 2, w = uy * W / 2; x0 = c - w; x1 = c + w; }
  }
  const px = (x) => m.l + ((fx(x) - x0) / (x1 - x0)) * W;
  const py = (y) => m.t + H - ((fy(y) - y0) / (y1 - y0)) * H;
  const inX = (v) => fx(v) >= x0 - 1e-9 && fx(v) <= x1 + 1e-9, inY = (v) => fy(v) >= y0 - 1e-9 && fy(v) <= y1 + 1e-9;
  const tickX = fitTicksX({ x0, x1, log: logX, inner: W, fontSize: fs, ticks: xTicks });
  const tickY = niceTicks(y0, y1, 5, logY);
  // The SVG's repeated elements (grid lines, tick labels, the series) as [kind, …attribute values, text?]:
  // drawn by svgList below, not by an svg`` template each (see there).
  const body = [];
  series.forEach((s, k) => {
    const color = s.color ?? SERIES_COLORS[k % SERIES_COLORS.length];
    const pts = s.points.filter(([x, y]) => Number.isFinite(fx(x)) && Number.isFinite(fy(y)));
    if (s.kind === 'polygon') body.push([POLYGON, pts.map(([x, y]) => `${px(x)},${py(y)}`).join(' '), color, color]);
    else if (s.kind === 'dots') {
      pts.forEach(([x, y], i) => {
        body.push([DOT, px(x), py(y), s.rs?.[i] ?? s.r ?? 4, color]);
        if (s.labels) body.push([POINT_LABEL, px(x) + 7, py(y) - 6, fs, color, FONT, s.labels[i]]);
      });
    } else body.push([LINE, pts.map(([x, y]) => `${px(x)},${py(y)}`).join(' '), color, s.dash ?? 'none']);
  });
  const tx = tickX.filter(inX), ty = tickY.filter(inY);
  const grid = [...ty.map((v) => [GRID_Y, m.l, m.l + W, py(v), py(v)]), ...tx.map((v) => [GRID_X, m.t, m.t + H, px(v), px(v)])];
  const labelsX = tx.map((v) => [TICK_X, px(v), m.t + H + fs + 4, fs, FONT, fmtTick(v)]);
  const labelsY = ty.map((v) => [TICK_Y, m.l - 6, py(v), fs, FONT, fmtTick(v)]);
  const legend = series.filter((s) => s.label).map((s, i) => {
    const k = series.indexOf(s), color = s.color ?? SERIES_COLORS[k % SERIES_COLORS.length];
    return html`<span class="legend-item"><span style="display:inline-block;width:12px;height:12px;background:${color};margin-right:4px;vertical-align:-1px"></span>${s.label}</span>`;
  });
  return html`<figure class="plot" style="margin:0;display:inline-block;vertical-align:top">
    ${title ? html`<figcaption style="font-weight:600">${title}</figcaption>` : nothing}
    <svg xmlns="http://www.w3.org/2000/svg" width=${width} height=${height} viewBox="0 0 ${width} ${height}" role="img" aria-label=${`${title}: ${yLabel} against ${xLabel}`}>
      <rect width=${width} height=${height} fill="#fff"></rect>
      <g stroke="#eaeef2">${svgList(grid)}</g>
      <rect x=${m.l} y=${m.t} width=${W} height=${H} fill="none" stroke="#8c959f"></rect>
      ${svgList(labelsX)}
      ${svgList(labelsY)}
      <text x=${m.l + W / 2} y=${height - 6} font-size=${fs + 1} text-anchor="middle" font-family=${FONT} fill="#24292f">${xLabel}</text>
      <text transform=${`translate(${fs + 2},${m.t + H / 2}) rotate(-90)`} font-size=${fs + 1} text-anchor="middle" font-family=${FONT} fill="#24292f">${yLabel}</text>
      <svg x=${m.l} y=${m.t} width=${W} height=${H} viewBox="${m.l} ${m.t} ${W} ${H}" overflow="hidden">${svgList(body)}</svg>
    </svg>
    ${legend.length ? html`<div class="legend" style="font-size:0.9em;display:flex;gap:12px;flex-wrap:wrap">${legend}</div>` : nothing}
  </figure>`;
}

// The kinds of element svgList draws: tag, the attributes every one has (set once, when it is made) and the
// names of those given per element, in the order an svg`` template wrote them (same markup as before).
const kind = (tag, fixed, names, text = false) => ({ tag, fixed, names, text });
const TEXT = [['fill', '#24292f']];
const GRID_Y = kind('line', [], ['x1', 'x2', 'y1', 'y2']);
const GRID_X = kind('line', [], ['y1', 'y2', 'x1', 'x2']);
const TICK_X = kind('text', [['text-anchor', 'middle'], ...TEXT], ['x', 'y', 'font-size', 'font-family'], true);
const TICK_Y = kind('text', [['text-anchor', 'end'], ['dominant-baseline', 'central'], ...TEXT], ['x', 'y', 'font-size', 'font-family'], true);
const POLYGON = kind('polygon', [['fill-opacity', '0.15'], ['stroke-width', '1.5']], ['points', 'fill', 'stroke']);
const DOT = kind('circle', [['stroke', '#fff'], ['stroke-width', '1']], ['cx', 'cy', 'r', 'fill']);
const POINT_LABEL = kind('text', [['font-weight', '600']], ['x', 'y', 'font-size', 'fill', 'font-family'], true);
const LINE = kind('polyline', [['fill', 'none'], ['stroke-width', '2']], ['points', 'stroke', 'stroke-dasharray']);

/**
 * A list of SVG elements in a child position of plot()'s template, made with createElementNS and kept
 * between updates (an update sets only the attributes and text that changed). An svg`` template per
 * element cost its markup parsed and walked on a page's first plot (Lit's template compiler, which the
 * build runs on html`` templates, does not take svg``) and a template instance per element:
 * ~50 ms of CPU for the first plot at 4x CPU throttling. The elements sit between the part's markers,
 * so whatever clears the part clears them; the part holds nothing else (plot's template is fixed).
 */
class SvgList extends Directive {
  #drawn = [];  // [{ el, kind, values }], in document order
  constructor(info) {
    super(info);
    if (info.type !== PartType.CHILD) throw new Error('svgList() belongs in a child position');
  }
  render() { return noChange; }
  update(part, [items]) {
    const parent = part.startNode.parentNode, end = part.endNode, doc = parent.ownerDocument;
    const drawn = this.#drawn;
    for (let i = 0; i < items.length; i++) {
      const item = items[i], k = item[0];
      let d = drawn[i];
      if (d?.kind !== k) {
        const el = doc.createElementNS('http://www.w3.org/2000/svg', k.tag);
        for (const [name, value] of k.fixed) el.setAttribute(name, value);
        if (d) parent.replaceChild(el, d.el); else parent.insertBefore(el, end);
        d = drawn[i] = { el, kind: k, values: [] };
      }
      const n = k.names.length;
      for (let j = 0; j < n; j++) {
        const v = item[j + 1];
        if (d.values[j] !== v || d.values.length <= j) { d.el.setAttribute(k.names[j], v ?? ''); d.values[j] = v; }
      }
      if (k.text) {
        const t = item[n + 1], text = t == null ? '' : String(t);
        if (d.text !== text) { d.el.textContent = text; d.text = text; }
      }
    }
    for (let i = items.length; i < drawn.length; i++) drawn[i].el.remove();
    drawn.length = items.length;
    return noChange;
  }
}
const svgList = directive(SvgList);

/**
 * The x ticks of a plot whose inner width is `inner` px over [x0, x1] (axis units: log10 on a log axis):
 * `ticks` thinned (every k-th) or round numbers (ticks.js, fewer on a narrow plot), so that no labels run
 * together ("50010001500"): each label's estimated width (0.6 em per character) plus one em of space
 * must fit between neighbouring ticks. Returns the values inside the axis.
 */
export function fitTicksX({ x0, x1, log = false, inner, fontSize = 12, ticks }) {
  const fs = fontSize, fx = log ? Math.log10 : (v) => v;
  const inX = (v) => fx(v) >= x0 - 1e-9 && fx(v) <= x1 + 1e-9;
  const at = (v) => ((fx(v) - x0) / (x1 - x0)) * inner;
  const fits = (t) => {
    for (let i = 1; i < t.length; i++)
      if (at(t[i]) - at(t[i - 1]) < 0.3 * fs * (fmtTick(t[i]).length + fmtTick(t[i - 1]).length) + fs) return false;
    return true;
  };
  let out = [];
  if (ticks?.length) {
    const given = ticks.filter(inX);
    for (let k = 1; k < given.length; k++) { out = given.filter((_, i) => i % k === 0); if (out.length < 2 || fits(out)) return out; }
    if (given.length) return given.slice(0, 1);
  }
  for (let n = 6; n >= 2; n--) { out = niceTicks(x0, x1, n, log).filter(inX); if (fits(out)) return out; }
  return out.filter((_, i, a) => i === 0 || i === a.length - 1);
}

function fmtTick(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(0);
  return String(Number(v.toPrecision(4)));
}
