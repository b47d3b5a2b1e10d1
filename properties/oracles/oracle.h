// Verdicts shared by every oracle (HARNESS.md §2): pass, fail (naming the rule) or
// inconclusive with a typed reason (the input lies outside the oracle's domain). Inconclusive
// never counts as a pass: properties discard it and count it per reason, and a property whose
// inconclusive share passes its bound fails (properties/property.h). Callers branch on kind
// and reason, never on message text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stackcheck::oracles {

enum class VerdictKind { Pass, Fail, Inconclusive };

// Why an oracle could not judge.
enum class Inconclusive : uint8_t {
  kNone,               // not inconclusive
  kInputRejected,      // the pipeline (or a parser) rejected the input with diagnostics
  kInterpreterError,   // the reference interpreter errs on the original (zero divisor, bounds)
  kInterpreterBudget,  // the interpreter's statement budget ran out
  kResourceLatch,      // the runtime latched a resource code (code = the RUNTIME.md §13 code)
  kUnsupported,        // the runtime refused the configuration (status -2)
  kRuntimeRefused,     // the runtime ended with another nonzero status the oracle cannot
                       // judge (code = the status), e.g. a usage latch the input asked for
};
const char* inconclusive_name(Inconclusive r);

struct Verdict {
  VerdictKind kind = VerdictKind::Pass;
  std::string rule;     // fail: the rule or oracle that failed
  std::string message;  // one readable line
  Inconclusive reason = Inconclusive::kNone;
  int32_t code = 0;  // kResourceLatch: the latched code

  static Verdict pass() { return {}; }
  static Verdict fail(std::string rule, std::string message) {
    return {VerdictKind::Fail, std::move(rule), std::move(message), Inconclusive::kNone, 0};
  }
  static Verdict inconclusive(Inconclusive reason, std::string message, int32_t code = 0) {
    return {VerdictKind::Inconclusive, inconclusive_name(reason), std::move(message), reason, code};
  }
  bool failed() const { return kind == VerdictKind::Fail; }
  bool passed() const { return kind == VerdictKind::Pass; }
  bool inconclusive() const { return kind == VerdictKind::Inconclusive; }
  // The key inconclusive verdicts are counted under: the reason, and for a resource latch
  // its code ("resource-latch:2").
  std::string reason_key() const;
  std::string to_string() const;
};

// Whether `figures` occur, in this order, among the decimal integers of `text` (a '-' right
// before digits is their sign): a refusal stating the values an oracle predicted.
bool states_in_order(const std::string& text, const std::vector<int64_t>& figures);

}  // namespace stackcheck::oracles
