// Planted fatal codes (plan_builder.h): one deliberate cause of each orchestrator code 1..11
// (6 is retired), appended after the clean statements, with the config it needs. The
// generator records the code it planted; which code latched is measured by the binder (the
// clean prefix may latch the same resource code earlier, never another one unless the
// config it was given is small too).
#include <fmt/format.h>

#include "properties/gen/plan_builder.h"

namespace stackcheck::gen::plan_detail {

using namespace runtime;

namespace {

PlanWindow win(const std::string& name, std::vector<std::pair<PlanExpr, int64_t>> ranges) {
  PlanWindow w;
  w.name = name;
  for (auto& [o, n] : ranges) w.ranges.push_back({std::move(o), n});
  return w;
}

PlanStmt fill(PlanWindow w, PlanExpr v) {
  SubmitStmt s;
  s.builtin = Builtin::Fill;
  s.args = {PlanArg::tensor(PlanTag::OutputExisting, std::move(w)), PlanArg::scalar_value(std::move(v))};
  return stmt(std::move(s));
}

// Textual submit_graph statements in `b` and the blocks inside it: a bound on the graph
// definitions a bind records (a definition's key is its graph and window shapes, and a
// statement's window sizes are literals).
size_t graph_submissions(const PlanBlock& b) {
  size_t n = 0;
  for (const PlanStmt& s : b) {
    if (std::holds_alternative<SubmitGraphStmt>(s.node)) ++n;
    if (const auto* f = std::get_if<ForStmt>(&s.node)) n += graph_submissions(f->body);
    if (const auto* i = std::get_if<IfStmt>(&s.node)) n += graph_submissions(i->then_body) + graph_submissions(i->else_body);
  }
  return n;
}

}  // namespace

int PlanBuilder::plan_code_for(size_t choice) {
  static const int codes[] = {9, 8, 5, 1, 7, 2, 3, 10, 11, 4};
  return codes[choice];
}

int PlanBuilder::plant(OrchProgram& p, Body& root) {
  (void)root;
  const int code = k_.planted_code != 0 ? k_.planted_code : plan_code_for(c_.one_of(10));
  const size_t first = p.body.size();
  PlanBlock& body = p.body;
  switch (code) {
    case 9: body.push_back(stmt(FatalStmt{})); break;
    case 8: body.push_back(stmt(WaitTensorStmt{"c"})); break;
    case 5:
      switch (k_.planted_cause >= 0 ? static_cast<size_t>(k_.planted_cause) : c_.one_of(kPlantedCausesOf5)) {
        case 0: {  // a zero divisor in orchestration arithmetic, in any place a plan evaluates one
          const std::string z = fresh("z"), q = fresh("q");
          body.push_back(stmt(SetStmt{z, lit(0)}));
          PlanExpr bad = PlanExpr::binary(c_.boolean() ? PlanBinOp::Div : PlanBinOp::Mod, lit(1), name_of(z));
          auto nested = [&](bool left) {
            return left ? PlanExpr::binary(PlanBinOp::Add, std::move(bad), lit(1))
                        : PlanExpr::binary(PlanBinOp::Sub, lit(1), std::move(bad));
          };
          switch (const size_t where = c_.one_of(11)) {
            case 1:
            case 2: body.push_back(stmt(SetStmt{q, nested(where == 1)})); break;  // an operand of an operand
            case 3:
            case 4:
            case 5: {  // a loop's start, stop or step
              ForStmt f = counting_loop(fresh("i"), 4);
              (where == 3 ? f.start : where == 4 ? f.stop : f.step) = std::move(bad);
              body.push_back(stmt(std::move(f)));
              break;
            }
            case 6:
            case 7: {  // either operand of an if
              IfStmt i;
              (where == 6 ? i.lhs : i.rhs) = std::move(bad);
              i.then_body.push_back(stmt(SetStmt{q, lit(1)}));
              body.push_back(stmt(std::move(i)));
              break;
            }
            case 8: body.push_back(fill(win("c", {{lit(0), 4}}), std::move(bad))); break;    // a scalar argument
            case 9: body.push_back(stmt(ViewStmt{fresh("v"), win("c", {{std::move(bad), 4}})})); break;  // an offset
            case 10: body.push_back(stmt(ReadStmt{q, "x", {std::move(bad)}})); break;        // a read's index
            default: body.push_back(stmt(SetStmt{q, std::move(bad)}));
          }
          break;
        }
        case 1: {  // a zero loop step
          ForStmt f = counting_loop(fresh("i"), 4, 0);
          body.push_back(stmt(std::move(f)));
          break;
        }
        case 2:  // a window outside its buffer; a read of x of the wrong rank or past it; a submit_graph
                 // of the wrong arity
          switch (c_.one_of(3)) {
            case 1: {  // a read of x (rank 1, 16 elements) with two indices, or at index 16 or -1
              const size_t way = c_.one_of(3);
              std::vector<PlanExpr> index = {lit(way == 1 ? 16 : way == 2 ? -1 : 0)};
              if (way == 0) index.push_back(lit(0));
              body.push_back(stmt(ReadStmt{fresh("q"), "x", std::move(index)}));
              break;
            }
            case 2: {  // a submit_graph passing one tensor more or fewer than its graph's params
              PlanGraph g;
              g.name = fresh("zg");
              g.params = {fresh("zp"), fresh("zp")};
              g.body.push_back(fill(win(g.params.front(), {{lit(0), 4}}), lit(1)));
              SubmitGraphStmt sub;
              sub.graph = g.name;
              const size_t n = c_.boolean() ? 1 : 3;
              for (size_t k = 0; k < n; ++k) sub.args.push_back(PlanArg::tensor(PlanTag::Inout, win("c", {})));
              p.graphs.push_back(std::move(g));
              body.push_back(stmt(std::move(sub)));
              break;
            }
            default: body.push_back(stmt(ViewStmt{fresh("v"), win("c", {{lit(c_.integer(9, 15)), 8}})}));
          }
          break;
        case 3: {  // a tensor after a scalar
          SubmitStmt s;
          s.builtin = Builtin::Scale;
          s.args = {PlanArg::tensor(PlanTag::Input, win("x", {{lit(0), 4}})), PlanArg::scalar_value(lit(2)),
                    PlanArg::tensor(PlanTag::OutputExisting, win("c", {{lit(0), 4}}))};
          body.push_back(stmt(std::move(s)));
          break;
        }
        case 4: {  // a tag the builtin's param does not accept
          SubmitStmt s;
          s.builtin = Builtin::Fill;
          s.args = {PlanArg::tensor(PlanTag::Input, win("c", {{lit(0), 4}})), PlanArg::scalar_value(lit(1))};
          body.push_back(stmt(std::move(s)));
          break;
        }
        case 5: {  // shapes the builtin rejects: equal ranks, one dimension off (or transposed)
          SubmitStmt s;
          const size_t form = c_.one_of(3);
          if (form == 2) {
            const std::string a = fresh("za"), b = fresh("za");
            body.push_back(stmt(AllocStmt{{PlanBuffer{a, {2, 4}}, PlanBuffer{b, {4, 2}}}}));
            s.builtin = Builtin::Copy;
            s.args = {PlanArg::tensor(PlanTag::Input, win(a, {})), PlanArg::tensor(PlanTag::OutputExisting, win(b, {}))};
          } else {
            // add(x, y) -> o with y (form 0) or o (form 1) one element longer than x
            s.builtin = Builtin::Add;
            s.args = {PlanArg::tensor(PlanTag::Input, win("x", {{lit(0), 4}})),
                      PlanArg::tensor(PlanTag::Input, win("x", {{lit(0), form == 0 ? 5 : 4}})),
                      PlanArg::tensor(PlanTag::OutputExisting, win("c", {{lit(0), form == 1 ? 5 : 4}}))};
          }
          body.push_back(stmt(std::move(s)));
          break;
        }
        default: {
          // A graph whose recording is refused (RUNTIME.md §9: what a graph body may not do), one
          // statement past its last legal one, submitted once: a nested submit_graph, an alloc of
          // one buffer past kAllocMaxBuffers (16, after one of exactly 16), a scope_end, a
          // wait_tensor, a scope_begin, a node's tensor after its scalar, one 64-byte step past
          // the graph heap a graph may need (INT32_MAX); or a submission whose
          // args GraphArgs refuse (an output, output_existing or no_dep tag, a tensor after a
          // scalar).
          PlanGraph g;
          g.name = fresh("zg");
          g.params = {fresh("zp")};
          const std::string& param = g.params.front();
          g.body.push_back(fill(win(param, {{lit(0), 4}}), lit(1)));
          // 8..11: the four refused submissions; 12 (the graph heap need) a fifth of the time,
          // so that a property planting 5 reaches it in every run of 100 cases
          // (12 needs its graph recorded: with 16 definitions possible before it, the cache
          // may be full and the graph then runs inline, where no recording limit applies)
          const bool recorded = graph_submissions(p.body) < 16;
          const size_t cause = recorded && c_.chance(20) ? 12 : c_.one_of(12);
          if (cause == 4 || cause == 5) {
            // A submission of exactly the most arguments a task takes (128 tensors or 64
            // scalars, RUNTIME.md §9), then one of one more.
            const bool tensors = cause == 4;
            for (size_t n : {tensors ? size_t{128} : size_t{64}, tensors ? size_t{129} : size_t{65}}) {
              PlanGraph wide;
              wide.name = fresh("zw");
              SubmitGraphStmt sub;
              sub.graph = wide.name;
              for (size_t k = 0; k < (tensors ? n : 1); ++k) {
                wide.params.push_back(fresh("zq"));
                sub.args.push_back(PlanArg::tensor(PlanTag::Input, win("x", {})));
              }
              // the body copies its first boundary tensor (a window of x, [16]) into its own buffer
              const std::string own = fresh("zb");
              wide.body.push_back(stmt(AllocStmt{{PlanBuffer{own, {16}}}}));
              wide.body.push_back(stmt(SubmitStmt{Builtin::Copy,
                                                  {PlanArg::tensor(PlanTag::Input, win(wide.params.front(), {})),
                                                   PlanArg::tensor(PlanTag::OutputExisting, win(own, {}))}}));
              if (!tensors)
                for (size_t k = 0; k < n; ++k) sub.args.push_back(PlanArg::scalar_value(lit(static_cast<int64_t>(k))));
              p.graphs.push_back(std::move(wide));
              body.push_back(stmt(std::move(sub)));
            }
            break;
          }
          if (cause == 0) {
            SubmitGraphStmt nested;
            nested.graph = p.graphs.empty() || c_.boolean() ? g.name : p.graphs[c_.one_of(p.graphs.size())].name;
            nested.args = {PlanArg::tensor(PlanTag::Inout, win(param, {}))};
            if (nested.graph != g.name) {
              // an earlier graph takes its own params: as many windows of the param as it has
              nested.args.clear();
              for (const PlanGraph& e : p.graphs)
                if (e.name == nested.graph)
                  for (size_t k = 0; k < e.params.size(); ++k)
                    nested.args.push_back(PlanArg::tensor(PlanTag::Inout, win(param, {})));
            }
            g.body.push_back(stmt(std::move(nested)));
          } else if (cause == 1) {
            for (size_t n : {size_t{16}, size_t{17}}) {
              AllocStmt a;
              for (size_t k = 0; k < n; ++k) a.buffers.push_back(PlanBuffer{fresh("zb"), {4}});
              g.body.push_back(stmt(std::move(a)));
            }
          } else if (cause == 2) {
            g.body.push_back(stmt(ScopeEndStmt{}));
          } else if (cause == 3) {
            g.body.push_back(stmt(WaitTensorStmt{param}));
          } else if (cause == 6) {
            g.body.push_back(stmt(ScopeBeginStmt{}));
          } else if (cause == 12) {
            // RUNTIME.md §9: required_heap + args + storage <= INT32_MAX. An internal buffer sized
            // so that the graph needs the first multiple of 64 past it. Its nodes: the param's
            // fill, the alloc (the task that zeroes the buffer: one tensor), n fills of 4
            // elements of the buffer (one tensor and one scalar each): n + 2 nodes, n + 2 tensor
            // args (64 B each), n + 1 scalar args (8 B each), storage 32 + 128 (nodes - 1) + 104
            // (the figures of §9 and §12, written out here, not the runtime's).
            const auto n = static_cast<uint64_t>(c_.integer(1, 6));
            const uint64_t nodes = n + 2;
            const uint64_t rest = 64 * nodes + 8 * (n + 1) + 32 + 128 * (nodes - 1) + 104;
            const uint64_t internal = ((uint64_t{1} << 31) - rest + 63) / 64 * 64;
            const std::string big = fresh("zb");
            g.body.push_back(stmt(AllocStmt{{PlanBuffer{big, {static_cast<int64_t>(internal / 4)}}}}));
            for (uint64_t k = 0; k < n; ++k)
              g.body.push_back(fill(win(big, {{lit(static_cast<int64_t>(4 * k)), 4}}), lit(static_cast<int64_t>(k))));
          } else if (cause == 7) {  // a node's tensor after its scalar
            g.body.push_back(stmt(SubmitStmt{Builtin::Scale,
                                             {PlanArg::tensor(PlanTag::Input, win(param, {{lit(0), 4}})),
                                              PlanArg::scalar_value(lit(2)),
                                              PlanArg::tensor(PlanTag::OutputExisting, win(param, {{lit(4), 4}}))}}));
          }
          SubmitGraphStmt sub;
          sub.graph = g.name;
          sub.args = {PlanArg::tensor(PlanTag::Inout, win("c", {}))};
          if (cause >= 8 && cause <= 11) {  // GraphArgs take input, inout and scalar only, tensors first (§9)
            switch (cause - 8) {
              case 0: sub.args = {PlanArg::tensor(PlanTag::OutputExisting, win("c", {}))}; break;
              case 1: sub.args = {PlanArg::tensor(PlanTag::NoDep, win("x", {}))}; break;
              case 2: sub.args = {PlanArg::output(fresh("zo"), {16})}; break;
              default: sub.args = {PlanArg::scalar_value(lit(1)), PlanArg::tensor(PlanTag::Inout, win("c", {}))};
            }
          }
          p.graphs.push_back(std::move(g));
          body.push_back(stmt(std::move(sub)));
        }
      }
      break;
    case 1:
      switch (c_.one_of(3)) {
        case 0: body.push_back(stmt(ScopeEndStmt{})); break;    // unmatched
        case 1: body.push_back(stmt(ScopeBeginStmt{})); break;  // left open
        default:                                                // the 65th open scope (the root is the first)
          for (int i = 0; i < 64; ++i) body.push_back(stmt(ScopeBeginStmt{}));
          for (int i = 0; i < 64; ++i) body.push_back(stmt(ScopeEndStmt{}));
      }
      break;
    case 7:
      config_["clusters"] = c_.integer(1, 4);
      body.push_back(stmt(SyncStartStmt{config_["clusters"] + 1}));
      break;
    case 2: {  // a 1 KiB task heap and a 2 KiB buffer
      config_["task_heap"] = 1024;
      AllocStmt a;
      a.buffers.push_back({fresh("big"), {512}});
      body.push_back(stmt(std::move(a)));
      break;
    }
    case 3: {  // more tasks than the window
      config_["W"] = 4;
      ForStmt f = counting_loop(fresh("i"), 8);
      f.body.push_back(fill(win("c", {{lit(0), 1}}), name_of(f.var)));
      body.push_back(stmt(std::move(f)));
      break;
    }
    case 10: {  // a scope whose task list holds two
      config_["scope_tasks_capacity"] = 2;
      body.push_back(stmt(ScopeBeginStmt{}));
      for (int i = 0; i < 3; ++i) body.push_back(fill(win("c", {{lit(i), 1}}), lit(i)));
      body.push_back(stmt(ScopeEndStmt{}));
      break;
    }
    case 11: {  // a tensormap of 8 ranges + readers
      config_["tensormap_capacity"] = 8;
      ForStmt f = counting_loop(fresh("i"), 8);
      SubmitStmt s;
      s.builtin = Builtin::Copy;
      s.args = {
          PlanArg::tensor(PlanTag::Input, win("x", {{PlanExpr::binary(PlanBinOp::Mul, name_of(f.var), lit(2)), 2}})),
          PlanArg::output(fresh("o"), {2})};
      f.body.push_back(stmt(std::move(s)));
      body.push_back(stmt(std::move(f)));
      break;
    }
    default: {  // 4: one task with 129 producers
      config_["W"] = 1024;
      const std::string big = fresh("big"), sum = fresh("sum");
      p.tensors.push_back({big, true, {2048}, {}});
      AllocStmt a;
      a.buffers.push_back({sum, {2048}});
      body.push_back(stmt(std::move(a)));
      ForStmt f = counting_loop(fresh("i"), 128);
      f.body.push_back(fill(win(big, {{PlanExpr::binary(PlanBinOp::Mul, name_of(f.var), lit(16)), 16}}), lit(1)));
      body.push_back(stmt(std::move(f)));
      SubmitStmt s;
      s.builtin = Builtin::Acc;
      s.args = {PlanArg::tensor(PlanTag::Input, win(big, {})), PlanArg::tensor(PlanTag::Inout, win(sum, {}))};
      body.push_back(stmt(std::move(s)));
    }
  }
  place_planted(p, first, code);
  return code;
}

void PlanBuilder::place_planted(OrchProgram& p, size_t first, int code) {
  // Code 1's causes are the scope structure itself: they stay at the top level.
  const bool graph_ok = code == 9 || code == 7;
  const size_t where = code == 1 ? 0 : c_.one_of(graph_ok ? 6 : 5);
  if (where == 0) return;
  PlanBlock planted(std::make_move_iterator(p.body.begin() + static_cast<std::ptrdiff_t>(first)),
                    std::make_move_iterator(p.body.end()));
  p.body.erase(p.body.begin() + static_cast<std::ptrdiff_t>(first), p.body.end());
  switch (where) {
    case 1:
      p.body.push_back(stmt(ScopeBeginStmt{}));
      for (PlanStmt& s : planted) p.body.push_back(std::move(s));
      p.body.push_back(stmt(ScopeEndStmt{}));
      break;
    case 2: {
      ForStmt f = counting_loop(fresh("zi"), 1);
      f.body = std::move(planted);
      p.body.push_back(stmt(std::move(f)));
      break;
    }
    case 3:
    case 4: {  // if 0 == 0 { planted }   /   if 1 < 0 { set } else { planted }
      IfStmt s;
      s.lhs = lit(where == 3 ? 0 : 1);
      s.cmp = where == 3 ? PlanCmp::Eq : PlanCmp::Lt;
      s.rhs = lit(0);
      if (where == 3) {
        s.then_body = std::move(planted);
      } else {
        s.then_body.push_back(stmt(SetStmt{fresh("zs"), lit(0)}));
        s.else_body = std::move(planted);
      }
      p.body.push_back(stmt(std::move(s)));
      break;
    }
    default: {  // a graph body: fill its param, then the planted statement; submitted once
      PlanGraph g;
      g.name = fresh("zg");
      g.params = {fresh("zp")};
      g.body.push_back(fill(win(g.params.front(), {{lit(0), 4}}), lit(1)));
      for (PlanStmt& s : planted) g.body.push_back(std::move(s));
      SubmitGraphStmt sub;
      sub.graph = g.name;
      sub.args = {PlanArg::tensor(PlanTag::Inout, win("c", {}))};
      p.graphs.push_back(std::move(g));
      p.body.push_back(stmt(std::move(sub)));
    }
  }
}

}  // namespace stackcheck::gen::plan_detail
