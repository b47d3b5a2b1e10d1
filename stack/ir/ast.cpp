#include "stack/ir/ast.h"
#include "stack/support/enum_names.h"

namespace stackcheck::ir {

const char* dir_name(Dir d) {
  static constexpr auto kNames = support::names_through<Dir::InOut>({"In", "Out", "InOut"});
  return support::enum_name(kNames, d);
}

const char* binop_text(BinOp op) { return support::op_text(op); }

const char* cmp_text(CmpOp op) { return support::op_text(op); }

}  // namespace stackcheck::ir
