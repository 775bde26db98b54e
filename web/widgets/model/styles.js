// <attn-model>'s styles: the widgets' shared ones and its own for the source bar, the token strip, the
// grid of maps with their scores, the next-token table and the KV cache; in slide layout, larger type.
import { css } from 'lit';
import { widgetStyles } from '../shared/styles.js';

export const modelStyles = [widgetStyles, css`
  .source { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
  .drop { border: 2px dashed #8c959f; border-radius: 8px; padding: 6px 10px; color: #57606a; max-width: 100%; box-sizing: border-box; }
  .drop input { max-width: 100%; }
  .drop.over { border-color: #0969da; background: #ddf4ff; }
  .shipped { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin: 6px 0; }
  .shipped button.on { background: #0969da; color: #fff; border-color: #0969da; }
  .shipped .note { color: #57606a; font-size: 0.88em; }
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
  .cell button.map { display: flex; flex-direction: column; align-items: center; gap: 2px; padding: 2px; margin: 0; border: 0;
    background: none; font: inherit; color: inherit; cursor: pointer; }
  .cell button.map:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
  .cell .map-name { font-weight: 600; line-height: 1.2; }
  .cell canvas.thumb { display: block; image-rendering: pixelated; border: 1px solid #d0d7de; }
  .cell.selected canvas.thumb { outline: 3px solid #0969da; outline-offset: 1px; }
  .cell.off canvas.thumb { filter: grayscale(1); opacity: 0.55; }
  .cell.off .map-name { text-decoration: line-through; color: #cf222e; }
  .click-mode { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-bottom: 4px; }
  .click-mode button.on { background: #0969da; color: #fff; border-color: #0969da; }
  .cell .about { display: flex; flex-direction: column; align-items: center; }
  .cell.besides { flex-direction: row; align-items: flex-start; gap: 6px; }
  .cell.besides .about { align-items: flex-start; }
  .cell.besides .sc { display: flex; flex-direction: column; }
  .cell.named canvas.thumb { box-shadow: 0 0 0 3px #0a3069; }
  .cell .sc { font-variant-numeric: tabular-nums; color: #24292f; display: flex; flex-wrap: wrap; justify-content: center; column-gap: 4px; }
  .cell .sc .k { white-space: nowrap; }
  .cell .role { font-weight: 600; color: #0a3069; background: #ddf4ff; border-radius: 4px; padding: 0 3px; white-space: nowrap; }
  .cell button { font-size: 0.95em; padding: 0 6px; }
  .cell button.ablate { min-height: 24px; min-width: 32px; }  /* a 24 px touch target */
  .cell.off button.ablate { background: #cf222e; color: #fff; border-color: #cf222e; }
  table.dist td.tok { text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; }
  table.dist .bar { display: inline-block; height: 0.7em; background: #0072b2; vertical-align: middle; margin-right: 4px; }
  table.dist .bar.off { background: #d55e00; }
  .up { color: #1a7f37; } .down { color: #cf222e; }
  .cache { display: flex; flex-wrap: wrap; gap: 4px; }
  .cache .kv { display: flex; flex-direction: column; align-items: center; min-width: 2.2em; padding: 1px 4px; border-radius: 4px;
    background: #d0d7de; border: 2px solid #8c959f; font-variant-numeric: tabular-nums; }
  .cache .kv .tok { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; }
  .cache .kv .idx { font-size: 0.8em; color: #424a53; }  /* 6.2:1 on a cached row's grey (#57606a was 4.4, under 4.5) */
  .cache .kv.made { background: #ffe8d6; border-color: #f0a572; }
  .cache .kv.new { background: #d55e00; border-color: #d55e00; color: #fff; font-weight: 600; }
  .cache .kv.new .idx { color: #fff; }
  .generated { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; }
  .generated mark { background: #ffd8b5; }
  .scores-legend { font-size: 0.88em; color: #57606a; }
  .busy { color: #57606a; font-style: italic; }
  .error.missing { background: #fff8c5; border-color: #d4a72c; }
  .wrap.slide .error { margin: 0; padding: 2px 8px; font-size: 15px; }
  .strip.pick li { border: 0; padding: 0; background: none; }
  .strip.pick button { font: inherit; border: 1px solid #d0d7de; border-radius: 4px; padding: 0 5px; background: #f6f8fa; cursor: pointer;
    white-space: pre; min-height: 24px; }
  .strip.pick button.at { background: #0969da; color: #fff; border-color: #0969da; }
  .strip.pick button.at small { color: #fff; }
  .lens-dist { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
  .lens-dist > * { min-width: 0; }
  table.lens-table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
  table.lens-table th[scope=row] { text-align: right; white-space: nowrap; font-weight: 600; color: #57606a; padding-right: 8px; }
  /* A cell's shade is its probability on a fixed 0-1 scale (white 0 -> blue 1). */
  table.lens-table td.lt { background: color-mix(in srgb, #0072b2 calc(var(--p) * 70%), #fff); padding: 1px 6px; white-space: nowrap;
    border: 1px solid #fff; }
  table.lens-table td.lt .tok { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; }
  table.lens-table tr.final th, table.lens-table tr.final td { border-top: 2px solid #24292f; font-weight: 600; }
  table.lens-table tr.cut td { color: #57606a; font-style: italic; }
  /* A phone: each cell's token above its probability, so the top 5 fit 390 px without scrolling sideways. */
  @media (max-width: 480px) {
    .wrap:not(.slide) table.lens-table td.lt { padding: 1px 2px; text-align: center; }
    .wrap:not(.slide) table.lens-table td.lt .tok, .wrap:not(.slide) table.lens-table td.lt .p { display: block; }
    .wrap:not(.slide) table.lens-table th { white-space: normal; padding: 2px 4px; }
  }
  .answers { display: flex; gap: 10px; flex-wrap: wrap; margin: 6px 0; }
  .answer { display: flex; flex-direction: column; align-items: center; border: 2px solid #0072b2; border-radius: 6px; padding: 2px 12px; }
  .answer.off { border-color: #d55e00; }
  .answer.changed { background: #fff1e5; }
  .answer .what { font-size: 0.85em; color: #57606a; }
  .answer .tok { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; font-size: 1.3em; font-weight: 600; }
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
  .wrap.slide .click-mode { font-size: 16px; }
  .wrap.slide table.dist { font-size: 20px; }
  .wrap.slide .cache .kv, .wrap.slide .cache .kv .idx { font-size: 18px; }
  .wrap.slide .cache-note { font-size: 16px; }
  .wrap.slide .hint, .wrap.slide .scores-legend { font-size: 15px; }
  .wrap.slide .slide-hint { margin: 0; }
  .wrap.slide table.lens-table { font-size: 18px; }
  .wrap.slide .lens-dist { flex-wrap: nowrap; gap: 20px; }
  .wrap.slide .lens-dist > .lens { flex: none; }
  .wrap.slide .lens .note, .wrap.slide .dist-box > .note:first-child { max-width: 30em; }
  .wrap.slide .answer .what { font-size: 16px; }
  .wrap.slide .answer .tok { font-size: 24px; }
  .wrap.slide .answer .loss-n { font-size: 18px; }
  .wrap.slide .lens .note, .wrap.slide .dist-box .note { font-size: 16px; margin: 2px 0; }
`];
