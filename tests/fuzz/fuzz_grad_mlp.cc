// libFuzzer harness for the MLP/norm backward passes (attnlab/backward.h): LayerNorm, RMSNorm, the
// activations and the feed-forward network, each after its forward on the same fuzzed sizes and values,
// with optional γ/β/biases and optional gradient buffers. Invariants: whenever the forward accepts,
// the backward accepts too (its checks are sizes and buffers, which the forward's call shares) and
// touches only its exact-size buffers (ASan); a refusal names the op and what was expected.
#include "attnlab/backward.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const int which = static_cast<int>(in.size(0, 3));
  const size_t rows = in.size(0, 8), dim = in.size(0, 24), d_ff = in.size(0, 24);
  const bool with_gamma = in.flag(), with_beta = in.flag(), want_params = in.flag();
  const auto act = static_cast<attnlab::Activation>(in.size(0, 2));
  const bool clean = in.clean();
  auto x = in.values(rows * dim, clean), dout = in.values(rows * dim, clean);
  auto gamma = in.values(with_gamma ? dim : 0, clean), beta = in.values(with_beta ? dim : 0, clean);
  const float* g = with_gamma ? gamma.data() : nullptr;
  const float* b = with_beta ? beta.data() : nullptr;
  std::vector<float> dx(rows * dim), dg(dim), db(dim);
  float* dgp = want_params ? dg.data() : nullptr;
  float* dbp = want_params ? db.data() : nullptr;
  if (which == 0 || which == 1) {
    auto y = fuzz::out_buffer(rows * dim), mean = fuzz::out_buffer(rows), rstd = fuzz::out_buffer(rows);
    const attnlab::Status f =
        which == 0 ? attnlab::layer_norm_forward(x.data(), rows, dim, g, b, 1e-5f, y.data(), mean.data(), rstd.data())
                   : attnlab::rms_norm_forward(x.data(), rows, dim, g, 1e-5f, y.data(), rstd.data());
    if (!f.ok) return 0;
    const attnlab::Status s =
        which == 0 ? attnlab::layer_norm_backward(x.data(), rows, dim, g, mean.data(), rstd.data(), dout.data(), dx.data(), dgp, dbp)
                   : attnlab::rms_norm_backward(x.data(), rows, dim, g, rstd.data(), dout.data(), dx.data(), dgp);
    FUZZ_ASSERT(s.ok, s.message);
    return 0;
  }
  if (which == 2) {
    const size_t n = rows * dim;
    const attnlab::Status s = attnlab::activation_backward(act, x.data(), n, dout.data(), dx.data());
    if (n == 0) fuzz::expect_message(s, "activationBackward");
    else FUZZ_ASSERT(s.ok, s.message);
    return 0;
  }
  auto w1 = in.values(dim * d_ff, clean), b1 = in.values(with_beta ? d_ff : 0, clean),
       w2 = in.values(d_ff * dim, clean), b2 = in.values(with_beta ? dim : 0, clean);
  attnlab::FeedForwardWeights w{w1.data(), with_beta ? b1.data() : nullptr, w2.data(), with_beta ? b2.data() : nullptr};
  auto pre = fuzz::out_buffer(rows * d_ff), activated = fuzz::out_buffer(rows * d_ff), out = fuzz::out_buffer(rows * dim);
  if (!attnlab::feed_forward_forward(x.data(), rows, dim, d_ff, w, act, {pre.data(), activated.data(), out.data()}).ok)
    return 0;
  std::vector<float> dw1(dim * d_ff), db1(d_ff), dw2(d_ff * dim), db2(dim), scratch(rows * d_ff);
  attnlab::FeedForwardGrads grads;
  if (want_params) grads = {dw1.data(), db1.data(), dw2.data(), db2.data()};
  const attnlab::Status s = attnlab::feed_forward_backward(x.data(), rows, dim, d_ff, w, act, pre.data(), activated.data(),
                                                           dout.data(), with_gamma ? dx.data() : nullptr, grads, scratch.data());
  FUZZ_ASSERT(s.ok, s.message);
  return 0;
}
