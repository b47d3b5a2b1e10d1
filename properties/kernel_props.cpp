// The device kernels on any TensorArg an image can carry, against the kernel model
// (oracles/kernel_model.h). The plan and program generators only build windows an orchestrator
// makes: row-major strides, an inner stride of 1, aligned offsets, valid ranks. An attached
// image may carry anything in those fields, and the device re-validates them (kernels.h). A
// case here reserves one to three buffers of random bytes (some a few bytes past a multiple
// of 4), draws a kernel id (now and then an unknown one), its tensor and scalar counts (now
// and then off by one; zero's 1..32 at its edges), and for each tensor a window:
// - a shape that fits the kernel (equal shapes, matmul's [M,K] x [K,N] -> [M,N], rowsum's
//   [M,N] -> [M,1]) or misses it by one dim or a few; a rank of 0 or 5, a dim of 0 or -1,
//   now and then;
// - strides row-major, row-major of a wider box, inner stride 0, 2 or -1, or any of -3..4
//   per dimension (broadcasts, reversed and overlapping windows);
// - an offset inside the span the window needs, at its edges, unaligned, or just past it;
//   a buffer_bytes a little short of the buffer now and then; garbage in the unused dims.
// A case makes one to 32 calls on the same buffers, each reading what the ones before it
// wrote. Buffers are shared between tensors, so inputs and outputs alias. The property checks the
// whole outcome (done, the KernelError's message, the DeviceFault's op, address, length and
// kind), every byte of every buffer after the call, and the device's read bits: a done kernel
// reads exactly the bytes of its input windows (acc's accumulator included), a refused one
// reads nothing. Controls (KernelControl): a model writing outputs row-major, and one
// placing a span fault at the window's start, must fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "properties/gen/arbitrary.h"
#include "properties/oracles/kernel_model.h"
#include "properties/property.h"
#include "stack/runtime/device/kernels.h"
#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/devmem/host_link.h"
#include "stack/support/splitmix.h"

using namespace stackcheck;
using oracles::KernelModelFlaw;
using oracles::KernelOutcome;
using runtime::TensorArg;

namespace {

// Tensors and scalars each kernel 0..6 takes.
constexpr int kTensors[] = {1, 2, 3, 2, 2, 3, 2};
constexpr int kScalars[] = {1, 0, 0, 0, 1, 0, 0};

struct Shape {
  uint32_t rank = 1;
  int32_t dims[4] = {1, 1, 1, 1};
};

// The shapes the kernel's rule accepts, one per tensor; `miss` changes one dim of one of them.
std::vector<Shape> fitting_shapes(gen::ChoiceSource& c, int32_t kernel, size_t n) {
  const auto dim = [&] { return static_cast<int32_t>(c.integer(1, 4)); };
  std::vector<Shape> s(n);
  if (kernel == runtime::kKernelMatmul && n == 3) {
    const int32_t m = dim(), k = dim(), cols = dim();
    s[0] = {2, {m, k}}, s[1] = {2, {k, cols}}, s[2] = {2, {m, cols}};
  } else if (kernel == runtime::kKernelRowsum && n == 2) {
    const int32_t m = dim(), cols = dim();
    s[0] = {2, {m, cols}}, s[1] = {2, {m, 1}};
  } else {
    Shape one;
    one.rank = static_cast<uint32_t>(c.integer(1, 4));
    for (uint32_t d = 0; d < one.rank; ++d) one.dims[d] = dim();
    // zero's tensors need not agree; the others' must.
    for (Shape& t : s) t = kernel == runtime::kKernelZero && c.chance(50) ? Shape{1, {dim()}} : one;
  }
  // Misses: one dim of one tensor, then as often again another (a rule with several clauses
  // must see them fail together too).
  for (int miss = 0; !s.empty() && miss < 3 && c.chance(miss == 0 ? 25 : 50); ++miss) {
    Shape& t = s[c.one_of(n)];
    int32_t& d = t.dims[c.one_of(t.rank)];
    d = d == 1 ? 2 : d - 1;
    gen::tag(miss == 0 ? "shape:miss" : "shape:misses");
  }
  return s;
}

struct Buffer {
  runtime::DevAddr base;
  uint64_t bytes = 0;
};

// The TensorArg of one tensor of shape `s` in buffer `b`.
TensorArg window(gen::ChoiceSource& c, Shape s, const Buffer& b) {
  TensorArg a{};
  a.base = b.base;
  a.buffer_bytes = c.chance(8) ? b.bytes - static_cast<uint64_t>(c.integer(1, std::min<int64_t>(8, b.bytes))) : b.bytes;
  a.tag = static_cast<uint32_t>(c.integer(0, 5));
  if (c.chance(3)) {
    s.rank = c.boolean() ? 5 : 0, gen::tag("window:bad-rank");
  } else if (c.chance(3)) {
    s.dims[c.one_of(s.rank)] = c.boolean() ? -1 : 0, gen::tag("window:bad-dim");
  }
  a.rank = s.rank;
  const uint32_t rank = std::min<uint32_t>(s.rank, 4);
  for (uint32_t d = 0; d < rank; ++d) a.shape[d] = s.dims[d];
  const size_t mode = c.one_of(4);
  static constexpr const char* kModes[] = {"row-major", "wider", "inner", "any"};
  gen::tag(fmt::format("strides:{}", kModes[mode]));
  int64_t step = 1;
  for (uint32_t d = rank; d-- > 0;) {
    a.stride[d] = static_cast<int32_t>(step);
    step *= std::max<int32_t>(a.shape[d], 1) + (mode == 1 ? c.integer(0, 2) : 0);
  }
  static constexpr int32_t kInner[] = {0, 2, -1};
  if (mode == 2 && rank > 0) a.stride[rank - 1] = kInner[c.one_of(3)];
  if (mode == 3)
    for (uint32_t d = 0; d < rank; ++d) a.stride[d] = static_cast<int32_t>(c.integer(-3, 4));
  if (c.chance(10))
    for (uint32_t d = rank; d < 4; ++d) a.shape[d] = static_cast<int32_t>(c.integer(-2, 9)), a.stride[d] = 7;
  // The byte range the window needs from its start: [low, high).
  int64_t low = 0, high = 4;
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t far = (static_cast<int64_t>(a.shape[d]) - 1) * a.stride[d] * 4;
    (far < 0 ? low : high) += far;
  }
  const int64_t first = -low, last = static_cast<int64_t>(a.buffer_bytes) - high;
  int64_t off = 0;
  if (first <= last) {
    off = c.near_edges(first / 4, last / 4) * 4;
    off = std::clamp(off, first, last);
    if (c.chance(8)) off = std::clamp(off + c.integer(1, 3), first, last), gen::tag("window:unaligned");
    if (c.chance(6)) off = c.boolean() ? first - 4 : last + c.integer(1, 4), gen::tag("window:past-span");
  } else {
    off = c.integer(0, static_cast<int64_t>(a.buffer_bytes)), gen::tag("window:larger-than-span");
  }
  a.offset_bytes = static_cast<uint64_t>(off);  // a negative start wraps, as an image's field may
  return a;
}

// The bytes of every element of `a` (for the read-bit check); none when the window is unusable.
void element_bytes(const TensorArg& a, std::set<uint64_t>& out) {
  int64_t idx[4] = {};
  for (;;) {
    int64_t off = static_cast<int64_t>(a.offset_bytes);
    for (uint32_t d = 0; d < a.rank; ++d) off += idx[d] * a.stride[d] * 4;
    for (uint64_t b = 0; b < 4; ++b) out.insert(a.base.raw() + static_cast<uint64_t>(off) + b);
    uint32_t d = a.rank;
    while (d > 0 && ++idx[d - 1] == a.shape[d - 1]) idx[--d] = 0;
    if (d == 0) return;
  }
}

// The tensors a done kernel reads.
bool read_by(int32_t kernel, size_t k) {
  switch (kernel) {
    case runtime::kKernelCopy:
    case runtime::kKernelScale:
    case runtime::kKernelRowsum: return k == 0;
    case runtime::kKernelAdd:
    case runtime::kKernelMatmul: return k < 2;
    case runtime::kKernelAcc: return true;
    default: return false;  // fill, zero
  }
}

// The call, for a failure's message: buffers by index, windows by their fields.
std::string describe_call(int32_t kernel, const std::vector<Buffer>& bufs, const std::vector<TensorArg>& t,
                          const std::vector<uint64_t>& s) {
  std::string out = fmt::format("run_kernel({} {}):", kernel, runtime::builtin_kernel_name(kernel));
  for (size_t i = 0; i < bufs.size(); ++i) out += fmt::format("\n  buffer {}: {} bytes", i, bufs[i].bytes);
  for (const TensorArg& a : t) {
    size_t b = 0;
    while (b + 1 < bufs.size() && bufs[b].base != a.base) ++b;
    out += fmt::format("\n  tensor: buffer {} buffer_bytes {} offset_bytes {} rank {} shape [{}] stride [{}]", b,
                       a.buffer_bytes, static_cast<int64_t>(a.offset_bytes), a.rank, fmt::join(a.shape, ", "),
                       fmt::join(a.stride, ", "));
  }
  for (uint64_t v : s) out += fmt::format("\n  scalar {:#x}", v);
  return out;
}

std::string check_call(runtime::DeviceMemory& mem, runtime::DeviceAccess& dev, runtime::HostLink& link,
                       const std::vector<Buffer>& bufs, oracles::KernelMemory& model, int32_t kernel,
                       const std::vector<TensorArg>& t, const std::vector<uint64_t>& s, KernelModelFlaw flaw);

std::string one_call(gen::ChoiceSource& c, runtime::DeviceMemory& mem, runtime::DeviceAccess& dev,
                     runtime::HostLink& link, const std::vector<Buffer>& bufs, oracles::KernelMemory& model,
                     KernelModelFlaw flaw);

// One case; the failure text, or empty.
std::string kernel_case(gen::ChoiceSource& c, KernelModelFlaw flaw) {
  runtime::DeviceMemory mem(runtime::DeviceMemoryConfig{0xAA, false});
  runtime::DeviceAccess dev(mem);
  runtime::HostLink link(mem);
  support::SplitMix64 fill(static_cast<uint64_t>(c.integer(0, 1 << 30)));
  std::vector<Buffer> bufs(static_cast<size_t>(c.integer(1, 3)));
  oracles::KernelMemory model;
  for (size_t i = 0; i < bufs.size(); ++i) {
    bufs[i].bytes = static_cast<uint64_t>(c.integer(1, 48) * 4 + (c.chance(10) ? c.integer(1, 3) : 0));
    bufs[i].base = link.reserve(bufs[i].bytes, 64, fmt::format("kernel-buffer-{}", i));
    std::vector<uint8_t> bytes(bufs[i].bytes);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(fill.next());
    link.copy_to_device(bufs[i].base, bytes.data(), bytes.size());
    model.regions.push_back({bufs[i].base.raw(), bytes});
  }
  // One to 32 calls on the same buffers: each reads what the ones before it wrote.
  const size_t calls = 1 + c.length(31);
  for (size_t call = 0; call < calls; ++call)
    if (std::string failure = one_call(c, mem, dev, link, bufs, model, flaw); !failure.empty())
      return fmt::format("call {} of {}: {}", call + 1, calls, failure);
  return "";
}

// One kernel call drawn and checked; the failure text, or empty.
std::string one_call(gen::ChoiceSource& c, runtime::DeviceMemory& mem, runtime::DeviceAccess& dev,
                     runtime::HostLink& link, const std::vector<Buffer>& bufs, oracles::KernelMemory& model,
                     KernelModelFlaw flaw) {
  int32_t kernel = static_cast<int32_t>(c.integer(0, 7));
  if (c.chance(3)) kernel = c.boolean() ? 8 : -1;
  const bool known = kernel >= 0 && kernel <= 7;
  size_t n_tensors = kernel == runtime::kKernelZero ? static_cast<size_t>(c.integer(1, 4))
                     : known                        ? static_cast<size_t>(kTensors[kernel])
                                                    : 2;
  size_t n_scalars = known && kernel != runtime::kKernelZero ? static_cast<size_t>(kScalars[kernel]) : 0;
  if (c.chance(4))
    n_tensors = kernel == runtime::kKernelZero ? (c.boolean() ? 33 : 0) : n_tensors + (c.boolean() ? 1 : -1);
  if (c.chance(4)) n_scalars += 1;
  gen::tag(fmt::format("kernel:{}", runtime::builtin_kernel_name(kernel)));
  std::vector<TensorArg> t;
  const std::vector<Shape> shapes = fitting_shapes(c, kernel, n_tensors);
  for (size_t k = 0; k < n_tensors; ++k) t.push_back(window(c, shapes[k], bufs[c.one_of(bufs.size())]));
  std::vector<uint64_t> s;
  for (size_t k = 0; k < n_scalars; ++k)
    s.push_back(static_cast<uint64_t>(c.integer(0, UINT32_MAX)) << (c.chance(30) ? 32 : 0) |
                static_cast<uint64_t>(c.integer(0, UINT32_MAX)));

  std::string failure = check_call(mem, dev, link, bufs, model, kernel, t, s, flaw);
  return failure.empty() ? failure : failure + "\n" + describe_call(kernel, bufs, t, s);
}

// Runs the call on the device and the model and compares everything they leave.
std::string check_call(runtime::DeviceMemory& mem, runtime::DeviceAccess& dev, runtime::HostLink& link,
                       const std::vector<Buffer>& bufs, oracles::KernelMemory& model, int32_t kernel,
                       const std::vector<TensorArg>& t, const std::vector<uint64_t>& s, KernelModelFlaw flaw) {
  const KernelOutcome want = oracles::predict_kernel(model, kernel, t, s, flaw);
  KernelOutcome got;
  for (const Buffer& b : bufs) mem.clear_read_bits(b.base, b.bytes);
  try {
    if (auto e = runtime::run_kernel(dev, kernel, t, s))
      got.kind = KernelOutcome::Kind::kError, got.message = e->message;
  } catch (const runtime::DeviceFault& f) {
    if (f.kind() != runtime::FaultKind::kSpan)
      return fmt::format("run_kernel: {}; the model: {}", f.describe(), want.describe());
    got.kind = KernelOutcome::Kind::kFault, got.op = f.op(), got.addr = f.addr().raw(), got.n = f.n();
  }
  static constexpr const char* kOutcomes[] = {"done", "error", "fault"};
  gen::tag(fmt::format("outcome:{}", kOutcomes[static_cast<int>(want.kind)]));
  if (got.describe() != want.describe())
    return fmt::format("run_kernel: {}; the model: {}", got.describe(), want.describe());
  std::set<uint64_t> reads;
  if (want.kind == KernelOutcome::Kind::kDone)
    for (size_t k = 0; k < t.size(); ++k)
      if (read_by(kernel, k)) element_bytes(t[k], reads);
  for (size_t i = 0; i < bufs.size(); ++i) {
    std::vector<uint8_t> bytes(bufs[i].bytes);
    link.copy_to_host(bytes.data(), bufs[i].base, bytes.size());
    for (size_t at = 0; at < bytes.size(); ++at)
      if (bytes[at] != model.regions[i].bytes[at])
        return fmt::format("buffer {} byte {} is {:#04x} after the kernel, the model: {:#04x} ({})", i, at, bytes[at],
                           model.regions[i].bytes[at], want.describe());
    uint64_t want_read = 0;
    for (uint64_t a : reads) want_read += a >= bufs[i].base.raw() && a - bufs[i].base.raw() < bufs[i].bytes;
    if (const uint64_t read = mem.bytes_read(bufs[i].base, bufs[i].bytes); read != want_read)
      return fmt::format("the kernel read {} bytes of buffer {}, its input windows hold {} ({})", read, i, want_read,
                         want.describe());
  }
  return "";
}

void run(KernelModelFlaw flaw) {
  gen::feature_tally().begin_case();
  if (const std::string failure = kernel_case(gen::choices(), flaw); !failure.empty())
    props::report(oracles::Verdict::fail("kernel-model", failure));
}

}  // namespace

STACKCHECK_PROP(DeviceKernels, any_window_as_the_kernel_model_predicts, 0.0) { run(KernelModelFlaw::kNone); }

STACKCHECK_CONTROL(KernelControl, a_model_writing_outputs_row_major_fails, "after the kernel") {
  run(KernelModelFlaw::kRowMajorWrites);
}
STACKCHECK_CONTROL(KernelControl, a_model_faulting_at_the_window_start_fails, "DeviceFault") {
  run(KernelModelFlaw::kFaultAtWindowStart);
}
