// Names and the status mapping of the runtime error codes (RUNTIME.md §13).
#include "stack/runtime/status/codes.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace stackcheck::runtime {
namespace {

struct CodeEntry {
  int32_t code;
  const char* name;
};

constexpr std::array<CodeEntry, 16> kCodes = {{
    {1, "SCOPE_DEADLOCK"},
    {2, "HEAP_EXHAUSTED"},
    {3, "TASK_WINDOW_EXHAUSTED"},
    {4, "FANIN_OVERFLOW"},
    {5, "INVALID_ARGS"},
    {6, "DEPENDENCY_OVERFLOW"},
    {7, "SYNC_START_INVALID"},
    {8, "TENSOR_WAIT_TIMEOUT"},
    {9, "EXPLICIT_FATAL"},
    {10, "SCOPE_TASKS_OVERFLOW"},
    {11, "TENSORMAP_OVERFLOW"},
    {100, "SCHEDULER_TIMEOUT"},
    {101, "COMPLETION_INVALID"},
    {102, "WAIT_OVERFLOW"},
    {103, "WAIT_REGISTRATION_FAILED"},
    {104, "READY_QUEUE_OVERFLOW"},
}};

constexpr std::array<int32_t, kCodes.size()> kCodeValues = [] {
  std::array<int32_t, kCodes.size()> v{};
  for (size_t i = 0; i < kCodes.size(); ++i) v[i] = kCodes[i].code;
  return v;
}();

const CodeEntry* find(int code) {
  auto it = std::find_if(kCodes.begin(), kCodes.end(), [code](const CodeEntry& e) { return e.code == code; });
  return it == kCodes.end() ? nullptr : &*it;
}

}  // namespace

std::span<const int32_t> all_codes() { return kCodeValues; }

bool is_listed_code(int code) { return find(code) != nullptr; }

std::string code_name(int code) {
  if (code == 0) return "NONE";
  if (const CodeEntry* e = find(code)) return e->name;
  return fmt::format("UNKNOWN({})", code);
}

std::optional<int> status_to_code(int status) {
  // Invert -(1000 + code) without overflow for any int status.
  if (status > -1000) return std::nullopt;
  int64_t code = -static_cast<int64_t>(status) - 1000;
  if (code > 1000000 || !is_listed_code(static_cast<int>(code))) return std::nullopt;
  return static_cast<int>(code);
}

}  // namespace stackcheck::runtime
