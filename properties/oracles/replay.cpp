#include "properties/oracles/replay.h"

#include <fmt/format.h>

#include <charconv>

#include "properties/oracles/bind_checks.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/deps.h"
#include "properties/oracles/end_to_end.h"
#include "properties/oracles/image_checks.h"
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/input_oracles.h"
#include "properties/oracles/plan_model.h"
#include "properties/oracles/roundtrip.h"
#include "properties/oracles/status_codes.h"
#include "stack/ir/parser.h"
#include "stack/runtime/device/attach.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::oracles {

namespace {

const std::vector<std::string> kOracles = {"end-to-end",     "pipeline",       "semantics",     "roundtrip",
                                           "deps",           "plan-model",     "plan-completes", "bind-structure",
                                           "boundary",       "rejection",      "latch",          "compaction",
                                           "corrupt-image",  "relative-ptr"};

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

bool parse_u64(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Verdict replay_plan(const std::string& oracle, const runtime::OrchProgram& plan, const ReplayParams& p) {
  runtime::BindOptions o;
  o.seed = p.seed;
  o.schedule = p.schedule;
  // A plan's mutate lines are applied as `stackcheck bind` applies them (corrupt images).
  if (!plan.mutations.empty()) o.before_upload = mutation_hook(plan.mutations);
  if (oracle == "deps") return check_plan_dependencies(plan, o).verdict;
  if (oracle == "plan-model") return check_plan_model(plan, p.seed, runtime::bind_plan(plan, o));
  if (oracle == "plan-completes") return check_plan_completes(run_plan_model(plan, p.seed), runtime::bind_plan(plan, o));
  if (oracle == "latch") return check_latched_plan(plan, static_cast<int>(p.code.value_or(0)));
  if (oracle == "compaction")
    return check_compaction_plan(plan, p.precondition ? std::optional<unsigned>(*p.precondition) : std::nullopt, p.by);
  if (oracle == "corrupt-image") return check_corrupt_plan(plan, p.expect);
  if (oracle == "relative-ptr") return check_offset_pair(p.field.value_or(0), p.target.value_or(0));
  // bind-structure
  std::string why;
  auto b = Bench::create(plan, 0xAA, true, &why);
  if (!b) return Verdict::inconclusive(Inconclusive::kUnsupported, "config rejected: " + why);
  const Captured c = b->bind(plan, o);
  // As judge_plan: the report against the measured memory, and the reservations predicted
  // from the plan alone for a bind that reached step 1 (completed or latched).
  if (Verdict v = check_bind_report(c, b->memory()); !v.passed()) return v;
  if (c.result.status == 0 || c.result.failure == runtime::BindFailure::kLatched)
    if (Verdict v = check_reserved_from_plan(plan, c.result.stats); !v.passed()) return v;
  if (c.result.status != 0) {
    // A latched bind uploads nothing, whatever latched it (the properties judge every one);
    // with code=N the plan has a planted fatal cause, so N is the expected first code (or a
    // config-bound one its config ran short of before it, status_codes.h).
    if (c.result.failure == runtime::BindFailure::kLatched) {
      if (Verdict v = check_latch_uploads_nothing(c); !v.passed()) return v;
      if (p.code && latched_as_planted(c.result.status, static_cast<int>(*p.code))) return Verdict::pass();
      if (p.code)
        return Verdict::fail("planted-latches", fmt::format("a plan with planted code {}: {} ({})", *p.code,
                                                            runtime::status_line(c.result), c.result.detail));
    }
    if (config_bound_status(c.result.status))
      return Verdict::inconclusive(Inconclusive::kResourceLatch, runtime::status_line(c.result),
                                   latch_code(c.result.status).value_or(0));
    return Verdict::fail("bind-status", runtime::status_line(c.result) + " (" + c.result.detail + ")");
  }
  for (const Verdict& v :
       {check_image_deltas(c.image()), check_image_read(c, b->memory()), check_graph_storage(c, b->memory())})
    if (!v.passed()) return v;
  // The copies: one image copy, one per new definition (the model counts the keys).
  const PlanModelResult model = run_plan_model(plan, p.seed);
  if (!model.ok())  // the definitions cannot be counted: the image copy still can
    return c.result.stats.h2d == 1
               ? Verdict::pass()
               : Verdict::fail("one-copy", fmt::format("a successful bind made {} image copies", c.result.stats.h2d));
  return check_copies(c.result.stats, model.definitions, plan.tensors);
}

Verdict replay_program_verdict(const std::string& oracle, const ir::Program& prog, const ReplayParams& p) {
  passes::PipelineOptions po;
  po.graph_boundary.step_c = p.step_c;
  if (oracle == "end-to-end") return check_end_to_end(prog, p.seed, p.schedule, po, p.config).verdict;
  if (oracle == "roundtrip") return check_print_roundtrip(prog);
  if (oracle == "boundary") return check_boundary(prog, p.step_c);
  if (oracle == "rejection") return check_rejected(prog, static_cast<int>(p.code.value_or(0)));
  if (oracle == "deps") {
    runtime::BindOptions o;
    o.seed = p.seed;
    o.schedule = p.schedule;
    return check_program_dependencies(prog, o, po, p.config).verdict;
  }
  const PipelineRun run = run_pipeline(prog, po);
  if (oracle == "pipeline" || !run.verdict.passed()) return run.verdict;
  for (const Stage& st : run.stages) {  // semantics
    const Verdict v = check_same_semantics(prog, st.program, p.seed, "after " + st.pass);
    if (!v.passed()) return v;
  }
  return Verdict::pass();
}

// A generated program is legal by construction (the generator's promise, legal=1): the
// property that wrote it counts a rejection as a false rejection, and so does its replay.
Verdict replay_program(const std::string& oracle, const ir::Program& prog, const ReplayParams& p) {
  Verdict v = replay_program_verdict(oracle, prog, p);
  if (p.legal && v.reason == Inconclusive::kInputRejected) return Verdict::fail("false-rejection", v.message);
  return v;
}

// The line of `file` at `pos` (without its newline); `pos` moves past it.
std::string_view line_at(std::string_view file, size_t& pos) {
  const size_t end = file.find('\n', pos);
  const std::string_view l = file.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
  pos = end == std::string_view::npos ? file.size() : end + 1;
  return l;
}

}  // namespace

std::optional<std::string> read_replay_params(const std::map<std::string, std::string>& kv, ReplayParams& p) {
  for (const auto& [k, v] : kv) {
    if (k == "seed") {
      if (!parse_u64(v, p.seed)) return fmt::format("seed '{}' is not an unsigned integer", v);
    } else if (k == "schedule") {
      auto s = parse_schedule(v);
      if (!s) return fmt::format("schedule '{}' is not threaded, newest, oldest or random:SEED", v);
      p.schedule = *s;
    } else if (k == "step_c") {
      if (v != "0" && v != "1") return fmt::format("step_c '{}' is not 0 or 1", v);
      p.step_c = v == "1";
    } else if (k == "legal") {
      if (v != "0" && v != "1") return fmt::format("legal '{}' is not 0 or 1", v);
      p.legal = v == "1";
    } else if (k == "W") {
      uint64_t w = 0;
      if (!parse_u64(v, w) || w > (uint64_t{1} << 40)) return fmt::format("W '{}' is not a task window", v);
      std::erase_if(p.config, [](const runtime::ConfigEntry& e) { return e.key == "W"; });
      p.config.push_back({"W", static_cast<int64_t>(w), {}});
    } else if (k == "expect") {
      bool known = false;
      for (unsigned c = 0; c <= static_cast<unsigned>(runtime::AttachErrorClass::kLatchedError); ++c)
        known |= v == runtime::attach_error_name(static_cast<runtime::AttachErrorClass>(c));
      if (!known) return fmt::format("expect '{}' is not an attach class name (BadMagic ... LatchedError)", v);
      p.expect = v;
    } else if (k == "code" || k == "precondition" || k == "by" || k == "field" || k == "target") {
      uint64_t x = 0;
      if (!parse_u64(v, x)) return fmt::format("{} '{}' is not an unsigned integer", k, v);
      if (k == "code") p.code = x;
      if (k == "precondition") p.precondition = x;
      if (k == "by") p.by = x;
      if (k == "field") p.field = x;
      if (k == "target") p.target = x;
    } else {
      return fmt::format("unknown replay parameter '{}'", k);
    }
  }
  return std::nullopt;
}

std::optional<std::string> read_replay_items(std::string_view file, std::map<std::string, std::string>& kv) {
  size_t pos = 0;
  (void)line_at(file, pos);  // the `# stackcheck` line
  while (pos < file.size() && file[pos] == '#') {
    const std::string_view l = line_at(file, pos);
    constexpr std::string_view kReplay = "# replay:";
    if (l.substr(0, kReplay.size()) != kReplay) continue;
    std::string_view rest = l.substr(kReplay.size());
    while (!rest.empty()) {
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      const size_t sp = rest.find(' ');
      const std::string_view item = rest.substr(0, sp);
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp);
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos) return fmt::format("replay parameter '{}' is not KEY=VALUE", item);
      kv[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
  }
  return std::nullopt;
}

std::vector<std::string> replay_oracles() { return kOracles; }

bool is_plan_oracle(std::string_view o) {
  return o == "plan-model" || o == "plan-completes" || o == "bind-structure" || o == "latch" || o == "compaction" || o == "corrupt-image" ||
         o == "relative-ptr";
}

std::string write_counterexample(const Counterexample& c) {
  std::string out = fmt::format("# stackcheck {}\n# failed: {}\n# replay:", c.oracle, one_line(c.failed));
  for (const auto& [k, v] : c.params) out += fmt::format(" {}={}", k, v);
  out += fmt::format("\n# found by {}\n", one_line(c.found_by));
  return out + c.text;
}

ReplayResult replay_counterexample(std::string_view file) {
  ReplayResult r;
  size_t pos = 0;
  const std::string_view first = line_at(file, pos);
  constexpr std::string_view kHead = "# stackcheck ";
  if (first.substr(0, kHead.size()) != kHead) return r.error = "the first line is not '# stackcheck <oracle>'", r;
  r.oracle = std::string(first.substr(kHead.size()));
  while (!r.oracle.empty() && (r.oracle.back() == ' ' || r.oracle.back() == '\r')) r.oracle.pop_back();
  // A binary or overlong name is shown bounded and printable (errors are one line).
  if (r.oracle.size() > 60) r.oracle = r.oracle.substr(0, 60) + "...";
  for (char& c : r.oracle)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  if (r.oracle == "property") {  // found by a property whose check only its own run repeats
    size_t at = file.find("# found by ");
    const std::string_view by = at == std::string_view::npos ? "" : file.substr(at + 11, file.find('\n', at) - at - 11);
    return r.error = fmt::format("this input is rerun by the property that found it: {}", by), r;
  }
  if (r.oracle.rfind("fuzz_", 0) == 0)
    return r.error = fmt::format("a {} input: its replay driver runs it ({}_replay FILE, or scripts/replay FILE)",
                                 r.oracle.substr(0, 40), r.oracle.substr(0, 40)),
           r;
  if (std::find(kOracles.begin(), kOracles.end(), r.oracle) == kOracles.end())
    return r.error = fmt::format("unknown oracle '{}' (replayable: {})", r.oracle, fmt::join(kOracles, ", ")), r;
  std::map<std::string, std::string> kv;
  if (auto why = read_replay_items(file, kv)) return r.error = *why, r;
  ReplayParams p;
  if (auto why = read_replay_params(kv, p)) return r.error = *why, r;
  // `deps` takes either form: a file holding an orchestration function is a program.
  const bool plan =
      is_plan_oracle(r.oracle) || (r.oracle == "deps" && file.find("orchestration ") == std::string_view::npos);
  if (plan) {
    runtime::PlanParseResult parsed = runtime::parse_plan(file);
    if (!parsed.ok()) return r.error = "the plan does not parse: " + parsed.error().to_string(), r;
    r.verdict = replay_plan(r.oracle, parsed.program(), p);
    return r;
  }
  ir::ParseResult parsed = ir::parse_program(file);
  if (!parsed.ok()) return r.error = "the program does not parse: " + parsed.error().to_string(), r;
  r.verdict = replay_program(r.oracle, parsed.program(), p);
  return r;
}

}  // namespace stackcheck::oracles
