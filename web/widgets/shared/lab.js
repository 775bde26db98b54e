// One WebAssembly module per page, shared by every widget: a lazy module-level promise (not a DOM
// global). The first widget that needs the core starts loading it; the others wait for the same one.
import { createAttnLab, supportsWasmSimd as probeSimd } from '../../api/index.js';

let labPromise = null;

/** The page's attnlab instance (created on first use). Rejects without WASM SIMD. */
export function getLab() {
  labPromise ??= createAttnLab();
  return labPromise;
}

let simd = null;
/** WebAssembly SIMD is there (asked once per page: the page and each widget ask before the first numbers). */
export function supportsWasmSimd() {
  simd ??= probeSimd();
  return simd;
}

/**
 * out [rows·cols] = x [rows·inner] · w [inner·cols], computed by the core. weightedSum computes
 * weights·V for any real matrices, so it is also the lecture's projection Q = X·W_Q.
 */
export function project(lab, x, w, rows, inner, cols) {
  return lab.weightedSum({ weights: x, v: w, tq: rows, tk: inner, dv: cols });
}
