// embind.cc — the only file that includes Emscripten headers. A thin skin over attnlab/ops.h:
// buffers arrive as WASM heap addresses (the JS facade in web/api/ owns their lifetime, copies
// inputs in and results out), every function returns 0 or an error code, and lastError() gives
// the message. No C++ exception ever crosses into JS (the ops do not throw), so a failed call
// leaves the WASM stack and heap exactly as they were.
#include <emscripten/bind.h>
#include <emscripten/stack.h>
#include <malloc.h>

#include <cstdint>
#include <string>

#include "attnlab/ops.h"
#include "../src/kernels/dispatch.h"

namespace {

std::string g_last_error;

int report(const attnlab::Status& s) {
  if (s.ok) return 0;
  g_last_error = s.message;
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

std::string last_error() { return g_last_error; }
bool uses_simd128() { return attnlab::kernels::kUsesSimd128; }

// For leak tests: bytes malloc has handed out and not taken back, and the C stack pointer.
unsigned heap_in_use() { return static_cast<unsigned>(mallinfo().uordblks); }
unsigned stack_pointer() { return static_cast<unsigned>(emscripten_stack_get_current()); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::function("attention", &attention);
  emscripten::function("weightedSum", &weighted_sum);
  emscripten::function("multiHeadAttention", &multihead);
  emscripten::function("sinusoidal", &sinusoidal);
  emscripten::function("rope", &rope);
  emscripten::function("alibi", &alibi);
  emscripten::function("lastError", &last_error);
  emscripten::function("usesSimd128", &uses_simd128);
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("stackPointer", &stack_pointer);
}
