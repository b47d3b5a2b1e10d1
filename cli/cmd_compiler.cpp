// compile and interp: the compiler pipeline and the reference interpreter.
#include "cli/cli.h"

#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/printer.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/pipeline.h"
#include "stack/runtime/plan/printer.h"

#include <fmt/format.h>

namespace stackcheck::cli {

int cmd_compile(const Args& a) {
  const std::string_view last_stage = passes::pipeline_stages().back().name;
  const std::string stop = a.get("--stop-after", std::string(last_stage));
  if (passes::find_stage(stop) == nullptr) {
    fmt::print(stderr, "stackcheck: --stop-after: unknown pass '{}' ({})\n", stop, passes::pipeline_stage_names());
    return kUsage;
  }
  const std::string emit = a.get("--emit", "gir");
  if (emit != "gir" && emit != "orch") {
    fmt::print(stderr, "stackcheck: --emit takes gir or orch, got '{}'\n", emit);
    return kUsage;
  }
  if (emit == "orch" && stop != last_stage) {
    fmt::print(stderr, "stackcheck: --emit orch needs the whole pipeline (no --stop-after)\n");
    return kUsage;
  }
  if (a.has("--no-step-c")) fmt::print(stderr, "compile: --no-step-c (LegalizeGraphBoundary without Step C)\n");
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;

  passes::PipelineOptions pipeline;
  pipeline.graph_boundary.step_c = !a.has("--no-step-c");
  passes::PassManagerOptions manager;
  manager.print_after_all = a.has("--print-after-all");
  manager.sink = [](std::string_view block) { fmt::print(stderr, "{}", block); };
  if (stop != last_stage) manager.stop_after = stop;
  passes::PassManager pm = passes::default_pipeline(pipeline, std::move(manager));
  passes::PipelineResult r = pm.run(*p);
  const std::string file = display_name(a.positional[0]);
  if (!r.ok()) {
    if (r.outcome == passes::Outcome::PassBug)
      fmt::print(stderr, "stackcheck: BUG in pass {}: {}\n", r.pass, r.message);
    for (const auto& d : r.diagnostics) fmt::print("{}\n", d.render(file));
    if (r.diagnostics.empty()) fmt::print("{}: error: {}\n", file, r.message);
    return kFail;
  }
  const auto* legalize = passes::find_pass<passes::LegalizeGraphBoundary>(pm);
  if (legalize != nullptr && r.ran(legalize->name()) && a.has("--report")) {
    for (const auto& g : legalize->report().graphs) {
      fmt::print(stderr, "# LegalizeGraphBoundary {}: nodes={} appended={}\n", g.graph, g.node_count,
                 g.appended.size());
      for (const auto& ap : g.appended)
        fmt::print(stderr, "#   +{}: {} {} {} from {}:{} depth={}\n", ap.name, passes::hoist_kind_name(ap.kind),
                   ir::dir_name(ap.dir), ir::print_type(ap.type), ap.loc.line, ap.loc.column, ap.depth);
    }
  }
  if (emit == "orch") {
    const codegen::CodegenResult cg = codegen::generate_orchestration(r.program);
    if (!cg.ok) {
      for (const auto& d : cg.diagnostics) fmt::print("{}\n", d.render(file));
      return kFail;
    }
    fmt::print("{}", runtime::print_plan(cg.program));
    return kOk;
  }
  fmt::print("{}", ir::print_program(r.program));
  return kOk;
}

int cmd_interp(const Args& a) {
  uint64_t seed = 0;
  if (a.has("--seed") && !parse_u64(a.get("--seed"), seed)) {
    fmt::print(stderr, "stackcheck: --seed takes an unsigned 64-bit integer, got '{}'\n", a.get("--seed"));
    return kUsage;
  }
  fmt::print(stderr, "interp: seed={}\n", seed);
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;
  interp::Result r = interp::run(*p, seed);
  if (!r.ok()) {
    fmt::print(stderr, "{}: {}\n", display_name(a.positional[0]), r.error().render());
    return kInconclusive;
  }
  for (const auto& t : r.outputs().tensors) {
    fmt::print("{} bytes={} fnv1a64=0x{:016x}\n", t.name, t.bytes.size(), interp::fnv1a64(t.bytes));
    if (a.has("--dump")) {
      std::string vals;
      for (size_t i = 0; i + 4 <= t.bytes.size(); i += 4) {
        const uint32_t v = uint32_t(t.bytes[i]) | uint32_t(t.bytes[i + 1]) << 8 | uint32_t(t.bytes[i + 2]) << 16 |
                           uint32_t(t.bytes[i + 3]) << 24;
        vals += fmt::format("{}{}", i ? " " : "", static_cast<int32_t>(v));
      }
      fmt::print("  {}\n", vals);
    }
  }
  return kOk;
}

}  // namespace stackcheck::cli
