#include "properties/oracles/oracle.h"
#include "stack/support/enum_names.h"

#include <fmt/format.h>

namespace stackcheck::oracles {

const char* inconclusive_name(Inconclusive r) {
  static constexpr auto kNames = support::names_through<Inconclusive::kRuntimeRefused>({
      "none", "input-rejected", "interpreter-error", "interpreter-budget", "resource-latch",
      "unsupported", "runtime-refused"});
  return support::enum_name(kNames, r);
}

std::string Verdict::reason_key() const {
  if (reason == Inconclusive::kResourceLatch || reason == Inconclusive::kRuntimeRefused)
    return fmt::format("{}:{}", inconclusive_name(reason), code);
  return inconclusive_name(reason);
}

std::string Verdict::to_string() const {
  switch (kind) {
    case VerdictKind::Pass: return "pass";
    case VerdictKind::Fail: return fmt::format("fail [{}]: {}", rule, message);
    case VerdictKind::Inconclusive: return fmt::format("inconclusive [{}]: {}", reason_key(), message);
  }
  return "?";
}

}  // namespace stackcheck::oracles
