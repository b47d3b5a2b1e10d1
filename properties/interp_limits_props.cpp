// The reference interpreter's call-depth limit (interp.h's Options) at and one under what
// WellFormed programs need; with its positive control (an interpreter one call shallower).
#include "properties/gen/arbitrary.h"
#include "properties/legal_pipeline.h"
#include "properties/property.h"
#include "stack/interp/interp.h"
#include "stack/ir/printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <functional>
#include <string>

using namespace stackcheck;
using props::draw;

// The reference interpreter's call-depth limit (interp.h's Options; its budget has its own
// property, EndToEnd.interpreter_budget_at_its_limit) at and one under what WellFormed programs
// need: at depth 1 (they nest graph calls one deep) a generated program's run is the same run
// (outputs and steps, or the same error); at depth 0 it either never called a graph (the same
// run) or stops with Invalid at the first graph call, naming the depth.
namespace {
using InterpFn = std::function<interp::Result(const ir::Program&, uint64_t, const interp::Options&)>;
interp::Result stack_interp(const ir::Program& p, uint64_t seed, const interp::Options& o) {
  return interp::run(p, seed, o);
}
bool same_run(const interp::Result& a, const interp::Result& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) return a.error().kind == b.error().kind && a.error().render() == b.error().render();
  if (a.outputs().steps != b.outputs().steps || a.outputs().tensors.size() != b.outputs().tensors.size()) return false;
  for (size_t i = 0; i < a.outputs().tensors.size(); ++i)
    if (a.outputs().tensors[i].bytes != b.outputs().tensors[i].bytes) return false;
  return true;
}
void call_depth_case(const InterpFn& run) {
  const gen::GeneratedProgram g = draw();
  const uint64_t seed = static_cast<uint64_t>(gen::choices().sized(0, 999));
  const interp::Result r = interp::run(g.program, seed);
  const auto cx = [&] { return props::counterexample("interp", ir::print_program(g.program)); };
  interp::Options one;
  one.max_call_depth = 1;
  if (const interp::Result x = run(g.program, seed, one); !same_run(r, x))
    props::report(oracles::Verdict::fail("interp-limit", "at a call depth of 1 the run differs: " +
                                                             (x.ok() ? std::string("other outputs") : x.error().render())),
                  cx());
  interp::Options none;
  none.max_call_depth = 0;
  const interp::Result x = run(g.program, seed, none);
  if (same_run(r, x)) {
    gen::tag("call depth: no graph call ran");
  } else if (x.ok() || x.error().kind != interp::ErrorKind::Invalid ||
             x.error().message != "graph calls nest deeper than 0") {
    props::report(oracles::Verdict::fail("interp-limit", "at a call depth of 0: " +
                                                             (x.ok() ? std::string("other outputs") : x.error().render())),
                  cx());
  } else {
    gen::tag("call depth: a graph call refused at depth 0");
  }
}
}  // namespace
STACKCHECK_PROP(InterpreterLimits, interpreter_call_depth_at_its_limit, 0.0) { call_depth_case(stack_interp); }
STACKCHECK_CONTROL(InterpreterLimitsControl, an_interpreter_one_call_shallower_fails, "at a call depth of 1") {
  call_depth_case([](const ir::Program& p, uint64_t seed, const interp::Options& o) {
    interp::Options tighter = o;
    if (tighter.max_call_depth > 0) --tighter.max_call_depth;
    return interp::run(p, seed, tighter);
  });
}
