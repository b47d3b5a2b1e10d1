// fuzz_pipeline: `.gir` text through the whole compiler. Oracles: the verify instrument
// after every pass (a pass producing invalid IR is a finding; a rejected input is not), and
// codegen on every legalized program: it must succeed, and its `.plan` text must parse back
// to an equal orchestration program, except where codegen.h documents a refusal of a
// WellFormed program that the program itself predicts (documented_refusals): an entry scalar
// param must be refused with 306 (a plan has no scalar inputs), and a read of a name that is
// not an entry In param may be refused with 303; such an input is outside the domain.
// Text-form inputs (`# stackcheck ...`) are `.gir` too, so the text form of an input is the
// input under the header line.
#include <algorithm>

#include "fuzz/fuzz_target.h"
#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/roundtrip.h"
#include "stack/codegen/codegen.h"
#include "stack/ir/parser.h"
#include "stack/ir/walk.h"
#include "stack/verify/well_formed.h"

const char* stackcheck::fuzz::target_name() { return "fuzz_pipeline"; }  // its text form: raw_text.cpp

namespace {

using namespace stackcheck;

// codegen.h's refusals of WellFormed programs, as far as the program itself predicts them: 306
// exactly when the entry has a scalar param; 303 (a read whose root is not an entry In param)
// only when the entry reads a name that is not one of its In params. Whether such a name's
// root is an In param is codegen's own lineage and is not predicted here: the oracle then
// accepts 303 or a plan (a gap, named in the closing note of the text mutators).
struct Refusals {
  bool must_306 = false;
  bool may_303 = false;
};

Refusals documented_refusals(const ir::Program& p) {
  Refusals r;
  for (const ir::Function& f : p.functions) {
    if (f.kind != ir::Function::Kind::Orchestration) continue;
    for (const ir::Param& param : f.params) r.must_306 |= !param.type.is_tensor();
    const auto entry_in = [&f](const std::string& name) {
      for (const ir::Param& param : f.params)
        if (param.name == name && param.dir == ir::Dir::In && param.type.is_tensor()) return true;
      return false;
    };
    ir::walk_statements(f.body, [&](const ir::Stmt& st) {
      ir::for_each_expr(st, [&](const ir::Expr& root) {
        ir::for_each_subexpr(root, [&](const ir::Expr& e) {
          if (e.kind == ir::Expr::Kind::Read && !entry_in(e.name)) r.may_303 = true;
        });
      });
    });
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackcheck;
  fuzz::Judge judge(fuzz::target_name());
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;  // keeps each execution short; larger inputs are not interesting here
  ir::ParseResult r = ir::parse_program(fuzz::as_text(data, size), limits);
  if (!r.ok()) return judge.reject(r.error().to_string());
  if (!verify::check_well_formed(r.program()).empty()) return judge.reject("not WellFormed");
  for (bool step_c : {true, false}) {
    const oracles::PipelineRun run =
        oracles::run_pipeline(r.program(), passes::PipelineOptions{.graph_boundary = {.step_c = step_c}});
    if (!judge.check("pipeline", run.verdict)) break;  // rejected: outside the codegen oracle's domain
    judge.observe([&] { return oracles::digest_program(support::kFnvOffset, run.stages.back().program); });
    const codegen::CodegenResult cg = codegen::generate_orchestration(run.stages.back().program);
    const Refusals documented = documented_refusals(run.stages.back().program);
    const bool has_306 = std::any_of(cg.diagnostics.begin(), cg.diagnostics.end(),
                                     [](const ir::Diagnostic& d) { return d.code == codegen::kEntryScalarParam; });
    if (documented.must_306 && (cg.ok || !has_306))
      judge.fail("codegen",
                 oracles::Verdict::fail("codegen-306", "codegen does not refuse an entry scalar param with 306"));
    const bool only_documented =
        !cg.ok && !cg.diagnostics.empty() &&
        std::all_of(cg.diagnostics.begin(), cg.diagnostics.end(), [&documented](const ir::Diagnostic& d) {
          return (d.code == codegen::kEntryScalarParam && documented.must_306) ||
                 (d.code == codegen::kReadNotEntryIn && documented.may_303);
        });
    if (only_documented)
      return judge.reject("codegen refuses it as codegen.h documents: " + cg.diagnostics.front().render(""));
    if (!cg.ok)
      judge.fail("codegen",
                 oracles::Verdict::fail(
                     "codegen", "codegen rejects a legalized program: " +
                                    (cg.diagnostics.empty() ? std::string("?") : cg.diagnostics.front().render(""))));
    judge.check("codegen", oracles::check_plan_roundtrip(cg.program));
  }
  return judge.done();
}
