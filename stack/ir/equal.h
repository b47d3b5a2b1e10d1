// Structural equality of IR nodes: every field but locations. parse(print(p)) == p.
#pragma once

#include "stack/ir/ast.h"

namespace stackcheck::ir {

bool equal(const Type& a, const Type& b);
bool equal(const Expr& a, const Expr& b);
bool equal(const Stmt& a, const Stmt& b);
bool equal(const Function& a, const Function& b);
bool equal(const Program& a, const Program& b);

// Identity of every field, locations and the fields a node's kind leaves unused included (an
// i64 type's dims, an Int expression's name): what a check that reads any field (WellFormed
// reads them) sees alike. `identical_signature` leaves out the body only.
bool identical(const Function& a, const Function& b);
bool identical_signature(const Function& a, const Function& b);

}  // namespace stackcheck::ir
