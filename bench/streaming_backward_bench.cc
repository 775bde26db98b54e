// Forward + backward of multi-head self-attention (D = 64, H = 4, causal) at T = 256, 1024, 4096:
// the streaming path (multi_head_attention_forward_streaming with lse and heads kept, then
// multi_head_attention_backward_streaming) against the all-intermediates path
// (multi_head_attention_forward, multi_head_attention_backward). Linked into attnlab_bench_native
// (native_bench.cc holds BENCHMARK_MAIN). No assertions: it reports time and, as the counter
// buffer_floats, what each path holds besides the inputs, parameters, dout and gradients (which both
// need alike): the forward's saved outputs and both workspaces, all alive at the backward's peak.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/backward.h"
#include "attnlab/ops.h"

namespace {

std::vector<float> randn_sb(size_t n, unsigned seed, float s = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Inputs, parameters, dout and gradients, the same for both paths.
struct TrainCase {
  size_t T, D, H;
  std::vector<float> x, wq, wk, wv, wo, dout, dx, dwq, dwk, dwv, dwo;
  attnlab::MultiHeadArgs a{};
  attnlab::MultiHeadGrads g;
  TrainCase(size_t t, size_t d, size_t h) : T(t), D(d), H(h) {
    const float ws = 1.0f / std::sqrt(float(D));
    x = randn_sb(T * D, 1), wq = randn_sb(D * D, 2, ws), wk = randn_sb(D * D, 3, ws),
    wv = randn_sb(D * D, 4, ws), wo = randn_sb(D * D, 5, ws), dout = randn_sb(T * D, 6);
    dx.assign(T * D, 0.0f), dwq.assign(D * D, 0.0f), dwk.assign(D * D, 0.0f), dwv.assign(D * D, 0.0f),
        dwo.assign(D * D, 0.0f);
    a.x = x.data(), a.t_q = T, a.d_model = D, a.heads = H;
    a.w = {wq.data(), wk.data(), wv.data(), wo.data()};
    a.mask = attnlab::Mask::Causal();
    g.dx = dx.data(), g.dwq = dwq.data(), g.dwk = dwk.data(), g.dwv = dwv.data(), g.dwo = dwo.data();
  }
};

void report(benchmark::State& st, const TrainCase& c, double buffer_floats) {
  // The useful flops: 4 projections forward and 8 GEMMs backward of 2·T·D² each; attention's causal
  // half of 4·T²·D forward (Q·Kᵀ, P·V) and 8·T²·D backward (dV, dP, dQ, dK); recomputing S is not counted.
  const double flops = 3.0 * 2.0 * 4 * c.T * c.D * c.D + 3.0 * 2.0 * c.T * c.T * c.D;
  st.counters["GFLOPS"] = benchmark::Counter(flops * st.iterations() / 1e9, benchmark::Counter::kIsRate);
  st.counters["buffer_floats"] = buffer_floats;
  st.counters["buffer_MB"] = buffer_floats * 4 / 1e6;
}

void BM_AttentionTrainStreaming(benchmark::State& st) {
  TrainCase c(st.range(0), 64, 4);
  const size_t T = c.T, D = c.D, H = c.H;
  std::vector<float> q(T * D), k(T * D), v(T * D), out(T * D), lse(H * T), heads(T * D);
  std::vector<float> fwd_ws(attnlab::multi_head_streaming_workspace_floats(T, D, H));
  std::vector<float> bwd_ws(attnlab::multi_head_streaming_backward_workspace_floats(T, T, D));
  const attnlab::MultiHeadStreamingOutputs o{q.data(), k.data(), v.data(), fwd_ws.data(), out.data(),
                                             lse.data(), heads.data()};
  for (auto _ : st) {
    auto s = attnlab::multi_head_attention_forward_streaming(c.a, o);
    if (s.ok) s = attnlab::multi_head_attention_backward_streaming(c.a, o, c.dout.data(), c.g, bwd_ws.data());
    benchmark::DoNotOptimize(c.dx.data());
    if (!s.ok) st.SkipWithError(s.message.c_str());
  }
  report(st, c, double(q.size() + k.size() + v.size() + out.size() + lse.size() + heads.size() +
                       fwd_ws.size() + bwd_ws.size()));
}

void BM_AttentionTrainAllIntermediates(benchmark::State& st) {
  TrainCase c(st.range(0), 64, 4);
  const size_t T = c.T, D = c.D, H = c.H;
  std::vector<float> q(T * D), k(T * D), v(T * D), weights(H * T * T), heads(T * D), out(T * D);
  std::vector<float> bwd_ws(attnlab::multi_head_backward_workspace_floats(T, T, D));
  const attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(),
                                    out.data()};
  for (auto _ : st) {
    auto s = attnlab::multi_head_attention_forward(c.a, o);
    if (s.ok) s = attnlab::multi_head_attention_backward(c.a, o, c.dout.data(), c.g, bwd_ws.data());
    benchmark::DoNotOptimize(c.dx.data());
    if (!s.ok) st.SkipWithError(s.message.c_str());
  }
  report(st, c, double(q.size() + k.size() + v.size() + weights.size() + heads.size() + out.size() +
                       bwd_ws.size()));
}

}  // namespace

BENCHMARK(BM_AttentionTrainStreaming)->Arg(256)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttentionTrainAllIntermediates)->Arg(256)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);
