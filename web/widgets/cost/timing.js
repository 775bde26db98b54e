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
 * The call `op` times, at length T: 'multihead' — lab.multiHeadAttention (d_model D, H heads, output
 * only when `outputOnly`); 'attention' — the attention core lab.attention, softmax(QKᵀ/√D)·V with Q, K,
 * V of T × D (one head, no projections). Returns a function of no arguments.
 */
export function callFor(lab, { op = 'multihead', dModel: D, heads: H, outputOnly }, T) {
  const f32 = (seed, n) => Float32Array.from(uniformMatrix(seed, n));  // typed arrays: no per-call conversion
  if (op === 'attention') {
    const args = { q: f32(1, T * D), k: f32(2, T * D), v: f32(3, T * D), tq: T, tk: T, dk: D, dv: D };
    return () => lab.attention(args);
  }
  const args = { x: f32(5, T * D), tq: T, dModel: D, heads: H, wq: f32(1, D * D), wk: f32(2, D * D), wv: f32(3, D * D), wo: f32(4, D * D),
    ...(outputOnly ? { intermediates: false } : {}) };
  return () => lab.multiHeadAttention(args);
}

/**
 * Times `op` (callFor) at every T of `Ts`: onResult({ T, ms, calls }) after each. Stops early when
 * stopped() turns true.
 */
export async function timeLengths(lab, job, { stopped, onResult, pause }) {
  const { Ts, warmupMs, minTimeMs, sliceMs = 20 } = job;
  const warm = callFor(lab, job, 64);
  for (let spent = 0; spent < warmupMs;) {
    await pause();
    if (stopped()) return;
    const t0 = performance.now();
    while (performance.now() - t0 < sliceMs) warm();
    spent += performance.now() - t0;
  }
  for (const T of Ts) {
    const call = callFor(lab, job, T);
    await pause();
    if (stopped()) return;
    call();  // warm-up: memory growth, first touch
    let calls = 0, spent = 0;
    while (spent < minTimeMs || calls < 3) {
      await pause();
      if (stopped()) return;
      const t0 = performance.now();
      let inSlice = 0;
      do {
        call();
        calls++;
        inSlice = performance.now() - t0;
      } while (inSlice < sliceMs && spent + inSlice < minTimeMs);
      spent += inSlice;
    }
    onResult({ T, ms: spent / calls, calls });
  }
}
