// The one CHECK macro of the stack: aborts on a broken internal invariant, printing the
// condition and a message. Bad input never reaches it; it gets a diagnostic or a status.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace stackcheck::detail {
[[noreturn]] inline void check_failed(const char* cond, const char* msg, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", file, line, cond, msg);
  std::abort();
}
}  // namespace stackcheck::detail

#define STACK_CHECK(cond, msg)                                                         \
  do {                                                                                 \
    if (!(cond)) ::stackcheck::detail::check_failed(#cond, (msg), __FILE__, __LINE__); \
  } while (0)
