// model.worker.js — the Web Worker behind <attn-model> (started by backend.js workerBackend): its own
// attnlab module (createAttnLab: Vite rewrites the .wasm URL for the worker bundle too, as for
// web/train/trainer.worker.js) and engine.js's model, tokenizer and forward passes. This file only
// connects EngineHost to postMessage.
import { createAttnLab } from '../../api/index.js';
import { EngineHost } from './engine.js';

const host = new EngineHost({
  createLab: () => createAttnLab(),
  post: (message, transfer) => self.postMessage(message, transfer),
});
self.onmessage = (e) => { host.receive(e.data); };
