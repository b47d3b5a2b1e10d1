#include "stack/ir/ast.h"

namespace stackcheck::ir {

const char* dir_name(Dir d) {
  switch (d) {
    case Dir::In: return "In";
    case Dir::Out: return "Out";
    case Dir::InOut: return "InOut";
  }
  return "?";
}

const char* binop_text(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Mod: return "%";
  }
  return "?";
}

const char* cmp_text(CmpOp op) {
  switch (op) {
    case CmpOp::Eq: return "==";
    case CmpOp::Ne: return "!=";
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
  }
  return "?";
}

}  // namespace stackcheck::ir
