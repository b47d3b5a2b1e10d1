// The plan model's windows and builtins (plan_model_memory.h).
#include "properties/oracles/plan_model_memory.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace stackcheck::oracles::plan_model_detail {

[[noreturn]] void fail(std::string message) { throw ModelError{std::move(message)}; }

Window sub_window(const Window& w, const Dims& offsets, const Dims& sizes) {
  if (offsets.size() != w.shape.size()) fail("window rank differs from its tensor's");
  Window out = w;
  for (size_t d = 0; d < offsets.size(); ++d) {
    if (offsets[d] < 0 || sizes[d] < 1 || sizes[d] > w.shape[d] || offsets[d] > w.shape[d] - sizes[d])
      fail(fmt::format("window [{}:{}] outside dimension {} of size {}", offsets[d], sizes[d], d, w.shape[d]));
    out.offsets[d] += offsets[d];
    out.shape[d] = sizes[d];
  }
  return out;
}

// ---- the builtins (COMPILER.md §2): i32 wrap-around, inputs read before outputs written ----

namespace {
uint32_t low32(int64_t s) { return static_cast<uint32_t>(static_cast<uint64_t>(s)); }
}  // namespace

uint64_t builtin_ops(runtime::Builtin b, const std::vector<Window>& t) {
  uint64_t out = 1;
  for (int64_t s : t.back().shape) out *= static_cast<uint64_t>(s);
  if (b == runtime::Builtin::Matmul) return out * static_cast<uint64_t>(t[0].shape[1]);
  if (b == runtime::Builtin::Rowsum) return out * static_cast<uint64_t>(t[0].shape[1]);
  return out;
}

void run_builtin(runtime::Builtin b, const std::vector<Window>& t, const std::vector<int64_t>& s) {
  using B = runtime::Builtin;
  static constexpr struct {
    size_t tensors, scalars;
  } kArity[] = {{1, 1}, {2, 0}, {3, 0}, {2, 0}, {2, 1}, {3, 0}, {2, 0}};
  const auto arity = kArity[static_cast<size_t>(b)];
  if (t.size() != arity.tensors || s.size() != arity.scalars)
    fail(fmt::format("{} takes {} tensors and {} scalars, got {} and {}", runtime::builtin_name(b), arity.tensors,
                     arity.scalars, t.size(), s.size()));
  const auto same_shape = [&](size_t i, size_t j) {
    if (t[i].shape != t[j].shape) fail(fmt::format("{}: arguments {} and {} differ in shape", builtin_name(b), i, j));
  };
  const auto rank2 = [&](size_t i) {
    if (t[i].shape.size() != 2) fail(fmt::format("{}: argument {} is not rank 2", builtin_name(b), i));
  };
  switch (b) {
    case B::Fill: {
      const std::vector<uint32_t> v(t[0].elements(), low32(s[0]));
      t[0].write(v);
      return;
    }
    case B::Copy: same_shape(0, 1), t[1].write(t[0].read()); return;
    case B::Add: {
      same_shape(0, 1), same_shape(0, 2);
      std::vector<uint32_t> a = t[0].read();
      const std::vector<uint32_t> c = t[1].read();
      for (size_t i = 0; i < a.size(); ++i) a[i] += c[i];
      t[2].write(a);
      return;
    }
    case B::Acc: {
      same_shape(0, 1);
      const std::vector<uint32_t> x = t[0].read();
      std::vector<uint32_t> acc = t[1].read();
      for (size_t i = 0; i < acc.size(); ++i) acc[i] += x[i];
      t[1].write(acc);
      return;
    }
    case B::Scale: {
      same_shape(0, 1);
      std::vector<uint32_t> x = t[0].read();
      for (uint32_t& v : x) v *= low32(s[0]);
      t[1].write(x);
      return;
    }
    case B::Matmul: {
      rank2(0), rank2(1), rank2(2);
      const int64_t m = t[0].shape[0], k = t[0].shape[1], n = t[1].shape[1];
      if (t[1].shape[0] != k || t[2].shape != Dims{m, n})
        fail(fmt::format("matmul: shapes [{},{}] x [{},{}] -> [{},{}]", m, k, t[1].shape[0], n, t[2].shape[0],
                         t[2].shape[1]));
      const std::vector<uint32_t> a = t[0].read(), c = t[1].read();
      std::vector<uint32_t> out(static_cast<size_t>(m * n), 0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t l = 0; l < k; ++l) out[i * n + j] += a[i * k + l] * c[l * n + j];
      t[2].write(out);
      return;
    }
    case B::Rowsum: {
      rank2(0), rank2(1);
      const int64_t m = t[0].shape[0], n = t[0].shape[1];
      if (t[1].shape != Dims{m, 1}) fail(fmt::format("rowsum: [{},{}] -> [{},{}]", m, n, t[1].shape[0], t[1].shape[1]));
      const std::vector<uint32_t> x = t[0].read();
      std::vector<uint32_t> out(static_cast<size_t>(m), 0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) out[i] += x[i * n + j];
      t[1].write(out);
      return;
    }
  }
  fail("unknown builtin");
}

}  // namespace stackcheck::oracles::plan_model_detail
