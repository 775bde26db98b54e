// <attn-model>'s styles: the widgets' shared ones and its own for the source bar, the token strip, the
// grid of maps with their scores, the next-token table and the KV cache; in slide layout, larger type.
import { css } from 'lit';
import { widgetStyles } from '../shared/styles.js';

export const modelStyles = [widgetStyles, css`
  .source { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
  .drop { border: 2px dashed #8c959f; border-radius: 8px; padding: 6px 10px; color: #57606a; max-width: 100%; box-sizing: border-box; }
  .drop input { max-width: 100%; }
  .drop.over { border-color: #0969da; background: #ddf4ff; }
  .hint { color: #57606a; font-size: 0.88em; max-width: 60em; margin: 4px 0; }
  .loading-line { display: flex; gap: 10px; align-items: center; }
  progress { width: 14em; }
  .strip { display: flex; flex-wrap: wrap; gap: 3px; margin: 6px 0; padding: 0; list-style: none; }
  .strip li { border: 1px solid #d0d7de; border-radius: 4px; padding: 0 5px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
    white-space: pre; background: #f6f8fa; font-variant-numeric: tabular-nums; }
  .strip li small { color: #57606a; margin-left: 3px; }
  .grid { display: flex; flex-direction: column; gap: 4px; }
  .layer { display: flex; gap: 6px; align-items: flex-start; }
  .layer-name { font-weight: 600; color: #57606a; min-width: 2.2em; align-self: center; }
  .cell { display: flex; flex-direction: column; align-items: center; font-size: 0.75em; line-height: 1.2; min-width: 0; }
  .cell.selected attn-heatmap { outline: 3px solid #0969da; outline-offset: 1px; }
  .cell.off attn-heatmap { filter: grayscale(1); opacity: 0.55; }
  .cell .about { display: flex; flex-direction: column; align-items: center; }
  .cell.besides { flex-direction: row; align-items: flex-start; gap: 6px; }
  .cell.besides .about { align-items: flex-start; }
  .cell.besides .sc { display: flex; flex-direction: column; }
  .cell.named attn-heatmap { box-shadow: 0 0 0 3px #0a3069; }
  .cell .sc { font-variant-numeric: tabular-nums; color: #24292f; display: flex; flex-wrap: wrap; justify-content: center; column-gap: 4px; }
  .cell .sc .k { white-space: nowrap; }
  .cell .role { font-weight: 600; color: #0a3069; background: #ddf4ff; border-radius: 4px; padding: 0 3px; white-space: nowrap; }
  .cell button { font-size: 0.95em; padding: 0 6px; }
  .cell.off button.ablate { background: #cf222e; color: #fff; border-color: #cf222e; }
  table.dist td.tok { text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; }
  table.dist .bar { display: inline-block; height: 0.7em; background: #0072b2; vertical-align: middle; margin-right: 4px; }
  table.dist .bar.off { background: #d55e00; }
  .up { color: #1a7f37; } .down { color: #cf222e; }
  .cache { display: flex; flex-direction: column; gap: 2px; max-height: 22em; overflow-y: auto; }
  .cache .kv { display: flex; gap: 8px; align-items: center; font-variant-numeric: tabular-nums; }
  .cache .kv .idx { min-width: 2.5em; text-align: right; }
  .cache .kv span.tok { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; min-width: 6em; }
  .cache .kv .row { display: inline-block; height: 0.9em; width: 8em; border-radius: 3px; background: #8c959f; }
  .cache .kv.new .row { background: #d55e00; }
  .cache .kv.new { font-weight: 600; }
  .generated { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; }
  .generated mark { background: #ffd8b5; }
  .scores-legend { font-size: 0.88em; color: #57606a; }
  /* Slide layout: the current stage fills the box below the head; numbers ≥ 18 px, text ≥ 14 px. */
  .slide-head { display: flex; flex-direction: column; gap: 4px; }
  .slide-head .topline { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; }
  .slide-head .controls { margin: 0; gap: 4px 12px; font-size: 16px; }
  .slide-main { overflow: hidden; }
  .wrap.slide .strip li { font-size: 22px; }
  .wrap.slide .strip.big { gap: 8px; }
  .wrap.slide .strip.big li { font-size: 34px; display: flex; flex-direction: column; align-items: center; padding: 2px 8px; }
  .wrap.slide .strip.big small { font-size: 18px; margin: 0; }
  .wrap.slide .cell { font-size: 18px; }
  .wrap.slide table.dist { font-size: 20px; }
  .wrap.slide .cache .kv { font-size: 18px; }
  .wrap.slide .hint, .wrap.slide .scores-legend { font-size: 15px; }
`];
