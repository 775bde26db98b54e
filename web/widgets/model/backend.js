// backend.js — where <attn-model>'s engine (engine.js) runs: in a Web Worker (workerBackend: the page's
// thread only sends requests and draws the answers; loading GPT-2 and its forward passes never block
// it), or on this thread (localBackend: Node, tests, a runtime without workers). Both answer
// request(op, args, { onProgress }) with a Promise of the engine's value; requests are answered in order.
import { EngineHost } from './engine.js';

/** The engine on this thread; `createLab` () => Promise<lab>. */
export function localBackend(createLab) {
  const pending = new Map();
  let next = 1;
  const host = new EngineHost({
    createLab,
    post: (msg) => {
      const p = pending.get(msg.id);
      if (!p) return;
      if (msg.progress) { p.onProgress?.(msg.progress); return; }
      pending.delete(msg.id);
      if (msg.error !== undefined) p.no(new Error(msg.error)); else p.ok(msg.value);
    },
  });
  return {
    kind: 'this thread',
    engine: host.engine,
    request(op, args, { onProgress } = {}) {
      const id = next++;
      return new Promise((ok, no) => { pending.set(id, { ok, no, onProgress }); host.receive({ id, op, args }); });
    },
    terminate() { host.engine.dispose(); },
  };
}

/** The engine in a module Worker (model.worker.js, bundled by Vite from this `new Worker(new URL(…))`). */
export function workerBackend() {
  const worker = new Worker(new URL('./model.worker.js', import.meta.url), { type: 'module' });
  const pending = new Map();
  let next = 1, broken = null;
  worker.onmessage = (e) => {
    const msg = e.data, p = pending.get(msg.id);
    if (!p) return;
    if (msg.progress) { p.onProgress?.(msg.progress); return; }
    pending.delete(msg.id);
    if (msg.error !== undefined) p.no(new Error(msg.error)); else p.ok(msg.value);
  };
  worker.onerror = (e) => {
    e.preventDefault?.();
    broken = `the model's worker failed: ${e.message || 'could not load model.worker.js'}`;
    for (const p of pending.values()) p.no(new Error(broken));
    pending.clear();
  };
  return {
    kind: 'worker',
    request(op, args = {}, { onProgress, transfer = [] } = {}) {
      if (broken) return Promise.reject(new Error(broken));
      const id = next++;
      return new Promise((ok, no) => { pending.set(id, { ok, no, onProgress }); worker.postMessage({ id, op, args }, transfer); });
    },
    terminate() { worker.terminate(); for (const p of pending.values()) p.no(new Error('the model’s worker was stopped')); pending.clear(); },
  };
}
