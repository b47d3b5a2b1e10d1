// Image mutation (HARNESS.md §1 "image bytes", §4 fuzz_attach): a plan's `mutate` lines
// applied to the staged upload through the bind's before-upload hook (host/bind.h), so the
// runtime itself never carries a corruption path. `mutate OFF VAL` sets byte OFF counted
// from the ImageHeader (the image, then the graph submissions); `mutate header OFF VAL` sets
// byte OFF of the RuntimeHeader. Lines apply in order; every offset is checked before any
// byte changes, so an offset past its target stops the bind (status -1) with nothing
// uploaded and a message naming the line. No RapidCheck here (oracles/ rule).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "properties/oracles/oracle.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// HARNESS.md §3 "attach rejects or safely runs every corrupted image", for the bind of an
// upload the hook changed: attach rejects it with a class, or the run ends in a scheduler or
// device code, or runs to completion, or a builtin faults on the corrupt tensor args it was
// handed (contained by device memory: attach does not vouch for what a TensorArg points at,
// RUNTIME.md §11, §12). Fails: "attach-class" (an attach failure without a class or a class
// without one), "device-fault" (a DeviceFault in the runtime's own accesses: a record attach
// accepted must be followable), "corrupt-image" (any other failure: compaction, the hook).
Verdict check_corrupt_image_run(const runtime::BindResult& r);

// The outcome RUNTIME.md §11-§12 fix for a corruption confined to the fanin pool's entries,
// predicted from the corrupted upload (`staged`, the RuntimeHeader then the image; `muts` as
// applied to it): attach reads none of those entries, so it must accept the image, and the
// scheduler's classification reads every entry of every task. A task's entry that now names
// no earlier task (negative, the task itself or later, or past n) is WAIT_REGISTRATION_FAILED
// (103). nullopt when a change lies outside the entries or the image cannot be decoded.
struct FaninPrediction {
  bool invalid_entry = false;     // some touched entry names no earlier task: 103 is due
  bool other_touched = false;     // a touched entry still names an earlier task (a dependency
                                  // may be gone: a consumer may run early and read unwritten bytes)
  std::string what;               // the first invalid entry, for messages
  unsigned invalid_entries = 0;   // touched entries that name no earlier task
  // With exactly one invalid entry and nothing else touched, the reason scheduler code 103
  // states (RUNTIME.md §12 Classify): its task, its index in the task's fanin, the producer
  // it names and n.
  std::string reason;
};
std::optional<FaninPrediction> predict_fanin_corruption(std::span<const std::byte> staged, uint64_t image_offset,
                                                        std::span<const runtime::Mutation> muts);
// The bind's outcome against the prediction: an invalid entry with nothing else touched is
// exactly scheduler code 103, whose detail ends with the predicted reason when that entry is
// the only invalid one; with other entries touched, 103 or a contained kernel fault
// (a consumer released early); no invalid entry, a completed run or a contained kernel fault.
// Fails "fanin-prediction".
Verdict check_fanin_prediction(const FaninPrediction& p, const runtime::BindResult& r);

// Applies `mutations` to `up.bytes`; nullopt on success, else why none was applied.
std::optional<std::string> apply_mutations(std::span<const runtime::Mutation> mutations, runtime::StagedUpload& up);

// The hook applying `mutations` at every bind it is installed on (empty for no mutations,
// so a plan without mutate lines binds exactly as without a hook).
runtime::BeforeUploadHook mutation_hook(std::vector<runtime::Mutation> mutations);

}  // namespace stackcheck::oracles
