// libFuzzer runs an input a second time when it ends with more mallocs than frees (its leak
// check), so a judge that keeps what one input allocated until the next input frees it pays
// for about half its inputs twice (docs/throughput.md, fifth pass: Bench::recycle). These
// tests judge the bench corpus of each deep target twice, counting every operator new and
// delete (alloc_count.cpp), and require that on the second pass no input ends with more
// allocations than frees. The positive control keeps one input's bench until the next input,
// as Bench::recycle did, and must be seen.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/alloc_count.h"
#include "bench/bench_corpus.h"
#include "properties/gen/choice.h"
#include "properties/judge/judgement.h"
#include "properties/judge/judges.h"
#include "properties/oracles/image_checks.h"

namespace stackcheck::bench {
namespace {

// Verdicts are not the point here (the judges' own tests and the targets judge them): a failed
// check is passed over, and a fail() ends the input with an exception this file catches.
class Quiet : public judge::Judgement {
 public:
  bool check(std::string_view, const oracles::Verdict& v) override { return !v.failed(); }
  [[noreturn]] void fail(std::string_view oracle, const oracles::Verdict&) override {
    throw std::runtime_error(std::string(oracle));
  }
  int reject(std::string) override { return 0; }
  int done() override { return 0; }
};

// Keeps the input's bench leased until the next input (the control's slip).
oracles::BenchLease held;

// The first kInputs inputs of `target`'s bench corpus, each judged by `judge_bytes` twice in
// order; the inputs of the second pass that ended with more allocations than frees.
constexpr size_t kInputs = 25;
template <class Judge>
std::vector<std::string> unbalanced_on_second_pass(const std::string& target, Judge judge_bytes) {
  std::string error;
  std::vector<Input> inputs = load(target, &error);
  if (!error.empty()) throw std::runtime_error(error);
  if (inputs.size() > kInputs) inputs.resize(kInputs);
  std::vector<std::string> out;
  for (int pass = 0; pass < 2; ++pass) {
    for (const Input& in : inputs) {
      set_counting(true);
      const AllocCounts before = alloc_counts();
      try {
        gen::ByteChoices c(std::span<const uint8_t>(in.bytes.data(), in.bytes.size()));
        judge_bytes(c);
      } catch (const std::runtime_error&) {
        // a finding (Quiet::fail): its allocations still count
      }
      const AllocCounts after = alloc_counts();
      set_counting(false);
      if (pass == 1 && after.allocations - before.allocations > after.frees - before.frees)
        out.push_back(in.name + ": " + std::to_string(after.allocations - before.allocations) + " allocations, " +
                      std::to_string(after.frees - before.frees) + " frees");
    }
  }
  held.reset();
  return out;
}

void expect_balanced(const std::vector<std::string>& bad) {
  EXPECT_TRUE(bad.empty()) << bad.size() << " unbalanced, first: " << (bad.empty() ? "" : bad.front());
}

TEST(AllocBalance, fuzz_program_inputs_free_what_they_allocate) {
  expect_balanced(unbalanced_on_second_pass("fuzz_program", [](gen::ByteChoices& c) {
    Quiet j;
    judge::judge_program(j, judge::decode_program(c));
  }));
}

TEST(AllocBalance, fuzz_bind_plan_inputs_free_what_they_allocate) {
  expect_balanced(unbalanced_on_second_pass("fuzz_bind_plan", [](gen::ByteChoices& c) {
    Quiet j;
    judge::judge_plan(j, judge::decode_plan(c));
  }));
}

TEST(AllocBalance, fuzz_attach_inputs_free_what_they_allocate) {
  expect_balanced(unbalanced_on_second_pass("fuzz_attach", [](gen::ByteChoices& c) {
    Quiet j;
    judge::judge_attach(j, judge::decode_attach(c));
  }));
}

// Positive control: the plan's bench kept leased until the next input (a bind's Runtime and
// reservations freed one input late) leaves inputs unbalanced, and the check sees them.
TEST(AllocBalanceControl, a_bench_kept_until_the_next_input_is_seen) {
  const auto bad = unbalanced_on_second_pass("fuzz_bind_plan", [](gen::ByteChoices& c) {
    const judge::PlanCase pc = judge::decode_plan(c);
    held.reset();
    held = oracles::lease_bench(pc.plan, std::nullopt, false);
    if (held) held->bind(pc.plan);
  });
  EXPECT_GE(bad.size(), kInputs / 4);
}

}  // namespace
}  // namespace stackcheck::bench
