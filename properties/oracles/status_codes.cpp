// The oracles' own table of status codes (status_codes.h).
#include "properties/oracles/status_codes.h"

namespace stackcheck::oracles {

std::optional<int> latch_code(int32_t status) {
  // RUNTIME.md §13: code c maps to -(1000 + c).
  const int64_t c = -static_cast<int64_t>(status) - 1000;
  if ((c >= 1 && c <= 11) || (c >= 100 && c <= 104)) return static_cast<int>(c);
  return std::nullopt;
}

bool config_bound_code(int code) {
  switch (code) {
    case 2: case 3: case 4: case 10: case 11: case 102: case 104: return true;
    default: return false;
  }
}

bool config_bound_status(int32_t status) {
  const std::optional<int> c = latch_code(status);
  return c && config_bound_code(*c);
}

bool latched_as_planted(int32_t status, int planted) {
  const std::optional<int> c = latch_code(status);
  return c && ((planted != 0 && *c == planted) || config_bound_code(*c));
}

}  // namespace stackcheck::oracles
