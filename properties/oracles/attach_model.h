// An independent model of attach (RUNTIME.md §4, §5, §9, §11), so the corrupt-image oracles
// predict the outcome of a corrupted upload instead of accepting any of several (HARNESS.md §8
// "oracles that predict"). Written from the spec: it decodes the shipped bytes on the host with
// its own field offsets and layout arithmetic (not records.h, LayoutPlanner or attach's code),
// and asks device memory only what the bytes cannot say: which ranges are mapped, which
// reservations hold graph definitions, and a definition's bytes (DeviceMemory::inspect, an
// observation that marks nothing read). Its answer is the §11 class of the first violated
// check in §11's order, or acceptance. No RapidCheck here (oracles/ rule).
//
// Where §11's table is less precise than a rule needs, the model follows the order and
// readings RUNTIME.md's prose and attach's documented contract fix (attach.h):
//   - the image must open right after the RuntimeHeader (§5) before its header is read:
//     BadLayout, judged before the image header's magic;
//   - the device-only zone must hold SchedControl (64 B) and a ring of Q u64 entries before the
//     RuntimeHeader, Q > 0 (TooLarge), and open the region (BadLayout);
//   - DirtyPadding covers the submissions zone's padding too (§15.5): from the image's end to
//     the first record and between records, walked as records are placed (one per GRAPH task,
//     ALIGN64 apart) up to the first record that BadGraphContext will reject;
//   - BadGraphContext: a GRAPH task's graph_ctx is its own record (in task order, ALIGN64
//     apart, from the zone's start), record_bytes = 48 + 64 n_bt + 8 n_bs inside the zone,
//     outer_id its id; the definition outside the region and the heaps, mapped, valid, its
//     hash and counts the submission's and payload's; the graph-heap block 64-aligned inside
//     the graph heap and at least required_heap + args + storage; a non-GRAPH task's graph_ctx
//     0; as many records as the header's GRAPH count, and the zone ending with the last one.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "properties/oracles/image_checks.h"
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/oracle.h"
#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/host/bind.h"

namespace stackcheck::oracles {

struct AttachPrediction {
  // The §11 class name attach must report ("BadMagic" ... "LatchedError"), or empty when the
  // image must be accepted.
  std::string rejected;
  std::string why;  // the first rule the model found broken (or "accepted")
  // The figures attach's refusal must state, in this order among the integers of its detail
  // (the task, the values found, the values expected); empty: not predicted for the rule.
  std::vector<int64_t> figures;
  bool accepts() const { return rejected.empty(); }
};

// `staged`: the bytes of the one image copy as shipped ([RuntimeHeader][image][submissions]),
// landed at `destination` (the RuntimeHeader's device address); `mem`: the device memory they
// were copied into. nullopt (with *unknown saying why) when the model cannot tell: a rule it
// must judge reads bytes outside the shipped range, or a definition address not a definition's
// start holds the definition magic.
std::optional<AttachPrediction> predict_attach(std::span<const std::byte> staged, runtime::DevAddr destination,
                                               const runtime::DeviceMemory& mem, std::string* unknown = nullptr);

// The bind's outcome against the prediction: a predicted class must be attach's class exactly,
// its detail stating the predicted figures;
// a predicted acceptance must not end in attach (what runs after is judged by
// check_corrupt_image_run). Fails "attach-model".
Verdict check_attach_prediction(const AttachPrediction& p, const runtime::BindResult& r);

// The one judgement of a bind of a corrupted upload, shared by the corrupt-image property,
// fuzz_attach and the corrupt-image replay (check_corrupt_plan), so they cannot drift:
// check_corrupt_image_run, then the model's prediction (where it can tell), then
// check_accepted_graph_blocks, then the fanin prediction (where the corruption is confined to
// the fanin entries). `mem` is the device memory the bind ran on; `muts` the applied changes.
struct CorruptJudgement {
  std::vector<Verdict> verdicts;             // in the order above, each judged
  std::optional<AttachPrediction> predicted;  // nullopt: the model could not tell (unknown says why)
  std::string unknown;
  std::optional<FaninPrediction> fanin;
  // The first verdict that did not pass, else a pass.
  Verdict first_failure() const;
};
CorruptJudgement judge_corrupt_bind(const Captured& c, const runtime::DeviceMemory& mem,
                                    std::span<const runtime::Mutation> muts);

}  // namespace stackcheck::oracles
