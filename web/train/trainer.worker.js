// trainer.worker.js — the Web Worker createTrainer starts (web/train/trainer.js): its own attnlab module
// (createAttnLab: the .wasm is resolved from web/api/index.js's import.meta.url, which Vite rewrites for
// the worker bundle too) and the training loop of engine.js. Everything it does is in engine.js's Host;
// this file only connects it to postMessage.
import { createAttnLab } from '../api/index.js';
import { Host } from './engine.js';

const host = new Host({
  createLab: () => createAttnLab(),
  post: (message, transfer) => self.postMessage(message, transfer),
});
self.onmessage = (e) => { host.receive(e.data); };
