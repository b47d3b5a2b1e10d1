// invoke_of: the one place that knows where a statement keeps its call/submit.
#include "stack/ir/walk.h"

namespace stackcheck::ir {

const Invoke* invoke_of(const Stmt& s) {
  if (s.kind == Stmt::Kind::Invoke) return &s.invoke;
  if (s.kind == Stmt::Kind::Assign) {
    if (const auto* r = std::get_if<InvokeRhs>(&s.rhs)) return &r->invoke;
  }
  return nullptr;
}

Invoke* invoke_of(Stmt& s) { return const_cast<Invoke*>(invoke_of(static_cast<const Stmt&>(s))); }

}  // namespace stackcheck::ir
