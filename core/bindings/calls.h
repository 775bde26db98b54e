// calls.h — the contract between the WebAssembly core and the JS facade (web/api/), declared once.
//
// Each entry point takes one argument: the heap address of a plain C struct (a "call") whose fields
// are listed below as F(type, name). From each list come, at compile time,
//   * the C struct embind.cc reads (by field name, never by position), and
//   * a row of the layout table attnlab_contract() returns as JSON: every field's name, type and
//     byte offset, plus the codes of the enums a call carries (mask kinds, activations, …) taken
//     from the C++ enums themselves.
// The facade (web/api/core.js) reads that table when the module loads and writes every call by
// field name; a field it does not supply, or one it supplies that the core does not declare, is an
// error naming the call and the field (web/api/contract.test.js calls every entry point). So the
// order of fields, their offsets and the enum codes exist in one place: here and in the C++ enums.
//
// Field names are the facade's argument and result names (wq, ln1Gamma, attnWeights, ffnPre …):
// a call is "the JS call as C sees it". Types are 4-byte words: ptr (a wasm32 heap address,
// 0 = none), i32 (a size, a flag, an enum code), f32.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab::wire {

using ptr = uint32_t;
using i32 = int32_t;
using f32 = float;

// The mask every attention call carries: kind (an enum code, see the table), the window half-width,
// causal (window: only look back), mask (additive [tq·tk] values when kind is additive).
#define ATTNLAB_MASK_FIELDS(F) F(i32, maskKind) F(i32, window) F(i32, causal) F(ptr, mask)

// A multi-head weight set: [D·D] matrices and optional [D] biases. A layer keeps one in its memory
// block and passes its address as `weightSet`.
#define ATTNLAB_MULTIHEAD_WEIGHTS(F, p) \
  F(ptr, p##wq) F(ptr, p##wk) F(ptr, p##wv) F(ptr, p##wo) F(ptr, p##bq) F(ptr, p##bk) F(ptr, p##bv) F(ptr, p##bo)
#define ATTNLAB_MULTIHEAD_WEIGHT_SET(F) ATTNLAB_MULTIHEAD_WEIGHTS(F, )

#define ATTNLAB_ATTENTION_CALL(F)                                                              \
  F(ptr, q) F(ptr, k) F(ptr, v) F(i32, tq) F(i32, tk) F(i32, dk) F(i32, dv) F(f32, scale)       \
  ATTNLAB_MASK_FIELDS(F) F(f32, alibiSlope)                                                    \
  F(ptr, scores) F(ptr, scaled) F(ptr, weights) F(ptr, output)

#define ATTNLAB_WEIGHTED_SUM_CALL(F) \
  F(ptr, weights) F(ptr, v) F(i32, tq) F(i32, tk) F(i32, dv) F(ptr, output)

// context = 0: self-attention (tk = tq). scale ≤ 0: 1/√(dModel/heads).
#define ATTNLAB_MULTIHEAD_INPUTS(F)                                                            \
  F(ptr, x) F(i32, tq) F(ptr, context) F(i32, tk) F(i32, dModel) F(i32, heads) F(ptr, weightSet) \
  ATTNLAB_MASK_FIELDS(F) F(f32, scale) F(i32, rope) F(f32, ropeBase) F(i32, alibi)

#define ATTNLAB_MULTIHEAD_CALL(F) \
  ATTNLAB_MULTIHEAD_INPUTS(F)     \
  F(ptr, q) F(ptr, k) F(ptr, v) F(ptr, scores) F(ptr, weights) F(ptr, headsConcat) F(ptr, output)

// Output only, online softmax: q, k, v are scratch; workspace as attnlab_multihead_workspace().
#define ATTNLAB_MULTIHEAD_STREAMING_CALL(F) \
  ATTNLAB_MULTIHEAD_INPUTS(F) F(ptr, q) F(ptr, k) F(ptr, v) F(ptr, workspace) F(ptr, output)

#define ATTNLAB_SINUSOIDAL_CALL(F) F(i32, length) F(i32, dModel) F(f32, base) F(ptr, output)

#define ATTNLAB_ROPE_CALL(F) \
  F(ptr, x) F(i32, t) F(i32, dim) F(f32, base) F(i32, offset) F(ptr, output)

#define ATTNLAB_ALIBI_CALL(F) F(i32, heads) F(i32, tq) F(i32, tk) F(ptr, slopes) F(ptr, bias)

#define ATTNLAB_LAYER_NORM_CALL(F) \
  F(ptr, x) F(i32, rows) F(i32, dim) F(ptr, gamma) F(ptr, beta) F(f32, eps) F(ptr, output)

#define ATTNLAB_RMS_NORM_CALL(F) \
  F(ptr, x) F(i32, rows) F(i32, dim) F(ptr, gamma) F(f32, eps) F(ptr, output)

#define ATTNLAB_ACTIVATION_CALL(F) F(i32, kind) F(ptr, x) F(i32, n) F(ptr, output)

#define ATTNLAB_FFN_WEIGHTS(F) F(ptr, w1) F(ptr, b1) F(ptr, w2) F(ptr, b2)

#define ATTNLAB_FEED_FORWARD_CALL(F)                                                           \
  F(ptr, x) F(i32, rows) F(i32, dModel) F(i32, dFF) ATTNLAB_FFN_WEIGHTS(F) F(i32, activation)  \
  F(ptr, pre) F(ptr, activated) F(ptr, output)

#define ATTNLAB_BLOCK_OPTIONS(F) \
  F(i32, dModel) F(i32, heads) F(i32, dFF) F(i32, norm) F(i32, activation) ATTNLAB_MASK_FIELDS(F) F(f32, eps)

#define ATTNLAB_ENCODER_BLOCK_CALL(F)                                                          \
  F(ptr, x) F(i32, t) ATTNLAB_BLOCK_OPTIONS(F)                                                 \
  ATTNLAB_MULTIHEAD_WEIGHTS(F, ) F(ptr, ln1Gamma) F(ptr, ln1Beta) F(ptr, ln2Gamma) F(ptr, ln2Beta) \
  ATTNLAB_FFN_WEIGHTS(F)                                                                       \
  F(ptr, q) F(ptr, k) F(ptr, v) F(ptr, attnWeights) F(ptr, attnHeads) F(ptr, attnOut)          \
  F(ptr, residual1) F(ptr, norm1) F(ptr, ffnPre) F(ptr, ffnActivated) F(ptr, ffnOut)           \
  F(ptr, residual2) F(ptr, norm2) F(ptr, output)

#define ATTNLAB_DECODER_BLOCK_CALL(F)                                                          \
  F(ptr, x) F(i32, t) F(ptr, memory) F(i32, tm) ATTNLAB_BLOCK_OPTIONS(F)                       \
  ATTNLAB_MULTIHEAD_WEIGHTS(F, ) ATTNLAB_MULTIHEAD_WEIGHTS(F, c)                               \
  F(ptr, ln1Gamma) F(ptr, ln1Beta) F(ptr, ln2Gamma) F(ptr, ln2Beta) F(ptr, ln3Gamma) F(ptr, ln3Beta) \
  ATTNLAB_FFN_WEIGHTS(F)                                                                       \
  F(ptr, selfQ) F(ptr, selfK) F(ptr, selfV) F(ptr, selfWeights) F(ptr, selfHeads)              \
  F(ptr, selfAttnOut) F(ptr, residual1) F(ptr, norm1)                                          \
  F(ptr, crossQ) F(ptr, crossK) F(ptr, crossV) F(ptr, crossWeights) F(ptr, crossHeads)         \
  F(ptr, crossAttnOut) F(ptr, residual2) F(ptr, norm2)                                         \
  F(ptr, ffnPre) F(ptr, ffnActivated) F(ptr, ffnOut) F(ptr, residual3) F(ptr, norm3) F(ptr, output)

#define ATTNLAB_EMBEDDING_CALL(F) \
  F(ptr, table) F(i32, vocab) F(i32, dModel) F(ptr, ids) F(i32, n) F(ptr, output)

#define ATTNLAB_OUTPUT_HEAD_CALL(F)                                                            \
  F(ptr, h) F(i32, rows) F(ptr, table) F(i32, vocab) F(i32, dModel) F(ptr, bias)              \
  F(f32, temperature) F(ptr, logits) F(ptr, probs)

#define ATTNLAB_KERNEL_REGRESSION_CALL(F)                                                      \
  F(ptr, xs) F(ptr, ys) F(i32, n) F(ptr, queries) F(i32, nq) F(i32, dim) F(i32, kernel)        \
  F(f32, bandwidth) F(ptr, scores) F(ptr, weights) F(ptr, predictions)

// ---- The model (attnlab/gpt.h): a Gpt that lives in WebAssembly memory between calls ----------------
// model: the handle createModel / loadModel gave: an id from the bindings' registry of live models,
// not an address (a disposed model's address can be the next model's; an id is never reused), so a
// stale or made-up handle is refused with a message, never dereferenced. result: the address of a
// modelResult the call fills (the facade zeroes it first); ids/targets/prompt/out: int32 arrays.

// What model calls give back. bytes/size: a malloc'd buffer (save's file, modelInfo's JSON) that the
// facade copies out and frees with _free.
#define ATTNLAB_MODEL_RESULT(F)                                                                \
  F(i32, model) F(i32, numParams) F(i32, step) F(f32, loss) F(f32, gradNorm) F(ptr, params)     \
  F(ptr, grads) F(ptr, bytes) F(i32, size)

// dFF = 0: 4·dModel. seed: the low 32 bits (the facade takes seeds in [0, 2^32)).
#define ATTNLAB_CREATE_MODEL_CALL(F)                                                           \
  F(i32, vocab) F(i32, context) F(i32, layers) F(i32, heads) F(i32, dModel) F(i32, dFF)         \
  F(i32, attentionOnly) F(i32, layerNorm) F(i32, activation) F(f32, initStd) F(i32, seed) F(ptr, result)

#define ATTNLAB_LOAD_MODEL_CALL(F) F(ptr, bytes) F(i32, size) F(ptr, result)

// modelInfo: bytes = JSON { config, numParams, tensors: [[name, offset, [shape]], …] } (read once
// per model); modelState: numParams, step, params and grads addresses (cheap: no string).
#define ATTNLAB_MODEL_INFO_CALL(F) F(i32, model) F(ptr, result)
#define ATTNLAB_MODEL_STATE_CALL(F) F(i32, model) F(ptr, result)
#define ATTNLAB_MODEL_DISPOSE_CALL(F) F(i32, model)

// ids, targets (0 = none): [batch·t]. Outputs the facade provides (0 = not wanted): logits
// [batch·t·vocab]; attention [layers·heads·batch·t·t] (head-major, so each head's [batch·t·t] is one
// block; the model keeps [batch, heads, t, t] per layer); tokenLosses [batch·t]. result: loss.
#define ATTNLAB_MODEL_FORWARD_CALL(F)                                                          \
  F(i32, model) F(ptr, ids) F(ptr, targets) F(i32, batch) F(i32, t) F(ptr, logits)             \
  F(ptr, attention) F(ptr, tokenLosses) F(ptr, result)

// result: loss (gradients stay in the model: modelState's grads).
#define ATTNLAB_MODEL_GRADIENTS_CALL(F) \
  F(i32, model) F(ptr, ids) F(ptr, targets) F(i32, batch) F(i32, t) F(ptr, result)

// adamw: 6 float64 [lr, beta1, beta2, eps, weightDecay, maxGradNorm] — doubles, as torch's Python
// floats (optimizer.h): 4-byte fields would round β2 = 0.999. result: loss, gradNorm, step.
#define ATTNLAB_MODEL_TRAIN_STEP_CALL(F) \
  F(i32, model) F(ptr, ids) F(ptr, targets) F(i32, batch) F(i32, t) F(ptr, adamw) F(ptr, result)

// prompt [n], out [steps]; temperature 0 = greedy, topK 0 = all, seed: the low 32 bits.
#define ATTNLAB_MODEL_GENERATE_CALL(F)                                                         \
  F(i32, model) F(ptr, prompt) F(i32, n) F(i32, steps) F(f32, temperature) F(i32, topK)        \
  F(i32, seed) F(ptr, out)

// mask: [layers·heads] scales, 0 = every head kept.
#define ATTNLAB_MODEL_HEAD_MASK_CALL(F) F(i32, model) F(ptr, mask)

// result: bytes/size of the safetensors file.
#define ATTNLAB_MODEL_SAVE_CALL(F) F(i32, model) F(i32, optimizer) F(ptr, result)

// Every call: C(name the facade uses, struct, field list). The entry point is attnlab_<name>.
// Adding an op: a field list above, a row here, its entry point in embind.cc, its JS in web/api/.
#define ATTNLAB_CALLS(C)                                                     \
  C(attention, AttentionCall, ATTNLAB_ATTENTION_CALL)                        \
  C(weightedSum, WeightedSumCall, ATTNLAB_WEIGHTED_SUM_CALL)                 \
  C(multiHeadAttention, MultiHeadCall, ATTNLAB_MULTIHEAD_CALL)               \
  C(multiHeadStreaming, MultiHeadStreamingCall, ATTNLAB_MULTIHEAD_STREAMING_CALL) \
  C(sinusoidal, SinusoidalCall, ATTNLAB_SINUSOIDAL_CALL)                     \
  C(rope, RopeCall, ATTNLAB_ROPE_CALL)                                       \
  C(alibi, AlibiCall, ATTNLAB_ALIBI_CALL)                                    \
  C(layerNorm, LayerNormCall, ATTNLAB_LAYER_NORM_CALL)                       \
  C(rmsNorm, RmsNormCall, ATTNLAB_RMS_NORM_CALL)                             \
  C(activation, ActivationCall, ATTNLAB_ACTIVATION_CALL)                     \
  C(feedForward, FeedForwardCall, ATTNLAB_FEED_FORWARD_CALL)                 \
  C(encoderBlock, EncoderBlockCall, ATTNLAB_ENCODER_BLOCK_CALL)              \
  C(decoderBlock, DecoderBlockCall, ATTNLAB_DECODER_BLOCK_CALL)              \
  C(embedding, EmbeddingCall, ATTNLAB_EMBEDDING_CALL)                        \
  C(outputHead, OutputHeadCall, ATTNLAB_OUTPUT_HEAD_CALL)                    \
  C(kernelRegression, KernelRegressionCall, ATTNLAB_KERNEL_REGRESSION_CALL) \
  C(createModel, CreateModelCall, ATTNLAB_CREATE_MODEL_CALL)                 \
  C(loadModel, LoadModelCall, ATTNLAB_LOAD_MODEL_CALL)                       \
  C(modelInfo, ModelInfoCall, ATTNLAB_MODEL_INFO_CALL)                       \
  C(modelState, ModelStateCall, ATTNLAB_MODEL_STATE_CALL)                    \
  C(modelDispose, ModelDisposeCall, ATTNLAB_MODEL_DISPOSE_CALL)              \
  C(modelForward, ModelForwardCall, ATTNLAB_MODEL_FORWARD_CALL)              \
  C(modelGradients, ModelGradientsCall, ATTNLAB_MODEL_GRADIENTS_CALL)        \
  C(modelTrainStep, ModelTrainStepCall, ATTNLAB_MODEL_TRAIN_STEP_CALL)       \
  C(modelGenerate, ModelGenerateCall, ATTNLAB_MODEL_GENERATE_CALL)           \
  C(modelHeadMask, ModelHeadMaskCall, ATTNLAB_MODEL_HEAD_MASK_CALL)          \
  C(modelSave, ModelSaveCall, ATTNLAB_MODEL_SAVE_CALL)

// Structs a call points to (not calls themselves): S(name, struct, field list).
#define ATTNLAB_STRUCTS(S)                                                  \
  S(multiHeadWeightSet, MultiHeadWeightSet, ATTNLAB_MULTIHEAD_WEIGHT_SET)   \
  S(modelResult, ModelResult, ATTNLAB_MODEL_RESULT)

#define ATTNLAB_WIRE_FIELD(type, name) type name;
#define ATTNLAB_WIRE_COUNT(type, name) +1
#define ATTNLAB_WIRE_STRUCT(op, Struct, LIST)                                                    \
  struct Struct {                                                                               \
    LIST(ATTNLAB_WIRE_FIELD)                                                                    \
  };                                                                                            \
  static_assert(sizeof(Struct) == 4 * (0 LIST(ATTNLAB_WIRE_COUNT)), #Struct " has padding");
ATTNLAB_STRUCTS(ATTNLAB_WIRE_STRUCT)
ATTNLAB_CALLS(ATTNLAB_WIRE_STRUCT)
#undef ATTNLAB_WIRE_STRUCT

}  // namespace attnlab::wire
