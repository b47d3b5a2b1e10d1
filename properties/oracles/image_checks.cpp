#include "properties/oracles/image_checks.h"

#include <fmt/format.h>

#include <cstring>
#include <functional>

#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/image/self_relative.h"

namespace stackcheck::oracles {

using namespace runtime;

std::unique_ptr<Bench> Bench::create(const OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit,
                                     std::string* error) {
  RuntimeConfig cfg;
  if (auto why = apply_config(p.config, cfg)) {
    if (error) *error = *why;
    return nullptr;
  }
  if (fill_byte) cfg.fill_byte = *fill_byte;
  auto b = std::unique_ptr<Bench>(new Bench);
  DeviceMemoryConfig mc;
  mc.fill_byte = static_cast<uint8_t>(cfg.fill_byte);
  mc.strict_uninit = strict_uninit;
  b->mem_ = std::make_unique<DeviceMemory>(mc);
  auto rt = Runtime::create(*b->mem_, cfg);
  if (!rt) {
    if (error) *error = rt.error();
    return nullptr;
  }
  b->rt_ = std::move(*rt);
  return b;
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
