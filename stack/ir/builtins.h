// The builtin library (COMPILER.md §2) described as data: each builtin's name, its params
// (tensor or i64 scalar, direction) and the shape rule its tensor params obey. WellFormed
// checks kernel declarations against it; the interpreter, the passes and codegen read it
// so that all agree on which param of a kernel is which builtin operand.
//
// Invariant: pure description, no semantics (the interpreter computes the builtins) and no
// state; the table is constant and ordered fill, copy, add, acc, scale, matmul, rowsum.
// Scalar params are always In; every builtin has at least one written (Out/InOut) tensor.
#pragma once

#include "stack/ir/ast.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stackcheck::ir {

enum class BuiltinKind : uint8_t { Fill, Copy, Add, Acc, Scale, Matmul, Rowsum };

// How the shapes of a builtin's tensor params relate (tensor params in param order):
// Equal: all equal; Matmul: [m,k], [k,n] -> [m,n]; Rowsum: [m,n] -> [m,1].
enum class ShapeRule : uint8_t { Equal, Matmul, Rowsum };

struct BuiltinParam {
  std::string_view name;
  bool tensor = true;  // false: an i64 scalar
  Dir dir = Dir::In;
};

struct Builtin {
  BuiltinKind kind;
  std::string_view name;
  std::span<const BuiltinParam> params;
  ShapeRule shape_rule;

  size_t arity() const { return params.size(); }
  // True when the builtin writes param i (Out or InOut).
  bool writes(size_t i) const { return i < params.size() && params[i].dir != Dir::In; }
};

// All builtins, in the order listed above.
std::span<const Builtin> builtins();

// The builtin called `name`, or nullptr.
const Builtin* find_builtin(std::string_view name);
const Builtin& builtin(BuiltinKind kind);

// Checks `b`'s shape rule on the dims of its tensor params, given in param order (scalars
// skipped; exactly as many entries as b has tensor params). nullopt when the rule holds,
// else a sentence saying why not (for a diagnostic).
std::optional<std::string> shape_rule_violation(const Builtin& b,
                                                std::span<const std::span<const int64_t>> tensor_dims);
std::optional<std::string> shape_rule_violation(const Builtin& b, std::span<const std::vector<int64_t>> tensor_dims);

// One way a kernel declaration does not fit its builtin or its return rule (WellFormed 10).
struct KernelMismatch {
  std::optional<size_t> param;  // the offending param's index; nullopt: the kernel as a whole
  std::string message;
};

// Kernel `k` against builtin `b` (COMPILER.md §1): its first b.arity() params bind by
// position (same kind; a tensor the same direction; together the shape rule); later params
// are extras, free. Scalar directions are left to the "scalar params are In" rule, and the
// shape rule is skipped while a bound tensor has no valid shape (rank 1..3, dims >= 1).
std::vector<KernelMismatch> kernel_binding_mismatches(const Function& k, const Builtin& b);

// Kernel `k`'s returns: each an Out/InOut tensor param of k (extras included), none twice.
std::vector<KernelMismatch> kernel_return_mismatches(const Function& k);

}  // namespace stackcheck::ir
