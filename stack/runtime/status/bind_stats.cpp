// BindStats::to_line: the one-line rendering of RUNTIME.md §14 (keys in spec order).
#include "stack/runtime/status/bind_stats.h"

#include <fmt/format.h>

namespace stackcheck::runtime {

std::string BindStats::ratio_text() const {
  if (shipped == 0) return "n/a";
  return fmt::format("{:.3f}", static_cast<double>(read) / static_cast<double>(shipped));
}

std::string BindStats::to_line() const {
  return fmt::format(
      "bind tasks={} nodes={} defs={} inlined={} h2d={} def_h2d={} tensor_h2d={} d2h={} "
      "shipped={} read={} ratio={} image={} image_read={} mirror={} task_hw={} graph_hw={} "
      "gint={} reserved=(dev={},cp={},img={},sub={},th={},gh={},def={},ent={})",
      tasks, nodes, defs, inlined, h2d, def_h2d, tensor_h2d, d2h, shipped, read, ratio_text(), image, image_read,
      mirror, task_heap_high_water, graph_heap_high_water, graph_internal_heap, reserved.device_only, reserved.copied,
      reserved.image, reserved.submissions, reserved.task_heap, reserved.graph_heap, reserved.definitions,
      reserved.entries);
}

}  // namespace stackcheck::runtime
