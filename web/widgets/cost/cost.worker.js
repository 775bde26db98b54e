// cost.worker.js — <attn-cost>'s timing loop in a Web Worker, with its own attnlab module: one
// multi-head attention call at d_model 256, 8 heads, T = 2048 takes ~250 ms, longer than any slice
// the page could give it, so the page's thread only receives results and never blocks.
//   → { type: 'run', id, dModel, heads, Ts, outputOnly, warmupMs, minTimeMs }
//   ← { type: 'ready', outputOnly } · { type: 'result', id, T, ms, calls } · { type: 'done', id } · { type: 'error', id, message }
import { createAttnLab } from '../../api/index.js';
import { timeLengths } from './timing.js';

let lab = null, current = 0;

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'stop') { current = 0; return; }
  if (m.type !== 'run') return;
  current = m.id;
  try {
    lab ??= await createAttnLab();
    await timeLengths(lab, m, {
      stopped: () => current !== m.id,
      onResult: (r) => self.postMessage({ type: 'result', id: m.id, ...r }),
      pause: () => new Promise((ok) => setTimeout(ok, 0)),  // lets a 'stop' message in
    });
    if (current === m.id) self.postMessage({ type: 'done', id: m.id });
  } catch (err) {
    self.postMessage({ type: 'error', id: m.id, message: String(err?.message ?? err) });
  }
};
