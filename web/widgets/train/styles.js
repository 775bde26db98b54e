// <attn-train>'s styles: the widgets' shared ones, the slide frame's (fit-boxes.js), and its own for the
// page layout (controls, plots, the grid of maps, the predictions table, the names samples) and the
// slide layout (the head line, the caption, the panels).
import { css, unsafeCSS } from 'lit';
import { viridis, css as rgb } from '../shared/colormap.js';
import { widgetStyles } from '../shared/styles.js';
import { SLIDE_CSS } from '../shared/fit-boxes.js';

/** The sequential colour map as a CSS gradient (a legend drawn once for a grid of maps). */
const RAMP = Array.from({ length: 11 }, (_, i) => rgb(viridis(i / 10))).join(', ');

export const trainStyles = [widgetStyles, css`
    ${SLIDE_CSS}
    /* A long preset name must not widen a phone's page: the picker shrinks to its line. */
    .controls label:has(select) { max-width: 100%; min-width: 0; }
    .controls select { max-width: 100%; min-width: 0; text-overflow: ellipsis; }
    .plots { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: flex-start; }
    .plots .plot-panel { max-width: 100%; }
    .grid { display: flex; flex-direction: column; gap: 6px; }
    .layer { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: flex-start; }
    .layer-name { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: 600; color: #57606a; align-self: center; }
    attn-heatmap.off { filter: grayscale(1); }  /* greyed out, its caption and buttons still legible (opacity failed WCAG contrast) */
    /* Their own paint layers: what changes as the model trains (curves, maps, status) repaints apart. */
    .plots, .grid, .controls, .ablation { isolation: isolate; }
    .grid.stale { opacity: 0.45; }  /* the previous source's maps while the new ones are computed */
    attn-heatmap.focus { outline: 3px solid #d1242f; outline-offset: 2px; border-radius: 2px; }
    .status { font-variant-numeric: tabular-nums; }
    progress { width: 10em; }
    .scrub input[type='range'] { width: min(28em, 60vw); }
    .scrub output { font-variant-numeric: tabular-nums; }
    .jump button[aria-pressed='true'] { background: #0969da; color: #fff; border-color: #0969da; }
    .jump button.none[aria-pressed='true'] { background: #fff; color: #24292f; border: 1px dashed #57606a; }
    .source button[aria-pressed='true'] { background: #0969da; color: #fff; border-color: #0969da; }
    table.preds { border-collapse: collapse; font-variant-numeric: tabular-nums; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
    table.preds :is(th, td) { border: 1px solid #d0d7de; padding: 1px 5px; text-align: center; }
    table.preds th[scope='row'] { text-align: left; font-family: system-ui, sans-serif; font-weight: 600; white-space: nowrap; }
    td.right { background: #dafbe1; }
    td.wrong { background: #ffebe9; }
    .samples { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
    .samples li { margin: 2px 0; }
    .samples li.at { background: #fff8c5; }
    .sample-now { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
    .legend-line .line-swatch.thick { border-top-width: 5px; }
    .empty { color: #57606a; font-style: italic; }
    /* slide layout */
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .topline { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; }
    .slide-head .stagestrip { margin: 0; }
    .stagestrip li.none { border-style: dashed; }  /* the stage's head is not there: not lit */
    .role-note { color: #57606a; }
    .notice { margin: 4px 0; padding: 2px 8px; background: #fff8c5; border-left: 3px solid #d4a72c; }
    .slide-head .controls { margin: 0; gap: 4px 10px; font-size: 16px; }
    .slide-head .controls button { padding: 1px 8px; white-space: nowrap; }
    .slide-head .controls label { flex-wrap: nowrap; }
    .slide-head .scrub input[type='range'] { width: 9em; }
    .slide-head .caption { font-size: 18px; line-height: 1.3; margin: 0; font-variant-numeric: tabular-nums; }
    .slide-head .caption.whole-items > span { white-space: nowrap; }
    .caption .em { background: #fff8c5; box-shadow: 0 0 0 2px #d4a72c inset; border-radius: 4px; padding: 0 4px; }
    .slide-frame .slide-body { margin-top: 6px; }
    .slide-body.column { flex-direction: column; gap: 6px; }
    .panel { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
    .panel.maps-panel { flex: 1 1 0; overflow: visible; }
    .panel.em .plotbox { box-shadow: 0 0 0 2px #d4a72c; border-radius: 4px; }
    .maps { display: flex; flex-direction: column; gap: 4px; align-items: flex-start; }
    .maps .mrow { display: flex; gap: 8px; align-items: flex-start; }
    /* A grid too wide for its column even at the smallest cells: the maps (colours only) shrink together. */
    .maps.grid.shrink, .maps.grid.shrink .mrow { width: 100%; }
    .maps.grid.shrink attn-heatmap { flex: 1 1 0; min-width: 0; }
    .grid-legend .ramp { display: inline-block; width: 80px; height: 12px; margin-right: 6px; vertical-align: -1px; border: 1px solid #8c959f;
      background: linear-gradient(to right, ${unsafeCSS(RAMP)}); }
    .slide-frame p.error { margin: 4px 0 0; font-size: 16px; }
    /* A run or replay that paused itself at a stage boundary: why, and how to go on. */
    .boundary { margin: 2px 0; padding: 1px 8px; background: #ddf4ff; border-left: 3px solid #0969da; }
    .slide-head .boundary { font-size: 16px; }
    input.stage-pauses { width: 24px; height: 24px; margin: 0 4px 0 0; vertical-align: middle; }
    .predict-slide .slide-head .predict { gap: 2px; }
    .predict-slide .slide-head .predict .ask { font-size: 18px; }
    /* names slide: the samples of the snapshot shown large, the earlier ones smaller above */
    .names-panel { flex: 1 1 0; gap: 8px; overflow: hidden; }
    .names-panel p { margin: 0; }
    .names-panel .names-title { font-size: 18px; font-weight: 600; }
    .names-panel .at { font-size: 18px; color: #57606a; font-variant-numeric: tabular-nums; white-space: nowrap; margin-right: 10px; }
    .names-before { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
    .names-before .names { font-size: 16px; color: #57606a; font-family: ui-monospace, monospace; }
    .names-now { border-left: 4px solid #0969da; padding: 4px 0 4px 10px; background: #f6f8fa; }
    .names-now .at.now { font-size: 20px; color: #1f2328; font-weight: 600; }
    .names-now .names { font-size: 28px; line-height: 1.3; font-weight: 600; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
    .names-before .names { overflow-wrap: anywhere; }
    .caption .shipped { color: #57606a; }
  `];
