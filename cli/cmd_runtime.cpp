// bind: the runtime alone, on an orchestration program in `.plan` text.
#include "cli/cli.h"

#include "properties/oracles/end_to_end.h"
#include "properties/oracles/image_mutation.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/plan/parser.h"
#include "stack/support/fnv1a.h"

#include <fmt/format.h>

namespace stackcheck::cli {

bool runtime_flags(const Args& a, runtime::BindOptions& opts, std::string& schedule_text) {
  if (a.has("--seed") && !parse_u64(a.get("--seed"), opts.seed)) {
    fmt::print(stderr, "stackcheck: --seed takes an unsigned 64-bit integer, got '{}'\n", a.get("--seed"));
    return false;
  }
  schedule_text = a.get("--schedule", "threaded");
  const auto schedule = oracles::parse_schedule(schedule_text);
  if (!schedule) {
    fmt::print(stderr, "stackcheck: --schedule takes threaded, pct:SEED[:DEPTH], random:SEED, newest or oldest, got '{}'\n",
               schedule_text);
    return false;
  }
  opts.schedule = *schedule;
  return true;
}

int cmd_bind(const Args& a) {
  runtime::BindOptions opts;
  std::string sched_text;
  if (!runtime_flags(a, opts, sched_text)) return kUsage;
  if (a.has("--fill")) {
    uint64_t fill = 0;
    if (!parse_u64(a.get("--fill"), fill) || fill > 255) {
      fmt::print(stderr, "stackcheck: --fill takes a byte value 0..255, got '{}'\n", a.get("--fill"));
      return kUsage;
    }
    opts.fill_byte = static_cast<uint8_t>(fill);
    fmt::print(stderr, "bind: fill=0x{:02x}\n", fill);
  }
  fmt::print(stderr, "bind: seed={} schedule={}\n", opts.seed, sched_text);
  std::string text, error;
  if (!read_input(a.positional[0], text, error)) {
    fmt::print(stderr, "stackcheck: {}\n", error);
    return kUsage;
  }
  runtime::PlanParseResult parsed = runtime::parse_plan(text);
  if (!parsed.ok()) {
    fmt::print(stderr, "{}:{}:{}: error[parse]: {}\n", display_name(a.positional[0]), parsed.error().line,
               parsed.error().column, parsed.error().message);
    return kFail;
  }
  // A plan's `mutate` lines are the harness's to apply (the runtime never does): the hook
  // corrupts the staged upload before the one copy.
  if (!parsed.program().mutations.empty()) {
    fmt::print(stderr, "bind: applying {} mutate line(s) before the upload\n", parsed.program().mutations.size());
    opts.before_upload = oracles::mutation_hook(parsed.program().mutations);
  }
  const runtime::BindResult r = runtime::bind_plan(parsed.program(), opts);
  fmt::print("{}\n{}\n", r.stats.to_line(), runtime::status_line(r));
  // Why a latched code latched (the status line names the code only).
  if (r.status != 0 && !r.detail.empty() && runtime::status_line(r).find(r.detail) == std::string::npos)
    fmt::print(stderr, "bind: {}\n", r.detail);
  // The final entry tensors, digested as `stackcheck interp` does, so the two can be compared.
  for (const auto& e : r.entries)
    fmt::print("{} bytes={} fnv1a64=0x{:016x}\n", e.name, e.bytes.size(), support::fnv1a64(e.bytes));
  return r.status == 0 ? kOk : kFail;
}

}  // namespace stackcheck::cli
