#include "stack/verify/return_params_explicit.h"

#include <fmt/format.h>

#include <optional>

#include "stack/ir/rpi.h"

namespace stackcheck::verify {
namespace {

ir::Location where(const ir::Function& f, const ir::Loc& loc) { return ir::Location{f.name, loc.line, loc.column}; }

void check_kernel(const ir::Function& f, ir::Diagnostics& out) {
  // Compare each resolvable return with the previous resolvable one.
  std::optional<size_t> prev;
  std::string prev_name;
  for (const std::string& r : f.kernel_returns) {
    std::optional<size_t> idx;
    for (size_t i = 0; i < f.params.size() && !idx; ++i) {
      if (f.params[i].name == r) idx = i;
    }
    if (!idx) continue;  // not a param: WellFormed 10
    if (prev && *idx <= *prev) {
      out.push_back(ir::Diagnostic{kReturnParamsExplicitRule, 101, where(f, f.loc),
                               fmt::format("kernel '{}' returns '{}' (param {}) after '{}' (param {}): returns must be "
                                           "strictly increasing by param index",
                                           f.name, r, *idx, prev_name, *prev)});
    }
    prev = idx;
    prev_name = r;
  }
}

void check_graph(const ir::Function& f, const ir::RpiTable& table, ir::Diagnostics& out) {
  ir::Lineage lineage(f, table);
  // Every return statement (normally the one last statement) of the top-level body;
  // nested returns are WellFormed 14 and carry no rpi.
  for (const ir::Stmt& s : f.body) {
    if (s.kind != ir::Stmt::Kind::Return) continue;
    for (size_t j = 0; j < s.returns.size(); ++j) {
      const std::string& r = s.returns[j];
      std::optional<size_t> p = lineage.param_of(r);
      if (!p || *p >= f.params.size() || f.params[*p].name == r) continue;
      out.push_back(ir::Diagnostic{kReturnParamsExplicitRule, 102, where(f, s.loc),
                               fmt::format("graph '{}' return {} '{}' is param '{}' (by lineage) but does not name it",
                                           f.name, j, r, f.params[*p].name)});
    }
  }
}

}  // namespace

ir::Diagnostics check_return_params_explicit(const ir::Program& p) {
  ir::Diagnostics out;
  const ir::RpiTable table(p);
  for (const ir::Function& f : p.functions) {
    if (f.kind == ir::Function::Kind::Kernel) check_kernel(f, out);
    if (f.kind == ir::Function::Kind::Graph) check_graph(f, table, out);
  }
  return out;
}

}  // namespace stackcheck::verify
