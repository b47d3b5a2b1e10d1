#include "stack/interp/kernels.h"

#include <fmt/format.h>

#include <vector>

#include <boost/container/small_vector.hpp>

#include "stack/support/check.h"

namespace stackcheck::interp {
namespace {

using ir::BuiltinKind;

uint32_t i32(int64_t s) { return static_cast<uint32_t>(static_cast<uint64_t>(s)); }

}  // namespace

std::optional<std::string> check_operands(const ir::Builtin& b, std::span<const Operand> ops) {
  if (ops.size() != b.arity()) {
    return fmt::format("builtin {} takes {} operands, got {}", b.name, b.arity(), ops.size());
  }
  boost::container::small_vector<std::span<const int64_t>, 3> dims;
  for (size_t i = 0; i < ops.size(); ++i) {
    const bool tensor = ops[i].tensor != nullptr;
    if (tensor != b.params[i].tensor) {
      return fmt::format("builtin {} operand {} ('{}') must be a {}", b.name, i, b.params[i].name,
                         b.params[i].tensor ? "tensor" : "scalar");
    }
    if (tensor) dims.push_back(view(ops[i].tensor->shape));
  }
  return ir::shape_rule_violation(b, std::span<const std::span<const int64_t>>(dims.data(), dims.size()));
}

uint64_t builtin_cost(const ir::Builtin& b, std::span<const Operand> ops) {
  switch (b.kind) {
    case BuiltinKind::Fill: return ops[0].tensor->element_count();
    case BuiltinKind::Copy:
    case BuiltinKind::Acc: return ops[1].tensor->element_count();
    case BuiltinKind::Add: return ops[2].tensor->element_count();
    case BuiltinKind::Scale: return ops[1].tensor->element_count();
    case BuiltinKind::Matmul:
      return static_cast<uint64_t>(ops[2].tensor->element_count()) * static_cast<uint64_t>(ops[0].tensor->shape[1]);
    case BuiltinKind::Rowsum: return ops[0].tensor->element_count();
  }
  return 0;
}

void run_builtin(const ir::Builtin& b, std::span<const Operand> ops) {
  // Every case reads all inputs into vectors before writing: aliasing operands are safe.
  switch (b.kind) {
    case BuiltinKind::Fill: {
      const Window& out = *ops[0].tensor;
      out.write_all(std::vector<uint32_t>(out.element_count(), i32(ops[1].scalar)));
      return;
    }
    case BuiltinKind::Copy: ops[1].tensor->write_all(ops[0].tensor->read_all()); return;
    case BuiltinKind::Add: {
      std::vector<uint32_t> a = ops[0].tensor->read_all();
      const std::vector<uint32_t> c = ops[1].tensor->read_all();
      for (size_t i = 0; i < a.size(); ++i) a[i] += c[i];
      ops[2].tensor->write_all(a);
      return;
    }
    case BuiltinKind::Acc: {
      const std::vector<uint32_t> x = ops[0].tensor->read_all();
      std::vector<uint32_t> acc = ops[1].tensor->read_all();
      for (size_t i = 0; i < acc.size(); ++i) acc[i] += x[i];
      ops[1].tensor->write_all(acc);
      return;
    }
    case BuiltinKind::Scale: {
      std::vector<uint32_t> x = ops[0].tensor->read_all();
      const uint32_t s = i32(ops[2].scalar);
      for (uint32_t& v : x) v *= s;
      ops[1].tensor->write_all(x);
      return;
    }
    case BuiltinKind::Matmul: {
      const std::vector<uint32_t> a = ops[0].tensor->read_all();
      const std::vector<uint32_t> m = ops[1].tensor->read_all();
      const size_t rows = static_cast<size_t>(ops[0].tensor->shape[0]);
      const size_t inner = static_cast<size_t>(ops[0].tensor->shape[1]);
      const size_t cols = static_cast<size_t>(ops[1].tensor->shape[1]);
      std::vector<uint32_t> out(rows * cols, 0);
      for (size_t i = 0; i < rows; ++i) {
        for (size_t j = 0; j < cols; ++j) {
          uint32_t sum = 0;
          for (size_t l = 0; l < inner; ++l) sum += a[i * inner + l] * m[l * cols + j];
          out[i * cols + j] = sum;
        }
      }
      ops[2].tensor->write_all(out);
      return;
    }
    case BuiltinKind::Rowsum: {
      const std::vector<uint32_t> x = ops[0].tensor->read_all();
      const size_t rows = static_cast<size_t>(ops[0].tensor->shape[0]);
      const size_t cols = static_cast<size_t>(ops[0].tensor->shape[1]);
      std::vector<uint32_t> out(rows, 0);
      for (size_t i = 0; i < rows; ++i) {
        for (size_t j = 0; j < cols; ++j) out[i] += x[i * cols + j];
      }
      ops[1].tensor->write_all(out);
      return;
    }
  }
  STACK_CHECK(false, "unknown builtin kind");
}

}  // namespace stackcheck::interp
