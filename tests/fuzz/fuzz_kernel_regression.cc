// libFuzzer harness for attnlab::kernel_regression_forward (Nadaraya-Watson as attention). Invariants
// when it accepts: weights rows are distributions, each prediction lies between min(ys) and max(ys).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t n = in.size(0, 40), n_q = in.size(0, 40), dim = in.size(0, 6);
  const auto kernel = static_cast<attnlab::RegressionKernel>(in.integer(0, 1));
  const float bandwidth = in.flag() ? 1.0f : in.value();
  const bool clean = in.clean();
  auto xs = in.values(n * dim, clean), ys = in.values(n, clean), qs = in.values(n_q * dim, clean);
  auto scores = fuzz::out_buffer(n_q * n), weights = fuzz::out_buffer(n_q * n), pred = fuzz::out_buffer(n_q);
  const attnlab::Status s = attnlab::kernel_regression_forward(xs.data(), ys.data(), n, qs.data(), n_q, dim, kernel,
                                                               bandwidth, scores.data(), weights.data(), pred.data());
  if (!s.ok) {
    fuzz::expect_message(s, "kernelRegression");
    return 0;
  }
  fuzz::expect_rows_distribution(weights.data(), n_q, n);
  fuzz::expect_finite("predictions", pred.data(), n_q);
  fuzz::expect_convex(weights.data(), ys.data(), 1, pred.data(), 1, n_q, n, 1);
  for (float x : scores) FUZZ_ASSERT(!std::isnan(x), "score NaN");
  return 0;
}
