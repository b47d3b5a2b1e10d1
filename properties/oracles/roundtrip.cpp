#include "properties/oracles/roundtrip.h"

#include "stack/ir/equal.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::oracles {

Verdict check_print_roundtrip(const ir::Program& p) {
  const std::string printed = ir::print_program(p);
  ir::ParseResult again = ir::parse_program(printed);
  if (!again.ok()) return Verdict::fail("roundtrip", "printed program does not parse: " + again.error().to_string());
  if (!ir::equal(again.program(), p)) return Verdict::fail("roundtrip", "parse(print(p)) differs structurally from p");
  const std::string reprinted = ir::print_program(again.program());
  if (reprinted != printed) return Verdict::fail("roundtrip", "print(parse(print(p))) != print(p)");
  return Verdict::pass();
}

Verdict check_plan_roundtrip(const runtime::OrchProgram& p) {
  const std::string printed = runtime::print_plan(p);
  runtime::PlanParseResult again = runtime::parse_plan(printed);
  if (!again.ok()) return Verdict::fail("plan-roundtrip", "printed plan does not parse: " + again.error().to_string());
  if (!(again.program() == p)) return Verdict::fail("plan-roundtrip", "parse(print(plan)) != plan");
  if (runtime::print_plan(again.program()) != printed)
    return Verdict::fail("plan-roundtrip", "print(parse(print(plan))) != print(plan)");
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
