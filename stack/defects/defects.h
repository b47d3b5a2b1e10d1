// The defect zoo (HARNESS.md §6): the stack's historical defects, each re-created at the
// place it lived behind `if (defects::active(Defect::X)) { ...the old behaviour... }`, so the
// harness can be shown to find every one of them (a positive control at scale).
//
// Only the `zoo` preset compiles the switches in (CMake STACKCHECK_ZOO=ON, which defines
// STACKCHECK_ZOO=1 on libstack and everything linking it). There, the run-time selection is
// the environment variable STACKCHECK_DEFECT: one name, or several separated by commas (a
// defect that only shows together with another, e.g. verifier_blind_to_rebinds with
// rebind_provenance_lost, is selected as a pair), read once, thread-safely. An unknown name
// is an error every entry point reports (check_selection), never a silent clean run.
// Everywhere else active() is a constexpr false: each defect branch is dead code the
// compiler removes, and neither the table nor any defect name reaches the binary (a ctest
// checks the symbols and strings of the dev build, with the zoo build as positive control).
// Library code never prints or exits: entry points print check_selection()'s line and stop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace stackcheck::defects {

// In HARNESS.md §6 order (the `item` of each table entry).
enum class Defect : uint8_t {
  // compiler (stack/passes, stack/verify)
  kStepCNotHoisted,
  kLoopCreateHoisted,
  kHoistedCreateIn,
  kRebindProvenanceLost,
  kTupleProvenanceLost,
  kPrefixSubmitProvenanceDropped,
  kNodeCountBeforeRewrite,
  kGraphReturnsSwapped,
  kFullNotRejected,
  kVerifierBlindToRebinds,
  kAliasLeaksToCaller,
  // runtime (stack/runtime)
  kClaimedSlotNotReset,
  kFatalLatchedUploaded,
  kStorageStrideTimesN,
  kDeltaTruncated,
  kCompactionCopiesDeltas,
  kCompactionUnchecked,
  kStatusNegated,
  kScalarRegionsUnrounded,
  kWarEdgeMissingOnReuse,
  kImagePitchedToCapacity,
  kSubmissionsCopiedEach,
  kAttachSizeTautology,
  kAliasClassesIgnored,
  // the lane split's positive control (HARNESS.md §5): a read no oracle sees, only ASan
  kFaninChecksumOverread,
  // the schedules-at-scale control (HARNESS.md §8): a lost wake-up only concurrency shows
  kWakeListClosedByStore,
  kCount
};

inline constexpr const char* kSelectionVariable = "STACKCHECK_DEFECT";

#if STACKCHECK_ZOO

inline constexpr bool kCompiledIn = true;

struct DefectInfo {
  Defect id;
  const char* name;         // the STACKCHECK_DEFECT spelling
  const char* where;        // file: function holding the switch
  int item;                 // its place in HARNESS.md §6's list (1-based)
  const char* description;  // one line: the historical behaviour the switch restores
  const char* pair;         // nullptr, or the defect it is selected with to show
};

// Every defect, in enum order.
const DefectInfo* table(size_t* count);
const DefectInfo& info(Defect d);
std::optional<Defect> find(const std::string& name);

// A parsed selection: one bit per Defect; `error` names the first unknown name.
struct Selection {
  uint64_t mask = 0;
  std::optional<std::string> error;
};
Selection parse_selection(const std::string& text);  // "" selects nothing

// The process's selection (STACKCHECK_DEFECT, read on first use).
const Selection& selection();
bool active(Defect d);

#else

inline constexpr bool kCompiledIn = false;
constexpr bool active(Defect) { return false; }

#endif

// The one-line error an entry point prints before refusing to run, or nullopt: an unknown
// name in STACKCHECK_DEFECT (zoo build), or any selection at all in a build without the
// switches (it would silently run clean).
std::optional<std::string> check_selection();

// The active defects as "name,name" ("" when none, always "" outside the zoo build): what an
// entry point prints with its other settings, so a run can be repeated exactly.
std::string active_names();

}  // namespace stackcheck::defects
