// A tensor's shape limits (COMPILER.md §1: rank 1..3, dims >= 1, at most 65,536 elements)
// met exactly and one past, in a program the property writes: an entry whose two tensors and
// one create have the drawn shape, accumulated through two kernel launches. At the limit it
// compiles, binds and matches the reference interpreter (check_end_to_end); one past (an
// element too many, a zero extent, a fourth dimension), the front end refuses it and the
// pipeline never hands it on. Positive control: a judge that expects one past to run fails.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/end_to_end.h"
#include "properties/property.h"
#include "stack/ir/parser.h"

using namespace stackcheck;
using oracles::Inconclusive;
using oracles::Verdict;

namespace {

// Shapes of exactly 65,536 elements at every rank, and their neighbours one past the limits.
const std::vector<std::vector<int64_t>> kAtLimit = {{65536}, {256, 256}, {1, 65536}, {65536, 1},
                                                    {16, 64, 64}, {64, 32, 32}, {1, 1, 65536}};
const std::vector<std::vector<int64_t>> kOnePast = {{65537}, {256, 257}, {2, 32769}, {16, 64, 65},
                                                    {0},     {4, 0},     {1, 1, 1, 1}, {2, 2, 2, 2}};

std::string program_of(const std::vector<int64_t>& shape) {
  const std::string t = fmt::format("tensor<i32>[{}]", fmt::join(shape, ", "));
  return fmt::format(
      "kernel kacc(x: In {0}, a: InOut {0}) -> (a) = builtin acc\n"
      "orchestration main(x: In {0}, c: InOut {0}) {{\n"
      "  t = create [{1}]\n"
      "  t1 = call kacc(x, t)\n"
      "  c1 = call kacc(t1, c)\n"
      "}}\n",
      t, fmt::join(shape, ", "));
}

void shape_case(bool expect_past_to_run) {
  gen::ChoiceSource& c = gen::choices();
  const bool past = c.chance(50);
  const std::vector<int64_t>& shape = past ? kOnePast[c.one_of(kOnePast.size())] : kAtLimit[c.one_of(kAtLimit.size())];
  gen::tag(fmt::format("shape-limit:{}:rank-{}", past ? "one-past" : "at", shape.size()));
  const std::string text = program_of(shape);
  const auto cx = props::counterexample("shape-limit", text);
  const ir::ParseResult parsed = ir::parse_program(text);
  if (!parsed.ok()) {
    if (past) return;  // the parser may refuse a shape first (a zero or a fourth extent in a type)
    props::report(Verdict::fail("shape-limit", "the program at the limit does not parse: " + parsed.error().to_string()), cx);
  }
  const oracles::EndToEndRun run =
      oracles::check_end_to_end(parsed.program(), 1, runtime::ScheduleOptions{}, {}, {{"W", 64, {}}});
  const bool refused = run.verdict.inconclusive() && run.verdict.reason == Inconclusive::kInputRejected;
  if (past && !expect_past_to_run && !refused)
    props::report(Verdict::fail("shape-limit", fmt::format("shape [{}] is past the limits, and the pipeline did not "
                                                           "refuse it ({})",
                                                           fmt::join(shape, ", "), run.verdict.to_string())),
                  cx);
  if (!past || expect_past_to_run) {
    if (refused || run.verdict.inconclusive())
      props::report(Verdict::fail("shape-limit", fmt::format("shape [{}] ({} elements at most) did not run: {}",
                                                             fmt::join(shape, ", "), 65536, run.verdict.to_string())),
                    cx);
    props::report(run.verdict, cx);
  }
}

}  // namespace

STACKCHECK_PROP(ShapeLimits, at_the_element_limit_runs_and_one_past_is_refused, 0.0) { shape_case(false); }

STACKCHECK_CONTROL(ShapeLimitsControl, a_judge_expecting_one_past_to_run_fails, "did not run") { shape_case(true); }
