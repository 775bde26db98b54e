// embind.cc — the WebAssembly entry points: a thin skin over attnlab/ops.h (it includes only the
// public headers). Every op is one plain C export, attnlab_<op>(const <Op>Call*), whose argument is
// a struct declared in calls.h: the JS facade (web/api/core.js) writes it into the heap by field
// name, from the layout attnlab_contract() reports. Buffers are WASM heap addresses (the facade owns
// their lifetime, copies inputs in and results out); every entry point returns 0 or 1, and
// attnlab_last_error() gives the message. No C++ exception ever crosses into JS (the ops do not
// throw), so a failed call leaves the WASM stack and heap exactly as they were.
//
// Plain exports, not Embind: Embind's generic invoker (no dynamic code: -sDYNAMIC_EXECUTION=0)
// converts each argument in a JS loop, while a plain export is one direct WASM call, which matters
// at interactive sizes where the whole op takes microseconds.
#include <emscripten/em_macros.h>  // EMSCRIPTEN_KEEPALIVE
#include <emscripten/stack.h>
#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "attnlab/mask.h"
#include "attnlab/ops.h"
#include "calls.h"

namespace {

using namespace attnlab::wire;
using attnlab::Status;

// Reserved once at start-up, so no failed call ever changes heap use (see report()).
std::string g_last_error = [] {
  std::string s;
  s.reserve(1024);
  return s;
}();

int report(const Status& s) {
  if (s.ok) return 0;
  // A fixed capacity, so a failed call leaves heap use exactly as it was (a longer message than any
  // before would otherwise grow the string). Messages are far shorter; a longer one is cut.
  g_last_error.assign(s.message, 0, 1024);
  return 1;
}

float* out(ptr p) { return reinterpret_cast<float*>(uintptr_t(p)); }
const float* in(ptr p) { return reinterpret_cast<const float*>(uintptr_t(p)); }

// ---- Enum codes ---------------------------------------------------------------------------------
// The codes are the C++ enums' own values; the names are the facade's vocabulary. attnlab_contract()
// reports these tables, and the facade writes codes only from them.
struct EnumName {
  const char* name;
  int code;
};
using MaskKind = attnlab::Mask::Kind;
constexpr EnumName kMaskKinds[] = {{"none", int(MaskKind::none)},
                                   {"causal", int(MaskKind::causal)},
                                   {"window", int(MaskKind::window)},
                                   {"additive", int(MaskKind::additive)}};
constexpr EnumName kActivations[] = {{"relu", int(attnlab::Activation::relu)},
                                     {"gelu", int(attnlab::Activation::gelu)},
                                     {"gelu_tanh", int(attnlab::Activation::gelu_tanh)}};
constexpr EnumName kNormPlacements[] = {{"post", int(attnlab::NormPlacement::post)},
                                        {"pre", int(attnlab::NormPlacement::pre)}};
constexpr EnumName kRegressionKernels[] = {{"gaussian", int(attnlab::RegressionKernel::gaussian)},
                                           {"dot", int(attnlab::RegressionKernel::dot)}};

// The refusal of a code no table holds (a facade out of step with this build). Out of line: the
// string work stays out of every entry point.
[[gnu::noinline]] Status unknown_code(const char* op, const char* what, int code) {
  return Status::Fail(std::string(op) + ": internal error, " + what + " code " + std::to_string(code) +
                      " is not one this core declares (web/api and the WebAssembly build are out of step)");
}

// code → enum, refusing a code the table does not hold.
template <class E, size_t N>
Status decode(const char* op, const char* what, const EnumName (&table)[N], int code, E* e) {
  for (const EnumName& n : table)
    if (n.code == code) {
      *e = static_cast<E>(code);
      return Status::Ok();
    }
  return unknown_code(op, what, code);
}

#define ATTNLAB_TRY(expr)          \
  do {                             \
    const Status s_ = (expr);      \
    if (!s_.ok) return report(s_); \
  } while (0)

// The mask fields every attention call carries (ATTNLAB_MASK_FIELDS).
[[gnu::noinline]] Status make_mask(const char* op, i32 mask_kind, i32 window, i32 causal, ptr values,
                                   attnlab::Mask* m) {
  MaskKind kind{};
  if (Status s = decode(op, "mask kind", kMaskKinds, mask_kind, &kind); !s.ok) return s;
  switch (kind) {
    case MaskKind::causal: *m = attnlab::Mask::Causal(); break;
    case MaskKind::window: *m = attnlab::Mask::Window(window, causal != 0); break;
    case MaskKind::additive: *m = attnlab::Mask::Additive(in(values)); break;
    case MaskKind::none: *m = attnlab::Mask::None(); break;
  }
  return Status::Ok();
}
template <class Call>
Status make_mask(const char* op, const Call& c, attnlab::Mask* m) {
  return make_mask(op, c.maskKind, c.window, c.causal, c.mask, m);
}

attnlab::MultiHeadWeights multihead_weights(const MultiHeadWeightSet& w) {
  return {in(w.wq), in(w.wk), in(w.wv), in(w.wo), in(w.bq), in(w.bk), in(w.bv), in(w.bo)};
}

// The multi-head inputs both multi-head calls share (ATTNLAB_MULTIHEAD_INPUTS).
template <class Call>
Status multihead_args(const char* op, const Call& c, attnlab::MultiHeadArgs* a) {
  attnlab::Mask mask;
  if (Status s = make_mask(op, c, &mask); !s.ok) return s;
  *a = {in(c.x), size_t(c.tq), in(c.context), size_t(c.tk), size_t(c.dModel), size_t(c.heads),
        multihead_weights(*reinterpret_cast<const MultiHeadWeightSet*>(uintptr_t(c.weightSet))),
        mask, c.scale, c.rope != 0, c.ropeBase, c.alibi != 0};
  return Status::Ok();
}

template <class Call>
attnlab::FeedForwardWeights ffn_weights(const Call& c) {
  return {in(c.w1), in(c.b1), in(c.w2), in(c.b2)};
}

}  // namespace

namespace {
// The layout as data (one row per field, one loop below writes the JSON): no code per field.
struct FieldRow {
  const char* name;
  const char* type;
  size_t offset;
};
struct StructRow {
  const char* name;
  size_t bytes;
  const FieldRow* fields;
  size_t count;
};
#define ATTNLAB_FIELD_ROW(type, name) FieldRow{#name, #type, offsetof(S, name)},
#define ATTNLAB_STRUCT_ROW(op, Struct, LIST)                                              \
  [] {                                                                                    \
    using S = Struct;                                                                     \
    static constexpr FieldRow rows[] = {LIST(ATTNLAB_FIELD_ROW)};                         \
    return StructRow{#op, sizeof(S), rows, sizeof rows / sizeof rows[0]};                 \
  }(),
const StructRow kCallRows[] = {ATTNLAB_CALLS(ATTNLAB_STRUCT_ROW)};
const StructRow kStructRows[] = {ATTNLAB_STRUCTS(ATTNLAB_STRUCT_ROW)};
#undef ATTNLAB_STRUCT_ROW
#undef ATTNLAB_FIELD_ROW

void struct_json(std::string& j, const StructRow* rows, size_t n) {
  for (size_t s = 0; s < n; ++s) {
    j += s ? ",\"" : "\"", j += rows[s].name, j += "\":{\"bytes\":", j += std::to_string(rows[s].bytes);
    j += ",\"fields\":[";
    for (size_t f = 0; f < rows[s].count; ++f) {
      const FieldRow& r = rows[s].fields[f];
      j += f ? ",[\"" : "[\"", j += r.name, j += "\",\"", j += r.type, j += "\",", j += std::to_string(r.offset);
      j += "]";
    }
    j += "]}";
  }
}
}  // namespace

extern "C" {

// ---- Entry points: one per row of ATTNLAB_CALLS ----------------------------------------------------

EMSCRIPTEN_KEEPALIVE int attnlab_attention(const AttentionCall* c) {
  attnlab::Mask mask;
  ATTNLAB_TRY(make_mask("attention", *c, &mask));
  const attnlab::AttentionArgs a{in(c->q), size_t(c->dk), in(c->k), size_t(c->dk), in(c->v), size_t(c->dv),
                                 size_t(c->tq), size_t(c->tk), size_t(c->dk), size_t(c->dv), c->scale,
                                 mask, c->alibiSlope};
  const attnlab::AttentionOutputs o{out(c->scores), out(c->scaled), out(c->weights), out(c->output),
                                    size_t(c->dv)};
  return report(attnlab::attention_forward(a, o));
}

EMSCRIPTEN_KEEPALIVE int attnlab_weightedSum(const WeightedSumCall* c) {
  return report(attnlab::weighted_sum_forward(in(c->weights), in(c->v), c->tq, c->tk, c->dv, out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_multiHeadAttention(const MultiHeadCall* c) {
  attnlab::MultiHeadArgs a;
  ATTNLAB_TRY(multihead_args("multiHeadAttention", *c, &a));
  const attnlab::MultiHeadOutputs o{out(c->q),       out(c->k),           out(c->v),     out(c->scores),
                                    out(c->weights), out(c->headsConcat), out(c->output)};
  return report(attnlab::multihead_attention_forward(a, o));
}

EMSCRIPTEN_KEEPALIVE int attnlab_multiHeadStreaming(const MultiHeadStreamingCall* c) {
  attnlab::MultiHeadArgs a;
  ATTNLAB_TRY(multihead_args("multiHeadAttention", *c, &a));
  const attnlab::MultiHeadStreamingOutputs o{out(c->q), out(c->k), out(c->v), out(c->workspace),
                                             out(c->output)};
  return report(attnlab::multihead_attention_forward_streaming(a, o));
}

// Floats of workspace attnlab_multiHeadStreaming needs. double: a count too large for memory must
// reach JS intact (it then refuses the call).
EMSCRIPTEN_KEEPALIVE double attnlab_multihead_workspace(int tk, int d_model, int heads) {
  return static_cast<double>(attnlab::multihead_streaming_workspace_floats(tk, d_model, heads));
}

EMSCRIPTEN_KEEPALIVE int attnlab_sinusoidal(const SinusoidalCall* c) {
  return report(attnlab::sinusoidal_positional_encoding_forward(c->length, c->dModel, c->base, out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_rope(const RopeCall* c) {
  return report(attnlab::rope_rotate(in(c->x), c->t, c->dim, c->base, c->offset, out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_alibi(const AlibiCall* c) {
  if (int e = report(attnlab::alibi_slopes(c->heads, out(c->slopes)))) return e;
  return report(attnlab::alibi_bias(c->heads, c->tq, c->tk, out(c->bias)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_layerNorm(const LayerNormCall* c) {
  return report(attnlab::layer_norm_forward(in(c->x), c->rows, c->dim, in(c->gamma), in(c->beta), c->eps,
                                            out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_rmsNorm(const RmsNormCall* c) {
  return report(attnlab::rms_norm_forward(in(c->x), c->rows, c->dim, in(c->gamma), c->eps, out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_activation(const ActivationCall* c) {
  attnlab::Activation kind{};
  ATTNLAB_TRY(decode("activation", "activation", kActivations, c->kind, &kind));
  return report(attnlab::activation_forward(kind, in(c->x), c->n, out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_feedForward(const FeedForwardCall* c) {
  attnlab::Activation act{};
  ATTNLAB_TRY(decode("feedForward", "activation", kActivations, c->activation, &act));
  return report(attnlab::feed_forward_forward(in(c->x), c->rows, c->dModel, c->dFF, ffn_weights(*c), act,
                                              {out(c->pre), out(c->activated), out(c->output)}));
}

EMSCRIPTEN_KEEPALIVE int attnlab_encoderBlock(const EncoderBlockCall* c) {
  constexpr const char* op = "encoderBlock";
  attnlab::EncoderBlockArgs a{};
  ATTNLAB_TRY(decode(op, "norm", kNormPlacements, c->norm, &a.norm));
  ATTNLAB_TRY(decode(op, "activation", kActivations, c->activation, &a.activation));
  ATTNLAB_TRY(make_mask(op, *c, &a.mask));
  a.x = in(c->x), a.t = c->t, a.d_model = c->dModel, a.heads = c->heads, a.d_ff = c->dFF, a.eps = c->eps;
  a.w.attn = {in(c->wq), in(c->wk), in(c->wv), in(c->wo), in(c->bq), in(c->bk), in(c->bv), in(c->bo)};
  a.w.ln1 = {in(c->ln1Gamma), in(c->ln1Beta)};
  a.w.ln2 = {in(c->ln2Gamma), in(c->ln2Beta)};
  a.w.ffn = ffn_weights(*c);
  attnlab::EncoderBlockOutputs o{};
  o.attn.q = out(c->q), o.attn.k = out(c->k), o.attn.v = out(c->v), o.attn.weights = out(c->attnWeights);
  o.attn.heads = out(c->attnHeads), o.attn.out = out(c->attnOut);
  o.residual1 = out(c->residual1), o.norm1 = out(c->norm1);
  o.ffn = {out(c->ffnPre), out(c->ffnActivated), out(c->ffnOut)};
  o.residual2 = out(c->residual2), o.norm2 = out(c->norm2), o.out = out(c->output);
  return report(attnlab::encoder_block_forward(a, o));
}

EMSCRIPTEN_KEEPALIVE int attnlab_decoderBlock(const DecoderBlockCall* c) {
  constexpr const char* op = "decoderBlock";
  attnlab::DecoderBlockArgs a{};
  ATTNLAB_TRY(decode(op, "norm", kNormPlacements, c->norm, &a.norm));
  ATTNLAB_TRY(decode(op, "activation", kActivations, c->activation, &a.activation));
  ATTNLAB_TRY(make_mask(op, *c, &a.mask));
  a.x = in(c->x), a.t = c->t, a.memory = in(c->memory), a.t_m = c->tm;
  a.d_model = c->dModel, a.heads = c->heads, a.d_ff = c->dFF, a.eps = c->eps;
  a.w.self_attn = {in(c->wq), in(c->wk), in(c->wv), in(c->wo), in(c->bq), in(c->bk), in(c->bv), in(c->bo)};
  a.w.cross_attn = {in(c->cwq), in(c->cwk), in(c->cwv), in(c->cwo),
                    in(c->cbq), in(c->cbk), in(c->cbv), in(c->cbo)};
  a.w.ln1 = {in(c->ln1Gamma), in(c->ln1Beta)};
  a.w.ln2 = {in(c->ln2Gamma), in(c->ln2Beta)};
  a.w.ln3 = {in(c->ln3Gamma), in(c->ln3Beta)};
  a.w.ffn = ffn_weights(*c);
  attnlab::DecoderBlockOutputs o{};
  o.self_attn.q = out(c->selfQ), o.self_attn.k = out(c->selfK), o.self_attn.v = out(c->selfV);
  o.self_attn.weights = out(c->selfWeights), o.self_attn.heads = out(c->selfHeads);
  o.self_attn.out = out(c->selfAttnOut);
  o.residual1 = out(c->residual1), o.norm1 = out(c->norm1);
  o.cross_attn.q = out(c->crossQ), o.cross_attn.k = out(c->crossK), o.cross_attn.v = out(c->crossV);
  o.cross_attn.weights = out(c->crossWeights), o.cross_attn.heads = out(c->crossHeads);
  o.cross_attn.out = out(c->crossAttnOut);
  o.residual2 = out(c->residual2), o.norm2 = out(c->norm2);
  o.ffn = {out(c->ffnPre), out(c->ffnActivated), out(c->ffnOut)};
  o.residual3 = out(c->residual3), o.norm3 = out(c->norm3), o.out = out(c->output);
  return report(attnlab::decoder_block_forward(a, o));
}

EMSCRIPTEN_KEEPALIVE int attnlab_embedding(const EmbeddingCall* c) {
  return report(attnlab::embedding_forward(in(c->table), c->vocab, c->dModel,
                                           reinterpret_cast<const int*>(uintptr_t(c->ids)), c->n,
                                           out(c->output)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_outputHead(const OutputHeadCall* c) {
  return report(attnlab::output_head_forward(in(c->h), c->rows, in(c->table), c->vocab, c->dModel, in(c->bias),
                                             c->temperature, out(c->logits), out(c->probs)));
}

EMSCRIPTEN_KEEPALIVE int attnlab_kernelRegression(const KernelRegressionCall* c) {
  attnlab::RegressionKernel kernel{};
  ATTNLAB_TRY(decode("kernelRegression", "kernel", kRegressionKernels, c->kernel, &kernel));
  return report(attnlab::kernel_regression_forward(in(c->xs), in(c->ys), c->n, in(c->queries), c->nq, c->dim,
                                                   kernel, c->bandwidth, out(c->scores), out(c->weights),
                                                   out(c->predictions)));
}

// ---- The contract, and the module's state ---------------------------------------------------------

// JSON: { "calls": { op: { "bytes": n, "fields": [[name, type, offset], …] } }, "structs": { … },
//         "enums": { "maskKind": { name: code }, "activation": …, "norm": …, "kernel": … } }.
// Built from calls.h's lists and the enum tables above; the facade reads it once per module.
EMSCRIPTEN_KEEPALIVE const char* attnlab_contract() {
  static const std::string json = [] {
    std::string j = "{\"calls\":{";
    struct_json(j, kCallRows, sizeof kCallRows / sizeof kCallRows[0]);
    j += "},\"structs\":{";
    struct_json(j, kStructRows, sizeof kStructRows / sizeof kStructRows[0]);
    j += "},\"enums\":{";
    auto table = [&j](const char* name, const auto& entries, const char* after) {
      j += std::string("\"") + name + "\":{";
      const char* esep = "";
      for (const EnumName& e : entries) j += esep, j += std::string("\"") + e.name + "\":" + std::to_string(e.code), esep = ",";
      j += "}", j += after;
    };
    table("maskKind", kMaskKinds, ",");
    table("activation", kActivations, ",");
    table("norm", kNormPlacements, ",");
    table("kernel", kRegressionKernels, "");
    j += "}}";
    return j;
  }();
  return json.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* attnlab_last_error() { return g_last_error.c_str(); }
EMSCRIPTEN_KEEPALIVE int attnlab_uses_simd128() { return attnlab::uses_simd128() ? 1 : 0; }
// For leak tests: bytes malloc has handed out and not taken back, and the C stack pointer.
EMSCRIPTEN_KEEPALIVE unsigned attnlab_heap_in_use() { return static_cast<unsigned>(mallinfo().uordblks); }
EMSCRIPTEN_KEEPALIVE unsigned attnlab_stack_pointer() {
  return static_cast<unsigned>(emscripten_stack_get_current());
}

}  // extern "C"

// Every row of ATTNLAB_CALLS has its entry point attnlab_<op>(const <Op>Call*): a row without one,
// or with another signature, does not compile.
#define ATTNLAB_ENTRY_CHECK(op, Struct, LIST)                                        \
  static_assert(std::is_same_v<decltype(&attnlab_##op), int (*)(const Struct*)>,     \
                "attnlab_" #op " must be int(const " #Struct "*)");
ATTNLAB_CALLS(ATTNLAB_ENTRY_CHECK)
#undef ATTNLAB_ENTRY_CHECK
