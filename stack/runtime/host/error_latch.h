// ErrorLatch: the orchestrator's latched error word (RUNTIME.md §8). The first nonzero code
// wins and stays until reset(); later latches are ignored, which is what makes every call
// after a latch a no-op and the bind's status the FIRST error (§15.7). The first latch may
// carry a human detail (which argument, which limit) for BindResult::detail. Shared by the
// heaps, the tensormap and the orchestrator of one bind; host-only.
#pragma once

#include <cstdint>
#include <string>

#include "stack/runtime/status/codes.h"

namespace stackcheck::runtime {

class ErrorLatch {
 public:
  int32_t code() const { return code_; }
  bool latched() const { return code_ != 0; }
  const std::string& detail() const { return detail_; }
  // Latches `c` unless a code is already latched; returns false (for `return latch(..)`).
  bool latch(ErrorCode c, std::string detail = {}) {
    if (code_ == 0) {
      code_ = code_value(c);
      detail_ = std::move(detail);
    }
    return false;
  }
  void reset() {
    code_ = 0;
    detail_.clear();
  }

 private:
  int32_t code_ = 0;
  std::string detail_;
};

}  // namespace stackcheck::runtime
