// bench-bind: the bind figures of the decode-layer scene for N = 1, 2, 4, ..., max layers,
// with and without Step C (HARNESS.md §7). Figures are counts, not times: copies, bytes
// shipped and read, mirror bytes, device bytes reserved by zone, heap high-waters.
#include "cli/cli.h"

#include "properties/oracles/end_to_end.h"
#include "stack/runtime/host/bind.h"

#include <fmt/format.h>

namespace stackcheck::cli {

namespace {

// The entry's top-level loop calling the graph: its stop bound is the layer count.
ir::Stmt* layer_loop(ir::Program& p) {
  for (auto& f : p.functions)
    if (f.kind == ir::Function::Kind::Orchestration)
      for (auto& s : f.body)
        if (s.kind == ir::Stmt::Kind::For) return &s;
  return nullptr;
}

}  // namespace

int cmd_bench_bind(const Args& a) {
  uint64_t max_layers = 64;
  if (a.has("--max-layers") &&
      (!parse_u64(a.get("--max-layers"), max_layers) || max_layers == 0 || max_layers > 4096)) {
    fmt::print(stderr, "stackcheck: --max-layers takes 1..4096, got '{}'\n", a.get("--max-layers"));
    return kUsage;
  }
  int rc = kOk;
  auto scene = load_program(a.positional[0], rc);
  if (!scene) return rc;
  if (!layer_loop(*scene)) {
    fmt::print(stderr, "stackcheck: {}: the entry has no top-level for loop (the layer loop)\n",
               display_name(a.positional[0]));
    return kUsage;
  }
  fmt::print(stderr, "bench-bind: scene={} max_layers={} schedule=oldest seed=0\n", display_name(a.positional[0]),
             max_layers);
  runtime::ScheduleOptions sched;
  sched.mode = runtime::ScheduleOptions::Mode::kOldest;

  fmt::print(
      "{:>3} {:>5} {:>5} {:>5} {:>3} {:>7} {:>8} {:>8} {:>6} {:>8} {:>8} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9} {:>8} "
      "{:>7}\n",
      "N", "stepC", "tasks", "nodes", "h2d", "def_h2d", "shipped", "read", "ratio", "mirror", "graph_hw", "gint",
      "task_hw", "dev+cp", "img+sub", "gh/layer", "gint/layer", "fixed", "result");
  for (bool step_c : {true, false}) {
    uint64_t prev_hw = 0, prev_n = 0;
    for (uint64_t n = 1; n <= max_layers; n *= 2) {
      ir::Program p = *scene;
      ir::Stmt* loop = layer_loop(p);
      loop->lo.kind = ir::Expr::Kind::Int;
      loop->lo.value = 0;
      loop->hi.kind = ir::Expr::Kind::Int;
      loop->hi.args.clear();
      loop->hi.value = static_cast<int64_t>(n);
      const oracles::EndToEndRun run =
          oracles::check_end_to_end(p, 0, sched, passes::PipelineOptions{.graph_boundary = {.step_c = step_c}});
      const auto& s = run.bind.stats;
      const std::string per_layer = prev_n ? fmt::format("{}", (s.graph_heap_high_water - prev_hw) / (n - prev_n))
                                           : fmt::format("{}", s.graph_heap_high_water);
      // Per layer: graph-heap growth, its graph-internal part, and the fixed block (the rest).
      const uint64_t gint_layer = s.graph_internal_heap / n;
      fmt::print(
          "{:>3} {:>5} {:>5} {:>5} {:>3} {:>7} {:>8} {:>8} {:>6} {:>8} {:>8} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9} {:>8} "
          "{:>7}\n",
          n, step_c ? "on" : "off", s.tasks, s.nodes, s.h2d, s.def_h2d, s.shipped, s.read, s.ratio_text(), s.mirror,
          s.graph_heap_high_water, s.graph_internal_heap, s.task_heap_high_water,
          s.reserved.device_only + s.reserved.copied, s.reserved.image + s.reserved.submissions, per_layer, gint_layer,
          s.graph_heap_high_water / n - gint_layer, run.verdict.passed() ? "equal" : run.verdict.rule);
      prev_hw = s.graph_heap_high_water;
      prev_n = n;
    }
  }
  return kOk;
}

}  // namespace stackcheck::cli
