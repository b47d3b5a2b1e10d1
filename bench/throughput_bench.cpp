// The cost of one input of each deep fuzz target (HARNESS.md §7), measured with Google
// Benchmark over a fixed corpus (corpus/bench/<target>/, raw inputs as libFuzzer hands them to
// the target): the same decode and the same judge (properties/judge/judges.h) as
// fuzz_program, fuzz_bind_plan and fuzz_attach, under a Judgement that charges the time since
// its previous mark to the oracle tier of each verdict.
//
// Counters, per input: allocs and alloc_bytes (bench/alloc_count.h: every operator new of the
// process, worker threads included; counted in an untimed first pass), unbalanced (the share
// of inputs of that pass that end with more allocations than frees), minflt (page faults,
// getrusage), and for every tier `<tier>.us` (time charged to it), `<tier>.reach` (the share of
// inputs on which it gave a verdict) and `<tier>.allocs` (allocations charged to it in the
// counted pass). `(decode)` is the decoder, `(teardown)` what the judge frees after its last
// verdict. An input that fails an oracle stops the benchmark with the finding: the corpus is
// clean.
//
// Build: any preset (dev, fuzz: the same code under ASan + UBSan + coverage); scripts/throughput
// runs both and prints them side by side.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/alloc_count.h"
#include "bench/bench_corpus.h"
#include "properties/gen/choice.h"
#include "properties/judge/cases.h"
#include "properties/judge/judgement.h"
#include "properties/judge/judges.h"
#include "stack/ir/walk.h"
#include "stack/support/splitmix.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// The fuzz preset's figures are what a libFuzzer execution costs, so the benchmark runs under
// the libFuzzer binaries' ASan defaults (fuzz/init.cpp: no allocation stacks kept); the replay
// drivers keep full stacks for their reports. ASAN_OPTIONS overrides this, as there.
extern "C" const char* __asan_default_options() { return "malloc_context_size=0"; }
#endif
#endif

namespace stackcheck::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Tier {
  std::string name;
  Clock::duration time{};
  uint64_t allocations = 0;  // operator new calls charged to it (counted passes only)
  uint64_t inputs = 0;       // inputs on which the tier gave at least one verdict
  uint64_t verdicts = 0;
  uint64_t seen_at = UINT64_MAX;  // the last input counted in `inputs`
};

struct Finding : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The tiers a run of one target met, in the order they first gave a verdict.
class Tiers {
 public:
  Tier& at(std::string_view name) {
    for (Tier& t : tiers_)
      if (t.name == name) return t;
    return tiers_.emplace_back(Tier{std::string(name)});
  }
  void charge(std::string_view name, Clock::duration d, uint64_t input) {
    Tier& t = at(name);
    t.time += d;
    const uint64_t now = alloc_counts().allocations;
    t.allocations += now - allocations_seen_;
    allocations_seen_ = now;
    if (t.seen_at != input) {
      t.seen_at = input;
      ++t.inputs;
    }
  }
  const std::vector<Tier>& all() const { return tiers_; }
  // Allocations from here on are charged to the next tier charged.
  void start_input() { allocations_seen_ = alloc_counts().allocations; }

 private:
  std::vector<Tier> tiers_;
  uint64_t allocations_seen_ = 0;
};

// Charges the time since its previous mark to the tier of each verdict; a failure is a finding.
class TierClock final : public judge::Judgement {
 public:
  TierClock(Tiers& tiers, uint64_t input, std::string_view input_name)
      : tiers_(tiers), input_(input), input_name_(input_name), last_(Clock::now()) {}
  bool check(std::string_view oracle, const oracles::Verdict& v) override {
    mark(oracle);
    ++tiers_.at(oracle).verdicts;
    if (v.failed()) fail(oracle, v);
    return v.passed();
  }
  [[noreturn]] void fail(std::string_view oracle, const oracles::Verdict& v) override {
    throw Finding(std::string(input_name_) + ": " + std::string(oracle) + ": " + v.to_string());
  }
  int reject(std::string why) override {
    mark("(rejected)");
    return 0;
  }
  int done() override {
    last_ = Clock::now();
    return 0;
  }
  Clock::time_point last() const { return last_; }

 private:
  void mark(std::string_view tier) {
    const Clock::time_point now = Clock::now();
    tiers_.charge(tier, now - last_, input_);
    last_ = now;
  }
  Tiers& tiers_;
  uint64_t input_;
  std::string_view input_name_;
  Clock::time_point last_;
};

uint64_t page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_minflt + u.ru_majflt);
}

// One target: every iteration judges the whole corpus once.
template <class Decode, class JudgeCase>
void run_target(benchmark::State& state, const char* target, Decode decode, JudgeCase judge_case) {
  std::string error;
  const std::vector<Input> inputs = load(target, &error);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  // One input: decoded, then judged under the clock; false (the benchmark stopped) on a finding.
  Tiers tiers;
  uint64_t judged = 0;
  auto judge_one = [&](const Input& in) {
    try {
      tiers.start_input();
      Clock::time_point t0 = Clock::now();
      gen::ByteChoices c(std::span<const uint8_t>(in.bytes.data(), in.bytes.size()));
      auto decoded = decode(c);
      tiers.charge("(decode)", Clock::now() - t0, judged);
      TierClock j(tiers, judged, in.name);
      judge_case(j, decoded);
      tiers.charge("(teardown)", Clock::now() - j.last(), judged);
    } catch (const Finding& f) {
      set_counting(false);
      state.SkipWithError(f.what());
      return false;
    }
    ++judged;
    return true;
  };
  // Allocations are counted in a pass of their own, before the timed ones, so the counting
  // costs the timed figures nothing (and the process's reusable state is warm, as it is in a
  // fuzzing process after its first inputs).
  // An input that ends with more allocations than frees is one libFuzzer runs a second time
  // (its malloc/free balance check, which looks for a leak): counted as `unbalanced`.
  const AllocCounts a0 = alloc_counts();
  uint64_t unbalanced = 0;
  set_counting(true);
  for (const Input& in : inputs) {
    const AllocCounts before = alloc_counts();
    if (!judge_one(in)) return;
    const AllocCounts after = alloc_counts();
    if (after.allocations - before.allocations > after.frees - before.frees) ++unbalanced;
  }
  set_counting(false);
  const AllocCounts a1 = alloc_counts();
  const uint64_t counted = judged;
  const Tiers counted_tiers = tiers;
  tiers = Tiers();
  judged = 0;
  const uint64_t faults0 = page_faults();
  for (auto _ : state)
    for (const Input& in : inputs)
      if (!judge_one(in)) return;
  const double n = judged ? static_cast<double>(judged) : 1.0;
  state.SetItemsProcessed(static_cast<int64_t>(judged));
  state.counters["inputs"] = static_cast<double>(inputs.size());
  state.counters["allocs"] = static_cast<double>(a1.allocations - a0.allocations) / static_cast<double>(counted);
  state.counters["unbalanced"] = static_cast<double>(unbalanced) / static_cast<double>(counted);
  state.counters["alloc_bytes"] = static_cast<double>(a1.bytes - a0.bytes) / static_cast<double>(counted);
  state.counters["minflt"] = static_cast<double>(page_faults() - faults0) / n;
  for (const Tier& t : tiers.all()) {
    state.counters[t.name + ".us"] = std::chrono::duration<double, std::micro>(t.time).count() / n;
    state.counters[t.name + ".reach"] = static_cast<double>(t.inputs) / n;
  }
  for (const Tier& t : counted_tiers.all())
    state.counters[t.name + ".allocs"] = static_cast<double>(t.allocations) / static_cast<double>(counted);
}

void fuzz_program(benchmark::State& s) {
  run_target(s, "fuzz_program", judge::decode_program,
             [](judge::Judgement& j, const judge::ProgramCase& c) { return judge::judge_program(j, c); });
}
void fuzz_bind_plan(benchmark::State& s) {
  run_target(s, "fuzz_bind_plan", judge::decode_plan,
             [](judge::Judgement& j, const judge::PlanCase& c) { return judge::judge_plan(j, c); });
}
void fuzz_attach(benchmark::State& s) {
  run_target(s, "fuzz_attach", judge::decode_attach,
             [](judge::Judgement& j, const judge::AttachCase& c) { return judge::judge_attach(j, c); });
}

// Nothing on the per-input path may be quadratic in the program's size (issue 22): the same
// judge over programs drawn with ever larger bodies (statements per graph and entry body 4k,
// call sites 2 + k/2), 24 programs from fixed pseudo-random bytes per size. Reported per
// statement: a tier whose `<tier>.us_per_stmt` grows with k is superlinear. Not in the corpus
// runs' regex (scripts/throughput): it has no corpus.
void scaling_fuzz_program(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  gen::ProgramKnobs knobs;
  knobs.swarm = false;  // every program at the size asked for
  knobs.max_sites = 2 + k / 2;
  knobs.max_graph_stmts = 4 * k;
  knobs.max_entry_stmts = 4 * k;
  std::vector<judge::ProgramCase> cases;
  uint64_t statements = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    support::SplitMix64 r(seed);
    std::vector<uint8_t> bytes(1 << 16);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(r.next());
    gen::ByteChoices c(std::span<const uint8_t>(bytes.data(), bytes.size()));
    cases.push_back(judge::decode_program_case(c, knobs, 0));
    for (const ir::Function& f : cases.back().program.functions)
      ir::walk_statements(f.body, [&](const ir::Stmt&) { ++statements; });
  }
  Tiers tiers;
  uint64_t judged = 0;
  try {
    for (auto _ : state)
      for (const judge::ProgramCase& pc : cases) {
        TierClock j(tiers, judged, "scaling");
        judge::judge_program(j, pc);
        ++judged;
      }
  } catch (const Finding& f) {
    state.SkipWithError(f.what());
    return;
  }
  const double per_input = static_cast<double>(statements) / static_cast<double>(cases.size());
  const double n = judged ? static_cast<double>(judged) : 1.0;
  state.counters["stmts"] = per_input;
  for (const Tier& t : tiers.all()) {
    state.counters[t.name + ".us_per_stmt"] = std::chrono::duration<double, std::micro>(t.time).count() / n / per_input;
    state.counters[t.name + ".reach"] = static_cast<double>(t.inputs) / n;
  }
}

BENCHMARK(fuzz_program)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(scaling_fuzz_program)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(fuzz_bind_plan)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(fuzz_attach)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace stackcheck::bench

BENCHMARK_MAIN();
