// Structural equality of IR nodes: every field but locations. parse(print(p)) == p.
#pragma once

#include "stack/ir/ast.h"

namespace stackcheck::ir {

bool equal(const Type& a, const Type& b);
bool equal(const Expr& a, const Expr& b);
bool equal(const Stmt& a, const Stmt& b);
bool equal(const Function& a, const Function& b);
bool equal(const Program& a, const Program& b);

}  // namespace stackcheck::ir
