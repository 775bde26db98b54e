// embind.cc — the WebAssembly entry points: a thin skin over attnlab/ops.h and attnlab/gpt.h (it
// includes only the public headers). Every op is one plain C export, attnlab_<op>(const <Op>Call*),
// whose argument is a struct declared in calls.h: the JS facade (web/api/core.js) writes it into the
// heap by field name, from the layout attnlab_contract() reports. Buffers are WASM heap addresses (the
// facade owns their lifetime, copies inputs in and results out); every entry point returns 0 or 1, and
// attnlab_last_error() gives the message. No C++ exception ever crosses into JS (the ops do not
// throw), so a failed call leaves the WASM stack and heap exactly as they were. A model (Gpt) lives
// in the heap between calls; the facade names it by a handle from the registry below.
//
// Plain exports, not Embind: Embind's generic invoker (no dynamic code: -sDYNAMIC_EXECUTION=0)
// converts each argument in a JS loop, while a plain export is one direct WASM call, which matters
// at interactive sizes where the whole op takes microseconds.
#include <emscripten/em_macros.h>  // EMSCRIPTEN_KEEPALIVE
#include <emscripten/stack.h>
#include <malloc.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "attnlab/gpt.h"
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

// The model's messages name the step that failed inside it ("forward: …" within a training step);
// the user called a JS method, whose name replaces that first word: "trainStep: ids[3] is 16, …".
int report_as(const char* op, const Status& s) {
  if (s.ok) return 0;
  const std::string& m = s.message;
  size_t word = 0;
  while (word < m.size() && word < 40 && (isalnum(static_cast<unsigned char>(m[word])) || m[word] == '_')) ++word;
  const size_t rest = word > 0 && m.compare(word, 2, ": ") == 0 ? word + 2 : 0;
  // Within the capacity reserved at start-up (see report()): no allocation on a failed call.
  g_last_error.assign(op);
  g_last_error.append(": ");
  g_last_error.append(m, rest, 1024 - g_last_error.size());
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
#define ATTNLAB_TRY_AS(op, expr)           \
  do {                                     \
    const Status s_ = (expr);              \
    if (!s_.ok) return report_as(op, s_);  \
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

// ---- Models: the live Gpt objects, by handle -------------------------------------------------------
// A handle is an id, never reused (a freed model's address may be the next model's): the facade can
// only name a model that is alive, and a stale or made-up handle is refused, never dereferenced. The
// table is a malloc'd array grown by doubling (few models live at once; lookup is a short scan),
// reserved at start-up so that creating and disposing models leaves heap use as it was.
struct ModelSlot {
  i32 id;
  attnlab::Gpt* model;
};
struct ModelTable {
  ModelSlot* slots = nullptr;
  size_t count = 0, capacity = 0;
  i32 next_id = 1;
};
ModelTable g_models = [] {
  ModelTable t;
  t.slots = static_cast<ModelSlot*>(malloc(16 * sizeof(ModelSlot)));
  t.capacity = t.slots ? 16 : 0;
  return t;
}();

[[gnu::noinline]] Status no_model(const char* op, i32 id) {
  return Status::Fail(std::string(op) + ": model " + std::to_string(id) +
                      " is not a live model, expected a handle from createModel or loadModel that was not disposed");
}

Status find_model(const char* op, i32 id, attnlab::Gpt** m) {
  for (size_t i = 0; i < g_models.count; ++i)
    if (g_models.slots[i].id == id) {
      *m = g_models.slots[i].model;
      return Status::Ok();
    }
  return no_model(op, id);
}

ModelResult* result_of(ptr p) { return reinterpret_cast<ModelResult*>(uintptr_t(p)); }
const int* ints(ptr p) { return reinterpret_cast<const int*>(uintptr_t(p)); }

void fill_state(const attnlab::Gpt& m, ModelResult* r) {
  r->numParams = i32(m.num_params());
  r->step = i32(m.steps_taken());
  r->params = ptr(uintptr_t(m.params()));
  r->grads = ptr(uintptr_t(m.grads()));
}

// Takes ownership of a new model: into the table (grown first; on failure the model is freed, as
// if never made), its handle and state into *r.
int adopt(const char* op, std::unique_ptr<attnlab::Gpt> m, ModelResult* r) {
  if (g_models.next_id == INT32_MAX)
    return report_as(op, Status::Fail("2^31 − 1 models were made in this module, "
                                      "expected fewer (ids are never reused)"));
  if (g_models.count == g_models.capacity) {
    const size_t cap = g_models.capacity ? 2 * g_models.capacity : 16;
    void* grown = realloc(g_models.slots, cap * sizeof(ModelSlot));
    if (!grown)
      return report_as(op, Status::Fail("could not get WebAssembly memory for another model, "
                                        "expected fewer live models (dispose() those no longer used)"));
    g_models.slots = static_cast<ModelSlot*>(grown);
    g_models.capacity = cap;
  }
  const i32 id = g_models.next_id++;
  g_models.slots[g_models.count++] = {id, m.get()};
  r->model = id;
  fill_state(*m.release(), r);
  return 0;
}

// A malloc'd copy of `n` bytes for the facade to copy out and free (save's file, modelInfo's JSON).
int hand_out(const char* op, const void* data, size_t n, ModelResult* r) {
  void* p = n ? malloc(n) : nullptr;
  if (n && !p) {
    char msg[160];
    snprintf(msg, sizeof msg, "could not get %.1f MiB of WebAssembly memory for the result, expected a smaller model",
             double(n) / (1 << 20));
    return report_as(op, Status::Fail(msg));
  }
  if (n) memcpy(p, data, n);
  r->bytes = ptr(uintptr_t(p));
  r->size = i32(n);
  return 0;
}

const char* activation_name(attnlab::Activation a) {
  for (const EnumName& n : kActivations)
    if (n.code == int(a)) return n.name;
  return "?";
}

// { "config": { createModel's options, resolved }, "numParams": n, "tensors": [[name, offset, [shape]], …] }
// A float32 as the shortest decimal that reads back to it (0.02f → "0.02"), for JSON.
std::string float_json(float x) {
  char buf[32];
  for (int p = 6; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(x));
    if (std::strtof(buf, nullptr) == x) break;
  }
  return buf;
}

std::string model_json(const attnlab::Gpt& m) {
  const attnlab::GptConfig& c = m.config();
  std::string j = "{\"config\":{\"vocab\":" + std::to_string(c.vocab) + ",\"context\":" + std::to_string(c.context) +
                  ",\"layers\":" + std::to_string(c.layers) + ",\"heads\":" + std::to_string(c.heads) +
                  ",\"dModel\":" + std::to_string(c.d_model) + ",\"dFF\":" + std::to_string(c.d_ff) +
                  ",\"attentionOnly\":" + (c.attention_only ? "true" : "false") +
                  ",\"layerNorm\":" + (c.layer_norm ? "true" : "false") + ",\"activation\":\"" +
                  activation_name(c.activation) + "\",\"initStd\":" + float_json(c.init_std) +
                  "},\"numParams\":" + std::to_string(m.num_params()) +
                  ",\"tensors\":[";
  const char* sep = "";
  for (const attnlab::GptTensor& t : m.tensors()) {
    j += sep, j += "[\"", j += t.name, j += "\",", j += std::to_string(t.offset), j += ",[";
    if (t.rank == 2) j += std::to_string(t.rows), j += ",";
    j += std::to_string(t.cols), j += "]]";
    sep = ",";
  }
  j += "]}";
  return j;
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

// ---- The model (attnlab/gpt.h) ----------------------------------------------------------------------
// Messages name the JS method (report_as); every failure is a Status, and a failed call leaves the
// model (parameters, moments, step) and heap use as they were.

EMSCRIPTEN_KEEPALIVE int attnlab_createModel(const CreateModelCall* c) {
  constexpr const char* op = "createModel";
  attnlab::GptConfig g;
  ATTNLAB_TRY_AS(op, decode(op, "activation", kActivations, c->activation, &g.activation));
  // Negative sizes (a direct caller) become huge size_t values, which check_gpt_config refuses.
  g.vocab = size_t(c->vocab), g.context = size_t(c->context), g.layers = size_t(c->layers);
  g.heads = size_t(c->heads), g.d_model = size_t(c->dModel), g.d_ff = size_t(c->dFF);
  g.attention_only = c->attentionOnly != 0, g.layer_norm = c->layerNorm != 0;
  g.init_std = c->initStd;
  g.seed = uint32_t(c->seed);
  std::unique_ptr<attnlab::Gpt> m;
  ATTNLAB_TRY_AS(op, attnlab::Gpt::create(g, &m));
  return adopt(op, std::move(m), result_of(c->result));
}

EMSCRIPTEN_KEEPALIVE int attnlab_loadModel(const LoadModelCall* c) {
  constexpr const char* op = "loadModel";
  std::unique_ptr<attnlab::Gpt> m;
  ATTNLAB_TRY_AS(op, attnlab::load_safetensors(reinterpret_cast<const uint8_t*>(uintptr_t(c->bytes)),
                                               c->size < 0 ? 0 : size_t(c->size), &m));
  return adopt(op, std::move(m), result_of(c->result));
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelInfo(const ModelInfoCall* c) {
  constexpr const char* op = "model";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  const std::string j = model_json(*m);
  return hand_out(op, j.data(), j.size(), result_of(c->result));
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelState(const ModelStateCall* c) {
  constexpr const char* op = "model";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  fill_state(*m, result_of(c->result));
  return 0;
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelDispose(const ModelDisposeCall* c) {
  for (size_t i = 0; i < g_models.count; ++i)
    if (g_models.slots[i].id == c->model) {
      delete g_models.slots[i].model;
      g_models.slots[i] = g_models.slots[--g_models.count];
      return 0;
    }
  return report(no_model("dispose", c->model));
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelForward(const ModelForwardCall* c) {
  constexpr const char* op = "forward";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  float loss = 0;
  ATTNLAB_TRY_AS(op, m->forward(ints(c->ids), c->targets ? ints(c->targets) : nullptr, size_t(c->batch),
                                size_t(c->t), &loss));
  const attnlab::GptConfig& g = m->config();
  const size_t B = m->batch(), T = m->length(), H = g.heads, tt = T * T;
  if (c->logits) memcpy(out(c->logits), m->logits(), B * T * g.vocab * sizeof(float));
  if (c->tokenLosses && c->targets) memcpy(out(c->tokenLosses), m->token_losses(), B * T * sizeof(float));
  if (c->attention) {
    // [batch, heads, t, t] per layer → [layers, heads, batch, t, t]: one block per head.
    float* a = out(c->attention);
    for (size_t l = 0; l < g.layers; ++l) {
      const float* w = m->attention(l);
      for (size_t h = 0; h < H; ++h)
        for (size_t b = 0; b < B; ++b) memcpy(a + ((l * H + h) * B + b) * tt, w + (b * H + h) * tt, tt * sizeof(float));
    }
  }
  result_of(c->result)->loss = loss;
  return 0;
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelGradients(const ModelGradientsCall* c) {
  constexpr const char* op = "computeGradients";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  if (!c->targets) return report_as(op, Status::Fail("targets is missing, expected batch·t token ids"));
  float loss = 0;
  ATTNLAB_TRY_AS(op, m->forward(ints(c->ids), ints(c->targets), size_t(c->batch), size_t(c->t), &loss));
  ATTNLAB_TRY_AS(op, m->backward());
  result_of(c->result)->loss = loss;
  return 0;
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelTrainStep(const ModelTrainStepCall* c) {
  constexpr const char* op = "trainStep";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  attnlab::GptTrainOptions o;
  if (c->adamw) {
    const double* h = reinterpret_cast<const double*>(uintptr_t(c->adamw));
    o.adamw.lr = h[0], o.adamw.beta1 = h[1], o.adamw.beta2 = h[2], o.adamw.eps = h[3], o.adamw.weight_decay = h[4];
    o.max_grad_norm = static_cast<float>(h[5]);
  }
  ModelResult* r = result_of(c->result);
  float loss = 0, norm = 0;
  ATTNLAB_TRY_AS(op, m->train_step(ints(c->ids), c->targets ? ints(c->targets) : nullptr, size_t(c->batch),
                                   size_t(c->t), o, &loss, &norm));
  r->loss = loss, r->gradNorm = norm, r->step = i32(m->steps_taken());
  return 0;
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelGenerate(const ModelGenerateCall* c) {
  constexpr const char* op = "generate";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  attnlab::GptSampling s;
  s.temperature = c->temperature, s.top_k = size_t(c->topK), s.seed = uint32_t(c->seed);
  return report_as(op, m->generate(ints(c->prompt), size_t(c->n), size_t(c->steps), s,
                                   reinterpret_cast<int*>(uintptr_t(c->out))));
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelHeadMask(const ModelHeadMaskCall* c) {
  constexpr const char* op = "setHeadMask";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  return report_as(op, m->set_head_scale(c->mask ? in(c->mask) : nullptr));
}

EMSCRIPTEN_KEEPALIVE int attnlab_modelSave(const ModelSaveCall* c) {
  constexpr const char* op = "save";
  attnlab::Gpt* m;
  ATTNLAB_TRY_AS(op, find_model(op, c->model, &m));
  std::vector<uint8_t> bytes;
  ATTNLAB_TRY_AS(op, attnlab::save_safetensors(*m, c->optimizer != 0, &bytes));
  return hand_out(op, bytes.data(), bytes.size(), result_of(c->result));
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
