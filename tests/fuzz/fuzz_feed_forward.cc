// libFuzzer harness for attnlab::feed_forward_forward: x [rows, D] → W1 [D, d_ff] → act → W2 [d_ff, D].
// Invariant when it accepts: pre, hidden and out finite.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t rows = in.size(0, 12), D = in.size(0, 16), d_ff = in.size(0, 48);
  const auto act = static_cast<attnlab::Activation>(in.integer(0, 2));
  const bool with_b1 = in.flag(), with_b2 = in.flag(), keep_pre = in.flag();
  const bool clean = in.clean();
  auto x = in.values(rows * D, clean);
  auto w1 = in.values(D * d_ff, clean), w2 = in.values(d_ff * D, clean);
  auto b1 = in.values(with_b1 ? d_ff : 0, clean), b2 = in.values(with_b2 ? D : 0, clean);
  auto pre = fuzz::out_buffer(keep_pre ? rows * d_ff : 0), hidden = fuzz::out_buffer(rows * d_ff);
  auto out = fuzz::out_buffer(rows * D);
  attnlab::FeedForwardWeights w{w1.data(), with_b1 ? b1.data() : nullptr, w2.data(), with_b2 ? b2.data() : nullptr};
  attnlab::FeedForwardOutputs o{keep_pre ? pre.data() : nullptr, hidden.data(), out.data()};
  const attnlab::Status s = attnlab::feed_forward_forward(x.data(), rows, D, d_ff, w, act, o);
  if (!s.ok) {
    fuzz::expect_message(s, "feedForward");
    return 0;
  }
  fuzz::expect_finite("pre", pre.data(), pre.size());
  fuzz::expect_finite("hidden", hidden.data(), hidden.size());
  fuzz::expect_finite("output", out.data(), out.size());
  return 0;
}
