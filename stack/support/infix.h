// The infix grammar both text formats share (.gir and .plan expressions, COMPILER.md §1 and
// RUNTIME.md §17): + and - bind looser than * / %, operands tighter than both. The printers
// parenthesize by it (left-associative: a right operand of equal precedence takes parentheses).
#pragma once

namespace stackcheck::support {

// E: an expression with a Kind (Binary among them) and an op (Add and Sub among them).
template <class E>
int infix_precedence(const E& e) {
  using Op = decltype(e.op);
  if (e.kind != E::Kind::Binary) return 3;
  return (e.op == Op::Add || e.op == Op::Sub) ? 1 : 2;
}

}  // namespace stackcheck::support
