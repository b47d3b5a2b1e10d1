// WellFormed rules 8 and 9 (well_formed_context.h): an entry param made Out, and a bad type
// (COMPILER.md §1: i32, rank 1..3, dims >= 1, at most 65,536 elements) on a kernel param, an
// entry tensor param, a graph's tensor param or a graph's result, or a create of an extent
// that is below 1, past 65,536 elements (with its twin at exactly the limit) or not static.
// The message names the problem as WellFormed words it.
#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"

namespace stackcheck::gen::breakers {

using namespace ir;

namespace {

using Places = std::vector<std::pair<Function*, size_t>>;

// A create whose extent is not static, one element past 65,536, or below 1.
Made bad_create(WellFormedEdit& e) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  // Codegen allocates every create of a list when the list opens, after checking its shape is
  // static, of rank 1..3, each extent 1..65,536 and at most 65,536 elements (COMPILER.md §6's
  // defence in depth): each edit below is one it must refuse when run without the verifier.
  b.lowering_precondition = true;
  if (c.chance(30)) {  // an extent that is no static value: a loop variable's
    Stmt loop;
    loop.kind = Stmt::Kind::For;
    loop.name = "zz_i";
    loop.lo = int_expr(0);
    loop.hi = int_expr(c.integer(1, 3));
    loop.step = int_expr(1);
    loop.body.push_back(assign("zz_t", CreateRhs{{binary(BinOp::Add, var("zz_i"), int_expr(1))}}));
    e.front(std::move(loop));
    b.what = "a create of an extent that is not static";
    b.marker = "zz_t = create";
    b.message = "create shape: dim 0 is not static";
    return Made::kBroken;
  }
  if (c.chance(30)) {  // a create one element past 65,536 (one extent past it, or their product);
                       // its twin at exactly 65,536 is legal
    const bool product = c.boolean();
    auto make = [&](ir::Program& prog, int64_t last) {
      CreateRhs cr;
      if (product) cr.shape.push_back(int_expr(256));
      cr.shape.push_back(int_expr(last));
      for (Function& f : prog.functions)
        if (f.kind == Function::Kind::Orchestration) f.body.insert(f.body.begin(), assign("zz_t", cr));
    };
    ir::Program legal = e.wf;
    make(legal, product ? 256 : kMaxTensorElements);
    make(b.program, product ? 257 : kMaxTensorElements + 1);
    b.at_limit = std::move(legal);
    b.at_limit_runs = true;  // the legal twin compiles (codegen's own shape check) and runs
    b.limit = product ? "create [256, 256]: 65,536 elements" : "create [65536]";
    b.what = product ? "a create of 65,792 elements (256 x 257)" : "a create of extent 65,537";
    b.marker = "zz_t = create";
    b.message = product ? "create shape: 65792 elements (at most 65536)"
                        : "create shape: dim 0 is 65537 (at most 65536 elements)";
    b.interp_invalid = true;
    return Made::kBroken;
  }
  CreateRhs cr;
  cr.shape.push_back(int_expr(c.chance(50) ? 0 : -c.integer(1, 4)));
  b.message = fmt::format("create shape: dim 0 is {} (must be >= 1)", cr.shape[0].value);
  e.front(assign("zz_t", cr));
  b.what = "a create of an extent below 1";
  b.marker = "zz_t = create";
  b.interp_invalid = true;
  return Made::kBroken;
}

// One way a type breaks rule 9, drawn: a dim past 65,536, more than 65,536 elements over dims
// each within it, rank 4, another dtype, or (the simplest) a dim below 1. Fills b.what (of "a
// param") and b.has_text; returns the message's reason.
std::string break_type_of(ChoiceSource& c, BrokenProgram& b, Type& t) {
  const size_t d = c.one_of(t.dims.size());
  std::string why;
  switch (c.one_of(5)) {
    case 1: {
      t.dims[d] = c.near_edges(kMaxTensorElements + 1, 2 * kMaxTensorElements);
      why = fmt::format("dim {} is {} (at most {} elements)", d, t.dims[d], kMaxTensorElements);
      b.what = "a param type with a dim past 65,536";
      break;
    }
    case 2: {  // every dim within 65,536, their product past it
      if (t.dims.size() < 2) t.dims.push_back(2);
      int64_t others = 1;
      for (size_t i = 1; i < t.dims.size(); ++i) others *= t.dims[i];
      if (others < 2) {
        t.dims[1] = 2;
        others = 1;
        for (size_t i = 1; i < t.dims.size(); ++i) others *= t.dims[i];
      }
      t.dims[0] = kMaxTensorElements / others + 1;
      why = fmt::format("{} elements (at most {})", t.dims[0] * others, kMaxTensorElements);
      b.what = "a param type of more than 65,536 elements";
      break;
    }
    case 3:
      while (t.dims.size() < 4) t.dims.push_back(1);
      why = "rank 4 (must be 1..3)";
      b.what = "a param type of rank 4";
      break;
    case 4:
      t.dtype = c.boolean() ? "i64" : "f32";
      why = fmt::format("element type must be i32, found '{}'", t.dtype);
      b.what = "a param type of another element type";
      b.has_text = false;  // the grammar may not take it: a refusal is no finding
      break;
    default:
      t.dims[d] = c.chance(50) ? 0 : -c.integer(1, 4);
      why = fmt::format("dim {} is {} (must be >= 1)", d, t.dims[d]);
      b.has_text = t.dims[d] == 0;
      b.what = "a param type with a dim below 1";
  }
  return why;
}

// `where`: 1 a kernel param, 2 an entry param, 3 a graph's param, 4 a graph's result.
Made bad_declared_type(WellFormedEdit& e, size_t where, const Places& graph_tensor_params,
                       const Places& graph_results) {
  ChoiceSource& c = e.c;
  BrokenProgram& b = e.b;
  Param* q = nullptr;
  Type* result = nullptr;
  size_t result_index = 0;
  if (where == 4) {
    const auto [g, j] = graph_results[c.one_of(graph_results.size())];
    result = &g->results[j];
    result_index = j;
    b.graph = g->name;
    if (c.chance(20)) {  // a result that is no tensor
      *result = Type::i64();
      b.what = "a graph result of type i64";
      b.message = fmt::format("graph '{}': result {} is i64; graph results are tensors", g->name, j);
      // Its return then hands back a tensor where the result is declared i64: stated where the
      // returned name is one of the graph's params (its type is the param's).
      b.whole_list = false;
      const Stmt* r = g->body.empty() ? nullptr : &g->body.back();
      if (r != nullptr && r->kind == Stmt::Kind::Return && j < r->returns.size())
        for (const Param& q : g->params)
          if (q.name == r->returns[j] && q.type.is_tensor()) {
            b.then = {fmt::format("graph '{}' returns '{}' of type {} as result {}, declared i64", g->name, q.name,
                                  type_word(q.type), j)};
            b.whole_list = true;
          }
      return Made::kBroken;
    }
  } else if (where == 3) {
    const auto [g, i] = graph_tensor_params[c.one_of(graph_tensor_params.size())];
    q = &g->params[i];
    b.graph = g->name;
  } else if (where == 1) {
    Function& k = *e.kernels[c.one_of(e.kernels.size())];
    std::vector<size_t> tp;
    for (size_t i = 0; i < k.params.size(); ++i)
      if (k.params[i].type.is_tensor()) tp.push_back(i);
    if (tp.empty()) return Made::kNoPlace;
    q = &k.params[tp[c.one_of(tp.size())]];
    b.graph = k.name;
  } else {
    q = &e.entry->params[e.tensor_params[c.one_of(e.tensor_params.size())]];
  }
  Type& t = result != nullptr ? *result : q->type;
  const std::string why = break_type_of(c, b, t);
  if (result != nullptr) {
    b.message = fmt::format("graph '{}': result {} has a bad type: {}", b.graph, result_index, why);
    b.what = "a graph result" + b.what.substr(std::string("a param").size());
    return Made::kBroken;
  }
  b.message = fmt::format("param '{}' of '{}' has a bad type: {}", q->name, b.graph, why);
  b.whole_list = false;  // what reads the param's shape (a dim, a window, a call) may be refused too
  if (where == 3) b.what = "a graph's " + b.what.substr(2);
  // The interpreter draws the entry's inputs from its param types (§7): a shape it cannot
  // allocate is its Invalid error; it never reads a dtype, nor a kernel's param types.
  b.interp_invalid = where == 2 && t.dtype == "i32";
  if (where == 2) b.what = "an entry " + b.what.substr(2);
  return Made::kBroken;
}

}  // namespace

Made break_entry_param_out(WellFormedEdit& e) {
  if (e.tensor_params.empty()) return Made::kNoPlace;
  Param& p = e.entry->params[e.tensor_params[e.c.one_of(e.tensor_params.size())]];
  p.dir = Dir::Out;
  e.b.what = "an entry param made Out";
  e.b.message = fmt::format("entry param '{}' of '{}' is Out; entry tensors are In or InOut", p.name, e.entry->name);
  return Made::kBroken;
}

Made break_type(WellFormedEdit& e) {
  Places graph_tensor_params, graph_results;
  for (Function* g : e.graphs) {
    for (size_t i = 0; i < g->params.size(); ++i)
      if (g->params[i].type.is_tensor()) graph_tensor_params.emplace_back(g, i);
    for (size_t j = 0; j < g->results.size(); ++j)
      if (g->results[j].is_tensor()) graph_results.emplace_back(g, j);
  }
  // 0: a create, 1: a kernel param, 2: an entry param, 3: a graph's param, 4: a graph's result
  const size_t where = e.c.one_of(5);
  if (where == 0 || (where == 1 && e.kernels.empty()) || (where == 2 && e.tensor_params.empty()) ||
      (where == 3 && graph_tensor_params.empty()) || (where == 4 && graph_results.empty()))
    return bad_create(e);
  return bad_declared_type(e, where, graph_tensor_params, graph_results);
}

}  // namespace stackcheck::gen::breakers
