// How the Matrix-level API hands Eigen matrices to the pointer-level ops: data pointer, sizes, row
// stride. Private to core/src/api.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "attnlab/matrix.h"

namespace attnlab::api {

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

}  // namespace attnlab::api
