// The operators' text (wrapping.h).
#include "stack/support/wrapping.h"

#include "stack/support/enum_names.h"

namespace stackcheck::support {

const char* op_text(ArithOp op) {
  static constexpr auto kText = names_through<ArithOp::Mod>({"+", "-", "*", "/", "%"});
  return enum_name(kText, op);
}
const char* op_text(CompareOp op) {
  static constexpr auto kText = names_through<CompareOp::Ge>({"==", "!=", "<", "<=", ">", ">="});
  return enum_name(kText, op);
}

}  // namespace stackcheck::support
