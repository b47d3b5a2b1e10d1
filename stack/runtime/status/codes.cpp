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
  CodeClass cls;
};

using enum CodeClass;
constexpr std::array<CodeEntry, 16> kCodes = {{
    {1, "SCOPE_DEADLOCK", kUsageError},
    {2, "HEAP_EXHAUSTED", kResourceLatch},
    {3, "TASK_WINDOW_EXHAUSTED", kResourceLatch},
    {4, "FANIN_OVERFLOW", kResourceLatch},
    {5, "INVALID_ARGS", kUsageError},
    {6, "DEPENDENCY_OVERFLOW", kRetired},
    {7, "SYNC_START_INVALID", kUsageError},
    {8, "TENSOR_WAIT_TIMEOUT", kUsageError},
    {9, "EXPLICIT_FATAL", kUsageError},
    {10, "SCOPE_TASKS_OVERFLOW", kResourceLatch},
    {11, "TENSORMAP_OVERFLOW", kResourceLatch},
    {100, "SCHEDULER_TIMEOUT", kDeviceInconsistency},
    {101, "COMPLETION_INVALID", kDeviceInconsistency},
    {102, "WAIT_OVERFLOW", kResourceLatch},
    {103, "WAIT_REGISTRATION_FAILED", kDeviceInconsistency},
    {104, "READY_QUEUE_OVERFLOW", kResourceLatch},
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

const char* code_class_name(CodeClass c) {
  switch (c) {
    case kResourceLatch: return "resource";
    case kUsageError: return "usage";
    case kDeviceInconsistency: return "device";
    case kRetired: return "retired";
  }
  return "?";
}

std::optional<CodeClass> code_class(int code) {
  if (const CodeEntry* e = find(code)) return e->cls;
  return std::nullopt;
}

bool is_resource_latch_status(int status) {
  const std::optional<int> code = status_to_code(status);
  return code && code_class(*code) == kResourceLatch;
}

std::optional<int> status_to_code(int status) {
  if (defects::active(defects::Defect::kStatusNegated)) {  // zoo: the inverse of N -> -N
    if (status >= 0 || status < -1000000 || !is_listed_code(-status)) return std::nullopt;
    return -status;
  }
  // Invert -(1000 + code) without overflow for any int status.
  if (status > -1000) return std::nullopt;
  int64_t code = -static_cast<int64_t>(status) - 1000;
  if (code > 1000000 || !is_listed_code(static_cast<int>(code))) return std::nullopt;
  return static_cast<int>(code);
}

}  // namespace stackcheck::runtime
