// The oracles' own table of status codes (status_codes.h).
#include "properties/oracles/status_codes.h"

namespace stackcheck::oracles {

std::string_view spec_code_name(int code) {
  switch (code) {
    case 1: return "SCOPE_DEADLOCK";
    case 2: return "HEAP_EXHAUSTED";
    case 3: return "TASK_WINDOW_EXHAUSTED";
    case 4: return "FANIN_OVERFLOW";
    case 5: return "INVALID_ARGS";
    case 6: return "DEPENDENCY_OVERFLOW";
    case 7: return "SYNC_START_INVALID";
    case 8: return "TENSOR_WAIT_TIMEOUT";
    case 9: return "EXPLICIT_FATAL";
    case 10: return "SCOPE_TASKS_OVERFLOW";
    case 11: return "TENSORMAP_OVERFLOW";
    case 100: return "SCHEDULER_TIMEOUT";
    case 101: return "COMPLETION_INVALID";
    case 102: return "WAIT_OVERFLOW";
    case 103: return "WAIT_REGISTRATION_FAILED";
    case 104: return "READY_QUEUE_OVERFLOW";
    default: return "";
  }
}

std::optional<int> latch_code(int32_t status) {
  // RUNTIME.md §13: code c maps to -(1000 + c), for the codes it lists.
  const int64_t c = -static_cast<int64_t>(status) - 1000;
  if (c < 1 || c > 104 || spec_code_name(static_cast<int>(c)).empty()) return std::nullopt;
  return static_cast<int>(c);
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
