// Native Google Benchmark of the core (built twice: attnlab_bench_native dispatches to the wasmsimd
// kernels through SIMDe/SSE, attnlab_bench_native_scalar to the scalar references).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "../core/src/kernels/dispatch.h"
#include "attnlab/ops.h"

namespace {

std::vector<float> randn(size_t n, unsigned seed, float s = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Multi-head self-attention forward at (T, D, H), all intermediates kept.
void BM_MultiHead(benchmark::State& st) {
  const size_t T = st.range(0), D = st.range(1), H = st.range(2);
  const float ws = 1.0f / std::sqrt(float(D));
  auto x = randn(T * D, 1), wq = randn(D * D, 2, ws), wk = randn(D * D, 3, ws), wv = randn(D * D, 4, ws),
       wo = randn(D * D, 5, ws);
  std::vector<float> q(T * D), k(T * D), v(T * D), w(H * T * T), heads(T * D), out(T * D);
  attnlab::MultiHeadArgs a{x.data(), T, nullptr, T, D, H, {wq.data(), wk.data(), wv.data(), wo.data()},
                           attnlab::Mask::None()};
  attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), nullptr, w.data(), heads.data(), out.data()};
  for (auto _ : st) {
    auto s = attnlab::multi_head_attention_forward(a, o);
    benchmark::DoNotOptimize(out.data());
    if (!s.ok) st.SkipWithError(s.message.c_str());
  }
  const double flops = 2.0 * 4 * T * D * D + 2.0 * 2 * T * T * D;
  st.counters["GFLOPS"] = benchmark::Counter(flops * st.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MultiHead)->Args({16, 64, 4})->Args({128, 256, 8})->Args({512, 512, 8})->Args({1024, 768, 12})
    ->Unit(benchmark::kMillisecond);

// The same, output only: the streaming op (online softmax over key blocks), as
// multiHeadAttention({ …, intermediates: false }) runs it in WebAssembly.
void BM_MultiHeadStreaming(benchmark::State& st) {
  const size_t T = st.range(0), D = st.range(1), H = st.range(2);
  const float ws = 1.0f / std::sqrt(float(D));
  auto x = randn(T * D, 1), wq = randn(D * D, 2, ws), wk = randn(D * D, 3, ws), wv = randn(D * D, 4, ws),
       wo = randn(D * D, 5, ws);
  std::vector<float> q(T * D), k(T * D), v(T * D), out(T * D);
  std::vector<float> work(attnlab::multi_head_streaming_workspace_floats(T, D, H));
  attnlab::MultiHeadArgs a{x.data(), T, nullptr, T, D, H, {wq.data(), wk.data(), wv.data(), wo.data()},
                           attnlab::Mask::None()};
  attnlab::MultiHeadStreamingOutputs o{q.data(), k.data(), v.data(), work.data(), out.data()};
  for (auto _ : st) {
    auto s = attnlab::multi_head_attention_forward_streaming(a, o);
    benchmark::DoNotOptimize(out.data());
    if (!s.ok) st.SkipWithError(s.message.c_str());
  }
  const double flops = 2.0 * 4 * T * D * D + 2.0 * 2 * T * T * D;
  st.counters["GFLOPS"] = benchmark::Counter(flops * st.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MultiHeadStreaming)->Args({16, 64, 4})->Args({128, 256, 8})->Args({512, 512, 8})
    ->Args({1024, 768, 12})->Args({2048, 512, 8})->Args({4096, 512, 8})->Args({8192, 512, 8})
    ->Unit(benchmark::kMillisecond);

// The backward's weight-gradient GEMM, C[m, n] += A[k, m]ᵀ·B[k, n], at the training shapes: a
// projection's dW of the induction model (32, 32, 23), a head's dV/dK (23, 16, 23), the char model's
// dW1 (64, 256, 256). kernels::gemm_tn_acc_f32 is the build's choice (wasmsimd via SIMDe, or scalar).
void BM_GemmTnAcc(benchmark::State& st) {
  const size_t m = st.range(0), n = st.range(1), k = st.range(2);
  auto a = randn(k * m, 1), b = randn(k * n, 2), c = randn(m * n, 3, 1e-3f);
  for (auto _ : st) {
    attnlab::kernels::gemm_tn_acc_f32(m, n, k, a.data(), m, b.data(), n, c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  st.counters["GMAC/s"] =
      benchmark::Counter(double(m) * n * k * st.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GemmTnAcc)->Args({32, 32, 23})->Args({23, 16, 23})->Args({64, 256, 256});

}  // namespace

BENCHMARK_MAIN();
