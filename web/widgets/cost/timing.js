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

/** The median of `xs` (the middle value; the mean of the two middle ones for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Times `op` (callFor) at every T of `Ts`: onResult({ T, ms, calls }) after each, ms the median over
 * the slices of each slice's time per call — a slice the machine's other work preempted (a shared or
 * busy machine: one of three 90 ms calls taking 400 ms) does not move it as it moves a mean. Stops early
 * when stopped() turns true. `now` is the clock (tests pass their own).
 */
export async function timeLengths(lab, job, { stopped, onResult, pause, now = () => performance.now() }) {
  const { Ts, warmupMs, minTimeMs, sliceMs = 20 } = job;
  const warm = callFor(lab, job, 64);
  for (let spent = 0; spent < warmupMs;) {
    await pause();
    if (stopped()) return;
    const t0 = now();
    let t = t0;
    do { warm(); t = now(); } while (t - t0 < sliceMs);
    spent += t - t0;
  }
  for (const T of Ts) {
    const call = callFor(lab, job, T);
    await pause();
    if (stopped()) return;
    call();  // warm-up: memory growth, first touch
    let calls = 0, spent = 0;
    const perCall = [];
    while (spent < minTimeMs || calls < 3) {
      await pause();
      if (stopped()) return;
      const t0 = now();
      let inSlice = 0, n = 0;
      do {
        call();
        n++;
        inSlice = now() - t0;
      } while (inSlice < sliceMs && spent + inSlice < minTimeMs);
      calls += n;
      spent += inSlice;
      perCall.push(inSlice / n);
    }
    onResult({ T, ms: median(perCall), calls });
  }
}
