// The `.plan` rule family (plan_edit.h). Limits and places: slots, dims, ranks, entry size,
// sync_start, allocs, reads, windows, nesting and expression depth, mutate offsets; each rule with
// a limit fills its at-limit twin.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/gen/breakers/plan_edit.h"

namespace stackcheck::gen::breakers {

using namespace runtime;

bool break_slot_in_root(PlanEdit& ed) {
  ed.front.push_back(set("zz_s", PlanExpr::slot(ed.c.integer(0, 63))));
  ed.b.expected = "'$' slot outside a graph body";
  return true;
}

bool break_slot_range(PlanEdit& ed) {
  const int64_t k = ed.c.chance(50) ? 64 : ed.c.integer(65, 1000);
  ed.front.push_back(set("zz_s", PlanExpr::slot(k)));
  ed.b.expected = fmt::format("slot ${} is not in $0..$63", k);
  const int64_t ok = ed.c.near_edges(0, 63);
  ed.legal.push_back(set("zz_s", PlanExpr::slot(ok)));
  ed.b.limit = fmt::format("slot ${}", ok);
  return true;
}

bool break_dim_zero(PlanEdit& ed) {
  const int64_t d = ed.c.chance(50) ? 0 : -ed.c.integer(1, 4);
  std::vector<int64_t> shape{ed.c.integer(1, 4)};
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(ed.c.one_of(2)), d);
  std::vector<int64_t> ok = shape;
  std::replace(ok.begin(), ok.end(), d, int64_t{1});
  ed.legal.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", ok}}}));
  ed.b.limit = "an alloc dimension of 1";
  if (ed.c.boolean()) {
    ed.front.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", shape}}}));
    ed.b.expected = fmt::format("alloc dimension {} is not >= 1", d);
  } else {
    ed.front.push_back(
        stmt(SubmitStmt{Builtin::Fill, {PlanArg::output("zz_o", shape), PlanArg::scalar_value(lit(1))}}));
    ed.b.expected = fmt::format("output dimension {} is not >= 1", d);
  }
  return true;
}

bool break_rank_five(PlanEdit& ed) {
  const size_t rank = ed.c.chance(60) ? 5 : 6 + ed.c.one_of(3);
  ed.front.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", std::vector<int64_t>(rank, 1)}}}));
  ed.b.expected = fmt::format("alloc rank {} is not in 1..4", rank);
  ed.legal.push_back(stmt(AllocStmt{{PlanBuffer{"zz_b", std::vector<int64_t>(ed.c.chance(70) ? 4 : 1, 1)}}}));
  ed.b.limit = "an alloc of rank 4 or 1";
  return true;
}

bool break_entry_too_large(PlanEdit& ed) {
  // exactly one past the limit, or a 2-D shape whose product passes it
  const std::vector<int64_t> shape =
      ed.c.chance(50) ? std::vector<int64_t>{(1 << 20) + 1} : std::vector<int64_t>{1025, 1024};
  ed.b.plan.tensors.push_back(EntryTensor{"zz_e", ed.c.boolean(), shape, {}});
  ed.b.expected = fmt::format("entry tensor has more than {} elements", 1 << 20);
  ed.b.at_limit = ed.valid;
  ed.b.at_limit->tensors.push_back(EntryTensor{"zz_e", ed.c.boolean(),
                                            ed.c.boolean() ? std::vector<int64_t>{1 << 20} : std::vector<int64_t>{1024, 1024},
                                            {}});
  ed.b.limit = fmt::format("an entry tensor of exactly {} elements", 1 << 20);
  return true;
}

bool break_sync_negative(PlanEdit& ed) {
  const int64_t n = -ed.c.integer(1, 3);
  ed.front.push_back(stmt(SyncStartStmt{n}));
  ed.b.expected = "sync_start block count is negative";
  ed.legal.push_back(stmt(SyncStartStmt{0}));
  ed.b.limit = "sync_start 0";
  return true;
}

bool break_alloc_empty(PlanEdit& ed) {
  ed.front.push_back(stmt(AllocStmt{}));
  ed.b.expected = "alloc without buffers";
  return true;
}

bool break_read_not_in(PlanEdit& ed) {
  std::string t;
  for (const EntryTensor& e : ed.b.plan.tensors)
    if (e.inout) t = e.name;
  if (t.empty() || ed.c.boolean()) {
    t = "zz_b";
    ed.front.push_back(stmt(AllocStmt{{PlanBuffer{t, {4}}}}));
  }
  ed.front.push_back(stmt(ReadStmt{"zz_s", t, {lit(0)}}));
  ed.b.expected = fmt::format("read of '{}', whose root is not an entry In tensor", t);
  return true;
}

bool break_read_rank(PlanEdit& ed) {
  std::vector<PlanExpr> index(ed.c.boolean() ? 0 : 5 + ed.c.one_of(2), lit(0));
  ed.front.push_back(stmt(ReadStmt{"zz_s", ed.at.in_entry, std::move(index)}));
  ed.b.expected = "read index rank is not in 1..4";
  return true;
}

bool break_window_rank(PlanEdit& ed) {
  const size_t rank = 5 + ed.c.one_of(2);
  PlanWindow w = whole(ed.tensor());
  PlanWindow ok = w;
  for (size_t i = 0; i < rank; ++i) w.ranges.push_back(PlanRange{lit(0), 1});
  for (size_t i = 0; i < 4; ++i) ok.ranges.push_back(PlanRange{lit(0), 1});
  ed.front.push_back(fill(std::move(w)));
  ed.b.expected = fmt::format("window of rank {} exceeds 4", rank);
  ed.legal.push_back(fill(std::move(ok)));
  ed.b.limit = "a window of rank 4";
  return true;
}

bool break_window_negative(PlanEdit& ed) {
  PlanWindow w = whole(ed.tensor());
  PlanWindow ok = w;
  w.ranges.push_back(PlanRange{lit(0), -ed.c.integer(1, 4)});
  ok.ranges.push_back(PlanRange{lit(0), 0});
  ed.front.push_back(fill(std::move(w)));
  ed.b.expected = "window size is negative";
  ed.legal.push_back(fill(std::move(ok)));
  ed.b.limit = "a window of size 0";
  return true;
}

bool break_nesting_deep(PlanEdit& ed) {
  // Blocks nest from depth 0 (the root body) or 1 (a graph body); 256 is the deepest allowed.
  const auto nest = [&](int depth) {
    PlanBlock inner{set("zz_s", lit(1))};
    for (int i = 0; i < depth; ++i) {
      PlanBlock outer;
      if (ed.c.boolean())
        outer.push_back(stmt(IfStmt{lit(0), PlanCmp::Eq, lit(0), std::move(inner), {}}));
      else
        outer.push_back(stmt(ForStmt{fmt::format("zz_n{}", i), lit(0), lit(1), lit(1), std::move(inner)}));
      inner = std::move(outer);
    }
    return inner;
  };
  const int most = 256 - (ed.at.in_graph ? 1 : 0) - (ed.at.where.rfind("for ", 0) == 0 ? 1 : 0);
  ed.front = nest(most + 1 + static_cast<int>(ed.c.near_edges(0, 3)));
  ed.b.expected = "blocks nested deeper than 256";
  ed.legal = nest(most);
  ed.b.limit = fmt::format("blocks nested {} deep", most);
  return true;
}

bool break_expr_deep(PlanEdit& ed) {
  // A left chain of n binaries puts its deepest leaf at depth n + 1: 1023 is the most.
  const auto chain = [&](int n) {
    PlanExpr e = lit(0);
    for (int i = 0; i < n; ++i) e = PlanExpr::binary(ed.c.boolean() ? PlanBinOp::Add : PlanBinOp::Sub, std::move(e), lit(0));
    return e;
  };
  const std::string t = ed.at.tensors.empty() ? "" : ed.tensor();
  ed.front.push_back(ed.in_site(chain(1024 + static_cast<int>(ed.c.near_edges(0, 8))), t));
  ed.b.expected = "expression deeper than 1024";
  ed.legal.push_back(ed.in_site(chain(1023), t));
  ed.b.limit = fmt::format("an expression 1024 deep in {}", ed.site_name());
  return true;
}

bool break_mutate_offset(PlanEdit& ed) {
  const uint64_t off = (uint64_t{1} << 63) + static_cast<uint64_t>(ed.c.integer(0, 1000));
  ed.b.plan.mutations.push_back(Mutation{ed.c.boolean() ? MutationTarget::kImage : MutationTarget::kRuntimeHeader, off,
                                      static_cast<uint8_t>(ed.c.integer(0, 255)), {}});
  ed.b.where = "mutations";
  ed.b.expected = "mutate offset exceeds 2^63-1";
  return true;
}

}  // namespace stackcheck::gen::breakers
