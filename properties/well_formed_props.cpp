// The WellFormed rules (COMPILER.md §4, rules 1-14) broken in generated programs
// (gen/ir_breaker.h): one at a time, every rule in each program, rules 3, 11 and 13 in every
// place an expression goes, and every condition of the builtin shape rule (10) met and broken.
// WellFormed reports the broken code on the broken statement's line naming what broke it, on
// the program and its reparsed text; the pipeline refuses the input; codegen run without the
// verifier refuses what its lowering rests on; the interpreter reports its own error. With the
// positive controls of each of these checks.
#include "properties/broken_program_judge.h"
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_breaker.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/property.h"
#include "stack/codegen/codegen.h"
#include "stack/interp/interp.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

using namespace stackcheck;
using props::Codegen;
using props::draw;

// One WellFormed rule broken in a generated program (gen/ir_breaker.h): WellFormed's first
// diagnostic has that code, on the program and on its printed and reparsed text, and the
// pipeline refuses the program as input (never a pass bug or a crash).
namespace {
using WellFormedFn = std::function<ir::Diagnostics(const ir::Program&)>;
using Interpreter = std::function<interp::Result(const ir::Program&, uint64_t)>;
interp::Result reference_interpreter(const ir::Program& p, uint64_t seed) { return interp::run(p, seed); }
// The one judge of a broken program (broken_program_judge.h), WellFormed owning the rule.
void judge_broken_well_formed(const gen::BrokenProgram& b, const WellFormedFn& well_formed,
                              const Codegen& generate = codegen::generate_orchestration,
                              const Interpreter& run_interp = reference_interpreter) {
  props::RuleOwner owner = props::rule_owner("WellFormed", "well-formed", well_formed);
  owner.generate = generate;
  owner.run_interp = run_interp;
  props::judge_broken_program(b, owner);
}
void well_formed_rule_case(const WellFormedFn& well_formed, const Codegen& generate = codegen::generate_orchestration,
                           const Interpreter& run_interp = reference_interpreter) {
  const gen::GeneratedProgram g = draw();
  const ir::Program source = g.program;
  const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
      [source](gen::ChoiceSource& c) { return gen::break_well_formed_rule(c, source); });
  if (!b) props::report(oracles::Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for the rule"));
  judge_broken_well_formed(*b, well_formed, generate, run_interp);
}
// Rules 3, 11 and 13 broken by one expression (an undefined name; dim() past the rank or read()
// with the wrong index rank; a literal zero divisor) in every place the language takes a scalar
// expression, one program each (gen::break_expression_at): each owner meets the broken
// expression inside another statement's context (a loop's step, a view's or an assemble's
// offset, a create's extent, a call's argument), where a check can skip an operand list.
void expression_places_case(const WellFormedFn& well_formed) {
  const gen::GeneratedProgram g = draw();
  static constexpr int kCodes[] = {3, 11, 13};
  const int code = kCodes[gen::choices().one_of(std::size(kCodes))];
  const auto source = std::make_shared<const ir::Program>(g.program);  // one copy for every place's draw
  for (size_t place = 0; place < gen::kExprPlaces; ++place) {
    const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
        [source, code, place](gen::ChoiceSource& c) { return gen::break_expression_at(c, *source, code, place); });
    if (b) judge_broken_well_formed(*b, well_formed);
  }
}
// Its positive control: a WellFormed that never looks into a view's or an assemble's offsets.
ir::Program offsets_zeroed(ir::Program p) {
  std::function<void(std::vector<ir::Stmt>&)> walk = [&](std::vector<ir::Stmt>& body) {
    for (ir::Stmt& s : body) {
      if (auto* v = std::get_if<ir::SliceRhs>(&s.rhs))
        for (ir::Expr& e : v->offsets) e = ir::Expr{};  // the literal 0
      if (auto* a = std::get_if<ir::AssembleRhs>(&s.rhs))
        for (ir::Expr& e : a->offsets) e = ir::Expr{};  // the literal 0
      walk(s.body);
      walk(s.else_body);
    }
  };
  for (ir::Function& f : p.functions) walk(f.body);
  return p;
}
// The positive control: a WellFormed blind to literal zero divisors and steps (13).
ir::Diagnostics well_formed_blind_to_13(const ir::Program& p) {
  ir::Diagnostics d = verify::check_well_formed(p);
  std::erase_if(d, [](const ir::Diagnostic& x) { return x.code == 13; });
  return d;
}
// ... and of its line check: a WellFormed that reports each finding one line late.
}  // namespace

STACKCHECK_PROP(WellFormedRules, well_formed_rules_broken_one_at_a_time, 0.3) {
  well_formed_rule_case(verify::check_well_formed);
}

// Every WellFormed rule (1-14) broken in one drawn program, one edit each (its place and its
// variant drawn), each judged as the one-at-a-time property judges its one: a rule's rarer
// variants (a kernel no longer fitting its builtin, launched where the interpreter surely runs
// it; a graph result of a bad type) are met in every run instead of once in a few hundred cases.
namespace {
void every_rule_case(const WellFormedFn& well_formed) {
  const gen::GeneratedProgram g = draw();
  const auto source = std::make_shared<const ir::Program>(g.program);  // one copy for every rule's draw
  for (int code = 1; code <= 14; ++code) {
    const std::optional<gen::BrokenProgram> b = gen::draw_value<std::optional<gen::BrokenProgram>>(
        [source, code](gen::ChoiceSource& c) { return gen::break_well_formed_rule(c, *source, code); });
    if (b) judge_broken_well_formed(*b, well_formed);
  }
}
}  // namespace

STACKCHECK_PROP(WellFormedRules, every_well_formed_rule_in_each_program, 0.3) {
  every_rule_case(verify::check_well_formed);
}
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_blind_to_13_fails_every_rule, "broke 13") {
  every_rule_case(well_formed_blind_to_13);
}

STACKCHECK_PROP(WellFormedRules, broken_expressions_in_every_place, 0.3) {
  expression_places_case(verify::check_well_formed);
}
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_blind_to_view_offsets_fails, "WellFormed reported") {
  expression_places_case([](const ir::Program& p) { return verify::check_well_formed(offsets_zeroed(p)); });
}

// COMPILER.md §4 rule 10, condition by condition: each kernel of a generated program, with one
// bound tensor param's shape changed in one way at a time (each dim one larger, one smaller
// where it stays positive, one axis more, one fewer), is judged by this oracle's own reading
// of §2's shape rules (equal shapes; matmul [m,k], [k,n] -> [m,n]; rowsum [m,n] -> [m,1]).
// WellFormed must report 10 for that kernel exactly when the reading says it no longer binds,
// naming the shapes it found in the rule's order. Each conjunct of a rule is broken on its own, and a change the
// rule allows (rowsum's n) must pass.
namespace {
using Shapes = std::vector<std::vector<int64_t>>;
bool shapes_bind(const std::string& builtin, const Shapes& d) {
  if (builtin == "matmul")
    return d.size() == 3 && d[0].size() == 2 && d[1].size() == 2 && d[2].size() == 2 && d[0][1] == d[1][0] &&
           d[2][0] == d[0][0] && d[2][1] == d[1][1];
  if (builtin == "rowsum")
    return d.size() == 2 && d[0].size() == 2 && d[1].size() == 2 && d[1][0] == d[0][0] && d[1][1] == 1;
  return std::all_of(d.begin(), d.end(), [&](const std::vector<int64_t>& x) { return x == d.front(); });
}
std::string shape_text(const std::vector<int64_t>& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }
// What the message of a kernel that no longer binds must say it found: every shape the rule
// compares, in the rule's own order (equal: the first and the first other; matmul: the first
// not of rank 2, else a, b -> out; rowsum: x -> out).
std::string found_clause(const std::string& builtin, const Shapes& d) {
  if (builtin == "matmul") {
    for (const auto& x : d)
      if (x.size() != 2) return "rank-2 tensors, found " + shape_text(x);
    return fmt::format("found {}, {} -> {}", shape_text(d[0]), shape_text(d[1]), shape_text(d[2]));
  }
  if (builtin == "rowsum") return fmt::format("found {} -> {}", shape_text(d[0]), shape_text(d[1]));
  for (const auto& x : d)
    if (x != d.front()) return fmt::format("found {} and {}", shape_text(d.front()), shape_text(x));
  return "found";
}
void shape_rule_case(const std::function<ir::Diagnostics(const ir::Program&)>& well_formed) {
  const gen::GeneratedProgram g = draw();
  const size_t arity_of_builtin[] = {2, 2, 3, 2, 3, 3, 2};  // fill copy add acc scale matmul rowsum (§2)
  const char* names[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum"};
  for (size_t fi = 0; fi < g.program.functions.size(); ++fi) {
    const ir::Function& k = g.program.functions[fi];
    if (k.kind != ir::Function::Kind::Kernel) continue;
    size_t arity = 0;
    for (size_t b = 0; b < std::size(names); ++b)
      if (k.builtin == names[b]) arity = arity_of_builtin[b];
    std::vector<size_t> bound;
    for (size_t i = 0; i < arity && i < k.params.size(); ++i)
      if (k.params[i].type.is_tensor()) bound.push_back(i);
    Shapes legal;
    for (size_t i : bound) legal.push_back(ir::dims_vector(k.params[i].type.dims));
    if (!shapes_bind(k.builtin, legal)) continue;  // not a builtin-bound kernel of §2's
    gen::tag("shape-rule-" + k.builtin);
    for (size_t bi = 0; bi < bound.size(); ++bi) {
      std::vector<std::vector<int64_t>> changes;
      const std::vector<int64_t>& d = legal[bi];
      for (size_t a = 0; a < d.size(); ++a) {
        changes.push_back(d), ++changes.back()[a];
        if (d[a] > 1) changes.push_back(d), --changes.back()[a];
      }
      if (d.size() < 3) changes.push_back(d), changes.back().push_back(1);  // rank 1..3 (§1)
      if (d.size() > 1) changes.push_back(d), changes.back().pop_back();
      for (const std::vector<int64_t>& changed : changes) {
        int64_t elements = 1;
        for (int64_t x : changed) elements *= x;
        if (elements > 65536) continue;  // a type rule (9), not a shape rule
        ir::Program p = g.program;
        p.functions[fi].params[bound[bi]].type.dims.assign(changed.begin(), changed.end());
        Shapes shapes = legal;
        shapes[bi] = changed;
        const bool binds = shapes_bind(k.builtin, shapes);
        const ir::Diagnostics diags = well_formed(p);
        const auto ten = std::find_if(diags.begin(), diags.end(), [&](const ir::Diagnostic& x) {
          return x.code == 10 && x.message.find("kernel '" + k.name + "'") != std::string::npos;
        });
        const std::string what = fmt::format("kernel '{}' ({}) with param '{}' of shape {} for {}", k.name, k.builtin,
                                             k.params[bound[bi]].name, shape_text(changed), shape_text(d));
        const auto cx = [&] { return props::counterexample("well-formed", ir::print_program(p), {{"code", "10"}}); };
        if (binds != (ten == diags.end()))
          props::report(
              oracles::Verdict::fail(
                  "well-formed-code",
                  fmt::format("{}: §2's rule says it {}, WellFormed {}", what, binds ? "binds" : "does not bind",
                              ten == diags.end() ? "reported no 10 for it" : "reported " + ten->render(""))),
              cx());
        if (const std::string found = found_clause(k.builtin, shapes);
            ten != diags.end() && ten->message.find(found) == std::string::npos)
          props::report(oracles::Verdict::fail("well-formed-message",
                                               fmt::format("{}: WellFormed reported {}, which does not say \"{}\"",
                                                           what, ten->render(""), found)),
                        cx());
      }
    }
  }
}
}  // namespace
STACKCHECK_PROP(WellFormedRules, every_shape_rule_condition_met_and_broken, 0.0) {
  shape_rule_case(verify::check_well_formed);
}
// The positive control: a WellFormed that lets every rowsum shape through.
namespace {}  // namespace
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_blind_to_rowsum_shapes_fails, "(rowsum) with param") {
  shape_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    std::erase_if(d, [](const ir::Diagnostic& x) {
      return x.code == 10 && x.message.find("builtin 'rowsum'") != std::string::npos;
    });
    return d;
  });
}
// ... and of its message check: shape messages that keep the kernel's name but drop the shapes.
namespace {}  // namespace
STACKCHECK_CONTROL(WellFormedRulesControl, shape_messages_without_the_shapes_fail, "which does not say") {
  shape_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d)
      if (x.code == 10) x.message = x.message.substr(0, x.message.find(':') + 1) + " shapes differ";
    return d;
  });
}

// The control of its codegen half: a codegen that emits a plan for anything.
namespace {}  // namespace
STACKCHECK_CONTROL(WellFormedRulesControl, a_codegen_that_checks_no_precondition_fails, "emitted a plan") {
  well_formed_rule_case(verify::check_well_formed, [](const ir::Program&) {
    codegen::CodegenResult r;
    r.ok = true;
    return r;
  });
}
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_blind_to_zero_divisors_fails, "broke 13") {
  well_formed_rule_case(well_formed_blind_to_13);
}
// ... and of its message check: a WellFormed whose messages name nothing.
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_naming_nothing_fails, "whose message") {
  well_formed_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d) x.message = "error";
    return d;
  });
}
// ... and of the whole message: a WellFormed adding a word to every message, which still says
// every name a substring check looks for.
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_adding_a_word_fails, "whose message is not") {
  well_formed_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d) x.message += " here";
    return d;
  });
}
// ... and of the whole list: a WellFormed that reports its first finding twice.
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_reporting_a_finding_twice_fails, "expected exactly") {
  well_formed_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    if (!d.empty()) d.push_back(d.front());
    return d;
  });
}
// ... and of codegen's line: a codegen whose refusals point one line late.
STACKCHECK_CONTROL(WellFormedRulesControl, a_codegen_refusing_a_line_late_fails,
                   "run without the verifier, refused it with") {
  well_formed_rule_case(verify::check_well_formed, [](const ir::Program& p) {
    codegen::CodegenResult r = codegen::generate_orchestration(p);
    for (ir::Diagnostic& x : r.diagnostics) ++x.location.line;
    return r;
  });
}
// ... and of the interpreter's: one that runs what it cannot resolve on to the end (its
// Invalid errors turned into a completed run).
STACKCHECK_CONTROL(WellFormedRulesControl, an_interpreter_running_unresolved_names_fails,
                   "the interpreter ran it to the end") {
  well_formed_rule_case(verify::check_well_formed, codegen::generate_orchestration,
                        [](const ir::Program& p, uint64_t seed) {
                          interp::Result r = interp::run(p, seed);
                          if (!r.ok() && r.error().kind == interp::ErrorKind::Invalid) r.value = interp::Outputs{};
                          return r;
                        });
}
STACKCHECK_CONTROL(WellFormedRulesControl, a_well_formed_reporting_a_line_late_fails,
                   "where the broken statement is on line") {
  well_formed_rule_case([](const ir::Program& p) {
    ir::Diagnostics d = verify::check_well_formed(p);
    for (ir::Diagnostic& x : d) ++x.location.line;
    return d;
  });
}
