// Canonical printer of the `.gir` format (COMPILER.md §1): declarations in order, two-space
// indent, single spaces around operators and after commas, minimal parentheses, `} else {`.
// print(parse(print(p))) == print(p) for every Program the parser can return.
#pragma once

#include "stack/ir/ast.h"

#include <string>

namespace stackcheck::ir {

std::string print_program(const Program& p);
std::string print_function(const Function& f);
std::string print_expr(const Expr& e);
std::string print_type(const Type& t);

}  // namespace stackcheck::ir
