// The defect table and the run-time selection (defects.h). Outside the zoo build only
// check_selection() is compiled: no table, no name.
#include "stack/defects/defects.h"

#include <cstdlib>
#include <iterator>

#include <fmt/format.h>

namespace stackcheck::defects {

#if STACKCHECK_ZOO

namespace {

using D = Defect;
constexpr DefectInfo kTable[] = {
    {D::kStepCNotHoisted, "step_c_not_hoisted", "stack/passes/legalize_graph_boundary/collect.cpp: Collector::create",
     1, "Step C collects a depth-0 create (provenance: a rooted InOut root) but never hoists it: it stays in the graph",
     nullptr},
    {D::kLoopCreateHoisted, "loop_create_hoisted",
     "stack/passes/legalize_graph_boundary/collect.cpp: Collector::create", 2,
     "Step C hoists creates at any loop depth, so iterations share one buffer each expects fresh and zeroed", nullptr},
    {D::kHoistedCreateIn, "hoisted_create_in", "stack/passes/legalize_graph_boundary/collect.cpp: Collector::create", 3,
     "a hoisted create becomes an In param instead of InOut", nullptr},
    {D::kRebindProvenanceLost, "rebind_provenance_lost",
     "stack/passes/legalize_graph_boundary/collect.cpp: Collector::assign", 4,
     "a single-result call (in-place rebind t1 = k(x, t)) yields a fresh local, not t's root: its views are not "
     "hoisted",
     nullptr},
    {D::kTupleProvenanceLost, "tuple_provenance_lost",
     "stack/passes/legalize_graph_boundary/collect.cpp: Collector::assign", 5,
     "a tuple element (v = r.k of a call or submit) yields a fresh local, not its argument's root", nullptr},
    {D::kPrefixSubmitProvenanceDropped, "prefix_submit_provenance_dropped",
     "stack/passes/legalize_graph_boundary/collect.cpp: Collector::result_info", 6,
     "the args != params bail: a submit of a kernel whose builtin binds only a prefix of its params (extra params) "
     "drops the provenance of its results",
     nullptr},
    {D::kNodeCountBeforeRewrite, "node_count_before_rewrite",
     "stack/passes/legalize_graph_boundary.cpp: legalize_graph_boundary (step 5)", 7,
     "the reported node count (and the 216 limit) is taken on the graph before the rewrite, hoisted creates included",
     nullptr},
    {D::kGraphReturnsSwapped, "graph_returns_swapped",
     "stack/passes/normalize_return_order.cpp: explicit_graph_returns", 8,
     "A0 writes a graph's returns in param order like a kernel's, so results returned out of param order swap at "
     "their call sites",
     nullptr},
    {D::kFullNotRejected, "full_not_rejected", "stack/passes/legalize_graph_boundary/checks.cpp: check_original", 9,
     "LegalizeGraphBoundary does not reject `full` in a graph region (206)", nullptr},
    {D::kVerifierBlindToRebinds, "verifier_blind_to_rebinds",
     "stack/verify/graph_boundary_legalized.cpp: GraphCheck::assign; stack/passes/legalize_graph_boundary/checks.cpp: "
     "check_result",
     10,
     "the 211 check skips views of rebound names (writebacks, tuple elements), in the verifier and in the pass's own "
     "step-5 check",
     "rebind_provenance_lost"},
    {D::kAliasLeaksToCaller, "alias_leaks_to_caller",
     "stack/passes/legalize_graph_boundary/rewrite.cpp: SiteRewriter::site", 11,
     "a graph-local scalar alias is not mapped at the call site, so a hoisted definition names it in the caller",
     nullptr},
    {D::kClaimedSlotNotReset, "claimed_slot_not_reset",
     "stack/runtime/host/orchestrator.cpp: Orchestrator::claim, Orchestrator::publish", 12,
     "a claim does not reset the slot record and publish writes only the slot fields it sets: wake and last-consumer "
     "fields keep poison or a previous bind's values",
     nullptr},
    {D::kFatalLatchedUploaded, "fatal_latched_uploaded", "stack/runtime/host/runtime.cpp: Runtime::run_bind (step 3)",
     13, "a latched fatal code still plans, reserves and uploads the image (and definitions) before reporting",
     nullptr},
    {D::kStorageStrideTimesN, "storage_stride_times_n", "stack/runtime/host/graph/cache.cpp: graph_block_bytes", 14,
     "a graph submission's block reserves execution storage as stride x n, not 32+128(n-1)+104", nullptr},
    {D::kDeltaTruncated, "delta_truncated", "stack/runtime/image/self_relative.h: delta_for", 15,
     "a difference outside int32 is truncated to 32 bits instead of leaving the delta unbound", nullptr},
    {D::kCompactionCopiesDeltas, "compaction_copies_deltas", "stack/runtime/image/compact.cpp: compact_live_image", 16,
     "compaction memcpys payload pool deltas as the mirror had them instead of re-taking them for the image", nullptr},
    {D::kCompactionUnchecked, "compaction_unchecked", "stack/runtime/image/compact.cpp: compact_live_image", 17,
     "compaction checks none of its preconditions (n <= W, cursors, payload stride, out size) before reading", nullptr},
    {D::kStatusNegated, "status_negated", "stack/runtime/status/codes.h: to_status; codes.cpp: status_to_code", 18,
     "code N maps to status -N, colliding with the reserved statuses -1, -2, -3", nullptr},
    {D::kScalarRegionsUnrounded, "scalar_regions_unrounded",
     "stack/runtime/host/orchestrator.cpp: Orchestrator::claim, Orchestrator::publish", 19,
     "a task's scalar region takes n_scalars entries, not whole 8-entry lines (RUNTIME.md §8)", nullptr},
    {D::kWarEdgeMissingOnReuse, "war_edge_missing_on_reuse",
     "stack/runtime/host/orchestrator.cpp: Orchestrator::fanin_and_register", 20,
     "a freshly allocated buffer (alloc, runtime output) waits only for the range's last writer, not for its readers: "
     "no write-after-read edge when a rewound heap reuses an address",
     nullptr},
    {D::kImagePitchedToCapacity, "image_pitched_to_capacity",
     "stack/runtime/host/runtime.cpp: Runtime::ship; stack/runtime/image/compact.cpp: compact_live_image", 21,
     "the image is pitched to the task window W (the ring capacity) instead of max(n, 1)", nullptr},
    {D::kSubmissionsCopiedEach, "submissions_copied_each", "stack/runtime/host/runtime.cpp: Runtime::ship (step 8)", 22,
     "each graph submission record is uploaded by a copy of its own after the image copy", nullptr},
    {D::kAttachSizeTautology, "attach_size_tautology",
     "stack/runtime/device/attach_graph.cpp: Attacher::check_graph_contexts", 23,
     "the graph-heap block size check compares the needed size with itself, so a short block is accepted", nullptr},
    {D::kAliasClassesIgnored, "alias_classes_ignored",
     "stack/runtime/host/graph/recorder.cpp: GraphRecorder::local_range", 24,
     "a recording tracks each boundary tensor as its own range, ignoring alias classes: two names of one buffer race",
     nullptr},
    {D::kFaninChecksumOverread, "fanin_checksum_overread", "stack/runtime/host/orchestrator.cpp: Orchestrator::publish",
     25,
     "a checksum over a copy of a graph task's fan-in list (three producers or more) reads one entry past the "
     "copy; nothing reads the sum, so only ASan sees it (the lane split's control, HARNESS.md §5)",
     nullptr},
    {D::kWakeListClosedByStore, "wake_list_closed_by_store",
     "stack/runtime/device/scheduler_run.cpp: SchedulerRun::complete_task", 26,
     "a completing task reads its wake list, closes it with a plain store and only then sets its flag: a consumer "
     "that registers between the read and the store is never resumed (a lost wake-up only concurrent runs show)",
     nullptr},
};
static_assert(std::size(kTable) == static_cast<size_t>(Defect::kCount), "one entry per Defect");
static_assert(static_cast<size_t>(Defect::kCount) <= 64, "a selection is a 64-bit mask");

constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < std::size(kTable); ++i)
    if (static_cast<size_t>(kTable[i].id) != i || kTable[i].item != static_cast<int>(i) + 1) return false;
  return true;
}
static_assert(table_in_enum_order(), "the table follows the enum and HARNESS.md §6's order (then the controls)");

}  // namespace

const DefectInfo* table(size_t* count) {
  if (count != nullptr) *count = std::size(kTable);
  return kTable;
}

const DefectInfo& info(Defect d) { return kTable[static_cast<size_t>(d)]; }

std::optional<Defect> find(const std::string& name) {
  for (const DefectInfo& e : kTable)
    if (name == e.name) return e.id;
  return std::nullopt;
}

Selection parse_selection(const std::string& text) {
  Selection s;
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    std::string name = text.substr(at, comma - at);
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (!name.empty()) {
      const std::optional<Defect> d = find(name);
      if (!d) {
        s.mask = 0;
        s.error = fmt::format("{}: unknown defect '{}' (`stackcheck defects` lists them)", kSelectionVariable, name);
        return s;
      }
      s.mask |= uint64_t{1} << static_cast<unsigned>(*d);
    }
    at = comma + 1;
  }
  return s;
}

const Selection& selection() {
  // A function-local static: initialised once, thread-safely, on first use.
  static const Selection s = [] {
    const char* v = std::getenv(kSelectionVariable);
    return parse_selection(v != nullptr ? v : "");
  }();
  return s;
}

bool active(Defect d) { return (selection().mask >> static_cast<unsigned>(d)) & 1; }

std::optional<std::string> check_selection() { return selection().error; }

std::string active_names() {
  std::string out;
  for (const DefectInfo& e : kTable)
    if (active(e.id)) out += fmt::format("{}{}", out.empty() ? "" : ",", e.name);
  return out;
}

#else

std::optional<std::string> check_selection() {
  const char* v = std::getenv(kSelectionVariable);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return fmt::format("{} is set, but this build has no defect switches (configure the zoo preset)", kSelectionVariable);
}

std::string active_names() { return {}; }

#endif

}  // namespace stackcheck::defects
