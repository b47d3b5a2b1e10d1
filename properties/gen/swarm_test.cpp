// Swarm generation (swarm.h): the mask narrows only what the caller allows, a quarter of the
// cases keep the defaults, 0 at every draw is "off" (where shrinking and an exhausted byte input
// go), counts widen only where the caller left the default, and a case replays from its bytes.
#include "properties/gen/swarm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "properties/gen/limits.h"
#include "properties/gen/plan_gen.h"
#include "properties/gen/production_test_util.h"
#include "properties/gen/program_gen.h"
#include "stack/ir/equal.h"
#include "stack/runtime/plan/printer.h"
#include "stack/support/splitmix.h"

namespace stackcheck::gen {
namespace {


TEST(Swarm, a_quarter_of_the_cases_keep_the_defaults_and_the_rest_vary_their_features) {
  int defaults = 0, wide = 0;
  std::set<std::string> masks, off;
  for (uint64_t s = 1; s <= 2000; ++s) {
    SeededChoices c(s);
    SwarmMask m;
    const ProgramKnobs k = swarm_program_knobs(c, ProgramKnobs{}, m);
    if (m.defaults) {
      ++defaults;
      EXPECT_TRUE(k.views && k.ifs && k.submits && k.max_graphs == ProgramKnobs{}.max_graphs);
      continue;
    }
    masks.insert(m.describe());
    off.insert(m.off.begin(), m.off.end());
    wide += m.widened;
    EXPECT_GE(m.density, 1);
    EXPECT_LE(m.density, 9);
  }
  EXPECT_NEAR(defaults, 500, 80);
  EXPECT_GT(masks.size(), 1000u);  // nearly every masked case a mask of its own
  EXPECT_EQ(off.size(), 14u);      // every feature turned off by some case
  EXPECT_GT(wide, 100);            // counts past the defaults
}

TEST(Swarm, the_mask_never_turns_on_what_the_caller_turned_off_nor_touches_planted_constructs) {
  ProgramKnobs base;
  base.views = false;
  base.traps = false;
  base.illegal_view = true;
  base.min_graphs = 2;
  base.max_trips = 2;  // not the default: never widened
  PlanKnobs pbase;
  pbase.scopes = false;
  pbase.min_graphs = 1;
  pbase.planted_percent = 100;
  for (uint64_t s = 1; s <= 500; ++s) {
    SeededChoices c(s);
    SwarmMask m;
    const ProgramKnobs k = swarm_program_knobs(c, base, m);
    EXPECT_FALSE(k.views);
    EXPECT_FALSE(k.traps);
    EXPECT_TRUE(k.illegal_view);
    EXPECT_GE(k.max_graphs, 2);
    EXPECT_LE(k.max_trips, 2);
    SwarmMask pm;
    const PlanKnobs pk = swarm_plan_knobs(c, pbase, pm);
    EXPECT_FALSE(pk.scopes);
    EXPECT_TRUE(pk.graphs);  // the caller asks for a graph
    EXPECT_GE(pk.max_graphs, 1);
    EXPECT_EQ(pk.planted_percent, 100);
  }
}

// 0 at every draw (an exhausted byte input, the end of shrinking): a masked case with every
// feature off and every count at its floor, so the smallest case is a plain one.
TEST(Swarm, the_simplest_draws_turn_every_feature_off) {
  ByteChoices none(std::span<const uint8_t>{});
  SwarmMask m;
  const ProgramKnobs k = swarm_program_knobs(none, ProgramKnobs{}, m);
  EXPECT_FALSE(m.defaults);
  EXPECT_EQ(m.off.size(), 14u);
  EXPECT_FALSE(k.views || k.ifs || k.submits || k.two_d || k.traps);
  EXPECT_EQ(k.max_graphs, 1);
  EXPECT_EQ(k.max_loop_depth, 0);
  ByteChoices none2(std::span<const uint8_t>{});
  SwarmMask pm;
  const PlanKnobs pk = swarm_plan_knobs(none2, PlanKnobs{}, pm);
  EXPECT_FALSE(pk.graphs || pk.scopes || pk.reads || pk.overlaps);
  EXPECT_EQ(pk.max_stmts, 1);
}

// The mask is part of the case: the same bytes, the same program and mask; a generated program
// honours its mask (no feature the mask turned off shows in its tags).
TEST(Swarm, a_case_replays_from_its_bytes_and_honours_its_mask) {
  support::SplitMix64 rng(11);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> bytes(rng.next() % 1024);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next());
    ByteChoices a(bytes), b(bytes);
    const GeneratedProgram x = generate_program(a), y = generate_program(b);
    ASSERT_TRUE(ir::equal(x.program, y.program));
    ASSERT_EQ(x.swarm.describe(), y.swarm.describe());
    const std::set<std::string> off(x.swarm.off.begin(), x.swarm.off.end());
    if (off.count("assembles")) {
      EXPECT_FALSE(x.features.has(Feature::kAssemble));
    }
    if (off.count("ifs")) {
      EXPECT_FALSE(x.features.has(Feature::kIfEntry) || x.features.has(Feature::kIfGraph));
    }
    if (off.count("submits")) {
      EXPECT_FALSE(x.features.has(Feature::kSiteSubmit));
    }
    checked += !off.empty();
    ByteChoices pa(bytes), pb(bytes);
    const GeneratedPlan p = generate_plan(pa), q = generate_plan(pb);
    ASSERT_EQ(runtime::print_plan(p.plan), runtime::print_plan(q.plan));
    if (p.swarm.off.end() != std::find(p.swarm.off.begin(), p.swarm.off.end(), "scopes")) {
      EXPECT_FALSE(p.features.has(PlanFeature::kScope));
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Swarm, a_caller_can_turn_it_off) {
  ProgramKnobs k;
  k.swarm = false;
  ByteChoices c(std::span<const uint8_t>{});
  EXPECT_TRUE(generate_program(c, k).swarm.defaults);
}

// The limits of the swarm draws (limits.h): a program mask and a plan mask per case, over the
// callers' knobs the properties and fuzz targets pass: the defaults; a graph asked for (programs)
// or a planted fatal code in every plan; the fuzz targets' smaller programs and their plans with
// a planted code in ten (judge/judges.cpp); and a caller that turns features off, caps a count
// and asks for an illegal view or a graph. The productions compare the knobs drawn with the
// caller's.
std::map<std::string, int> swarm_counts(int n) {
  return count_productions(n, [](ChoiceSource& c, int i) {
    ProgramKnobs program;
    PlanKnobs plan;
    switch (i % 4) {
      case 1:
        program.min_graphs = 1;
        plan.planted_percent = 100;
        break;
      case 2:
        program = {.max_sites = 2, .max_graph_stmts = 6, .max_entry_stmts = 6};
        plan = {.planted_percent = 10, .small_w_percent = 99};
        break;
      case 3:
        program.views = program.traps = false;
        program.illegal_view = true;
        program.min_graphs = 2;
        program.max_trips = 2;
        plan.scopes = false;
        plan.min_graphs = 1;
        break;
      default: break;
    }
    SwarmMask mask;
    std::set<std::string> out = swarm_program_productions(program, swarm_program_knobs(c, program, mask));
    const std::set<std::string> plans = swarm_plan_productions(plan, swarm_plan_knobs(c, plan, mask));
    out.insert(plans.begin(), plans.end());
    return out;
  });
}

TEST(GenLimits, swarm_draws_reach_every_production) {
  const int n = 4000;
  expect_every_production("swarm draws", n, swarm_production_universe(), swarm_counts(n));
}

TEST(GenLimitsControl, a_swarm_production_nobody_makes_is_reported) {
  expect_control_reports(swarm_production_universe(), swarm_counts(200));
}

}  // namespace
}  // namespace stackcheck::gen
