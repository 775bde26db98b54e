// Where <attn-train> gets its numbers: web/train (attnlab/train), through its public entry only — a live
// run (createTrainer, in a Web Worker where there is one) or the task's pretrained snapshots
// (openPretrained: each snapshot measured on this page's lab the way the trainer measures its own).
import { createTrainer, openPretrained as open } from '../../train/index.js';
import { getLab } from '../shared/lab.js';

export { createTrainer };

/** The task's pretrained snapshots, measured on the page's lab (see web/train/pretrained.js openPretrained). */
export async function openPretrained(task) {
  return open(task, { lab: await getLab() });
}
