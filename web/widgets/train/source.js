// Where <attn-train> gets its numbers: the trainer (web/train) — a live run (createTrainer, in a Web
// Worker where there is one) or the task's pretrained snapshots (loadPretrained), whose attention maps
// on the eval sequence come from the trainer module's own inspect (engine.js inspectModel: the same
// forward pass and scores a live run's inspect() returns) run on the page's lab.
import { createTrainer, loadPretrained } from '../../train/index.js';
import { evalContext, inspectModel, resolveOptions } from '../../train/engine.js';
import { getLab } from '../shared/lab.js';

/** A live trainer (see web/train/trainer.js). */
export function openTrainer(options) {
  return createTrainer(options);
}

/**
 * The task's pretrained snapshots: { snapshots: [{ index, step, evalLoss, ratio, heads, bytes }],
 * config (the model's), inspect(index, { headMask }) → what trainer.inspect returns }. Rejects when
 * there are none.
 */
export async function openPretrained(task) {
  const pre = await loadPretrained(task);
  const snapshots = (pre?.snapshots ?? []).map((s, index) => ({ ...s, index }));
  // The eval sequence of the run that made them (its task options, when index.json names them).
  const meta = pre?.meta ?? {};
  const taskOptions = meta.taskOptions ?? meta.task?.options ?? null;
  const ctx = evalContext(resolveOptions({ task: taskOptions ? { name: task, ...taskOptions } : task }));
  const lab = await getLab();
  let config = meta.model ?? meta.config ?? null;
  const inspect = async (index, { headMask = null } = {}) => {
    const snap = snapshots[index];
    if (!snap) throw new Error(`pretrained snapshot ${index} does not exist (${snapshots.length} snapshots)`);
    const model = lab.loadModel(snap.bytes);
    try {
      config ??= model.config;
      return inspectModel(model, ctx, headMask);
    } finally {
      model.dispose();
    }
  };
  const decode = (id) => { try { return ctx.task.decode([id]); } catch { return undefined; } };
  return { snapshots, get config() { return config; }, inspect, decode };
}
