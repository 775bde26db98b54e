// attnlab/matrix.h — the matrix types of the Matrix-level C++ API: Eigen's, row-major float32.
//
// The Matrix-level functions take `Eigen::Ref<const RowMatrixXf>`: any row-major float matrix, a
// block of a bigger one (rows apart by its outer stride) or an Eigen::Map over your own buffer binds
// without a copy (another expression, e.g. a product or a column-major matrix, is evaluated into a
// temporary by Eigen). They return RowMatrixXf, owning its storage. The maths lives in the ops
// (attnlab/ops.h) and their hand-written kernels, not in Eigen's operators.
#pragma once

#include <Eigen/Core>

namespace attnlab {

// [rows, cols], rows one after another: the layout of every pointer-level op.
using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace attnlab
