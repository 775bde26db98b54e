// libFuzzer harness for attnlab::multi_head_attention_backward_streaming (FlashAttention-2 style),
// differential: every input also goes through multi_head_attention_forward + multi_head_attention_backward
// (the all-intermediates path, which keeps the [H, t_q, t_k] weights), from the same gradient buffers'
// starting values. Fuzzed: t_q, t_k (self or cross; past the 48-query block, and for t_k past the
// 128-key block), D, H, every mask kind (fuzz::Input::mask), scale, RoPE (and its base), ALiBi, biases,
// which of the ten gradients are wanted, whether they start at 0 or 1 (the backward accumulates),
// values as the other harnesses (clean or not) or — for dense inputs at sizes whose values would
// outrun the fuzz input — from a small generator seeded by the input; weights and biases scaled by
// 2^-e so that moderate scores (where the comparison is tight) are common. Invariants:
//   1. the two forwards accept or refuse together (fuzz_multihead_streaming's invariant, kept here as
//      the precondition of the comparison), and each backward accepts whenever its forward accepted;
//      when the forwards refused, the two backwards (given the same arguments) refuse together, each
//      naming its op, with the same reason;
//   2. both accepted and the inputs clean: every requested gradient agrees, element by element,
//      within a running error bound (below) for float32 with the two paths' summation orders;
//   3. both accepted, inputs clean and every magnitude envelope of that analysis within float32:
//      every gradient is finite on both paths. (Clean inputs alone do not suffice: the backward has no
//      overflow refusals, so dout = 1e30 with W_O = 1e30 overflows dheads on both paths.)
#include <algorithm>

#include "attnlab/backward.h"
#include "fuzz_common.h"

namespace {

constexpr double kU = 0x1p-24;  // float32 unit roundoff

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

// A deterministic stream of int8/16 values (the harnesses' ordinary values) for dense inputs.
struct Synth {
  uint32_t s;
  float next() {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int8_t>(s >> 24)) / 16.0f;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t t_q = in.size(0, 140), D = in.size(0, 16), H = in.size(0, 4);
  const bool cross = in.flag();
  const size_t t_k = cross ? in.size(0, 140) : t_q;
  const float scale = in.flag() ? 0.0f : in.value();
  const bool rope = in.flag();
  const float rope_base = in.flag() ? 10000.0f : in.value();
  const bool alibi = in.flag(), biases = in.flag();
  std::vector<float> mask_values;
  const attnlab::Mask mask = in.mask(t_q, t_k, mask_values);
  bool want[10];
  for (bool& w : want) w = in.flag();
  const float init = in.flag() ? 1.0f : 0.0f;  // the gradients' starting value, the same on both paths
  const float wscale = std::ldexp(1.0f, -in.integer(0, 10));
  const bool synth = in.flag();
  Synth gen{static_cast<uint32_t>(in.integer(0, 65535))};
  const bool clean = synth || in.clean();
  auto values = [&](size_t n, float s) {
    if (!synth) {
      auto v = in.values(n, clean);
      for (float& x : v) x *= s;
      return v;
    }
    std::vector<float> v(n);
    for (float& x : v) x = gen.next() * s;
    return v;
  };
  auto x = values(t_q * D, 1.0f), context = values(cross ? t_k * D : 0, 1.0f);
  std::vector<float> w[4], b[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = values(D * D, wscale);
    b[i] = values(biases ? D : 0, wscale);
  }
  auto dout = values(t_q * D, 1.0f);
  auto bias = [&](int i) -> const float* { return biases ? b[i].data() : nullptr; };
  const attnlab::MultiHeadArgs a{x.data(), t_q, cross ? context.data() : nullptr, t_k, D, H,
                                 {w[0].data(), w[1].data(), w[2].data(), w[3].data(), bias(0), bias(1), bias(2), bias(3)},
                                 mask, scale, rope, rope_base, alibi};

  // Forwards. Streaming: lse [H, t_q] and heads [t_q, D] kept (q then keeps Q), as the backward needs.
  auto sq = fuzz::out_buffer(t_q * D), sk = fuzz::out_buffer(t_k * D), sv = fuzz::out_buffer(t_k * D);
  auto swork = fuzz::out_buffer(attnlab::multi_head_streaming_workspace_floats(t_k, D, H));
  auto sout = fuzz::out_buffer(t_q * D), lse = fuzz::out_buffer(H * t_q), sheads = fuzz::out_buffer(t_q * D);
  const attnlab::MultiHeadStreamingOutputs so{sq.data(), sk.data(), sv.data(), swork.data(), sout.data(),
                                              lse.data(), sheads.data()};
  const attnlab::Status sf = attnlab::multi_head_attention_forward_streaming(a, so);
  auto q = fuzz::out_buffer(t_q * D), k = fuzz::out_buffer(t_k * D), v = fuzz::out_buffer(t_k * D);
  auto weights = fuzz::out_buffer(H * t_q * t_k), heads = fuzz::out_buffer(t_q * D), out = fuzz::out_buffer(t_q * D);
  const attnlab::MultiHeadOutputs fo{q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(), out.data()};
  const attnlab::Status ff = attnlab::multi_head_attention_forward(a, fo);
  if (sf.ok != ff.ok)
    fuzz::fail("streaming and full forwards agree on accepting",
               "streaming: " + (sf.ok ? std::string("ok") : sf.message) + " | full: " + (ff.ok ? std::string("ok") : ff.message));

  // Refused: the backwards still run, on zeroed saved buffers (finite: on the NaN-filled ones the
  // streaming backward's recomputed scores are NaN and it refuses where the full one, which reads the
  // weights as given, does not — garbage in, not a disagreement on the arguments).
  if (!sf.ok)
    for (auto* buf : {&sq, &sk, &sv, &lse, &sheads, &q, &k, &v, &weights, &heads}) std::fill(buf->begin(), buf->end(), 0.0f);

  // Backwards, into exact-size gradient buffers (the ten of MultiHeadGrads; nullptr when not wanted).
  struct GradSet {
    std::vector<float> buf[10];
    attnlab::MultiHeadGrads g;
  };
  const size_t sizes[10] = {t_q * D, t_k * D, D * D, D * D, D * D, D * D, D, D, D, D};
  const char* names[10] = {"dx", "dcontext", "dwq", "dwk", "dwv", "dwo", "dbq", "dbk", "dbv", "dbo"};
  auto make = [&](GradSet& s) {
    float** ptr[10] = {&s.g.dx, &s.g.dcontext, &s.g.dwq, &s.g.dwk, &s.g.dwv, &s.g.dwo, &s.g.dbq, &s.g.dbk, &s.g.dbv, &s.g.dbo};
    for (int i = 0; i < 10; ++i) {
      s.buf[i].assign(want[i] ? sizes[i] : 0, init);
      s.buf[i].shrink_to_fit();
      *ptr[i] = want[i] ? s.buf[i].data() : nullptr;
    }
  };
  GradSet gs, gf;
  make(gs);
  make(gf);
  auto sws = fuzz::out_buffer(attnlab::multi_head_streaming_backward_workspace_floats(t_q, t_k, D));
  auto fws = fuzz::out_buffer(attnlab::multi_head_backward_workspace_floats(t_q, t_k, D));
  const attnlab::Status sb = attnlab::multi_head_attention_backward_streaming(a, so, dout.data(), gs.g, sws.data());
  const attnlab::Status fb = attnlab::multi_head_attention_backward(a, fo, dout.data(), gf.g, fws.data());

  if (!sf.ok) {
    // The forwards refused (bad arguments or float32 overflow). The backwards check the arguments
    // only (not the bounds, which need the forward's q, k, v), so they may accept here — nothing to
    // compare then; ASan still watches every access.
    if (sb.ok != fb.ok)
      fuzz::fail("both backwards agree on refusing", "streaming: " + (sb.ok ? std::string("ok") : sb.message) +
                 " | full: " + (fb.ok ? std::string("ok") : fb.message));
    if (!sb.ok) {
      fuzz::expect_message(sb, "multiHeadAttentionStreamingBackward");
      fuzz::expect_message(fb, "multiHeadAttentionBackward");
      const std::string rs = sb.message.substr(sb.message.find(": ")), rf = fb.message.substr(fb.message.find(": "));
      if (rs != rf) fuzz::fail("both backwards give the same reason", sb.message + " | " + fb.message);
    }
    return 0;
  }
  if (!sb.ok) fuzz::fail("streaming backward accepts what its forward accepted", sb.message);
  if (!fb.ok) fuzz::fail("full backward accepts what its forward accepted", fb.message);
  if (!clean) return 0;
  for (float d : dout)
    if (!std::isfinite(d)) return 0;  // (clean already means finite; kept explicit for the bound)

  // ---- The bound (invariants 2 and 3) ----------------------------------------------------------
  // A running error analysis in double, element by element, on the actual magnitudes: for every
  // intermediate X of the backward an envelope env(X) ≥ |X| (the same formulas with every term taken
  // in absolute value) and err(X) ≥ |X_streaming − X_full|. Each path's float32 sum of n terms is
  // within γ(n) ≈ (n + 2)·u of the exact sum's envelope, so the two differ by at most
  // R(n) = 2(n + 2)·u·env; that is how every fuzz_* harness bounds a float32 result ("relative to the
  // magnitudes involved"), here carried through each step instead of taken from tensor maxima —
  // maxima made the bound 1e4–1e9 times the observed differences and blind to a missing ALiBi bias.
  //
  // Both paths compute Q, K, V (multihead_project) and dheads = dout·W_Oᵀ with the same code; they
  // part in the attention. The full path has weights = exp(s − max)/Σ, the streaming one recomputes
  // P = exp(S − lse) with S summed in another order (its own GEMM tiles; the forward packs K when
  // t_q > 48) and lse = m + log l rounded to float32. An exponent error δ is a relative error
  // expm1(δ) in P, so for query row i both paths' P are within a relative ρ_i = expm1(2δ_i) of each
  // other (normalisation included), with
  //   δ_i = u·((d_k + 2)·scale·max_j Σ_d|q_id||k_jd| + 8·max_j |S_ij| + 2·t_k + 16)
  // over the keys row i sees, |S_ij| ≤ scale·Σ_d|q_id||k_jd| + |mask_ij| + slope·|i − j| (the dot
  // product's rounding, then scale·, + mask, + ALiBi, the online rescaling and lse = m + log l, each
  // rounding relative to |S| ≤ max|S| or |lse| ≤ max|S| + log t_k). So ρ grows with the scores'
  // magnitude, not their spread: float32 lse is the streaming path's precision limit (at |lse| = 1e6
  // float32's spacing is 1/16, so P can be off by 3 %; such inputs are compared only that loosely).
  // Per head, with P_b = min(1, P_full·(1 + ρ_i) + FLT_MIN) ≥ both paths' P and perr =
  // min(ρ_i·P_b + FLT_MIN, P_b) ≥ their difference (FLT_MIN: the vectorised exp returns 0 below
  // −87.3, simd128_math.h, where a scalar exp gives a denormal; both 0 for keys the mask hides):
  //   dH = |dout|·|W_O|ᵀ;  O = P_b·|V| (either path's head), err perr·|V| + R(t_k);
  //   dP_ij = Σ_c dH_ic·|V_jc|;  delta_i = Σ_c dH_ic·O_ic (= rowsum(dO∘O) = Σ_j P_ij·dP_ij),
  //     err Σ_c dH·err(O) + (R(d_k) + R(D))·delta (dH has D terms; the same code on both paths, counted);
  //   dS_ij = scale·P_b·(dP_ij + delta_i), err scale·(perr·(dP + delta) + P_b·((R(d_k) + R(D))·dP +
  //     err(delta))) + R(3)·dS (softmax_grad's 3 ops);
  //   dV = P_bᵀ·dH (err (perr + R(D)·P_b)·dH, + R(t_q)), dQ = dS·|K| (err Σ_j err(dS)·|K| + R(t_k)),
  //   dK = dSᵀ·|Q| (+ R(t_q)); RoPE's back-rotation: (a, b) → |a| + |b| for both (+ R(2));
  //   then the projections the same way (dx = dQ·W_Qᵀ + …, dW = xᵀ·dQ, db = Σ_i dQ, dW_O = headsᵀ·dout)
  //   and the accumulation into the starting value (+ R(1)·(|init| + env)).
  // Every envelope is raised by (n + 2)·FLT_MIN where it is formed, so that R(n)·env also covers the
  // absolute rounding of denormal results. A gradient element must agree within 2·err (2: the
  // second-order terms this first-order analysis drops). Invariant 3 asks for finite gradients where
  // every envelope (with that factor 2) is below FLT_MAX.
  const size_t dk = D / H;
  const double sc = scale > 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(dk));  // multihead_scale
  auto R = [](double n) { return 2.0 * (n + 2.0) * kU; };
  auto lift = [](double n) { return (n + 2.0) * static_cast<double>(FLT_MIN); };
  const float* ctx = cross ? context.data() : x.data();
  double worst = 0;  // the largest envelope formed: invariant 3's range test
  auto env_note = [&](double e) { worst = std::fmax(worst, e); return e; };
  // dH = |dout|·|W_O|ᵀ [t_q, D] (dheads_id = Σ_c dout_ic·wo_dc)
  std::vector<double> dh(t_q * D);
  for (size_t i = 0; i < t_q; ++i)
    for (size_t d = 0; d < D; ++d) {
      double acc = 0;
      for (size_t c = 0; c < D; ++c) acc += std::fabs(static_cast<double>(dout[i * D + c])) * std::fabs(static_cast<double>(w[3][d * D + c]));
      dh[i * D + d] = env_note(acc + lift(D));
    }
  std::vector<double> env_o(t_q * D), err_o(t_q * D), env_dq(t_q * D), err_dq(t_q * D), env_dk(t_k * D),
      err_dk(t_k * D), env_dv(t_k * D), err_dv(t_k * D);
  std::vector<double> qk(t_k), pb(t_k), dp(t_k);
  auto visible = [&](size_t i, size_t j) {
    switch (mask.kind) {
      case attnlab::Mask::Kind::causal: return j <= i;
      case attnlab::Mask::Kind::window: {
        const long d = static_cast<long>(i) - static_cast<long>(j), wd = mask.window;
        return mask.causal ? d >= 0 && d <= wd : d >= -wd && d <= wd;
      }
      case attnlab::Mask::Kind::additive: return mask_values[i * t_k + j] != -INFINITY;
      default: return true;
    }
  };
  double rho_max = 0;
  for (size_t h = 0; h < H; ++h) {
    const size_t c0 = h * dk;
    const double slope = alibi ? attnlab::alibi_slope(h, H) : 0.0;
    for (size_t i = 0; i < t_q; ++i) {
      // Row i's exponent error and ρ_i.
      double qk_max = 0, s_max = 0;
      for (size_t j = 0; j < t_k; ++j) {
        double acc = 0;
        for (size_t c = c0; c < c0 + dk; ++c)
          acc += std::fabs(static_cast<double>(q[i * D + c])) * std::fabs(static_cast<double>(k[j * D + c]));
        qk[j] = acc;
        if (!visible(i, j)) continue;
        const double m = mask.kind == attnlab::Mask::Kind::additive ? std::fabs(static_cast<double>(mask_values[i * t_k + j])) : 0.0;
        qk_max = std::fmax(qk_max, acc);
        s_max = std::fmax(s_max, sc * acc + m + slope * std::fabs(static_cast<double>(i) - static_cast<double>(j)));
      }
      const double delta_exp = kU * ((dk + 2.0) * sc * qk_max + 8.0 * s_max + 2.0 * t_k + 16.0);
      const double rho = std::expm1(2.0 * delta_exp);
      rho_max = std::fmax(rho_max, rho);
      // P_b ≥ either path's P; perr ≥ |P_streaming − P_full|: relative ρ_i, and FLT_MIN absolute
      // because the vectorised exp returns exactly 0 below −87.3 (simd128_math.h) where a scalar exp
      // gives a denormal. A key the mask hides has P = 0 on both paths.
      // Neither path's P exceeds 1 (the streaming exp's argument is clamped at 0), which also bounds
      // both when ρ is huge (scores near float32's range) or infinite.
      for (size_t j = 0; j < t_k; ++j)
        pb[j] = !visible(i, j) ? 0.0 : std::isfinite(rho) ? std::fmin(1.0, static_cast<double>(weights[(h * t_q + i) * t_k + j]) * (1.0 + rho) + 0x1p-126) : 1.0;
      auto perr = [&](size_t j) { return std::fmin(rho * pb[j] + 0x1p-126, pb[j]); };
      double delta_env = 0, delta_err = 0;
      for (size_t c = c0; c < c0 + dk; ++c) {
        double acc = 0, e = 0;
        for (size_t j = 0; j < t_k; ++j) {
          if (pb[j] == 0.0) continue;
          const double vv = std::fabs(static_cast<double>(v[j * D + c]));
          acc += pb[j] * vv;
          e += perr(j) * vv;
        }
        env_o[i * D + c] = env_note(acc + lift(t_k));
        err_o[i * D + c] = e + R(t_k) * env_o[i * D + c];
        delta_env += dh[i * D + c] * env_o[i * D + c];
        delta_err += dh[i * D + c] * err_o[i * D + c];
      }
      delta_env = env_note(delta_env + lift(dk));
      delta_err += (R(dk) + R(D)) * delta_env;  // delta's own sum, and dH's rounding
      for (size_t j = 0; j < t_k; ++j) {
        double acc = 0;
        for (size_t c = c0; c < c0 + dk; ++c) acc += dh[i * D + c] * std::fabs(static_cast<double>(v[j * D + c]));
        dp[j] = env_note(acc + lift(dk));  // every dP − delta is formed (masked keys too): range test
        env_note(dp[j] + delta_env);
      }
      for (size_t j = 0; j < t_k; ++j) {
        if (pb[j] == 0.0) continue;
        // dS = scale·P∘(dP − delta): P's error, dP's (d_k terms, and dH's D), delta's; softmax_grad's 3 ops.
        const double ds = env_note(sc * pb[j] * (dp[j] + delta_env) + lift(4));
        const double ds_err = sc * (perr(j) * (dp[j] + delta_env) + pb[j] * ((R(dk) + R(D)) * dp[j] + delta_err)) + R(3) * ds;
        const double dv_err = perr(j) + R(D) * pb[j];
        for (size_t c = c0; c < c0 + dk; ++c) {
          const double kv = std::fabs(static_cast<double>(k[j * D + c])), qv = std::fabs(static_cast<double>(q[i * D + c]));
          env_dq[i * D + c] += ds * kv;
          err_dq[i * D + c] += ds_err * kv;
          env_dk[j * D + c] += ds * qv;
          err_dk[j * D + c] += ds_err * qv;
          env_dv[j * D + c] += pb[j] * dh[i * D + c];
          err_dv[j * D + c] += dv_err * dh[i * D + c];
        }
      }
    }
  }
  // The sums' own rounding, and the lift, once every term is in.
  auto finish = [&](std::vector<double>& env, std::vector<double>& err, double n) {
    for (size_t i = 0; i < env.size(); ++i) {
      env[i] = env_note(env[i] + lift(n));
      err[i] += R(n) * env[i];
    }
  };
  finish(env_dq, err_dq, t_k);
  finish(env_dk, err_dk, t_q);
  finish(env_dv, err_dv, t_q);
  if (rope)  // (a, b) → (a·cos + b·sin, −a·sin + b·cos) per pair of a head's columns, the same angles on both paths
    for (auto* m : {&env_dq, &err_dq, &env_dk, &err_dk})
      for (size_t i = 0; i + 1 < m->size(); i += 2) {
        const double s2 = (*m)[i] + (*m)[i + 1];
        (*m)[i] = (*m)[i + 1] = s2;
      }
  if (rope)
    for (const auto& pr : {std::make_pair(&env_dq, &err_dq), std::make_pair(&env_dk, &err_dk)})
      for (size_t i = 0; i < pr.first->size(); ++i) (*pr.second)[i] += R(2) * env_note((*pr.first)[i]);
  // The gradients: env and err per element, in the order of names[].
  std::vector<double> genv[10], gerr[10];
  for (int g = 0; g < 10; ++g) genv[g].assign(sizes[g], 0.0), gerr[g].assign(sizes[g], 0.0);
  // Y·Wᵀ [rows, D] into (env, err), as projection_backward's gemm_nt into tmp then dx += tmp.
  auto times_wt = [&](const std::vector<double>& ye, const std::vector<double>& yr, size_t rows, const std::vector<float>& wm,
                      std::vector<double>& oe, std::vector<double>& orr) {
    for (size_t i = 0; i < rows; ++i)
      for (size_t d = 0; d < D; ++d) {
        double e = 0, r = 0;
        for (size_t c = 0; c < D; ++c) {
          const double wv = std::fabs(static_cast<double>(wm[d * D + c]));
          e += ye[i * D + c] * wv;
          r += yr[i * D + c] * wv;
        }
        e = env_note(e + lift(D));
        oe[i * D + d] += e;
        orr[i * D + d] += r + R(D) * e;
      }
  };
  // Aᵀ·Y [D, D] (A [rows, D] the layer input, exact), as gemm_tn_acc; and Σ_rows Y [D].
  auto at_times = [&](const float* am, const std::vector<double>& ye, const std::vector<double>& yr, size_t rows,
                      std::vector<double>& oe, std::vector<double>& orr, std::vector<double>& be, std::vector<double>& br) {
    for (size_t d = 0; d < D; ++d)
      for (size_t c = 0; c < D; ++c) {
        double e = 0, r = 0;
        for (size_t i = 0; i < rows; ++i) {
          const double av = std::fabs(static_cast<double>(am[i * D + d]));
          e += av * ye[i * D + c];
          r += av * yr[i * D + c];
        }
        oe[d * D + c] = env_note(e + lift(rows));
        orr[d * D + c] = r + R(rows) * oe[d * D + c];
      }
    for (size_t c = 0; c < D; ++c) {
      double e = 0, r = 0;
      for (size_t i = 0; i < rows; ++i) e += ye[i * D + c], r += yr[i * D + c];
      be[c] = env_note(e + lift(rows));
      br[c] = r + R(rows) * be[c];
    }
  };
  times_wt(env_dq, err_dq, t_q, w[0], genv[0], gerr[0]);
  times_wt(env_dk, err_dk, t_k, w[1], genv[cross ? 1 : 0], gerr[cross ? 1 : 0]);
  times_wt(env_dv, err_dv, t_k, w[2], genv[cross ? 1 : 0], gerr[cross ? 1 : 0]);
  if (!cross) genv[1].assign(sizes[1], 0.0), gerr[1].assign(sizes[1], 0.0);  // dcontext: never written
  at_times(x.data(), env_dq, err_dq, t_q, genv[2], gerr[2], genv[6], gerr[6]);
  at_times(ctx, env_dk, err_dk, t_k, genv[3], gerr[3], genv[7], gerr[7]);
  at_times(ctx, env_dv, err_dv, t_k, genv[4], gerr[4], genv[8], gerr[8]);
  // dW_O = headsᵀ·dout (each path its own heads: O's err), db_O = Σ_i dout (the same code, exact inputs).
  for (size_t d = 0; d < D; ++d)
    for (size_t c = 0; c < D; ++c) {
      double e = 0, r = 0;
      for (size_t i = 0; i < t_q; ++i) {
        const double g = std::fabs(static_cast<double>(dout[i * D + c]));
        e += env_o[i * D + d] * g;
        r += err_o[i * D + d] * g;
      }
      genv[5][d * D + c] = env_note(e + lift(t_q));
      gerr[5][d * D + c] = r + R(t_q) * genv[5][d * D + c];
    }
  for (size_t c = 0; c < D; ++c) {
    double e = 0;
    for (size_t i = 0; i < t_q; ++i) e += std::fabs(static_cast<double>(dout[i * D + c]));
    genv[9][c] = env_note(e + lift(t_q));
    gerr[9][c] = R(t_q) * genv[9][c];
  }
  // Accumulation into the starting value.
  for (int g = 0; g < 10; ++g)
    for (size_t i = 0; i < genv[g].size(); ++i) {
      if (g == 1 && !cross) continue;
      gerr[g][i] += R(1) * (init + genv[g][i]);
      env_note(init + genv[g][i]);
    }

  // Invariant 3: finite wherever no intermediate or result can pass float32's range.
  const bool in_range = 2.0 * worst + 1.0 <= FLT_MAX;  // false for NaN too
  if (!in_range) return 0;
  for (int i = 0; i < 10; ++i) {
    fuzz::expect_finite((std::string("streaming ") + names[i]).c_str(), gs.buf[i].data(), gs.buf[i].size());
    fuzz::expect_finite((std::string("full ") + names[i]).c_str(), gf.buf[i].data(), gf.buf[i].size());
  }
  // Invariant 2: the same gradients within 2·err (above).
  for (int i = 0; i < 10; ++i) {
    const std::vector<float>& s = gs.buf[i];
    const std::vector<float>& f = gf.buf[i];
    for (size_t j = 0; j < f.size(); ++j) {
      const double tol = 2.0 * gerr[i][j];
      if (!(std::fabs(static_cast<double>(s[j]) - f[j]) <= tol))
        fuzz::fail("streaming gradient equals the full one",
                   std::string(names[i]) + "[" + std::to_string(j) + "]: " + num(s[j]) + " vs " + num(f[j]) +
                   " (tol " + num(tol) + ", envelope " + num(genv[i][j]) + ", max rho " + num(rho_max) + ")");
    }
  }
  return 0;
}
