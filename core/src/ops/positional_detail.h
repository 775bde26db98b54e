// positional_detail.h — the unchecked RoPE row rotation, shared by rope_forward and multi-head RoPE.
#pragma once

#include <cstddef>

namespace attnlab::detail {

// Rotates the pairs (2i, 2i+1) of x[0:d] in place by angle pos·base^(−2i/d). d must be even.
void rope_rotate_row(float* x, size_t d, float base, size_t pos);

// The inverse (= transposed) rotation, by −pos·base^(−2i/d) with the same float cos/sin: the RoPE
// backward pass, dx = Rᵀ·dy.
void rope_unrotate_row(float* x, size_t d, float base, size_t pos);

}  // namespace attnlab::detail
