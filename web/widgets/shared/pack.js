// Slide layout for widgets that show several heatmaps at once (<attn-multihead>, <attn-cross>):
// heatmaps in rows, all cells as large as the box allows, choosing among a few arrangements
// (heads as rows or as columns, one row or several) the one that gives the largest cells.
// Browser only (it measures figures with the heatmap's own geometry).
import { heatmapGeometry, heatmapSize } from './heatmap.js';

/** Width (px) an operator between two maps takes ("·", "="), besides the flex gaps around it. */
export const OP_WIDTH = 22;

/** Base cell → the cell of a panel drawn at `weight` × the base (context maps are smaller). */
export const cellOf = (panel, base) => Math.max(4, Math.floor(base * (panel.weight ?? 1)));

/** The geometry <attn-heatmap> will use for `panel` drawn with square cells of `cell` px. */
export const geometryOf = (panel, cell) => heatmapGeometry({ ...panel, compact: true, cell });

/**
 * Rows of heatmaps in `width` × `height`: the largest base cell (panels scale it by `weight`) for which
 * every row is no wider than the box and the rows, stacked, no taller.
 *   rows[i] = { panels: [heatmap options + weight + below (px of extra height under it)], ops?: [op before
 *   panel j, '' for none] }
 * Returns { cell, fits, sizes }: sizes[i][j] = { fitWidth, fitHeight, cell } for panel j of row i.
 */
export function packGrid(rows, width, height, { gap = 12, rowGap = 10, maxCell = 110, minCell = 6 } = {}) {
  const size = (p, c) => {
    const s = heatmapSize({ ...p, compact: true }, cellOf(p, c));
    return { width: s.width + 3, height: s.height + 3 };
  };
  const rowWidth = (r, c) => {
    const ops = (r.ops ?? []).filter(Boolean).length;
    const items = r.panels.length + ops;
    return r.panels.reduce((a, p) => a + size(p, c).width, 0) + ops * OP_WIDTH + gap * (items - 1);
  };
  const rowHeight = (r, c) => Math.max(...r.panels.map((p) => size(p, c).height + (p.below ?? 0)));
  const fits = (c) => rows.every((r) => rowWidth(r, c) <= width)
    && rows.reduce((a, r) => a + rowHeight(r, c), 0) + rowGap * (rows.length - 1) <= height;
  let lo = minCell, hi = maxCell;
  if (!fits(lo)) hi = lo;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid - 1;
  }
  return {
    cell: lo, fits: fits(lo),
    sizes: rows.map((r) => r.panels.map((p) => { const s = size(p, lo); return { fitWidth: s.width, fitHeight: s.height, cell: cellOf(p, lo) }; })),
  };
}

/** `list` cut into rows of `n` (the last may be shorter). */
export const chunks = (list, n) => Array.from({ length: Math.ceil(list.length / n) }, (_, i) => list.slice(i * n, (i + 1) * n));

/**
 * Colour legends: with `shared`, consecutive panels of a row that show the same kind of quantity
 * (the same `group`) share one colour range and only the last of them draws the legend (which then
 * stands for all of them); otherwise every panel has its own legend (and, unless `vmin`/`vmax` are
 * fixed, its own range). Returns new rows.
 */
export function withLegends(rows, shared) {
  return rows.map((r) => {
    const panels = r.panels.map((p) => ({ ...p, legend: p.legend !== false }));
    if (shared) {
      for (let j = 0; j < panels.length;) {
        let k = j;
        while (k + 1 < panels.length && panels[k + 1].group && panels[k + 1].group === panels[j].group) k++;
        if (k > j) {
          const run = panels.slice(j, k + 1);
          if (!run.every((p) => Number.isFinite(p.vmin) && Number.isFinite(p.vmax))) {
            let lo = Infinity, hi = -Infinity;
            for (const p of run) for (const v of p.values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
            const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
            const range = run[0].colormap === 'sequential' ? (hi > lo ? [lo, hi] : [lo - 1, lo + 1]) : [-m, m];
            for (const p of run) Object.assign(p, { vmin: range[0], vmax: range[1] });
          }
          for (let i = j; i < k; i++) panels[i].legend = false;
        }
        j = k + 1;
      }
    }
    return { ...r, panels };
  });
}

const hasSharedRun = (rows) => rows.some((r) => r.panels.some((p, j) => j > 0 && p.group && p.group === r.panels[j - 1].group));

/**
 * Picks what to draw. `levels` are the contents in order of preference (richest first); each is a list
 * of arrangements (rows as for packGrid). Within a level the arrangement (and legend mode) with the
 * largest cells wins, per-map legends unless shared ones give ≥ 15 % larger cells; a level is taken
 * when its main cells (weight 1) reach `enough` px, else the next; if none does, the largest cells.
 */
export function choose(levels, width, height, { enough = 44, ...opts } = {}) {
  let best = null;
  for (const arrangements of levels) {
    let top = null;
    for (const rows0 of arrangements) {
      for (const shared of hasSharedRun(rows0) ? [false, true] : [false]) {
        const rows = withLegends(rows0, shared);
        const fit = packGrid(rows, width, height, opts);
        const score = (fit.fits ? fit.cell : fit.cell / 4) * (shared ? 0.87 : 1);
        if (!top || score > top.score) top = { rows, fit, score };
      }
    }
    if (top && top.fit.fits && top.fit.cell >= enough) return top;
    if (top && (!best || top.score > best.score)) best = top;
  }
  return best;
}

/**
 * The fewest decimals (≤ 4) that print every value of an input matrix exactly: the preset's weights
 * read 0.1, 0.2, … (not 0.1000) and X's 0 and 1 need none.
 */
export function inputDigits(values) {
  for (let d = 0; d < 4; d++) if (Array.from(values).every((v) => Math.abs(v * 10 ** d - Math.round(v * 10 ** d)) < 1e-4 * 10 ** d)) return d;
  return 4;
}
