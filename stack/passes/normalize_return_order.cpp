#include "stack/passes/normalize_return_order.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "stack/defects/defects.h"
#include "stack/ir/rpi.h"
#include "stack/ir/walk.h"

namespace stackcheck::passes {
namespace {

using ir::Function;
using ir::Stmt;

// A0 on one graph, with lineage from the input program's rpi.
void explicit_graph_returns(Function& g, const ir::RpiTable& table) {
  const ir::Lineage lineage(g, table);
  for (Stmt& s : g.body) {
    if (s.kind != Stmt::Kind::Return) continue;
    for (std::string& r : s.returns) {
      std::optional<size_t> p = lineage.param_of(r);
      if (p && *p < g.params.size()) r = g.params[*p].name;
    }
    if (defects::active(defects::Defect::kGraphReturnsSwapped)) {
      // Zoo: the returns sorted into param order as kernel returns are (A), with no caller
      // remapped (B): results returned out of param order swap at their call sites.
      auto index = [&](const std::string& n) {
        for (size_t i = 0; i < g.params.size(); ++i)
          if (g.params[i].name == n) return i;
        return g.params.size();
      };
      std::stable_sort(s.returns.begin(), s.returns.end(),
                       [&](const std::string& a, const std::string& b) { return index(a) < index(b); });
    }
  }
}

// A on one kernel. Returns P (old position -> new position) when the order changed.
std::optional<std::vector<size_t>> sort_kernel_returns(Function& k) {
  const size_t n = k.kernel_returns.size();
  std::vector<size_t> key(n);
  for (size_t j = 0; j < n; ++j) {
    // Names that are no param (ill-formed) sort last, keeping their relative order.
    key[j] = k.params.size();
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (k.params[i].name == k.kernel_returns[j]) {
        key[j] = i;
        break;
      }
    }
  }
  std::vector<size_t> order(n);  // new position -> old position
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
  bool identity = true;
  for (size_t j = 0; j < n; ++j) identity = identity && order[j] == j;
  if (identity) return std::nullopt;
  std::vector<std::string> sorted(n);
  std::vector<size_t> perm(n);  // old -> new
  for (size_t pos = 0; pos < n; ++pos) {
    sorted[pos] = k.kernel_returns[order[pos]];
    perm[order[pos]] = pos;
  }
  k.kernel_returns = std::move(sorted);
  return perm;
}

// B on one function body: remap tuple elements of calls/submits of permuted kernels.
class TupleRemapper {
 public:
  explicit TupleRemapper(const std::unordered_map<std::string, std::vector<size_t>>& perms) : perms_(perms) {}

  void run(Function& f) {
    tuple_callee_.clear();
    collect(f.body);
    remap(f.body);
  }

 private:
  void collect(const std::vector<Stmt>& body) {
    ir::walk_statements(body, [&](const Stmt& s) {
      if (s.kind == Stmt::Kind::Assign) {
        if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
          tuple_callee_.emplace(s.name, c->invoke.callee);  // first definition wins
        }
      }
    });
  }
  void remap(std::vector<Stmt>& body) {
    ir::walk_statements(body, [&](Stmt& s) {
      if (s.kind != Stmt::Kind::Assign) return;
      auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs);
      if (t == nullptr) return;
      auto callee = tuple_callee_.find(t->tuple);
      if (callee == tuple_callee_.end()) return;
      auto perm = perms_.find(callee->second);
      // Indices past the returns (the submit task id) keep their position.
      if (perm != perms_.end() && t->index >= 0 && static_cast<uint64_t>(t->index) < perm->second.size()) {
        t->index = static_cast<int64_t>(perm->second[static_cast<size_t>(t->index)]);
      }
    });
  }

  const std::unordered_map<std::string, std::vector<size_t>>& perms_;
  std::unordered_map<std::string, std::string> tuple_callee_;
};

}  // namespace

ir::Program normalize_return_order(const ir::Program& input) {
  ir::Program out = input;
  // A0 first, against the input's rpi (A0 never changes rpi, A permutes only kernels).
  const ir::RpiTable table(input);
  for (Function& f : out.functions) {
    if (f.kind == Function::Kind::Graph) explicit_graph_returns(f, table);
  }
  // A: callers reach the first function of a name, so only its permutation remaps tuples.
  std::unordered_map<std::string, std::vector<size_t>> perms;
  for (Function& f : out.functions) {
    if (f.kind != Function::Kind::Kernel) continue;
    std::optional<std::vector<size_t>> perm = sort_kernel_returns(f);
    if (perm && perms.count(f.name) == 0) {
      bool first = true;
      for (const Function& g : out.functions) {
        if (&g == &f) break;
        first = first && g.name != f.name;
      }
      if (first) perms.emplace(f.name, std::move(*perm));
    }
  }
  if (!perms.empty()) {
    TupleRemapper remapper(perms);
    for (Function& f : out.functions) {
      if (f.kind != Function::Kind::Kernel) remapper.run(f);
    }
  }
  return out;
}

PassResult NormalizeReturnOrder::run(const ir::Program& input) {
  return PassResult::accepted(normalize_return_order(input));
}

}  // namespace stackcheck::passes
