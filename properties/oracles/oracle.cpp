#include "properties/oracles/oracle.h"

#include <fmt/format.h>

namespace stackcheck::oracles {

std::string Verdict::to_string() const {
  switch (kind) {
    case VerdictKind::Pass: return "pass";
    case VerdictKind::Fail: return fmt::format("fail [{}]: {}", rule, message);
    case VerdictKind::Inconclusive: return fmt::format("inconclusive [{}]: {}", rule, message);
  }
  return "?";
}

}  // namespace stackcheck::oracles
