// swarm_reach: what swarm generation buys (gen/swarm.h; docs/generators.md). N cases decoded
// the way a fuzz target decodes its bytes, from the same seeds, once with the swarm mask and
// once with the defaults only. For each: the distinct feature combinations, the distinct
// productions and production pairs used together in one case, and the production table side
// by side. With --out DIR each case's text form goes to DIR/swarm/ and DIR/defaults/, for a
// coverage build to count what it reaches (scripts/swarm-reach runs libFuzzer -runs=0 on both).
// --target orchestrator_calls decodes OrchestratorModel.predicts_every_step's cases as its byte
// engine does (gen::generate_call_case); a case's features are then the kinds of call it makes
// (and "provoking"), and it has no text form (no --out).
//
//   swarm_reach [--target fuzz_program|fuzz_bind_plan|orchestrator_calls] [--cases N] [--seed S]
//               [--out DIR]
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/limits.h"
#include "properties/gen/orchestrator_calls.h"
#include "properties/gen/productions.h"
#include "properties/judge/cases.h"
#include "properties/judge/judges.h"

using namespace stackcheck;

namespace {

struct Tally {
  std::set<std::string> combos;
  std::map<std::string, int> productions;
  std::set<std::pair<std::string, std::string>> pairs;
  int masked = 0;
};

struct Options {
  std::string target = "fuzz_program";
  uint64_t cases = 1000, seed = 20261206;
  std::string out;
};

bool parse_u64(std::string_view s, uint64_t& v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string usage() {
  return "usage: swarm_reach [--target fuzz_program|fuzz_bind_plan|orchestrator_calls] [--cases N] [--seed S] "
         "[--out DIR]";
}

// Empty when the flags are good, else why not.
std::string parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) return fmt::format("{} takes a value", a);
    const std::string_view v = argv[++i];
    if (a == "--target" && (v == "fuzz_program" || v == "fuzz_bind_plan" || v == "orchestrator_calls")) {
      o.target = v;
    } else if (a == "--cases") {
      if (!parse_u64(v, o.cases) || o.cases == 0 || o.cases > 1'000'000) return "--cases takes 1..1000000";
    } else if (a == "--seed") {
      if (!parse_u64(v, o.seed)) return "--seed takes an unsigned 64-bit integer";
    } else if (a == "--out") {
      o.out = v;
    } else {
      return fmt::format("unknown flag or value: {} {}", a, v);
    }
  }
  if (o.target == "orchestrator_calls" && !o.out.empty()) return "--out: orchestrator_calls cases have no text form";
  return "";
}

void count(Tally& t, const std::vector<std::string>& features, const std::set<std::string>& prods, bool masked) {
  std::string combo;
  for (const std::string& f : features) combo += f + " ";
  t.combos.insert(combo);
  for (const std::string& p : prods) {
    ++t.productions[p];
    for (auto it = prods.upper_bound(p); it != prods.end(); ++it) t.pairs.emplace(p, *it);
  }
  t.masked += masked;
}

// The kinds of call an orchestrator case makes, as its features.
std::vector<std::string> call_features(const gen::CallCase& k) {
  const std::span<const char* const> names = gen::call_kind_names();
  std::set<size_t> seen;
  for (const auto& call : k.calls) seen.insert(call.index());
  std::vector<std::string> out;
  if (k.head.provoking) out.emplace_back("provoking");
  for (size_t i : seen) out.emplace_back(names[i]);
  return out;
}

// One case from seed `s`: counted into `t`; returns its text form (none for orchestrator calls).
std::string one_case(const Options& o, uint64_t s, bool swarm, Tally& t) {
  gen::SeededChoices c(s);
  if (o.target == "orchestrator_calls") {
    const gen::CallCase k = gen::generate_call_case(c, swarm);
    count(t, call_features(k), gen::orchestrator_call_productions(k.head.setup, k.calls), !k.head.swarm.defaults);
    return "";
  }
  if (o.target == "fuzz_program") {
    gen::ProgramKnobs k = judge::program_knobs();
    k.swarm = swarm;
    judge::ProgramCase pc = judge::decode_program_case(c, k, judge::kDefaultWPerMille);
    count(t, pc.features.names(), gen::ir_productions(pc.program), !pc.swarm.defaults);
    return judge::print_program_case("fuzz_program", pc);
  }
  gen::PlanKnobs k = judge::plan_knobs();
  k.swarm = swarm;
  judge::PlanCase pc = judge::decode_plan_case(c, k, true);
  count(t, pc.features.names(), gen::plan_productions(pc.plan), !pc.swarm.defaults);
  return judge::print_plan_case("fuzz_bind_plan", pc);
}

std::string share(int n, uint64_t of) { return fmt::format("{:5.1f}%", 100.0 * n / static_cast<double>(of)); }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (std::string why = parse(argc, argv, o); !why.empty()) {
    fmt::print(stderr, "swarm_reach: {}\n{}\n", why, usage());
    return 2;
  }
  fmt::print("swarm_reach: {} cases of {} from choice seeds {}..{}\n", o.cases, o.target, o.seed,
             o.seed + o.cases - 1);
  Tally with, without;
  const char* modes[] = {"swarm", "defaults"};
  for (int m = 0; m < 2; ++m) {
    const bool swarm = m == 0;
    std::filesystem::path dir;
    if (!o.out.empty()) {
      dir = std::filesystem::path(o.out) / modes[m];
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) {
        fmt::print(stderr, "swarm_reach: cannot make {}: {}\n", dir.string(), ec.message());
        return 2;
      }
    }
    for (uint64_t i = 0; i < o.cases; ++i) {
      const std::string text = one_case(o, o.seed + i, swarm, swarm ? with : without);
      if (dir.empty()) continue;
      std::ofstream f(dir / fmt::format("case-{:06}", i), std::ios::binary);
      f << text;
      if (!f) {
        fmt::print(stderr, "swarm_reach: cannot write under {}\n", dir.string());
        return 2;
      }
    }
  }
  const auto universe = o.target == "fuzz_program"         ? gen::ir_production_universe()
                        : o.target == "orchestrator_calls" ? gen::orchestrator_call_production_universe()
                                                           : gen::plan_production_universe();
  fmt::print("{:<44} {:>10} {:>10}\n", "", "defaults", "swarm");
  fmt::print("{:<44} {:>10} {:>10}\n", "cases masked by swarm", without.masked, with.masked);
  fmt::print("{:<44} {:>10} {:>10}\n", "distinct feature combinations", without.combos.size(), with.combos.size());
  fmt::print("{:<44} {:>10} {:>10}\n", "distinct productions", without.productions.size(), with.productions.size());
  fmt::print("{:<44} {:>10} {:>10}\n", "distinct production pairs in one case", without.pairs.size(),
             with.pairs.size());
  fmt::print("\nproduction table (share of cases using each):\n");
  for (const gen::Production& p : universe) {
    if (!p.unreachable.empty()) continue;
    const auto get = [&](const Tally& t) {
      auto it = t.productions.find(p.name);
      return it == t.productions.end() ? 0 : it->second;
    };
    fmt::print("  {:<42} {:>10} {:>10}\n", p.name, share(get(without), o.cases), share(get(with), o.cases));
  }
  return 0;
}
