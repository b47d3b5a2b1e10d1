// run and bench-bind: the whole stack end to end.
#include "cli/cli.h"

#include "properties/oracles/end_to_end.h"
#include "stack/runtime/host/bind.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>

namespace stackcheck::cli {

int cmd_run(const Args& a) {
  uint64_t seed = 0;
  if (a.has("--seed") && !parse_u64(a.get("--seed"), seed)) {
    fmt::print(stderr, "stackcheck: --seed takes an unsigned 64-bit integer, got '{}'\n", a.get("--seed"));
    return kUsage;
  }
  const std::string sched_text = a.get("--schedule", "threaded");
  const auto schedule = oracles::parse_schedule(sched_text);
  if (!schedule) {
    fmt::print(stderr, "stackcheck: --schedule takes threaded, pct:SEED[:DEPTH], random:SEED, newest or oldest, got '{}'\n", sched_text);
    return kUsage;
  }
  passes::PipelineOptions pipeline;
  pipeline.graph_boundary.step_c = !a.has("--no-step-c");
  fmt::print(stderr, "run: seed={} schedule={}{}\n", seed, sched_text,
             pipeline.graph_boundary.step_c ? "" : " --no-step-c");
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;
  const std::string file = display_name(a.positional[0]);
  // An ill-formed program gets its diagnostics (exit 1), not an inconclusive verdict.
  if (const auto diags = verify::check_well_formed(*p); !diags.empty()) {
    for (const auto& d : diags) fmt::print("{}\n", d.render(file));
    return kFail;
  }
  const oracles::EndToEndRun run = oracles::check_end_to_end(*p, seed, *schedule, pipeline);
  if (!run.plan_text.empty()) {
    fmt::print("{}\n{}\n", run.bind.stats.to_line(), runtime::status_line(run.bind));
  }
  switch (run.verdict.kind) {
    case oracles::VerdictKind::Pass:
      fmt::print("equal: every entry tensor matches the reference interpreter\n");
      return kOk;
    case oracles::VerdictKind::Inconclusive:
      if (run.verdict.reason == oracles::Inconclusive::kInputRejected) {  // the compiler's diagnostics: exit 1
        fmt::print("{}: {}\n", file, run.verdict.message);
        return kFail;
      }
      fmt::print("inconclusive [{}]: {}\n", run.verdict.reason_key(), run.verdict.message);
      return kInconclusive;
    case oracles::VerdictKind::Fail: break;
  }
  fmt::print("mismatch [{}]: {}\n", run.verdict.rule, run.verdict.message);
  fmt::print(stderr, "replay: stackcheck run {} --seed {} --schedule {}{}\n", file, seed, sched_text,
             pipeline.graph_boundary.step_c ? "" : " --no-step-c");
  return kFail;
}

}  // namespace stackcheck::cli
