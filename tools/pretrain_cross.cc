// pretrain_cross — trains a tiny encoder–decoder natively with the core's pointer-level ops (ops.h)
// and their backward passes (backward.h), on a task whose cross-attention alignment can be read:
// a number between 1000 and 9999 written in English words → its four digits,
//
//   source  "four thousand three hundred twenty six"    (words, 2 … 6 tokens)
//   target  "4 3 2 6"                                    (digits, always 4)
//
// and writes the snapshots <attn-cross trained> and the decks show (web/train/pretrained/cross/:
// index.json + weights.bin). Seeded: the same command writes the same bytes. Run by
// scripts/pretrain-cross.sh; the output is committed.
//
//   attnlab_pretrain_cross OUT_DIR [steps] [seed]
//
// The model (D = 16; every attention with biases; no LayerNorm):
//   encoder   x_s = E_src[src] + PE[0:t_s]                    PE: sinusoidal, base 10000
//             m   = x_s + MHA_enc(x_s)                         2 heads, no mask
//   decoder   x_d = E_tgt[BOS d1 d2 d3] + PE[0:4]
//             h1  = x_d + MHA_self(x_d)                        2 heads, causal
//             h2  = h1 + MHA_cross(h1, context = m)            1 head: the map the slides show
//             h3  = h2 + FFN(h2)                               ReLU, d_ff = 32
//             logits = h3·W_outᵀ + b_out                       10 digits (output_head_forward)
// trained with cross-entropy on d1 … d4 (teacher forcing), Adam, clipped gradients. Each sequence goes
// through the ops on its own (sources have different lengths: no padding), gradients summed over the
// batch.
//
// weights.bin: every snapshot's parameters, float32 little-endian, snapshot after snapshot, each in the
// order of index.json's "tensors" ({ name, shape, offset } in floats from the snapshot's start).
// index.json also holds, per snapshot, the held-out loss and exact-match accuracy (greedy decoding) and
// the cross-attention map of each example in "examples" (teacher-forced, rows = the digit predicted,
// columns = the source words), as this program computed them: a page computes the same maps again
// from the weights with the core (tests/unit/cross-pretrained.test.js holds them equal).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/backward.h"
#include "attnlab/ops.h"
#include "attnlab/optimizer.h"
#include "pretrain_common.h"

namespace {

using attnlab::Mask;
using attnlab::MultiHeadArgs;
using attnlab::MultiHeadGrads;
using attnlab::MultiHeadOutputs;
using attnlab::MultiHeadWeights;

namespace pt = attnlab::pretrain;
using pt::Mulberry32;

constexpr char kTool[] = "pretrain_cross";  // how its errors begin
#define CHECK(call) pt::die((call), kTool, #call)

// A standard normal draw (Box–Muller) from tasks.js's PRNG: the initial weights.
double gaussian(Mulberry32& rng) {
  const double u = 1.0 - rng.next(), v = rng.next();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

// ---- The task ---------------------------------------------------------------------------------------
const char* const kWords[] = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                              "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                              "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty",
                              "sixty", "seventy", "eighty", "ninety", "hundred", "thousand"};
constexpr int kSrcVocab = 29, kHundred = 27, kThousand = 28;
constexpr int kDigits = 10, kBos = 10, kTgtVocab = 11, kTgt = 4, kMaxSrc = 6;
constexpr int kLo = 1000, kHi = 9999;

// n in [1000, 9999] → word ids: "X thousand [Y hundred] [tens] [units]"; returns the count.
int number_words(int n, int* w) {
  int k = 0;
  w[k++] = n / 1000 - 1;
  w[k++] = kThousand;
  const int h = n / 100 % 10, r = n % 100;
  if (h) w[k++] = h - 1, w[k++] = kHundred;
  if (r >= 20) {
    w[k++] = 19 + (r / 10 - 2);
    if (r % 10) w[k++] = r % 10 - 1;
  } else if (r) {
    w[k++] = r - 1;
  }
  return k;
}

// ---- The model ----------------------------------------------------------------------------------------
constexpr int D = 16, kEncHeads = 2, kSelfHeads = 2, kCrossHeads = 1, F = 32;

struct Tensor { std::string name; std::vector<int> shape; size_t offset, size; };

struct Layout {
  std::vector<Tensor> t;
  size_t n = 0;
  size_t add(const std::string& name, std::vector<int> shape) {
    size_t s = 1;
    for (int d : shape) s *= d;
    t.push_back({name, shape, n, s});
    n += s;
    return n - s;
  }
};

struct Mha { size_t wq, wk, wv, wo, bq, bk, bv, bo; };
Mha add_mha(Layout& L, const std::string& p) {
  auto nm = [&](const char* s) { return p + "." + s; };
  Mha m;
  m.wq = L.add(nm("wq"), {D, D}); m.wk = L.add(nm("wk"), {D, D});
  m.wv = L.add(nm("wv"), {D, D}); m.wo = L.add(nm("wo"), {D, D});
  m.bq = L.add(nm("bq"), {D}); m.bk = L.add(nm("bk"), {D});
  m.bv = L.add(nm("bv"), {D}); m.bo = L.add(nm("bo"), {D});
  return m;
}

struct Model {
  Layout L;
  size_t src_emb, tgt_emb, w1, b1, w2, b2, wout, bout;
  Mha enc, self, cross;
  Model() {
    src_emb = L.add("src_embedding", {kSrcVocab, D});
    enc = add_mha(L, "encoder.self_attn");
    tgt_emb = L.add("tgt_embedding", {kTgtVocab, D});
    self = add_mha(L, "decoder.self_attn");
    cross = add_mha(L, "decoder.cross_attn");
    w1 = L.add("decoder.ffn.w1", {D, F}); b1 = L.add("decoder.ffn.b1", {F});
    w2 = L.add("decoder.ffn.w2", {F, D}); b2 = L.add("decoder.ffn.b2", {D});
    wout = L.add("out.weight", {kDigits, D}); bout = L.add("out.bias", {kDigits});
  }
};

MultiHeadWeights mhw(const float* p, const Mha& m) {
  return {p + m.wq, p + m.wk, p + m.wv, p + m.wo, p + m.bq, p + m.bk, p + m.bv, p + m.bo};
}
MultiHeadGrads mhg(float* g, const Mha& m) {
  MultiHeadGrads r;
  r.dwq = g + m.wq, r.dwk = g + m.wk, r.dwv = g + m.wv, r.dwo = g + m.wo;
  r.dbq = g + m.bq, r.dbk = g + m.bk, r.dbv = g + m.bv, r.dbo = g + m.bo;
  return r;
}

// The arguments of one attention block (D wide, biases on): queries from x (t_q rows), keys and values
// from context (t_k rows; x itself when context is null).
MultiHeadArgs mha_args(const float* x, int t_q, const float* context, int t_k, int heads,
                       const MultiHeadWeights& w, Mask mask) {
  MultiHeadArgs a{};
  a.x = x, a.t_q = t_q, a.context = context, a.t_k = t_k, a.d_model = D, a.heads = heads;
  a.w = w, a.mask = mask;
  return a;
}

// out = a + b over n floats: the residual connections (out may be a).
void add(const float* a, const float* b, int n, float* out) {
  for (int i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

struct MhaBuf {
  float q[kMaxSrc * D], k[kMaxSrc * D], v[kMaxSrc * D], w[2 * kMaxSrc * kMaxSrc], heads[kMaxSrc * D],
      out[kMaxSrc * D];
  MultiHeadOutputs outs() { return {q, k, v, nullptr, w, heads, out}; }
};

// One sequence's forward, everything the backward needs kept.
struct Pass {
  const Model* M;
  const float* p;
  float pe[8 * D];
  int ts = 0, src[kMaxSrc], din[kTgt], tgt[kTgt];
  float xs[kMaxSrc * D], mem[kMaxSrc * D], xd[kTgt * D], h1[kTgt * D], h2[kTgt * D], h3[kTgt * D];
  float pre[kTgt * F], act[kTgt * F], ffo[kTgt * D], logits[kTgt * kDigits], probs[kTgt * kDigits];
  MhaBuf enc, self, cross;
  MultiHeadArgs ea{}, sa{}, ca{};

  void forward(const int* source, int n, const int* dec_in, int t) {
    ts = n;
    std::memcpy(src, source, n * sizeof(int));
    std::memcpy(din, dec_in, t * sizeof(int));
    CHECK(attnlab::embedding_forward(p + M->src_emb, kSrcVocab, D, src, n, xs));
    add(xs, pe, n * D, xs);
    ea = mha_args(xs, n, nullptr, n, kEncHeads, mhw(p, M->enc), Mask::None());
    CHECK(attnlab::multi_head_attention_forward(ea, enc.outs()));
    add(xs, enc.out, n * D, mem);

    CHECK(attnlab::embedding_forward(p + M->tgt_emb, kTgtVocab, D, din, t, xd));
    add(xd, pe, t * D, xd);
    sa = mha_args(xd, t, nullptr, t, kSelfHeads, mhw(p, M->self), Mask::Causal());
    CHECK(attnlab::multi_head_attention_forward(sa, self.outs()));
    add(xd, self.out, t * D, h1);
    ca = mha_args(h1, t, mem, n, kCrossHeads, mhw(p, M->cross), Mask::None());
    CHECK(attnlab::multi_head_attention_forward(ca, cross.outs()));
    add(h1, cross.out, t * D, h2);
    attnlab::FeedForwardWeights fw{p + M->w1, p + M->b1, p + M->w2, p + M->b2};
    CHECK(attnlab::feed_forward_forward(h2, t, D, F, fw, attnlab::Activation::relu, {pre, act, ffo}));
    add(h2, ffo, t * D, h3);
    CHECK(attnlab::output_head_forward(h3, t, p + M->wout, kDigits, D, p + M->bout, 1.0f, logits, probs));
  }

  // Cross-entropy of the 4 digits (teacher forcing); probs become the softmax of the logits.
  float loss(const int* targets) {
    std::memcpy(tgt, targets, kTgt * sizeof(int));
    float l = 0.0f;
    CHECK(attnlab::softmax_cross_entropy_forward(logits, kTgt, kDigits, tgt, probs, &l));
    return l;
  }

  // Gradients of scale·loss, added into g.
  void backward(float* g, float scale, float* ws) {
    const int t = kTgt, n = ts;
    float dlogits[kTgt * kDigits] = {}, dh3[kTgt * D] = {}, dh2[kTgt * D], dh1[kTgt * D], dxd[kTgt * D];
    float dmem[kMaxSrc * D] = {}, dxs[kMaxSrc * D], scratch[kTgt * F];
    CHECK(attnlab::softmax_cross_entropy_backward(probs, t, kDigits, tgt, scale, dlogits));
    CHECK(attnlab::output_head_backward(h3, t, p + M->wout, kDigits, D, dlogits, dh3, g + M->wout, g + M->bout));
    std::memcpy(dh2, dh3, sizeof dh2);
    attnlab::FeedForwardWeights fw{p + M->w1, p + M->b1, p + M->w2, p + M->b2};
    attnlab::FeedForwardGrads fg{g + M->w1, g + M->b1, g + M->w2, g + M->b2};
    CHECK(attnlab::feed_forward_backward(h2, t, D, F, fw, attnlab::Activation::relu, pre, act, dh3, dh2, fg, scratch));
    std::memcpy(dh1, dh2, sizeof dh1);
    MultiHeadGrads cg = mhg(g, M->cross);
    cg.dx = dh1, cg.dcontext = dmem;
    CHECK(attnlab::multi_head_attention_backward(ca, cross.outs(), dh2, cg, ws));
    std::memcpy(dxd, dh1, sizeof dxd);
    MultiHeadGrads sg = mhg(g, M->self);
    sg.dx = dxd;
    CHECK(attnlab::multi_head_attention_backward(sa, self.outs(), dh1, sg, ws));
    CHECK(attnlab::embedding_backward(din, t, kTgtVocab, D, dxd, g + M->tgt_emb));
    std::memcpy(dxs, dmem, n * D * sizeof(float));
    MultiHeadGrads eg = mhg(g, M->enc);
    eg.dx = dxs;
    CHECK(attnlab::multi_head_attention_backward(ea, enc.outs(), dmem, eg, ws));
    CHECK(attnlab::embedding_backward(src, n, kSrcVocab, D, dxs, g + M->src_emb));
  }
};

// Greedy decoding: the 4 digits the model writes for a source, each fed back.
void decode(Pass& P, const int* src, int n, int* out) {
  int din[kTgt] = {kBos, 0, 0, 0};
  for (int i = 0; i < kTgt; ++i) {
    P.forward(src, n, din, i + 1);
    int best = 0;
    for (int d = 1; d < kDigits; ++d)
      if (P.logits[i * kDigits + d] > P.logits[i * kDigits + best]) best = d;
    out[i] = best;
    if (i + 1 < kTgt) din[i + 1] = best;
  }
}

struct Example { int number, n, src[kMaxSrc], din[kTgt], tgt[kTgt]; };
Example make(int number) {
  Example e{};
  e.number = number;
  e.n = number_words(number, e.src);
  const int d[4] = {number / 1000, number / 100 % 10, number / 10 % 10, number % 10};
  e.din[0] = kBos;
  for (int i = 0; i < kTgt; ++i) {
    e.tgt[i] = d[i];
    if (i + 1 < kTgt) e.din[i + 1] = d[i];
  }
  return e;
}

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (!pt::has_args(argc, argv, 1, "OUT_DIR [steps] [seed]")) return 2;
  const std::string out = argv[1];
  const int steps = static_cast<int>(pt::arg_or(argc, argv, 2, 3000));
  const uint32_t seed = static_cast<uint32_t>(pt::arg_or(argc, argv, 3, 4));
  constexpr int kBatch = 32, kWarmup = 100;
  constexpr double kLr = 3e-3;
  constexpr float kClip = 1.0f;
  // The examples whose maps are shipped: held out, so the slide's alignment is read on a number the
  // model never trained on.
  const int kShown[] = {4326, 7513, 2048};
  constexpr int kHeldOut = 900;

  Model M;
  std::vector<float> params(M.L.n), grads(M.L.n), m1(M.L.n), m2(M.L.n);
  {
    Mulberry32 init{seed ^ 0x1a1b5eedu};
    for (const Tensor& t : M.L.t) {
      const bool emb = t.name.find("embedding") != std::string::npos, bias = t.shape.size() == 1;
      const double std = bias ? 0.0 : emb ? 1.0 : 1.0 / std::sqrt(static_cast<double>(t.shape[0]));
      for (size_t i = 0; i < t.size; ++i) params[t.offset + i] = static_cast<float>(std * gaussian(init));
    }
  }

  // Held-out numbers: the shown ones, then a seeded shuffle's first ones up to 900; the rest trains.
  std::vector<int> all;
  for (int x = kLo; x <= kHi; ++x) all.push_back(x);
  Mulberry32 shuf{seed ^ 0x0ddba11u};
  pt::shuffle(all, shuf);
  std::vector<char> held(kHi + 1, 0);
  std::vector<Example> heldout, train;
  for (int x : kShown) held[x] = 1, heldout.push_back(make(x));
  for (int x : all) {
    if (held[x]) continue;
    if (static_cast<int>(heldout.size()) < kHeldOut) held[x] = 1, heldout.push_back(make(x));
    else train.push_back(make(x));
  }

  Pass P;
  P.M = &M;
  CHECK(attnlab::sinusoidal_positional_encoding_forward(8, D, 10000.0f, P.pe));
  std::vector<float> ws(attnlab::multi_head_backward_workspace_floats(kMaxSrc, kMaxSrc, D));

  // Snapshots: dense while the alignment forms (the thousands digit first, then the hundreds, …).
  std::vector<int> at;
  for (int s : {0, 50, 75, 100, 150, 200, 300, 400, 600, 1000, 2000})
    if (s < steps) at.push_back(s);
  at.push_back(steps);
  std::string snaps;
  std::vector<float> bin;

  auto evaluate = [&](int step, double train_loss) {
    P.p = params.data();
    double loss = 0;
    int exact = 0, digits = 0;
    for (const Example& e : heldout) {
      P.forward(e.src, e.n, e.din, kTgt);
      loss += P.loss(e.tgt);
      int d[kTgt];
      decode(P, e.src, e.n, d);
      int ok = 0;
      for (int i = 0; i < kTgt; ++i) ok += d[i] == e.tgt[i];
      digits += ok;
      exact += ok == kTgt;
    }
    loss /= heldout.size();
    const double acc = static_cast<double>(exact) / heldout.size(), dacc = digits / (4.0 * heldout.size());
    std::string maps;
    for (int k = 0; k < 3; ++k) {
      const Example e = make(kShown[k]);
      P.forward(e.src, e.n, e.din, kTgt);
      int d[kTgt];
      std::string row = "[";
      for (int i = 0; i < kTgt * e.n; ++i) row += (i ? "," : "") + fmt("%.6f", P.cross.w[i]);
      decode(P, e.src, e.n, d);
      maps += std::string(k ? ", " : "") + "{\"number\": " + std::to_string(e.number) + ", \"output\": \"" +
              std::to_string(d[0]) + std::to_string(d[1]) + std::to_string(d[2]) + std::to_string(d[3]) +
              "\", \"weights\": " + row + "]}";
    }
    if (!snaps.empty()) snaps += ",\n";
    snaps += "    {\"step\": " + std::to_string(step) + ", \"trainLoss\": " +
             (std::isnan(train_loss) ? std::string("null") : fmt("%.6g", train_loss)) +
             ", \"evalLoss\": " + fmt("%.6g", loss) + ", \"accuracy\": " + fmt("%.6g", acc) +
             ", \"digitAccuracy\": " + fmt("%.6g", dacc) + ",\n     \"maps\": [" + maps + "]}";
    bin.insert(bin.end(), params.begin(), params.end());
    std::printf("step %5d  train %.4f  held-out %.4f  exact %.3f  digits %.3f\n", step, train_loss, loss, acc, dacc);
  };

  Mulberry32 rng{seed};
  attnlab::AdamWConfig adam;
  adam.weight_decay = 0.0;
  double smooth = NAN;
  size_t next = 0;
  for (int s = 0; s <= steps; ++s) {
    if (next < at.size() && at[next] == s) evaluate(s, smooth), ++next;
    if (s == steps) break;
    std::fill(grads.begin(), grads.end(), 0.0f);
    P.p = params.data();
    double loss = 0;
    for (int b = 0; b < kBatch; ++b) {
      const Example& e = train[rng.below(static_cast<int>(train.size()))];
      P.forward(e.src, e.n, e.din, kTgt);
      loss += P.loss(e.tgt);
      P.backward(grads.data(), 1.0f / kBatch, ws.data());
    }
    loss /= kBatch;
    smooth = std::isnan(smooth) ? loss : 0.95 * smooth + 0.05 * loss;
    float norm = 0;
    CHECK(attnlab::clip_grad_norm(grads.data(), grads.size(), kClip, &norm));
    adam.lr = kLr * std::min(1.0, (s + 1.0) / kWarmup);
    CHECK(attnlab::adamw_step(params.data(), grads.data(), m1.data(), m2.data(), params.size(), s + 1, adam));
  }

  std::string index = "{\n  \"generator\": \"tools/pretrain_cross.cc (scripts/pretrain-cross.sh): do not edit\",\n"
                      "  \"task\": \"number words (1000-9999) -> four digits\",\n  \"seed\": " + std::to_string(seed) +
                      ",\n  \"config\": {\"dModel\": " + std::to_string(D) + ", \"encoderHeads\": " +
                      std::to_string(kEncHeads) + ", \"selfHeads\": " + std::to_string(kSelfHeads) +
                      ", \"crossHeads\": " + std::to_string(kCrossHeads) + ", \"dFF\": " + std::to_string(F) +
                      ", \"positional\": \"sinusoidal\", \"positionalBase\": 10000, \"activation\": \"relu\"},\n"
                      "  \"optimizer\": {\"name\": \"adam\", \"lr\": " + fmt("%g", kLr) + ", \"warmupSteps\": " +
                      std::to_string(kWarmup) + ", \"maxGradNorm\": 1, \"batch\": " + std::to_string(kBatch) + "},\n"
                      "  \"trainSize\": " + std::to_string(train.size()) + ", \"heldOutSize\": " +
                      std::to_string(heldout.size()) + ",\n  \"srcVocab\": [";
  for (int i = 0; i < kSrcVocab; ++i) index += std::string(i ? ", " : "") + "\"" + kWords[i] + "\"";
  index += "],\n  \"tgtVocab\": [\"0\", \"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", \"8\", \"9\", \"<s>\"],\n"
           "  \"bos\": 10,\n  \"examples\": [";
  for (int k = 0; k < 3; ++k) {
    const Example e = make(kShown[k]);
    index += std::string(k ? ", " : "") + "{\"number\": " + std::to_string(e.number) + ", \"source\": [";
    for (int i = 0; i < e.n; ++i) index += std::string(i ? ", " : "") + std::to_string(e.src[i]);
    index += "]}";
  }
  index += "],\n  \"floatsPerSnapshot\": " + std::to_string(M.L.n) + ",\n  \"tensors\": [\n";
  for (size_t i = 0; i < M.L.t.size(); ++i) {
    const Tensor& t = M.L.t[i];
    index += "    {\"name\": \"" + t.name + "\", \"shape\": [";
    for (size_t j = 0; j < t.shape.size(); ++j) index += (j ? ", " : "") + std::to_string(t.shape[j]);
    index += "], \"offset\": " + std::to_string(t.offset) + "}" + (i + 1 < M.L.t.size() ? ",\n" : "\n");
  }
  index += "  ],\n  \"snapshots\": [\n" + snaps + "\n  ]\n}\n";
  if (!pt::write_file(out + "/index.json", index.data(), index.size()) ||
      !pt::write_file(out + "/weights.bin", bin.data(), bin.size() * sizeof(float))) {
    std::fprintf(stderr, "%s: cannot write to %s\n", kTool, out.c_str());
    return 1;
  }
  return 0;
}
