// End-to-end oracle (HARNESS.md §2.5): the reference interpreter on the original program ==
// the device result of the compiled program bound, uploaded and scheduled by the runtime,
// byte for byte, under a given schedule. Also checks the bind's structural figures on
// completed runs: exactly one image copy, and every shipped image byte read.
#pragma once

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/oracle.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/ast.h"
#include "stack/passes/pipeline.h"
#include "stack/runtime/device/scheduler.h"
#include "stack/runtime/host/bind.h"

#include <optional>
#include <string>

namespace stackcheck::oracles {

// "threaded", "random:SEED", "newest", "oldest", "pct:SEED[:DEPTH]" (DEPTH 1..16, default 3)
// -> options; nullopt on anything else.
std::optional<runtime::ScheduleOptions> parse_schedule(const std::string& text);
std::string schedule_text(const runtime::ScheduleOptions& s);

struct EndToEndRun {
  Verdict verdict;
  std::string plan_text;     // the orchestration program bound (for reports)
  runtime::BindResult bind;  // the runtime's outcome
};

// Compiles `p` (the whole pipeline + codegen), binds it with `seed` inputs under `schedule`
// and compares every entry tensor with interp(p, seed).
//   inconclusive: the pipeline rejects p, the interpreter errs on p, or the runtime latches a
//                 resource code (runtime::is_resource_latch_status: the code table's class);
//   fail:         codegen rejects a legal program, any other nonzero status, h2d != 1,
//                 image_read != image, or a byte differs (naming tensor and element).
// `config` becomes the plan's `config` line (RuntimeConfig overrides, e.g. a small W, which
// makes a bind ten times cheaper than the default W=16384 mirror).
EndToEndRun check_end_to_end(const ir::Program& p, uint64_t seed, const runtime::ScheduleOptions& schedule,
                             const passes::PipelineOptions& pipeline = {},
                             const std::vector<runtime::ConfigEntry>& config = {});

// check_end_to_end's judgement of a bind already made: `r` the bind of compiled.plan (under
// the config and schedule `context` names), `expected` interp(p, seed). Lets one bind serve
// this oracle and the others (the fuzz targets bind once per input).
Verdict judge_end_to_end(const CompiledPlan& compiled, const interp::Outputs& expected, const runtime::BindResult& r,
                         const std::string& context);

// The differential comparison itself: every entry tensor's bytes equal; a failure names the
// first differing tensor and element with both values.
Verdict compare_entries(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& expected,
                        const std::vector<runtime::EntryResult>& actual, const std::string& context);

// The device's entry tensors under their IR names: plan entry tensor i (register `t<i>`)
// is IR entry param cg.entry_names[i]. An entry the plan does not declare keeps its name,
// so the comparison then reports it.
std::vector<runtime::EntryResult> with_ir_names(std::vector<runtime::EntryResult> entries,
                                                const runtime::OrchProgram& plan,
                                                const std::vector<std::string>& entry_names);

}  // namespace stackcheck::oracles
