// Spellings shared by the `.plan` parser and printer (program.h).
#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

const char* builtin_name(Builtin b) {
  switch (b) {
    case Builtin::Fill: return "fill";
    case Builtin::Copy: return "copy";
    case Builtin::Add: return "add";
    case Builtin::Acc: return "acc";
    case Builtin::Scale: return "scale";
    case Builtin::Matmul: return "matmul";
    case Builtin::Rowsum: return "rowsum";
  }
  return "?";
}

std::optional<Builtin> builtin_from_name(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Builtin::Rowsum); ++i)
    if (name == builtin_name(static_cast<Builtin>(i))) return static_cast<Builtin>(i);
  return std::nullopt;
}

const char* tag_name(PlanTag t) {
  switch (t) {
    case PlanTag::Input: return "input";
    case PlanTag::Inout: return "inout";
    case PlanTag::Output: return "output";
    case PlanTag::OutputExisting: return "output_existing";
    case PlanTag::NoDep: return "no_dep";
    case PlanTag::Scalar: return "scalar";
  }
  return "?";
}

const char* cmp_name(PlanCmp c) {
  switch (c) {
    case PlanCmp::Eq: return "==";
    case PlanCmp::Ne: return "!=";
    case PlanCmp::Lt: return "<";
    case PlanCmp::Le: return "<=";
    case PlanCmp::Gt: return ">";
    case PlanCmp::Ge: return ">=";
  }
  return "?";
}

const char* binop_name(PlanBinOp op) {
  switch (op) {
    case PlanBinOp::Add: return "+";
    case PlanBinOp::Sub: return "-";
    case PlanBinOp::Mul: return "*";
    case PlanBinOp::Div: return "/";
    case PlanBinOp::Mod: return "%";
  }
  return "?";
}

}  // namespace stackcheck::runtime
