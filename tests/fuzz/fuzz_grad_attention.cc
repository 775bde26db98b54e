// libFuzzer harness for the attention-side backward passes (attnlab/backward.h): scaled dot-product
// attention, multi-head attention (self or cross, biases, masks, RoPE, ALiBi), and embedding → tied
// output head → softmax cross-entropy, each after its forward on the same fuzzed sizes and values,
// with optional gradient buffers. Invariants: whenever the forward accepts, the backward accepts too
// and touches only its exact-size buffers and workspace (ASan); the loss of accepted logits is finite;
// a refusal of the loss names the op.
#include "attnlab/backward.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const int which = static_cast<int>(in.size(0, 2));
  const bool want[4] = {in.flag(), in.flag(), in.flag(), in.flag()};
  const bool clean = in.clean();
  if (which == 0) {
    const size_t t_q = in.size(0, 10), t_k = in.size(0, 10), dk = in.size(0, 12), dv = in.size(0, 12);
    const float scale = in.value(), slope = in.flag() ? 0.0f : in.value();
    std::vector<float> mask_values;
    const attnlab::Mask mask = in.mask(t_q, t_k, mask_values);
    auto q = in.values(t_q * dk, clean), k = in.values(t_k * dk, clean), v = in.values(t_k * dv, clean);
    auto dout = in.values(t_q * dv, clean);
    attnlab::AttentionArgs a{q.data(), dk, k.data(), dk, v.data(), dv, t_q, t_k, dk, dv, scale, mask, slope};
    auto weights = fuzz::out_buffer(t_q * t_k), out = fuzz::out_buffer(t_q * dv);
    attnlab::AttentionOutputs o{nullptr, nullptr, weights.data(), out.data(), dv};
    if (!attnlab::attention_forward(a, o).ok) return 0;
    std::vector<float> dq(t_q * dk), dkk(t_k * dk), dvv(t_k * dv), scratch(t_q * t_k);
    const attnlab::AttentionGrads g{want[0] ? dq.data() : nullptr, want[1] ? dkk.data() : nullptr,
                                    want[2] ? dvv.data() : nullptr};
    const attnlab::Status s = attnlab::attention_backward(a, weights.data(), dout.data(), dv, g, scratch.data());
    FUZZ_ASSERT(s.ok, s.message);
    return 0;
  }
  if (which == 1) {
    const size_t t_q = in.size(0, 8), D = in.size(0, 16), H = in.size(0, 4);
    const bool cross = in.flag();
    const size_t t_k = cross ? in.size(0, 8) : t_q;
    const float scale = in.flag() ? 0.0f : in.value();
    const bool rope = in.flag(), alibi = in.flag(), biases = in.flag();
    std::vector<float> mask_values;
    const attnlab::Mask mask = in.mask(t_q, t_k, mask_values);
    auto x = in.values(t_q * D, clean), context = in.values(cross ? t_k * D : 0, clean);
    std::vector<float> w[4], b[4];
    for (int i = 0; i < 4; ++i) {
      w[i] = in.values(D * D, clean);
      b[i] = in.values(biases ? D : 0, clean);
    }
    auto bias = [&](int i) -> const float* { return biases ? b[i].data() : nullptr; };
    attnlab::MultiHeadArgs a{x.data(), t_q, cross ? context.data() : nullptr, t_k, D, H,
                             {w[0].data(), w[1].data(), w[2].data(), w[3].data(), bias(0), bias(1), bias(2), bias(3)},
                             mask, scale, rope, 10000.0f, alibi};
    auto q = fuzz::out_buffer(t_q * D), k = fuzz::out_buffer(t_k * D), v = fuzz::out_buffer(t_k * D);
    auto weights = fuzz::out_buffer(H * t_q * t_k), heads = fuzz::out_buffer(t_q * D), out = fuzz::out_buffer(t_q * D);
    attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(), out.data()};
    if (!attnlab::multi_head_attention_forward(a, o).ok) return 0;
    auto dout = in.values(t_q * D, clean);
    std::vector<float> dx(t_q * D), dctx(t_k * D), dw[4], db[4];
    attnlab::MultiHeadGrads g;
    if (want[0]) g.dx = dx.data();
    if (want[1]) g.dcontext = dctx.data();
    for (int i = 0; i < 4; ++i) dw[i].resize(D * D), db[i].resize(D);
    if (want[2]) g.dwq = dw[0].data(), g.dwk = dw[1].data(), g.dwv = dw[2].data(), g.dwo = dw[3].data();
    if (want[3]) g.dbq = db[0].data(), g.dbk = db[1].data(), g.dbv = db[2].data(), g.dbo = db[3].data();
    std::vector<float> workspace(attnlab::multi_head_backward_workspace_floats(t_q, t_k, D));
    const attnlab::Status s = attnlab::multi_head_attention_backward(a, o, dout.data(), g, workspace.data());
    FUZZ_ASSERT(s.ok, s.message);
    return 0;
  }
  // Embedding → tied output head → cross-entropy, and back.
  const size_t vocab = in.size(0, 12), D = in.size(0, 12), n = in.size(0, 8);
  std::vector<int> ids(n), targets(n);
  for (auto& i : ids) i = in.integer(-1, static_cast<int>(vocab));
  for (auto& t : targets) t = in.integer(-1, static_cast<int>(vocab));
  auto table = in.values(vocab * D, clean), bias = in.values(want[3] ? vocab : 0, clean);
  auto e = fuzz::out_buffer(n * D), logits = fuzz::out_buffer(n * vocab), probs = fuzz::out_buffer(n * vocab);
  if (!attnlab::embedding_forward(table.data(), vocab, D, ids.data(), n, e.data()).ok) return 0;
  if (!attnlab::output_head_forward(e.data(), n, table.data(), vocab, D, want[3] ? bias.data() : nullptr, 1.0f,
                                    logits.data(), probs.data()).ok)
    return 0;
  float loss = 0;
  attnlab::Status s = attnlab::softmax_cross_entropy_forward(logits.data(), n, vocab, targets.data(), probs.data(), &loss);
  if (!s.ok) {
    fuzz::expect_message(s, "crossEntropy");
    return 0;
  }
  FUZZ_ASSERT(std::isfinite(loss), "loss of finite logits is not finite");
  std::vector<float> dlogits(n * vocab), de(n * D), dtable(vocab * D), dbias(vocab);
  s = attnlab::softmax_cross_entropy_backward(probs.data(), n, vocab, targets.data(), 1.0f, dlogits.data());
  FUZZ_ASSERT(s.ok, s.message);
  s = attnlab::output_head_backward(e.data(), n, table.data(), vocab, D, dlogits.data(), want[0] ? de.data() : nullptr,
                                    want[1] ? dtable.data() : nullptr, want[3] ? dbias.data() : nullptr);
  FUZZ_ASSERT(s.ok, s.message);
  s = attnlab::embedding_backward(ids.data(), n, vocab, D, de.data(), dtable.data());
  FUZZ_ASSERT(s.ok, s.message);
  return 0;
}
