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
  /** false: return only { output }, computed streaming (online softmax, O(T·dModel) memory). */
  intermediates?: boolean;
  /** Write the results into these arrays (e.g. the previous result) instead of new ones: no
   *  allocation, for recomputing on every slider move. Lengths must match; returns them. */
  out?: Partial<MultiHeadResult>;
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

// ---- The rest of the Transformer: norms, activations, FFN, blocks, embedding, head, kernel regression, tokenizer
export type ActivationKind = 'gelu' | 'gelu_tanh' | 'relu';

export interface LayerNormArgs {
  x: Matrix; rows: number; dim: number;
  /** [dim], default all 1 */ gamma?: Matrix;
  /** [dim], default all 0 */ beta?: Matrix;
  /** default 1e-5 (torch.nn.LayerNorm) */ eps?: number;
}
export interface RmsNormArgs {
  x: Matrix; rows: number; dim: number;
  /** [dim], default all 1 */ gamma?: Matrix;
  /** default 1e-6 */ eps?: number;
}

export interface FeedForwardArgs {
  x: Matrix; rows: number; dModel: number; dFF: number;
  /** [dModel·dFF] */ w1: Matrix; /** [dFF] */ b1?: Matrix;
  /** [dFF·dModel] */ w2: Matrix; /** [dModel] */ b2?: Matrix;
  /** default 'relu' (as torch) */ activation?: ActivationKind;
}
export interface FeedForwardResult {
  /** [rows·dFF] x·W1 + b1 (before the activation) */ pre: Float32Array;
  /** [rows·dFF] activation(pre) */ activated: Float32Array;
  /** [rows·dModel] activated·W2 + b2 */ output: Float32Array;
}

/** Weights of one block. W_* are [dModel·dModel], w1 [dModel·dFF], w2 [dFF·dModel]; biases and LayerNorm gamma/beta [dModel] (b1 [dFF]) are optional (0, or gamma 1). */
export interface EncoderBlockWeights {
  wq: Matrix; wk: Matrix; wv: Matrix; wo: Matrix;
  bq?: Matrix; bk?: Matrix; bv?: Matrix; bo?: Matrix;
  ln1Gamma?: Matrix; ln1Beta?: Matrix; ln2Gamma?: Matrix; ln2Beta?: Matrix;
  w1: Matrix; b1?: Matrix; w2: Matrix; b2?: Matrix;
}
export interface EncoderBlockArgs {
  /** [t·dModel] */ x: Matrix; t: number; dModel: number; heads: number; dFF: number;
  /** 'post' (default; the original paper, torch's default): y = LN1(x + MHA(x)), out = LN2(y + FFN(y)).
   *  'pre' (GPT, the notebook's Block): y = x + MHA(LN1(x)), out = y + FFN(LN2(y)). */
  norm?: 'pre' | 'post';
  /** default 'relu' (torch's default) */ activation?: ActivationKind;
  /** self-attention mask, default 'none' */ mask?: Mask;
  /** LayerNorm eps, default 1e-5 */ eps?: number;
  /** B ≥ 1 sequences at once (the notebook's (B, N, D)): x is [batch·t·dModel] and every result is batch-major, e.g. attnWeights [batch·heads·t·t]. Default 1. */
  batch?: number;
  weights: EncoderBlockWeights;
}
export interface EncoderBlockResult {
  /** [t·dModel] attention input projections (of x for post-LN, of LN1(x) for pre-LN) */ q: Float32Array; k: Float32Array; v: Float32Array;
  /** [heads·t·t] */ attnWeights: Float32Array;
  /** [t·dModel] concatenated heads, before W_O */ attnHeads: Float32Array;
  /** [t·dModel] MHA output, after W_O */ attnOut: Float32Array;
  /** [t·dModel] x + attnOut */ residual1: Float32Array;
  /** [t·dModel] LN1 output: LN1(residual1) for post-LN, LN1(x) for pre-LN */ norm1: Float32Array;
  /** [t·dFF] FFN first layer before the activation */ ffnPre: Float32Array;
  /** [t·dFF] after the activation */ ffnActivated: Float32Array;
  /** [t·dModel] FFN output */ ffnOut: Float32Array;
  /** [t·dModel] norm1 + ffnOut (post-LN) or residual1 + ffnOut (pre-LN) */ residual2: Float32Array;
  /** [t·dModel] LN2 output: LN2(residual2) for post-LN, LN2(residual1) for pre-LN */ norm2: Float32Array;
  /** [t·dModel] norm2 (post-LN) or residual2 (pre-LN) */ output: Float32Array;
}

/** Self-attention (w*, b*), cross-attention (cw*, cb*), three LayerNorms, FFN. */
export interface DecoderBlockWeights extends EncoderBlockWeights {
  cwq: Matrix; cwk: Matrix; cwv: Matrix; cwo: Matrix;
  cbq?: Matrix; cbk?: Matrix; cbv?: Matrix; cbo?: Matrix;
  ln3Gamma?: Matrix; ln3Beta?: Matrix;
}
export interface DecoderBlockArgs {
  /** [t·dModel] decoder stream */ x: Matrix; t: number;
  /** [tm·dModel] encoder output: keys and values of the cross-attention */ memory: Matrix; tm: number;
  dModel: number; heads: number; dFF: number;
  /** 'post' (default): y1 = LN1(x + SelfMHA(x)), y2 = LN2(y1 + CrossMHA(y1, memory)), out = LN3(y2 + FFN(y2)).
   *  'pre': y1 = x + SelfMHA(LN1(x)), y2 = y1 + CrossMHA(LN2(y1), memory), out = y2 + FFN(LN3(y2)) (memory is not normalised). */
  norm?: 'pre' | 'post';
  activation?: ActivationKind;
  /** self-attention mask, default 'causal' */ mask?: Mask;
  eps?: number;
  /** B ≥ 1 sequences: x [batch·t·dModel], memory [batch·tm·dModel], results batch-major. Default 1. */
  batch?: number;
  weights: DecoderBlockWeights;
}
export interface DecoderBlockResult {
  /** [t·dModel] */ selfQ: Float32Array; selfK: Float32Array; selfV: Float32Array;
  /** [heads·t·t] */ selfWeights: Float32Array;
  /** [t·dModel] */ selfHeads: Float32Array; selfAttnOut: Float32Array;
  /** [t·dModel] x + selfAttnOut */ residual1: Float32Array;
  /** [t·dModel] LN1 output */ norm1: Float32Array;
  /** [t·dModel] */ crossQ: Float32Array;
  /** [tm·dModel] */ crossK: Float32Array; crossV: Float32Array;
  /** [heads·t·tm] */ crossWeights: Float32Array;
  /** [t·dModel] */ crossHeads: Float32Array; crossAttnOut: Float32Array;
  /** [t·dModel] (post: norm1, pre: residual1) + crossAttnOut */ residual2: Float32Array;
  /** [t·dModel] LN2 output */ norm2: Float32Array;
  /** [t·dFF] before the activation */ ffnPre: Float32Array;
  /** [t·dFF] after the activation */ ffnActivated: Float32Array;
  /** [t·dModel] */ ffnOut: Float32Array; residual3: Float32Array; norm3: Float32Array; output: Float32Array;
}

export interface OutputHeadArgs {
  /** [rows·dModel] final hidden states */ h: Matrix; rows: number;
  /** [vocab·dModel] the embedding table, tied (Press & Wolf) */ table: Matrix; vocab: number; dModel: number;
  /** [vocab] */ bias?: Matrix;
  /** > 0, default 1 */ temperature?: number;
}

export interface KernelRegressionArgs {
  /** [n·dim] training inputs x_i (the keys) */ xs: Matrix;
  /** [n] training targets y_i (the values) */ ys: Matrix;
  /** [nq·dim] query points (the queries) */ queries: Matrix;
  /** > 0, default 1: weights = softmax(f(x, x_i) / bandwidth) */ bandwidth?: number;
  /** 'gaussian' (default): f = −‖x − x_i‖²; 'dot': f = x·x_i */ kernel?: 'gaussian' | 'dot';
  /** default 1 */ dim?: number;
}
export interface KernelRegressionResult {
  /** [nq·n] f(x, x_i) */ scores: Float32Array;
  /** [nq·n] softmax(scores / bandwidth) by rows */ weights: Float32Array;
  /** [nq] Σ_i weights·y_i */ predictions: Float32Array;
}

export interface TokenizerArgs {
  /** 'char': Unicode code points; 'word': runs of non-space and runs of space; 'bpe': byte-level BPE trained on text */
  kind: 'char' | 'word' | 'bpe';
  /** training text: the vocabulary of 'char'/'word', the merge statistics of 'bpe' */ text: string;
  /** 'bpe' only: 256 bytes + merges, default 256 + 64; training stops earlier when no pair occurs twice */ vocabSize?: number;
}
export interface Tokenizer {
  readonly kind: 'char' | 'word' | 'bpe';
  /** number of ids; ids are 0 … size−1 ('char'/'word': id 0 is '<unk>') */ readonly size: number;
  /** 'bpe': the learned merges in order, as pairs of ids */ readonly merges: ReadonlyArray<readonly [number, number]>;
  encode(s: string): Int32Array;
  /** decode(encode(s)) === s for every string ('bpe') or every string made of known pieces ('char'/'word') */
  decode(ids: ArrayLike<number>): string;
  /** the text of each id ('bpe': bytes shown as UTF-8, an incomplete sequence as U+FFFD) */
  token(id: number): string;
  /** encode(s) as the token strings, for display */ pieces(s: string): string[];
}
export interface MultiHeadWeights {
  wq: Matrix; wk: Matrix; wv: Matrix; wo: Matrix;
  bq?: Matrix; bk?: Matrix; bv?: Matrix; bo?: Matrix;
}
/** multiHeadAttention's per-call arguments, for a layer that holds the weights. */
export type MultiHeadCallArgs = Omit<MultiHeadArgs, 'dModel' | 'heads' | keyof MultiHeadWeights>;
export class MultiHeadAttentionLayer {
  readonly dModel: number;
  readonly heads: number;
  forward(args: MultiHeadCallArgs & { intermediates: false }): { output: Float32Array };
  forward(args: MultiHeadCallArgs): MultiHeadResult;
  /** Frees the weights' memory (also done when the layer is garbage-collected); forward() then throws. */
  dispose(): void;
}
export function createTokenizer(args: TokenizerArgs): Tokenizer;
/** GPT-2's own tokenizer: byte-level BPE r50k_base (the gpt-tokenizer package), ids as in GPT-2's checkpoints. */
export interface Gpt2Tokenizer {
  readonly kind: 'gpt2';
  /** 50257: 50256 BPE tokens and '<|endoftext|>' = 50256 */ readonly size: number;
  /** the text '<|endoftext|>' becomes id 50256 (as in Hugging Face's GPT2Tokenizer) */ encode(s: string): Int32Array;
  /** decode(encode(s)) === s for every well-formed string (a lone surrogate is encoded as U+FFFD) */
  decode(ids: ArrayLike<number>): string;
  /** the text GPT-2 sees, leading space included (id 995 'Ġworld' → ' world'); bytes of an incomplete character as U+FFFD */
  token(id: number): string;
  /** one string per token, joined === s: a character spread over several tokens is on the token that completes it, '' on those before */
  pieces(s: string): string[];
}
/** Loads GPT-2's vocabulary on the first call (a dynamic import: pages that never call it never load it). */
export function createGpt2Tokenizer(): Promise<Gpt2Tokenizer>;

// ---- The small GPT (core/include/attnlab/gpt.h): lab.createModel / lab.loadModel → Model
/** Token ids: an Int32Array (copied as is) or an array of integers, in [0, vocab). */
export type TokenIds = Int32Array | ArrayLike<number>;
export interface ModelConfig {
  /** Positive integers; heads divides dModel. Limits: vocab ≤ 65536, context ≤ 4096, layers ≤ 64, dModel ≤ 4096, dFF ≤ 16384, ≤ 2^26 parameters. */
  vocab: number; context: number; layers: number; heads: number; dModel: number;
  /** Default 4·dModel; ignored when attentionOnly. */ dFF?: number;
  /** Default false: no MLP sub-layers. */ attentionOnly?: boolean;
  /** Default true: pre-LN and a final LN; false: no LayerNorm at all. */ layerNorm?: boolean;
  /** Default 'gelu'. */ activation?: ActivationKind;
  /** Default 0.02 (GPT-2): σ of the W_* init, in (0, 10]. Without LayerNorm ~0.25 trains far sooner (gpt.h). */ initStd?: number;
  /** Default 0; an integer in [0, 2^32). The same seed gives the same weights. */ seed?: number;
}
/** The resolved config: dFF filled in; seed for a model from createModel (a checkpoint does not store it). */
export type ResolvedModelConfig = Readonly<Required<Omit<ModelConfig, 'seed'>> & {
  seed?: number;
  /** Inference-only models: LayerNorm's eps (a GPT-2 file: its layer_norm_epsilon). */ lnEps?: number;
  /** true for a pretrained model (a GPT-2 file): no gradient or optimizer memory; trainStep/computeGradients/gradients throw. Absent for trainable models. */
  inferenceOnly?: true;
} & Partial<Gpt2ConfigFields & { source: 'gpt2' }>>;
/** Hugging Face GPT-2 config.json fields loadModel reads (others are ignored). A model loaded from a GPT-2 file reports them all. */
export interface Gpt2ConfigFields {
  /** Heads; default n_embd / 64 (GPT-2's 64-wide heads). */ n_head: number;
  /** Checked against the file's shapes when given. */ n_layer: number; n_embd: number; n_positions: number; vocab_size: number;
  /** Default 4·n_embd (null in config.json). */ n_inner: number | null;
  /** Default 'gelu_new' (tanh approximation). */ activation_function: 'gelu_new' | 'gelu_pytorch_tanh' | 'gelu' | 'relu';
  /** Default 1e-5. */ layer_norm_epsilon: number;
}
export interface LoadModelOptions {
  /** The parsed config.json of a GPT-2 file (ignored for attnlab checkpoints). */ config?: Partial<Gpt2ConfigFields> & Record<string, unknown>;
  /** Called as bytes arrive: loaded and total file bytes. */ onProgress?: (p: { loaded: number; total: number }) => void;
}
export interface ModelForwardArgs {
  /** [batch·t] row-major, 1 ≤ t ≤ context. */ ids: TokenIds;
  /** Default 1. */ batch?: number;
  /** [batch·t]: adds loss and tokenLosses. */ targets?: TokenIds;
  /** Default true; false leaves out the attention weights. */ attention?: boolean;
  /** The logit lens (batch 1): true = { position: t − 1, k: 5 }. Adds `lens` to the result. */ lens?: boolean | LensOptions;
  /** Default 'all' ([batch·t·vocab]); 'last': each sequence's last row only, [batch·vocab] (no targets). */ logits?: 'all' | 'last';
}
export interface LensOptions {
  /** Default the last, t − 1; an integer in [0, t). */ position?: number;
  /** Default 5; an integer in [1, vocab]. */ k?: number;
}
/** One readout of the logit lens: the k most probable next tokens, most probable first. */
export interface LensEntry { ids: Int32Array; probs: Float32Array }
export interface ModelForwardResult {
  /** [batch·t·vocab], or [batch·vocab] with logits: 'last'. */ logits: Float32Array;
  /** attention[layer][head]: softmax weights [batch·t·t] (causal: 0 above the diagonal). */ attention?: Float32Array[][];
  /** Mean cross-entropy (with targets). */ loss?: number;
  /** [batch·t] −log p(target) per position (with targets). */ tokenLosses?: Float32Array;
  /**
   * With `lens`: layers + 1 entries; entry l is the residual stream after l layers (0: embeddings +
   * positions) at `position`, through the final LayerNorm and the tied unembedding, softmaxed, top k.
   * The last entry is the model's own next-token distribution there.
   */
  lens?: LensEntry[];
  batch: number; t: number;
}
export interface TrainStepArgs {
  ids: TokenIds; targets: TokenIds; batch?: number;
  /** torch.optim.AdamW's defaults: lr 1e-3, beta1 0.9, beta2 0.999, eps 1e-8, weightDecay 0.01 (rank-2 tensors only). */
  lr?: number; beta1?: number; beta2?: number; eps?: number; weightDecay?: number;
  /** clip_grad_norm_ threshold; default Infinity: measure only. */ maxGradNorm?: number;
}
export interface GenerateArgs {
  /** 1 to context token ids. */ prompt: TokenIds;
  /** New tokens to sample (≥ 0). */ steps: number;
  /** Default 1; 0 = greedy (argmax). */ temperature?: number;
  /** Default 0 = the whole vocabulary. */ topK?: number;
  /** Default 0; an integer in [0, 2^32). */ seed?: number;
}
export interface NamedTensor { shape: number[]; data: Float32Array }
/** A small GPT in WebAssembly memory. dispose() frees it (later calls throw "model: this model was disposed, …"). */
export class Model {
  readonly config: ResolvedModelConfig;
  /** Number of parameters (floats). */ readonly numParams: number;
  /** Optimizer steps taken so far. */ readonly step: number;
  forward(args: ModelForwardArgs): ModelForwardResult;
  /** Forward, backward, clip, AdamW. A non-finite loss or gradient throws and changes nothing. */
  trainStep(args: TrainStepArgs): { loss: number; gradNorm: number; step: number };
  /** Gradients without a step; read them with gradients(). */
  computeGradients(args: { ids: TokenIds; targets: TokenIds; batch?: number }): { loss: number };
  /** Sampling with a KV cache: `steps` new tokens. Past the context the window slides. */
  generate(args: GenerateArgs): Int32Array;
  /** Copies, by name in gpt.h's order: 'embed.W_E', 'pos_embed.W_pos', 'blocks.0.attn.W_Q', …; W is [in, out]. */
  parameters(): Record<string, NamedTensor>;
  /** The gradients of the last computeGradients/trainStep, shaped as parameters(). */
  gradients(): Record<string, NamedTensor>;
  /** Any subset, by name: flat arrays or { shape, data } (what parameters() returns); checked (names, lengths, finite) before anything is written. */
  setParameters(values: Record<string, Matrix | { shape?: number[]; data: Matrix }>): void;
  /** [layers·heads] scales of each head's output (1 keep, 0 ablate), forward and generate only; null: none. */
  setHeadMask(mask: Matrix | null): void;
  /** A safetensors file; optimizer: true adds Adam's moments and the step count. */
  save(args?: { optimizer?: boolean; layout?: 'attnlab' }): Uint8Array;
  /** Hugging Face GPT-2's names (fused c_attn [in, out], no prefix, metadata format 'pt') and its config.json text; refused for attention-only or LayerNorm-free models and a nonzero unembed.b_U (GPT-2's head has no bias). */
  save(args: { layout: 'gpt2' }): { bytes: Uint8Array; config: string };
  /** Frees the WebAssembly memory (also done, eventually, if the model is garbage-collected). Safe to call twice. */
  dispose(): void;
}

export class AttnLab {
  attention(args: AttentionArgs): AttentionResult;
  /** output [tq·dv] = weights [tq·tk] · v [tk·dv] */
  weightedSum(args: { weights: Matrix; v: Matrix; tq: number; tk: number; dv: number }): Float32Array;
  multiHeadAttention(args: MultiHeadArgs & { intermediates: false }): { output: Float32Array };
  multiHeadAttention(args: MultiHeadArgs): MultiHeadResult;
  /** A layer holding its weights in WebAssembly memory (checked and copied once); free with dispose(). */
  createMultiHeadAttention(args: MultiHeadWeights & { dModel: number; heads: number }): MultiHeadAttentionLayer;
  /** [length·dModel] */
  positionalEncoding(args: PositionalEncodingArgs): Float32Array;
  /** RoPE-rotated copy of x [t·dim] for positions offset … offset+t−1. */
  rope(args: { x: Matrix; t: number; dim: number; base?: number; offset?: number }): Float32Array;
  /** ALiBi slopes [heads] and bias [heads·tq·tk]. */
  alibi(args: { heads: number; tq: number; tk?: number }): { slopes: Float32Array; bias: Float32Array };
  // ---- The rest of the Transformer
  /** [rows·dim], torch.nn.LayerNorm (biased variance, two-pass). */
  layerNorm(args: LayerNormArgs): Float32Array;
  /** [rows·dim], x / √(mean(x²) + eps) · gamma. */
  rmsNorm(args: RmsNormArgs): Float32Array;
  /** Element-wise: GELU exact (erf), GELU tanh approximation, or ReLU. */
  activation(args: { x: Matrix; kind: ActivationKind }): Float32Array;
  feedForward(args: FeedForwardArgs): FeedForwardResult;
  encoderBlock(args: EncoderBlockArgs): EncoderBlockResult;
  decoderBlock(args: DecoderBlockArgs): DecoderBlockResult;
  /** [ids.length·dModel]: row ids[i] of table [vocab·dModel] (= one-hot(ids)·W_E). ids: integers in [0, vocab). */
  embedding(args: { table: Matrix; vocab: number; dModel: number; ids: ArrayLike<number> }): Float32Array;
  /** logits [rows·vocab] = h·W_Eᵀ (+ bias), probs = softmax(logits / temperature) by rows. */
  outputHead(args: OutputHeadArgs): { logits: Float32Array; probs: Float32Array };
  /** Nadaraya-Watson kernel regression, computed by the attention code with score f(Q, K). */
  kernelRegression(args: KernelRegressionArgs): KernelRegressionResult;
  /** A small GPT with fresh parameters (deterministic from seed); free it with model.dispose(). */
  createModel(args: ModelConfig): Model;
  /** The model in a safetensors file from model.save(). */
  /** An attnlab checkpoint (model.save()) or a Hugging Face GPT-2 safetensors file (inference-only), detected by its tensor names. Bytes load synchronously. */
  loadModel(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, options?: LoadModelOptions): Model;
  /** A Blob/File or a URL (fetch; in Node also a file: URL or a path): streamed into WebAssembly memory (a GPT-2 file is never whole in JS), resolves to the Model. */
  loadModel(source: Blob | string | URL, options?: LoadModelOptions): Promise<Model>;
  /** Same as createTokenizer (pure JS, no WASM). */
  tokenizer(args: TokenizerArgs): Tokenizer;
  info(): AttnLabInfo;
  dispose(): void;
}

export const MAX_CALL_BYTES: number;
export function supportsWasmSimd(): boolean;
export function createAttnLab(options?: { wasmBinary?: ArrayBuffer | Uint8Array }): Promise<AttnLab>;
