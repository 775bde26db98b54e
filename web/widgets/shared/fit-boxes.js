// Measured boxes for the plot widgets' slide layout (convex, kernel regression, why-scale, cost, train).
//
// In slide layout a widget lays its parts out with CSS (a flex column as tall as `this.box`: formula,
// controls, legends take their natural height) and marks the regions a plot or a group of heatmaps
// must fill with `data-fit="name"`. Those regions are sized by the flex layout alone (flex-basis 0,
// min-size 0), never by what is drawn in them, so measuring them cannot loop. `boxes.get(name, guess)`
// returns a region's last non-zero { width, height } in CSS px; the widget re-renders when one changes
// (a slide shown after being hidden, a deck rescaled, a PDF export laying the slide out again).
// A hidden region (width or height 0) keeps its last size: a plot is never drawn from a zero width.
import { css } from 'lit';

export class FitBoxes {
  constructor(host) {
    this.host = host;
    this.sizes = new Map();
    this.observed = new Set();
    this.ro = null;
    host.addController(this);
  }

  /** The measured box of region `name`, or `guess` before it has been laid out. */
  get(name, guess) {
    return this.sizes.get(name) ?? guess;
  }

  hostUpdated() {
    if (typeof ResizeObserver === 'undefined') return;
    const now = new Set(this.host.renderRoot?.querySelectorAll?.('[data-fit]') ?? []);
    this.ro ??= new ResizeObserver(() => this.measure());
    for (const el of this.observed) if (!now.has(el)) this.ro.unobserve(el);
    for (const el of now) if (!this.observed.has(el)) this.ro.observe(el);
    this.observed = now;
  }

  hostDisconnected() {
    this.ro?.disconnect();
    this.ro = null;
    this.observed = new Set();
  }

  /** Reads every region's size; re-renders the host when one changed by more than a pixel. */
  measure() {
    let changed = false;
    for (const el of this.observed) {
      const width = el.clientWidth, height = el.clientHeight;
      if (!width || !height) continue;
      const old = this.sizes.get(el.dataset.fit);
      if (!old || Math.abs(old.width - width) > 1 || Math.abs(old.height - height) > 1) {
        this.sizes.set(el.dataset.fit, { width, height });
        changed = true;
      }
    }
    if (changed) this.host.requestUpdate();
  }
}

/**
 * A data range widened so that `padLo` / `padHi` pixels stay free at its ends when `lo … hi` is drawn
 * over `size` pixels (point labels and tick labels at the edge are not cut). Works in axis units (pass
 * log10 values for a log axis).
 */
export function padRange(lo, hi, size, padLo, padHi) {
  const free = Math.min(0.45, (padLo + padHi) / Math.max(1, size));
  const span = (hi - lo || 1) / (1 - free);
  return [lo - (span * padLo) / Math.max(1, size), hi + (span * padHi) / Math.max(1, size)];
}

/** The inner drawing width / height of shared/plot.js for a figure of width × height at `fontSize`. */
export function plotInner(width, height, fontSize) {
  return { width: width - (32 + 2 * fontSize) - 12, height: height - Math.round(fontSize / 2 + 6) - (18 + 2 * fontSize) };
}

/**
 * An axis label with maths for plot(): `tpl` (an svg`…` template of <tspan>s) is drawn in the SVG,
 * `text` is what the figure's aria-label reads (plot() puts labels into a string there).
 */
export function mathLabel(tpl, text) {
  return Object.assign(tpl, { toString: () => text });
}

/**
 * Slide-layout CSS the four plot widgets share (a css`` fragment to add to their styles):
 * a flex column as tall as the box; `.slide-body` takes what is left, its regions are measured.
 */
export const SLIDE_CSS = css`
  .slide-frame { display: flex; flex-direction: column; min-height: 0; box-sizing: border-box; }
  .slide-frame > * { flex: none; }
  .slide-frame > .formula { margin: 0 0 4px; }
  .slide-frame > .controls { margin: 0 0 6px; gap: 6px 12px; font-size: 16px; }
  .slide-frame > .controls button { padding: 1px 8px; }
  .slide-frame > .slide-body { flex: 1 1 0; min-height: 0; min-width: 0; display: flex; gap: 16px; }
  .slide-frame > .status { margin: 4px 0 0; font-size: 16px; line-height: 1.3; }
  .slide-frame p.notice.status { padding: 2px 8px; }
  .plot-panel { flex: none; display: flex; flex-direction: column; min-height: 0; }
  .plot-panel.grow { flex: 1 1 0; min-width: 0; }
  .plotbox { flex: 1 1 0; min-height: 0; min-width: 0; }
  .plotbox figure, .plotbox svg { display: block; }
  .legend-line { font-size: 16px; line-height: 1.3; color: #24292f; display: flex; flex-wrap: wrap; gap: 2px 14px; align-items: center; }
  .legend-line .swatch { display: inline-block; width: 14px; height: 14px; margin-right: 4px; vertical-align: -2px; }
  .legend-line .line-swatch { display: inline-block; width: 18px; height: 0; border-top: 3px solid; margin-right: 4px; vertical-align: 4px; }
  .legend-line attn-tex { display: inline-block; }
  .hull-swatch { display: inline-block; width: 14px; height: 14px; background: rgba(140, 149, 159, 0.3); border: 1px solid #8c959f; vertical-align: -2px; }
  .mats { flex: 1 1 0; min-width: 0; min-height: 0; display: flex; flex-direction: column; gap: 10px; }
  .mat-row { display: flex; gap: 12px; align-items: flex-start; }
`;
