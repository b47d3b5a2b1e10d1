#include "properties/oracles/oracle.h"

#include <fmt/format.h>

namespace stackcheck::oracles {

const char* inconclusive_name(Inconclusive r) {
  switch (r) {
    case Inconclusive::kNone: return "none";
    case Inconclusive::kInputRejected: return "input-rejected";
    case Inconclusive::kInterpreterError: return "interpreter-error";
    case Inconclusive::kInterpreterBudget: return "interpreter-budget";
    case Inconclusive::kResourceLatch: return "resource-latch";
    case Inconclusive::kUnsupported: return "unsupported";
    case Inconclusive::kRuntimeRefused: return "runtime-refused";
  }
  return "?";
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
