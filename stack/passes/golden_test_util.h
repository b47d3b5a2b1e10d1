// Test-only helpers for pass golden tests (STYLE.md 7): parse Before and Expected `.gir`
// text (the §5 fixture from ir/testing.h), compare canonical prints, and check the pass's
// contracts on the way: the output is WellFormed, a second run changes nothing
// (idempotence) and the reference interpreter gives the same bytes before and after
// (COMPILER.md §8.5). Included by *_test.cpp only.
#pragma once

#include "stack/interp/interp.h"
#include "stack/ir/printer.h"
#include "stack/ir/testing.h"
#include "stack/verify/well_formed.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace stackcheck::passes::testing {

using ir::testing::canonical;
using ir::testing::diagnostics_text;
using ir::testing::kFixtureKernels;
using ir::testing::parse_or_fail;

// The §5 fixture with `body` (lines) as g's body before `return c`.
inline std::string fixture(const std::string& body) { return ir::testing::fixture_text({.body = body}); }

// Interpreter equivalence for a few seeds: equal bytes when the input runs; when the input
// fails (inconclusive), the output must fail too.
inline void expect_same_meaning(const ir::Program& before, const ir::Program& after) {
  interp::Options small;
  small.budget = 1'000'000;  // enough for every golden case; huge loops fail fast
  for (uint64_t seed : {1u, 2u, 7u}) {
    interp::Result a = interp::run(before, seed, small);
    interp::Result b = interp::run(after, seed, small);
    if (!a.ok()) {
      EXPECT_FALSE(b.ok()) << "seed " << seed << ": only the input fails: " << a.error().render();
      continue;
    }
    ASSERT_TRUE(b.ok()) << "seed " << seed << ": output fails: " << b.error().render();
    ASSERT_EQ(a.outputs().tensors.size(), b.outputs().tensors.size());
    for (size_t i = 0; i < a.outputs().tensors.size(); ++i) {
      EXPECT_EQ(a.outputs().tensors[i].bytes, b.outputs().tensors[i].bytes)
          << "seed " << seed << ", tensor " << a.outputs().tensors[i].name;
    }
  }
}

using Transform = std::function<ir::Program(const ir::Program&)>;

// print(pass(parse(before))) == print(parse(expected)), plus the contracts above.
inline void expect_golden(const Transform& pass, const std::string& before, const std::string& expected) {
  const ir::Program in = parse_or_fail(before);
  ASSERT_TRUE(verify::check_well_formed(in).empty()) << "the Before program must be WellFormed:\n"
                                                     << diagnostics_text(verify::check_well_formed(in)) << before;
  const ir::Program out = pass(in);
  EXPECT_EQ(ir::print_program(out), canonical(expected));
  EXPECT_TRUE(verify::check_well_formed(out).empty()) << diagnostics_text(verify::check_well_formed(out));
  EXPECT_EQ(ir::print_program(pass(out)), ir::print_program(out)) << "not idempotent";
  expect_same_meaning(in, out);
}

}  // namespace stackcheck::passes::testing
