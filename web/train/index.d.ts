// TypeScript declarations for attnlab/train (web/train/index.js): the trainer, pretrained snapshots,
// the tasks and the head scores.
import type { AttnLab } from '../api/index.js';

export type TaskName = 'induction' | 'names' | 'reverse';

export interface TrainerOptions {
  /** The task (tasks.js), or { name, …options of its factory } e.g. { name: 'induction', period: [4, 10] }. Default 'induction'. */
  task?: TaskName | ({ name: TaskName } & Record<string, unknown>);
  /** createModel's options (vocab and context come from the task). Defaults per task: engine.js MODEL_DEFAULTS. */
  model?: {
    layers?: number; heads?: number; dModel?: number; dFF?: number;
    attentionOnly?: boolean; layerNorm?: boolean; activation?: 'gelu' | 'gelu_tanh' | 'relu';
    /** σ of the W_* initialisation (createModel's initStd; induction default 0.25, else createModel's 0.02). */
    initStd?: number;
    /** Initialisation and the training data stream. Default 0. */
    seed?: number;
  };
  /** AdamW. Defaults: lr 1e-3, weightDecay 0.01, maxGradNorm 1 (Infinity: no clipping), warmupSteps 0 (linear warm-up). */
  optimizer?: { lr?: number; weightDecay?: number; maxGradNorm?: number; warmupSteps?: number; beta1?: number; beta2?: number; eps?: number };
  /** Sequences per step. Default 1. */
  batch?: number;
  /** Steps between held-out evaluations (loss, split, head scores). Default 50. */
  evalEvery?: number;
  /** Steps between snapshots (kept as checkpoint bytes); snapshot 0 is the untrained model. Default 200. */
  snapshotEvery?: number;
  /** Sequences in the fixed held-out set. Default 32. */
  evalSize?: number;
  /** Train in a Web Worker (default: true where Worker exists) or on this thread. */
  worker?: boolean;
  /** Start from these weights (model.save() bytes). */
  checkpoint?: Uint8Array | ArrayBuffer;
  /** A lab of this thread: trains on it with worker: false; inspects snapshots with it after terminate(). */
  lab?: AttnLab;
}

/** Per head: mean attention to the previous token, and to the token after the current one's earlier occurrence (induction); reverse: the anti-diagonal. */
export interface HeadScore { prev: number; induction: number; reverse?: number }
/** [layer][head] */
export type HeadScores = HeadScore[][];

export interface EvalPoint {
  step: number;
  /** Training loss, smoothed (EMA over ~20 steps). */
  loss: number;
  /** Mean loss on the held-out set. */
  evalLoss: number;
  /** Induction: held-out loss on the first copy, on the repeat, and repeated / first (1 → 0 as induction forms); null for other tasks. */
  firstHalfLoss: number | null;
  repeatedLoss: number | null;
  ratio: number | null;
  heads: HeadScores;
}

export interface ProgressDetail {
  step: number;
  loss: number | null;
  /** The step of the evaluation the held-out numbers below come from. */
  evalStep: number | null;
  evalLoss: number | null;
  firstHalfLoss: number | null;
  repeatedLoss: number | null;
  ratio: number | null;
  heads: HeadScores | null;
  tokensPerSec: number | null;
  stepsPerSec: number | null;
  /** Every evaluation since the previous progress event (appended to trainer.history). */
  lossHistory: EvalPoint[];
}

export interface Snapshot {
  index: number;
  step: number;
  evalLoss: number;
  ratio: number | null;
  heads: HeadScores;
  /** The weights: lab.loadModel(bytes) or createTrainer({ checkpoint: bytes }). */
  bytes: Uint8Array;
}

export interface InspectResult {
  /** The fixed eval sequence (the first held-out row) [t]. */
  ids: Int32Array;
  /** The next token at each position [t] (the last position's too). */
  targets: Int32Array;
  /** reverse: 1 on the reversed half (the positions scored), [t]; other tasks: undefined. */
  answer?: Uint8Array;
  tokens: string[];
  /** [layer][head] → [t·t] softmax weights. */
  attention: Float32Array[][];
  tokenLosses: Float32Array;
  loss: number;
  /** argmax of the logits at each position [t]. */
  predictions: Int32Array;
  ratio: number | null;
  heads: HeadScores;
}

export interface TrainerEventMap {
  progress: CustomEvent<ProgressDetail>;
  snapshot: CustomEvent<Snapshot>;
  state: CustomEvent<{ running: boolean; step: number }>;
  error: CustomEvent<{ message: string; step: number }>;
}

export class Trainer extends EventTarget {
  readonly running: boolean;
  readonly stepCount: number;
  readonly snapshots: Snapshot[];
  readonly history: EvalPoint[];
  readonly modelConfig: Record<string, unknown> | null;
  readonly task: Task;
  readonly terminated: boolean;
  /** Time spent on this thread handling the loop's messages (listeners included). */
  readonly messageStats: { messages: number; maxMs: number; totalMs: number };
  addEventListener<K extends keyof TrainerEventMap>(type: K, listener: (e: TrainerEventMap[K]) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  /** Trains until pause(), an error or terminate(); with { until }, until the step count reaches it (then a 'state' event with running false). */
  /** rate: at most that many steps a second (a run a person can watch); Infinity (default): as fast as it goes. */
  start(options?: { until?: number; rate?: number }): void;
  pause(): void;
  /** n more steps; resolves with the step count (pause() ends it early). */
  step(n?: number): Promise<number>;
  reset(options?: { seed?: number }): Promise<void>;
  inspect(options?: { snapshot?: number; headMask?: ArrayLike<number> | null }): Promise<InspectResult>;
  /** From the current weights, or with `snapshot` (an index) from that snapshot's. */
  sample(options?: { steps?: number; temperature?: number; seed?: number; topK?: number; prompt?: string | ArrayLike<number>; snapshot?: number }): Promise<string | Int32Array>;
  save(options?: { optimizer?: boolean }): Promise<Uint8Array>;
  terminate(): void;
}

export function createTrainer(options?: TrainerOptions): Promise<Trainer>;

/**
 * The shipped snapshots of `task`. options.snapshots: which checkpoints to fetch — 'all' (default),
 * 'last' (one file: the trained model), or a list of steps.
 */
export function loadPretrained(task?: TaskName, options?: { snapshots?: 'all' | 'last' | number[] }): Promise<{
  task: TaskName;
  /** The fetched snapshots in step order; `index`: the snapshot's place in the whole run. */
  snapshots: Array<Omit<Snapshot, 'ratio'> & { ratio?: number | null; file: string }>;
  /** Every snapshot's step (the whole run, fetched or not). */
  steps: number[];
  /** The model's config, when index.json gives it. */
  config: Record<string, unknown> | null;
  /** createTrainer's options of the run that made the snapshots, when index.json gives them. */
  trainerOptions: TrainerOptions | null;
  /** Everything else index.json holds besides the list. */
  meta: Record<string, unknown>;
}>;

/** The pretrained snapshots measured on this thread, the way a live run measures its own. */
export interface OpenedPretrained {
  task: TaskName;
  /** In step order; loss: the run's (smoothed) training loss when index.json records it. */
  snapshots: Array<Snapshot & { file: string; loss?: number; firstHalfLoss: number | null; repeatedLoss: number | null }>;
  config: Record<string, unknown> | null;
  trainerOptions: TrainerOptions | null;
  /** The task's options of the run (e.g. { period: [4, 11] }), or null. */
  taskOptions: Record<string, unknown> | null;
  /** The run's batch size, or null. */
  batch: number | null;
  /** Sequences in the held-out batch the numbers are measured on (the run's, when index.json records it). */
  evalSize: number;
  /** The eval sequence through snapshot `index` (with heads switched off by a 0 in headMask [layers·heads]). */
  inspect(index: number, options?: { headMask?: ArrayLike<number> | null }): Promise<InspectResult>;
  /** A token id as text (undefined when the task has no text for it). */
  decode(id: number): string | undefined;
}

/** loadPretrained's snapshots, each measured on the run's held-out batch; lab: the module to compute with. */
export function openPretrained(task?: TaskName, options?: { lab?: AttnLab }): Promise<OpenedPretrained>;

/** A task batch: row-major [batch, t] next-token pairs, with masks (Uint8Array [batch·t]) where the task has them. */
export interface TaskBatch {
  ids: Int32Array; targets: Int32Array; batch: number; t: number;
  first?: Uint8Array; repeated?: Uint8Array; answer?: Uint8Array; period?: Int32Array;
}
export interface Task {
  readonly name: TaskName;
  readonly vocab: number;
  readonly context: number;
  readonly describe: string;
  encode(text: string): Int32Array;
  decode(ids: ArrayLike<number>): string;
  batch(rng: () => number, batchSize: number): TaskBatch;
  heldOut(n: number, seed?: number): TaskBatch;
  [key: string]: unknown;
}

export namespace tasks {
  function mulberry32(seed: number): () => number;
  function randInt(rng: () => number, n: number): number;
  const TASK_NAMES: readonly TaskName[];
  /** Synchronous: for 'names' without its own `names` list, after `await loadNames()` (or use loadTask). */
  function createTask(name: TaskName, options?: Record<string, unknown>): Task;
  /** Loads what the task reads from a file (names: data/names.txt), then createTask. */
  function loadTask(name: TaskName, options?: Record<string, unknown>): Promise<Task>;
  /** Loads what the task reads from a file, if anything (names without a list of its own: the shipped list). */
  function loadTaskData(name: TaskName, options?: Record<string, unknown>): Promise<void>;
  /** The shipped names (data/names.txt, 32,033, most common first): read or fetched once, then kept. */
  function loadNames(): Promise<readonly string[]>;
  function inductionTask(options?: { vocab?: number; context?: number; period?: number | [number, number] }): Task;
  /** Without `names`: the shipped list, which must be loaded first (loadNames). */
  function namesTask(options?: { context?: number; heldOutNames?: number; names?: string[] }): Task;
  function reverseTask(options?: { length?: number; digits?: number }): Task;
}

export namespace scores {
  function previousTokenScore(att: ArrayLike<number>, t: number, batch?: number, positions?: ArrayLike<number>): number;
  function inductionScore(att: ArrayLike<number>, ids: ArrayLike<number>, t: number, options?: { batch?: number; positions?: ArrayLike<number> }): number;
  /** The anti-diagonal on the reversed half; shift 1: the stripe one key to the right. */
  function reverseScore(att: ArrayLike<number>, t: number, batch?: number, options?: { shift?: 0 | 1 }): number;
  /** reverseScore of a head in `layer`: shift 0, and from layer 1 on the better of shift 0 and 1. */
  function reverseHeadScore(att: ArrayLike<number>, t: number, batch?: number, layer?: number): number;
  function lossSplit(tokenLosses: ArrayLike<number>, masks: { first: ArrayLike<number>; repeated: ArrayLike<number> }): { firstHalfLoss: number; repeatedLoss: number; ratio: number };
  function headScores(forwardResult: { attention: ArrayLike<number>[][]; batch?: number; t: number }, ids: ArrayLike<number>, options?: { positions?: ArrayLike<number> }): { prev: number; induction: number }[][];
}
