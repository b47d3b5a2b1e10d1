// Bind: the public entry point of the runtime (RUNTIME.md §10). bind_plan takes an
// orchestration program (parsed `.plan`, codegen output or a generated bind plan) and runs
// the host half of the runtime on a fresh simulated device:
//   validate -> RuntimeConfig from the `config` lines (rejected: status -2) -> Runtime
//   (heaps reserved once) -> entry tensors reserved `entry:<name>`, filled from the seed
//   (splitmix64, one draw per element) and uploaded one copy each -> root scope + program +
//   scope end, done -> on a latch return map(code) with nothing planned, reserved or copied
//   -> plan, grow the region, stage [RuntimeHeader][image], compact, apply `mutate` lines
//   -> ONE copy_to_device -> attach_populated -> error words and InOut entries read back.
// Scheduling is not part of this runtime yet: a successful bind is "uploaded and attached",
// so entry results equal their inputs.
// Statuses (§13): 0 ok; -(1000+code) for a latched code; -1 generic (detail names the plan,
// compaction, attach or device error); -2 a rejected RuntimeConfig or a statement this
// runtime does not support yet (submit_graph).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stack/runtime/host/orch_program.h"
#include "stack/runtime/status/bind_stats.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::runtime {

struct BindOptions {
  uint64_t seed = 0;                    // entry-tensor inputs (COMPILER.md §7)
  std::optional<uint8_t> fill_byte;     // device memory fill; overrides config fill_byte
  bool strict_uninit = false;           // device reads of never-written bytes fault
  uint64_t max_statements = 10'000'000;  // orchestration budget (loops included)
};

// The final bytes of one entry tensor (little-endian i32, row-major), like the reference
// interpreter's outputs: InOut tensors as read back from the device, In tensors as uploaded.
struct EntryResult {
  std::string name;
  bool inout = false;
  std::vector<uint8_t> bytes;
  bool operator==(const EntryResult&) const = default;
};

struct BindResult {
  int status = kStatusOk;
  std::string detail;                 // why, for every nonzero status
  BindStats stats;
  std::vector<EntryResult> entries;   // on status 0 only, in declaration order
};

// Binds `p` on a fresh DeviceMemory + Runtime configured by p.config (and opts.fill_byte).
BindResult bind_plan(const OrchProgram& p, const BindOptions& opts = {});

// "status=<S> <NAME>" (ARCHITECTURE.md, CLI conventions): OK, the code's code_name,
// "GENERIC <detail>" or "UNSUPPORTED".
std::string status_line(const BindResult& r);

}  // namespace stackcheck::runtime
