// Result digests for the determinism checks (issue: the same input gives the same result
// twice, in one process and across processes): what a run produced, folded into one
// FNV-1a-64 value (stack/support/fnv1a.h). A bind's digest covers what an observer outside
// the runtime sees: the status, the failure kind and attach class, the figures of BindStats
// (counted by the device memory), every entry tensor's bytes, and the shipped bytes as the
// copy carried them. Not the dispatch trace: the threaded scheduler may order independent
// tasks differently from run to run, and the result must not depend on that order.
// No RapidCheck, nothing printed.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "stack/ir/ast.h"
#include "stack/runtime/host/bind.h"
#include "stack/support/fnv1a.h"

namespace stackcheck::oracles {

inline uint64_t digest_text(uint64_t h, std::string_view s) {
  h = support::fnv1a64(h, s.data(), s.size());
  return support::fnv1a64(h, "\0", 1);  // a separator: "ab","c" differs from "a","bc"
}
inline uint64_t digest_u64(uint64_t h, uint64_t v) { return support::fnv1a64(h, &v, sizeof v); }

// The bind as seen from outside (above); `staged`: the copied bytes (empty: not captured).
uint64_t digest_bind(uint64_t h, const runtime::BindResult& r, std::span<const std::byte> staged = {});
// The program's canonical print.
uint64_t digest_program(uint64_t h, const ir::Program& p);

}  // namespace stackcheck::oracles
