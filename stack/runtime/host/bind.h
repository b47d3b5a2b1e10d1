// Bind: the public entry point of the runtime (RUNTIME.md §10). bind_plan takes an
// orchestration program (parsed `.plan`, codegen output or a generated bind plan) and runs
// the host half of the runtime on a fresh simulated device:
//   validate -> RuntimeConfig from the `config` lines (rejected: status -2) -> Runtime
//   (heaps reserved once) -> entry tensors reserved `entry:<name>`, filled from the seed
//   (splitmix64, one draw per element) and uploaded one copy each -> root scope + program +
//   scope end, done -> on a latch return map(code) with nothing planned, reserved or copied
//   -> plan, grow the region, stage [RuntimeHeader][image][submissions], compact -> the
//   before-upload hook, if a harness set one -> ONE copy_to_device -> attach_populated ->
//   error words and InOut entries read back.
// The runtime never applies a plan's `mutate` lines: they are the harness's data, applied
// through the before-upload hook (properties/oracles/image_mutation.h).
// Step 9 then runs the device scheduler (device/scheduler.h) on the attached image, in the
// mode of BindOptions::schedule, and reads the error words back in one D2H: a scheduler code
// maps to -(1000+code), a DeviceFault or kernel error to -1 with the fault as detail.
// Graphs (§9): definitions recorded on a key miss are uploaded in step 6 (def_h2d, one copy
// each) and their submissions staged after the image in the same single copy.
// Statuses (§13): 0 ok; -(1000+code) for a latched code; -1 generic (detail names the plan,
// compaction, attach or device error); -2 a rejected RuntimeConfig.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stack/runtime/device/attach.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/runtime/plan/program.h"
#include "stack/runtime/status/bind_stats.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::runtime {

// What the before-upload hook sees: bind step 7 is done (staging, compaction), the one image
// copy of step 8 is next.
struct StagedUpload {
  std::span<std::byte> bytes;  // [RuntimeHeader][image][pad][submissions]: the copy's source
  uint64_t image_offset = 0;   // the ImageHeader's offset within `bytes`
  uint64_t image_bytes = 0;    // the compacted image; the submissions follow at ALIGN64
  DevAddr destination;         // where the copy lands (the RuntimeHeader's device address)
  HostLink& link;              // the Runtime's own link: copies made through it are its copies
};

// A test seam for harnesses (corrupt images, `mutate` lines, an extra copy), never set by the
// runtime itself. It may rewrite `bytes` and copy through `link`. nullopt lets the bind go
// on; a message stops it before the copy, with status -1 and that message as the detail.
using BeforeUploadHook = std::function<std::optional<std::string>(StagedUpload&)>;

struct BindOptions {
  uint64_t seed = 0;                     // entry-tensor inputs (COMPILER.md §7)
  std::optional<uint8_t> fill_byte;      // device memory fill; overrides config fill_byte
  bool strict_uninit = false;            // device reads of never-written bytes fault
  uint64_t max_statements = 10'000'000;  // orchestration budget (loops included)
  // Step 9's scheduler: mode, Random seed; workers / progress_timeout_ms 0 = the
  // RuntimeConfig's (`config workers=`, `progress_timeout_ms=`).
  ScheduleOptions schedule;
  BeforeUploadHook before_upload;  // empty: upload what was staged
};

// The final bytes of one entry tensor (little-endian i32, row-major), like the reference
// interpreter's outputs: InOut tensors as read back from the device, In tensors as uploaded.
struct EntryResult {
  std::string name;
  bool inout = false;
  std::vector<uint8_t> bytes;
  bool operator==(const EntryResult&) const = default;
};

// Where a bind stopped, typed, so that callers never parse `detail`.
enum class BindFailure : uint8_t {
  kNone,         // status 0
  kInvalidPlan,  // validate_plan rejected the program (-1)
  kConfig,       // the RuntimeConfig was rejected (-2)
  kBudget,       // the orchestration budget ran out (-1)
  kLatched,      // the orchestrator latched a code before upload (-(1000+code))
  kCompaction,   // compact_live_image refused (-1)
  kHook,         // the before-upload hook stopped the bind (-1)
  kAttach,       // attach_populated rejected the image (-1, attach_class)
  kScheduler,    // the scheduler latched a code (-(1000+code))
  kKernelFault,  // a builtin's access through its tensor args faulted, or it refused its
                 // args (-1): contained by device memory, the runtime's records were sound
  kDeviceFault,  // a DeviceFault in the runtime's own accesses (records, host steps) (-1)
};
const char* bind_failure_name(BindFailure f);

struct BindResult {
  int status = kStatusOk;
  std::string detail;  // why, for every nonzero status
  BindFailure failure = BindFailure::kNone;
  std::optional<AttachErrorClass> attach_class;  // failure == kAttach
  BindStats stats;
  std::vector<EntryResult> entries;  // on status 0 only, in declaration order
  std::vector<TraceEntry> trace;     // units in dispatch order (empty if nothing ran)
  uint64_t pct_steps = 0;            // schedule pct: the scheduling points its run took
};

// Binds `p` on a fresh DeviceMemory + Runtime configured by p.config (and opts.fill_byte).
BindResult bind_plan(const OrchProgram& p, const BindOptions& opts = {});

// "status=<S> <NAME>" (ARCHITECTURE.md, CLI conventions): OK, the code's code_name,
// "GENERIC <detail>" or "UNSUPPORTED".
std::string status_line(const BindResult& r);

}  // namespace stackcheck::runtime
