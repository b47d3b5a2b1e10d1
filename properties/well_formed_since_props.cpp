// WellFormed judged incrementally (check_well_formed_since: the pass manager's verifier after
// every pass, given the pass's input, which it verified clean) finds exactly what a full
// check_well_formed finds: every finding, in order, with its code, line and message. The
// successors judged, of a generated program that is clean:
//   - each stage of the pipeline (what the pass manager asks: Simplify, NormalizeReturnOrder
//     and LegalizeGraphBoundary change some functions and leave the others equal);
//   - one to three one-field edits anywhere (gen/ir_edits.h): a callee's param, direction,
//     type or results changed under an unchanged caller, a function's kind or name, a
//     statement dropped, a literal moved.
// The class: an incremental check that trusts an unchanged function whose context changed
// (a callee's arity, type, rpi or a new call cycle), under which a pass that breaks a call
// site's context passes its verifier. The control is that check: it drops the findings of
// every function equal to the clean program's.
#include "properties/gen/arbitrary.h"
#include "properties/gen/ir_edits.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/property.h"
#include "stack/ir/equal.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <functional>
#include <string>
#include <vector>

using namespace stackcheck;

namespace {

using SinceFn = std::function<ir::Diagnostics(const ir::Program& p, const ir::Program& clean)>;

std::string findings_text(const ir::Diagnostics& d) {
  std::string out;
  for (const ir::Diagnostic& x : d) out += "  " + x.render("") + "\n";
  return out.empty() ? "  (none)\n" : out;
}

bool same_findings(const ir::Diagnostics& a, const ir::Diagnostics& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].render("") != b[i].render("")) return false;
  return true;
}

// Judges one successor `next` of the clean program `clean`.
void judge_successor(const SinceFn& since, const ir::Program& clean, const ir::Program& next, const std::string& how) {
  const ir::Diagnostics full = verify::check_well_formed(next), incremental = since(next, clean);
  gen::tag(full.empty() ? "successor clean" : "successor with findings");
  if (same_findings(full, incremental)) return;
  props::report(oracles::Verdict::fail("well-formed-since",
                                       fmt::format("after {}, WellFormed given the clean program finds\n{}but a full "
                                                   "check finds\n{}",
                                                   how, findings_text(incremental), findings_text(full))),
                props::counterexample("well-formed", ir::print_program(next)));
}

void since_case(const SinceFn& since) {
  const gen::GeneratedProgram g = gen::any_program();
  const ir::Program& clean = g.program;
  RC_PRE(verify::check_well_formed(clean).empty());
  gen::ChoiceSource& c = gen::choices();
  if (c.integer(0, 3) == 0) {  // the pass manager's own question, a quarter of the cases
    const oracles::PipelineRun run = oracles::run_pipeline(clean, {});
    const ir::Program* before = &clean;
    for (const oracles::Stage& st : run.stages) {
      judge_successor(since, *before, st.program, "the pass " + st.pass);
      before = &st.program.get();
    }
    return;
  }
  ir::Program next = clean;
  std::string how;
  for (int64_t k = c.integer(1, 3); k > 0; --k) {
    const std::vector<gen::IrEdit> sites = gen::ir_edit_sites(next);
    if (sites.empty()) break;
    const gen::IrEdit& edit = sites[static_cast<size_t>(c.integer(0, static_cast<int64_t>(sites.size()) - 1))];
    how += (how.empty() ? "the edit " : ", then ") + edit.what;
    edit.apply(next);
  }
  judge_successor(since, clean, next, how);
}

ir::Diagnostics stack_since(const ir::Program& p, const ir::Program& clean) {
  return verify::check_well_formed_since(p, clean);
}

// The control: findings of a function equal to the clean program's at its index are dropped,
// whatever its callees became.
ir::Diagnostics trusting_unchanged_functions(const ir::Program& p, const ir::Program& clean) {
  ir::Diagnostics out;
  for (ir::Diagnostic& d : verify::check_well_formed(p)) {
    bool unchanged = false;
    for (size_t i = 0; i < p.functions.size() && i < clean.functions.size(); ++i)
      unchanged = unchanged || (p.functions[i].name == d.location.function && ir::equal(p.functions[i], clean.functions[i]));
    if (!unchanged || d.code == 1) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

STACKCHECK_PROP(WellFormedSince, finds_what_a_full_check_finds, 0.05) { since_case(stack_since); }

STACKCHECK_CONTROL(WellFormedSinceControl, a_check_trusting_unchanged_functions_fails, "well-formed-since") {
  since_case(trusting_unchanged_functions);
}
