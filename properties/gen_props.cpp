// Generator properties (STYLE.md 5: tests of generators are properties too): the two engines
// of the choice source build the same program from the same choice sequence.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>

#include "properties/gen/arbitrary.h"
#include "properties/gen/plan_gen.h"
#include "properties/gen/productions.h"
#include "properties/gen/program_gen.h"
#include "properties/property.h"
#include "stack/ir/equal.h"
#include "stack/ir/printer.h"
#include "stack/support/splitmix.h"

using namespace stackcheck;

// A program drawn by the running engine (RapidCheck, or fuzz_props' bytes), its choices recorded
// and encoded as bytes, decodes from those bytes (the fuzzing engine) into the same program,
// consuming every byte.
STACKCHECK_PROP(GenProps, both_engines_build_the_same_program, 0.0) {
  gen::ProgramKnobs knobs;
  knobs.illegal_view = gen::choices().boolean();
  gen::RecordingChoices recorded(gen::choices());
  const gen::GeneratedProgram a = gen::generate_program(recorded, knobs);
  gen::tag_features(a.features);
  const std::vector<uint8_t> bytes = gen::encode_choices(recorded.choices());
  gen::ByteChoices byte_engine(bytes);
  const gen::GeneratedProgram b = gen::generate_program(byte_engine, knobs);
  RC_ASSERT(byte_engine.consumed() == bytes.size());
  if (!ir::equal(a.program, b.program))
    RC_FAIL("the byte engine built another program:\n" + ir::print_program(b.program) + "\nfrom\n" +
            ir::print_program(a.program));
  RC_ASSERT(a.features.names() == b.features.names());
}

// HARNESS.md §8 "a complete vocabulary": the plan generator's production table over 6,000
// plans drawn as the properties draw them (default knobs, a planted fatal cause in a third, a
// graph in another third), read from the plans themselves (gen/productions.h). Every production
// of the `.plan` grammar a plan can hold is used by some plan: one no plan uses is a generator
// gap, and every rule behind it goes unchecked. The table is printed either way.
namespace {

// Draws `n` inputs, the i-th from choice seed kSeed + i through `productions_of(choices, i)`,
// prints the table and requires no production problem.
constexpr uint64_t kProductionSeed = 20261203;
template <class Productions>
void check_vocabulary(const char* what, int n, const std::vector<gen::Production>& universe,
                      Productions productions_of) {
  std::map<std::string, int> counts;
  for (int i = 0; i < n; ++i) {
    gen::SeededChoices c(kProductionSeed + static_cast<uint64_t>(i));
    for (const std::string& p : productions_of(c, i)) ++counts[p];
  }
  std::cout << fmt::format("seed {}, {} {} (choice seeds {}..{})\n", kProductionSeed, n, what, kProductionSeed,
                           kProductionSeed + static_cast<uint64_t>(n) - 1)
            << gen::production_table(universe, counts, n);
  const std::vector<std::string> problems = gen::production_problems(universe, counts);
  EXPECT_TRUE(problems.empty()) << fmt::format("{}", fmt::join(problems, "\n"));
}
}  // namespace

TEST(GenProps, plan_generator_reaches_every_production) {
  check_vocabulary("plans", 6000, gen::plan_production_universe(), [](gen::ChoiceSource& c, int i) {
    gen::PlanKnobs k;
    if (i % 3 == 1) k.planted_percent = 100;
    if (i % 3 == 2) k.min_graphs = 1;
    return gen::plan_productions(gen::generate_plan(c, k).plan);
  });
}

// The same for the program generator over 3,000 programs (default knobs, a graph in half).
TEST(GenProps, program_generator_reaches_every_production) {
  check_vocabulary("programs", 3000, gen::ir_production_universe(), [](gen::ChoiceSource& c, int i) {
    gen::ProgramKnobs k;
    if (i % 2 == 1) k.min_graphs = 1;
    return gen::ir_productions(gen::generate_program(c, k).program);
  });
}

// The table's own control: a generator that never makes a production is reported, and so is
// a production used yet marked unreachable or missing from the universe.
TEST(GenPropsControl, an_unused_production_is_reported) {
  const std::vector<gen::Production> universe = {{"a", "", ""}, {"b", "", ""}, {"c", "cannot", ""}, {"d", "", "gap"}};
  const std::vector<std::string> problems =
      gen::production_problems(universe, {{"a", 3}, {"c", 1}, {"d", 2}, {"e", 1}});
  EXPECT_EQ(problems, (std::vector<std::string>{"never used: b", "used, yet marked unreachable: c",
                                                "used, take it off the known gaps: d",
                                                "missing from the universe: e (1 inputs)"}));
  EXPECT_TRUE(gen::production_problems(universe, {{"a", 1}, {"b", 1}}).empty());
}
