// attnlab/train — train a small GPT in the browser (a Web Worker) or in Node and watch it learn.
//
//   import { createTrainer, loadPretrained, tasks, scores } from 'attnlab/train';
//
// createTrainer (trainer.js, its loop in engine.js), loadPretrained (pretrained.js: snapshots that ship
// as files), tasks (tasks.js: induction, names, reverse; the seeded PRNG), scores (scores.js: head
// scores and the induction loss split).
export { createTrainer, Trainer } from './trainer.js';
export { loadPretrained } from './pretrained.js';
export * as tasks from './tasks.js';
export * as scores from './scores.js';
