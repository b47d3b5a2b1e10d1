// WellFormed rules 1 and 14 (well_formed_context.h): the program's functions (a second
// orchestration, none at all, a kernel named as the entry, a kernel or a graph defined twice)
// and returns (a statement after a graph's return, the entry returning a name or declaring a
// result, a graph returning one name fewer or more than it declares, or a scalar param as a
// tensor result).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"
#include "stack/ir/printer.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

// A kernel or a graph defined twice (codegen lowers graphs, so a twin graph is its to refuse
// too), or a second orchestration.
void function_twice(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  const std::vector<Function*>& kernels = e.kernels;
  std::vector<const Function*> graphs;
  for (const Function& f : e.wf.functions)
    if (f.kind == Function::Kind::Graph) graphs.push_back(&f);
  if ((!kernels.empty() || !graphs.empty()) && c.boolean()) {
    const bool graph = !graphs.empty() && (kernels.empty() || c.boolean());
    const Function copy = graph ? *graphs[c.one_of(graphs.size())] : *kernels[c.one_of(kernels.size())];
    const char* kind = graph ? "graph" : "kernel";
    b.graph = copy.name;
    b.what = fmt::format("a {} defined twice", kind);
    b.marker = fmt::format("{} {}(", kind, copy.name);
    b.message = fmt::format("{} '{}': a function of that name is already defined", kind, copy.name);
    b.lowering_precondition = graph;
    b.program.functions.push_back(copy);
  } else {
    Function second = *e.entry;
    second.name = "zz_main2";
    b.what = "a second orchestration";
    b.marker = "zz_main2(";
    b.message = "second orchestration 'zz_main2': the program's entry is already '" + e.entry->name + "'";
    b.lowering_precondition = true;  // codegen needs exactly one entry (COMPILER.md §6)
    b.program.functions.push_back(std::move(second));
  }
}

// A graph returning one name fewer or more than it declares, or a scalar param as a tensor
// result.
Made graph_return_mismatch(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  std::vector<Function*> with_results;
  for (Function* g : e.graphs)
    if (!g->results.empty() && !g->body.empty() && g->body.back().kind == Stmt::Kind::Return)
      with_results.push_back(g);
  if (with_results.empty()) return Made::kNoPlace;
  Function& g = *with_results[c.one_of(with_results.size())];
  std::vector<std::string>& rs = g.body.back().returns;
  std::vector<std::string> scalar_params;
  for (const Param& q : g.params)
    if (!q.type.is_tensor()) scalar_params.push_back(q.name);
  if (!rs.empty() && !scalar_params.empty() && c.chance(30)) {  // a scalar returned as a tensor result
    const size_t j = c.one_of(rs.size());
    rs[j] = c.pick(scalar_params);
    b.what = "a graph returning a scalar param as a tensor result";
    b.message = fmt::format("graph '{}' returns scalar '{}' as result {} of type {}", g.name, rs[j], j,
                                 type_word(g.results[j]));
    b.marker = fmt::format("return {}", fmt::join(rs, ", "));  // no other return names a scalar
  } else {
    if (c.boolean() && !rs.empty()) {
      rs.pop_back();
      b.what = "a graph returning one name fewer than it declares";
    } else {
      rs.push_back(rs.empty() ? g.params.front().name : rs.front());
      b.what = "a graph returning one name more than it declares";
    }
    b.message = fmt::format("graph '{}' declares {} result(s) but returns {}", g.name, g.results.size(), rs.size());
  }
  b.graph = g.name;
  return Made::kBroken;
}

}  // namespace

// A second entry, no entry, or a function defined twice (the copy is the one reported).
Made break_program_entries(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  if (!e.kernels.empty() && c.chance(25)) {  // a kernel named as the entry, declared first: the entry is reported
    Function copy = *e.kernels[c.one_of(e.kernels.size())];
    copy.name = e.entry->name;
    b.graph = e.entry->name;
    b.what = "a kernel named as the entry";
    b.message = "orchestration '" + e.entry->name + "': a function of that name is already defined";
    b.program.functions.insert(b.program.functions.begin(), std::move(copy));
    return Made::kFinal;  // `entry` and `body` dangle now
  }
  if (c.chance(20)) {  // no entry at all: the interpreter has nothing to run either
    std::erase_if(b.program.functions, [](const Function& f) { return f.kind == Function::Kind::Orchestration; });
    b.what = "no orchestration function";
    b.message = "the program has no orchestration (entry) function";
    b.interp_invalid = true;
    b.lowering_precondition = true;  // codegen needs exactly one entry (COMPILER.md §6)
    return Made::kFinal;  // `entry` and `body` dangle now
  }
  function_twice(e);
  return Made::kFinal;  // `entry` and `body` may dangle now
}

Made break_returns(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  switch (c.one_of(4)) {
    case 3: {  // the entry declares a result (AST only: the grammar gives an orchestration none)
      Type t = Type::tensor({c.integer(1, 8)});
      e.entry->results.push_back(std::move(t));
      b.graph = e.entry->name;
      b.what = "the entry declaring a result";
      b.message = fmt::format("the entry '{}' declares results; it returns nothing", e.entry->name);
      b.has_text = false;  // the printer writes no results for an orchestration
      return Made::kBroken;
    }
    case 0: {  // (a graph that ends with its return: one of no results may have none)
      std::vector<Function*> returning;
      for (Function* g : e.graphs)
        if (!g->body.empty() && g->body.back().kind == Stmt::Kind::Return) returning.push_back(g);
      if (returning.empty()) return Made::kNoPlace;
      Function& g = *returning[c.one_of(returning.size())];
      g.body.push_back(assign("zz_s", ExprRhs{int_expr(1)}));
      b.graph = g.name;
      b.what = "a statement after a graph's return";
      b.message = fmt::format("`return` must be the last statement of '{}'", g.name);
      if (!g.results.empty())
        b.then = {fmt::format("graph '{}' declares {} result(s) but does not end with `return`", g.name,
                              g.results.size())};
      return Made::kBroken;
    }
    case 1: {  // the entry returns a name
      if (e.tensor_params.empty()) return Made::kNoPlace;
      Stmt r;
      r.kind = Stmt::Kind::Return;
      const std::string name = e.entry->params[e.tensor_params[c.one_of(e.tensor_params.size())]].name;
      r.returns = {name};
      if (!e.body.empty() && e.body.back().kind == Stmt::Kind::Return)
        e.body.back() = std::move(r);
      else
        e.body.push_back(std::move(r));
      b.marker = "return ";
      b.what = "the entry returns a name";
      b.message = fmt::format("the entry '{}' returns nothing; found `return {}`", e.entry->name, name);
      return Made::kBroken;
    }
    default: return graph_return_mismatch(e);
  }
}

}  // namespace stackcheck::gen::breakers
