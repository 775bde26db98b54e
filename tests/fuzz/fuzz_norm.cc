// libFuzzer harness for attnlab::layer_norm_forward and rms_norm_forward (x [rows, dim], optional
// γ, β [dim], eps; copy or in place). Invariants when they accept: finite outputs; LayerNorm without
// γ/β gives rows of mean ≈ 0 and |y| ≤ √dim (a normalised row cannot exceed that).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const bool rms = in.flag();
  const size_t rows = in.size(0, 16), dim = in.size(0, 48);
  const bool with_gamma = in.flag(), with_beta = in.flag(), in_place = in.flag(), keep_stats = in.flag();
  const float eps = in.flag() ? 1e-5f : in.value();
  const bool clean = in.clean();
  auto x = in.values(rows * dim, clean);
  auto gamma = in.values(with_gamma ? dim : 0, clean), beta = in.values(with_beta ? dim : 0, clean);
  auto out = in_place ? std::vector<float>() : fuzz::out_buffer(rows * dim);
  auto mean = fuzz::out_buffer(keep_stats ? rows : 0), rstd = fuzz::out_buffer(keep_stats ? rows : 0);
  float* dst = in_place ? x.data() : out.data();
  const float* g = with_gamma ? gamma.data() : nullptr;
  const float* b = with_beta ? beta.data() : nullptr;
  const attnlab::Status s =
      rms ? attnlab::rms_norm_forward(x.data(), rows, dim, g, eps, dst)
          : attnlab::layer_norm_forward(x.data(), rows, dim, g, b, eps, dst, keep_stats ? mean.data() : nullptr,
                                        keep_stats ? rstd.data() : nullptr);
  if (!s.ok) {
    fuzz::expect_message(s, rms ? "rmsNorm" : "layerNorm");
    return 0;
  }
  fuzz::expect_finite("output", dst, rows * dim);
  if (keep_stats && !rms) {
    fuzz::expect_finite("mean", mean.data(), rows);
    fuzz::expect_finite("rstd", rstd.data(), rows);
  }
  if (!rms && !g && !b)
    for (size_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (size_t i = 0; i < dim; ++i) {
        const float y = dst[r * dim + i];
        FUZZ_ASSERT(std::fabs(y) <= std::sqrt(static_cast<float>(dim)) * 1.001f + 1e-3f, std::to_string(y));
        sum += y;
      }
      FUZZ_ASSERT(std::fabs(sum) <= 1e-3 * dim, std::to_string(sum));
    }
  return 0;
}
