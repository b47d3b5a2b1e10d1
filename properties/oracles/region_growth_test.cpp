// RegionGrowth (region_growth.h) on a Runtime that binds a small plan, a larger one (the region
// grows to max(need, 2·old)) and the small one again (it stays); with controls: a follower that
// missed the first bind predicts need alone, and one fed another Runtime's memory sees no region.
#include "properties/oracles/region_growth.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

runtime::OrchProgram corpus_plan(const char* name) {
  std::ifstream in(std::string(STACKCHECK_CORPUS_DIR "/plans/") + name);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  runtime::PlanParseResult p = runtime::parse_plan(text);
  EXPECT_TRUE(p.ok());
  return p.ok() ? p.program() : runtime::OrchProgram{};
}

TEST(RegionGrowth, follows_three_binds_and_controls_fail) {
  const runtime::OrchProgram small = corpus_plan("hazards_dag.plan"), large = corpus_plan("wide_fan_reduce.plan");
  auto bench = Bench::create(small, 0xAA, true);
  ASSERT_NE(bench, nullptr);
  RegionGrowth growth, late;
  const Captured first = bench->bind(small);
  ASSERT_FALSE(first.staged.empty());
  const Verdict v1 = growth.after_bind(first, bench->memory());
  EXPECT_TRUE(v1.passed()) << v1.to_string();
  const uint64_t one = growth.predicted();
  const Captured second = bench->bind(large);
  const Verdict v2 = growth.after_bind(second, bench->memory());
  EXPECT_TRUE(v2.passed()) << v2.to_string();
  // The second plan needs more than the first's region and less than twice it: 2·old.
  ASSERT_EQ(growth.predicted(), 2 * one);
  // The control: a follower that never saw the first bind predicts `need` alone.
  const Verdict missed = late.after_bind(second, bench->memory());
  EXPECT_TRUE(missed.failed());
  EXPECT_NE(missed.message.find("§5 gives"), std::string::npos) << missed.message;
  const Captured third = bench->bind(small);
  const Verdict v3 = growth.after_bind(third, bench->memory());
  EXPECT_TRUE(v3.passed()) << v3.to_string();
  // A follower judging another Runtime's memory (no region there yet) fails.
  auto other = Bench::create(small, 0xAA, true);
  RegionGrowth wrong;
  const Verdict elsewhere = wrong.after_bind(first, other->memory());
  EXPECT_TRUE(elsewhere.failed());
  EXPECT_EQ(elsewhere.rule, "region");
}

}  // namespace
}  // namespace stackcheck::oracles
