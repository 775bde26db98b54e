// matmul (attnlab.h): the one Matrix-level function that is not an adapter over a pointer-level op.
// It calls attnlab's GEMM kernel directly, whose header (kernels/dispatch.h) is private to the core,
// so it is compiled here rather than inline in the header like the rest of the Matrix level.
#include "attnlab/attnlab.h"
#include "../kernels/dispatch.h"

namespace attnlab {

RowMatrixXf matmul(const Eigen::Ref<const RowMatrixXf>& A, const Eigen::Ref<const RowMatrixXf>& B) {
  using namespace detail;
  if (A.cols() != B.rows())
    throw Error("matmul: A is " + shape(A) + " and B is " + shape(B) + ", expected A.cols = B.rows");
  RowMatrixXf C = zeros(rows(A), cols(B));
  if (A.rows() && B.cols() && A.cols())
    kernels::gemm_nn_f32(rows(A), cols(B), cols(A), A.data(), stride(A), B.data(), stride(B), nullptr,
                         C.data(), cols(B));
  return C;
}

}  // namespace attnlab
