// attach_populated (RUNTIME.md §11): one pass per error class, in the table's order, so the
// class reported for an image with several faults is deterministic. Before the per-task
// passes, the header checks prove the whole image lies in the mapped region, so those
// passes cannot fault. Graph contexts are checked in attach_graph.cpp.
#include "stack/runtime/device/attach.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "stack/runtime/device/attach_detail.h"
#include "stack/runtime/image/self_relative.h"

namespace stackcheck::runtime {

const char* attach_error_name(AttachErrorClass c) {
  switch (c) {
    case AttachErrorClass::kBadMagic: return "BadMagic";
    case AttachErrorClass::kBadPitch: return "BadPitch";
    case AttachErrorClass::kTruncated: return "Truncated";
    case AttachErrorClass::kTooLarge: return "TooLarge";
    case AttachErrorClass::kBadLayout: return "BadLayout";
    case AttachErrorClass::kPoolOutOfImage: return "PoolOutOfImage";
    case AttachErrorClass::kDeltaOutOfImage: return "DeltaOutOfImage";
    case AttachErrorClass::kDeltaMisaligned: return "DeltaMisaligned";
    case AttachErrorClass::kCountMismatch: return "CountMismatch";
    case AttachErrorClass::kDirtyPadding: return "DirtyPadding";
    case AttachErrorClass::kBadGraphContext: return "BadGraphContext";
    case AttachErrorClass::kLatchedError: return "LatchedError";
  }
  return "?";
}

namespace attach_detail {

namespace {
constexpr uint64_t kInt32Max = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

int32_t pool_delta(const TaskPayload& p, Segment s) {
  return s == kSegTensor ? p.tensors : s == kSegScalar ? p.scalars : p.fanin;
}
uint64_t pool_count(const TaskPayload& p, Segment s) {
  return s == kSegTensor ? p.n_tensors : s == kSegScalar ? p.n_scalars : p.n_fanin;
}
uint64_t pool_region(const TaskPayload& p, Segment s) {
  return s == kSegScalar ? scalar_region_entries(p.n_scalars) : pool_count(p, s);
}
}  // namespace

TaskDescriptor Attacher::desc(uint64_t i) { return dev.load<TaskDescriptor>(img + L.desc_at(i)); }
TaskPayload Attacher::payload(uint64_t i) { return dev.load<TaskPayload>(img + L.payload_at(i)); }
SlotState Attacher::slot(uint64_t i) { return dev.load<SlotState>(img + L.slot_at(i)); }

bool Attacher::zero_bytes(DevAddr a, uint64_t n) {
  unsigned char buf[512];
  for (uint64_t done = 0; done < n;) {
    uint64_t len = std::min<uint64_t>(sizeof buf, n - done);
    dev.read(a + done, buf, len);
    for (uint64_t k = 0; k < len; ++k)
      if (buf[k] != 0) return false;
    done += len;
  }
  return true;
}

std::optional<AttachError> Attacher::check_headers() {
  if (!dev.mapped(rt_addr, sizeof(RuntimeHeader)))
    return AttachError{AttachErrorClass::kBadMagic, "runtime header not mapped"};
  rt = dev.load<RuntimeHeader>(rt_addr);
  if (std::memcmp(rt.magic, kRuntimeMagic, 8) != 0 || rt.version != kRuntimeVersion)
    return AttachError{AttachErrorClass::kBadMagic, "runtime header magic/version"};
  // The image opens right after the RuntimeHeader (§5). Judged before anything is read at
  // the image address: an image header read anywhere else in the region would be bytes this
  // copy never wrote.
  img = rt.image;
  if (img != rt_addr + sizeof(RuntimeHeader))
    return AttachError{AttachErrorClass::kBadLayout,
                       fmt::format("image at {:#x}, not right after the runtime header (at {:#x})", img.raw(),
                                   (rt_addr + sizeof(RuntimeHeader)).raw())};
  // The image header can only be judged once it is readable.
  if (!dev.mapped(img, sizeof(ImageHeader))) return AttachError{AttachErrorClass::kTooLarge, "image header not mapped"};
  h = dev.load<ImageHeader>(img);
  if (std::memcmp(h.magic, kImageMagic, 8) != 0 || h.version != kImageVersion)
    return AttachError{AttachErrorClass::kBadMagic, "image header magic/version"};

  if (!LayoutPlanner::valid_W(h.W) || h.W != rt.W)
    return AttachError{AttachErrorClass::kBadPitch, fmt::format("W={} invalid or != runtime W={}", h.W, rt.W)};
  if (h.pitch == 0 || h.pitch > h.W || h.pitch != std::max<uint32_t>(h.n, 1))
    return AttachError{AttachErrorClass::kBadPitch, fmt::format("pitch {} with n={} W={}", h.pitch, h.n, h.W)};

  // Truncated and TooLarge judge the image header's own figure, whatever the runtime header
  // says: a disagreement between the two is a layout fault (BadLayout below), so an image
  // too large for the region is reported as such even when the runtime header hides it.
  const uint64_t flag_end = LayoutPlanner::plan(h.pitch, PoolCounts{}).seg_end(kSegFlag);
  if (h.image_bytes < flag_end)
    return AttachError{AttachErrorClass::kTruncated,
                       fmt::format("image_bytes {} < flag segment end {}", h.image_bytes, flag_end)};

  if (h.image_bytes > kInt32Max)
    return AttachError{AttachErrorClass::kTooLarge, fmt::format("image {} B > INT32_MAX", h.image_bytes)};
  const uint64_t rb = rt.region.raw(), re = rb + rt.region_bytes;
  if (re < rb || !dev.mapped(rt.region, rt.region_bytes) || img.raw() < rb || img.raw() > re ||
      h.image_bytes > re - img.raw())
    return AttachError{AttachErrorClass::kTooLarge, "image past the region (or region unmapped)"};
  // The scheduler writes SchedControl and the Q-entry ring into the device-only zone, which
  // precedes the copied zone inside the region.
  const uint64_t db = rt.device_only.raw(), de = db + rt.device_only_bytes;
  if (de < db || db < rb || de > rt_addr.raw() || rt.device_only_bytes < sizeof(SchedControl) + 8 * uint64_t{rt.Q} ||
      rt.Q == 0)
    return AttachError{AttachErrorClass::kTooLarge,
                       fmt::format("device-only zone [{:#x}, +{}) cannot hold SchedControl and a "
                                   "ring of Q={} before the runtime header",
                                   db, rt.device_only_bytes, rt.Q)};
  // The zone opens the region (RUNTIME.md §5): the scheduler's atomics on SchedControl need
  // the region's alignment, so a zone anywhere else is a layout the planner never makes.
  if (db != rb)
    return AttachError{AttachErrorClass::kBadLayout,
                       fmt::format("device-only zone at {:#x}, not at the region's start {:#x}", db, rb)};

  L = LayoutPlanner::plan(h.pitch, PoolCounts{h.tensor_count, h.scalar_count, h.fanin_count});
  for (uint32_t s = 0; s < kSegCount; ++s)
    if (h.seg_off[s] != L.off[s])
      return AttachError{AttachErrorClass::kBadLayout,
                         fmt::format("segment {} at {}, planner says {}", s, h.seg_off[s], L.off[s])};
  if (h.image_bytes > L.total_bytes)
    return AttachError{AttachErrorClass::kBadLayout,
                       fmt::format("image_bytes {} > planned {}", h.image_bytes, L.total_bytes)};
  if (rt.image_bytes != h.image_bytes)
    return AttachError{AttachErrorClass::kBadLayout, fmt::format("runtime header says {} image bytes, image header {}",
                                                                 rt.image_bytes, h.image_bytes)};
  // The submissions follow the image at the next 64-byte boundary (§5, §9); no zone at all
  // when there is no graph submission.
  const bool zone = !rt.submissions.is_null() || rt.submissions_bytes != 0;
  const uint64_t zone_at = align64(img.raw() + h.image_bytes);
  if (zone && (rt.submissions_bytes == 0 || rt.submissions.raw() != zone_at))
    return AttachError{AttachErrorClass::kBadLayout,
                       fmt::format("submissions [{:#x}, +{}) not right after the image (at {:#x})",
                                   rt.submissions.raw(), rt.submissions_bytes, zone_at)};
  for (Segment s : {kSegTensor, kSegScalar, kSegFanin})
    if (L.seg_end(s) > h.image_bytes)
      return AttachError{
          AttachErrorClass::kPoolOutOfImage,
          fmt::format("pool segment {} ends at {} past image_bytes {}", int(s), L.seg_end(s), h.image_bytes)};
  return std::nullopt;
}

// A bound delta stored at image offset `field` -> image offset of its target, when inside
// [seg start, seg_end) of `s` with room for one element.
std::optional<uint64_t> Attacher::target_in(uint64_t field, int32_t d, Segment s, uint64_t elem) const {
  std::optional<uint64_t> t = resolve_offset(field, d);
  if (!t || *t >= h.image_bytes || *t < L.off[s] || *t >= L.seg_end(s) || elem > L.seg_end(s) - *t) return std::nullopt;
  return t;
}

std::optional<AttachError> Attacher::check_deltas_in_image() {
  using C = AttachErrorClass;
  for (uint64_t i = 0; i < h.n; ++i) {
    const SlotState sl = slot(i);
    if (!target_in(L.slot_at(i) + kSlotDescField, sl.desc, kSegDesc, sizeof(TaskDescriptor)))
      return AttachError{C::kDeltaOutOfImage, fmt::format("slot {} desc delta {} outside desc[]", i, sl.desc)};
    if (!target_in(L.slot_at(i) + kSlotPayloadField, sl.payload, kSegPayload, sizeof(TaskPayload)))
      return AttachError{C::kDeltaOutOfImage, fmt::format("slot {} payload delta {} outside payload[]", i, sl.payload)};
    const TaskPayload p = payload(i);
    for (const PayloadPool& r : kPayloadPools) {
      int32_t d = pool_delta(p, r.seg);
      if (d != 0 && !target_in(L.payload_at(i) + r.field, d, r.seg, r.elem))
        return AttachError{C::kDeltaOutOfImage, fmt::format("task {} {} delta {} outside its pool", i, r.name, d)};
    }
  }
  return std::nullopt;
}

std::optional<AttachError> Attacher::check_deltas_aligned() {
  using C = AttachErrorClass;
  for (uint64_t i = 0; i < h.n; ++i) {
    const SlotState sl = slot(i);
    if (*resolve_offset(L.slot_at(i) + kSlotDescField, sl.desc) != L.desc_at(i) ||
        *resolve_offset(L.slot_at(i) + kSlotPayloadField, sl.payload) != L.payload_at(i))
      return AttachError{C::kDeltaMisaligned, fmt::format("slot {} deltas point at another index", i)};
    const TaskPayload p = payload(i);
    for (const PayloadPool& r : kPayloadPools) {
      int32_t d = pool_delta(p, r.seg);
      if (d == 0) continue;
      uint64_t rel = *resolve_offset(L.payload_at(i) + r.field, d) - L.off[r.seg];
      uint64_t idx = rel / r.elem, count = L.seg_bytes(r.seg) / r.elem;
      if (rel % r.elem != 0)
        return AttachError{C::kDeltaMisaligned, fmt::format("task {} {} delta off-element", i, r.name)};
      if (r.seg == kSegScalar && idx % kScalarLine != 0)
        return AttachError{C::kDeltaMisaligned, fmt::format("task {} scalar region at {} not 8-aligned", i, idx)};
      if (pool_region(p, r.seg) > count - idx)
        return AttachError{C::kDeltaMisaligned, fmt::format("task {} {} region [{}, {}) past the count {}", i, r.name,
                                                            idx, idx + pool_region(p, r.seg), count)};
    }
  }
  return std::nullopt;
}

std::optional<AttachError> Attacher::check_counts() {
  using C = AttachErrorClass;
  uint64_t next[3] = {0, 0, 0};  // running region starts per pool: regions are claimed in order
  for (uint64_t i = 0; i < h.n; ++i) {
    const TaskDescriptor d = desc(i);
    const TaskPayload p = payload(i);
    const SlotState sl = slot(i);
    if (d.task_id != static_cast<int64_t>(i))
      return AttachError{C::kCountMismatch, fmt::format("descriptor {} has task_id {}", i, d.task_id)};
    if (d.kind < kKindKernel || d.kind > kKindGraph)
      return AttachError{C::kCountMismatch, fmt::format("task {} kind {}", i, d.kind)};
    bool kernel_ok = d.kind == kKindKernel  ? d.kernel_id >= 0 && d.kernel_id <= kMaxBuiltinKernelId
                     : d.kind == kKindAlloc ? d.kernel_id == kAllocKernelId
                                            : d.kernel_id == kGraphKernelId;
    if (!kernel_ok)
      return AttachError{C::kCountMismatch, fmt::format("task {} kernel id {} for kind {}", i, d.kernel_id, d.kind)};
    if (d.heap_begin > d.heap_end) return AttachError{C::kCountMismatch, fmt::format("task {} heap block reversed", i)};
    if (d.kind == kKindGraph ? (p.n_nodes < 1 || p.n_nodes > 1024 || p.n_tensors != 0 || p.n_scalars != 0)
                             : p.n_nodes != 0)
      return AttachError{C::kCountMismatch, fmt::format("task {} n_nodes {} wrong for kind {}", i, p.n_nodes, d.kind)};
    for (int k = 0; k < 3; ++k) {
      const PayloadPool& r = kPayloadPools[k];
      int32_t delta = pool_delta(p, r.seg);
      if ((delta != 0) != (pool_count(p, r.seg) > 0))
        return AttachError{C::kCountMismatch, fmt::format("task {} {}: bound={} but count={}", i, r.name, delta != 0,
                                                          pool_count(p, r.seg))};
      if (delta == 0) continue;
      uint64_t idx = (*resolve_offset(L.payload_at(i) + r.field, delta) - L.off[r.seg]) / r.elem;
      if (idx != next[k])
        return AttachError{C::kCountMismatch,
                           fmt::format("task {} {} region starts at {}, expected {}", i, r.name, idx, next[k])};
      next[k] += pool_region(p, r.seg);
    }
    if (sl.state != kSlotPending && sl.state != kSlotCompleted)
      return AttachError{C::kCountMismatch, fmt::format("slot {} state {}", i, sl.state)};
    if (sl.fanin_cursor != static_cast<int32_t>(p.n_fanin))
      return AttachError{C::kCountMismatch,
                         fmt::format("slot {} fanin_cursor {} != n_fanin {}", i, sl.fanin_cursor, p.n_fanin)};
  }
  if (next[0] != h.tensor_count || next[1] != h.scalar_count || next[2] != h.fanin_count)
    return AttachError{C::kCountMismatch,
                       fmt::format("pool counts ({}, {}, {}) != sums of regions ({}, {}, {})", h.tensor_count,
                                   h.scalar_count, h.fanin_count, next[0], next[1], next[2])};
  return std::nullopt;
}

std::optional<AttachError> Attacher::check_padding() {
  using C = AttachErrorClass;
  if (h.reserved != 0 || rt.reserved != 0) return AttachError{C::kDirtyPadding, "header reserved field nonzero"};
  if (std::optional<AttachError> e = check_zone_padding()) return e;
  if (!zero_bytes(img + sizeof(ImageHeader), L.off[0] - sizeof(ImageHeader)))
    return AttachError{C::kDirtyPadding, "padding after the header"};
  for (uint32_t s = 0; s < kSegCount; ++s) {
    auto seg = static_cast<Segment>(s);
    if (!zero_bytes(img + L.seg_end(seg), L.next_start(seg) - L.seg_end(seg)))
      return AttachError{C::kDirtyPadding, fmt::format("padding after segment {}", s)};
  }
  if (h.n == 0) {  // the one unused record of each per-task segment
    if (!zero_bytes(img + L.desc_at(0), sizeof(TaskDescriptor)) ||
        !zero_bytes(img + L.payload_at(0), sizeof(TaskPayload)) || !zero_bytes(img + L.slot_at(0), sizeof(SlotState)))
      return AttachError{C::kDirtyPadding, "unused n=0 slot not zero"};
    return std::nullopt;
  }
  for (uint64_t i = 0; i < h.n; ++i) {
    const TaskDescriptor d = desc(i);
    const TaskPayload p = payload(i);
    const SlotState sl = slot(i);
    if (d.reserved != 0 || p.reserved != 0 || sl.reserved != 0)
      return AttachError{C::kDirtyPadding, fmt::format("task {} reserved field nonzero", i)};
    if (sl.wake_head != kWakeOpen || sl.wake_next != 0 || sl.wake_count != 0)
      return AttachError{C::kDirtyPadding, fmt::format("slot {} wake fields not zero", i)};
    if (p.n_scalars > 0) {
      uint64_t idx = (*resolve_offset(L.payload_at(i) + kPayloadScalarsField, p.scalars) - L.off[kSegScalar]) / 8;
      uint64_t pad = scalar_region_entries(p.n_scalars) - p.n_scalars;
      if (pad > 0 && !zero_bytes(img + L.scalar_at(idx + p.n_scalars), pad * 8))
        return AttachError{C::kDirtyPadding, fmt::format("task {} scalar pad entries not zero", i)};
    }
  }
  return std::nullopt;
}

std::optional<AttachError> Attacher::check_latched() {
  if (h.orch_error != 0 || h.sched_error != 0 || h.sched_error_thread != 0 || h.sched_error_bitmap != 0)
    return AttachError{AttachErrorClass::kLatchedError,
                       fmt::format("error words orch={} sched={} thread={} bitmap={:#x}", h.orch_error, h.sched_error,
                                   h.sched_error_thread, h.sched_error_bitmap)};
  if (h.orch_done != 1) return AttachError{AttachErrorClass::kLatchedError, fmt::format("orch_done={}", h.orch_done)};
  return std::nullopt;
}

}  // namespace attach_detail

Expected<DevImageView, AttachError> attach_populated(DeviceAccess& dev, DevAddr runtime_header) {
  attach_detail::Attacher a{dev, runtime_header};
  using Check = std::optional<AttachError> (attach_detail::Attacher::*)();
  for (Check c : {&attach_detail::Attacher::check_headers, &attach_detail::Attacher::check_deltas_in_image,
                  &attach_detail::Attacher::check_deltas_aligned, &attach_detail::Attacher::check_counts,
                  &attach_detail::Attacher::check_padding, &attach_detail::Attacher::check_graph_contexts,
                  &attach_detail::Attacher::check_latched})
    if (std::optional<AttachError> e = (a.*c)()) return unexpected(std::move(*e));
  DevImageView v;
  v.runtime_header = runtime_header;
  v.rt = a.rt;
  v.image = a.img;
  v.W = a.h.W;
  v.n = a.h.n;
  v.layout = a.L;
  return v;
}

}  // namespace stackcheck::runtime
