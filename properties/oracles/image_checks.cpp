#include "properties/oracles/image_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "properties/oracles/spare_mirrors.h"
#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/image/self_relative.h"

namespace stackcheck::oracles {

using namespace runtime;

namespace {

// The Runtime and DeviceMemory configs of a bench for `p`; the config's message when rejected.
std::optional<std::string> bench_configs(const OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit,
                                         RuntimeConfig& cfg, DeviceMemoryConfig& mc) {
  if (auto why = apply_config(p.config, cfg)) return why;
  if (fill_byte) cfg.fill_byte = *fill_byte;
  mc.fill_byte = static_cast<uint8_t>(cfg.fill_byte);
  mc.strict_uninit = strict_uninit;
  return std::nullopt;
}

thread_local std::unique_ptr<Bench> spare_bench;
}  // namespace

std::unique_ptr<Bench> Bench::create(const OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit,
                                     std::string* error) {
  RuntimeConfig cfg;
  DeviceMemoryConfig mc;
  if (auto why = bench_configs(p, fill_byte, strict_uninit, cfg, mc)) {
    if (error) *error = *why;
    return nullptr;
  }
  auto b = std::unique_ptr<Bench>(new Bench);
  b->mem_ = std::make_unique<DeviceMemory>(mc);
  runtime::MirrorBuffer storage = take_spare_mirror();  // the thread's (spare_mirrors.h)
  auto rt = Runtime::create(*b->mem_, cfg, &storage);
  if (!rt) {
    keep_spare_mirror(std::move(storage));  // a refused config leaves it as it was
    if (error) *error = rt.error();
    return nullptr;
  }
  b->rt_ = std::move(*rt);
  return b;
}

bool Bench::reset(const OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit, std::string* error,
                  BenchReset how) {
  RuntimeConfig cfg;
  DeviceMemoryConfig mc;
  std::optional<std::string> why = bench_configs(p, fill_byte, strict_uninit, cfg, mc);
  if (!why) why = validate_config(cfg);
  if (why) {  // rejected before anything is undone: the bench stays as it was
    if (error) *error = *why;
    return false;
  }
  runtime::MirrorBuffer storage = std::move(spare_mirror_);
  if (rt_) rt_->recycle_mirror(storage);
  rt_.reset();  // releases its reservations (their pages become spares)
  if (how != BenchReset::kKeepMemory) mem_->reset(mc);
  auto rt = Runtime::create(*mem_, cfg, &storage);
  if (!rt) {
    if (error) *error = rt.error();
    return false;
  }
  rt_ = std::move(*rt);
  return true;
}

std::unique_ptr<Bench> Bench::acquire(const OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit,
                                      std::string* error) {
  if (spare_bench) {
    if (!spare_bench->reset(p, fill_byte, strict_uninit, error)) {
      if (!spare_bench->rt_) spare_bench.reset();  // failed after the reset began: unusable
      return nullptr;                              // a rejected config: create() would reject it too
    }
    return std::move(spare_bench);
  }
  return create(p, fill_byte, strict_uninit, error);
}

Bench::~Bench() {
  if (rt_) rt_->recycle_mirror(spare_mirror_);
  rt_.reset();
  keep_spare_mirror(std::move(spare_mirror_));
}

void Bench::recycle(std::unique_ptr<Bench> b) {
  if (!b || !b->mem_ || spare_bench) return;  // not kept: destroyed here
  // What this input's binds allocated goes now, not at the next acquire: the Runtime (its
  // tensor map, graph cache, plan copies) and the device memory's reservations, its pages
  // kept as spares, the mirror's allocation kept for the next Runtime. An input then frees
  // what it allocated, so libFuzzer's malloc/free balance (which reruns an input that ends
  // with more mallocs than frees, to look for a leak) sees a leak only where there is one.
  if (b->rt_) b->rt_->recycle_mirror(b->spare_mirror_);
  b->rt_.reset();
  b->mem_->reset(runtime::DeviceMemoryConfig{});
  spare_bench = std::move(b);
}

Verdict Bench::check_teardown() {
  if (!rt_) return Verdict::pass();
  rt_->recycle_mirror(spare_mirror_);
  rt_.reset();
  for (const ReservationInfo& r : mem_->reservations())
    if (r.live)
      return Verdict::fail("teardown",
                           fmt::format("the Runtime is destroyed and its reservation '{}' ({} bytes at {:#x}) "
                                       "is still live",
                                       r.name, r.bytes, r.base.raw()));
  return Verdict::pass();
}

void BenchRecycler::operator()(Bench* b) const { Bench::recycle(std::unique_ptr<Bench>(b)); }

BenchLease lease_bench(const OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit, std::string* error) {
  return BenchLease(Bench::acquire(p, fill_byte, strict_uninit, error).release());
}

std::optional<MirrorDifference> first_mirror_difference(const runtime::MirrorBuffer& a,
                                                        const runtime::MirrorBuffer& b) {
  constexpr uint64_t kBlock = runtime::MirrorBuffer::kBlockBytes;
  auto byte_at = [](const runtime::MirrorBuffer& m, uint64_t at) {
    return m.filled(at / kBlock) ? static_cast<uint8_t>(m.data()[at]) : m.fill_byte();
  };
  const uint64_t n = std::min(a.size(), b.size());
  for (uint64_t blk = 0; blk * kBlock < n; ++blk) {
    const bool fa = a.filled(blk), fb = b.filled(blk);
    const uint64_t from = blk * kBlock, to = std::min(n, from + kBlock);
    if (!fa && !fb && a.fill_byte() == b.fill_byte()) continue;
    if (fa && fb && std::memcmp(a.data() + from, b.data() + from, to - from) == 0) continue;
    for (uint64_t at = from; at < to; ++at)
      if (byte_at(a, at) != byte_at(b, at)) return MirrorDifference{at, byte_at(a, at), byte_at(b, at)};
  }
  return std::nullopt;
}

Verdict check_same_bench_state(Bench& used, Bench& fresh) {
  const runtime::MirrorBuffer &mu = used.runtime().mirror_buffer(), &mf = fresh.runtime().mirror_buffer();
  if (mu.size() != mf.size())
    return Verdict::fail("bench-reset", fmt::format("mirror of {} bytes, fresh {}", mu.size(), mf.size()));
  if (const auto d = first_mirror_difference(mu, mf))
    return Verdict::fail("bench-reset", fmt::format("mirror byte {} is {:#04x}, fresh {:#04x}", d->at,
                                                    static_cast<unsigned>(d->a), static_cast<unsigned>(d->b)));
  DeviceMemory &a = used.memory(), &b = fresh.memory();
  const std::vector<ReservationInfo> ra = a.reservations(), rb = b.reservations();
  if (ra.size() != rb.size())
    return Verdict::fail("bench-reset", fmt::format("{} reservations, fresh {}", ra.size(), rb.size()));
  for (size_t i = 0; i < ra.size(); ++i) {
    const ReservationInfo &x = ra[i], &y = rb[i];
    if (x.base != y.base || x.bytes != y.bytes || x.align != y.align || x.name != y.name || x.live != y.live ||
        x.link != y.link || x.copies_in != y.copies_in || x.last_copy_offset != y.last_copy_offset ||
        x.last_copy_bytes != y.last_copy_bytes)
      return Verdict::fail("bench-reset",
                           fmt::format("reservation {} is {} {:#x}+{} live={} link={} copies={}, fresh {} {:#x}+{} "
                                       "live={} link={} copies={}",
                                       i, x.name, x.base.raw(), x.bytes, x.live, x.link, x.copies_in, y.name,
                                       y.base.raw(), y.bytes, y.live, y.link, y.copies_in));
    if (!x.live) continue;
    if (a.bytes_written(x.base, x.bytes) != b.bytes_written(y.base, y.bytes) ||
        a.bytes_read(x.base, x.bytes) != b.bytes_read(y.base, y.bytes))
      return Verdict::fail("bench-reset",
                           fmt::format("reservation {} ({}): {} bytes written and {} read, fresh {} and {}", i, x.name,
                                       a.bytes_written(x.base, x.bytes), a.bytes_read(x.base, x.bytes),
                                       b.bytes_written(y.base, y.bytes), b.bytes_read(y.base, y.bytes)));
    if (x.bytes <= (uint64_t{4} << 20)) {
      std::vector<std::byte> ca(x.bytes), cb(y.bytes);
      a.inspect(x.base, ca.data(), x.bytes);
      b.inspect(y.base, cb.data(), y.bytes);
      if (auto d = std::mismatch(ca.begin(), ca.end(), cb.begin()); d.first != ca.end())
        return Verdict::fail("bench-reset", fmt::format("reservation {} ({}) byte {} is {:#04x}, fresh {:#04x}", i,
                                                        x.name, d.first - ca.begin(), static_cast<unsigned>(*d.first),
                                                        static_cast<unsigned>(*d.second)));
    }
  }
  if (a.host_copies() != b.host_copies())
    return Verdict::fail("bench-reset", fmt::format("host-copy ledger of {} entries, fresh {} (or they differ)",
                                                    a.host_copy_count(), b.host_copy_count()));
  if (!(a.counters() == b.counters()) || a.uninit_reads() != b.uninit_reads() ||
      a.resident_pages() != b.resident_pages() || a.strict_uninit() != b.strict_uninit() ||
      a.fill_byte() != b.fill_byte())
    return Verdict::fail(
        "bench-reset", fmt::format("h2d {} d2h {} uninit {} pages {} strict {} fill {:#04x}, fresh h2d {} d2h {} "
                                   "uninit {} pages {} strict {} fill {:#04x}",
                                   a.counters().h2d_calls, a.counters().d2h_calls, a.uninit_reads(), a.resident_pages(),
                                   a.strict_uninit(), a.fill_byte(), b.counters().h2d_calls, b.counters().d2h_calls,
                                   b.uninit_reads(), b.resident_pages(), b.strict_uninit(), b.fill_byte()));
  return Verdict::pass();
}

Captured Bench::bind(const OrchProgram& p, BindOptions opts) {
  Captured c;
  BeforeUploadHook then = std::move(opts.before_upload);
  opts.before_upload = [&c, then](StagedUpload& up) -> std::optional<std::string> {
    if (then)
      if (auto stop = then(up)) return stop;
    c.staged.assign(up.bytes.begin(), up.bytes.end());
    c.image_offset = up.image_offset;
    c.image_bytes = up.image_bytes;
    c.destination = up.destination;
    return std::nullopt;
  };
  c.first_copy = mem_->host_copy_count();
  c.result = rt_->bind(p, opts);
  return c;
}

namespace {

template <class T>
T load_at(std::span<const std::byte> b, uint64_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

// Reads records through a function (host bytes or device loads), so one walk serves both.
struct ImageReader {
  std::function<bool(uint64_t off, void* dst, uint64_t n)> read;
  std::function<std::optional<uint64_t>(uint64_t field_off, int32_t delta)> resolve;
};

Verdict walk_deltas(const ImageReader& rd, uint64_t size, const std::string& what) {
  auto fail = [&](std::string m) { return Verdict::fail("image-deltas", fmt::format("{}: {}", what, m)); };
  if (size < sizeof(ImageHeader)) return fail("shorter than its header");
  ImageHeader h;
  rd.read(0, &h, sizeof h);
  const SegmentLayout L = LayoutPlanner::plan(h.pitch, PoolCounts{h.tensor_count, h.scalar_count, h.fanin_count});
  for (uint32_t s = 0; s < kSegCount; ++s)
    if (h.seg_off[s] != L.off[s])
      return fail(fmt::format("segment {} at {}, the planner puts it at {}", s, h.seg_off[s], L.off[s]));
  if (L.total_bytes != size || h.image_bytes != size)
    return fail(fmt::format("{} bytes, header says {}, planner {}", size, h.image_bytes, L.total_bytes));
  auto target = [&](uint64_t field, int32_t delta) -> std::optional<uint64_t> {
    if (delta == 0) return std::nullopt;
    return rd.resolve(field, delta);
  };
  for (uint64_t i = 0; i < h.pitch; ++i) {
    SlotState slot;
    TaskPayload pl;
    rd.read(L.slot_at(i), &slot, sizeof slot);
    rd.read(L.payload_at(i), &pl, sizeof pl);
    const bool live = i < h.n;
    const auto d = target(L.slot_at(i) + kSlotDescField, slot.desc);
    const auto q = target(L.slot_at(i) + kSlotPayloadField, slot.payload);
    if (!live) {
      if (d || q || pl.tensors || pl.scalars || pl.fanin)
        return fail(fmt::format("unused slot {} has a bound delta", i));
      continue;
    }
    if (d != L.desc_at(i))
      return fail(fmt::format("slot {}: desc delta {} does not reach descriptor {}", i, slot.desc, i));
    if (q != L.payload_at(i))
      return fail(fmt::format("slot {}: payload delta {} does not reach payload {}", i, slot.payload, i));
    struct Pool {
      const char* name;
      int32_t delta;
      uint64_t field, count, seg_start, elem, cursor, align;
    };
    const Pool pools[] = {
        {"tensors", pl.tensors, L.payload_at(i) + kPayloadTensorsField, pl.n_tensors, L.off[kSegTensor],
         sizeof(TensorArg), h.tensor_count, 1},
        {"scalars", pl.scalars, L.payload_at(i) + kPayloadScalarsField, scalar_region_entries(pl.n_scalars),
         L.off[kSegScalar], 8, h.scalar_count, kScalarLine},
        {"fanin", pl.fanin, L.payload_at(i) + kPayloadFaninField, pl.n_fanin, L.off[kSegFanin], 4, h.fanin_count, 1},
    };
    for (const Pool& p : pools) {
      const auto t = target(p.field, p.delta);
      if ((p.count > 0) != t.has_value())
        return fail(
            fmt::format("task {}: {} delta {} with count {} (bound <=> count > 0)", i, p.name, p.delta, p.count));
      if (!t) continue;
      if (*t < p.seg_start || (*t - p.seg_start) % p.elem != 0)
        return fail(fmt::format("task {}: {} delta reaches {}, not an element of its pool", i, p.name, *t));
      const uint64_t k = (*t - p.seg_start) / p.elem;
      if (k % p.align != 0)
        return fail(fmt::format("task {}: {} region at entry {} is not line-aligned", i, p.name, k));
      if (k + p.count > p.cursor)
        return fail(
            fmt::format("task {}: {} [{}, {}) past the pool's {} entries", i, p.name, k, k + p.count, p.cursor));
    }
  }
  return Verdict::pass();
}

}  // namespace

Verdict check_image_deltas(std::span<const std::byte> image, const std::string& what) {
  ImageReader rd;
  rd.read = [image](uint64_t off, void* dst, uint64_t n) {
    if (off > image.size() || n > image.size() - off) {
      std::memset(dst, 0, n);
      return false;
    }
    std::memcpy(dst, image.data() + off, n);
    return true;
  };
  rd.resolve = [](uint64_t field, int32_t delta) { return resolve_offset(field, delta); };
  return walk_deltas(rd, image.size(), what);
}

Verdict check_position_independent(std::span<const std::byte> image, uint64_t offset) {
  DeviceMemory mem;
  const uint64_t bytes = offset + image.size() + 64;
  const DevAddr base = mem.reserve(bytes, 64, "copy");
  const DevAddr at = base + offset;
  mem.copy_to_device(at, image.data(), image.size());
  DeviceAccess dev(mem);
  ImageReader rd;
  rd.read = [&](uint64_t off, void* dst, uint64_t n) {
    dev.read(at + off, dst, n);
    return true;
  };
  // Resolution on device addresses; the walk compares offsets from the image start.
  rd.resolve = [&](uint64_t field, int32_t delta) -> std::optional<uint64_t> {
    const auto t = runtime::resolve(at + field, delta);
    if (!t || t->raw() < at.raw()) return std::nullopt;
    return t->raw() - at.raw();
  };
  return walk_deltas(rd, image.size(), fmt::format("image copied to base+{:#x}", offset));
}

}  // namespace stackcheck::oracles
