// Native Google Benchmark of the core (built twice: attnlab_bench_native dispatches to the wasmsimd
// kernels through SIMDe/SSE, attnlab_bench_native_scalar to the scalar references).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

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
    auto s = attnlab::multihead_attention_forward(a, o);
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
  std::vector<float> work(attnlab::multihead_streaming_workspace_floats(T, D, H));
  attnlab::MultiHeadArgs a{x.data(), T, nullptr, T, D, H, {wq.data(), wk.data(), wv.data(), wo.data()},
                           attnlab::Mask::None()};
  attnlab::MultiHeadStreamingOutputs o{q.data(), k.data(), v.data(), work.data(), out.data()};
  for (auto _ : st) {
    auto s = attnlab::multihead_attention_forward_streaming(a, o);
    benchmark::DoNotOptimize(out.data());
    if (!s.ok) st.SkipWithError(s.message.c_str());
  }
  const double flops = 2.0 * 4 * T * D * D + 2.0 * 2 * T * T * D;
  st.counters["GFLOPS"] = benchmark::Counter(flops * st.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MultiHeadStreaming)->Args({16, 64, 4})->Args({128, 256, 8})->Args({512, 512, 8})
    ->Args({1024, 768, 12})->Args({2048, 512, 8})->Args({4096, 512, 8})->Args({8192, 512, 8})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
