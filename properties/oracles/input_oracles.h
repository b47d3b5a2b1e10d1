// Verdicts of properties whose check used to be repeatable only by rerunning the property,
// as oracles over the input text alone, so that the shrunk counterexample a property writes
// is replayed by `stackcheck replay` (replay.h) and kept in the corpus:
//   boundary (.gir)       COMPILER.md §8.2-§8.4 and Step C on the legalized program
//   rejection (.gir)      the pipeline rejects the input in LegalizeGraphBoundary with a code
//   latch (.plan)         RUNTIME.md §15.7: a latched bind uploads nothing, status of the first code
//   compaction (.plan)    §15.2: compaction's live prefix and its violated preconditions
//   corrupt-image (.plan) §11: an image with `mutate` lines is rejected by attach or runs safely
//   relative-ptr (.plan)  §3: the offset API on one (field, target) pair of the replay line
// Every figure is derived here from RUNTIME.md/COMPILER.md, never taken from the code under
// test (e.g. the latch oracle computes -(1000 + code) itself). No RapidCheck, nothing printed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/oracle.h"
#include "stack/ir/ast.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/orchestrator.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// boundary: the pipeline passes (else its verdict), then per graph the pass's node count is
// the verifier's (§8.4), every hoisted create comes from depth 0 and is InOut (§8.2), every
// written tensor param is InOut (§8.3); with Step C no create is left at loop depth 0 in a
// graph (§5.3 Step C), without it none is hoisted.
Verdict check_boundary(const ir::Program& p, bool step_c);
// The same judgement of a pipeline run already made with that Step C setting.
Verdict check_boundary_run(const PipelineRun& run, bool step_c);

// rejection: LegalizeGraphBoundary rejects p with a diagnostic of `code` (an input the
// generator made illegal on purpose). Anything else, acceptance included, fails.
Verdict check_rejected(const ir::Program& p, int code);

// latch: `c` is a bind that must latch `first_code` (1..11) first: its status is
// -(1000 + first_code) (RUNTIME.md §13), and nothing was copied, shipped or reserved (§15.7).
Verdict check_latched(const Captured& c, int first_code);
// The same on a fresh bind of `p` (0xAA device memory).
Verdict check_latched_plan(const runtime::OrchProgram& p, int first_code);

// compaction: violates one precondition of compact_live_image on the mirror `b` just bound
// (0: n > W, 1: tensor cursor, 2: fanin cursor, 3: payload stride, 4: out size, each by `by`;
// 5: a mirror layout that is not the planner's, another window's when `by` is odd, else one
// segment moved by a line; 6: one bound pool delta of a copy of the mirror re-aimed off its
// pool's elements, before the pool, at the cursor or past a scalar line start, `by` picking the
// task, field and way) and requires its own error, stating the figures at fault (n and W, the
// cursors and capacities, the stride and the record size). Reads only what `b` holds.
Verdict check_compaction_precondition(Bench& b, uint64_t image_bytes, unsigned which, uint64_t by);
// Precondition 6 on its own, through `compact` (stack_compact(): compact_live_image): one bound
// pool delta of a copy of `mirror` (o's, just bound) re-aimed; `by` picks the task, the field
// and the way (0 half an element off, 1 one element before the pool, 2 at the cursor, 3 one
// element past a scalar line start or at the next segment). It must be refused as kBadPoolRef
// naming "task I FIELD". nullopt when no task has a bound pool delta.
using CompactRun = std::function<std::optional<runtime::CompactError>(
    std::span<const std::byte> mirror, const runtime::MirrorLayout&, runtime::PoolCounts, uint64_t n,
    std::span<std::byte> out)>;
CompactRun stack_compact();
std::optional<Verdict> check_compaction_pool_ref(const runtime::Orchestrator& o, std::span<const std::byte> mirror,
                                                 uint64_t image_bytes, uint64_t by, const CompactRun& compact);
// Binds `p` (a completed bind is required), checks the live prefix, then `which` (or every
// precondition when nullopt, the payload stride first) with `by`.
Verdict check_compaction_plan(const runtime::OrchProgram& p, std::optional<unsigned> which, uint64_t by);

// corrupt-image: the judgement of a bind of a corrupted image is judge_corrupt_bind
// (attach_model.h): the outcome contained, attach's class the model's, the accepted graph
// blocks, the fanin prediction.
// Binds `p` with its mutate lines (newest schedule, no strict uninitialised reads).
// With `expect` (an attach class name, e.g. BadGraphContext) the image is a near miss that
// breaks one stated rule: attach must reject it with that class.
Verdict check_corrupt_plan(const runtime::OrchProgram& p, const std::string& expect = "");
// The near-miss judgement itself, of a bind already made.
Verdict check_rejected_as(const runtime::BindResult& r, const std::string& expect);

// relative-ptr: delta_for/set_at/resolve_offset on (field, target): bound exactly when the
// difference is nonzero and within int32, then exact; never truncated.
Verdict check_offset_pair(uint64_t field, uint64_t target);

}  // namespace stackcheck::oracles
