// Spellings shared by the `.plan` parser and printer (program.h).
#include "stack/runtime/plan/program.h"
#include "stack/support/enum_names.h"

namespace stackcheck::runtime {

const char* builtin_name(Builtin b) {
  static constexpr auto kNames =
      support::names_through<Builtin::Rowsum>({"fill", "copy", "add", "acc", "scale", "matmul", "rowsum"});
  return support::enum_name(kNames, b);
}

std::optional<Builtin> builtin_from_name(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Builtin::Rowsum); ++i)
    if (name == builtin_name(static_cast<Builtin>(i))) return static_cast<Builtin>(i);
  return std::nullopt;
}

const char* tag_name(PlanTag t) {
  static constexpr auto kNames =
      support::names_through<PlanTag::Scalar>({"input", "inout", "output", "output_existing", "no_dep", "scalar"});
  return support::enum_name(kNames, t);
}

const char* cmp_name(PlanCmp c) { return support::op_text(c); }

const char* binop_name(PlanBinOp op) { return support::op_text(op); }

}  // namespace stackcheck::runtime
