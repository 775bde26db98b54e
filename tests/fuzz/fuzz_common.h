// fuzz_common.h — what every libFuzzer harness in tests/fuzz/ shares: decoding sizes, options and
// float values (NaN, ±Inf, denormals, huge values, raw bit patterns) from the fuzz input, exact-size
// buffers (so AddressSanitizer sees any read or write past a buffer) and the invariant checks.
//
// Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined). A failed invariant calls
// abort() with a message, which libFuzzer reports as a crash and saves the input.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attnlab/ops.h"

namespace fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "INVARIANT FAILED: %s %s\n", what, detail.c_str());
  std::abort();
}
#define FUZZ_ASSERT(cond, detail) \
  do {                            \
    if (!(cond)) ::fuzz::fail(#cond, detail); \
  } while (0)

// Values chosen to break things: both zeros, ±Inf, NaN, the denormal range, float's limits, the
// ±1e30 logits the README promises to handle, and plain small numbers (most real inputs).
inline float special(size_t i) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float table[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f,
                         std::numeric_limits<float>::quiet_NaN(), inf, -inf,
                         std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                         FLT_MIN, FLT_MAX, -FLT_MAX, 1e30f, -1e30f, 1e-30f, 1e19f, -1e19f, 65504.0f};
  return table[i % (sizeof table / sizeof table[0])];
}

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data, size) {}

  size_t size(size_t lo, size_t hi) { return p_.ConsumeIntegralInRange<size_t>(lo, hi); }
  int integer(int lo, int hi) { return p_.ConsumeIntegralInRange<int>(lo, hi); }
  bool flag() { return p_.ConsumeBool(); }
  bool empty() { return p_.remaining_bytes() == 0; }

  // Mostly ordinary values; sometimes a special one or an arbitrary bit pattern (every NaN payload,
  // every denormal). Out of bytes: 0.
  float value() {
    const uint8_t mode = p_.ConsumeIntegral<uint8_t>();
    if (mode < 160) return static_cast<float>(static_cast<int8_t>(p_.ConsumeIntegral<uint8_t>())) / 16.0f;
    if (mode < 220) return special(p_.ConsumeIntegral<uint8_t>());
    uint32_t bits = p_.ConsumeIntegral<uint32_t>();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  // A value that a caller must accept (finite), for most of the inputs of a call that should pass.
  float finite_value() {
    const float f = value();
    return std::isfinite(f) ? f : 0.0f;
  }

  // n values; with probability ~7/8 all finite (so calls get past the checks and reach the kernels).
  std::vector<float> values(size_t n, bool clean) {
    std::vector<float> v(n);  // exact size: ASan reports any access past v[n - 1]
    for (auto& x : v) x = clean ? finite_value() : value();
    return v;
  }
  bool clean() { return p_.ConsumeIntegralInRange<int>(0, 7) != 0; }

  attnlab::Mask mask(size_t t_q, size_t t_k, std::vector<float>& storage) {
    switch (p_.ConsumeIntegralInRange<int>(0, 4)) {
      case 1: return attnlab::Mask::Causal();
      case 2: return attnlab::Mask::Window(integer(-3, 70), flag());
      case 3: {
        storage.resize(t_q * t_k);
        storage.shrink_to_fit();
        const bool clean_mask = clean();
        for (auto& x : storage) {
          const int pick = integer(0, 3);
          x = pick == 0 ? -std::numeric_limits<float>::infinity() : clean_mask ? finite_value() : value();
        }
        return attnlab::Mask::Additive(storage.empty() ? nullptr : storage.data());
      }
      case 4: return attnlab::Mask::Additive(nullptr);  // a caller forgot the values
      default: return attnlab::Mask::None();
    }
  }

 private:
  FuzzedDataProvider p_;
};

// Exact-size output buffer pre-filled with NaN, so a value the op forgot to write shows up.
inline std::vector<float> out_buffer(size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

inline void expect_finite(const char* what, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) fail("finite output", std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(x[i]));
}

// A failed call names its op first: "<op>: …".
inline void expect_message(const attnlab::Status& s, const char* op) {
  const std::string prefix = std::string(op) + ": ";
  if (s.message.compare(0, prefix.size(), prefix) != 0) fail("message names the op", s.message);
  if (s.message.find("expected") == std::string::npos && s.message.find("missing") == std::string::npos &&
      s.message.find(" needs ") == std::string::npos)
    fail("message says what was expected", s.message);
}

// Each weights row [cols] is a probability distribution (sums to 1) or all zeros (every key masked).
inline void expect_rows_distribution(const float* w, size_t rows, size_t cols) {
  for (size_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (size_t j = 0; j < cols; ++j) {
      const float x = w[i * cols + j];
      if (!(x >= 0.0f && x <= 1.0f)) fail("weight in [0, 1]", std::to_string(x));
      sum += x;
    }
    if (!(sum == 0.0 || std::fabs(sum - 1.0) < 1e-4 * (1.0 + static_cast<double>(cols) * 1e-3)))
      fail("weights row sums to 1 or 0", "row " + std::to_string(i) + " sums to " + std::to_string(sum));
  }
}

// Rows of out [rows, d_v] (stride ldo) are convex combinations of the rows of v [t_k, d_v] (stride
// ldv) with the weights given: each entry lies between the column's min and max (up to rounding).
inline void expect_convex(const float* w, const float* v, size_t ldv, const float* out, size_t ldo,
                          size_t rows, size_t t_k, size_t d_v) {
  for (size_t c = 0; c < d_v; ++c) {
    float lo = INFINITY, hi = -INFINITY, mag = 0;
    for (size_t j = 0; j < t_k; ++j) {
      lo = std::fmin(lo, v[j * ldv + c]);
      hi = std::fmax(hi, v[j * ldv + c]);
      mag = std::fmax(mag, std::fabs(v[j * ldv + c]));
    }
    const double tol = 1e-4 * mag * (1.0 + static_cast<double>(t_k) * 1e-2) + 1e-30;
    for (size_t i = 0; i < rows; ++i) {
      double sum = 0;
      for (size_t j = 0; j < t_k; ++j) sum += w[i * t_k + j];
      const double o = out[i * ldo + c];
      if (sum == 0.0) {
        if (o != 0.0) fail("an all-masked row gives output 0", std::to_string(o));
        continue;
      }
      if (o < lo - tol || o > hi + tol)
        fail("output is a convex combination of v", "out[" + std::to_string(i) + "," + std::to_string(c) +
             "] = " + std::to_string(o) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  }
}

// Buffer length of a [rows, cols] matrix with row stride ld (0 rows: nothing).
inline size_t strided(size_t rows, size_t cols, size_t ld) { return rows ? (rows - 1) * ld + cols : 0; }

}  // namespace fuzz
