// attnlab/status.h — how the core reports bad input without exceptions.
//
// The pointer-level ops (attnlab/ops.h) never throw and never allocate: they check their arguments and
// return a Status. That keeps the WebAssembly build free of C++ exceptions (which leak WASM stack when
// they cross into JS, and cost a JS trampoline per call with Emscripten's JS-based EH). The friendly
// Matrix API (attnlab/attention.h, …) turns a bad Status into an attnlab::Error exception.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace attnlab {

struct Status {
  bool ok = true;
  std::string message;  // "attention: q has 5 values, expected tq·dk = 6"

  static Status Ok() { return {}; }
  static Status Fail(std::string msg) { return {false, std::move(msg)}; }
  explicit operator bool() const { return ok; }
};

// Thrown by the Matrix-level API for bad arguments.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline void throw_if_error(const Status& s) {
  if (!s.ok) throw Error(s.message);
}

}  // namespace attnlab
