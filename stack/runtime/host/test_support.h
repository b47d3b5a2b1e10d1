// TEST SUPPORT ONLY (runtime unit tests under stack/runtime/): fixtures shared by the host,
// plan and device tests. Not for library code: it uses gtest assertions.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/orchestrator.h"

namespace stackcheck::runtime::testing {

// A before-upload hook that sets byte `offset` of the staged image (counted from the
// ImageHeader, like a `mutate` line) to `value`; an offset past the staged bytes fails the
// test and stops the bind.
inline BeforeUploadHook set_image_byte(uint64_t offset, uint8_t value) {
  return [offset, value](StagedUpload& up) -> std::optional<std::string> {
    if (offset >= up.bytes.size() - up.image_offset) {
      ADD_FAILURE() << "image offset " << offset << " past the " << up.bytes.size() - up.image_offset
                    << " staged image bytes";
      return "offset past the staged image";
    }
    up.bytes[up.image_offset + offset] = std::byte{value};
    return std::nullopt;
  };
}

}  // namespace stackcheck::runtime::testing

namespace stackcheck::runtime {

// Entry points of the orchestrator that only tests need (a friend of Orchestrator), kept out
// of its public API.
class OrchestratorTestAccess {
 public:
  // Claims and publishes a bare outer GRAPH slot (kind 3, kernel -1, n_nodes, no tensor or
  // scalar args, no fanin, no heap block, graph_ctx 0), so claim tests can poison and reuse
  // a GRAPH slot without a recording; submit_graph publishes its outer task itself, with the
  // boundary's fanin and its graph-heap block.
  static TaskId claim_graph_outer(Orchestrator& o, uint16_t n_nodes) {
    if (o.latched() || !o.graph_mode_allows("claim_graph_outer", false)) return kNoTask;
    if (n_nodes < 1 || n_nodes > 1024) {
      o.latch_.latch(ErrorCode::kInvalidArgs, fmt::format("graph of {} nodes (1..1024)", n_nodes));
      return kNoTask;
    }
    Orchestrator::Claim c;
    if (!o.claim(0, 0, c)) return kNoTask;
    Orchestrator::Published p;
    p.kind = kKindGraph;
    p.kernel_id = kGraphKernelId;
    p.n_nodes = n_nodes;
    o.fanin_.begin(c.id, o.W());  // boundary fanin comes with a graph submission (§9)
    o.publish(c, p);
    if (!o.append_to_scope(c, p.kind, p.kernel_id)) return kNoTask;
    return c.id;
  }
};

}  // namespace stackcheck::runtime
