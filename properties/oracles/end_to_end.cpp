#include "properties/oracles/end_to_end.h"

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/status_codes.h"
#include "properties/oracles/dispatch_threads.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/runtime/plan/printer.h"

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace stackcheck::oracles {

namespace {

// A decimal uint64 (no sign, no leading '+', at most 20 digits), nullopt otherwise.
std::optional<uint64_t> parse_u64(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

std::optional<runtime::ScheduleOptions> parse_schedule(const std::string& text) {
  runtime::ScheduleOptions s;
  using Mode = runtime::ScheduleOptions::Mode;
  for (Mode m : {Mode::kThreaded, Mode::kNewest, Mode::kOldest})
    if (text == runtime::schedule_mode_name(m)) {
      s.mode = m;
      return s;
    }
  const std::string_view t = text;
  if (t.rfind("random:", 0) == 0) {
    const std::optional<uint64_t> seed = parse_u64(t.substr(7));
    if (!seed) return std::nullopt;
    s.mode = Mode::kRandom;
    s.seed = *seed;
    return s;
  }
  if (t.rfind("pct:", 0) == 0) {  // pct:SEED or pct:SEED:DEPTH
    const std::string_view rest = t.substr(4);
    const size_t colon = rest.find(':');
    const std::optional<uint64_t> seed = parse_u64(rest.substr(0, colon));
    std::optional<uint64_t> depth = uint64_t{runtime::kDefaultPctDepth};
    if (colon != std::string_view::npos) depth = parse_u64(rest.substr(colon + 1));
    if (!seed || !depth || *depth < 1 || *depth > runtime::kMaxPctDepth) return std::nullopt;
    s.mode = Mode::kPct;
    s.seed = *seed;
    s.pct_depth = static_cast<unsigned>(*depth);
    return s;
  }
  return std::nullopt;
}

std::string schedule_text(const runtime::ScheduleOptions& s) {
  if (s.mode == runtime::ScheduleOptions::Mode::kRandom) return fmt::format("random:{}", s.seed);
  if (s.mode == runtime::ScheduleOptions::Mode::kPct)
    return fmt::format("pct:{}:{}", s.seed, s.pct_depth == 0 ? runtime::kDefaultPctDepth : s.pct_depth);
  return runtime::schedule_mode_name(s.mode);
}

EndToEndRun check_end_to_end(const ir::Program& p, uint64_t seed, const runtime::ScheduleOptions& schedule,
                             const passes::PipelineOptions& pipeline, const std::vector<runtime::ConfigEntry>& config) {
  EndToEndRun out;
  CompiledPlan compiled = compile_to_plan(p, pipeline);
  if (!compiled.verdict.passed()) {
    out.verdict = compiled.verdict;
    return out;
  }
  const interp::Result expected = interp::run(p, seed);
  if (!expected.ok()) {
    const bool budget = expected.error().kind == interp::ErrorKind::Budget;
    out.verdict = Verdict::inconclusive(budget ? Inconclusive::kInterpreterBudget : Inconclusive::kInterpreterError,
                                        expected.error().render());
    return out;
  }
  runtime::OrchProgram plan = compiled.plan;
  plan.config = config;
  out.plan_text = runtime::print_plan(plan);
  runtime::BindOptions opts;
  opts.seed = seed;
  opts.schedule = schedule;
  const DispatchThreads threads;  // the threads the units ran on, measured
  threads.attach(opts.schedule);
  out.bind = runtime::bind_plan(plan, opts);
  out.verdict = judge_end_to_end(compiled, expected.outputs(), out.bind,
                                 fmt::format("schedule {} seed {}", schedule_text(schedule), seed));
  if (out.verdict.passed()) out.verdict = threads.check(schedule, plan);
  return out;
}

Verdict judge_end_to_end(const CompiledPlan& compiled, const interp::Outputs& expected, const runtime::BindResult& r,
                         const std::string& context) {
  if (config_bound_status(r.status))
    return Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(r), latch_code(r.status).value_or(0));
  if (r.status != 0) return Verdict::fail("runtime-status", fmt::format("{} ({})", runtime::status_line(r), r.detail));
  if (r.stats.h2d != 1)
    return Verdict::fail("one-copy", fmt::format("successful bind made {} image copies", r.stats.h2d));
  if (r.stats.image_read != r.stats.image)
    return Verdict::fail("image-read", fmt::format("completed run read {} of {} shipped image bytes",
                                                   r.stats.image_read, r.stats.image));
  std::vector<std::pair<std::string, std::vector<uint8_t>>> want;
  for (const auto& t : expected.tensors) want.emplace_back(t.name, t.bytes);
  return compare_entries(want, with_ir_names(r.entries, compiled.plan, compiled.entry_names), context);
}

std::vector<runtime::EntryResult> with_ir_names(std::vector<runtime::EntryResult> entries,
                                                const runtime::OrchProgram& plan,
                                                const std::vector<std::string>& entry_names) {
  for (runtime::EntryResult& e : entries)
    for (size_t i = 0; i < plan.tensors.size() && i < entry_names.size(); ++i)
      if (plan.tensors[i].name == e.name) {
        e.name = entry_names[i];
        break;
      }
  return entries;
}

Verdict compare_entries(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& want,
                        const std::vector<runtime::EntryResult>& got, const std::string& context) {
  if (want.size() != got.size())
    return Verdict::fail("differential", fmt::format("{}: runtime returned {} entry tensors, interpreter {}", context,
                                                     got.size(), want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    // Matched by name as well as position: a device tensor in the right place under another
    // name is a different tensor.
    if (want[i].first != got[i].name)
      return Verdict::fail("differential",
                           fmt::format("{}: entry tensor {} is '{}' on the device, '{}' in the interpreter", context, i,
                                       got[i].name, want[i].first));
    const auto& a = want[i].second;
    const auto& b = got[i].bytes;
    if (a == b) continue;
    size_t k = 0;
    while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
    const size_t e = k / 4;
    auto elem = [&](const std::vector<uint8_t>& v) -> int64_t {
      if (e * 4 + 4 > v.size()) return 0;
      return static_cast<int32_t>(uint32_t(v[e * 4]) | uint32_t(v[e * 4 + 1]) << 8 | uint32_t(v[e * 4 + 2]) << 16 |
                                  uint32_t(v[e * 4 + 3]) << 24);
    };
    return Verdict::fail("differential", fmt::format("{}: tensor {} element {}: device {} != interpreter {}", context,
                                                     want[i].first, e, elem(b), elem(a)));
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
