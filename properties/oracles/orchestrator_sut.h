// The real orchestrator of one model case (HARNESS.md §2.7) and the step-by-step comparison
// with the model (orchestrator_model.h).
// OrchestratorSut runs the model's calls against a runtime::Orchestrator over a mirror
// poisoned with 0xAA (STYLE.md 11), with the setup's fake heap and entry addresses, the root
// scope open as bind opens it. A `read` goes through the plan interpreter (run_plan), the
// only place the runtime reads an entry's host copy. Graph bodies run from their spec against
// the GraphRecorder. Tensors the calls create are kept in model buffer order.
// compare_step reads what would be shipped: each task's descriptor, payload, slot, flag,
// tensor / scalar pool entries and fanin through the payload's deltas in the mirror, the
// base of every tensor handed back, and each new definition's bytes by their header
// offsets; besides the returned id and error(), only the heap tops and high-water come from
// the heaps' own accessors (nothing in the mirror records a rewind until the next
// allocation). compare_finish writes the header (finish) and checks it and every task.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "properties/oracles/oracle.h"
#include "properties/oracles/orchestrator_model.h"
#include "stack/runtime/host/orchestrator.h"

namespace stackcheck::oracles::orch {

class OrchestratorSut {
 public:
  explicit OrchestratorSut(std::shared_ptr<const ModelSetup> setup);
  ~OrchestratorSut();  // hands its mirrors' allocations to the thread's next SUT
  OrchestratorSut(const OrchestratorSut&) = delete;
  OrchestratorSut& operator=(const OrchestratorSut&) = delete;

  // Runs one call; its return value (a task id, kNoTask or kGraphInlined) when it has one
  // the API hands back (nullopt for scopes, read, wait_tensor, fatal, sync_start).
  std::optional<int32_t> run(const Call& c);

  runtime::Orchestrator& orch() { return *orch_; }
  const runtime::Orchestrator& orch() const { return *orch_; }
  // The mirror, backed lazily (runtime::MirrorBuffer): a comparison ensures the blocks it reads,
  // which changes no byte it reads (a block is filled with the byte it already reads as).
  runtime::MirrorBuffer& mirror() const { return mirror_; }
  const runtime::MirrorLayout& layout() const { return layout_; }
  const std::vector<runtime::TensorRef>& buffers() const { return buffers_; }
  // The last submit_graph's body: its submit / alloc_tensors calls that handed back a node or task.
  int32_t body_accepted() const { return body_accepted_; }

 private:
  void run_body(runtime::GraphRecorder& r, const GraphFnSpec& fn);
  std::optional<int32_t> run_read(const Read& r);
  runtime::TensorRef operand_ref(const TensorOperand& t);
  // Another orchestrator over the same setup, made when a call first names kForeignBuffer: its
  // entry 0's whole buffer is the handle a call of this one must refuse.
  runtime::TensorRef foreign_ref();

  std::shared_ptr<const ModelSetup> setup_;
  runtime::MirrorLayout layout_;
  mutable runtime::MirrorBuffer mirror_;
  std::unique_ptr<runtime::Orchestrator> orch_;
  std::vector<runtime::TensorRef> buffers_;
  int32_t body_accepted_ = 0;
  runtime::MirrorBuffer foreign_mirror_;
  std::unique_ptr<runtime::Orchestrator> foreign_;
};

// The call just run: `returned` is what the SUT handed back, the model has applied the call.
Verdict compare_step(const OrchestratorModel& m, const OrchestratorSut& s, std::optional<int32_t> returned);
// Finishes both (latch 1 for an open scope, the mirror header) and compares the header, every
// task's records, each producer's last_consumer and done().
Verdict compare_finish(OrchestratorModel& m, OrchestratorSut& s);
// Part of compare_step: what the orchestrator keeps and ships nowhere (open scopes, done(),
// the task log) and the mirror header, zero until finish.
Verdict compare_state(const OrchestratorModel& m, const OrchestratorSut& s);
// Part of compare_finish: the header finish writes into a mirror of pitch W (§4), all but the
// counts and the error word.
Verdict check_finished_header(const runtime::ImageHeader& h, uint32_t W);

}  // namespace stackcheck::oracles::orch
