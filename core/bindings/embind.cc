// embind.cc — the WebAssembly boundary, declared once with Embind (EMSCRIPTEN_BINDINGS at the end):
// the only file that includes Emscripten headers; it calls only the public C++ API (ops.h, gpt.h).
//
// What crosses:
//   * one `value_object` per op: the call, field by field, by name — the JS facade's names (wq,
//     ln1Gamma, attnWeights, …). A field JS does not send is an error naming it ("Missing field").
//     Arrays cross as heap addresses (`Addr`): the facade copies inputs into its arena and results
//     out of it, so nothing is converted element by element and nothing is allocated per call.
//   * `enum_`s for the C++ enums (mask kinds, activations, norm placements, regression kernels):
//     the facade passes `module.Activation.gelu`, never a number.
//   * `class_<MultiHeadLayer>` and `class_<Model>`: objects that live in the heap between calls,
//     freed by `.delete()` (a deleted handle is refused by Embind before any C++ runs).
//   * `typed_memory_view`s of a model's parameters and gradients and of a saved file: views into
//     the heap, valid until the next call (the facade copies them at once; web/api/heap.js).
// Failures: every op returns a status (0 = ok) and lastError() gives the message. No C++ exception
// crosses into JS (the ops never throw), so a failed call leaves the stack and heap as they were.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <emscripten/stack.h>
#include <malloc.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/gpt.h"
#include "attnlab/mask.h"
#include "attnlab/ops.h"

namespace {

using attnlab::Status;
using emscripten::typed_memory_view;
using emscripten::val;

// A wasm32 heap address the facade laid out (0 = none).
using Addr = uint32_t;
float* out(Addr p) { return reinterpret_cast<float*>(uintptr_t(p)); }
const float* in(Addr p) { return reinterpret_cast<const float*>(uintptr_t(p)); }
const int* ints(Addr p) { return reinterpret_cast<const int*>(uintptr_t(p)); }

// ---- Errors ---------------------------------------------------------------------------------------
// Reserved once at start-up, so no failed call ever changes heap use.
std::string g_last_error = [] {
  std::string s;
  s.reserve(1024);
  return s;
}();

int report(const Status& s) {
  if (s.ok) return 0;
  g_last_error.assign(s.message, 0, 1024);  // within the capacity reserved above: no allocation
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
  g_last_error.assign(op);
  g_last_error.append(": ");
  g_last_error.append(m, rest, 1024 - g_last_error.size());
  return 1;
}

std::string last_error() { return g_last_error; }

// ---- The calls: one struct per op, its fields named as the facade names them ---------------------
// The mask every attention call carries: kind, the window half-width, causal (window: only look
// back), mask (additive [tq·tk] values when kind is additive).
#define ATTNLAB_MASK_MEMBERS \
  attnlab::Mask::Kind maskKind; int window; bool causal; Addr mask;

attnlab::Mask make_mask(attnlab::Mask::Kind kind, int window, bool causal, Addr values) {
  using K = attnlab::Mask::Kind;
  switch (kind) {
    case K::causal: return attnlab::Mask::Causal();
    case K::window: return attnlab::Mask::Window(window, causal);
    case K::additive: return attnlab::Mask::Additive(in(values));
    case K::none: break;
  }
  return attnlab::Mask::None();
}
template <class Call>
attnlab::Mask make_mask(const Call& c) {
  return make_mask(c.maskKind, c.window, c.causal, c.mask);
}

struct AttentionCall {
  Addr q, k, v; int tq, tk, dk, dv; float scale;
  ATTNLAB_MASK_MEMBERS
  float alibiSlope;
  Addr scores, scaled, weights, output;
};

struct WeightedSumCall { Addr weights, v; int tq, tk, dv; Addr output; };

// Multi-head weights: [D·D] matrices and optional [D] biases (0 = none).
struct MultiHeadWeightsCall { Addr wq, wk, wv, wo, bq, bk, bv, bo; };
attnlab::MultiHeadWeights multihead_weights(const MultiHeadWeightsCall& w) {
  return {in(w.wq), in(w.wk), in(w.wv), in(w.wo), in(w.bq), in(w.bk), in(w.bv), in(w.bo)};
}

// What one multi-head forward needs besides its weights. context = 0: self-attention (tk = tq).
// scale ≤ 0: 1/√(dModel/heads). All-intermediates: q k v scores weights headsConcat output;
// output only (streaming): q k v are scratch, workspace as multiheadWorkspaceFloats().
//
// The one call kept lean: multi-head attention is what a widget recomputes on every slider move, and
// Embind writes a value_object field by field — one WebAssembly call per field plus a malloc/free of
// the struct. Measured in one Node process: a 30-field value_object call 1.4 µs against 0.26 µs for
// the same fields as plain arguments (docs/performance.md, "The boundary"). Plain arguments still
// cost ~30 ns each in Embind's generic invoker (no dynamic code here): 30 of them 0.9–1.3 µs against
// 0.2–0.3 µs for three. So the numbers and flags cross as arguments, and the heap addresses of the
// call's arrays — which the facade's arena already holds as an array — as one address: a table of
// uint32s in the arena, its length first (a facade out of step is refused, not misread), then the
// addresses in the order of MultiHeadRegion (JS: web/api/multihead.js, REGIONS). Only addresses
// cross in the table, never sizes: every size and offset is the facade's alone.
struct MultiHeadRunCall {
  Addr x; int tq; Addr context; int tk;
  ATTNLAB_MASK_MEMBERS
  float scale; bool rope; float ropeBase; bool alibi;
  Addr q, k, v, scores, weights, headsConcat, workspace, output;
};
enum MultiHeadRegion : int {
  kX, kContext, kMask, kQ, kK, kV, kScores, kWeights, kHeadsConcat, kWorkspace, kOutput,
  kWq, kWk, kWv, kWo, kBq, kBk, kBv, kBo, kMultiHeadRegions
};
struct SinusoidalCall { int length, dModel; float base; Addr output; };
struct RopeCall { Addr x; int t, dim; float base; int offset; Addr output; };
struct AlibiCall { int heads, tq, tk; Addr slopes, bias; };
struct LayerNormCall { Addr x; int rows, dim; Addr gamma, beta; float eps; Addr output; };
struct RmsNormCall { Addr x; int rows, dim; Addr gamma; float eps; Addr output; };
struct ActivationCall { attnlab::Activation kind; Addr x; int n; Addr output; };

struct FeedForwardWeightsCall { Addr w1, b1, w2, b2; };
attnlab::FeedForwardWeights ffn_weights(const FeedForwardWeightsCall& w) {
  return {in(w.w1), in(w.b1), in(w.w2), in(w.b2)};
}
struct FeedForwardCall {
  Addr x; int rows, dModel, dFF; FeedForwardWeightsCall w; attnlab::Activation activation;
  Addr pre, activated, output;
};

struct LayerNormWeightsCall { Addr gamma, beta; };
struct BlockOptionsCall {
  int dModel, heads, dFF; attnlab::NormPlacement norm; attnlab::Activation activation;
  ATTNLAB_MASK_MEMBERS
  float eps;
};
struct EncoderBlockCall : BlockOptionsCall {
  Addr x; int t;
  MultiHeadWeightsCall attn; LayerNormWeightsCall ln1, ln2; FeedForwardWeightsCall ffn;
  Addr q, k, v, attnWeights, attnHeads, attnOut, residual1, norm1, ffnPre, ffnActivated, ffnOut,
      residual2, norm2, output;
};

struct DecoderBlockCall : BlockOptionsCall {
  Addr x; int t; Addr memory; int tm;
  MultiHeadWeightsCall selfAttn, crossAttn; LayerNormWeightsCall ln1, ln2, ln3; FeedForwardWeightsCall ffn;
  Addr selfQ, selfK, selfV, selfWeights, selfHeads, selfAttnOut, residual1, norm1,
      crossQ, crossK, crossV, crossWeights, crossHeads, crossAttnOut, residual2, norm2,
      ffnPre, ffnActivated, ffnOut, residual3, norm3, output;
};

struct EmbeddingCall { Addr table; int vocab, dModel; Addr ids; int n; Addr output; };
struct OutputHeadCall {
  Addr h; int rows; Addr table; int vocab, dModel; Addr bias; float temperature; Addr logits, probs;
};
struct KernelRegressionCall {
  Addr xs, ys; int n; Addr queries; int nq, dim; attnlab::RegressionKernel kernel; float bandwidth;
  Addr scores, weights, predictions;
};

// ---- The ops --------------------------------------------------------------------------------------

int attention(const AttentionCall& c) {
  const attnlab::AttentionArgs a{in(c.q), size_t(c.dk), in(c.k), size_t(c.dk), in(c.v), size_t(c.dv),
                                 size_t(c.tq), size_t(c.tk), size_t(c.dk), size_t(c.dv), c.scale,
                                 make_mask(c), c.alibiSlope};
  const attnlab::AttentionOutputs o{out(c.scores), out(c.scaled), out(c.weights), out(c.output), size_t(c.dv)};
  return report(attnlab::attention_forward(a, o));
}

int weighted_sum(const WeightedSumCall& c) {
  return report(attnlab::weighted_sum_forward(in(c.weights), in(c.v), c.tq, c.tk, c.dv, out(c.output)));
}

attnlab::MultiHeadArgs multihead_args(const MultiHeadRunCall& c, size_t d_model, size_t heads,
                                      const attnlab::MultiHeadWeights& w) {
  return {in(c.x), size_t(c.tq), in(c.context), size_t(c.tk), d_model, heads, w, make_mask(c),
          c.scale, c.rope, c.ropeBase, c.alibi};
}

// All intermediates, or (workspace ≠ 0) the output only, streaming over key blocks.
int multihead_run(const attnlab::MultiHeadArgs& a, const MultiHeadRunCall& c) {
  if (c.workspace)
    return report(attnlab::multi_head_attention_forward_streaming(
        a, {out(c.q), out(c.k), out(c.v), out(c.workspace), out(c.output)}));
  return report(attnlab::multi_head_attention_forward(
      a, {out(c.q), out(c.k), out(c.v), out(c.scores), out(c.weights), out(c.headsConcat), out(c.output)}));
}

// The table of addresses (see MultiHeadRunCall): its length, then the addresses. Null when the
// length is not this build's (lastError says so).
const Addr* multihead_regions(Addr table) {
  const Addr* t = reinterpret_cast<const Addr*>(uintptr_t(table));
  if (t && t[0] == kMultiHeadRegions) return t + 1;
  report(Status::Fail("multiHeadAttention: the table of addresses is not this core's (web/api and the "
                      "WebAssembly core are out of step)"));
  return nullptr;
}

MultiHeadRunCall multihead_call(const Addr* r, int tq, int tk, attnlab::Mask::Kind mask_kind, int window, bool causal,
                                float scale, bool rope, float rope_base, bool alibi) {
  return {r[kX], tq, r[kContext], tk, mask_kind, window, causal, r[kMask], scale, rope, rope_base, alibi,
          r[kQ], r[kK], r[kV], r[kScores], r[kWeights], r[kHeadsConcat], r[kWorkspace], r[kOutput]};
}

// The free function: the sizes, the table (the weights among its addresses, copied into the arena
// by the facade), the options; then the run.
int multi_head_attention(int d_model, int heads, Addr table, int tq, int tk, attnlab::Mask::Kind mask_kind, int window,
                         bool causal, float scale, bool rope, float rope_base, bool alibi) {
  const Addr* r = multihead_regions(table);
  if (!r) return 1;
  const MultiHeadRunCall c = multihead_call(r, tq, tk, mask_kind, window, causal, scale, rope, rope_base, alibi);
  const attnlab::MultiHeadWeights w{in(r[kWq]), in(r[kWk]), in(r[kWv]), in(r[kWo]),
                                    in(r[kBq]), in(r[kBk]), in(r[kBv]), in(r[kBo])};
  return multihead_run(multihead_args(c, size_t(d_model), size_t(heads), w), c);
}

// Floats of workspace the streaming path needs. double: a count too large for memory must reach JS
// intact (it then refuses the call).
double multihead_workspace_floats(int tk, int d_model, int heads) {
  return static_cast<double>(attnlab::multi_head_streaming_workspace_floats(tk, d_model, heads));
}

int sinusoidal(const SinusoidalCall& c) {
  return report(attnlab::sinusoidal_positional_encoding_forward(c.length, c.dModel, c.base, out(c.output)));
}

int rope(const RopeCall& c) {
  return report(attnlab::rope_forward(in(c.x), c.t, c.dim, c.base, c.offset, out(c.output)));
}

int alibi(const AlibiCall& c) {
  if (int e = report(attnlab::alibi_slopes(c.heads, out(c.slopes)))) return e;
  return report(attnlab::alibi_bias(c.heads, c.tq, c.tk, out(c.bias)));
}

int layer_norm(const LayerNormCall& c) {
  return report(attnlab::layer_norm_forward(in(c.x), c.rows, c.dim, in(c.gamma), in(c.beta), c.eps, out(c.output)));
}

int rms_norm(const RmsNormCall& c) {
  return report(attnlab::rms_norm_forward(in(c.x), c.rows, c.dim, in(c.gamma), c.eps, out(c.output)));
}

int activation(const ActivationCall& c) {
  return report(attnlab::activation_forward(c.kind, in(c.x), c.n, out(c.output)));
}

int feed_forward(const FeedForwardCall& c) {
  return report(attnlab::feed_forward_forward(in(c.x), c.rows, c.dModel, c.dFF, ffn_weights(c.w), c.activation,
                                              {out(c.pre), out(c.activated), out(c.output)}));
}

attnlab::LayerNormWeights ln_weights(const LayerNormWeightsCall& w) { return {in(w.gamma), in(w.beta)}; }

// One attention's results inside a block (the raw scores are not kept there).
attnlab::MultiHeadOutputs block_attention(Addr q, Addr k, Addr v, Addr weights, Addr heads, Addr attn_out) {
  attnlab::MultiHeadOutputs o{};
  o.q = out(q), o.k = out(k), o.v = out(v), o.scores = nullptr, o.weights = out(weights), o.heads = out(heads);
  o.out = out(attn_out);
  return o;
}

int encoder_block(const EncoderBlockCall& c) {
  attnlab::EncoderBlockArgs a{};
  a.norm = c.norm, a.activation = c.activation, a.mask = make_mask(c);
  a.x = in(c.x), a.t = c.t, a.d_model = c.dModel, a.heads = c.heads, a.d_ff = c.dFF, a.eps = c.eps;
  a.w.attn = multihead_weights(c.attn);
  a.w.ln1 = ln_weights(c.ln1), a.w.ln2 = ln_weights(c.ln2);
  a.w.ffn = ffn_weights(c.ffn);
  attnlab::EncoderBlockOutputs o{};
  o.attn = block_attention(c.q, c.k, c.v, c.attnWeights, c.attnHeads, c.attnOut);
  o.residual1 = out(c.residual1), o.norm1 = out(c.norm1);
  o.ffn = {out(c.ffnPre), out(c.ffnActivated), out(c.ffnOut)};
  o.residual2 = out(c.residual2), o.norm2 = out(c.norm2), o.out = out(c.output);
  return report(attnlab::encoder_block_forward(a, o));
}

int decoder_block(const DecoderBlockCall& c) {
  attnlab::DecoderBlockArgs a{};
  a.norm = c.norm, a.activation = c.activation, a.mask = make_mask(c);
  a.x = in(c.x), a.t = c.t, a.memory = in(c.memory), a.t_m = c.tm;
  a.d_model = c.dModel, a.heads = c.heads, a.d_ff = c.dFF, a.eps = c.eps;
  a.w.self_attn = multihead_weights(c.selfAttn);
  a.w.cross_attn = multihead_weights(c.crossAttn);
  a.w.ln1 = ln_weights(c.ln1), a.w.ln2 = ln_weights(c.ln2), a.w.ln3 = ln_weights(c.ln3);
  a.w.ffn = ffn_weights(c.ffn);
  attnlab::DecoderBlockOutputs o{};
  o.self_attn = block_attention(c.selfQ, c.selfK, c.selfV, c.selfWeights, c.selfHeads, c.selfAttnOut);
  o.residual1 = out(c.residual1), o.norm1 = out(c.norm1);
  o.cross_attn = block_attention(c.crossQ, c.crossK, c.crossV, c.crossWeights, c.crossHeads, c.crossAttnOut);
  o.residual2 = out(c.residual2), o.norm2 = out(c.norm2);
  o.ffn = {out(c.ffnPre), out(c.ffnActivated), out(c.ffnOut)};
  o.residual3 = out(c.residual3), o.norm3 = out(c.norm3), o.out = out(c.output);
  return report(attnlab::decoder_block_forward(a, o));
}

int embedding(const EmbeddingCall& c) {
  return report(attnlab::embedding_forward(in(c.table), c.vocab, c.dModel, ints(c.ids), c.n, out(c.output)));
}

int output_head(const OutputHeadCall& c) {
  return report(attnlab::output_head_forward(in(c.h), c.rows, in(c.table), c.vocab, c.dModel, in(c.bias),
                                             c.temperature, out(c.logits), out(c.probs)));
}

int kernel_regression(const KernelRegressionCall& c) {
  return report(attnlab::kernel_regression_forward(in(c.xs), in(c.ys), c.n, in(c.queries), c.nq, c.dim, c.kernel,
                                                   c.bandwidth, out(c.scores), out(c.weights), out(c.predictions)));
}

// ---- A multi-head attention layer: its weights copied into the heap once ------------------------
// The interactive path (a widget recomputing on every slider move) sends only x and the options.
class MultiHeadLayer {
 public:
  // The weights at the call's addresses, copied (finiteness was checked by the facade); null when
  // memory runs out (lastError says so).
  static MultiHeadLayer* create(int d_model, int heads, const MultiHeadWeightsCall& w) {
    auto layer = std::make_unique<MultiHeadLayer>();
    const size_t D = size_t(d_model), DD = D * D;
    const Addr mats[4] = {w.wq, w.wk, w.wv, w.wo}, biases[4] = {w.bq, w.bk, w.bv, w.bo};
    size_t n = 4 * DD;
    for (Addr b : biases) n += b ? D : 0;
    float* p = static_cast<float*>(malloc(n * sizeof(float)));
    if (!p) {
      report(Status::Fail("createMultiHeadAttention: could not get " + std::to_string(n * 4 >> 20) +
                          " MiB of WebAssembly memory for the weights"));
      return nullptr;
    }
    layer->storage_.reset(p);
    const float* at[8];
    for (int i = 0; i < 4; ++i) memcpy(p, in(mats[i]), DD * sizeof(float)), at[i] = p, p += DD;
    for (int i = 0; i < 4; ++i) {
      at[4 + i] = nullptr;
      if (biases[i]) memcpy(p, in(biases[i]), D * sizeof(float)), at[4 + i] = p, p += D;
    }
    layer->weights_ = {at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7]};
    layer->d_model_ = D, layer->heads_ = size_t(heads);
    // The output projection's bound, once: the weights never change after this.
    layer->bounds_ = attnlab::multi_head_weight_bounds(layer->weights_, D);
    return layer.release();
  }

  // The interactive path: the table of addresses and the options (see MultiHeadRunCall why); the
  // table's weight addresses are not read (the layer holds its weights).
  int forward(Addr table, int tq, int tk, attnlab::Mask::Kind mask_kind, int window, bool causal, float scale, bool rope,
              float rope_base, bool alibi) const {
    const Addr* r = multihead_regions(table);
    if (!r) return 1;
    const MultiHeadRunCall c = multihead_call(r, tq, tk, mask_kind, window, causal, scale, rope, rope_base, alibi);
    attnlab::MultiHeadArgs a = multihead_args(c, d_model_, heads_, weights_);
    a.weight_bounds = &bounds_;
    return multihead_run(a, c);
  }

 private:
  struct Free {
    void operator()(float* p) const { free(p); }
  };
  std::unique_ptr<float, Free> storage_;
  attnlab::MultiHeadWeights weights_{};
  attnlab::MultiHeadWeightBounds bounds_{};
  size_t d_model_ = 0, heads_ = 0;
};

// ---- The model (attnlab/gpt.h) ----------------------------------------------------------------------
// Messages name the JS method (report_as); every failure is a status, and a failed call leaves the
// model (parameters, moments, step) and heap use as they were.

struct CreateModelCall {
  int vocab, context, layers, heads, dModel, dFF;  // dFF = 0: 4·dModel
  bool attentionOnly, layerNorm; attnlab::Activation activation; float initStd;
  uint32_t seed;
};

// ids, targets (0 = none): [batch·t] int32. Outputs (0 = not wanted): logits [batch·t·vocab];
// attention [layers·heads·batch·t·t] (head-major: each head's [batch·t·t] is one block);
// tokenLosses [batch·t].
// lastLogits: logits of each sequence's last row only, [batch·vocab] (no targets).
struct ModelForwardCall { Addr ids, targets; int batch, t; Addr logits, attention, tokenLosses; bool lastLogits; };

// The logit lens of the last forward (Gpt::logit_lens): sequence 0 at `position`, the top k of each of
// the layers + 1 readouts. ids [(layers + 1)·k] int32, probs [(layers + 1)·k].
struct LensCall { int position, k; Addr ids, probs; };

// One AdamW step's options: doubles, as torch's Python floats (optimizer.h) — float32 would round
// β2 = 0.999.
struct TrainStepCall {
  Addr ids, targets; int batch, t;
  double lr, beta1, beta2, eps, weightDecay, maxGradNorm;
};

// prompt [n], out [steps]; temperature 0 = greedy, topK 0 = all.
struct GenerateCall { Addr prompt; int n, steps; float temperature; int topK; uint32_t seed; Addr out; };

// What a forward or a training step reports: ok = false means lastError() says why.
struct StepResult {
  bool ok = false;
  float loss = 0, gradNorm = 0;
  int step = 0;
};

const char* activation_name(attnlab::Activation a) {
  switch (a) {
    case attnlab::Activation::relu: return "relu";
    case attnlab::Activation::gelu: return "gelu";
    case attnlab::Activation::gelu_tanh: return "gelu_tanh";
  }
  return "?";
}

// A float32 as the shortest decimal that reads back to it (0.02f → "0.02"), for JSON.
std::string float_json(float x) {
  char buf[32];
  for (int p = 6; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(x));
    if (std::strtof(buf, nullptr) == x) break;
  }
  return buf;
}

// A GPT-2 config.json's fields as loadModel passes them (0 = not given; nHead 0: 64-wide heads).
struct Gpt2ConfigCall {
  int nHead, nLayer, nEmbd, nPositions, vocabSize, nInner;
  float layerNormEpsilon; attnlab::Activation activation;
};
attnlab::Gpt2Config gpt2_config(const Gpt2ConfigCall& c) {
  attnlab::Gpt2Config g;
  auto dim = [](int v) { return v < 0 ? size_t(0) : size_t(v); };
  g.n_head = dim(c.nHead), g.n_layer = dim(c.nLayer), g.n_embd = dim(c.nEmbd);
  g.n_positions = dim(c.nPositions), g.vocab_size = dim(c.vocabSize), g.n_inner = dim(c.nInner);
  g.layer_norm_epsilon = c.layerNormEpsilon;
  g.activation = c.activation;
  return g;
}

class Model {
 public:
  explicit Model(std::unique_ptr<attnlab::Gpt> m, bool gpt2 = false) : m_(std::move(m)), gpt2_(gpt2) {}

  // A model with fresh parameters; null when the config is refused (lastError says why).
  static Model* create(const CreateModelCall& c) {
    attnlab::GptConfig g;
    g.activation = c.activation;
    // Negative sizes (a direct caller) become huge size_t values, which check_gpt_config refuses.
    g.vocab = size_t(c.vocab), g.context = size_t(c.context), g.layers = size_t(c.layers);
    g.heads = size_t(c.heads), g.d_model = size_t(c.dModel), g.d_ff = size_t(c.dFF);
    g.attention_only = c.attentionOnly, g.layer_norm = c.layerNorm;
    g.init_std = c.initStd, g.seed = c.seed;
    std::unique_ptr<attnlab::Gpt> m;
    if (report_as("createModel", attnlab::Gpt::create(g, &m))) return nullptr;
    return new Model(std::move(m));
  }

  // The model in a safetensors file at [bytes, bytes + size); null when refused.
  static Model* load(Addr bytes, int size) {
    std::unique_ptr<attnlab::Gpt> m;
    if (report_as("loadModel", attnlab::load_safetensors(reinterpret_cast<const uint8_t*>(uintptr_t(bytes)),
                                                         size < 0 ? 0 : size_t(size), &m)))
      return nullptr;
    return new Model(std::move(m));
  }

  // { "config": { createModel's options, resolved }, "numParams": n, "tensors": [[name, offset, [shape]], …] };
  // a tensor stored transposed (GptTensor::transposed: an inference-only model's W_O and W_out) has a
  // fourth entry, true.
  std::string info() const {
    const attnlab::GptConfig& c = m_->config();
    std::string j = "{\"config\":{\"vocab\":" + std::to_string(c.vocab) + ",\"context\":" + std::to_string(c.context) +
                    ",\"layers\":" + std::to_string(c.layers) + ",\"heads\":" + std::to_string(c.heads) +
                    ",\"dModel\":" + std::to_string(c.d_model) + ",\"dFF\":" + std::to_string(c.d_ff) +
                    ",\"attentionOnly\":" + (c.attention_only ? "true" : "false") +
                    ",\"layerNorm\":" + (c.layer_norm ? "true" : "false") + ",\"activation\":\"" +
                    activation_name(c.activation) + "\",\"initStd\":" + float_json(c.init_std) +
                    gpt2_fields(c) + "},\"numParams\":" + std::to_string(m_->num_params()) + ",\"tensors\":[";
    const char* sep = "";
    for (const attnlab::GptTensor& t : m_->tensors()) {
      j += sep, j += "[\"", j += t.name, j += "\",", j += std::to_string(t.offset), j += ",[";
      if (t.rank == 2) j += std::to_string(t.rows), j += ",";
      j += std::to_string(t.cols), j += t.transposed ? "],true]" : "]]";
      sep = ",";
    }
    return j + "]}";
  }

  // An inference-only model says so (and its LayerNorm eps); one loaded from a GPT-2 file also reports
  // its config.json fields, under their own names.
  std::string gpt2_fields(const attnlab::GptConfig& c) const {
    if (!c.inference_only) return "";  // a trainable model's config is as it always was
    std::string j = ",\"inferenceOnly\":true,\"lnEps\":" + float_json(c.ln_eps);
    if (!gpt2_) return j;
    const char* act = c.activation == attnlab::Activation::gelu_tanh ? "gelu_new"
                      : c.activation == attnlab::Activation::gelu   ? "gelu"
                                                                    : "relu";
    return j + ",\"source\":\"gpt2\",\"n_head\":" + std::to_string(c.heads) + ",\"n_layer\":" + std::to_string(c.layers) +
           ",\"n_embd\":" + std::to_string(c.d_model) + ",\"n_positions\":" + std::to_string(c.context) +
           ",\"vocab_size\":" + std::to_string(c.vocab) + ",\"n_inner\":" + std::to_string(c.d_ff) +
           ",\"activation_function\":\"" + act + "\",\"layer_norm_epsilon\":" + float_json(c.ln_eps);
  }

  int step() const { return int(m_->steps_taken()); }
  // Views into the heap, valid until the next call: the facade copies them at once.
  val parameters() { return val(typed_memory_view(m_->num_params(), m_->params())); }
  val gradients() const {
    if (!m_->grads()) return val::null();  // inference-only: no gradient memory
    return val(typed_memory_view(m_->num_params(), m_->grads()));
  }

  StepResult forward(const ModelForwardCall& c) {
    StepResult r;
    if (report_as("forward", m_->forward(ints(c.ids), c.targets ? ints(c.targets) : nullptr, size_t(c.batch),
                                         size_t(c.t), &r.loss, c.lastLogits)))
      return r;
    const attnlab::GptConfig& g = m_->config();
    const size_t B = m_->batch(), T = m_->length(), H = g.heads, tt = T * T;
    if (c.logits) memcpy(out(c.logits), m_->logits(), B * (c.lastLogits ? 1 : T) * g.vocab * sizeof(float));
    if (c.tokenLosses && c.targets) memcpy(out(c.tokenLosses), m_->token_losses(), B * T * sizeof(float));
    if (c.attention) {
      // [batch, heads, t, t] per layer → [layers, heads, batch, t, t]: one block per head.
      float* a = out(c.attention);
      for (size_t l = 0; l < g.layers; ++l) {
        const float* w = m_->attention(l);
        for (size_t h = 0; h < H; ++h)
          for (size_t b = 0; b < B; ++b) memcpy(a + ((l * H + h) * B + b) * tt, w + (b * H + h) * tt, tt * sizeof(float));
      }
    }
    r.ok = true;
    return r;
  }

  int logit_lens(const LensCall& c) {
    auto dim = [](int v) { return v < 0 ? SIZE_MAX : size_t(v); };  // negative: refused as out of range
    return report(m_->logit_lens(0, dim(c.position), dim(c.k), reinterpret_cast<int*>(uintptr_t(c.ids)),
                                 c.probs ? out(c.probs) : nullptr));
  }

  // Forward and backward: the gradients stay in the model (gradients()).
  StepResult compute_gradients(const ModelForwardCall& c) {
    StepResult r;
    constexpr const char* op = "computeGradients";
    if (m_->inference_only()) {
      report_as(op, m_->backward());  // its refusal: "this model is inference-only …"
      return r;
    }
    if (!c.targets) {
      report_as(op, Status::Fail("targets is missing, expected batch·t token ids"));
      return r;
    }
    if (report_as(op, m_->forward(ints(c.ids), ints(c.targets), size_t(c.batch), size_t(c.t), &r.loss)) ||
        report_as(op, m_->backward()))
      return r;
    r.ok = true;
    return r;
  }

  StepResult train_step(const TrainStepCall& c) {
    attnlab::GptTrainOptions o;
    o.adamw.lr = c.lr, o.adamw.beta1 = c.beta1, o.adamw.beta2 = c.beta2, o.adamw.eps = c.eps;
    o.adamw.weight_decay = c.weightDecay;
    o.max_grad_norm = static_cast<float>(c.maxGradNorm);
    StepResult r;
    if (report_as("trainStep", m_->train_step(ints(c.ids), c.targets ? ints(c.targets) : nullptr, size_t(c.batch),
                                              size_t(c.t), o, &r.loss, &r.gradNorm)))
      return r;
    r.step = int(m_->steps_taken());
    r.ok = true;
    return r;
  }

  int generate(const GenerateCall& c) {
    attnlab::GptSampling s;
    s.temperature = c.temperature, s.top_k = size_t(c.topK), s.seed = c.seed;
    return report_as("generate", m_->generate(ints(c.prompt), size_t(c.n), size_t(c.steps), s,
                                              reinterpret_cast<int*>(uintptr_t(c.out))));
  }

  // mask: [layers·heads] scales at that address, 0 = every head kept.
  int set_head_mask(Addr mask) { return report_as("setHeadMask", m_->set_head_mask(mask ? in(mask) : nullptr)); }

  // The safetensors file, kept until releaseSaved() (or the next save): saved() views it.
  int save(bool optimizer) {
    saved_.clear();
    return report_as("save", attnlab::save_safetensors(*m_, optimizer, &saved_));
  }
  // Hugging Face GPT-2's names (gpt2_checkpoint.cc); savedConfig() is its config.json text.
  int save_gpt2() {
    saved_.clear();
    saved_config_.clear();
    return report_as("save", attnlab::save_gpt2_safetensors(*m_, &saved_, &saved_config_));
  }
  val saved() const { return val(typed_memory_view(saved_.size(), saved_.data())); }
  std::string saved_config() const { return saved_config_; }
  void release_saved() {
    std::vector<uint8_t>().swap(saved_);
    std::string().swap(saved_config_);
  }

 private:
  std::unique_ptr<attnlab::Gpt> m_;
  bool gpt2_ = false;
  std::vector<uint8_t> saved_;
  std::string saved_config_;
};

// ---- Streaming a GPT-2 file into the heap (attnlab::Gpt2Loader) ------------------------------------
// JS reads the file's header (8 + N bytes) into staging(), calls begin (the model is allocated, 4 bytes
// per parameter), then copies each chunk of the data into staging() and calls write(n): the file is
// never whole in JS nor in the heap. finish() hands over the Model; delete() frees whatever is left.
class ModelLoader {
 public:
  ModelLoader() = default;
  ~ModelLoader() { std::free(staging_); }
  // A buffer of at least `bytes` the loader owns (0 when memory is refused: lastError says how much).
  Addr staging(double bytes) {
    const size_t n = size_t(bytes);
    if (n > cap_) {
      std::free(staging_);
      cap_ = 0;
      staging_ = static_cast<uint8_t*>(std::malloc(n));
      if (!staging_) {
        report(Status::Fail("loadModel: could not get " + std::to_string(n >> 20) + " MiB to read the file through"));
        return 0;
      }
      cap_ = n;
    }
    return Addr(uintptr_t(staging_));
  }
  int begin(double n, const Gpt2ConfigCall& c) {
    return report_as("loadModel", loader_.begin(staging_, std::min(size_t(n), cap_), gpt2_config(c)));
  }
  double header_bytes() const { return double(loader_.header_bytes()); }
  double file_bytes() const { return double(loader_.file_bytes()); }
  int write(double n) { return report_as("loadModel", loader_.write(staging_, std::min(size_t(n), cap_))); }
  Model* finish() {
    std::unique_ptr<attnlab::Gpt> m;
    if (report_as("loadModel", loader_.finish(&m))) return nullptr;
    std::free(staging_);
    staging_ = nullptr;
    cap_ = 0;
    return new Model(std::move(m), true);
  }

 private:
  attnlab::Gpt2Loader loader_;
  uint8_t* staging_ = nullptr;
  size_t cap_ = 0;
};

// ---- The module's state (for leak tests and the SIMD probe) ----------------------------------------
bool uses_simd128() { return attnlab::uses_simd128(); }
// Bytes malloc has handed out and not taken back, and the C stack pointer.
unsigned heap_in_use() { return static_cast<unsigned>(mallinfo().uordblks); }
unsigned stack_pointer() { return static_cast<unsigned>(emscripten_stack_get_current()); }

// value_object fields of a base struct (BlockOptionsCall inside EncoderBlockCall, …) registered on the
// derived call: a pointer to a base member converted to one of the derived struct.
template <class Derived, class T, class Base>
constexpr T Derived::*member(T Base::*m) {
  return static_cast<T Derived::*>(m);
}

template <class C>
emscripten::value_object<C>& mask_fields(emscripten::value_object<C>& o) {
  return o.field("maskKind", member<C>(&C::maskKind))
      .field("window", member<C>(&C::window))
      .field("causal", member<C>(&C::causal))
      .field("mask", member<C>(&C::mask));
}

template <class C>
emscripten::value_object<C>& block_option_fields(emscripten::value_object<C>& o) {
  using B = BlockOptionsCall;
  o.field("dModel", member<C>(&B::dModel)).field("heads", member<C>(&B::heads)).field("dFF", member<C>(&B::dFF))
      .field("norm", member<C>(&B::norm)).field("activation", member<C>(&B::activation));
  mask_fields(o);
  return o.field("eps", member<C>(&B::eps));
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  using namespace emscripten;

  // ---- Enums: the C++ enums under the facade's names --------------------------------------------
  enum_<attnlab::Mask::Kind>("MaskKind")
      .value("none", attnlab::Mask::Kind::none)
      .value("causal", attnlab::Mask::Kind::causal)
      .value("window", attnlab::Mask::Kind::window)
      .value("additive", attnlab::Mask::Kind::additive);
  enum_<attnlab::Activation>("Activation")
      .value("relu", attnlab::Activation::relu)
      .value("gelu", attnlab::Activation::gelu)
      .value("gelu_tanh", attnlab::Activation::gelu_tanh);
  enum_<attnlab::NormPlacement>("NormPlacement")
      .value("post", attnlab::NormPlacement::post)
      .value("pre", attnlab::NormPlacement::pre);
  enum_<attnlab::RegressionKernel>("RegressionKernel")
      .value("gaussian", attnlab::RegressionKernel::gaussian)
      .value("dot", attnlab::RegressionKernel::dot);

  // ---- Nested weight sets ------------------------------------------------------------------------
  value_object<MultiHeadWeightsCall>("MultiHeadWeightsCall")
      .field("wq", &MultiHeadWeightsCall::wq).field("wk", &MultiHeadWeightsCall::wk)
      .field("wv", &MultiHeadWeightsCall::wv).field("wo", &MultiHeadWeightsCall::wo)
      .field("bq", &MultiHeadWeightsCall::bq).field("bk", &MultiHeadWeightsCall::bk)
      .field("bv", &MultiHeadWeightsCall::bv).field("bo", &MultiHeadWeightsCall::bo);
  value_object<FeedForwardWeightsCall>("FeedForwardWeightsCall")
      .field("w1", &FeedForwardWeightsCall::w1).field("b1", &FeedForwardWeightsCall::b1)
      .field("w2", &FeedForwardWeightsCall::w2).field("b2", &FeedForwardWeightsCall::b2);
  value_object<LayerNormWeightsCall>("LayerNormWeightsCall")
      .field("gamma", &LayerNormWeightsCall::gamma).field("beta", &LayerNormWeightsCall::beta);

  // ---- Ops: a call per op, each returning 0 or 1 (lastError()) ----------------------------------
  {
    value_object<AttentionCall> o("AttentionCall");
    o.field("q", &AttentionCall::q).field("k", &AttentionCall::k).field("v", &AttentionCall::v)
        .field("tq", &AttentionCall::tq).field("tk", &AttentionCall::tk).field("dk", &AttentionCall::dk)
        .field("dv", &AttentionCall::dv).field("scale", &AttentionCall::scale);
    mask_fields(o)
        .field("alibiSlope", &AttentionCall::alibiSlope)
        .field("scores", &AttentionCall::scores).field("scaled", &AttentionCall::scaled)
        .field("weights", &AttentionCall::weights).field("output", &AttentionCall::output);
  }
  function("attention", &attention);

  value_object<WeightedSumCall>("WeightedSumCall")
      .field("weights", &WeightedSumCall::weights).field("v", &WeightedSumCall::v)
      .field("tq", &WeightedSumCall::tq).field("tk", &WeightedSumCall::tk).field("dv", &WeightedSumCall::dv)
      .field("output", &WeightedSumCall::output);
  function("weightedSum", &weighted_sum);

  function("multiHeadAttention", &multi_head_attention);
  function("multiHeadWorkspaceFloats", &multihead_workspace_floats);

  class_<MultiHeadLayer>("MultiHeadLayer")
      .class_function("create", &MultiHeadLayer::create, allow_raw_pointers())
      .function("forward", &MultiHeadLayer::forward);

  value_object<SinusoidalCall>("SinusoidalCall")
      .field("length", &SinusoidalCall::length).field("dModel", &SinusoidalCall::dModel)
      .field("base", &SinusoidalCall::base).field("output", &SinusoidalCall::output);
  function("sinusoidal", &sinusoidal);

  value_object<RopeCall>("RopeCall")
      .field("x", &RopeCall::x).field("t", &RopeCall::t).field("dim", &RopeCall::dim)
      .field("base", &RopeCall::base).field("offset", &RopeCall::offset).field("output", &RopeCall::output);
  function("rope", &rope);

  value_object<AlibiCall>("AlibiCall")
      .field("heads", &AlibiCall::heads).field("tq", &AlibiCall::tq).field("tk", &AlibiCall::tk)
      .field("slopes", &AlibiCall::slopes).field("bias", &AlibiCall::bias);
  function("alibi", &alibi);

  value_object<LayerNormCall>("LayerNormCall")
      .field("x", &LayerNormCall::x).field("rows", &LayerNormCall::rows).field("dim", &LayerNormCall::dim)
      .field("gamma", &LayerNormCall::gamma).field("beta", &LayerNormCall::beta)
      .field("eps", &LayerNormCall::eps).field("output", &LayerNormCall::output);
  function("layerNorm", &layer_norm);

  value_object<RmsNormCall>("RmsNormCall")
      .field("x", &RmsNormCall::x).field("rows", &RmsNormCall::rows).field("dim", &RmsNormCall::dim)
      .field("gamma", &RmsNormCall::gamma).field("eps", &RmsNormCall::eps).field("output", &RmsNormCall::output);
  function("rmsNorm", &rms_norm);

  value_object<ActivationCall>("ActivationCall")
      .field("kind", &ActivationCall::kind).field("x", &ActivationCall::x).field("n", &ActivationCall::n)
      .field("output", &ActivationCall::output);
  function("activation", &activation);

  value_object<FeedForwardCall>("FeedForwardCall")
      .field("x", &FeedForwardCall::x).field("rows", &FeedForwardCall::rows)
      .field("dModel", &FeedForwardCall::dModel).field("dFF", &FeedForwardCall::dFF)
      .field("w", &FeedForwardCall::w).field("activation", &FeedForwardCall::activation)
      .field("pre", &FeedForwardCall::pre).field("activated", &FeedForwardCall::activated)
      .field("output", &FeedForwardCall::output);
  function("feedForward", &feed_forward);

  {
    using E = EncoderBlockCall;
    value_object<E> o("EncoderBlockCall");
    block_option_fields(o)
        .field("x", &E::x).field("t", &E::t)
        .field("attn", &E::attn).field("ln1", &E::ln1).field("ln2", &E::ln2).field("ffn", &E::ffn)
        .field("q", &E::q).field("k", &E::k).field("v", &E::v).field("attnWeights", &E::attnWeights)
        .field("attnHeads", &E::attnHeads).field("attnOut", &E::attnOut).field("residual1", &E::residual1)
        .field("norm1", &E::norm1).field("ffnPre", &E::ffnPre).field("ffnActivated", &E::ffnActivated)
        .field("ffnOut", &E::ffnOut).field("residual2", &E::residual2).field("norm2", &E::norm2)
        .field("output", &E::output);
  }
  function("encoderBlock", &encoder_block);

  {
    using D = DecoderBlockCall;
    value_object<D> o("DecoderBlockCall");
    block_option_fields(o)
        .field("x", &D::x).field("t", &D::t).field("memory", &D::memory).field("tm", &D::tm)
        .field("selfAttn", &D::selfAttn).field("crossAttn", &D::crossAttn)
        .field("ln1", &D::ln1).field("ln2", &D::ln2).field("ln3", &D::ln3).field("ffn", &D::ffn)
        .field("selfQ", &D::selfQ).field("selfK", &D::selfK).field("selfV", &D::selfV)
        .field("selfWeights", &D::selfWeights).field("selfHeads", &D::selfHeads)
        .field("selfAttnOut", &D::selfAttnOut).field("residual1", &D::residual1).field("norm1", &D::norm1)
        .field("crossQ", &D::crossQ).field("crossK", &D::crossK).field("crossV", &D::crossV)
        .field("crossWeights", &D::crossWeights).field("crossHeads", &D::crossHeads)
        .field("crossAttnOut", &D::crossAttnOut).field("residual2", &D::residual2).field("norm2", &D::norm2)
        .field("ffnPre", &D::ffnPre).field("ffnActivated", &D::ffnActivated).field("ffnOut", &D::ffnOut)
        .field("residual3", &D::residual3).field("norm3", &D::norm3).field("output", &D::output);
  }
  function("decoderBlock", &decoder_block);

  value_object<EmbeddingCall>("EmbeddingCall")
      .field("table", &EmbeddingCall::table).field("vocab", &EmbeddingCall::vocab)
      .field("dModel", &EmbeddingCall::dModel).field("ids", &EmbeddingCall::ids).field("n", &EmbeddingCall::n)
      .field("output", &EmbeddingCall::output);
  function("embedding", &embedding);

  value_object<OutputHeadCall>("OutputHeadCall")
      .field("h", &OutputHeadCall::h).field("rows", &OutputHeadCall::rows).field("table", &OutputHeadCall::table)
      .field("vocab", &OutputHeadCall::vocab).field("dModel", &OutputHeadCall::dModel)
      .field("bias", &OutputHeadCall::bias).field("temperature", &OutputHeadCall::temperature)
      .field("logits", &OutputHeadCall::logits).field("probs", &OutputHeadCall::probs);
  function("outputHead", &output_head);

  value_object<KernelRegressionCall>("KernelRegressionCall")
      .field("xs", &KernelRegressionCall::xs).field("ys", &KernelRegressionCall::ys)
      .field("n", &KernelRegressionCall::n).field("queries", &KernelRegressionCall::queries)
      .field("nq", &KernelRegressionCall::nq).field("dim", &KernelRegressionCall::dim)
      .field("kernel", &KernelRegressionCall::kernel).field("bandwidth", &KernelRegressionCall::bandwidth)
      .field("scores", &KernelRegressionCall::scores).field("weights", &KernelRegressionCall::weights)
      .field("predictions", &KernelRegressionCall::predictions);
  function("kernelRegression", &kernel_regression);

  // ---- The model ---------------------------------------------------------------------------------
  value_object<CreateModelCall>("CreateModelCall")
      .field("vocab", &CreateModelCall::vocab).field("context", &CreateModelCall::context)
      .field("layers", &CreateModelCall::layers).field("heads", &CreateModelCall::heads)
      .field("dModel", &CreateModelCall::dModel).field("dFF", &CreateModelCall::dFF)
      .field("attentionOnly", &CreateModelCall::attentionOnly).field("layerNorm", &CreateModelCall::layerNorm)
      .field("activation", &CreateModelCall::activation).field("initStd", &CreateModelCall::initStd)
      .field("seed", &CreateModelCall::seed);
  value_object<ModelForwardCall>("ModelForwardCall")
      .field("ids", &ModelForwardCall::ids).field("targets", &ModelForwardCall::targets)
      .field("batch", &ModelForwardCall::batch).field("t", &ModelForwardCall::t)
      .field("logits", &ModelForwardCall::logits).field("attention", &ModelForwardCall::attention)
      .field("tokenLosses", &ModelForwardCall::tokenLosses).field("lastLogits", &ModelForwardCall::lastLogits);
  value_object<LensCall>("LensCall")
      .field("position", &LensCall::position).field("k", &LensCall::k)
      .field("ids", &LensCall::ids).field("probs", &LensCall::probs);
  value_object<TrainStepCall>("TrainStepCall")
      .field("ids", &TrainStepCall::ids).field("targets", &TrainStepCall::targets)
      .field("batch", &TrainStepCall::batch).field("t", &TrainStepCall::t)
      .field("lr", &TrainStepCall::lr).field("beta1", &TrainStepCall::beta1).field("beta2", &TrainStepCall::beta2)
      .field("eps", &TrainStepCall::eps).field("weightDecay", &TrainStepCall::weightDecay)
      .field("maxGradNorm", &TrainStepCall::maxGradNorm);
  value_object<GenerateCall>("GenerateCall")
      .field("prompt", &GenerateCall::prompt).field("n", &GenerateCall::n).field("steps", &GenerateCall::steps)
      .field("temperature", &GenerateCall::temperature).field("topK", &GenerateCall::topK)
      .field("seed", &GenerateCall::seed).field("out", &GenerateCall::out);
  value_object<StepResult>("StepResult")
      .field("ok", &StepResult::ok).field("loss", &StepResult::loss)
      .field("gradNorm", &StepResult::gradNorm).field("step", &StepResult::step);

  value_object<Gpt2ConfigCall>("Gpt2ConfigCall")
      .field("nHead", &Gpt2ConfigCall::nHead).field("nLayer", &Gpt2ConfigCall::nLayer)
      .field("nEmbd", &Gpt2ConfigCall::nEmbd).field("nPositions", &Gpt2ConfigCall::nPositions)
      .field("vocabSize", &Gpt2ConfigCall::vocabSize).field("nInner", &Gpt2ConfigCall::nInner)
      .field("layerNormEpsilon", &Gpt2ConfigCall::layerNormEpsilon)
      .field("activation", &Gpt2ConfigCall::activation);
  class_<Model>("Model")
      .class_function("create", &Model::create, allow_raw_pointers())
      .class_function("load", &Model::load, allow_raw_pointers())
      .function("info", &Model::info)
      .function("step", &Model::step)
      .function("parameters", &Model::parameters)
      .function("gradients", &Model::gradients)
      .function("forward", &Model::forward)
      .function("logitLens", &Model::logit_lens)
      .function("computeGradients", &Model::compute_gradients)
      .function("trainStep", &Model::train_step)
      .function("generate", &Model::generate)
      .function("setHeadMask", &Model::set_head_mask)
      .function("save", &Model::save)
      .function("saveGpt2", &Model::save_gpt2)
      .function("saved", &Model::saved)
      .function("savedConfig", &Model::saved_config)
      .function("releaseSaved", &Model::release_saved);
  class_<ModelLoader>("ModelLoader")
      .constructor<>()
      .function("staging", &ModelLoader::staging)
      .function("begin", &ModelLoader::begin)
      .function("headerBytes", &ModelLoader::header_bytes)
      .function("fileBytes", &ModelLoader::file_bytes)
      .function("write", &ModelLoader::write)
      .function("finish", &ModelLoader::finish, allow_raw_pointers());

  // ---- The module --------------------------------------------------------------------------------
  function("lastError", &last_error);
  function("usesSimd128", &uses_simd128);
  function("heapInUse", &heap_in_use);
  function("stackPointer", &stack_pointer);
}
