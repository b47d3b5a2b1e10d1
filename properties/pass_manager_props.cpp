// The pass manager's verify instrument, judged with planted pass bugs (COMPILER.md §5: "checks
// required properties before a pass (failure: input rejection if not held, else bug of the
// producer) and WellFormed plus produced properties after it (failure: bug of that pass)").
// Every property that compiles a generated program trusts this instrument to catch a pass
// whose output breaks what it claims; here the passes are made to break it, and the manager
// must name the right pass, for the right property, with the verifier's first finding:
//
//  - A Saboteur pass, inserted at a drawn place in the pipeline (before Simplify, after any
//    stage), hands back its input with one WellFormed rule broken (gen::break_well_formed_rule):
//    PassBug blaming Saboteur after it ran ("its output violates WellFormed"), the first
//    diagnostic the breaker's code, every instrument told once (after_pass_failed), the
//    result's program the Saboteur's input and passes_run the stages before it.
//  - A Saboteur after LegalizeGraphBoundary, followed by a Consumer that requires what codegen
//    requires (WF, RPE, GBL), breaks a property a stage claimed while keeping WellFormed: a
//    graph's return made an alias of its param (ReturnParamsExplicit 102), or one rule of
//    GraphBoundaryLegalized (gen::break_graph_rule). The manager must find it before Consumer
//    and blame the claimant (NormalizeReturnOrder, LegalizeGraphBoundary), naming Saboteur as
//    the last pass run; no after_pass_failed (the run ends before a pass, not after one).
//  - A registry without a verifier for RPE or GBL: the clean pipeline and Consumer run, the
//    result says which property was trusted unverified and still holds it.
//
// Class of bug: a verify instrument that keeps a verdict across programs (its cache not reset
// after a pass), skips WellFormed after a pass, verifies the input instead of the output, blames
// the pass that ran last instead of the property's claimant (or the reverse), drops the
// claimant when a pass neither produces nor invalidates, or forgets to tell the other
// instruments. Control: a registry whose WellFormed verifier sees nothing.
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_breaker.h"
#include "properties/gen/tags.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/property.h"
#include "stack/ir/equal.h"
#include "stack/ir/printer.h"
#include "stack/passes/pass_manager.h"
#include "stack/passes/pipeline.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace stackcheck;

namespace {

using oracles::Verdict;
constexpr passes::PropertySet kCodegenNeeds =
    passes::kWellFormed | passes::kReturnParamsExplicit | passes::kGraphBoundaryLegalized;

// A pass of this property's making: claims nothing, requires `required`, and hands back `out`
// when it has one (the Saboteur: its input with one rule broken), else its input unchanged
// (the Consumer, standing where codegen follows the pipeline).
class StubPass final : public passes::Pass {
 public:
  StubPass(std::string_view name, passes::PropertySet required, std::optional<ir::Program> out)
      : name_(name), required_(required), out_(std::move(out)) {}
  std::string_view name() const override { return name_; }
  passes::PropertySet required() const override { return required_; }
  passes::PropertySet produced() const override { return 0; }
  passes::PropertySet invalidated() const override { return 0; }
  passes::PassResult run(const ir::Program& in) override {
    passes::PassResult r;
    r.ok = true;
    r.program = out_ ? *out_ : in;
    return r;
  }

 private:
  std::string_view name_;
  passes::PropertySet required_;
  std::optional<ir::Program> out_;
};
std::unique_ptr<passes::Pass> saboteur(ir::Program out) {
  return std::make_unique<StubPass>("Saboteur", passes::kWellFormed, std::move(out));
}

// The failure notifications an instrument gets (after the verify instrument, as any other).
class FailureLog final : public passes::PassInstrument {
 public:
  void after_pass_failed(const passes::Pass& pass, const ir::Program&, const ir::Diagnostics&,
                         const passes::PropertyLedger&) override {
    passes.emplace_back(pass.name());
  }
  std::vector<std::string> passes;
};

using Registry = std::function<passes::VerifierRegistry()>;

// The pipeline's stages with `extra` inserted after the first `at` of them (and Consumer last
// when asked), verified with `registry`; the failure log is the manager's last instrument.
struct Built {
  passes::PassManager pm;
  FailureLog* log = nullptr;
};
Built build(const Registry& registry, std::unique_ptr<passes::Pass> extra, size_t at, bool consumer) {
  passes::PassManagerOptions o;
  o.verifiers = registry();
  Built b{passes::PassManager(std::move(o))};
  const auto stages = passes::pipeline_stages();
  for (size_t k = 0; k <= stages.size(); ++k) {
    if (k == at && extra) b.pm.add(std::move(extra));
    if (k < stages.size()) b.pm.add(stages[k].make({}));
  }
  if (consumer) b.pm.add(std::make_unique<StubPass>("Consumer", kCodegenNeeds, std::nullopt));
  b.log = &b.pm.emplace_instrument<FailureLog>();
  return b;
}

// The message of a PassBug: `head`, then the verifier's first finding and, past one, how many
// more; `found` is the verifier's list, computed by the property on the blamed output.
std::string bug_message(const std::string& head, const ir::Diagnostics& found) {
  if (found.empty()) return head + "no diagnostic";
  std::string s = head + found.front().render("");
  if (found.size() > 1) s += fmt::format(" (+{} more)", found.size() - 1);
  return s;
}

std::string first_code(const ir::Diagnostics& d) { return d.empty() ? "none" : std::to_string(d.front().code); }

// A graph returning one of its params by name, with its return made an alias of that param
// (`zz_r = p` just before `return`, which then names zz_r): WellFormed and every rule of
// GraphBoundaryLegalized still hold; ReturnParamsExplicit 102 does not. nullopt: no graph
// returns a param.
std::optional<ir::Program> alias_a_returned_param(gen::ChoiceSource& c, const ir::Program& p) {
  std::vector<std::pair<size_t, size_t>> places;  // (function, return position)
  for (size_t f = 0; f < p.functions.size(); ++f) {
    const ir::Function& fn = p.functions[f];
    if (fn.kind != ir::Function::Kind::Graph || fn.body.empty() || fn.body.back().kind != ir::Stmt::Kind::Return)
      continue;
    const ir::Stmt& ret = fn.body.back();
    for (size_t j = 0; j < ret.returns.size(); ++j)
      for (const ir::Param& q : fn.params)
        if (q.name == ret.returns[j] && q.type.is_tensor()) places.emplace_back(f, j);
  }
  if (places.empty()) return std::nullopt;
  const auto [f, j] = places[c.one_of(places.size())];
  ir::Program out = p;
  ir::Function& fn = out.functions[f];
  ir::Stmt alias;
  alias.kind = ir::Stmt::Kind::Assign;
  alias.name = "zz_r";
  alias.loc = fn.body.back().loc;
  ir::Expr v;
  v.kind = ir::Expr::Kind::Var;
  v.name = fn.body.back().returns[j];
  v.loc = alias.loc;
  alias.rhs = ir::ExprRhs{v};
  fn.body.back().returns[j] = "zz_r";
  fn.body.insert(fn.body.end() - 1, std::move(alias));
  return out;
}

// One run of pass_bug_case: the generated program, the clean pipeline's stages, and what the
// three branches share.
struct BugRun {
  const Registry& registry;
  const gen::GeneratedProgram& g;
  const oracles::PipelineRun& clean;
  size_t n;  // the pipeline's stages

  // What the Saboteur at place `at` gets: the program, or the output of the stage before it.
  const ir::Program& input_at(size_t at) const { return at == 0 ? g.program : clean.stages[at - 1].program; }
  std::vector<std::string> names_before(size_t at) const {
    std::vector<std::string> v;
    for (size_t k = 0; k < at; ++k) v.push_back(clean.stages[k].pass);
    return v;
  }
  std::string context(const std::string& what, const passes::PipelineResult& r) const {
    return fmt::format("{}; the manager: outcome {}, pass '{}', message \"{}\", first code {}, passes run [{}]", what,
                       passes::outcome_name(r.outcome), r.pass, r.message, first_code(r.diagnostics),
                       fmt::join(r.passes_run, ", "));
  }
};

// The PassBug's message, predicted from the verifier's findings on the blamed output.
void expect_bug_message(const BugRun& run, const passes::PipelineResult& r, const std::string& what,
                        const std::string& head, const ir::Diagnostics& found) {
  if (const std::string want = bug_message(head, found); r.message != want)
    props::report(Verdict::fail("pass-blame", run.context(what + ": expected the message \"" + want + "\"", r)));
}

// WellFormed broken by the Saboteur, anywhere in the pipeline (`last_only`: after the last stage).
void saboteur_breaks_well_formed(const BugRun& run, bool last_only) {
  const size_t at = last_only ? run.n : gen::choices().one_of(run.n + 1);
  const ir::Program in = run.input_at(at);
  std::optional<gen::BrokenProgram> broken;
  for (int attempt = 0; attempt < 4 && !broken; ++attempt)  // a rule with no place: another
    broken = gen::draw_value<std::optional<gen::BrokenProgram>>(
        [in](gen::ChoiceSource& c) { return gen::break_well_formed_rule(c, in); });
  if (!broken) gen::tag("no-place-wf");
  if (!broken) props::report(Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for the rule"));
  gen::tag(fmt::format("saboteur-wf-at-{}", at));
  Built b = build(run.registry, saboteur(broken->program), at, /*consumer=*/false);
  const passes::PipelineResult r = b.pm.run(run.g.program);
  const std::string what = fmt::format("Saboteur after [{}] broke WellFormed {} ({})",
                                       fmt::join(run.names_before(at), ", "), broken->code, broken->what);
  const std::string expected_message = "bug in pass Saboteur: its output violates WellFormed: ";
  if (r.outcome != passes::Outcome::PassBug || r.pass != "Saboteur" || r.message.rfind(expected_message, 0) != 0)
    props::report(Verdict::fail("pass-blame", run.context(what + ": expected a PassBug of Saboteur, " +
                                                          "its output violating WellFormed", r)));
  if (r.diagnostics.empty() || r.diagnostics.front().code != broken->code)
    props::report(Verdict::fail("pass-blame", run.context(what + ": expected the verifier's first finding, code " +
                                                          std::to_string(broken->code), r)));
  expect_bug_message(run, r, what, expected_message, verify::check_well_formed(broken->program));
  if (r.passes_run != run.names_before(at) || !ir::equal(r.program, in))
    props::report(Verdict::fail("pass-blame", run.context(what + ": the result must hold the Saboteur's input, after " +
                                                          "the stages before it", r)));
  if (b.log->passes != std::vector<std::string>{"Saboteur"})
    props::report(Verdict::fail("pass-blame", run.context(fmt::format("{}: every instrument must be told once that "
                                                                  "Saboteur failed; told [{}]",
                                                                  what, fmt::join(b.log->passes, ", ")),
                                                      r)));
  return;
}

// A claimed property broken after the last stage, found before Consumer; false when the
// program has no place for either edit.
// long: one draw, then the two outcomes (WellFormed broken too, or the claim) each judged
// in full; the judging is one list of checks of the same result.
bool saboteur_breaks_a_claim(const BugRun& run) {
  const ir::Program& legal = run.clean.stages.back().program;
  // One of the two edits, drawn; where it has no place (no graph returns a param, a rule
  // whose edit breaks WellFormed too), up to three more draws of either.
  bool rpe = false;
  std::optional<ir::Program> out;
  int code = 0;
  std::string edit;
  for (int attempt = 0; attempt < 4 && !out; ++attempt) {
    rpe = gen::choices().boolean();
    if (rpe) {
      out = gen::draw_value<std::optional<ir::Program>>(
          [legal](gen::ChoiceSource& c) { return alias_a_returned_param(c, legal); });
      code = 102;
      edit = "a graph's return made an alias of its param";
    } else {
      const auto broken = gen::draw_value<std::optional<gen::BrokenProgram>>(
          [legal](gen::ChoiceSource& c) { return gen::break_graph_rule(c, legal); });
      if (broken && broken->pass_owns) {
        out = broken->program;
        code = broken->code;
        edit = broken->what;
      }
    }
  }
  if (!out) {  // no graph returns a param, no rule of a graph could be broken on its own
    gen::tag("no-place-claimed");
    return false;
  }
  Built b = build(run.registry, saboteur(*out), run.n, /*consumer=*/true);
  const passes::PipelineResult r = b.pm.run(run.g.program);
  const std::string what = fmt::format("Saboteur after every stage: {} (code {})", edit, code);
  // Some rules of GraphBoundaryLegalized cannot be broken without breaking WellFormed too
  // (a graph calling itself is a call cycle, 4; a create of a shape that is not a literal,
  // 9): the Saboteur's own output fails then, and it is to blame, with WellFormed's findings.
  if (const ir::Diagnostics wf = verify::check_well_formed(*out); !wf.empty()) {
    gen::tag("saboteur-gbl-breaking-wf");
    if (rpe)
      props::report(Verdict::fail("breaker", fmt::format("the alias edit was to keep WellFormed: {}",
                                                         wf.front().render(""))));
    if (r.outcome != passes::Outcome::PassBug || r.pass != "Saboteur" ||
        r.message.rfind("bug in pass Saboteur: its output violates WellFormed: ", 0) != 0 ||
        r.diagnostics.empty() || r.diagnostics.front().code != wf.front().code ||
        b.log->passes != std::vector<std::string>{"Saboteur"})
      props::report(Verdict::fail(
          "pass-blame", run.context(fmt::format("{}, which breaks WellFormed {} too: expected a PassBug of Saboteur "
                                            "with that finding, every instrument told once",
                                            what, wf.front().code),
                                r)));
    return true;
  }
  // Consumer's requirements are checked in property order (WF, RPE, GBL): a graph-rule edit
  // that also breaks RPE is found there first, and NormalizeReturnOrder is to blame.
  const bool rpe_broken = rpe || !verify::check_return_params_explicit(*out).empty();
  const std::string claimant = rpe_broken ? "NormalizeReturnOrder" : "LegalizeGraphBoundary";
  const std::string property = rpe_broken ? "ReturnParamsExplicit" : "GraphBoundaryLegalized";
  gen::tag(rpe ? "saboteur-rpe" : rpe_broken ? "saboteur-gbl-found-as-rpe" : "saboteur-gbl");
  const std::string expected_message = fmt::format(
      "bug in pass {}: {} claimed by it no longer holds before Consumer (last pass run: Saboteur): ", claimant,
      property);
  if (r.outcome != passes::Outcome::PassBug || r.pass != claimant || r.message.rfind(expected_message, 0) != 0)
    props::report(Verdict::fail(
        "pass-blame", run.context(fmt::format("{}: expected \"{}...\"", what, expected_message), r)));
  expect_bug_message(run, r, what, expected_message,
                     rpe_broken ? verify::check_return_params_explicit(*out) : verify::check_graph_boundary_legalized(*out));
  if (!rpe_broken && (r.diagnostics.empty() || r.diagnostics.front().code != code))
    props::report(Verdict::fail("pass-blame", run.context(what + ": expected the verifier's first finding", r)));
  if (rpe && (r.diagnostics.empty() || r.diagnostics.front().code != 102))
    props::report(Verdict::fail("pass-blame", run.context(what + ": expected ReturnParamsExplicit 102", r)));
  std::vector<std::string> run_before = run.names_before(run.n);
  run_before.push_back("Saboteur");
  if (r.passes_run != run_before || !ir::equal(r.program, *out))
    props::report(Verdict::fail("pass-blame", run.context(what + ": the result must hold Saboteur's output, every "
                                                             "pass but Consumer run", r)));
  if (!b.log->passes.empty())
    props::report(Verdict::fail(
        "pass-blame", run.context(fmt::format("{}: the run ended before Consumer ran, yet [{}] were told it failed",
                                          what, fmt::join(b.log->passes, ", ")),
                              r)));
  return true;
}

// A property with no verifier: trusted, and said so.
void property_without_verifier(const BugRun& run) {
  const bool drop_rpe = gen::choices().boolean();
  const passes::Property dropped = drop_rpe ? passes::kReturnParamsExplicit : passes::kGraphBoundaryLegalized;
  gen::tag(drop_rpe ? "unverified-rpe" : "unverified-gbl");
  const Registry partial = [&run, dropped] {
    passes::VerifierRegistry full = run.registry();
    passes::VerifierRegistry out;
    for (passes::Property p : passes::properties_in(kCodegenNeeds))
      if (p != dropped && full.find(p) != nullptr) out.set(p, *full.find(p));
    return out;
  };
  Built b = build(partial, nullptr, 0, /*consumer=*/true);
  const passes::PipelineResult r = b.pm.run(run.g.program);
  const std::string what = fmt::format("no verifier for {}", passes::property_name(dropped));
  if (!r.ok() || r.unverified != dropped || (r.held & kCodegenNeeds) != kCodegenNeeds ||
      !ir::equal(r.program, run.clean.stages.back().program))
    props::report(Verdict::fail(
        "pass-unverified",
        run.context(fmt::format("{}: expected Ok with exactly it unverified (found {}), every property held (found {}), "
                            "the clean pipeline's output",
                            what, passes::property_set_name(r.unverified), passes::property_set_name(r.held)),
                r)));
  return;
}

// `last_only`: the WellFormed Saboteur always after the last stage (the control's: a blind
// verifier must not let a broken program reach a pass, which need not survive it).
void pass_bug_case(const Registry& registry, bool last_only = false) {
  const gen::GeneratedProgram g = gen::draw_program({});
  const oracles::PipelineRun clean = oracles::run_pipeline(g.program, {});
  if (!clean.verdict.passed())
    props::report(Verdict::fail("false-rejection", "a generated program does not compile: " + clean.verdict.message));
  const size_t n = clean.stages.size();
  RC_ASSERT(n == passes::pipeline_stages().size());
  const BugRun run{registry, g, clean, n};
  // A claim with no place for its edit goes on with WellFormed broken.
  switch (gen::choices().one_of(4)) {
    case 0:
    case 1: return saboteur_breaks_well_formed(run, last_only);
    case 2:
      if (!saboteur_breaks_a_claim(run)) saboteur_breaks_well_formed(run, last_only);
      return;
    default: return property_without_verifier(run);
  }
}

passes::VerifierRegistry real_registry() { return passes::default_verifiers(); }

// The control's verify instrument: a WellFormed verifier that sees nothing.
passes::VerifierRegistry blind_registry() {
  passes::VerifierRegistry r = passes::default_verifiers();
  r.set(passes::kWellFormed, [](const ir::Program&) { return ir::Diagnostics{}; });
  return r;
}

}  // namespace

STACKCHECK_PROP(PassManagerProps, verify_instrument_blames_a_planted_pass_bug, 0.1) { pass_bug_case(real_registry); }

TEST(PassManagerPropsControl, a_verify_instrument_blind_to_well_formed_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { pass_bug_case(blind_registry, /*last_only=*/true); }), "expected a PassBug of Saboteur");
}
