// attnlab/matrix.h — a row-major float matrix that owns its data: what the Matrix-level API takes
// and returns. Deliberately small: the maths lives in the ops, not in operator overloads.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "attnlab/status.h"

namespace attnlab {

class Matrix {
 public:
  Matrix() = default;
  Matrix(size_t rows, size_t cols, float fill = 0.0f) : rows_(rows), cols_(cols), data_(rows * cols, fill) {}
  Matrix(size_t rows, size_t cols, std::vector<float> data) : rows_(rows), cols_(cols), data_(std::move(data)) {
    if (data_.size() != rows * cols)
      throw Error("Matrix: " + std::to_string(data_.size()) + " values, expected rows·cols = " +
                  std::to_string(rows * cols));
  }
  // Matrix{{0.2, 0.4, 0.6}, {0.8, 0.3, 0.3}}: rows as written in the lecture.
  Matrix(std::initializer_list<std::initializer_list<float>> rows) {
    rows_ = rows.size();
    cols_ = rows_ ? rows.begin()->size() : 0;
    for (const auto& r : rows) {
      if (r.size() != cols_) throw Error("Matrix: rows of different lengths");
      data_.insert(data_.end(), r.begin(), r.end());
    }
  }

  size_t rows() const { return rows_; }
  size_t cols() const { return cols_; }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  const std::vector<float>& values() const { return data_; }
  float& operator()(size_t i, size_t j) { return data_[i * cols_ + j]; }
  float operator()(size_t i, size_t j) const { return data_[i * cols_ + j]; }

 private:
  size_t rows_ = 0, cols_ = 0;
  std::vector<float> data_;
};

}  // namespace attnlab
