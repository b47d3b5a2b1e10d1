#include "stack/ir/builtins.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <boost/container/small_vector.hpp>

namespace stackcheck::ir {
namespace {


constexpr BuiltinParam kFill[] = {{"out", true, Dir::Out}, {"s", false, Dir::In}};
constexpr BuiltinParam kCopy[] = {{"src", true, Dir::In}, {"dst", true, Dir::Out}};
constexpr BuiltinParam kAdd[] = {{"a", true, Dir::In}, {"b", true, Dir::In}, {"out", true, Dir::Out}};
constexpr BuiltinParam kAcc[] = {{"x", true, Dir::In}, {"acc", true, Dir::InOut}};
constexpr BuiltinParam kScale[] = {{"x", true, Dir::In}, {"out", true, Dir::Out}, {"s", false, Dir::In}};
constexpr BuiltinParam kMatmul[] = {{"a", true, Dir::In}, {"b", true, Dir::In}, {"out", true, Dir::Out}};
constexpr BuiltinParam kRowsum[] = {{"x", true, Dir::In}, {"out", true, Dir::Out}};

constexpr std::array<Builtin, 7> kBuiltins = {{
    {BuiltinKind::Fill, "fill", kFill, ShapeRule::Equal},
    {BuiltinKind::Copy, "copy", kCopy, ShapeRule::Equal},
    {BuiltinKind::Add, "add", kAdd, ShapeRule::Equal},
    {BuiltinKind::Acc, "acc", kAcc, ShapeRule::Equal},
    {BuiltinKind::Scale, "scale", kScale, ShapeRule::Equal},
    {BuiltinKind::Matmul, "matmul", kMatmul, ShapeRule::Matmul},
    {BuiltinKind::Rowsum, "rowsum", kRowsum, ShapeRule::Rowsum},
}};

std::string dims_text(std::span<const int64_t> d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

bool shape_like(const Type& t) {
  if (t.dims.empty() || t.dims.size() > 3) return false;
  for (int64_t d : t.dims) {
    if (d < 1) return false;
  }
  return true;
}

}  // namespace

std::span<const Builtin> builtins() { return kBuiltins; }

const Builtin* find_builtin(std::string_view name) {
  for (const Builtin& b : kBuiltins) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

const Builtin& builtin(BuiltinKind kind) { return kBuiltins[static_cast<size_t>(kind)]; }

std::optional<std::string> shape_rule_violation(const Builtin& b, std::span<const std::vector<int64_t>> dims) {
  const std::vector<std::span<const int64_t>> views(dims.begin(), dims.end());
  return shape_rule_violation(b, std::span<const std::span<const int64_t>>(views));
}

std::optional<std::string> shape_rule_violation(const Builtin& b, std::span<const std::span<const int64_t>> dims) {
  size_t tensors = 0;
  for (const BuiltinParam& p : b.params) tensors += p.tensor ? 1 : 0;
  if (dims.size() != tensors) {
    return fmt::format("builtin '{}' has {} tensor params, {} shapes given", b.name, tensors, dims.size());
  }
  switch (b.shape_rule) {
    case ShapeRule::Equal:
      for (size_t i = 1; i < dims.size(); ++i) {
        if (!std::ranges::equal(dims[i], dims[0])) {
          return fmt::format("builtin '{}' needs equal shapes, found {} and {}", b.name, dims_text(dims[0]),
                             dims_text(dims[i]));
        }
      }
      return std::nullopt;
    case ShapeRule::Matmul: {
      for (const auto& d : dims) {
        if (d.size() != 2) {
          return fmt::format("builtin 'matmul' needs rank-2 tensors, found {}", dims_text(d));
        }
      }
      const auto &a = dims[0], &bb = dims[1], &out = dims[2];
      if (a[1] != bb[0] || out[0] != a[0] || out[1] != bb[1]) {
        return fmt::format("builtin 'matmul' needs [m, k], [k, n] -> [m, n], found {}, {} -> {}", dims_text(a),
                           dims_text(bb), dims_text(out));
      }
      return std::nullopt;
    }
    case ShapeRule::Rowsum: {
      const auto &x = dims[0], &out = dims[1];
      if (x.size() != 2 || out.size() != 2 || out[0] != x[0] || out[1] != 1) {
        return fmt::format("builtin 'rowsum' needs [m, n] -> [m, 1], found {} -> {}", dims_text(x), dims_text(out));
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::vector<KernelMismatch> kernel_binding_mismatches(const Function& k, const Builtin& b) {
  std::vector<KernelMismatch> out;
  if (k.params.size() < b.arity()) {
    out.push_back({std::nullopt, fmt::format("kernel '{}' has {} params; builtin '{}' needs at least {}", k.name,
                                             k.params.size(), b.name, b.arity())});
  }
  bool shapes_known = k.params.size() >= b.arity();
  boost::container::small_vector<std::span<const int64_t>, 3> dims;
  for (size_t i = 0; i < b.arity() && i < k.params.size(); ++i) {
    const BuiltinParam& bp = b.params[i];
    const Param& p = k.params[i];
    if (p.type.is_tensor() != bp.tensor) {
      out.push_back({i, fmt::format("param '{}' of kernel '{}' must be {} to bind param '{}' of builtin '{}'", p.name,
                                    k.name, bp.tensor ? "a tensor" : "an i64 scalar", bp.name, b.name)});
      shapes_known = false;
      continue;
    }
    if (!bp.tensor) continue;
    if (p.dir != bp.dir) {
      out.push_back({i, fmt::format("param '{}' of kernel '{}' is {}; param '{}' of builtin '{}' is {}", p.name, k.name,
                                    dir_name(p.dir), bp.name, b.name, dir_name(bp.dir))});
    }
    shapes_known = shapes_known && shape_like(p.type);
    dims.push_back(dims_span(p.type.dims));
  }
  if (shapes_known) {
    if (auto why = shape_rule_violation(b, std::span<const std::span<const int64_t>>(dims.data(), dims.size()))) {
      out.push_back({std::nullopt, fmt::format("kernel '{}': {}", k.name, *why)});
    }
  }
  return out;
}

std::vector<KernelMismatch> kernel_return_mismatches(const Function& k) {
  std::vector<KernelMismatch> out;
  boost::container::small_vector<std::string_view, 8> returned;  // a kernel returns a few names
  for (const std::string& r : k.kernel_returns) {
    const Param* p = nullptr;
    for (const Param& q : k.params) {
      if (q.name == r) {
        p = &q;
        break;
      }
    }
    if (p == nullptr) {
      out.push_back({std::nullopt, fmt::format("kernel '{}' returns '{}', which is not one of its params", k.name, r)});
    } else if (!p->type.is_tensor() || p->dir == Dir::In) {
      out.push_back({std::nullopt, fmt::format("kernel '{}' returns '{}', which is not an Out or InOut tensor "
                                               "param",
                                               k.name, r)});
    } else if (std::find(returned.begin(), returned.end(), r) != returned.end()) {
      out.push_back({std::nullopt, fmt::format("kernel '{}' returns '{}' twice", k.name, r)});
    } else {
      returned.push_back(r);
    }
  }
  return out;
}

}  // namespace stackcheck::ir
