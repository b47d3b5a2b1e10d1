#include "properties/judge/cases.h"

#include <fmt/format.h>

#include <charconv>
#include <map>

#include "properties/oracles/end_to_end.h"
#include "properties/oracles/replay.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/support/fnv1a.h"

namespace stackcheck::judge {

namespace {

runtime::ScheduleOptions default_schedule() {
  runtime::ScheduleOptions s;
  s.mode = runtime::ScheduleOptions::Mode::kNewest;
  return s;
}

// The items of the text's `# replay:` lines; `own` keys are taken out into `taken`.
std::optional<std::string> read_items(std::string_view text, const std::vector<std::string>& own,
                                      std::map<std::string, std::string>& items,
                                      std::map<std::string, std::string>& taken) {
  if (auto why = oracles::read_replay_items(text, items)) return why;
  for (const std::string& k : own)
    if (auto it = items.find(k); it != items.end()) {
      taken.insert(*it);
      items.erase(it);
    }
  return std::nullopt;
}

// The generated=H mark of a canonical text (cases.h).
std::string vouch(const std::string& canonical) {
  return fmt::format("{:016x}", support::fnv1a64(support::kFnvOffset, canonical.data(), canonical.size()));
}
std::string program_vouch(const ir::Program& p) { return vouch(ir::print_program(p)); }
std::string plan_vouch(const runtime::OrchProgram& p, int planted) {
  return vouch(fmt::format("{}planted={}", runtime::print_plan(p), planted));
}

std::optional<std::string> read_mark(const std::map<std::string, std::string>& taken, std::string& out) {
  auto it = taken.find("generated");
  if (it == taken.end()) return std::nullopt;
  if (it->second.size() != 16 || it->second.find_first_not_of("0123456789abcdef") != std::string::npos)
    return fmt::format("generated '{}' is not 16 hex digits", it->second);
  out = it->second;
  return std::nullopt;
}

std::optional<std::string> within_budget(const std::vector<runtime::ConfigEntry>& config) {
  for (const runtime::ConfigEntry& e : config)
    if (e.key == "W" && e.value > kMaxFuzzW)
      return fmt::format("W={} is past the fuzz targets' budget of W={} (a 45 MB mirror)", e.value, kMaxFuzzW);
  return std::nullopt;
}

// What every decoded case starts with (its parameters first, cases.h): the generator vouches
// for it; a seed, then a schedule.
template <class Case>
Case decoded_case(gen::ChoiceSource& c, bool threaded) {
  Case out;
  out.generated = true;
  out.seed = static_cast<uint64_t>(c.integer(0, 0xFFFF));
  out.schedule = decode_schedule(c, threaded);
  return out;
}

}  // namespace

runtime::ScheduleOptions decode_schedule(gen::ChoiceSource& c, bool threaded) {
  runtime::ScheduleOptions s = default_schedule();
  using Mode = runtime::ScheduleOptions::Mode;
  const int64_t k = c.integer(0, 15);
  if (k >= 14 && threaded) {
    s.mode = Mode::kThreaded;
  } else if (k >= 9) {
    s.mode = Mode::kRandom;
    s.seed = static_cast<uint64_t>(c.integer(0, 0xFFFF'FFFF));
  } else if (k >= 6) {
    s.mode = Mode::kOldest;
  }
  return s;
}

ProgramCase decode_program_case(gen::ChoiceSource& c, const gen::ProgramKnobs& knobs, int default_w_per_mille) {
  ProgramCase out = decoded_case<ProgramCase>(c, true);
  out.step_c = !c.chance(25);
  const int64_t w = c.integer(0, 999);
  static constexpr int64_t kSmall[] = {256, 64, 1024};
  const int64_t W = w >= 1000 - default_w_per_mille ? 16384 : kSmall[w % 3];
  out.config.push_back({"W", W, {}});
  gen::GeneratedProgram g = gen::generate_program(c, knobs);
  out.program = std::move(g.program);
  out.features = g.features;
  out.swarm = std::move(g.swarm);
  return out;
}

PlanCase decode_plan_case(gen::ChoiceSource& c, const gen::PlanKnobs& knobs, bool threaded) {
  PlanCase out = decoded_case<PlanCase>(c, threaded);
  gen::GeneratedPlan g = gen::generate_plan(c, knobs);
  out.plan = std::move(g.plan);
  out.planted = g.planted;
  out.features = g.features;
  out.swarm = std::move(g.swarm);
  return out;
}

std::variant<ProgramCase, std::string> parse_program_case(std::string_view text) {
  ProgramCase out;
  out.schedule = default_schedule();
  std::map<std::string, std::string> items, taken;
  std::string mark;
  if (auto why = read_items(text, {"generated"}, items, taken)) return *why;
  if (auto why = read_mark(taken, mark)) return *why;
  oracles::ReplayParams p;
  p.schedule = out.schedule;
  if (auto why = oracles::read_replay_params(items, p)) return *why;
  out.seed = p.seed;
  out.schedule = p.schedule;
  out.step_c = p.step_c;
  out.config = p.config;
  if (auto why = within_budget(out.config)) return *why;
  ir::ParseResult parsed = ir::parse_program(text);
  if (!parsed.ok()) return parsed.error().to_string();
  out.program = std::move(parsed.program());
  out.generated = !mark.empty() && mark == program_vouch(out.program);
  return out;
}

std::variant<PlanCase, std::string> parse_plan_case(std::string_view text, bool mutations) {
  PlanCase out;
  out.schedule = default_schedule();
  std::map<std::string, std::string> items, taken;
  std::string mark;
  if (auto why = read_items(text, {"generated", "planted"}, items, taken)) return *why;
  if (auto why = read_mark(taken, mark)) return *why;
  if (auto it = taken.find("planted"); it != taken.end()) {
    const std::string& v = it->second;
    const auto r = std::from_chars(v.data(), v.data() + v.size(), out.planted);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size() || out.planted < 0 || out.planted > 11)
      return fmt::format("planted '{}' is not a fatal code 0..11", v);
  }
  for (const char* k : {"step_c", "W"})
    if (items.count(k)) return fmt::format("replay parameter '{}' does not apply to a plan (its config line does)", k);
  oracles::ReplayParams p;
  p.schedule = out.schedule;
  if (auto why = oracles::read_replay_params(items, p)) return *why;
  out.seed = p.seed;
  out.schedule = p.schedule;
  runtime::PlanParseResult parsed = runtime::parse_plan(text);
  if (!parsed.ok()) return parsed.error().to_string();
  out.plan = std::move(parsed.program());
  if (auto why = within_budget(out.plan.config)) return *why;
  if (!mutations && !out.plan.mutations.empty()) return "this target takes no `mutate` lines (fuzz_attach does)";
  out.generated = !mark.empty() && mark == plan_vouch(out.plan, out.planted);
  if (!out.generated) out.planted = 0;  // nobody vouches for what the generator planted either
  return out;
}

std::vector<std::pair<std::string, std::string>> replay_params(const ProgramCase& c) {
  std::vector<std::pair<std::string, std::string>> p = {
      {"seed", std::to_string(c.seed)}, {"schedule", oracles::schedule_text(c.schedule)}, {"step_c", c.step_c ? "1" : "0"}};
  for (const runtime::ConfigEntry& e : c.config) p.emplace_back(e.key, std::to_string(e.value));
  if (c.generated) p.emplace_back("generated", program_vouch(c.program));
  return p;
}

std::vector<std::pair<std::string, std::string>> replay_params(const PlanCase& c) {
  std::vector<std::pair<std::string, std::string>> p = {{"seed", std::to_string(c.seed)},
                                                        {"schedule", oracles::schedule_text(c.schedule)}};
  if (c.generated) {
    p.emplace_back("generated", plan_vouch(c.plan, c.planted));
    p.emplace_back("planted", std::to_string(c.planted));
  }
  return p;
}

namespace {
std::string params_text(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [k, v] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, v);
  return out;
}
}  // namespace

std::string print_program_case(const char* target, const ProgramCase& c) {
  return fmt::format("# stackcheck {}\n# replay: {}\n{}", target, params_text(replay_params(c)),
                     ir::print_program(c.program));
}

std::string print_plan_case(const char* target, const PlanCase& c) {
  return fmt::format("# stackcheck {}\n# replay: {}\n{}", target, params_text(replay_params(c)),
                     runtime::print_plan(c.plan));
}

}  // namespace stackcheck::judge
