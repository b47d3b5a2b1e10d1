// Runtime: one simulated runtime instance on a DeviceMemory (RUNTIME.md §5, §10). It holds
// only a HostLink to device memory, its validated RuntimeConfig, the task and graph heaps
// (reserved ONCE at creation, since payloads embed heap addresses), the region (reserved on
// the first bind and grown by max(need, 2*old) when too small: the old range is released and
// faults forever after, addresses are re-derived from the new base), the host mirror (sized
// for W once, filled with fill_byte so nothing relies on zeroes) and the orchestrator.
// bind() runs bind steps 1-9 of §10: step 9 attaches, runs the device scheduler
// (BindOptions::schedule) and reads the error words back. bind() ignores p.config: the Runtime's
// config was fixed at creation (bind_plan in bind.h derives it from p.config).
// Graphs (§9, §10): the orchestrator's definition cache lives as long as the Runtime; each
// definition is uploaded (its own reservation `graph_def:<k>`, one def_h2d copy) by the
// first bind that submits it and stays resident until the Runtime dies. Plan graphs get
// function ids that stay distinct across the programs one Runtime binds (graph_ids_for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/orchestrator.h"
#include "stack/runtime/host/runtime_config.h"
#include "stack/runtime/status/expected.h"

namespace stackcheck::runtime {

// Where the last successful plan put things (device addresses; null before the first).
struct RegionPlan {
  DevAddr runtime_header;  // start of the copied zone
  DevAddr image;
  uint64_t image_bytes = 0;
  DevAddr device_only;
  uint64_t device_only_bytes = 0;
  uint64_t Q = 0;
  uint64_t shipped = 0;            // [RuntimeHeader][image][submissions]
  DevAddr submissions;             // first GraphSubmission record (null when none)
  uint64_t submissions_bytes = 0;  // the submissions zone (end of the last record)
};

class Runtime {
 public:
  // Validates `cfg` (the message is the -2 detail) and reserves the heaps. `mem` must
  // outlive the Runtime; the DeviceMemory's own fill byte is the caller's choice.
  // `storage`, if given, is the allocation the mirror is built in (an earlier Runtime's, from
  // recycle_mirror()): the new mirror reads exactly as a fresh one (every byte the fill byte).
  static Expected<std::unique_ptr<Runtime>, std::string> create(DeviceMemory& mem, const RuntimeConfig& cfg,
                                                                MirrorBuffer* storage = nullptr);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  BindResult bind(const OrchProgram& p, const BindOptions& opts = {});

  const RuntimeConfig& config() const { return cfg_; }
  DevAddr region() const { return region_; }
  uint64_t region_bytes() const { return region_bytes_; }
  const RegionPlan& last_plan() const { return plan_; }
  DevAddr task_heap() const { return task_heap_; }
  DevAddr graph_heap() const { return graph_heap_; }
  const Orchestrator& orchestrator() const { return *orch_; }
  // The whole mirror, every block filled (the binds fill only the blocks they reach: a reader
  // of the whole mirror pays for the rest).
  std::span<std::byte> mirror() { return mirror_.materialize(); }
  // The mirror as the binds left it: every live prefix of the last bind (and every block a
  // bind reached) holds its bytes; the rest is not filled yet (read it through mirror()).
  std::span<const std::byte> mirror_live() const { return {mirror_.data(), mirror_.size()}; }
  // The mirror's buffer, with which blocks hold their bytes (a reader comparing whole mirrors
  // block by block, without filling the rest).
  const MirrorBuffer& mirror_buffer() const { return mirror_; }
  // Moves the mirror's allocation into `into` (for the next Runtime's create); this Runtime
  // must not bind again.
  void recycle_mirror(MirrorBuffer& into) { into = std::move(mirror_); }

 private:
  Runtime(DeviceMemory& mem, const RuntimeConfig& cfg, MirrorBuffer* storage);
  void release_entries();
  // Function id of each p.graphs[i]: its index among the distinct graphs this Runtime has seen
  // (definition order for the first program), so a cached definition is never replayed for
  // another program's graph of the same position.
  std::vector<uint32_t> graph_ids_for(const OrchProgram& p);
  // The bind minus its measurement: entries, steps 1-9; fills r's status, detail, entries,
  // trace and the host-bookkeeping figures of r.stats.
  void run_bind(const OrchProgram& p, const BindOptions& opts, BindResult& r);
  // Steps 4-9 for a non-latched orchestration; fills r (status, detail, entries, trace).
  void ship(const OrchProgram& p, BindResult& r, const std::vector<DevAddr>& entry_bases,
            const std::vector<std::vector<int32_t>>& host, const BindOptions& opts);
  // ship's steps, in order (RUNTIME.md §3); each that can fail fills r and returns false.
  struct ShipPlan;
  ShipPlan plan_image() const;                                   // step 4
  void grow_region(const ShipPlan& sp);                          // step 5
  void upload_definitions();                                     // step 6
  bool stage(const ShipPlan& sp, std::vector<std::byte>& staged, BindResult& r,
             const BindOptions& opts);                           // step 7
  void upload_image(const ShipPlan& sp, const std::vector<std::byte>& staged);  // step 8
  void run_and_collect(const OrchProgram& p, BindResult& r, const std::vector<DevAddr>& entry_bases,
                       const std::vector<std::vector<int32_t>>& host, const BindOptions& opts);  // step 9

  DeviceMemory* mem_;
  HostLink link_;
  RuntimeConfig cfg_;
  DevAddr task_heap_, graph_heap_;
  DevAddr region_;
  uint64_t region_bytes_ = 0;
  RegionPlan plan_;
  std::vector<DevAddr> entries_;         // the last bind's entry reservations
  std::vector<PlanGraph> known_graphs_;  // index = function id
  MirrorBuffer mirror_;
  std::unique_ptr<Orchestrator> orch_;
};

}  // namespace stackcheck::runtime
