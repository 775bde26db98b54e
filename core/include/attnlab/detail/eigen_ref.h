// attnlab/detail/eigen_ref.h — how the Matrix-level API (header-only adapters in attention.h,
// multihead.h, …) hands Eigen matrices to the pointer-level ops: data pointer, sizes, row stride,
// shape checks. Not part of the API.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/status.h"

namespace attnlab::detail {

using ConstRef = Eigen::Ref<const RowMatrixXf>;

inline size_t rows(const ConstRef& m) { return static_cast<size_t>(m.rows()); }
inline size_t cols(const ConstRef& m) { return static_cast<size_t>(m.cols()); }
// Row stride in floats: the distance between rows, wider than cols for a block of a bigger matrix.
inline size_t stride(const ConstRef& m) {
  return std::max(static_cast<size_t>(m.outerStride()), cols(m));
}
inline std::string shape(const ConstRef& m) {
  return "[" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "]";
}
// A new [r, c] result, zero-filled (what an op leaves unwritten, e.g. the output of an empty key set,
// reads 0).
inline RowMatrixXf zeros(size_t r, size_t c) {
  return RowMatrixXf::Zero(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c));
}

inline void need_shape(const char* fn, const char* name, const ConstRef& m, size_t r, size_t c) {
  if (rows(m) != r || cols(m) != c)
    throw Error(std::string(fn) + ": " + name + " is " + shape(m) + ", expected [" + std::to_string(r) + ", " +
                std::to_string(c) + "]");
}
// An optional vector: empty (→ nullptr) or exactly n values.
inline const float* optional_values(const char* fn, const char* name, const std::vector<float>& v, size_t n) {
  if (v.empty()) return nullptr;
  if (v.size() != n)
    throw Error(std::string(fn) + ": " + name + " has " + std::to_string(v.size()) + " values, expected " +
                std::to_string(n));
  return v.data();
}

// Rows one after another, for the ops that take no row stride (all but attention and the GEMM):
// the matrix's own storage when its rows are already contiguous (a whole matrix, a band of full
// rows, a Map over a buffer), else one copy (a block narrower than its matrix).
class ContiguousRows {
 public:
  explicit ContiguousRows(const ConstRef& m) {
    if (m.rows() <= 1 || m.outerStride() == m.cols()) {
      data_ = m.data();
    } else {
      copy_ = m;
      data_ = copy_.data();
    }
  }
  const float* data() const { return data_; }

 private:
  RowMatrixXf copy_;
  const float* data_ = nullptr;
};

// H matrices [r, c] copied out of one buffer of H·r·c floats (the per-head maps).
inline std::vector<RowMatrixXf> split_heads(const std::vector<float>& all, size_t H, size_t r, size_t c) {
  std::vector<RowMatrixXf> out;
  out.reserve(H);
  for (size_t h = 0; h < H; ++h)
    out.emplace_back(Eigen::Map<const RowMatrixXf>(all.data() + h * r * c, static_cast<Eigen::Index>(r),
                                                   static_cast<Eigen::Index>(c)));
  return out;
}

}  // namespace attnlab::detail
