// Styles every widget shares: readable on a projector (large type, strong contrast), a visible
// focus ring on every control, and a wrapping layout for matrices.
import { css } from 'lit';

export const widgetStyles = css`
  :host { display: block; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 16px;
    color: #1b1f24; line-height: 1.4; }
  .wrap { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 16px; }
  @media (max-width: 640px) { .wrap { padding: 10px 8px; } }
  /* A widget not drawn yet on a page (lazy.js): as tall as the page says it will be, so the page does
     not jump when it is drawn; never the anchor that keeps the reader's place while widgets above draw. */
  .wrap.placeholder { box-sizing: border-box; min-height: var(--attn-placeholder-height, 0px); overflow-anchor: none; }
  /* A widget's first draw on a page not over yet: drawn in parts (AttnWidget._partial) or waiting for data
     of its own (AttnWidget.firstDrawPending). As tall as the whole will be until the rest is drawn. */
  .wrap.partial { box-sizing: border-box; min-height: var(--attn-placeholder-height, 0px); overflow-anchor: none; }
  h3 { font-size: 1.05em; margin: 0.6em 0 0.3em; }
  .controls { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 4px 0 10px; }
  .controls label { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 6px; max-width: 100%; }
  .controls label sub { align-self: flex-end; margin-left: -6px; font-size: 0.8em; }  /* d<sub>k</sub> inside a flex label */
  .row { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: flex-start; }
  .stagebar { gap: 4px; }
  .stagebar button[aria-pressed='true'] { background: #0969da; color: #fff; border-color: #0969da; }
  .stage { border-top: 1px solid #eaeef2; padding-top: 6px; margin-top: 6px; }
  .formula { margin: 4px 0 8px; font-size: 1.05em; overflow-x: auto; }
  .note { color: #57606a; font-size: 0.92em; margin: 4px 0; max-width: 60em; }
  .notice { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 6px; }
  .failure, .error { background: #ffebe9; border: 1px solid #cf222e; padding: 6px 10px; border-radius: 6px; }
  /* A field's inline message (field.js): a refused value (error) or what was done to an accepted one (note). */
  .field-msg { font-size: 0.88em; padding: 1px 6px; border-radius: 4px; max-width: 28em; }
  .field-msg.refused { color: #a40e26; background: #ffebe9; border: 1px solid #cf222e; }
  .field-msg.note { color: #3d2e00; background: #fff8c5; border: 1px solid #d4a72c; }
  input[aria-invalid='true'] { outline: 2px solid #cf222e; outline-offset: 1px; }
  button, select, input { font: inherit; }
  select { min-height: 24px; box-sizing: border-box; }  /* a 24 px touch target (WCAG 2.2 target size) */
  /* The controls a browser draws smaller than 24 px (a range 16 px tall, a checkbox 13 px): 24 px too. */
  input[type='range'] { min-height: 24px; }
  input[type='checkbox'] { width: 24px; height: 24px; vertical-align: middle; }
  summary { min-height: 24px; }
  button { padding: 3px 10px; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; cursor: pointer; }
  button:hover { background: #eaeef2; }
  button[aria-disabled='true'] { color: #57606a; background: #eaeef2; cursor: progress; }
  input[type='number'] { width: 5.5em; }
  input[type='text'] { min-width: min(12em, 100%); width: 22em; max-width: 100%; box-sizing: border-box; }
  /* A table wider than a phone's column scrolls inside its own box (focusable, so keys scroll it too). */
  .scrollx { max-width: 100%; overflow-x: auto; }
  :is(button, select, input, [tabindex]):focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
  table.plain { border-collapse: collapse; font-variant-numeric: tabular-nums; }
  table.plain :is(th, td) { border: 1px solid #d0d7de; padding: 2px 8px; text-align: right; }
  /* Slide layout: no card, larger type, the current stage in place (see fit.js). */
  :host([layout='slide']), .wrap.slide { font-size: 18px; }
  /* Its content never widens the slide's column (a grid or flex track would grow to fit it and push
     the widget off the slide): the widget takes the column's width and lays itself out inside it. */
  :host([data-slide]) { display: block; width: 100%; min-width: 0; contain: inline-size; }
  .wrap.slide { border: none; padding: 0; background: transparent; border-radius: 0; }
  .wrap.slide .formula { overflow: visible; margin: 2px 0 6px; }
  .wrap.slide .note { font-size: 16px; }
  .stagestrip { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; margin: 0 0 6px; font-size: 15px; }
  .stagestrip li { padding: 0 8px; border-radius: 999px; border: 1px solid #d0d7de; color: #57606a; white-space: nowrap; }
  .stagestrip li.done { background: #eaeef2; color: #24292f; }
  .stagestrip li.current { background: #0969da; border-color: #0969da; color: #fff; font-weight: 600; }
  .formula.current, attn-tex.current { background: #fff8c5; border-radius: 6px; box-shadow: 0 0 0 2px #d4a72c inset; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

// A slide's row of matrices with operators between them (X × W = …: <attn-multihead>, <attn-batched>):
// the panels, the "×" / "=" operators, a separator bar, and the coloured group labels over a panel's
// columns (head 1, head 2 …; the label size is each widget's own).
export const matrixRowStyles = css`
  .slide-main { display: flex; flex-direction: column; align-items: center; gap: 10px; margin-top: 8px; }
  .prow { display: flex; gap: 12px; align-items: flex-start; justify-content: center; }
  .prow .op { align-self: center; width: 22px; text-align: center; font-size: 28px; line-height: 1; color: #57606a; }
  .prow .op.sep { align-self: stretch; width: 22px; background: linear-gradient(#d0d7de, #d0d7de) center / 2px 100% no-repeat; font-size: 0; }
  .panel { display: flex; flex-direction: column; }
  .groups { position: relative; height: 24px; line-height: 1; }
  .groups span { position: absolute; top: 0; border-top: 4px solid; padding-top: 3px; text-align: center; white-space: nowrap; overflow: hidden; }
`;
