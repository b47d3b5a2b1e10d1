// Runtime error codes and the status mapping (RUNTIME.md §13).
// Invariant: to_status is injective over the listed codes, always negative, never one of the
// reserved statuses 0/-1/-2/-3, and status_to_code inverts it exactly. The codes are latched
// in 32-bit error words of the image header, so every code fits an int32.
// This unit only names and maps codes; it never prints.
#pragma once

#include "stack/defects/defects.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

namespace stackcheck::runtime {

// Orchestrator codes 1..11 (host, latched in ImageHeader::orch_error) and scheduler codes
// 100..104 (device, CAS'd into ImageHeader::sched_error). 0 = no error.
enum class ErrorCode : int32_t {
  kNone = 0,
  kScopeDeadlock = 1,
  kHeapExhausted = 2,
  kTaskWindowExhausted = 3,
  kFaninOverflow = 4,
  kInvalidArgs = 5,
  kDependencyOverflow = 6,  // retired: named and mapped, never latched
  kSyncStartInvalid = 7,
  kTensorWaitTimeout = 8,
  kExplicitFatal = 9,
  kScopeTasksOverflow = 10,
  kTensormapOverflow = 11,
  kSchedulerTimeout = 100,
  kCompletionInvalid = 101,
  kWaitOverflow = 102,
  kWaitRegistrationFailed = 103,
  kReadyQueueOverflow = 104,
};

// What a code says about the run that latched it, so a harness can tell "the program met a
// capacity of this runtime" (inconclusive for a program the compiler accepted, HARNESS.md §2)
// from "the program or the stack is wrong":
//   kResourceLatch      a capacity was exceeded by a program that is otherwise valid: the
//                       configured heaps, task window, scope-task lists, tensormap and ready
//                       ring (2, 3, 10, 11, 104), and the model's per-task fanin and per-producer
//                       waiter limits (4, 102), which depend on the derived dependencies,
//                       not on how an API call was written.
//   kUsageError         the program used the orchestrator API against its contract: bad
//                       arguments (5), scopes left unbalanced or nested past 64 (1), a
//                       sync_start past the clusters (7), wait_tensor (8), fatal() (9).
//   kDeviceInconsistency the device found its records inconsistent while scheduling: work
//                       that can never become ready, or (threaded) no completion within
//                       progress_timeout_ms (100), a completion out of state (101), a fanin
//                       naming an impossible producer (103). A valid image on a correct stack
//                       never gets one.
//   kRetired            named and mapped, never latched (6).
enum class CodeClass : uint8_t { kResourceLatch, kUsageError, kDeviceInconsistency, kRetired };
const char* code_class_name(CodeClass c);  // "resource", "usage", "device", "retired"

// Every listed (nonzero) code, ascending: 1..11 then 100..104.
std::span<const int32_t> all_codes();
bool is_listed_code(int code);
constexpr int32_t code_value(ErrorCode c) { return static_cast<int32_t>(c); }

// "SCOPE_DEADLOCK", ..., "READY_QUEUE_OVERFLOW"; "NONE" for 0; "UNKNOWN(c)" otherwise.
std::string code_name(int code);

// Statuses returned by bind (BindResult::status).
inline constexpr int kStatusOk = 0;
inline constexpr int kStatusGeneric = -1;      // no code applies; detail names the error
inline constexpr int kStatusUnsupported = -2;  // only for a rejected RuntimeConfig
inline constexpr int kStatusNeverReturned = -3;

// code -> -(1000 + code): -1001..-1011 and -1100..-1104.
constexpr int to_status(int code) {
  // Zoo: the old mapping N -> -N, onto the reserved -1, -2, -3.
  if (!std::is_constant_evaluated() && defects::active(defects::Defect::kStatusNegated)) return -code;
  return -(1000 + code);
}
constexpr int to_status(ErrorCode c) { return to_status(code_value(c)); }

// Inverse of to_status for listed codes; nullopt for any other status (0, -1, -2, ...).
std::optional<int> status_to_code(int status);

// The class of a listed code; nullopt for 0 and unlisted codes.
std::optional<CodeClass> code_class(int code);
// True exactly for the statuses -(1000 + c) of the kResourceLatch codes.
bool is_resource_latch_status(int status);

}  // namespace stackcheck::runtime
