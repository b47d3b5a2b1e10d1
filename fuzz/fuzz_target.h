// Shared plumbing of the fuzz targets: how a target reports an oracle failure (a finding).
// libFuzzer treats abort() as a crash and saves the input; the replay driver sees the same
// abort, so ctest fails on the same file. The message names the oracle and the rule.
#pragma once

#include "properties/oracles/oracle.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace stackcheck::fuzz {

[[noreturn]] inline void report_finding(const char* target, const oracles::Verdict& v) {
  std::fprintf(stderr, "\n# stackcheck %s\n# oracle failed: %s\n", target, v.to_string().c_str());
  std::fflush(stderr);
  std::abort();
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// True when the input is the readable text form: first line starts with "# stackcheck".
inline bool is_text_form(std::string_view in) { return in.rfind("# stackcheck", 0) == 0; }

}  // namespace stackcheck::fuzz
