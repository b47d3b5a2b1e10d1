// Calls to the orchestrator API for the model-based property (HARNESS.md §2.7), written over
// a ChoiceSource (choice.h) like every generator here, so RapidCheck commands and a byte
// decoder draw the same calls. A setup is a RuntimeConfig biased small (W, heaps, tensormap
// and scope-task capacities) so the resource latches 2, 3, 4, 10 and 11 are reached, entry
// tensors, and graph functions (boundary shapes and tags, slot scalars, bodies of kernel and
// alloc nodes). Calls are drawn against the model's current state: windows of existing
// buffers placed against recent accesses (exactly, partly, on one element, or beside them),
// graph submissions of the same or other keys (alias classes, strides, tags), and, in a
// provoking case, the calls that latch 1, 5, 7, 8 and 9.
// Choice 0 is always the simpler option. No RapidCheck here.
#pragma once

#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/swarm.h"
#include "properties/oracles/orchestrator_model.h"

namespace stackcheck::gen {

// Per case: config, entries, graph functions. `provoking` adds graph functions whose bodies
// latch (an empty body, a scope, a nested graph, wait_tensor).
oracles::orch::ModelSetup generate_model_setup(ChoiceSource& c, bool provoking);

enum class CallKind : uint8_t {
  kScopeBegin,
  kScopeEnd,
  kAlloc,
  kSubmit,
  kSubmitGraph,
  kRead,
  kFan,         // single-element writes into one buffer, then one reader of all of it (fanin)
  kGraphSweep,  // one submission of every graph function: more keys than the cache holds
  kSyncStart,
  kProvoke,  // one latch-provoking call (provoking cases only)
};
const char* call_kind_name(CallKind k);

// The need (required_heap + args + storage, RUNTIME.md §10) of the definition `fn`'s body
// records when every node records: 64-aligned internals of at least 64 bytes, 64 bytes a
// tensor argument, 8 a scalar, 32 + 128 (n - 1) + 104 of storage.
uint64_t graph_body_need(const oracles::orch::GraphFnSpec& fn);

// The calls of one command of kind `k` against the model's state (a burst for kFan and scope
// bursts; an alloc first when no buffer fits a graph boundary). Empty when `k` does not apply.
std::vector<oracles::orch::Call> generate_calls(ChoiceSource& c, const oracles::orch::OrchestratorModel& m, CallKind k,
                                                bool provoking);

// The latch-provoking calls of one kind (0 .. kProvokeKinds - 1: fatal, wait_tensor, sync_start
// past the clusters, scope depth and underflow, windows outside their buffer, argument order and
// counts, tags, alloc_tensors counts, reads out of range, graph boundary tags, latching graph
// bodies, null or foreign handles, output shapes, kernel signatures), drawn against `m`'s state.
inline constexpr size_t kProvokeKinds = 17;
std::vector<oracles::orch::Call> generate_provoke(ChoiceSource& c, const oracles::orch::OrchestratorModel& m,
                                                  size_t kind);

// The model property's command kinds with their weights (three submits and two submit_graphs in
// thirteen), and how many commands the byte engine draws at most.
inline constexpr CallKind kCallMix[] = {CallKind::kSubmit,      CallKind::kSubmit,      CallKind::kSubmit,
                                        CallKind::kAlloc,       CallKind::kScopeBegin,  CallKind::kScopeEnd,
                                        CallKind::kSubmitGraph, CallKind::kSubmitGraph, CallKind::kRead,
                                        CallKind::kFan,         CallKind::kSyncStart,   CallKind::kGraphSweep,
                                        CallKind::kProvoke};
inline constexpr size_t kMaxByteCommands = 64;

// Swarm (swarm.h) over a case's command mix: which kinds the case may draw, as bits (bit k for
// CallKind k). Every kind kSwarmDefaultsPercent of the time; otherwise each of the others is on
// with the case's density. kSubmit stays on (it always applies, so rc::state never runs out of
// commands to draw), and so does kProvoke (a provoking case's own draw decides it).
inline constexpr uint32_t kEveryCallKind = (1u << (static_cast<unsigned>(CallKind::kProvoke) + 1)) - 1;
uint32_t swarm_call_kinds(ChoiceSource& c, SwarmMask& mask);
inline bool kind_allowed(uint32_t kinds, CallKind k) { return ((kinds >> static_cast<unsigned>(k)) & 1u) != 0; }
// kCallMix's entries whose kind `kinds` allows, in order (their weights kept).
std::vector<CallKind> allowed_mix(uint32_t kinds);

// One case of the model property before its commands: a provoking case one time in three (35%),
// its setup, then its swarm mask over the kinds (every kind without `swarm`).
struct CallCaseSetup {
  bool provoking = false;
  oracles::orch::ModelSetup setup;
  uint32_t kinds = kEveryCallKind;
  SwarmMask swarm;
};
CallCaseSetup generate_call_setup(ChoiceSource& c, bool swarm);

// A whole case as the property's byte engine draws it: the setup, then a length (at most
// kMaxByteCommands) and per command one kind of the allowed mix and its calls against the model
// as the earlier ones left it.
struct CallCase {
  CallCaseSetup head;
  std::vector<oracles::orch::Call> calls;
};
CallCase generate_call_case(ChoiceSource& c, bool swarm);

// Every buffer and entry the calls name exists when they run (the model applied in order):
// the precondition that keeps a shrunk command sequence meaningful.
bool calls_fit(const std::vector<oracles::orch::Call>& calls, const oracles::orch::OrchestratorModel& m);

}  // namespace stackcheck::gen
