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
      mirror, task_hw, graph_hw, gint, reserved.dev, reserved.cp, reserved.img, reserved.sub, reserved.th, reserved.gh,
      reserved.def, reserved.ent);
}

}  // namespace stackcheck::runtime
