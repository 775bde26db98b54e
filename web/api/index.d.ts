// TypeScript declarations for attnlab's public JS API (web/api/index.js).
// Matrices are flat row-major Float32Arrays; W is [in, out] (a row x maps to x·W).

/** Flat row-major numbers. Float32Array is the native form; number[] and other typed arrays are copied. */
export type Matrix = Float32Array | ArrayLike<number>;

/** 'none' (default), 'causal', a sliding window (|i−j| ≤ w; causal: 0 ≤ i−j ≤ w), or an additive [tq·tk] array of 0 / −Infinity / finite biases. */
export type Mask = 'none' | 'causal' | { window: number; causal?: boolean } | Float32Array | number[];

export class AttnLabError extends Error {}

export interface AttentionArgs {
  q: Matrix; k: Matrix; v: Matrix;
  tq: number; tk: number; dk: number; dv: number;
  mask?: Mask;
  /** Multiplies Q·Kᵀ; default 1/√dk. 1 = no scaling. */
  scale?: number;
  /** ALiBi slope m ≥ 0: adds −m·|i−j| to the scaled scores. */
  alibiSlope?: number;
}
export interface AttentionResult {
  /** [tq·tk] raw Q·Kᵀ */ scores: Float32Array;
  /** [tq·tk] Q·Kᵀ·scale + mask (−Infinity where masked) */ scaled: Float32Array;
  /** [tq·tk] softmax(scaled) by rows; a fully masked row is all 0 */ weights: Float32Array;
  /** [tq·dv] weights·V */ output: Float32Array;
}

export interface MultiHeadArgs {
  x: Matrix; tq: number; dModel: number; heads: number;
  wq: Matrix; wk: Matrix; wv: Matrix; wo: Matrix;
  bq?: Matrix; bk?: Matrix; bv?: Matrix; bo?: Matrix;
  mask?: Mask;
  /** Cross-attention: keys and values from context [tk·dModel]. */
  context?: Matrix; tk?: number;
  scale?: number;
  /** Rotate each head's q/k by position (RoPE), base 10000 unless given. */
  rope?: boolean | { base?: number };
  /** Add per-head ALiBi biases −m_h·|i−j| (self-attention only). */
  alibi?: boolean;
}
export interface MultiHeadResult {
  /** [tq·dModel] (after RoPE when on) */ q: Float32Array;
  /** [tk·dModel] */ k: Float32Array;
  /** [tk·dModel] */ v: Float32Array;
  /** [heads·tq·tk] raw per-head Q_h·K_hᵀ */ scores: Float32Array;
  /** [heads·tq·tk] */ weights: Float32Array;
  /** [tq·dModel] concatenated head outputs, before W_O */ heads: Float32Array;
  /** [tq·dModel] */ output: Float32Array;
}

export type PositionalEncodingArgs =
  | { kind?: 'sinusoidal'; length: number; dModel: number; base?: number }
  | { kind: 'learned'; table: Matrix; maxLength: number; dModel: number; length: number };

export interface AttnLabInfo {
  simd128: boolean; heapBytes: number; heapInUse: number; arenaBytes: number; stackPointer: number;
}

export class AttnLab {
  attention(args: AttentionArgs): AttentionResult;
  /** output [tq·dv] = weights [tq·tk] · v [tk·dv] */
  weightedSum(args: { weights: Matrix; v: Matrix; tq: number; tk: number; dv: number }): Float32Array;
  multiHeadAttention(args: MultiHeadArgs): MultiHeadResult;
  /** [length·dModel] */
  positionalEncoding(args: PositionalEncodingArgs): Float32Array;
  /** RoPE-rotated copy of x [t·dim] for positions offset … offset+t−1. */
  rope(args: { x: Matrix; t: number; dim: number; base?: number; offset?: number }): Float32Array;
  /** ALiBi slopes [heads] and bias [heads·tq·tk]. */
  alibi(args: { heads: number; tq: number; tk?: number }): { slopes: Float32Array; bias: Float32Array };
  info(): AttnLabInfo;
  dispose(): void;
}

export const MAX_CALL_BYTES: number;
export function supportsWasmSimd(): boolean;
export function createAttnLab(options?: { wasmBinary?: ArrayBuffer | Uint8Array }): Promise<AttnLab>;
