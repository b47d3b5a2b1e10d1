// WellFormed (COMPILER.md §1, §2, §4; codes 1-14). One forward walk per function in
// program order, with a scope stack for SSA visibility, a binding per name (scalar with its
// static value, tensor with its type and root, tuple, task id, or poison after an error so
// one mistake is reported once), and program-wide facts computed up front: the first
// function of each name, rpi (ir/rpi.h) and the call graph's strongly connected components.
// Every lookup checks structure first; expressions are walked without recursion because a
// long `a + b + ...` chain is a deep tree the parser's nesting cap does not bound.
// This file holds the driver and the program-wide facts; the checker's parts live in
// well_formed/ by concern (see well_formed/internal.h).
#include "stack/verify/well_formed.h"

#include "stack/ir/equal.h"
#include "stack/support/arena.h"
#include "stack/verify/well_formed/internal.h"

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace stackcheck::verify {
namespace well_formed {

// Why `t` is not a valid type, or nullopt. Checks rank before dims and dims one by one
// before their product, so huge dims can never overflow the element count.
std::optional<std::string> type_problem(const Type& t) {
  if (!t.is_tensor()) {
    if (!t.dims.empty()) return "an i64 type has no dims";
    return std::nullopt;
  }
  if (t.dtype != "i32") return fmt::format("element type must be i32, found '{}'", t.dtype);
  if (t.dims.empty() || t.dims.size() > 3) return fmt::format("rank {} (must be 1..3)", t.dims.size());
  int64_t elements = 1;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] < 1) return fmt::format("dim {} is {} (must be >= 1)", i, t.dims[i]);
    if (t.dims[i] > kMaxElements) {
      return fmt::format("dim {} is {} (at most {} elements)", i, t.dims[i], kMaxElements);
    }
    elements *= t.dims[i];  // <= 2^16 per dim, rank <= 3: no overflow
  }
  if (elements > kMaxElements) {
    return fmt::format("{} elements (at most {})", elements, kMaxElements);
  }
  return std::nullopt;
}

bool same_type(const Type& a, const Type& b) {
  return a.kind == b.kind && (!a.is_tensor() || (a.dtype == b.dtype && a.dims == b.dims));
}

const char* kind_text(Function::Kind k) {
  switch (k) {
    case Function::Kind::Kernel: return "kernel";
    case Function::Kind::Graph: return "graph";
    case Function::Kind::Orchestration: return "orchestration";
  }
  return "function";
}

ProgramInfo::ProgramInfo(const ir::Program& p, std::pmr::memory_resource* scratch)
    : program(p), first(scratch), rpi(p) {
  const size_t n = p.functions.size();
  for (size_t i = 0; i < n; ++i) first.emplace(p.functions[i].name, i);
  // A call f -> g lies on a cycle iff f and g share a component (g == f included). A cycle
  // needs a call into a function that itself calls: kernels call nothing, so with no call of a
  // graph from a graph and no call of an orchestration (what the generators write), every
  // function is its own component and Boost's graph is not built.
  std::pmr::vector<std::pair<size_t, size_t>> calls(scratch);
  bool may_cycle = false;
  for (size_t i = 0; i < n; ++i) {
    ir::walk_statements(p.functions[i].body, [&](const Stmt& s) {
      const ir::Invoke* inv = ir::invoke_of(s);
      auto it = inv != nullptr ? first.find(inv->callee) : first.end();
      if (it == first.end()) return;
      calls.emplace_back(i, it->second);
      const Function::Kind callee = p.functions[it->second].kind;
      may_cycle = may_cycle || callee == Function::Kind::Orchestration ||
                  (callee == Function::Kind::Graph && p.functions[i].kind != Function::Kind::Orchestration);
    });
  }
  component.resize(n);
  if (!may_cycle) {
    for (size_t i = 0; i < n; ++i) component[i] = i;
    return;
  }
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(n);
  for (const auto& [from, to] : calls) boost::add_edge(from, to, g);
  boost::strong_components(g, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, g)));
}

void FunctionChecker::run() {
  scopes_.emplace_back();
  check_params();
  if (f_.kind == Function::Kind::Kernel) {
    check_kernel();
    return;
  }
  if (f_.kind == Function::Kind::Graph) {
    for (size_t j = 0; j < f_.results.size(); ++j) {
      const Type& t = f_.results[j];
      if (!t.is_tensor()) {
        report(kBadType, f_.loc, fmt::format("graph '{}': result {} is i64; graph results are tensors", f_.name, j));
      } else if (auto why = type_problem(t)) {
        report(kBadType, f_.loc, fmt::format("graph '{}': result {} has a bad type: {}", f_.name, j, *why));
      }
    }
  } else if (!f_.results.empty()) {
    report(kReturn, f_.loc, fmt::format("the entry '{}' declares results; it returns nothing", f_.name));
  }
  ir::walk_statements(f_.body, [&](const Stmt& s) {
    if (s.kind == Stmt::Kind::Assign || s.kind == Stmt::Kind::For) all_defs_.insert(s.name);
  });
  ir::walk_statements(f_.body, *this);
  // A missing final return is reported where the graph ends: at its last statement.
  const bool ends_with_return = !f_.body.empty() && f_.body.back().kind == Stmt::Kind::Return;
  if (f_.kind == Function::Kind::Graph && !f_.results.empty() && !ends_with_return) {
    report(kReturn, f_.body.empty() ? f_.loc : f_.body.back().loc,
           fmt::format("graph '{}' declares {} result(s) but does not end with `return`", f_.name, f_.results.size()));
  }
}

}  // namespace well_formed

using namespace well_formed;

namespace {

// The facts of `clean` that function checks of its successor may reuse.
struct CleanBase {
  const ir::Program& program;
  ir::RpiTable rpi;  // the program has the same function names at every index
};

// Whether function i of `info.program` has clean's (empty) findings: see the header.
bool reusable(const ProgramInfo& info, size_t i, const CleanBase& base) {
  const ir::Program& p = info.program;
  const Function& f = p.functions[i];
  if (!ir::identical(f, base.program.functions[i])) return false;
  bool same = true;
  ir::walk_statements(f.body, [&](const Stmt& s) {
    const ir::Invoke* inv = same ? ir::invoke_of(s) : nullptr;
    if (inv == nullptr) return;
    auto it = info.first.find(inv->callee);
    if (it == info.first.end()) {  // not in p (nor, by the names, in clean): check it
      same = false;
      return;
    }
    const size_t gi = it->second;
    const ir::ReturnParams *now = info.rpi.find(inv->callee), *then = base.rpi.find(inv->callee);
    same = ir::identical_signature(p.functions[gi], base.program.functions[gi]) && now != nullptr && then != nullptr &&
           *now == *then && info.component[gi] != info.component[i];
  });
  return same;
}

ir::Diagnostics check(const ir::Program& p, const CleanBase* base) {
  ir::Diagnostics out;
  // The check's own tables (names, scopes, bindings, expression stacks) come from one arena,
  // its first 16 KiB on the stack: a clean program of the generators' size costs no heap
  // allocation for them (docs/throughput.md). Nothing in the arena outlives the check.
  support::InlineArena<16384> arena;
  std::pmr::memory_resource* const scratch = arena.resource();
  const ProgramInfo info(p, scratch);
  size_t entries = 0;
  for (const Function& f : p.functions) entries += f.kind == Function::Kind::Orchestration ? 1 : 0;
  if (entries == 0) {
    out.push_back(
        ir::Diagnostic{"WellFormed", kFunctions, ir::Location{}, "the program has no orchestration (entry) function"});
  }
  std::pmr::unordered_set<std::string_view> names(scratch);
  const Function* entry = nullptr;
  for (size_t i = 0; i < p.functions.size(); ++i) {
    const Function& f = p.functions[i];
    const ir::Location loc{f.name, f.loc.line, f.loc.column};
    if (!names.insert(f.name).second) {
      out.push_back(
          ir::Diagnostic{"WellFormed", kFunctions, loc,
                     fmt::format("{} '{}': a function of that name is already defined", kind_text(f.kind), f.name)});
    }
    if (f.kind == Function::Kind::Orchestration) {
      if (entry != nullptr) {
        out.push_back(ir::Diagnostic{
            "WellFormed", kFunctions, loc,
            fmt::format("second orchestration '{}': the program's entry is already '{}'", f.name, entry->name)});
      } else {
        entry = &f;
      }
    }
    if (base != nullptr && reusable(info, i, *base)) continue;
    FunctionChecker(info, i, out, scratch).run();
  }
  return out;
}

}  // namespace

ir::Diagnostics check_well_formed(const ir::Program& p) { return check(p, nullptr); }

ir::Diagnostics check_well_formed_since(const ir::Program& p, const ir::Program& clean) {
  bool same_names = p.functions.size() == clean.functions.size();
  for (size_t i = 0; same_names && i < p.functions.size(); ++i) same_names = p.functions[i].name == clean.functions[i].name;
  if (!same_names) return check(p, nullptr);
  const CleanBase base{clean, ir::RpiTable(clean)};
  return check(p, &base);
}

}  // namespace stackcheck::verify
