// embind.cc — the only file that includes Emscripten headers. A thin skin over attnlab/ops.h:
// buffers arrive as WASM heap addresses (the JS facade in web/api/ owns their lifetime, copies
// inputs in and results out), every function returns 0 or an error code, and lastError() gives
// the message. No C++ exception ever crosses into JS (the ops do not throw), so a failed call
// leaves the WASM stack and heap exactly as they were.
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>  // EMSCRIPTEN_KEEPALIVE (issue 6)
#include <emscripten/stack.h>
#include <malloc.h>

#include <cstdint>
#include <string>

#include "attnlab/ops.h"
#include "../src/kernels/dispatch.h"

namespace {

// issue 7: reserved once at start-up, so no failed call ever changes heap use (see report()).
std::string g_last_error = [] {
  std::string s;
  s.reserve(1024);
  return s;
}();

int report(const attnlab::Status& s) {
  if (s.ok) return 0;
  // issue 7: a fixed capacity, so a failed call leaves heap use exactly as it was (a longer message
  // than any before would otherwise grow the string). Messages are far shorter; a longer one is cut.
  g_last_error.assign(s.message, 0, 1024);
  return 1;
}

template <class T = float>
T* ptr(uintptr_t p) { return reinterpret_cast<T*>(p); }

attnlab::Mask make_mask(int kind, int window, bool causal, uintptr_t additive) {
  switch (kind) {
    case 1: return attnlab::Mask::Causal();
    case 2: return attnlab::Mask::Window(window, causal);
    case 3: return attnlab::Mask::Additive(ptr<const float>(additive));
    default: return attnlab::Mask::None();
  }
}

int attention(uintptr_t q, uintptr_t k, uintptr_t v, int tq, int tk, int dk, int dv, float scale,
              int mask_kind, int window, bool causal, uintptr_t mask, float alibi_slope,
              uintptr_t scores, uintptr_t scaled, uintptr_t weights, uintptr_t out) {
  attnlab::AttentionArgs a{ptr<const float>(q), size_t(dk), ptr<const float>(k), size_t(dk),
                           ptr<const float>(v), size_t(dv), size_t(tq), size_t(tk), size_t(dk),
                           size_t(dv), scale, make_mask(mask_kind, window, causal, mask), alibi_slope};
  attnlab::AttentionOut o{ptr(scores), ptr(scaled), ptr(weights), ptr(out), size_t(dv)};
  return report(attnlab::attention_forward(a, o));
}

int weighted_sum(uintptr_t weights, uintptr_t v, int tq, int tk, int dv, uintptr_t out) {
  return report(attnlab::weighted_sum_forward(ptr<const float>(weights), ptr<const float>(v), tq, tk,
                                              dv, ptr(out)));
}

int multihead(uintptr_t x, int tq, uintptr_t context, int tk, int d_model, int heads, uintptr_t wq,
              uintptr_t wk, uintptr_t wv, uintptr_t wo, uintptr_t bq, uintptr_t bk, uintptr_t bv,
              uintptr_t bo, int mask_kind, int window, bool causal, uintptr_t mask, float scale,
              bool rope, float rope_base, bool alibi, uintptr_t q, uintptr_t k, uintptr_t v,
              uintptr_t scores, uintptr_t weights, uintptr_t heads_out, uintptr_t out) {
  attnlab::MultiHeadArgs a{ptr<const float>(x), size_t(tq), ptr<const float>(context), size_t(tk),
                           size_t(d_model), size_t(heads),
                           {ptr<const float>(wq), ptr<const float>(wk), ptr<const float>(wv),
                            ptr<const float>(wo), ptr<const float>(bq), ptr<const float>(bk),
                            ptr<const float>(bv), ptr<const float>(bo)},
                           make_mask(mask_kind, window, causal, mask), scale, rope, rope_base, alibi};
  attnlab::MultiHeadOut o{ptr(q), ptr(k), ptr(v), ptr(scores), ptr(weights), ptr(heads_out), ptr(out)};
  return report(attnlab::multihead_attention_forward(a, o));
}

int sinusoidal(int length, int d_model, float base, uintptr_t out) {
  return report(attnlab::sinusoidal_encoding(length, d_model, base, ptr(out)));
}

int rope(uintptr_t x, int t, int d, float base, int offset, uintptr_t out) {
  return report(attnlab::rope_rotate(ptr<const float>(x), t, d, base, offset, ptr(out)));
}

int alibi(int heads, int tq, int tk, uintptr_t slopes, uintptr_t bias) {
  if (int e = report(attnlab::alibi_slopes(heads, ptr(slopes)))) return e;
  return report(attnlab::alibi_bias(heads, tq, tk, ptr(bias)));
}

// ---- issue 3: the rest of the Transformer --------------------------------------------------------
attnlab::Activation make_activation(int kind) {
  return kind == 1 ? attnlab::Activation::gelu
                   : kind == 2 ? attnlab::Activation::gelu_tanh : attnlab::Activation::relu;
}
attnlab::NormPlacement make_norm(int pre) {
  return pre ? attnlab::NormPlacement::pre : attnlab::NormPlacement::post;
}
// A multi-head weight set from 8 consecutive heap addresses: wq wk wv wo bq bk bv bo (0 = none).
attnlab::MultiHeadWeights mha_weights(const uintptr_t* p) {
  attnlab::MultiHeadWeights w{ptr<const float>(p[0]), ptr<const float>(p[1]), ptr<const float>(p[2]),
                              ptr<const float>(p[3])};
  w.bq = ptr<const float>(p[4]), w.bk = ptr<const float>(p[5]);
  w.bv = ptr<const float>(p[6]), w.bo = ptr<const float>(p[7]);
  return w;
}
// Outputs of one attention sub-layer from 6 addresses: q k v weights heads out.
attnlab::MultiHeadOut mha_out(const uintptr_t* p) {
  attnlab::MultiHeadOut o{};
  o.q = ptr(p[0]), o.k = ptr(p[1]), o.v = ptr(p[2]), o.weights = ptr(p[3]), o.heads = ptr(p[4]),
  o.out = ptr(p[5]);
  return o;
}

int layer_norm(uintptr_t x, int rows, int dim, uintptr_t gamma, uintptr_t beta, float eps, uintptr_t out) {
  return report(attnlab::layer_norm_forward(ptr<const float>(x), rows, dim, ptr<const float>(gamma),
                                            ptr<const float>(beta), eps, ptr(out)));
}

int rms_norm(uintptr_t x, int rows, int dim, uintptr_t gamma, float eps, uintptr_t out) {
  return report(attnlab::rms_norm_forward(ptr<const float>(x), rows, dim, ptr<const float>(gamma), eps, ptr(out)));
}

int activation(int kind, uintptr_t x, int n, uintptr_t out) {
  return report(attnlab::activation_forward(make_activation(kind), ptr<const float>(x), n, ptr(out)));
}

int feed_forward(uintptr_t x, int rows, int d_model, int d_ff, uintptr_t w1, uintptr_t b1, uintptr_t w2,
                 uintptr_t b2, int act, uintptr_t pre, uintptr_t hidden, uintptr_t out) {
  attnlab::FeedForwardWeights w{ptr<const float>(w1), ptr<const float>(b1), ptr<const float>(w2),
                                ptr<const float>(b2)};
  return report(attnlab::feed_forward_forward(ptr<const float>(x), rows, d_model, d_ff, w, make_activation(act),
                                              {ptr(pre), ptr(hidden), ptr(out)}));
}

// The blocks take many buffers: the facade writes their addresses into an address table in the heap
// (`table`, uint32 each) in the order below, instead of 40 arguments.
//   encoder: wq wk wv wo bq bk bv bo | ln1γ ln1β ln2γ ln2β | w1 b1 w2 b2 |
//            q k v weights heads attnOut | residual1 norm1 | ffnPre ffnHidden ffnOut | residual2 norm2 out
int encoder_block(uintptr_t x, int t, int d_model, int heads, int d_ff, int pre, int act, int mask_kind,
                  int window, bool causal, uintptr_t mask, float eps, uintptr_t table) {
  const uintptr_t* p = ptr<const uintptr_t>(table);
  attnlab::EncoderBlockArgs a{};
  a.x = ptr<const float>(x), a.t = t, a.d_model = d_model, a.heads = heads, a.d_ff = d_ff;
  a.norm = make_norm(pre), a.activation = make_activation(act);
  a.mask = make_mask(mask_kind, window, causal, mask), a.eps = eps;
  a.w.attn = mha_weights(p);
  a.w.ln1 = {ptr<const float>(p[8]), ptr<const float>(p[9])};
  a.w.ln2 = {ptr<const float>(p[10]), ptr<const float>(p[11])};
  a.w.ffn = {ptr<const float>(p[12]), ptr<const float>(p[13]), ptr<const float>(p[14]), ptr<const float>(p[15])};
  const uintptr_t* q = p + 16;
  attnlab::EncoderBlockOut o{mha_out(q), ptr(q[6]), ptr(q[7]), {ptr(q[8]), ptr(q[9]), ptr(q[10])},
                             ptr(q[11]), ptr(q[12]), ptr(q[13])};
  return report(attnlab::encoder_block_forward(a, o));
}

//   decoder: self wq…bo (8) | cross wq…bo (8) | ln1γ ln1β ln2γ ln2β ln3γ ln3β | w1 b1 w2 b2 |
//            self q k v weights heads out | residual1 norm1 | cross q k v weights heads out |
//            residual2 norm2 | ffnPre ffnHidden ffnOut | residual3 norm3 out
int decoder_block(uintptr_t x, int t, uintptr_t memory, int tm, int d_model, int heads, int d_ff, int pre,
                  int act, int mask_kind, int window, bool causal, uintptr_t mask, float eps, uintptr_t table) {
  const uintptr_t* p = ptr<const uintptr_t>(table);
  attnlab::DecoderBlockArgs a{};
  a.x = ptr<const float>(x), a.t = t, a.memory = ptr<const float>(memory), a.t_m = tm;
  a.d_model = d_model, a.heads = heads, a.d_ff = d_ff;
  a.norm = make_norm(pre), a.activation = make_activation(act);
  a.mask = make_mask(mask_kind, window, causal, mask), a.eps = eps;
  a.w.self_attn = mha_weights(p);
  a.w.cross_attn = mha_weights(p + 8);
  a.w.ln1 = {ptr<const float>(p[16]), ptr<const float>(p[17])};
  a.w.ln2 = {ptr<const float>(p[18]), ptr<const float>(p[19])};
  a.w.ln3 = {ptr<const float>(p[20]), ptr<const float>(p[21])};
  a.w.ffn = {ptr<const float>(p[22]), ptr<const float>(p[23]), ptr<const float>(p[24]), ptr<const float>(p[25])};
  const uintptr_t* q = p + 26;
  attnlab::DecoderBlockOut o{mha_out(q),      ptr(q[6]),  ptr(q[7]),
                             mha_out(q + 8),  ptr(q[14]), ptr(q[15]),
                             {ptr(q[16]), ptr(q[17]), ptr(q[18])},
                             ptr(q[19]),      ptr(q[20]), ptr(q[21])};
  return report(attnlab::decoder_block_forward(a, o));
}

int embedding(uintptr_t table, int vocab, int d_model, uintptr_t ids, int n, uintptr_t out) {
  return report(attnlab::embedding_forward(ptr<const float>(table), vocab, d_model, ptr<const int>(ids), n,
                                           ptr(out)));
}

int output_head(uintptr_t h, int rows, uintptr_t table, int vocab, int d_model, uintptr_t bias,
                float temperature, uintptr_t logits, uintptr_t probs) {
  return report(attnlab::output_head_forward(ptr<const float>(h), rows, ptr<const float>(table), vocab, d_model,
                                             ptr<const float>(bias), temperature, ptr(logits), ptr(probs)));
}

int kernel_regression(uintptr_t xs, uintptr_t ys, int n, uintptr_t queries, int nq, int dim, int dot,
                      float bandwidth, uintptr_t scores, uintptr_t weights, uintptr_t predictions) {
  return report(attnlab::kernel_regression_forward(
      ptr<const float>(xs), ptr<const float>(ys), n, ptr<const float>(queries), nq, dim,
      dot ? attnlab::RegressionKernel::dot : attnlab::RegressionKernel::gaussian, bandwidth, ptr(scores),
      ptr(weights), ptr(predictions)));
}
// ---- end of issue 3 section

std::string last_error() { return g_last_error; }
bool uses_simd128() { return attnlab::kernels::kUsesSimd128; }

// For leak tests: bytes malloc has handed out and not taken back, and the C stack pointer.
unsigned heap_in_use() { return static_cast<unsigned>(mallinfo().uordblks); }
unsigned stack_pointer() { return static_cast<unsigned>(emscripten_stack_get_current()); }

}  // namespace

// ---- issue 6: plain C exports for the hot multi-head calls --------------------------------------
// Embind's generic invoker (no dynamic code: -sDYNAMIC_EXECUTION=0) converts each of ~30 arguments in
// a JS loop; a plain export is one direct WASM call, which matters at interactive sizes (16, 64, 4)
// where the whole op takes microseconds. The facade calls these as core._attnlab_mha*.
// w: 8 heap addresses wq wk wv wo bq bk bv bo (0 = none); mask_kind as make_mask.
extern "C" {

EMSCRIPTEN_KEEPALIVE int attnlab_mha(uintptr_t x, int tq, uintptr_t context, int tk, int d_model,
                                     int heads, uintptr_t w, int mask_kind, int window, int causal,
                                     uintptr_t mask, float scale, int rope, float rope_base, int alibi,
                                     uintptr_t q, uintptr_t k, uintptr_t v, uintptr_t scores,
                                     uintptr_t weights, uintptr_t heads_out, uintptr_t out) {
  const uintptr_t* p = ptr<const uintptr_t>(w);
  return multihead(x, tq, context, tk, d_model, heads, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
                   mask_kind, window, causal != 0, mask, scale, rope != 0, rope_base, alibi != 0, q, k,
                   v, scores, weights, heads_out, out);
}

// Output-only, streaming (online softmax): q, k, v are scratch; workspace as
// attnlab_mha_streaming_workspace().
EMSCRIPTEN_KEEPALIVE int attnlab_mha_streaming(uintptr_t x, int tq, uintptr_t context, int tk,
                                               int d_model, int heads, uintptr_t w, int mask_kind,
                                               int window, int causal, uintptr_t mask, float scale,
                                               int rope, float rope_base, int alibi, uintptr_t q,
                                               uintptr_t k, uintptr_t v, uintptr_t workspace,
                                               uintptr_t out) {
  const uintptr_t* p = ptr<const uintptr_t>(w);
  attnlab::MultiHeadWeights mw{ptr<const float>(p[0]), ptr<const float>(p[1]), ptr<const float>(p[2]),
                               ptr<const float>(p[3]), ptr<const float>(p[4]), ptr<const float>(p[5]),
                               ptr<const float>(p[6]), ptr<const float>(p[7])};
  attnlab::MultiHeadArgs a{ptr<const float>(x), size_t(tq), ptr<const float>(context), size_t(tk),
                           size_t(d_model), size_t(heads), mw,
                           make_mask(mask_kind, window, causal != 0, mask), scale, rope != 0,
                           rope_base, alibi != 0};
  attnlab::MultiHeadStreamingOut o{ptr(q), ptr(k), ptr(v), ptr(workspace), ptr(out)};
  return report(attnlab::multihead_attention_forward_streaming(a, o));
}

EMSCRIPTEN_KEEPALIVE double attnlab_mha_streaming_workspace(int tk, int d_model, int heads) {
  // double: a count too large for memory must reach JS intact (it then refuses the call).
  return static_cast<double>(attnlab::multihead_streaming_workspace_floats(tk, d_model, heads));
}

}  // extern "C"
// ---- end of issue 6 section

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::function("attention", &attention);
  emscripten::function("weightedSum", &weighted_sum);
  emscripten::function("multiHeadAttention", &multihead);
  emscripten::function("sinusoidal", &sinusoidal);
  emscripten::function("rope", &rope);
  emscripten::function("alibi", &alibi);
  // issue 3
  emscripten::function("layerNorm", &layer_norm);
  emscripten::function("rmsNorm", &rms_norm);
  emscripten::function("activation", &activation);
  emscripten::function("feedForward", &feed_forward);
  emscripten::function("encoderBlock", &encoder_block);
  emscripten::function("decoderBlock", &decoder_block);
  emscripten::function("embedding", &embedding);
  emscripten::function("outputHead", &output_head);
  emscripten::function("kernelRegression", &kernel_regression);
  emscripten::function("lastError", &last_error);
  emscripten::function("usesSimd128", &uses_simd128);
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("stackPointer", &stack_pointer);
}
