// IR properties: the `.gir` text form round-trips for every generated program, and the
// generator only produces well-formed programs (a generator test is a property too).
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_edits.h"
#include "properties/gen/tags.h"
#include "properties/oracles/ref_arith.h"
#include "properties/oracles/roundtrip.h"
#include "properties/property.h"
#include "stack/interp/interp.h"
#include "stack/ir/arith.h"
#include "stack/ir/builder.h"
#include "stack/ir/equal.h"
#include "stack/support/splitmix.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <climits>
#include <string>

#include <fmt/format.h>

using namespace stackcheck;

STACKCHECK_PROP(IrProps, print_parse_roundtrip, 0.0) {
  const gen::GeneratedProgram g = gen::any_program();
  gen::tag_features(g.features);
  const ir::Program& p = g.program;
  const oracles::Verdict v = oracles::check_print_roundtrip(p);
  stackcheck::props::report(v, oracles::Counterexample{"roundtrip", ir::print_program(p), {}, "", ""});
}

STACKCHECK_PROP(IrProps, generated_programs_are_well_formed, 0.0) {
  const gen::GeneratedProgram g = gen::any_program();
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
  // The layout half: the canonical text passes; one space of indent per block, a blank line
  // or a doubled space does not.
  const std::string text = ir::print_program(q);
  EXPECT_EQ(oracles::canonical_layout_problem(text), std::nullopt) << text;
  std::string narrow = text, blank = text, doubled = text;
  narrow.replace(narrow.find("\n  ") + 1, 2, " ");
  blank.insert(blank.find('\n') + 1, "\n");
  doubled.replace(doubled.find(" = "), 3, " =  ");
  for (const std::string& bad : {narrow, blank, doubled})
    EXPECT_NE(oracles::canonical_layout_problem(bad), std::nullopt) << bad;
  // A program of no functions prints nothing, which is canonical (the campaign of 2026-12-04
  // found the layout check refusing it: fuzz_parse's empty input); a text without its final
  // newline is not.
  EXPECT_TRUE(oracles::check_print_roundtrip(ir::Program{}).passed());
  EXPECT_NE(oracles::canonical_layout_problem(text.substr(0, text.size() - 1)), std::nullopt);
}

// The scalar arithmetic every interpreter, folder and kernel of the stack shares
// (support/wrapping.h, ir::apply_binop) against the oracles' own 128-bit reference
// (oracles/ref_arith.h), on operands at the limits of i64 and around zero: a slip there
// would be invisible to every differential oracle that compared two users of it.
namespace {
using CompareFn = bool (*)(support::CompareOp, int64_t, int64_t);
std::string arith_case(gen::ChoiceSource& c, CompareFn compare = support::compare) {
  auto operand = [&c]() -> int64_t {
    switch (c.one_of(3)) {
      case 0: return c.integer(-9, 9);
      case 1: return c.near_edges(INT64_MIN, INT64_MAX);
      default: return c.integer(INT64_MIN, INT64_MAX);
    }
  };
  const int64_t a = operand(), b = c.chance(30) ? a : operand(), s = c.chance(50) ? c.integer(-3, 3) : operand();
  std::string out;
  for (uint8_t k = 0; k <= static_cast<uint8_t>(support::ArithOp::Mod); ++k) {
    const auto op = static_cast<support::ArithOp>(k);
    const auto want = oracles::ref::apply(op, a, b);
    if (support::apply(op, a, b) != want || ir::apply_binop(op, a, b) != want)
      out += fmt::format("{} {} {}: the stack gives {}, the reference {}\n", a, support::op_text(op), b,
                         support::apply(op, a, b) ? std::to_string(*support::apply(op, a, b)) : "none",
                         want ? std::to_string(*want) : "none");
  }
  for (uint8_t k = 0; k <= static_cast<uint8_t>(support::CompareOp::Ge); ++k) {
    const auto op = static_cast<support::CompareOp>(k);
    if (compare(op, a, b) != oracles::ref::compare(op, a, b))
      out += fmt::format("{} {} {}: the stack says {}\n", a, support::op_text(op), b, compare(op, a, b));
  }
  support::SplitMix64 rng(static_cast<uint64_t>(a));
  for (uint64_t k = 0; k < 3; ++k)
    if (const uint64_t got = rng.next(), want = oracles::ref::splitmix64_at(static_cast<uint64_t>(a), k); got != want)
      out += fmt::format("splitmix64 seed {} draw {}: the stack gives {:#x}, the reference {:#x}\n", a, k, got, want);
  if (support::trip_count(a, b, s) != oracles::ref::trip_count(a, b, s))
    out += fmt::format("range({}, {}, {}): the stack counts {} trips, the reference {}\n", a, b, s,
                       support::trip_count(a, b, s).value_or(0), oracles::ref::trip_count(a, b, s).value_or(0));
  return out;
}

void arith_prop(CompareFn compare) {
  gen::ChoiceSource& c = gen::choices();
  const std::string diff = arith_case(c, compare);
  if (!diff.empty()) props::report(oracles::Verdict::fail("arithmetic", diff));
}
// The positive control: `>=` taken for `>` (equal operands are drawn three times in ten).
bool ge_as_gt(support::CompareOp op, int64_t a, int64_t b) {
  return op == support::CompareOp::Ge ? a > b : support::compare(op, a, b);
}
}  // namespace

STACKCHECK_PROP(IrProps, scalar_arithmetic_equals_the_reference, 0.0) { arith_prop(support::compare); }

STACKCHECK_CONTROL(IrPropsControl, a_compare_taking_ge_for_gt_fails, ">=") { arith_prop(ge_as_gt); }

// The comparator every structural oracle trusts (ir::equal: the round trip, determinism,
// pass idempotence, the pass manager's "accepted program") judged against the printer, a
// second implementation of "every field but locations": one edit of one field anywhere
// (gen/ir_edits.h) leaves the programs equal exactly when it leaves the printed texts equal,
// both ways round; a copy with every location moved stays equal. The class: a comparator
// blind to a field (a param, a block, an operand), under which those oracles accept anything.
namespace {
using ProgramEq = bool (*)(const ir::Program&, const ir::Program&);
bool stack_equal(const ir::Program& a, const ir::Program& b) { return ir::equal(a, b); }

void comparator_case(ProgramEq eq) {
  const gen::GeneratedProgram g = gen::any_program();
  const ir::Program& p = g.program;
  const std::vector<gen::IrEdit> sites = gen::ir_edit_sites(p);
  RC_ASSERT(!sites.empty());
  gen::ChoiceSource& c = gen::choices();
  const gen::IrEdit& edit = sites[static_cast<size_t>(c.integer(0, static_cast<int64_t>(sites.size()) - 1))];
  ir::Program q = p;
  edit.apply(q);
  const std::string before = ir::print_program(p), after = ir::print_program(q);
  const bool same_text = before == after;
  gen::tag(same_text ? "edit not in the text" : "edit in the text");
  ir::Program moved = p;
  gen::relocate(moved, static_cast<uint32_t>(c.integer(1, 1000)));
  if (!eq(p, moved) || !eq(moved, p))
    props::report(oracles::Verdict::fail("comparator", "a copy with its locations moved compares unequal:\n" + before));
  if (eq(p, q) != same_text || eq(q, p) != same_text)
    props::report(oracles::Verdict::fail("comparator",
                                         fmt::format("after the edit '{}' the comparator says {} / {} but the "
                                                     "printed texts are {}:\n{}",
                                                     edit.what, eq(p, q) ? "equal" : "unequal",
                                                     eq(q, p) ? "equal" : "unequal", same_text ? "equal" : "different",
                                                     after)));
}

// The control: a comparator that never looks into bodies.
bool blind_to_bodies(const ir::Program& a, const ir::Program& b) {
  ir::Program c = b;
  for (size_t k = 0; k < c.functions.size() && k < a.functions.size(); ++k) c.functions[k].body = a.functions[k].body;
  return ir::equal(a, c);
}
}  // namespace

STACKCHECK_PROP(IrProps, structural_equality_agrees_with_the_printer, 0.0) { comparator_case(stack_equal); }

STACKCHECK_CONTROL(IrPropsControl, a_comparator_blind_to_bodies_fails, "comparator") {
  comparator_case(blind_to_bodies);
}

// Identity (ir::identical: every field, locations and the fields a kind leaves unused included;
// what the incremental WellFormed trusts to skip a function) judged by what it must see: a copy
// is identical and has an identical signature; a copy with every location moved is neither, in
// every function; after any one edit whose text differs (24 of the edits the program admits,
// spread over it), some function is not identical;
// and identity implies structural equality. The class: an identity blind to locations, or to
// a field, under which WellFormed keeps a stale verdict; or one that never holds, under which
// the incremental check skips nothing.
namespace {
using FunctionEq = bool (*)(const ir::Function&, const ir::Function&);
bool stack_identical(const ir::Function& a, const ir::Function& b) { return ir::identical(a, b); }

void identity_case(FunctionEq same) {
  const gen::GeneratedProgram g = gen::any_program();
  const ir::Program& p = g.program;
  const ir::Program copy = p;
  ir::Program moved = p;
  gen::relocate(moved, static_cast<uint32_t>(gen::choices().integer(1, 1000)));
  for (size_t k = 0; k < p.functions.size(); ++k) {
    const ir::Function& f = p.functions[k];
    if (!same(f, copy.functions[k]) || !ir::identical_signature(f, copy.functions[k]))
      props::report(oracles::Verdict::fail("identity", fmt::format("a copy of '{}' is not identical", f.name)));
    if (same(f, moved.functions[k]) || ir::identical_signature(f, moved.functions[k]))
      props::report(oracles::Verdict::fail("identity", fmt::format("'{}' with its locations moved is identical", f.name)));
  }
  // 24 of the edits the program admits, spread evenly over its list from a drawn start (all of
  // them when fewer), each on a fresh copy: every kind of field in most cases, at a tenth of
  // the cost of all of them.
  const std::string printed = ir::print_program(p);
  const std::vector<gen::IrEdit> sites = gen::ir_edit_sites(p);
  RC_ASSERT(!sites.empty());
  const size_t n = sites.size(), take = std::min<size_t>(n, 24);
  const size_t start = static_cast<size_t>(gen::choices().integer(0, static_cast<int64_t>(n) - 1));
  for (size_t k = 0; k < take; ++k) {
    const gen::IrEdit& edit = sites[(start + k * n / take) % n];
    ir::Program q = p;
    edit.apply(q);
    bool all_same = q.functions.size() == p.functions.size();
    for (size_t k = 0; all_same && k < p.functions.size(); ++k) {
      all_same = same(p.functions[k], q.functions[k]);
      if (all_same && !ir::equal(p.functions[k], q.functions[k]))
        props::report(oracles::Verdict::fail("identity", fmt::format("after the edit '{}', '{}' is identical but not "
                                                                     "structurally equal", edit.what, p.functions[k].name)));
    }
    if (all_same && ir::print_program(q) != printed)
      props::report(oracles::Verdict::fail("identity", fmt::format("after the edit '{}' every function is identical, "
                                                                   "yet the printed text changed", edit.what)));
  }
}

// The control: an identity blind to locations (structural equality).
bool blind_to_locations(const ir::Function& a, const ir::Function& b) { return ir::equal(a, b); }
}  // namespace

STACKCHECK_PROP(IrProps, identity_sees_every_field_and_location, 0.0) { identity_case(stack_identical); }

STACKCHECK_CONTROL(IrPropsControl, an_identity_blind_to_locations_fails, "with its locations moved is identical") {
  identity_case(blind_to_locations);
}

// The reference interpreter's inputs (COMPILER.md §7), predicted from the oracles' own
// splitmix64 (oracles/ref_arith.h): over the entry params in order, one draw per tensor element,
// row-major, its low 32 bits; `draw % 16` per scalar. Every end-to-end verdict compares the
// runtime with outputs computed from these inputs, and the runtime fills its entry tensors from
// the same draws: an input slip the two sides shared would pass every differential. Up to
// three scalar params are inserted among the generated entry's tensors (codegen refuses entry
// scalars, 306, so no generated program has one; the interpreter runs them). The seed is drawn
// over all of u64, each half at its edges; a control predicts scalars as `draw % 15`.
namespace {
std::string inputs_case(uint64_t scalar_modulus) {
  const gen::GeneratedProgram g = gen::any_program();
  gen::ChoiceSource& c = gen::choices();
  // Two 32-bit halves, each at its edges or anywhere: all of u64 (a draw over the whole i64
  // range overflows RapidCheck's integer shrinker).
  const uint64_t hi = static_cast<uint64_t>(c.near_edges(0, UINT32_MAX));
  const uint64_t seed = hi << 32 | static_cast<uint64_t>(c.near_edges(0, UINT32_MAX));
  const ir::Function* found = nullptr;
  for (const ir::Function& f : g.program.functions)
    if (f.kind == ir::Function::Kind::Orchestration) found = &f;
  RC_ASSERT(found != nullptr);
  // Scalar params among the tensors (a compiled entry has none: codegen refuses them, 306; the
  // interpreter runs such an entry all the same).
  ir::Function with_scalars = *found;
  for (size_t k = c.length(3); k > 0; --k) {
    const size_t at = c.one_of(with_scalars.params.size() + 1);
    with_scalars.params.insert(with_scalars.params.begin() + static_cast<std::ptrdiff_t>(at),
                               ir::build::param(fmt::format("n{}", k), ir::Dir::In, ir::Type::i64()));
  }
  const ir::Function* entry = &with_scalars;
  const auto got = interp::generate_inputs(*entry, seed);
  if (const auto* e = std::get_if<interp::Error>(&got)) return "the interpreter refused the inputs: " + e->render();
  const auto& in = std::get<std::vector<interp::InputValue>>(got);
  if (in.size() != entry->params.size())
    return fmt::format("{} inputs for the entry's {} params", in.size(), entry->params.size());
  uint64_t draw = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const ir::Param& p = entry->params[i];
    if (in[i].name != p.name || in[i].tensor != p.type.is_tensor())
      return fmt::format("input {} is '{}' ({}), the param '{}'", i, in[i].name, in[i].tensor ? "tensor" : "scalar",
                         p.name);
    if (!p.type.is_tensor()) {
      gen::tag("entry scalar param");
      const int64_t want = static_cast<int64_t>(oracles::ref::splitmix64_at(seed, draw++) % scalar_modulus);
      if (in[i].scalar != want)
        return fmt::format("scalar '{}' (draw {} at seed {}) is {}, COMPILER.md §7 gives {}", p.name, draw - 1, seed,
                           in[i].scalar, want);
      continue;
    }
    uint64_t n = 1;
    for (size_t d = 0; d < p.type.dims.size(); ++d) {
      if (in[i].dims.size() != p.type.dims.size() || in[i].dims[d] != p.type.dims[d])
        return fmt::format("tensor '{}' has dims [{}], its type [{}]", p.name, fmt::join(in[i].dims, ", "),
                           fmt::join(p.type.dims, ", "));
      n *= static_cast<uint64_t>(p.type.dims[d]);
    }
    if (in[i].elements.size() != n)
      return fmt::format("tensor '{}' has {} elements, its type {}", p.name, in[i].elements.size(), n);
    for (uint64_t k = 0; k < n; ++k)
      if (const auto want = static_cast<uint32_t>(oracles::ref::splitmix64_at(seed, draw++)); in[i].elements[k] != want)
        return fmt::format("tensor '{}' element {} (draw {} at seed {}) is {:#x}, COMPILER.md §7 gives {:#x}", p.name,
                           k, draw - 1, seed, in[i].elements[k], want);
    gen::tag("entry tensor param");
  }
  return "";
}
}  // namespace

STACKCHECK_PROP(IrProps, interpreter_inputs_are_the_seeds_draws, 0.0) {
  if (const std::string diff = inputs_case(16); !diff.empty()) props::report(oracles::Verdict::fail("inputs", diff));
}

STACKCHECK_CONTROL(IrPropsControl, inputs_predicted_modulo_15_fail, "COMPILER.md") {
  if (const std::string diff = inputs_case(15); !diff.empty()) props::report(oracles::Verdict::fail("inputs", diff));
}
