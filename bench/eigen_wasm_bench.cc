// Eigen's own products compiled to WebAssembly SIMD128 against attnlab's hand-written GEMM kernels,
// at the products the multi-head forward computes (core/src/ops/multihead.cc, attention.cc):
//   projection   [T, D]·[D, D]            gemm_nn_f32, one per W_Q, W_K, W_V, W_O
//   scores       [T, dk]·[T, dk]ᵀ per head gemm_nt_f32 on the head's column slice (row stride D)
//   weights·V    [T, T]·[T, dk] per head   gemm_nn_f32, V's slice and the output's with row stride D
// at the bench shapes (T, D, H). Both sides see the same memory: Eigen through Maps with the same
// row strides, row-major float, EIGEN_DONT_PARALLELIZE, the core's flags (-O3 -msimd128, Release's
// -DNDEBUG); built by the attnlab_eigen_wasm_bench target (CMakeLists.txt, emscripten), run in Node by
// scripts/bench.sh. Each case warms both up for 2 s (V8 compiles WebAssembly in tiers, in the
// background), then times them interleaved, batch by batch, in CPU time; the table shows medians. The two results
// are compared before timing (max |Δ| / max |C|). Not a test: nothing here asserts a time.
//
//   node build/wasm/eigen_wasm_bench.cjs [--doc docs/performance.md] [--quick]
// --doc replaces (or appends) this program's marked section of the file; --quick: 0.2 s warm-up, for
// trying the build (its numbers are not the ones to publish).
#include <emscripten.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../core/src/kernels/dispatch.h"

namespace {

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMap = Eigen::Map<RowMatrixXf, Eigen::Unaligned, Eigen::OuterStride<>>;
using ConstStridedMap = Eigen::Map<const RowMatrixXf, Eigen::Unaligned, Eigen::OuterStride<>>;

std::vector<float> randn(size_t n, unsigned seed, float s = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// One product of the forward: the same computation written for attnlab's kernel and for Eigen,
// each writing its own output buffer.
struct Case {
  std::string shape, product, dims;
  double flops;                      // per call of run_*
  std::function<void()> run_attnlab, run_eigen;
  std::function<double()> max_rel_diff;  // max |attnlab − Eigen| / max |Eigen|
};

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::fabs(a[i] - b[i]))), m = std::max(m, double(std::fabs(b[i])));
  return m > 0 ? d / m : d;
}

// This process's CPU time in ms (user + system, process.cpuUsage()): on a machine shared with other
// jobs, wall-clock batches measure the scheduler as much as the kernel; one thread's CPU time does not.
EM_JS(double, cpu_now_ms, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
});

// Seconds per call: repeat fn in batches of `reps` calls.
double time_batch(const std::function<void()>& fn, int reps) {
  const double t0 = cpu_now_ms();
  for (int i = 0; i < reps; ++i) fn();
  return (cpu_now_ms() - t0) / 1e3 / reps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Row {
  std::string shape, product, dims;
  double attnlab_gflops, eigen_gflops, diff;
};

}  // namespace

int main(int argc, char** argv) {
  const char* doc = nullptr;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--doc") && i + 1 < argc) doc = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
  }
  const double warmup_s = quick ? 0.2 : 2.0, batch_s = quick ? 0.005 : 0.02;
  const int rounds = quick ? 5 : 15;

  struct Shape { size_t T, D, H; };
  const Shape shapes[] = {{16, 64, 4}, {128, 256, 8}, {512, 512, 8}, {1024, 768, 12}};
  std::vector<Row> rows;
  std::printf("%-16s %-12s %-22s %12s %12s %14s %10s\n", "(T, D, H)", "product", "shape", "attnlab GF/s",
              "Eigen GF/s", "attnlab/Eigen", "max rel Δ");
  for (const Shape& s : shapes) {
    const size_t T = s.T, D = s.D, H = s.H, dk = D / H;
    // The forward's buffers: x [T, D], W [D, D], Q, K, V [T, D], weights [T, T] (one head's), heads [T, D].
    const float ws = 1.0f / std::sqrt(float(D));
    auto x = randn(T * D, 1), w = randn(D * D, 2, ws), q = randn(T * D, 3), k = randn(T * D, 4),
         v = randn(T * D, 5), p = randn(T * T, 6, 1.0f / T);
    std::vector<float> c1(std::max(T * D, T * T)), c2(c1.size());
    char shape[32];
    std::snprintf(shape, sizeof shape, "(%zu, %zu, %zu)", T, D, H);
    std::vector<Case> cases;
    {
      Case c{shape, "projection", "[" + std::to_string(T) + "," + std::to_string(D) + "]·[" + std::to_string(D) +
                                      "," + std::to_string(D) + "]",
             2.0 * T * D * D};
      c.run_attnlab = [&, T, D] { attnlab::kernels::gemm_nn_f32(T, D, D, x.data(), D, w.data(), D, nullptr, c1.data(), D); };
      c.run_eigen = [&, T, D] {
        Eigen::Map<const RowMatrixXf> X(x.data(), T, D), W(w.data(), D, D);
        Eigen::Map<RowMatrixXf> C(c2.data(), T, D);
        C.noalias() = X * W;
      };
      c.max_rel_diff = [&, T, D] {
        return max_rel_diff({c1.begin(), c1.begin() + T * D}, {c2.begin(), c2.begin() + T * D});
      };
      cases.push_back(c);
    }
    {
      Case c{shape, "scores Q·Kᵀ", std::to_string(H) + "×[" + std::to_string(T) + "," + std::to_string(dk) + "]·[" +
                                      std::to_string(T) + "," + std::to_string(dk) + "]ᵀ",
             2.0 * H * T * T * dk};
      // Every head, as the forward runs them; the score tiles of one head are reused (T·T floats).
      c.run_attnlab = [&, T, D, H, dk] {
        for (size_t h = 0; h < H; ++h)
          attnlab::kernels::gemm_nt_f32(T, T, dk, q.data() + h * dk, D, k.data() + h * dk, D, c1.data(), T);
      };
      c.run_eigen = [&, T, D, H, dk] {
        for (size_t h = 0; h < H; ++h) {
          ConstStridedMap Qh(q.data() + h * dk, T, dk, Eigen::OuterStride<>(D)),
              Kh(k.data() + h * dk, T, dk, Eigen::OuterStride<>(D));
          Eigen::Map<RowMatrixXf> S(c2.data(), T, T);
          S.noalias() = Qh * Kh.transpose();
        }
      };
      c.max_rel_diff = [&, T] { return max_rel_diff({c1.begin(), c1.begin() + T * T}, {c2.begin(), c2.begin() + T * T}); };
      cases.push_back(c);
    }
    {
      Case c{shape, "weights·V", std::to_string(H) + "×[" + std::to_string(T) + "," + std::to_string(T) + "]·[" +
                                    std::to_string(T) + "," + std::to_string(dk) + "]",
             2.0 * H * T * T * dk};
      // Each head writes its column slice of the concatenation (row stride D).
      c.run_attnlab = [&, T, D, H, dk] {
        for (size_t h = 0; h < H; ++h)
          attnlab::kernels::gemm_nn_f32(T, dk, T, p.data(), T, v.data() + h * dk, D, nullptr, c1.data() + h * dk, D);
      };
      c.run_eigen = [&, T, D, H, dk] {
        Eigen::Map<const RowMatrixXf> P(p.data(), T, T);
        for (size_t h = 0; h < H; ++h) {
          ConstStridedMap Vh(v.data() + h * dk, T, dk, Eigen::OuterStride<>(D));
          StridedMap O(c2.data() + h * dk, T, dk, Eigen::OuterStride<>(D));
          O.noalias() = P * Vh;
        }
      };
      c.max_rel_diff = [&, T, D] {
        return max_rel_diff({c1.begin(), c1.begin() + T * D}, {c2.begin(), c2.begin() + T * D});
      };
      cases.push_back(c);
    }

    for (Case& c : cases) {
      c.run_attnlab(), c.run_eigen();
      const double diff = c.max_rel_diff();
      // Warm-up, both interleaved, and a batch size of about batch_s per side.
      int reps = 1;
      for (const double t0 = cpu_now_ms(); cpu_now_ms() - t0 < warmup_s * 1e3;) {  // 2 s of running, not of waiting
        const double ta = time_batch(c.run_attnlab, reps), te = time_batch(c.run_eigen, reps);
        reps = std::max(1, int(batch_s / std::max(1e-9, std::min(ta, te))));
      }
      std::vector<double> ta, te;
      for (int r = 0; r < rounds; ++r) {
        ta.push_back(time_batch(c.run_attnlab, reps));
        te.push_back(time_batch(c.run_eigen, reps));
      }
      const Row row{c.shape, c.product, c.dims, c.flops / median(ta) / 1e9, c.flops / median(te) / 1e9, diff};
      std::printf("%-16s %-12s %-22s %12.1f %12.1f %14.2f %10.1e\n", row.shape.c_str(), row.product.c_str(),
                  row.dims.c_str(), row.attnlab_gflops, row.eigen_gflops, row.attnlab_gflops / row.eigen_gflops,
                  row.diff);
      std::fflush(stdout);
      rows.push_back(row);
      if (diff > 1e-5) {
        std::fprintf(stderr, "eigen_wasm_bench: %s %s: the results differ by %.1e (> 1e-5)\n", row.shape.c_str(),
                     row.product.c_str(), diff);
        return 1;
      }
    }
  }
  if (!doc) return 0;

  // ---- The marked section of the performance page, replaced in place or appended --------------
  const std::string begin = "<!-- eigen_wasm_bench.cc: begin -->", end = "<!-- eigen_wasm_bench.cc: end -->";
  std::ostringstream md;
  md << begin << "\n## Eigen's products vs attnlab's kernels in WebAssembly\n\n"
     << "Written by `bench/eigen_wasm_bench.cc` (`npm run bench`; Node, one thread, WebAssembly SIMD128). "
        "The products the multi-head forward computes, at the bench shapes: the same buffers and row "
        "strides through attnlab's hand-written GEMM kernels (`gemm_nn_f32`, `gemm_nt_f32`, "
        "`core/src/kernels/f32-gemm/`) and through Eigen 3.4's own products (`C.noalias() = A * B`, "
        "row-major float Maps, `EIGEN_DONT_PARALLELIZE`), both compiled by Debian's emcc with the core's "
        "flags (`-O3 -msimd128 -DNDEBUG`). Eigen 3.4 has no WebAssembly SIMD backend: its kernels are "
        "scalar C++ that clang auto-vectorises. Medians of " << rounds << " interleaved batches of ~"
     << batch_s * 1e3 << " ms, timed in process CPU time (the machine is shared: wall-clock batches would "
        "time the scheduler too), after a " << warmup_s << " s warm-up per row; the two results agree to "
        "the last column (max |Δ| / max |C|).\n\n"
     << "| (T, D, H) | product | shape | attnlab GFLOPS | Eigen GFLOPS | attnlab / Eigen | max rel Δ |\n"
     << "|---|---|---|---:|---:|---:|---:|\n";
  double lo = 1e9;
  std::string lo_row, as_fast;  // as fast: attnlab less than 10 % ahead
  for (const Row& r : rows) {
    const double ratio = r.attnlab_gflops / r.eigen_gflops;
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %s | %s | %.1f | %.1f | %.2f× | %.0e |\n", r.shape.c_str(), r.product.c_str(),
                  r.dims.c_str(), r.attnlab_gflops, r.eigen_gflops, ratio, r.diff);
    md << line;
    if (ratio < lo) lo = ratio, lo_row = r.shape + " " + r.product;
    if (ratio < 1.1) as_fast += (as_fast.empty() ? "" : ", ") + r.shape + " " + r.product;
  }
  char summary[256];
  std::snprintf(summary, sizeof summary, "\nSmallest ratio in this run: %.2f× (%s). ", lo, lo_row.c_str());
  md << summary
     << (as_fast.empty() ? "attnlab's kernels are faster than Eigen's products at every product and shape of the forward."
                         : "Eigen is as fast as attnlab's kernel (within 10 %) for: " + as_fast + ".")
     << "\n" << end;
  std::string old;
  {
    std::ifstream in(doc);
    std::stringstream ss;
    ss << in.rdbuf();
    old = ss.str();
  }
  const size_t i = old.find(begin), j = old.find(end);
  std::string next;
  if (i != std::string::npos && j != std::string::npos && j > i)
    next = old.substr(0, i) + md.str() + old.substr(j + end.size());
  else {
    while (!old.empty() && (old.back() == '\n' || old.back() == ' ')) old.pop_back();
    next = old + "\n\n" + md.str() + "\n";
  }
  std::ofstream(doc) << next;
  std::printf("wrote its section of %s\n", doc);
  return 0;
}
