// A small SVG x–y plot (lines, dots, polygons) for the widgets' curves. Returns a Lit template.
//   plot({ series: [{ points: [[x, y], …], kind: 'line' | 'dots' | 'polygon', color, label, labels?, r?, rs? (a radius per dot) }],
//          xLabel, yLabel, width, height, logX, logY, xDomain?, yDomain?, xTicks?, title, equal?, fontSize? })
// `xTicks` (optional) are the x values to mark, e.g. the lengths a sweep measured (16, 32, 64 …): on a
// narrow plot every 2nd, 3rd … is kept so the labels fit; without it, round numbers (ticks.js).
// `fontSize` (px, default 12) sizes ticks, axis labels and point labels; the margins grow with it
// (slides pass ~16–18 so the axes read from the back of the room).
import { html, nothing } from 'lit';
import { node, placed } from './markup.js';
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
  // The SVG's repeated elements (grid lines, tick labels, the series) as node lists (markup.js): kept from
  // one update to the next by placed(), not an svg`` template each (the build's template compiler takes
  // html`` only, so each svg`` template was parsed and walked on a page's first plot, and every element
  // was a template instance). Attributes in the order an svg`` template wrote them: the fixed ones, then
  // the bound ones.
  const body = [];
  series.forEach((s, k) => {
    const color = s.color ?? SERIES_COLORS[k % SERIES_COLORS.length];
    const pts = s.points.filter(([x, y]) => Number.isFinite(fx(x)) && Number.isFinite(fy(y)));
    if (s.kind === 'polygon') body.push(node('polygon', POLYGON, ['0.15', '1.5', pts.map(([x, y]) => `${px(x)},${py(y)}`).join(' '), color, color]));
    else if (s.kind === 'dots') {
      pts.forEach(([x, y], i) => {
        body.push(node('circle', DOT, ['#fff', '1', px(x), py(y), s.rs?.[i] ?? s.r ?? 4, color]));
        if (s.labels) body.push(node('text', POINT_LABEL, ['600', px(x) + 7, py(y) - 6, fs, color, FONT], s.labels[i] ?? ''));
      });
    } else body.push(node('polyline', LINE, ['none', '2', pts.map(([x, y]) => `${px(x)},${py(y)}`).join(' '), color, s.dash ?? 'none']));
  });
  const tx = tickX.filter(inX), ty = tickY.filter(inY);
  const grid = [...ty.map((v) => node('line', GRID_Y, [m.l, m.l + W, py(v), py(v)])), ...tx.map((v) => node('line', GRID_X, [m.t, m.t + H, px(v), px(v)]))];
  const labelsX = tx.map((v) => node('text', TICK_X, ['middle', '#24292f', px(v), m.t + H + fs + 4, fs, FONT], fmtTick(v)));
  const labelsY = ty.map((v) => node('text', TICK_Y, ['end', 'central', '#24292f', m.l - 6, py(v), fs, FONT], fmtTick(v)));
  const legend = series.filter((s) => s.label).map((s, i) => {
    const k = series.indexOf(s), color = s.color ?? SERIES_COLORS[k % SERIES_COLORS.length];
    return html`<span class="legend-item"><span style="display:inline-block;width:12px;height:12px;background:${color};margin-right:4px;vertical-align:-1px"></span>${s.label}</span>`;
  });
  return html`<figure class="plot" style="margin:0;display:inline-block;vertical-align:top">
    ${title ? html`<figcaption style="font-weight:600">${title}</figcaption>` : nothing}
    <svg xmlns="http://www.w3.org/2000/svg" width=${width} height=${height} viewBox="0 0 ${width} ${height}" role="img" aria-label=${`${title}: ${yLabel} against ${xLabel}`}>
      <rect width=${width} height=${height} fill="#fff"></rect>
      <g stroke="#eaeef2">${placed(grid)}</g>
      <rect x=${m.l} y=${m.t} width=${W} height=${H} fill="none" stroke="#8c959f"></rect>
      ${placed(labelsX)}
      ${placed(labelsY)}
      <text x=${m.l + W / 2} y=${height - 6} font-size=${fs + 1} text-anchor="middle" font-family=${FONT} fill="#24292f">${xLabel}</text>
      <text transform=${`translate(${fs + 2},${m.t + H / 2}) rotate(-90)`} font-size=${fs + 1} text-anchor="middle" font-family=${FONT} fill="#24292f">${yLabel}</text>
      <svg x=${m.l} y=${m.t} width=${W} height=${H} viewBox="${m.l} ${m.t} ${W} ${H}" overflow="hidden">${placed(body)}</svg>
    </svg>
    ${legend.length ? html`<div class="legend" style="font-size:0.9em;display:flex;gap:12px;flex-wrap:wrap">${legend}</div>` : nothing}
  </figure>`;
}

// Attribute names of each kind of element (one array per kind: markup.js compares shapes by identity).
const GRID_Y = ['x1', 'x2', 'y1', 'y2'];
const GRID_X = ['y1', 'y2', 'x1', 'x2'];
const TICK_X = ['text-anchor', 'fill', 'x', 'y', 'font-size', 'font-family'];
const TICK_Y = ['text-anchor', 'dominant-baseline', 'fill', 'x', 'y', 'font-size', 'font-family'];
const POLYGON = ['fill-opacity', 'stroke-width', 'points', 'fill', 'stroke'];
const DOT = ['stroke', 'stroke-width', 'cx', 'cy', 'r', 'fill'];
const POINT_LABEL = ['font-weight', 'x', 'y', 'font-size', 'fill', 'font-family'];
const LINE = ['fill', 'stroke-width', 'points', 'stroke', 'stroke-dasharray'];

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
