// IR properties: the `.gir` text form round-trips for every generated program, and the
// generator only produces well-formed programs (a generator test is a property too).
#include "properties/gen/arbitrary.h"
#include "properties/oracles/roundtrip.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

using namespace stackcheck;

STACKCHECK_PROP(IrProps, print_parse_roundtrip, 0.0) {
  const gen::GeneratedProgram g = *gen::arbitrary_program();
  gen::tag_features(g.features);
  const ir::Program& p = g.program;
  const oracles::Verdict v = oracles::check_print_roundtrip(p);
  stackcheck::props::report(v, oracles::Counterexample{"roundtrip", ir::print_program(p), {}, "", ""});
}

STACKCHECK_PROP(IrProps, generated_programs_are_well_formed, 0.0) {
  const gen::GeneratedProgram g = *gen::arbitrary_program();
  gen::tag_features(g.features);
  const ir::Program& p = g.program;
  const auto diags = verify::check_well_formed(p);
  if (!diags.empty()) props::report(oracles::Verdict::fail("well-formed", diags.front().render("<generated>")));
}

// Positive control: the round-trip oracle must report a program whose printed form does
// not parse back (a name that is a keyword cannot survive printing).
TEST(IrProps, roundtrip_oracle_positive_control) {
  using namespace ir::build;
  ir::Program p;
  p.functions.push_back(orchestration("main", {}, {let("for", lit(1))}));
  EXPECT_TRUE(oracles::check_print_roundtrip(p).failed());
  ir::Program q;
  q.functions.push_back(orchestration("main", {}, {let("a", sub(lit(1), sub(lit(2), lit(3))))}));
  EXPECT_TRUE(oracles::check_print_roundtrip(q).passed());
}
