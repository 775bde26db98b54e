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
  const request = (op, args, { onProgress } = {}) => {
    const id = next++;
    return new Promise((ok, no) => { pending.set(id, { ok, no, onProgress }); host.receive({ id, op, args }); });
  };
  return {
    kind: 'this thread',
    engine: host.engine(),
    request,
    terminate() { request('dispose').catch(() => {}); },
  };
}

// One worker per page, shared by every <attn-model> in it (each a session `sid` of its own; the
// worker shares their models: ModelCache in engine.js). Made on first use.
let shared = null;

function sharedWorker() {
  if (shared && !shared.broken) return shared;
  const worker = new Worker(new URL('./model.worker.js', import.meta.url), { type: 'module' });
  const s = { worker, pending: new Map(), next: 1, sid: 1, broken: null };
  worker.onmessage = (e) => {
    const msg = e.data, p = s.pending.get(msg.id);
    if (!p) return;
    if (msg.progress) { p.onProgress?.(msg.progress); return; }
    s.pending.delete(msg.id);
    if (msg.error !== undefined) p.no(new Error(msg.error)); else p.ok(msg.value);
  };
  worker.onerror = (e) => {
    e.preventDefault?.();
    s.broken = `the model's worker failed: ${e.message || 'could not load model.worker.js'}`;
    for (const p of s.pending.values()) p.no(new Error(s.broken));
    s.pending.clear();
  };
  return (shared = s);
}

/** A session of the page's model worker (model.worker.js, bundled by Vite from the `new Worker(new URL(…))` above). */
export function workerBackend() {
  const s = sharedWorker(), sid = s.sid++;
  let ended = false;
  const request = (op, args = {}, { onProgress, transfer = [] } = {}) => {
    if (s.broken) return Promise.reject(new Error(s.broken));
    if (ended) return Promise.reject(new Error('this model session was ended'));
    const id = s.next++;
    return new Promise((ok, no) => { s.pending.set(id, { ok, no, onProgress }); s.worker.postMessage({ id, sid, op, args }, transfer); });
  };
  return {
    kind: 'worker',
    request,
    /** Ends this session: the worker lets its model go (and disposes it when no other session holds it). */
    terminate() { request('dispose').catch(() => {}); ended = true; },
  };
}
