// The cost widget's timing loop, shared by its Web Worker (cost.worker.js) and the page's thread (a
// runtime without workers): warm up, then time each T for at least minTimeMs in slices of sliceMs,
// calling `pause()` between slices (a yield to the page, or to the worker's messages).
import { uniformMatrix } from '../shared/rng.js';

/** Does this build offer `intermediates: false` (the output-only, streaming mode)? */
export function hasOutputOnly(lab) {
  try {
    const w = new Float32Array(4);
    lab.multiHeadAttention({ x: new Float32Array(2), tq: 1, dModel: 2, heads: 1, wq: w, wk: w, wv: w, wo: w, intermediates: false });
    return true;
  } catch {
    return false;
  }
}

/**
 * Times lab.multiHeadAttention at every T of `Ts` (d_model `dModel`, `heads` heads): onResult({ T, ms,
 * calls }) after each. Stops early when stopped() turns true.
 */
export async function timeLengths(lab, { dModel: D, heads: H, Ts, outputOnly, warmupMs, minTimeMs, sliceMs = 20 }, { stopped, onResult, pause }) {
  const f32 = (seed, n) => Float32Array.from(uniformMatrix(seed, n));  // typed arrays: no per-call conversion
  const w = { wq: f32(1, D * D), wk: f32(2, D * D), wv: f32(3, D * D), wo: f32(4, D * D) };
  const opt = outputOnly ? { intermediates: false } : {};
  const warm = { x: f32(5, 64 * D), tq: 64, dModel: D, heads: H, ...w, ...opt };
  for (let spent = 0; spent < warmupMs;) {
    await pause();
    if (stopped()) return;
    const t0 = performance.now();
    while (performance.now() - t0 < sliceMs) lab.multiHeadAttention(warm);
    spent += performance.now() - t0;
  }
  for (const T of Ts) {
    const args = { x: f32(5, T * D), tq: T, dModel: D, heads: H, ...w, ...opt };
    await pause();
    if (stopped()) return;
    lab.multiHeadAttention(args);  // warm-up: memory growth, first touch
    let calls = 0, spent = 0;
    while (spent < minTimeMs || calls < 3) {
      await pause();
      if (stopped()) return;
      const t0 = performance.now();
      let inSlice = 0;
      do {
        lab.multiHeadAttention(args);
        calls++;
        inSlice = performance.now() - t0;
      } while (inSlice < sliceMs && spent + inSlice < minTimeMs);
      spent += inSlice;
    }
    onResult({ T, ms: spent / calls, calls });
  }
}
