// common.h — what the model files (gpt.cc, generate.cc, layer.cc) share: refusal messages under the
// name of the JS function that reached them, and the residual adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "attnlab/status.h"

namespace attnlab::model {

constexpr size_t kNone = SIZE_MAX;  // no layer (wrap), no tensor (offsets)

inline Status fail(const char* op, const std::string& rest) { return Status::Fail(std::string(op) + ": " + rest); }

// An op's refusal inside the model, under the name of the JS function that reached it:
// "trainStep: layer 0 attention: multiHeadAttention: …".
inline Status wrap(const char* op, const char* where, size_t layer, Status s) {
  if (s.ok) return s;
  std::string w = where;
  if (layer != kNone) w = "layer " + std::to_string(layer) + " " + w;
  s.message = std::string(op) + ": " + w + ": " + s.message;
  return s;
}
inline Status wrap(const char* op, const char* where, Status s) { return wrap(op, where, kNone, std::move(s)); }

// out[i] += a[i]: the residual adds (the blocks' add is internal to block.cc).
inline void add_inplace(float* out, const float* a, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] += a[i];
}
// x [rows, D] += bias [D] per row.
inline void add_bias_rows(float* x, size_t rows, size_t D, const float* bias) {
  for (size_t r = 0; r < rows; ++r) add_inplace(x + r * D, bias, D);
}

}  // namespace attnlab::model
