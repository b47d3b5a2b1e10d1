// One-field edits of an IR program, at every node, for judging the structural comparator the
// oracles trust (ir::equal: round trips, determinism, pass idempotence all rest on it).
// ir_edit_sites lists every edit the program admits: a function's kind, name, builtin, kernel
// returns, results, a param's name, direction and type (kind, dtype, each dim, the rank), a
// statement's kind-specific fields (the assigned name, each right-hand side's names, index,
// sizes and expressions, a call's callee, submit flag and arguments, returns, a loop's
// variable and bounds, an if's comparison and both blocks, a statement dropped from a block),
// an expression's literal, name, dim index, operator and operands, a function dropped or
// repeated. Each keeps the node printable (an operator keeps two operands, a read at least
// one index), so ir::print_program is defined on the result: the differential oracle is that
// the comparator says "equal" exactly when the printed texts are equal (the text carries every
// field but locations, COMPILER.md §1). relocate moves every location and nothing else.
// No RapidCheck here: the property draws an index into the list.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "stack/ir/ast.h"

namespace stackcheck::gen {

struct IrEdit {
  std::string what;  // one line: the node (by path) and the field
  std::function<void(ir::Program&)> apply;
};

std::vector<IrEdit> ir_edit_sites(const ir::Program& p);

// Every Loc of `p` (functions, params, statements, calls, expressions) shifted by `by`.
void relocate(ir::Program& p, uint32_t by);

}  // namespace stackcheck::gen
