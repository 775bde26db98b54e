// pretrained.js — the snapshots of a training run that ship with attnlab as static files, so a page can
// show how a model learned without training it first:
//   web/train/pretrained/<task>/index.json   [{ step, file, evalLoss, ratio, heads }, …]
//                                            (or { snapshots: [...], task?, taskOptions?, seed?,
//                                              config?, optimizer?, trainerOptions?, … })
//   web/train/pretrained/<task>/<file>       a checkpoint (model.save() bytes, safetensors)
//
// Where the files come from: in Vite (the app, the decks) `new URL(`./pretrained/${task}/${file}`,
// import.meta.url)` becomes a table of every file under pretrained/*/ (Vite emits each as an asset and
// the lookup finds its hashed URL); fetch() reads it. In Node the same URL is a file: URL, read with fs.

import { describe as show, fail, noUnknownKeys, requireObject } from '../api/validate.js';
import { TASK_NAMES } from './tasks.js';
import { evalContext, evaluateModel, inspectModel, loadOptionsData, resolveOptions } from './engine.js';
import { pretrainedUrl } from './pretrained-files.js';

function isNode() {
  return typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
}

// The URL of one pretrained file (pretrained-files.js: the one expression Vite rewrites into a table of
// pretrained/*/*, shared with the other readers of these files).
const fileUrl = pretrainedUrl;

async function read(task, file) {
  if (typeof file !== 'string' || !/^[\w.-]+$/.test(file) || file.startsWith('.'))
    fail('loadPretrained', `index.json names the file ${show(file)}, expected a plain file name in pretrained/${task}/`);
  const url = fileUrl(task, file);
  if (isNode() && url.protocol === 'file:') {
    const fsName = 'node:fs/promises';  // hidden from bundlers: never loaded in a browser
    const { readFile } = await import(/* @vite-ignore */ fsName);
    try {
      return new Uint8Array(await readFile(url));
    } catch (e) {
      fail('loadPretrained', `cannot read pretrained/${task}/${file} (${e.code ?? e.message}), expected the file to ship with attnlab`);
    }
  }
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    fail('loadPretrained', `cannot fetch pretrained/${task}/${file} (${e.message}), expected the file to ship with attnlab`);
  }
  if (!res.ok) fail('loadPretrained', `pretrained/${task}/${file} answered HTTP ${res.status}, expected the file to ship with attnlab`);
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * The pretrained snapshots of `task` (default 'induction'), in step order:
 *   { task, snapshots: [{ index, step, bytes, evalLoss, ratio, heads, … }], steps, config, trainerOptions, meta }
 * bytes: a checkpoint for lab.loadModel or createTrainer({ checkpoint }).
 * options.snapshots: which checkpoints to fetch — 'all' (default), 'last' (a page that shows the trained
 * model only: one file instead of every snapshot's), or a list of steps. `snapshots` holds those only;
 * each keeps its `index` in the whole run, and `steps` lists every snapshot's step.
 */
export async function loadPretrained(task = 'induction', options = {}) {
  if (!TASK_NAMES.includes(task))
    fail('loadPretrained', `task is ${show(task)}, expected one of ${TASK_NAMES.map((s) => `'${s}'`).join(', ')}`);
  requireObject('loadPretrained', options);
  noUnknownKeys('loadPretrained', options, ['snapshots']);
  const which = options.snapshots ?? 'all';
  if (which !== 'all' && which !== 'last' && !(Array.isArray(which) && which.every(Number.isInteger)))
    fail('loadPretrained', `snapshots is ${show(which)}, expected 'all', 'last' or a list of steps`);
  const text = new TextDecoder().decode(await read(task, 'index.json'));
  let index;
  try {
    index = JSON.parse(text);
  } catch (e) {
    fail('loadPretrained', `pretrained/${task}/index.json is not JSON (${e.message}), expected a list of { step, file, … }`);
  }
  const list = Array.isArray(index) ? index : index?.snapshots;
  if (!Array.isArray(list)) fail('loadPretrained', `pretrained/${task}/index.json holds ${show(index)}, expected a list of { step, file, … } (or { snapshots })`);
  const meta = Array.isArray(index) ? {} : Object.fromEntries(Object.entries(index).filter(([k]) => k !== 'snapshots'));
  const sorted = list.slice().sort((a, b) => a.step - b.step).map((entry, i) => ({ ...entry, index: i }));
  const steps = sorted.map((e) => e.step);
  let chosen = sorted;
  if (which === 'last') chosen = sorted.slice(-1);
  else if (Array.isArray(which)) {
    const missing = which.filter((st) => !steps.includes(st));
    if (missing.length) fail('loadPretrained', `pretrained/${task} has no snapshot at step ${missing.join(', ')}, expected one of ${steps.join(', ')}`);
    chosen = sorted.filter((e) => which.includes(e.step));
  }
  const snapshots = await Promise.all(chosen.map(async (entry) => ({ ...entry, bytes: await read(task, entry.file) })));
  // config: the model's (createModel options); trainerOptions: createTrainer's for a run like the one
  // that made the files (index.json's own, or built from its task, seed, config and optimizer); meta:
  // everything else index.json holds besides the list.
  return { task, snapshots, steps, config: meta.config ?? null, trainerOptions: meta.trainerOptions ?? trainerOptionsOf(task, meta), meta };
}

const MODEL_KEYS = ['layers', 'heads', 'dModel', 'dFF', 'attentionOnly', 'layerNorm', 'activation', 'initStd'];
const OPTIMIZER_KEYS = ['lr', 'weightDecay', 'maxGradNorm', 'warmupSteps'];
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o?.[k] !== undefined).map((k) => [k, o[k]]));

function trainerOptionsOf(task, meta) {
  if (!meta.config) return null;
  const model = pick(meta.config, MODEL_KEYS);
  if (Number.isInteger(meta.seed)) model.seed = meta.seed;
  // The task's own options (e.g. the induction period) when the index records them: its held-out set
  // must be the one the snapshots were trained for.
  const name = meta.task ?? task;
  const out = { task: meta.taskOptions && typeof meta.taskOptions === 'object' ? { name, ...meta.taskOptions } : name, model };
  if (meta.optimizer) out.optimizer = pick(meta.optimizer, OPTIMIZER_KEYS);
  if (Number.isInteger(meta.evalSize)) out.evalSize = meta.evalSize;
  return out;
}

/**
 * The task's pretrained snapshots, measured and ready to look at on this thread (what a page shows
 * without training): every snapshot gets the numbers a live run's snapshots carry — held-out loss, its
 * first/repeated-half split, every head's scores — measured as the trainer measures them (engine.js
 * evaluateModel) on the held-out batch of the run that made them (its task options and evalSize, when
 * index.json records them), so they are the native run's own numbers, computed again here.
 *   → { task, snapshots: [{ index, step, loss (the run's train loss), evalLoss, firstHalfLoss,
 *       repeatedLoss, ratio, heads, bytes }], config, trainerOptions, taskOptions, batch, evalSize,
 *       inspect(index, { headMask }) (what trainer.inspect returns), decode(id) }
 * options.lab: the module to compute with (default: a new createAttnLab()).
 */
/** Resolves in a later task (scheduler.yield where the browser has it: the page's input goes first). */
const nextTask = () => (typeof globalThis.scheduler?.yield === 'function' ? globalThis.scheduler.yield()
  : new Promise((ok) => setTimeout(ok, 0)));

export async function openPretrained(task = 'induction', options = {}) {
  requireObject('openPretrained', options);
  noUnknownKeys('openPretrained', options, ['lab']);
  const pre = await loadPretrained(task);
  const { meta } = pre;
  const taskOptions = meta.taskOptions && typeof meta.taskOptions === 'object' ? meta.taskOptions : null;
  const name = meta.task ?? task;
  const evalSize = Number.isInteger(meta.evalSize) ? meta.evalSize : undefined;
  const runOptions = { task: taskOptions ? { name, ...taskOptions } : name, evalSize };
  await loadOptionsData(runOptions);
  const ctx = evalContext(resolveOptions(runOptions));
  const lab = options.lab ?? await (await import('../api/index.js')).createAttnLab();
  let config = pre.config;
  const withModel = (bytes, fn) => {
    const model = lab.loadModel(bytes);
    try {
      return fn(model);
    } finally {
      model.dispose();
    }
  };
  // One snapshot per task: the page stays responsive while they are measured (all 17 in one task were
  // ~0.6 s of main-thread CPU on a phone-class CPU, 4× throttled Chromium).
  const snapshots = [];
  for (const s of pre.snapshots) {
    if (snapshots.length) await nextTask();
    snapshots.push(withModel(s.bytes, (model) => {
      config ??= model.config;
      return { ...s, loss: s.loss ?? s.trainLoss ?? undefined, ...evaluateModel(model, ctx.heldOut) };
    }));
  }
  const inspect = async (index, { headMask = null } = {}) => {
    const snap = snapshots[index];
    if (!snap) fail('openPretrained: inspect', `snapshot is ${show(index)}, expected an index below ${snapshots.length}`);
    return withModel(snap.bytes, (model) => inspectModel(model, ctx, headMask));
  };
  const decode = (id) => { try { return ctx.task.decode([id]); } catch { return undefined; } };
  return {
    task, snapshots, config, trainerOptions: pre.trainerOptions, taskOptions,
    batch: Number.isInteger(meta.batch) ? meta.batch : null, evalSize: ctx.heldOut.batch, inspect, decode,
  };
}
