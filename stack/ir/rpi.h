// returned_param_indices (rpi) and lineage (COMPILER.md §3, §5.2), shared by the passes,
// the verifiers, codegen and the interpreter.
//
// rpi(f) maps return position j to the index of the param that return j is, or none:
//   kernel: the named param; graph: i iff the lineage of return j reaches param i;
//   orchestration: empty (it returns nothing).
// Lineage of a tensor name steps through `v = y`, writebacks (`v = call f(..)` with one
// result, by rpi(f)[0]), tuple elements (`v = r.k`, by rpi(f)[k]; a submit's task id is
// never a param) and `assemble` (its target), never through `slice`, create, full or loops.
//
// Invariant: total on ANY Program (also ill-formed ones): unknown names, unknown callees,
// duplicate definitions (the first wins; params before statements), call cycles (a callee
// still being computed counts as all-none) and deep chains never crash or recurse without
// bound. Results are deterministic and depend only on structure, never on locations.
#pragma once

#include "stack/ir/ast.h"

#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stackcheck::ir {

// Return position -> param index, or nullopt (not traceable to a param); inline for up to
// four results, so a table of a program's functions allocates nothing per function.
using ReturnParams = boost::container::small_vector<std::optional<size_t>, 4>;

// rpi of f, a function of p. Graph: one entry per name of its return statement (the last
// top-level `return`; none: one nullopt per declared result).
ReturnParams returned_param_indices(const Program& p, const Function& f);

// rpi of every function of p, computed once (callees first). Keep it when asking many times.
class RpiTable {
 public:
  explicit RpiTable(const Program& p);
  // rpi of the first function named `name`; nullptr if p has no such function (or, while the
  // table is being built, one not computed yet: a callee on a call cycle).
  const ReturnParams* find(std::string_view name) const;
  // rpi of f; f must be one of p's functions (matched by name: the first of that name).
  const ReturnParams& of(const Function& f) const;

 private:
  // The first function of each name, sorted by name, and its rpi (set callees first): two
  // allocations for the table however many functions (names are short: no heap of their own).
  struct Entry {
    std::string name;
    std::optional<ReturnParams> rpi;
  };
  std::vector<Entry> entries_;
  Entry* entry(std::string_view name);
};

// Lineage of the tensor names of one function. Callee rpi come from `rpi`, which (like f)
// must outlive the Lineage.
class Lineage {
 public:
  Lineage(const Function& f, const RpiTable& rpi);
  // The param index `name`'s lineage reaches, or nullopt (untraceable, or unknown name).
  std::optional<size_t> param_of(std::string_view name) const;

 private:
  // Sorted by name, the first of each name only (params in order; Assigns in walk order):
  // inline up to 16 names, so most functions need no heap for it.
  template <typename V>
  using Index = boost::container::small_vector<std::pair<std::string_view, V>, 16>;
  template <typename V>
  static const V* lookup(const Index<V>& index, std::string_view name);

  const RpiTable* rpi_;
  Index<size_t> params_;    // name -> param index
  Index<const Stmt*> defs_;  // name -> first defining Assign
};

// Convenience: lineage of one name of f (builds an RpiTable; prefer Lineage for many names).
std::optional<size_t> lineage_param(const Program& p, const Function& f, std::string_view name);

}  // namespace stackcheck::ir
