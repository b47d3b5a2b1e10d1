// The limits of the stress-shaped plans (limits.h): plans drawn as Threaded.stress_shaped_plans_*
// draw them (generate_stress_plan from the case's choices), the productions read from each
// plan's statements, loop bounds and config.
#include "properties/gen/stress_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "properties/gen/limits.h"
#include "properties/gen/production_test_util.h"

namespace stackcheck::gen {
namespace {

// The reader finds the shapes in the plan's statements; each plan's own record of its shapes
// (StressPlan::shapes) must name the same ones, or the table would be the reader's mistake.
std::map<std::string, int> stress_productions(int n) {
  return count_productions(n, [](ChoiceSource& c, int i) {
    const StressPlan g = generate_stress_plan(c);
    const std::set<std::string> found = stress_plan_productions(g.plan);
    std::set<std::string> shapes, recorded;
    for (const std::string& p : found)
      if (p.rfind("shape:", 0) == 0) shapes.insert(p);
    for (StressShape s : g.shapes) recorded.insert(std::string("shape:") + stress_shape_name(s));
    EXPECT_EQ(shapes, recorded) << "plan " << i << ":\n" << g.text;
    return found;
  });
}

TEST(GenLimits, stress_plans_reach_every_production) {
  const int n = 6000;
  expect_every_production("stress-shaped plans", n, stress_plan_production_universe(), stress_productions(n));
}

TEST(GenLimitsControl, a_stress_plan_production_nobody_makes_is_reported) {
  expect_control_reports(stress_plan_production_universe(), stress_productions(100));
}

}  // namespace
}  // namespace stackcheck::gen
