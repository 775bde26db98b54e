// simd128.h — the one place that decides where wasm_simd128.h comes from.
// In the WebAssembly build it is Emscripten's header (real v128 instructions). In a native build with
// ATTNLAB_SIMDE, SIMDe implements the same intrinsics with SSE, so the very same kernel source is tested
// and benchmarked natively.
#pragma once

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(ATTNLAB_SIMDE)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#else
#error "simd128.h needs -msimd128 (WebAssembly) or ATTNLAB_SIMDE (native, via SIMDe)"
#endif
