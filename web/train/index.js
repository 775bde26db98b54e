// attnlab/train — train a small GPT in the browser (a Web Worker) or in Node and watch it learn.
//
//   import { createTrainer, loadPretrained, openPretrained, tasks, scores } from 'attnlab/train';
//
// createTrainer (trainer.js, its loop in engine.js); loadPretrained (pretrained.js: the snapshots that
// ship as files) and openPretrained (the same, measured and inspectable on this thread); tasks (tasks.js:
// induction, names, reverse; the seeded PRNG); scores (scores.js: head scores, the induction loss split).
export { createTrainer, Trainer } from './trainer.js';
export { loadPretrained, openPretrained } from './pretrained.js';
export * as tasks from './tasks.js';
export * as scores from './scores.js';
