// Where <attn-train> gets its numbers: the trainer (web/train) — a live run (createTrainer, in a Web
// Worker where there is one) or the task's pretrained snapshots (loadPretrained). For those, the
// numbers a live run's snapshots carry (held-out loss, its first/repeated-half split, every head's
// scores) are measured the way the trainer measures them — one forward pass of the snapshot over the
// task's fixed held-out batch (engine.js evalContext) on the page's lab, scored by web/train/scores.js —
// and the maps on the eval sequence come from the trainer's own inspect (engine.js inspectModel).
import { createTrainer, loadPretrained } from '../../train/index.js';
import { evalContext, inspectModel, resolveOptions } from '../../train/engine.js';
import { headScores, lossSplit, reverseScore } from '../../train/scores.js';
import { getLab } from '../shared/lab.js';

/** A live trainer (see web/train/trainer.js). */
export function openTrainer(options) {
  return createTrainer(options);
}

/** The held-out numbers of one model, as engine.js evaluate() reports them for a live run's snapshots. */
function evaluate(model, heldOut) {
  const r = model.forward({ ids: heldOut.ids, targets: heldOut.targets, batch: heldOut.batch, attention: true });
  const split = heldOut.first && heldOut.repeated ? lossSplit(r.tokenLosses, heldOut) : {};
  const heads = headScores(r, heldOut.ids, { batch: heldOut.batch, positions: heldOut.repeated });
  if (heldOut.answer) r.attention.forEach((row, l) => row.forEach((att, h) => { heads[l][h].reverse = reverseScore(att, r.t, r.batch); }));
  return { evalLoss: r.loss, firstHalfLoss: split.firstHalfLoss, repeatedLoss: split.repeatedLoss, ratio: split.ratio, heads };
}

/**
 * The task's pretrained snapshots: { snapshots: [{ index, step, loss (the run's train loss), evalLoss,
 * firstHalfLoss, repeatedLoss, ratio, heads, bytes }], config (the model's), trainerOptions (a run like
 * the one that made them, when the index says), inspect(index, { headMask }) → what trainer.inspect
 * returns, decode(id) }. Rejects when there are none.
 */
export async function openPretrained(task) {
  const pre = await loadPretrained(task);
  const meta = pre?.meta ?? {};
  const trainerOptions = pre?.trainerOptions ?? meta.trainerOptions ?? null;
  // The held-out batch and eval sequence of the run that made them (its task options, when named).
  const named = trainerOptions?.task ?? meta.task ?? task;
  const taskOptions = meta.taskOptions ?? null;  // e.g. { period: 11 }: the task as that run drew it
  const ctx = evalContext(resolveOptions({ task: taskOptions && typeof named === 'string' ? { name: named, ...taskOptions } : named }));
  const lab = await getLab();
  let config = pre?.config ?? meta.config ?? null;
  const snapshots = (pre?.snapshots ?? []).map((s, index) => {
    const model = lab.loadModel(s.bytes);
    try {
      config ??= model.config;
      const e = evaluate(model, ctx.heldOut);
      return { ...s, index, loss: s.loss ?? s.trainLoss ?? undefined, ...e };
    } finally {
      model.dispose();
    }
  });
  const inspect = async (index, { headMask = null } = {}) => {
    const snap = snapshots[index];
    if (!snap) throw new Error(`pretrained snapshot ${index} does not exist (${snapshots.length} snapshots)`);
    const model = lab.loadModel(snap.bytes);
    try {
      return inspectModel(model, ctx, headMask);
    } finally {
      model.dispose();
    }
  };
  const decode = (id) => { try { return ctx.task.decode([id]); } catch { return undefined; } };
  return { snapshots, config, trainerOptions, batch: Number.isInteger(meta.batch) ? meta.batch : null, taskOptions, inspect, decode };
}
