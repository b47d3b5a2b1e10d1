// The device kernels (RUNTIME.md §12, §16 Kernels cases) against the reference
// interpreter's builtins (interp/kernels.h, an independent implementation): random shapes,
// windows inside larger buffers, aliasing operands, scalars beyond 32 bits. Device memory
// is poisoned 0xAA.
#include "stack/runtime/device/kernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "stack/interp/kernels.h"
#include "stack/interp/memory.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/ir/builtins.h"

namespace stackcheck::runtime {
namespace {

// One buffer, present both in device memory and as an interpreter buffer.
struct Buf {
  DevAddr base;
  std::vector<int64_t> dims;
  std::shared_ptr<interp::Buffer> ref;
  uint64_t bytes() const { return ref->data.size() * 4; }
};

// A window of a Buf: per-dim offsets and sizes (row-major strides of the buffer).
struct Win {
  const Buf* buf;
  std::vector<int64_t> off, size;

  TensorArg arg(uint32_t tag = kTagInput) const {
    TensorArg a{};
    a.base = buf->base;
    a.buffer_bytes = buf->bytes();
    a.tag = tag;
    a.rank = static_cast<uint32_t>(size.size());
    int64_t stride = 1, offset = 0;
    for (int d = static_cast<int>(size.size()) - 1; d >= 0; --d) {
      a.shape[d] = static_cast<int32_t>(size[d]);
      a.stride[d] = static_cast<int32_t>(stride);
      offset += off[d] * stride;
      stride *= buf->dims[d];
    }
    a.offset_bytes = static_cast<uint64_t>(offset) * 4;
    return a;
  }
  interp::Window ref() const {
    interp::Window whole{buf->ref, interp::Extent(buf->dims.size(), 0), interp::Extent(buf->dims.begin(), buf->dims.end())};
    auto w = interp::sub_window(whole, off, size);
    EXPECT_TRUE(w.has_value());
    return *w;
  }
};

class KernelBench {
 public:
  KernelBench() : mem_(DeviceMemoryConfig{0xAA, false}), dev_(mem_), link_(mem_) {}

  Buf& buffer(std::vector<int64_t> dims, std::mt19937_64& rng) {
    auto b = std::make_unique<Buf>();
    b->dims = std::move(dims);
    b->ref = std::make_shared<interp::Buffer>();
    b->ref->dims.assign(b->dims.begin(), b->dims.end());
    size_t n = 1;
    for (int64_t d : b->dims) n *= static_cast<size_t>(d);
    b->ref->data.resize(n);
    for (uint32_t& v : b->ref->data) v = static_cast<uint32_t>(rng());
    b->base = link_.reserve(b->bytes(), 1024, "buf");
    link_.copy_to_device(b->base, b->ref->data.data(), b->bytes());
    bufs_.push_back(std::move(b));
    return *bufs_.back();
  }
  std::vector<uint32_t> device_bytes(const Buf& b) {
    std::vector<uint32_t> v(b.ref->data.size());
    link_.copy_to_host(v.data(), b.base, b.bytes());
    return v;
  }
  DeviceAccess& dev() { return dev_; }
  DeviceMemory& mem() { return mem_; }
  const std::vector<std::unique_ptr<Buf>>& bufs() const { return bufs_; }

 private:
  DeviceMemory mem_;
  DeviceAccess dev_;
  HostLink link_;
  std::vector<std::unique_ptr<Buf>> bufs_;
};

// A window of `size` placed at a random offset inside a fresh, somewhat larger buffer.
Win random_window(KernelBench& b, std::vector<int64_t> size, std::mt19937_64& rng) {
  std::vector<int64_t> dims(size.size()), off(size.size());
  for (size_t d = 0; d < size.size(); ++d) {
    dims[d] = size[d] + static_cast<int64_t>(rng() % 3);
    off[d] = static_cast<int64_t>(rng() % static_cast<uint64_t>(dims[d] - size[d] + 1));
  }
  return Win{&b.buffer(dims, rng), off, size};
}

std::vector<int64_t> random_shape(std::mt19937_64& rng) {
  std::vector<int64_t> s(1 + rng() % 4);
  for (int64_t& d : s) d = 1 + static_cast<int64_t>(rng() % 4);
  return s;
}

// Runs kernel `id` on the device and the reference on the same windows; every buffer must
// end byte-identical.
void check_case(KernelBench& b, int32_t id, const std::vector<Win>& wins, std::vector<uint64_t> scalars) {
  const ir::Builtin& bi = ir::builtins()[static_cast<size_t>(id)];
  std::vector<TensorArg> args;
  std::vector<interp::Window> refs;
  for (size_t k = 0; k < wins.size(); ++k) {
    args.push_back(wins[k].arg(bi.writes(k) ? kTagOutputExisting : kTagInput));
    refs.push_back(wins[k].ref());
  }
  std::vector<interp::Operand> ops;
  size_t t = 0, s = 0;
  for (const ir::BuiltinParam& p : bi.params)
    ops.push_back(p.tensor ? interp::Operand{&refs[t++], 0}
                           : interp::Operand{nullptr, static_cast<int64_t>(scalars[s++])});
  ASSERT_FALSE(interp::check_operands(bi, ops).has_value());
  interp::run_builtin(bi, ops);
  const std::optional<KernelError> e = run_kernel(b.dev(), id, args, scalars);
  ASSERT_FALSE(e.has_value()) << e->message;
  for (const auto& buf : b.bufs()) EXPECT_EQ(b.device_bytes(*buf), buf->ref->data) << builtin_kernel_name(id);
}

TEST(Kernels, kernel_vs_reference) {
  std::mt19937_64 rng(7);
  int cases = 0;
  for (int32_t id = kKernelFill; id <= kKernelRowsum; ++id) {
    for (int trial = 0; trial < 24; ++trial) {
      SCOPED_TRACE(::testing::Message() << builtin_kernel_name(id) << " trial " << trial);
      KernelBench b;
      std::vector<Win> w;
      const uint64_t scalar = rng();  // beyond 32 bits: only the low half counts
      switch (id) {
        case kKernelMatmul: {
          const int64_t M = 1 + rng() % 5, K = 1 + rng() % 5, N = 1 + rng() % 5;
          w = {random_window(b, {M, K}, rng), random_window(b, {K, N}, rng), random_window(b, {M, N}, rng)};
          break;
        }
        case kKernelRowsum: {
          const int64_t M = 1 + rng() % 5, N = 1 + rng() % 5;
          w = {random_window(b, {M, N}, rng), random_window(b, {M, 1}, rng)};
          break;
        }
        default: {
          const std::vector<int64_t> shape = random_shape(rng);
          const size_t n = id == kKernelFill ? 1 : id == kKernelAdd ? 3 : 2;
          for (size_t k = 0; k < n; ++k) w.push_back(random_window(b, shape, rng));
          // Every third trial aliases the written operand with an input window.
          if (n > 1 && trial % 3 == 0) w.back() = w.front();
          break;
        }
      }
      std::vector<uint64_t> scalars;
      if (id == kKernelFill || id == kKernelScale) scalars.push_back(scalar);
      check_case(b, id, w, scalars);
      ++cases;
    }
  }
  EXPECT_EQ(cases, 7 * 24);
}

TEST(Kernels, kernel_zero_fills_each_buffer_window) {
  std::mt19937_64 rng(3);
  KernelBench b;
  const Win a = random_window(b, {3, 4}, rng), c = random_window(b, {5}, rng);
  const std::vector<uint32_t> before = b.device_bytes(*a.buf);
  ASSERT_FALSE(run_kernel(b.dev(), kKernelZero, {{a.arg(kTagOutput), c.arg(kTagOutput)}}, {}).has_value());
  // Reference: the windows zeroed, the rest of each buffer untouched.
  for (const Win* w : {&a, &c}) {
    const interp::Window r = w->ref();
    r.write_all(std::vector<uint32_t>(r.element_count(), 0));
    EXPECT_EQ(b.device_bytes(*w->buf), w->buf->ref->data);
  }
  EXPECT_NE(b.device_bytes(*a.buf), before);
}

TEST(Kernels, kernel_i32_wrap) {
  std::mt19937_64 rng(1);
  KernelBench b;
  auto put = [&](const Win& w, std::vector<uint32_t> v) {
    ASSERT_EQ(v.size(), w.buf->ref->data.size());
    w.buf->ref->data = v;
    DeviceMemory& m = b.mem();
    m.copy_to_device(w.buf->base, v.data(), v.size() * 4);
  };
  auto get = [&](const Win& w) { return b.device_bytes(*w.buf); };
  const Win x{&b.buffer({2}, rng), {0}, {2}}, y{&b.buffer({2}, rng), {0}, {2}}, o{&b.buffer({2}, rng), {0}, {2}};
  put(x, {0x7FFFFFFFu, 0xFFFFFFFFu});
  put(y, {1u, 1u});
  ASSERT_FALSE(run_kernel(b.dev(), kKernelAdd, {{x.arg(), y.arg(), o.arg(kTagOutput)}}, {}).has_value());
  EXPECT_EQ(get(o), (std::vector<uint32_t>{0x80000000u, 0u}));  // INT32_MAX + 1 = INT32_MIN; -1 + 1 = 0
  // scale: i32(s) is the low 32 bits of s; the product wraps.
  ASSERT_FALSE(
      run_kernel(b.dev(), kKernelScale, {{x.arg(), o.arg(kTagOutput)}}, {{(uint64_t{5} << 32) | 3u}}).has_value());
  EXPECT_EQ(get(o), (std::vector<uint32_t>{0x7FFFFFFDu, 0xFFFFFFFDu}));  // 3 * INT32_MAX, 3 * -1
  ASSERT_FALSE(run_kernel(b.dev(), kKernelFill, {{o.arg(kTagOutput)}}, {{0xFFFFFFFF80000000ull}}).has_value());
  EXPECT_EQ(get(o), (std::vector<uint32_t>{0x80000000u, 0x80000000u}));
  // acc: acc += x, aliasing x and acc doubles.
  put(o, {0x40000000u, 0xC0000000u});
  ASSERT_FALSE(run_kernel(b.dev(), kKernelAcc, {{o.arg(), o.arg(kTagInout)}}, {}).has_value());
  EXPECT_EQ(get(o), (std::vector<uint32_t>{0x80000000u, 0x80000000u}));
  // rowsum and matmul wrap in their sums.
  const Win m{&b.buffer({2, 2}, rng), {0, 0}, {2, 2}}, r{&b.buffer({2, 1}, rng), {0, 0}, {2, 1}};
  put(m, {0x7FFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x80000000u});
  ASSERT_FALSE(run_kernel(b.dev(), kKernelRowsum, {{m.arg(), r.arg(kTagOutput)}}, {}).has_value());
  EXPECT_EQ(get(r), (std::vector<uint32_t>{0xFFFFFFFEu, 0u}));
  const Win p{&b.buffer({2, 2}, rng), {0, 0}, {2, 2}};
  ASSERT_FALSE(run_kernel(b.dev(), kKernelMatmul, {{m.arg(), m.arg(), p.arg(kTagOutput)}}, {}).has_value());
  // [[a, a], [c, c]]^2 with a = INT32_MAX, c = INT32_MIN: every entry a*a + a*c or c*a + c*c.
  const uint32_t a = 0x7FFFFFFFu, c = 0x80000000u;
  EXPECT_EQ(get(p), (std::vector<uint32_t>{a * a + a * c, a * a + a * c, c * a + c * c, c * a + c * c}));
}

TEST(Kernels, kernel_view_past_buffer_faults) {
  std::mt19937_64 rng(5);
  KernelBench b;
  Buf& src = b.buffer({8}, rng);
  Buf& dst = b.buffer({8}, rng);
  const std::vector<uint32_t> dst_before = b.device_bytes(dst);
  // Control: the last four elements, ending exactly at the buffer end.
  Win s{&src, {4}, {4}}, d{&dst, {4}, {4}};
  ASSERT_FALSE(run_kernel(b.dev(), kKernelCopy, {{s.arg(), d.arg(kTagOutput)}}, {}).has_value());
  EXPECT_NE(b.device_bytes(dst), dst_before);
  // One element past the buffer: the source window starts at element 5.
  TensorArg past = s.arg();
  past.offset_bytes = 5 * 4;
  const std::vector<uint32_t> dst_mid = b.device_bytes(dst);
  try {
    (void)run_kernel(b.dev(), kKernelCopy, {{past, d.arg(kTagOutput)}}, {});
    ADD_FAILURE() << "a window past its buffer must fault";
  } catch (const DeviceFault& f) {
    EXPECT_EQ(f.kind(), FaultKind::kSpan);
    EXPECT_EQ(f.op(), DeviceOp::kRead);
    EXPECT_EQ(f.addr(), src.base + 20);
  }
  EXPECT_EQ(b.device_bytes(dst), dst_mid);  // faulted before writing anything
  // The kernel's span is buffer_bytes, not the reservation: a shortened buffer faults even
  // though the bytes behind it are mapped (the reservation is 1024-aligned and 32 B long,
  // so shrink instead). Output side: op is a write.
  TensorArg short_dst = d.arg(kTagOutput);
  short_dst.buffer_bytes = 28;
  EXPECT_TRUE(b.dev().mapped(dst.base + 28, 4));
  try {
    (void)run_kernel(b.dev(), kKernelCopy, {{s.arg(), short_dst}}, {});
    ADD_FAILURE() << "a window past buffer_bytes must fault";
  } catch (const DeviceFault& f) {
    EXPECT_EQ(f.kind(), FaultKind::kSpan);
    EXPECT_EQ(f.op(), DeviceOp::kWrite);
  }
  // A strided column window reaching past the end (rows of 4, column 3, 3 rows of a 2x4).
  Buf& m = b.buffer({2, 4}, rng);
  TensorArg col{};
  col.base = m.base;
  col.buffer_bytes = m.bytes();
  col.offset_bytes = 3 * 4;
  col.rank = 2;
  col.shape[0] = 3;
  col.shape[1] = 1;
  col.stride[0] = 4;
  col.stride[1] = 1;
  EXPECT_THROW((void)run_kernel(b.dev(), kKernelFill, {{col}}, {{1}}), DeviceFault);
  col.shape[0] = 2;  // control: two rows fit
  EXPECT_FALSE(run_kernel(b.dev(), kKernelFill, {{col}}, {{1}}).has_value());
}

TEST(Kernels, kernel_bad_arguments_are_errors) {
  std::mt19937_64 rng(9);
  KernelBench b;
  const Win a{&b.buffer({4}, rng), {0}, {4}}, c{&b.buffer({3}, rng), {0}, {3}};
  EXPECT_TRUE(run_kernel(b.dev(), kKernelCopy, {{a.arg()}}, {}).has_value());                      // arity
  EXPECT_TRUE(run_kernel(b.dev(), kKernelCopy, {{a.arg(), c.arg()}}, {}).has_value());             // shapes
  EXPECT_TRUE(run_kernel(b.dev(), kKernelMatmul, {{a.arg(), a.arg(), a.arg()}}, {}).has_value());  // ranks
  EXPECT_TRUE(run_kernel(b.dev(), 8, {{a.arg()}}, {}).has_value());
  EXPECT_TRUE(run_kernel(b.dev(), kKernelZero, {}, {}).has_value());
  TensorArg bad = a.arg();
  bad.rank = 5;
  EXPECT_TRUE(run_kernel(b.dev(), kKernelFill, {{bad}}, {{1}}).has_value());
  bad = a.arg();
  bad.stride[0] = 0;  // stride 0 repeats one element: 5 of them cannot fit 4 elements
  bad.shape[0] = 5;
  EXPECT_TRUE(run_kernel(b.dev(), kKernelFill, {{bad}}, {{1}}).has_value());
  EXPECT_FALSE(run_kernel(b.dev(), kKernelCopy, {{a.arg(), a.arg(kTagOutput)}}, {}).has_value());  // control
}

}  // namespace
}  // namespace stackcheck::runtime
