// Verdicts shared by every oracle (HARNESS.md §2): pass, fail (naming the rule) or
// inconclusive (input outside the oracle's domain). Inconclusive never counts as a pass.
#pragma once

#include <string>

namespace stackcheck::oracles {

enum class VerdictKind { Pass, Fail, Inconclusive };

struct Verdict {
  VerdictKind kind = VerdictKind::Pass;
  std::string rule;     // the rule or oracle that failed / made it inconclusive
  std::string message;  // one readable line

  static Verdict pass() { return {}; }
  static Verdict fail(std::string rule, std::string message) {
    return {VerdictKind::Fail, std::move(rule), std::move(message)};
  }
  static Verdict inconclusive(std::string rule, std::string message) {
    return {VerdictKind::Inconclusive, std::move(rule), std::move(message)};
  }
  bool failed() const { return kind == VerdictKind::Fail; }
  bool passed() const { return kind == VerdictKind::Pass; }
  std::string to_string() const;
};

}  // namespace stackcheck::oracles
