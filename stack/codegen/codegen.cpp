// OrchestrationCodegen driver (codegen.h): entry tensors, one plan graph per IR graph (in
// program order), the entry body; then the generated plan is checked with the runtime's own
// static validation, so an accepted result is always a plan the runtime can load.
#include "stack/codegen/codegen.h"

#include <fmt/format.h>

#include "stack/codegen/lowering.h"
#include "stack/passes/pass.h"
#include "stack/runtime/plan/check.h"

namespace stackcheck::codegen {

uint32_t OrchestrationCodegen::required() const {
  return passes::kWellFormed | passes::kReturnParamsExplicit | passes::kGraphBoundaryLegalized;
}

CodegenResult generate_orchestration(const ir::Program& p) {
  CodegenResult r;
  auto diag = [&](int code, const ir::Function* f, ir::Loc loc, std::string message) {
    r.diagnostics.push_back(
        ir::Diagnostic{kRule, code, ir::Location{f ? f->name : "", loc.line, loc.column}, std::move(message)});
  };
  const detail::ProgramInfo info(p);

  const ir::Function* entry = nullptr;
  const ir::Function* second = nullptr;  // reported where it is declared, as WellFormed 1 is
  size_t entries = 0;
  for (const ir::Function& f : p.functions)
    if (f.kind == ir::Function::Kind::Orchestration) {
      ++entries;
      if (entry == nullptr)
        entry = &f;
      else if (second == nullptr)
        second = &f;
    }
  if (entries != 1) {
    diag(kPrecondition, second, second ? second->loc : ir::Loc{},
         fmt::format("codegen precondition broken (run the pipeline first): {} orchestration functions, not 1",
                     entries));
    return r;
  }

  runtime::OrchProgram out;
  for (const ir::Param& param : entry->params) {
    if (!param.type.is_tensor()) continue;  // 306, reported by the entry's lowering
    if (param.dir == ir::Dir::Out)
      diag(kPrecondition, entry, param.loc,
           fmt::format("codegen precondition broken (run the pipeline first): entry param '{}' is Out", param.name));
    runtime::EntryTensor t;
    t.name = fmt::format("t{}", out.tensors.size());
    t.inout = param.dir != ir::Dir::In;
    t.shape.assign(param.type.dims.begin(), param.type.dims.end());
    out.tensors.push_back(std::move(t));
    r.entry_names.push_back(param.name);
  }

  for (const ir::Function& f : p.functions) {
    if (&f == entry) {
      detail::BodyLowering lowering(info, f, r.diagnostics);
      out.body = lowering.lower_entry();
      continue;
    }
    if (f.kind != ir::Function::Kind::Graph) continue;
    if (info.find(f.name) != &f) {
      diag(kPrecondition, &f, f.loc,
           fmt::format("codegen precondition broken (run the pipeline first): graph '{}' defined twice", f.name));
      continue;
    }
    for (const ir::Param& param : f.params)
      if (param.type.is_tensor() && param.dir == ir::Dir::Out)
        diag(kGraphOutParam, &f, param.loc,
             fmt::format("graph '{}' has Out param '{}' (a buffer shared by successive launches must be InOut)", f.name,
                         param.name));
    detail::BodyLowering lowering(info, f, r.diagnostics);
    out.graphs.push_back(lowering.lower_graph(info.graph_names.at(f.name)));
  }

  if (r.diagnostics.empty()) {
    if (std::optional<runtime::PlanError> err = runtime::validate_plan(out)) {
      // Only a malformed input that slipped past every precondition check gets here (e.g. a
      // name that is a `.plan` keyword cannot occur: registers are t<k>/s<k>).
      diag(kPrecondition, entry, entry->loc,
           fmt::format("internal: the generated plan fails validation: {}", err->to_string()));
    }
  }
  r.ok = r.diagnostics.empty();
  if (r.ok) r.program = std::move(out);
  return r;
}

}  // namespace stackcheck::codegen
