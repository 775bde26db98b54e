// SIMD128 GEMM kernels, packed and register-blocked (GotoBLAS/XNNPACK-style, sized for 16 v128
// registers):
//   - B is packed one 8-column strip at a time into a contiguous [kc, 8] block (8 KB for kc = 256,
//     so it stays in L1 while every row block of A streams past it). Packing is also where "nt"
//     transposes B, so Q·Kᵀ runs the very same micro-kernel as X·W.
//   - The micro-kernel keeps a 4×8 tile of C in eight v128 accumulators; per step it loads two
//     vectors of B and splats four values of A, so each loaded vector feeds four multiply-adds and
//     eight independent mul→add chains keep the two mul and two add pipes busy (no FMA in SIMD128).
//   - Leftover rows use the same kernel with fewer rows; leftover columns (n % 8) are packed with
//     zero padding, computed into a small buffer and copied out, so there is no scalar tail.
#include <algorithm>
#include <vector>

#include "../kernels.h"
#include "../simd128_math.h"

namespace attnlab::kernels {

namespace {

// Rows of C per micro-kernel call. 4×8 = eight accumulators + two B vectors + one splat: V8 on x86
// allocates 15 of the 16 XMM registers, so a 6×8 tile (15 live vectors) spills; measured in Node 20,
// 4×8 ran a 16×64×64 product 1.6x faster than 6×8 (XNNPACK picks 4x8 for wasmsimd on x86 too).
constexpr size_t kMR = 4;
constexpr size_t kNR = 8;    // columns per packed strip (two v128)
constexpr size_t kKC = 256;  // reduction block
constexpr size_t kPackMinRows = 16;  // up to this many rows of A, nn reads B unpacked

// A micro-kernel's 4×8 tile of C in accumulators c0 (columns 0–3) and c1 (4–7) of MR rows: started
// from C (accumulate), else from the bias row (or 0); stored back to C. Inlined into each kernel.
template <size_t MR>
__attribute__((always_inline)) inline void tile_start_mrx8(v128_t (&c0)[MR], v128_t (&c1)[MR], const float* bias,
                                                           bool accumulate, const float* c, size_t ldc) {
  if (accumulate) {
    for (size_t r = 0; r < MR; ++r) {
      c0[r] = wasm_v128_load(c + r * ldc);
      c1[r] = wasm_v128_load(c + r * ldc + 4);
    }
  } else {
    const v128_t i0 = bias ? wasm_v128_load(bias) : wasm_f32x4_splat(0.0f);
    const v128_t i1 = bias ? wasm_v128_load(bias + 4) : wasm_f32x4_splat(0.0f);
    for (size_t r = 0; r < MR; ++r) {
      c0[r] = i0;
      c1[r] = i1;
    }
  }
}

template <size_t MR>
__attribute__((always_inline)) inline void tile_store_mrx8(const v128_t (&c0)[MR], const v128_t (&c1)[MR], float* c,
                                                           size_t ldc) {
  for (size_t r = 0; r < MR; ++r) {
    wasm_v128_store(c + r * ldc, c0[r]);
    wasm_v128_store(c + r * ldc + 4, c1[r]);
  }
}

// C[0:MR, 0:8] = bias (or 0) + A[0:MR, 0:kc]·Bp[0:kc, 0:8], or C += … when accumulate.
// Bp row p at bp + p·ldbp: 8 when packed, B's own row stride when a small product reads B in place.
// a has row stride lda. Not inlined: V8 allocates registers far better in a small function than in
// the driver with every MR variant inlined (measured: the nt driver ran 2.5x slower inlined); it has
// several callers, so Binaryen (which inlines a function with one caller, noinline or not) keeps it
// out of the driver. The loop walks A and B by pointer (a += 1, b += ldbp) and counts down:
// Emscripten compiles with LLVM's loop strength reduction off, so indexing from p recomputed B's row
// address (a multiply) and A's column offset at every step. Measured in Node 20 (scratch harness,
// runtime strides, paired rounds): [16, 64]·[64, 64] 1.10x, [16, 64]·[64, 192] 1.09-1.12x over
// indexing; four A row pointers each bumped: 1.02x; four steps per iteration: 0.98x (V8 allocates
// it worse).
template <size_t MR>
__attribute__((noinline)) void gemm_ukernel_mrx8(size_t kc, const float* a, size_t lda,
                                                 const float* bp, size_t ldbp, const float* bias,
                                                 bool accumulate, float* c, size_t ldc) {
  v128_t c0[MR], c1[MR];
  tile_start_mrx8<MR>(c0, c1, bias, accumulate, c, ldc);
  for (size_t p = kc; p != 0; --p) {
    const v128_t b0 = wasm_v128_load(bp);
    const v128_t b1 = wasm_v128_load(bp + 4);
    for (size_t r = 0; r < MR; ++r) {
      const v128_t ar = wasm_v128_load32_splat(a + r * lda);
      c0[r] = wasm_f32x4_add(c0[r], wasm_f32x4_mul(ar, b0));
      c1[r] = wasm_f32x4_add(c1[r], wasm_f32x4_mul(ar, b1));
    }
    a += 1;
    bp += ldbp;
  }
  tile_store_mrx8<MR>(c0, c1, c, ldc);
}

// A strip narrower than 8 (nr < 8 columns) of C[0:MR] through an 8-wide buffer t (ld 8):
// full(bias8 or null, t) runs a full-width micro-kernel into it, then t's first nr columns go to C.
template <size_t MR, class Full>
inline void through_8_wide(size_t nr, const float* bias, bool accumulate, float* c, size_t ldc, Full&& full) {
  alignas(16) float t[MR * kNR] = {};
  alignas(16) float bias8[kNR] = {};
  for (size_t q = 0; q < nr; ++q) {
    if (accumulate)
      for (size_t r = 0; r < MR; ++r) t[r * kNR + q] = c[r * ldc + q];
    if (bias) bias8[q] = bias[q];
  }
  full(bias ? bias8 : nullptr, t);
  for (size_t r = 0; r < MR; ++r)
    for (size_t q = 0; q < nr; ++q) c[r * ldc + q] = t[r * kNR + q];
}

// The same for a strip narrower than 8 (nr < 8 columns).
template <size_t MR>
inline void gemm_ukernel_mrx8_partial(size_t kc, size_t nr, const float* a, size_t lda,
                                      const float* bp, const float* bias, bool accumulate, float* c,
                                      size_t ldc) {
  through_8_wide<MR>(nr, bias, accumulate, c, ldc, [&](const float* bias8, float* t) {
    gemm_ukernel_mrx8<MR>(kc, a, lda, bp, kNR, bias8, accumulate, t, kNR);
  });
}

// The same product with A packed (pack_a below): ap[p·MR + r] = A[r, p], so one pointer walks A and
// every load has a constant offset (the kernel above adds a multiple of lda for each of A's rows at
// every step). Used from kPackAMinCols columns on, where packing A once repays itself over the
// strips. The sums are the same, in the same order: bit-identical results.
template <size_t MR>
__attribute__((noinline)) void gemm_ukernel_packed_mrx8(size_t kc, const float* ap, const float* bp,
                                                        const float* bias, bool accumulate, float* c,
                                                        size_t ldc) {
  v128_t c0[MR], c1[MR];
  tile_start_mrx8<MR>(c0, c1, bias, accumulate, c, ldc);
  for (size_t p = kc; p != 0; --p) {
    const v128_t b0 = wasm_v128_load(bp);
    const v128_t b1 = wasm_v128_load(bp + 4);
    for (size_t r = 0; r < MR; ++r) {
      const v128_t ar = wasm_v128_load32_splat(ap + r);
      c0[r] = wasm_f32x4_add(c0[r], wasm_f32x4_mul(ar, b0));
      c1[r] = wasm_f32x4_add(c1[r], wasm_f32x4_mul(ar, b1));
    }
    ap += MR;
    bp += kNR;
  }
  tile_store_mrx8<MR>(c0, c1, c, ldc);
}

template <size_t MR>
inline void gemm_ukernel_packed_mrx8_partial(size_t kc, size_t nr, const float* ap, const float* bp,
                                             const float* bias, bool accumulate, float* c, size_t ldc) {
  through_8_wide<MR>(nr, bias, accumulate, c, ldc, [&](const float* bias8, float* t) {
    gemm_ukernel_packed_mrx8<MR>(kc, ap, bp, bias8, accumulate, t, kNR);
  });
}

// f.template operator()<R>(i) for the R = rest rows left at row i (0 < rest < kMR).
template <size_t R, class F>
inline void tail_rows(size_t rest, size_t i, F& f) {
  if constexpr (R > 0) {
    if (rest == R)
      f.template operator()<R>(i);
    else
      tail_rows<R - 1>(rest, i, f);
  }
}

// Calls f.template operator()<MR>(i) for row blocks of kMR rows, then one block of the m % kMR rest.
template <class F>
inline void for_row_blocks(size_t m, F&& f) {
  size_t i = 0;
  for (; i + kMR <= m; i += kMR) f.template operator()<kMR>(i);
  tail_rows<kMR - 1>(m - i, i, f);
}

// bp[p, q] = B[p, q] for B [kc, nr] row-major (nn), zero-padded to 8 columns.
inline void pack_b_nn(size_t kc, size_t nr, const float* b, size_t ldb, float* bp) {
  if (nr == kNR) {
    for (size_t p = 0; p < kc; ++p) {
      wasm_v128_store(bp + p * kNR, wasm_v128_load(b + p * ldb));
      wasm_v128_store(bp + p * kNR + 4, wasm_v128_load(b + p * ldb + 4));
    }
    return;
  }
  for (size_t p = 0; p < kc; ++p)
    for (size_t q = 0; q < kNR; ++q) bp[p * kNR + q] = q < nr ? b[p * ldb + q] : 0.0f;
}

// Columns [0, nc) of B's rows [0, kc) (nn) packed into strips (strip s at panel + s·8·kc, the last
// one zero-padded), walking B row after row: each row is one contiguous read of nc floats. Packing
// strip by strip reads 32 bytes from each of kc rows, kilobytes apart: with B out of cache (a model's
// weights, read once per forward) each of those reads waited for memory on its own.
inline void pack_b_nn_group(size_t kc, size_t nc, const float* b, size_t ldb, float* panel) {
  const size_t full = nc / kNR * kNR;
  for (size_t p = 0; p < kc; ++p) {
    const float* row = b + p * ldb;
    float* dst = panel + p * kNR;
    for (size_t j = 0; j < full; j += kNR) {
      wasm_v128_store(dst + j * kc, wasm_v128_load(row + j));
      wasm_v128_store(dst + j * kc + 4, wasm_v128_load(row + j + 4));
    }
  }
  if (full < nc) pack_b_nn(kc, nc - full, b + full, ldb, panel + full * kc);
}

// bp[p, q] = B[q, p] for B stored [nr, kc] row-major (nt: B is K [t_k, d_k]), zero-padded.
// Full strips transpose 4×4 blocks in registers; the rest goes element by element.
inline void pack_b_nt(size_t kc, size_t nr, const float* b, size_t ldb, float* bp) {
  size_t p = 0;
  if (nr == kNR) {
    for (; p + 4 <= kc; p += 4) {
      for (size_t h = 0; h < 2; ++h) {  // columns 4h .. 4h+3 of the strip = rows 4h.. of B
        const float* r = b + 4 * h * ldb + p;
        const v128_t x0 = wasm_v128_load(r), x1 = wasm_v128_load(r + ldb);
        const v128_t x2 = wasm_v128_load(r + 2 * ldb), x3 = wasm_v128_load(r + 3 * ldb);
        const v128_t t0 = wasm_i32x4_shuffle(x0, x1, 0, 4, 1, 5);  // x0[0] x1[0] x0[1] x1[1]
        const v128_t t1 = wasm_i32x4_shuffle(x2, x3, 0, 4, 1, 5);
        const v128_t t2 = wasm_i32x4_shuffle(x0, x1, 2, 6, 3, 7);
        const v128_t t3 = wasm_i32x4_shuffle(x2, x3, 2, 6, 3, 7);
        float* o = bp + p * kNR + 4 * h;
        wasm_v128_store(o, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
        wasm_v128_store(o + kNR, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
        wasm_v128_store(o + 2 * kNR, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
        wasm_v128_store(o + 3 * kNR, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
      }
    }
  }
  for (; p < kc; ++p)
    for (size_t q = 0; q < kNR; ++q) bp[p * kNR + q] = q < nr ? b[q * ldb + p] : 0.0f;
}

// k = 0, no reduction: C = bias (or 0), or unchanged when accumulating.
inline void gemm_no_reduction(size_t m, size_t n, const float* bias, bool accumulate, float* c, size_t ldc) {
  if (accumulate) return;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
}

// C[0:m, 0:nr] (=|+=) A[0:m, 0:kc]·strip (+ bias): one packed strip [kc, 8] (zero-padded past nr)
// against every row block of A.
inline void gemm_strip(size_t m, size_t kc, size_t nr, const float* a, size_t lda, const float* strip,
                       const float* bias, bool accumulate, float* c, size_t ldc) {
  if (nr == kNR)
    for_row_blocks(m, [&]<size_t MR>(size_t i) {
      gemm_ukernel_mrx8<MR>(kc, a + i * lda, lda, strip, kNR, bias, accumulate, c + i * ldc, ldc);
    });
  else
    for_row_blocks(m, [&]<size_t MR>(size_t i) {
      gemm_ukernel_mrx8_partial<MR>(kc, nr, a + i * lda, lda, strip, bias, accumulate, c + i * ldc, ldc);
    });
}

// A[0:m, 0:kc] packed for gemm_ukernel_packed_mrx8: the block of MR rows at row i starts at ap + i·kc,
// ap[i·kc + p·MR + r] = A[i + r, p]. Four rows are transposed 4×4 in registers.
inline void pack_a(size_t m, size_t kc, const float* a, size_t lda, float* ap) {
  for_row_blocks(m, [&]<size_t MR>(size_t i) {
    const float* ai = a + i * lda;
    float* o = ap + i * kc;
    size_t p = 0;
    if constexpr (MR == 4) {
      for (; p + 4 <= kc; p += 4) {
        const v128_t x0 = wasm_v128_load(ai + p), x1 = wasm_v128_load(ai + lda + p);
        const v128_t x2 = wasm_v128_load(ai + 2 * lda + p), x3 = wasm_v128_load(ai + 3 * lda + p);
        const v128_t t0 = wasm_i32x4_shuffle(x0, x1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(x2, x3, 0, 4, 1, 5);
        const v128_t t2 = wasm_i32x4_shuffle(x0, x1, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(x2, x3, 2, 6, 3, 7);
        wasm_v128_store(o + 4 * p, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
        wasm_v128_store(o + 4 * p + 4, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
        wasm_v128_store(o + 4 * p + 8, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
        wasm_v128_store(o + 4 * p + 12, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
      }
    }
    for (; p < kc; ++p)
      for (size_t r = 0; r < MR; ++r) o[p * MR + r] = ai[r * lda + p];
  });
}

// gemm_strip with A packed by pack_a.
inline void gemm_strip_packed(size_t m, size_t kc, size_t nr, const float* ap, const float* strip,
                              const float* bias, bool accumulate, float* c, size_t ldc) {
  if (nr == kNR)
    for_row_blocks(m, [&]<size_t MR>(size_t i) {
      gemm_ukernel_packed_mrx8<MR>(kc, ap + i * kc, strip, bias, accumulate, c + i * ldc, ldc);
    });
  else
    for_row_blocks(m, [&]<size_t MR>(size_t i) {
      gemm_ukernel_packed_mrx8_partial<MR>(kc, nr, ap + i * kc, strip, bias, accumulate, c + i * ldc, ldc);
    });
}

// Packing A pays from this many columns of C on (four strips reuse it); narrower products (a small
// head's Q·Kᵀ) read A in place.
constexpr size_t kPackAMinCols = 32;

// y[0:n] += x[p]·B[p, :] + … + x[p+R−1]·B[p+R−1, :], added row after row (R rows of B, row stride
// ldb, from b): y is loaded and stored once for the R rows.
template <size_t R>
inline void gemv_nn_block(size_t n, const float* x, const float* b, size_t ldb, float* y) {
  v128_t xs[R];
  for (size_t r = 0; r < R; ++r) xs[r] = wasm_f32x4_splat(x[r]);
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    v128_t y0 = wasm_v128_load(y + j), y1 = wasm_v128_load(y + j + 4);
    for (size_t r = 0; r < R; ++r) {
      y0 = wasm_f32x4_add(y0, wasm_f32x4_mul(xs[r], wasm_v128_load(b + r * ldb + j)));
      y1 = wasm_f32x4_add(y1, wasm_f32x4_mul(xs[r], wasm_v128_load(b + r * ldb + j + 4)));
    }
    wasm_v128_store(y + j, y0);
    wasm_v128_store(y + j + 4, y1);
  }
  for (; j < n; ++j) {
    float s = y[j];
    for (size_t r = 0; r < R; ++r) s = s + x[r] * b[r * ldb + j];
    y[j] = s;
  }
}

// One row of A, nn: y[0:n] (=|+=) x[0:k]·B (+ bias), B [k, n] read row after row, once, in memory
// order. A decoded token's products are matrix-vector products that read every weight once (memory
// bound), and the strip-by-strip path below would walk B 8 columns at a time down all its rows. Eight
// rows of B at a time (then four, then one): y is loaded and stored once per block (it was once per
// row: two loads and two stores of y for every two loads of B), the rows streaming side by side.
// Measured in Node 20 on a matrix of 480 MB with 768-wide rows: one row at a time 7.5 GB/s, four 7.0-7.7,
// eight 8.1-8.2 (medians; 3072-wide rows: four and eight 10.6-12.5). The sums still run over p in the
// same order as the micro-kernel's (y + x[p]·B[p, j], p = 0, 1, …), so the result is bit-identical to it.
inline void gemv_nn_rows(size_t n, size_t k, const float* x, const float* b, size_t ldb, const float* bias,
                         bool accumulate, float* y) {
  if (!accumulate)
    for (size_t j = 0; j < n; ++j) y[j] = bias ? bias[j] : 0.0f;
  size_t p = 0;
  for (; p + 8 <= k; p += 8) gemv_nn_block<8>(n, x + p, b + p * ldb, ldb, y);
  for (; p + 4 <= k; p += 4) gemv_nn_block<4>(n, x + p, b + p * ldb, ldb, y);
  for (; p < k; ++p) gemv_nn_block<1>(n, x + p, b + p * ldb, ldb, y);
}

// Four rows of B [n, k] from row j, columns p … p+3, transposed in registers: c[q] holds
// B[j:j+4, p+q], so that one vector holds four outputs' terms.
inline void transpose_4x4(const float* r0, const float* r1, const float* r2, const float* r3, v128_t c[4]) {
  const v128_t x0 = wasm_v128_load(r0), x1 = wasm_v128_load(r1);
  const v128_t x2 = wasm_v128_load(r2), x3 = wasm_v128_load(r3);
  const v128_t t0 = wasm_i32x4_shuffle(x0, x1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(x2, x3, 0, 4, 1, 5);
  const v128_t t2 = wasm_i32x4_shuffle(x0, x1, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(x2, x3, 2, 6, 3, 7);
  c[0] = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
  c[1] = wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7);
  c[2] = wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5);
  c[3] = wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7);
}

// Eight rows of B, r0 + i·rs for i = 0 … 7: acc0 (+)= x·row i for i < 4, acc1 for i ≥ 4, lane i % 4,
// each sum over p = 0 … k − 1 in order. Two groups of four give two independent chains of adds.
inline void dot_8_rows(size_t k, const float* x, const float* r0, size_t rs, v128_t& acc0, v128_t& acc1) {
  const float* r4 = r0 + 4 * rs;
  size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    v128_t c[4], d[4];
    transpose_4x4(r0 + p, r0 + rs + p, r0 + 2 * rs + p, r0 + 3 * rs + p, c);
    transpose_4x4(r4 + p, r4 + rs + p, r4 + 2 * rs + p, r4 + 3 * rs + p, d);
    for (size_t t = 0; t < 4; ++t) {
      const v128_t xt = wasm_v128_load32_splat(x + p + t);
      acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(xt, c[t]));
      acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(xt, d[t]));
    }
  }
  for (; p < k; ++p) {
    const v128_t xp = wasm_v128_load32_splat(x + p);
    const float* r = r0 + p;
    acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(xp, wasm_f32x4_make(r[0], r[rs], r[2 * rs], r[3 * rs])));
    r = r4 + p;
    acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(xp, wasm_f32x4_make(r[0], r[rs], r[2 * rs], r[3 * rs])));
  }
}

// y[j + i·q] (=|+=) x·B[j + i·q, :] for i = 0 … 7 and j in [0, q): B's rows cut into eight parts of
// q rows, one row of each part at a time, so that eight long streams walk B in memory order (part i
// from row i·q on). Each output is its own sum over p in order (the same floats as any row order).
// Measured in Node 20 on 480 MB of 768-wide rows (medians): eight consecutive rows at a time (eight
// streams of 3 KB, restarted every 24 KB) 8.1 GB/s, eight parts 13.6 GB/s.
inline void gemv_nt_parts(size_t q, size_t k, const float* x, const float* b, size_t ldb, bool accumulate,
                          float* y) {
  const size_t part = q * ldb;
  for (size_t j = 0; j < q; ++j) {
    float* o = y + j;
    v128_t acc0 = accumulate ? wasm_f32x4_make(o[0], o[q], o[2 * q], o[3 * q]) : wasm_f32x4_splat(0.0f);
    v128_t acc1 = accumulate ? wasm_f32x4_make(o[4 * q], o[5 * q], o[6 * q], o[7 * q]) : wasm_f32x4_splat(0.0f);
    dot_8_rows(k, x, b + j * ldb, part, acc0, acc1);
    o[0] = wasm_f32x4_extract_lane(acc0, 0);
    o[q] = wasm_f32x4_extract_lane(acc0, 1);
    o[2 * q] = wasm_f32x4_extract_lane(acc0, 2);
    o[3 * q] = wasm_f32x4_extract_lane(acc0, 3);
    o[4 * q] = wasm_f32x4_extract_lane(acc1, 0);
    o[5 * q] = wasm_f32x4_extract_lane(acc1, 1);
    o[6 * q] = wasm_f32x4_extract_lane(acc1, 2);
    o[7 * q] = wasm_f32x4_extract_lane(acc1, 3);
  }
}

// From this many rows of B on, the one-row nt product reads B in eight parts (gemv_nt_parts).
constexpr size_t kNtPartsMinRows = 64;

// One row of A, nt: y[j] (=|+=) x·B[j, :] for B [n, k] (the tied output head: B is W_E [vocab, D]).
// Large B in eight parts (above), the last n % 8 rows and a small B eight, four and one row at a time;
// each 4×4 block is transposed in registers so that one vector holds four outputs and every sum runs
// over p in order (bit-identical to the packed path, which transposes the same way into its strip).
// Eight rows at a time (dot_8_rows): with one group of four, every add waited for the one before
// (four per four columns of B).
inline void gemv_nt_rows(size_t n, size_t k, const float* x, const float* b, size_t ldb, bool accumulate,
                         float* y) {
  size_t j = 0;
  if (n >= kNtPartsMinRows) {
    const size_t q = n / 8;
    gemv_nt_parts(q, k, x, b, ldb, accumulate, y);
    j = 8 * q;
  }
  for (; j + 8 <= n; j += 8) {
    v128_t acc0 = accumulate ? wasm_v128_load(y + j) : wasm_f32x4_splat(0.0f);
    v128_t acc1 = accumulate ? wasm_v128_load(y + j + 4) : wasm_f32x4_splat(0.0f);
    dot_8_rows(k, x, b + j * ldb, ldb, acc0, acc1);
    wasm_v128_store(y + j, acc0);
    wasm_v128_store(y + j + 4, acc1);
  }
  for (; j + 4 <= n; j += 4) {
    const float* r0 = b + j * ldb;
    v128_t acc = accumulate ? wasm_v128_load(y + j) : wasm_f32x4_splat(0.0f);
    size_t p = 0;
    for (; p + 4 <= k; p += 4) {
      v128_t c[4];
      transpose_4x4(r0 + p, r0 + ldb + p, r0 + 2 * ldb + p, r0 + 3 * ldb + p, c);
      for (size_t q = 0; q < 4; ++q) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load32_splat(x + p + q), c[q]));
    }
    for (; p < k; ++p) {
      const float* r = r0 + p;
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load32_splat(x + p), wasm_f32x4_make(r[0], r[ldb], r[2 * ldb], r[3 * ldb])));
    }
    wasm_v128_store(y + j, acc);
  }
  for (; j < n; ++j) {
    const float* r = b + j * ldb;
    float acc = accumulate ? y[j] : 0.0f;
    for (size_t p = 0; p < k; ++p) acc = acc + x[p] * r[p];
    y[j] = acc;
  }
}

// Rows of A per block: [kMC, kKC] floats (128 KB) stay in L2 while every strip of a packed B panel
// passes them. Without this block, each 8-column strip streamed all of A again: at (512, 512, 512)
// A [512, 256] is 512 KB per strip, read from L3 64 times.
constexpr size_t kMC = 128;
// Columns of B packed together (row by row) for one row block, nn: 256 bytes of each row, 64 KB.
// Measured at m = 64 with B out of cache: 32 and 64 columns 1.02-1.13x over strip by strip, 128 and
// 256 0.86-0.96x (the group no longer stays in L2 next to A).
constexpr size_t kNG = 64;
constexpr size_t kNC = 256;  // columns of B per packed panel: [kKC, kNC] floats, 256 KB
// thread_local: a native C++ user may call the core from several threads (wasm has one: a plain global).
alignas(16) thread_local float g_panel[kKC * kNC];
alignas(16) thread_local float g_apack[kMC * kKC];  // a block of A packed (pack_a), 128 KB

// nt with a weight-sized B (a model's tied head W_E [vocab, D], or W_O / W_out stored [out, in]) and a
// block of rows of A (a prompt): C is computed as its transpose, Cᵀ = B·Aᵀ, B's rows read in place as
// the micro-kernel's A operand and A packed once into strips as its B operand. The packed path above
// copies every 8-row strip of B into a buffer before using it: B is read from memory once per call
// either way, but the copy is a pass of its own that waits on memory (~10 % of a GPT-2 prompt's
// forward), while the micro-kernel's four row streams are prefetched under its multiply-adds.
// Cᵀ goes through a small buffer, kNB rows of B at a time: it starts at C (accumulate) or 0, then
// adds the reduction blocks in order; each C entry is its own sum over p = 0, 1, … in order, the same
// floats as the packed path.
constexpr size_t kNB = 64;            // rows of B (columns of C) per block of Cᵀ
constexpr size_t kSwapMinRows = 16;    // from this many rows of A (fewer pad a strip with zeros)
constexpr size_t kSwapMinB = 1 << 18;  // floats of B (1 MB): a weight that does not stay in L2
thread_local std::vector<float> g_at;  // Aᵀ packed for the whole k: strip s at s·k, [k, 8]
alignas(16) thread_local float g_ct[kNB * kMC];  // a block of Cᵀ, 32 KB

// dst[c·ldd + r] = src[r·lds + c] for r < rows, c < cols: 4×4 blocks transposed in registers, the edges
// one value at a time.
inline void transpose_block(size_t rows, size_t cols, const float* src, size_t lds, float* dst, size_t ldd) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float* s0 = src + r * lds;
    size_t c = 0;
    for (; c + 4 <= cols; c += 4) {
      v128_t t[4];
      transpose_4x4(s0 + c, s0 + lds + c, s0 + 2 * lds + c, s0 + 3 * lds + c, t);
      for (size_t q = 0; q < 4; ++q) wasm_v128_store(dst + (c + q) * ldd + r, t[q]);
    }
    for (; c < cols; ++c)
      for (size_t q = 0; q < 4; ++q) dst[c * ldd + r + q] = s0[q * lds + c];
  }
  for (; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) dst[c * ldd + r] = src[r * lds + c];
}

void gemm_nt_swapped(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                     bool accumulate, float* c, size_t ldc) {
  const size_t mp = (m + kNR - 1) / kNR * kNR;  // Cᵀ's row length: whole strips
  if (g_at.size() < mp * k) g_at.resize(mp * k);
  float* at = g_at.data();
  for (size_t s = 0; s < mp; s += kNR) pack_b_nt(k, std::min(kNR, m - s), a + s * lda, lda, at + s * k);
  float* ct = g_ct;
  for (size_t jb = 0; jb < n; jb += kNB) {
    const size_t nb = std::min(kNB, n - jb);
    if (accumulate) {
      transpose_block(m, nb, c + jb, ldc, ct, mp);
      for (size_t j = 0; j < nb; ++j)
        for (size_t i = m; i < mp; ++i) ct[j * mp + i] = 0.0f;
    } else {
      std::fill(ct, ct + nb * mp, 0.0f);
    }
    const float* bj = b + jb * ldb;
    for (size_t p0 = 0; p0 < k; p0 += kKC) {
      const size_t kc = std::min(kKC, k - p0);
      for_row_blocks(nb, [&]<size_t MR>(size_t j) {
        for (size_t s = 0; s < mp; s += kNR)
          gemm_ukernel_mrx8<MR>(kc, bj + j * ldb + p0, ldb, at + s * k + p0 * kNR, kNR, nullptr, true,
                                ct + j * mp + s, mp);
      });
    }
    transpose_block(nb, m, ct, mp, c + jb, ldc);
  }
}

// C[m, n] (=|+=) A[m, k]·op(B) (+ bias): op(B) = B [k, n] (nn) or Bᵀ with B [n, k] (nt).
template <bool kTransB>
void gemm_packed(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                 size_t ldb, const float* bias, bool accumulate, float* c, size_t ldc) {
  if (k == 0) return gemm_no_reduction(m, n, bias, accumulate, c, ldc);
  if (m == 1) {  // a decoded token's matrix-vector product: B streamed in memory order (above)
    if (kTransB && !bias) return gemv_nt_rows(n, k, a, b, ldb, accumulate, c);
    if (!kTransB) return gemv_nn_rows(n, k, a, b, ldb, bias, accumulate, c);
  }
  if (kTransB && !bias && m >= kSwapMinRows && m <= kMC && n >= 4 * m && n * k >= kSwapMinB)
    return gemm_nt_swapped(m, n, k, a, lda, b, ldb, accumulate, c, ldc);
  for (size_t jc = 0; jc < n; jc += kNC) {
    const size_t nc = std::min(kNC, n - jc);
    for (size_t p0 = 0; p0 < k; p0 += kKC) {
      const size_t kc = std::min(kKC, k - p0);
      const bool acc = accumulate || p0 > 0;  // later reduction blocks add to the first one's result
      const float* bias_p = (bias && p0 == 0) ? bias + jc : nullptr;
      // Few rows of A (an interactive-size call) do not repay packing: read full nn strips in place
      // (a partial strip packed).
      if (!kTransB && m <= kPackMinRows) {
        for (size_t j = 0; j < nc; j += kNR) {
          const size_t nr = std::min(kNR, nc - j);
          const float* bias_j = bias_p ? bias_p + j : nullptr;
          float* cj = c + jc + j;
          if (nr == kNR)
            for_row_blocks(m, [&]<size_t MR>(size_t i) {
              gemm_ukernel_mrx8<MR>(kc, a + p0 + i * lda, lda, b + p0 * ldb + jc + j, ldb, bias_j, acc, cj + i * ldc, ldc);
            });
          else {
            alignas(16) float bp[kKC * kNR];
            pack_b_nn(kc, nr, b + p0 * ldb + jc + j, ldb, bp);
            gemm_strip(m, kc, nr, a + p0, lda, bp, bias_j, acc, cj, ldc);
          }
        }
        continue;
      }
      // Strip j of B's panel [kc, nc], packed into bp [kc, kNR].
      const auto pack = [&](size_t j, float* bp) {
        if (kTransB)
          pack_b_nt(kc, std::min(kNR, nc - j), b + (jc + j) * ldb + p0, ldb, bp);
        else
          pack_b_nn(kc, std::min(kNR, nc - j), b + p0 * ldb + jc + j, ldb, bp);
      };
      const bool pack_a_block = nc >= kPackAMinCols;
      if (m <= kMC && !kTransB && pack_a_block) {
        // One row block, nn: groups of kNG columns packed row by row, then strip by strip.
        pack_a(m, kc, a + p0, lda, g_apack);
        for (size_t jg = 0; jg < nc; jg += kNG) {
          const size_t gc = std::min(kNG, nc - jg);
          pack_b_nn_group(kc, gc, b + p0 * ldb + jc + jg, ldb, g_panel);
          for (size_t j = 0; j < gc; j += kNR)
            gemm_strip_packed(m, kc, std::min(kNR, gc - j), g_apack, g_panel + j * kc,
                              bias_p ? bias_p + jg + j : nullptr, acc, c + jc + jg + j, ldc);
        }
        continue;
      }
      if (m <= kMC) {  // one row block: one strip at a time through an L1-sized buffer
        alignas(16) float bp[kKC * kNR];
        if (pack_a_block) pack_a(m, kc, a + p0, lda, g_apack);
        for (size_t j = 0; j < nc; j += kNR) {
          pack(j, bp);
          if (pack_a_block)
            gemm_strip_packed(m, kc, std::min(kNR, nc - j), g_apack, bp, bias_p ? bias_p + j : nullptr, acc,
                              c + jc + j, ldc);
          else
            gemm_strip(m, kc, std::min(kNR, nc - j), a + p0, lda, bp, bias_p ? bias_p + j : nullptr, acc,
                       c + jc + j, ldc);
        }
        continue;
      }
      // More rows: the whole panel packed once, then each block of kMC rows against every strip.
      for (size_t j = 0; j < nc; j += kNR) pack(j, g_panel + j * kc);
      for (size_t ic = 0; ic < m; ic += kMC) {
        const size_t mc = std::min(kMC, m - ic);
        if (pack_a_block) {
          pack_a(mc, kc, a + ic * lda + p0, lda, g_apack);
          for (size_t j = 0; j < nc; j += kNR)
            gemm_strip_packed(mc, kc, std::min(kNR, nc - j), g_apack, g_panel + j * kc,
                              bias_p ? bias_p + j : nullptr, acc, c + ic * ldc + jc + j, ldc);
        } else {
          for (size_t j = 0; j < nc; j += kNR)
            gemm_strip(mc, kc, std::min(kNR, nc - j), a + ic * lda + p0, lda, g_panel + j * kc,
                       bias_p ? bias_p + j : nullptr, acc, c + ic * ldc + jc + j, ldc);
        }
      }
    }
  }
}

}  // namespace

// Three one-row products of the same x (kernels.h), the three matrices read side by side: row p of
// each in turn, so three long streams walk them in memory order. Measured in Node 20 on 480 MB of
// 768-wide rows (medians): one matrix eight rows at a time 10.0 GB/s, three side by side 11.6 GB/s.
void gemv_nn3_f32_wasmsimd(size_t n, size_t k, const float* x, const float* const b[3], size_t ldb,
                           const float* const bias[3], float* const y[3]) {
  float *y0 = y[0], *y1 = y[1], *y2 = y[2];
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < n; ++j) y[i][j] = bias[i] ? bias[i][j] : 0.0f;
  for (size_t p = 0; p < k; ++p) {
    const float xp = x[p];
    const v128_t xs = wasm_f32x4_splat(xp);
    const float* r0 = b[0] + p * ldb;
    const float* r1 = b[1] + p * ldb;
    const float* r2 = b[2] + p * ldb;
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      wasm_v128_store(y0 + j, wasm_f32x4_add(wasm_v128_load(y0 + j), wasm_f32x4_mul(xs, wasm_v128_load(r0 + j))));
      wasm_v128_store(y0 + j + 4, wasm_f32x4_add(wasm_v128_load(y0 + j + 4), wasm_f32x4_mul(xs, wasm_v128_load(r0 + j + 4))));
      wasm_v128_store(y1 + j, wasm_f32x4_add(wasm_v128_load(y1 + j), wasm_f32x4_mul(xs, wasm_v128_load(r1 + j))));
      wasm_v128_store(y1 + j + 4, wasm_f32x4_add(wasm_v128_load(y1 + j + 4), wasm_f32x4_mul(xs, wasm_v128_load(r1 + j + 4))));
      wasm_v128_store(y2 + j, wasm_f32x4_add(wasm_v128_load(y2 + j), wasm_f32x4_mul(xs, wasm_v128_load(r2 + j))));
      wasm_v128_store(y2 + j + 4, wasm_f32x4_add(wasm_v128_load(y2 + j + 4), wasm_f32x4_mul(xs, wasm_v128_load(r2 + j + 4))));
    }
    for (; j < n; ++j) {
      y0[j] = y0[j] + xp * r0[j];
      y1[j] = y1[j] + xp * r1[j];
      y2[j] = y2[j] + xp * r2[j];
    }
  }
}

// Whole-matrix packing and the GEMM over packed strips (kernels.h).
void pack_b_nt_f32_wasmsimd(size_t n, size_t k, const float* b, size_t ldb, float* bp) {
  for (size_t j = 0; j < n; j += kNR) pack_b_nt(k, std::min(kNR, n - j), b + j * ldb, ldb, bp + j * k);
}

void pack_b_nn_f32_wasmsimd(size_t k, size_t n, const float* b, size_t ldb, float* bp) {
  for (size_t j = 0; j < n; j += kNR) pack_b_nn(k, std::min(kNR, n - j), b + j, ldb, bp + j * k);
}

void gemm_prepacked_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                 const float* bp, size_t strip_stride, bool accumulate, float* c,
                                 size_t ldc) {
  if (k == 0) return gemm_no_reduction(m, n, nullptr, accumulate, c, ldc);
  for (size_t p0 = 0; p0 < k; p0 += kKC) {
    const size_t kc = std::min(kKC, k - p0);
    const bool acc = accumulate || p0 > 0;
    for (size_t ic = 0; ic < m; ic += kMC) {
      const size_t mc = std::min(kMC, m - ic);
      if (n >= kPackAMinCols) {
        pack_a(mc, kc, a + ic * lda + p0, lda, g_apack);
        for (size_t j = 0; j < n; j += kNR)
          gemm_strip_packed(mc, kc, std::min(kNR, n - j), g_apack, bp + j / kNR * strip_stride + p0 * kNR,
                            nullptr, acc, c + ic * ldc + j, ldc);
      } else {
        for (size_t j = 0; j < n; j += kNR)
          gemm_strip(mc, kc, std::min(kNR, n - j), a + ic * lda + p0, lda, bp + j / kNR * strip_stride + p0 * kNR,
                     nullptr, acc, c + ic * ldc + j, ldc);
      }
    }
  }
}

void gemm_nn_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                          size_t ldb, const float* bias, float* c, size_t ldc) {
  gemm_packed<false>(m, n, k, a, lda, b, ldb, bias, false, c, ldc);
}

void gemm_nn_acc_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, float* c, size_t ldc) {
  gemm_packed<false>(m, n, k, a, lda, b, ldb, nullptr, true, c, ldc);
}

void gemm_nt_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                          size_t ldb, float* c, size_t ldc) {
  gemm_packed<true>(m, n, k, a, lda, b, ldb, nullptr, false, c, ldc);
}

void gemm_nt_acc_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, float* c, size_t ldc) {
  gemm_packed<true>(m, n, k, a, lda, b, ldb, nullptr, true, c, ldc);
}

// C += Aᵀ·B, A [k, m], B [k, n] (the backward's weight gradients: dW += Xᵀ·dY). Register-tiled like
// the forward micro-kernel, but without packing: Aᵀ's column i is A's row p, so a tile of C reads
// A[p, i:i+MR] (splat per row) and B[p, j:j+8] straight from memory at every p. The C tile stays in
// registers for the whole k loop and is loaded and stored once. The rank-1 update this replaces loaded
// and stored all of C at every p; measured in Node 20 (hot cache): 12 → 25 GMAC/s at a projection's dW
// (32, 32, k 23), 7 → 24 at a head's dV (23, 16, 23), 13 → 23 at (64, 256, 256); packed nn: 24.
// Every C entry is C + A[0, i]·B[0, j] + A[1, i]·B[1, j] + … in p order, separate mul and add (no FMA),
// the scalar twin's order exactly: the two agree bit for bit.
namespace {

// C[0:MR, 0:4·NV] += A[0:k, 0:MR]ᵀ·B[0:k, 0:4·NV] with MR·NV accumulators.
template <size_t MR, size_t NV>
__attribute__((noinline)) void gemm_tn_acc_ukernel(size_t k, const float* a, size_t lda, const float* b,
                                                   size_t ldb, float* c, size_t ldc) {
  v128_t acc[MR][NV];
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) acc[r][v] = wasm_v128_load(c + r * ldc + 4 * v);
  for (size_t p = 0; p < k; ++p) {
    v128_t bv[NV];
    for (size_t v = 0; v < NV; ++v) bv[v] = wasm_v128_load(b + p * ldb + 4 * v);
    for (size_t r = 0; r < MR; ++r) {
      const v128_t ar = wasm_v128_load32_splat(a + p * lda + r);
      for (size_t v = 0; v < NV; ++v) acc[r][v] = wasm_f32x4_add(acc[r][v], wasm_f32x4_mul(ar, bv[v]));
    }
  }
  for (size_t r = 0; r < MR; ++r)
    for (size_t v = 0; v < NV; ++v) wasm_v128_store(c + r * ldc + 4 * v, acc[r][v]);
}

// The last NC < 4 columns of a 4-row block, vectorised along the rows instead: lane r of acc[q] is
// C[r, q], and A[p, 0:4] is one contiguous load, B[p, q] a splat.
template <size_t NC>
__attribute__((noinline)) void gemm_tn_acc_ukernel_4xcols(size_t k, const float* a, size_t lda,
                                                          const float* b, size_t ldb, float* c,
                                                          size_t ldc) {
  v128_t acc[NC];
  for (size_t q = 0; q < NC; ++q)
    acc[q] = wasm_f32x4_make(c[q], c[ldc + q], c[2 * ldc + q], c[3 * ldc + q]);
  for (size_t p = 0; p < k; ++p) {
    const v128_t ap = wasm_v128_load(a + p * lda);
    for (size_t q = 0; q < NC; ++q)
      acc[q] = wasm_f32x4_add(acc[q], wasm_f32x4_mul(ap, wasm_v128_load32_splat(b + p * ldb + q)));
  }
  for (size_t q = 0; q < NC; ++q) {
    c[q] = wasm_f32x4_extract_lane(acc[q], 0);
    c[ldc + q] = wasm_f32x4_extract_lane(acc[q], 1);
    c[2 * ldc + q] = wasm_f32x4_extract_lane(acc[q], 2);
    c[3 * ldc + q] = wasm_f32x4_extract_lane(acc[q], 3);
  }
}

// Rows i0..i0+MR of C: 8-column tiles, one 4-column tile, then the last n % 4 columns (by rows when
// MR = 4, else one entry at a time).
template <size_t MR>
void gemm_tn_acc_rows(size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                      float* c, size_t ldc) {
  size_t j = 0;
  for (; j + 8 <= n; j += 8) gemm_tn_acc_ukernel<MR, 2>(k, a, lda, b + j, ldb, c + j, ldc);
  if (j + 4 <= n) {
    gemm_tn_acc_ukernel<MR, 1>(k, a, lda, b + j, ldb, c + j, ldc);
    j += 4;
  }
  const size_t nc = n - j;
  if (nc == 0) return;
  if constexpr (MR == 4) {
    if (nc == 1) gemm_tn_acc_ukernel_4xcols<1>(k, a, lda, b + j, ldb, c + j, ldc);
    if (nc == 2) gemm_tn_acc_ukernel_4xcols<2>(k, a, lda, b + j, ldb, c + j, ldc);
    if (nc == 3) gemm_tn_acc_ukernel_4xcols<3>(k, a, lda, b + j, ldb, c + j, ldc);
  } else {
    for (size_t r = 0; r < MR; ++r)
      for (size_t q = j; q < n; ++q) {
        float s = c[r * ldc + q];
        for (size_t p = 0; p < k; ++p) s += a[p * lda + r] * b[p * ldb + q];
        c[r * ldc + q] = s;
      }
  }
}

}  // namespace

void gemm_tn_acc_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, float* c, size_t ldc) {
  // Row blocks of C are column blocks of A: block i reads A[:, i:i+MR].
  for_row_blocks(m, [&]<size_t MR>(size_t i) {
    gemm_tn_acc_rows<MR>(n, k, a + i, lda, b, ldb, c + i * ldc, ldc);
  });
}

}  // namespace attnlab::kernels
