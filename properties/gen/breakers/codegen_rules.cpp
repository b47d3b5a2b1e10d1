// The codegen family of the rule catalog (COMPILER.md §6): codegen's own refusals of WellFormed
// programs, which no verifier owns. An entry scalar param (306: a plan has no scalar inputs),
// or a read whose root is not an entry In param (303: an InOut entry tensor, a fresh create or
// a view of either, read in the entry's body). The program still passes WellFormed; codegen
// must refuse it with the code at the marker's line. The other codes of codegen.h are met
// through the other families: 300 (a lowering precondition) by the WellFormed entries, and 301,
// 302, 304 and 305 (defence in depth behind 202, 206, 208 and 204/205) by the
// GraphBoundaryLegalized entries with codegen run without the verifier.
#include <string>
#include <vector>

#include "properties/gen/ir_breaker.h"

namespace stackcheck::gen {

std::optional<BrokenProgram> break_codegen_rule(ChoiceSource& c, const ir::Program& wf) {
  BrokenProgram b;
  b.program = wf;
  ir::Program& p = b.program;
  ir::Function* entry = nullptr;
  for (ir::Function& f : p.functions)
    if (f.kind == ir::Function::Kind::Orchestration) entry = &f;
  if (entry == nullptr) return std::nullopt;
  std::vector<size_t> inouts;
  for (size_t i = 0; i < entry->params.size(); ++i)
    if (entry->params[i].type.is_tensor() && entry->params[i].dir == ir::Dir::InOut) inouts.push_back(i);
  const size_t way = c.one_of(4);
  b.code = 306;
  auto read_of = [](const std::string& name, size_t rank) {
    ir::Expr e;
    e.kind = ir::Expr::Kind::Read;
    e.name = name;
    for (size_t d = 0; d < rank; ++d) e.args.push_back(ir::Expr{});
    ir::Stmt s;
    s.kind = ir::Stmt::Kind::Assign;
    s.name = "zz_r";
    s.rhs = ir::ExprRhs{std::move(e)};
    return s;
  };
  if (way == 0 || (way == 1 && inouts.empty())) {
    ir::Param q;
    q.name = "zz_n";
    q.dir = ir::Dir::In;
    q.type = ir::Type::i64();
    entry->params.push_back(q);
    b.marker = "zz_n: In i64";
    b.what = "codegen-306-entry-scalar";
  } else {
    b.code = 303;
    std::vector<ir::Stmt> front;
    std::string name;
    size_t rank = 1;
    if (way == 1) {
      const ir::Param& t = entry->params[inouts[c.one_of(inouts.size())]];
      name = t.name;
      rank = t.type.dims.size();
      b.what = "codegen-303-inout-entry";
    } else {
      ir::Stmt create;
      create.kind = ir::Stmt::Kind::Assign;
      create.name = "zz_t";
      ir::CreateRhs cr;
      ir::Expr four;
      four.value = 4;
      cr.shape = {four, four};
      create.rhs = cr;
      front.push_back(create);
      name = "zz_t";
      rank = 2;
      if (way == 3) {  // a view of the create
        ir::Stmt v;
        v.kind = ir::Stmt::Kind::Assign;
        v.name = "zz_v";
        ir::SliceRhs sl;
        sl.source = "zz_t";
        sl.offsets = {ir::Expr{}, ir::Expr{}};
        sl.sizes = {2, 2};
        v.rhs = sl;
        front.push_back(v);
        name = "zz_v";
        b.what = "codegen-303-view-of-create";
      } else {
        b.what = "codegen-303-create";
      }
    }
    front.push_back(read_of(name, rank));
    entry->body.insert(entry->body.begin(), front.begin(), front.end());
    b.marker = "zz_r = read(";
  }
  return b;
}

}  // namespace stackcheck::gen
