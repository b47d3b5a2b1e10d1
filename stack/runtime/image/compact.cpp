// compact_live_image (RUNTIME.md §10): mirror -> image, one memcpy per live segment prefix,
// deltas re-taken by index. See compact.h for the invariants.
#include "stack/runtime/image/compact.h"

#include <cstring>

#include <fmt/format.h>

#include "stack/defects/defects.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/support/check.h"

namespace stackcheck::runtime {

const char* compact_error_name(CompactErrorKind k) {
  switch (k) {
    case CompactErrorKind::kNGreaterThanW: return "NGreaterThanW";
    case CompactErrorKind::kCursorOverCapacity: return "CursorOverCapacity";
    case CompactErrorKind::kPayloadStride: return "PayloadStride";
    case CompactErrorKind::kMirrorLayout: return "MirrorLayout";
    case CompactErrorKind::kOutSize: return "OutSize";
    case CompactErrorKind::kBadPoolRef: return "BadPoolRef";
  }
  return "?";
}

namespace {

Unexpected<CompactError> fail(CompactErrorKind k, std::string msg) {
  return unexpected(CompactError{k, std::move(msg)});
}

uint64_t cursor_of(const PoolCounts& c, Segment s) {
  return s == kSegTensor ? c.tensors : s == kSegScalar ? c.scalars : c.fanin;
}

// Entries a task's region spans in pool s: scalars take whole 8-entry lines.
uint64_t region_entries(const TaskPayload& p, Segment s) {
  if (s == kSegTensor) return p.n_tensors;
  if (s == kSegScalar) return scalar_region_entries(p.n_scalars);
  return p.n_fanin;
}

}  // namespace

std::array<uint64_t, kSegCount> live_segment_bytes(PoolCounts cursors, uint64_t n) {
  return {n * sizeof(TaskDescriptor),          n * sizeof(TaskPayload), n * sizeof(SlotState), n,
          cursors.tensors * sizeof(TensorArg), cursors.scalars * 8,     cursors.fanin * 4};
}

// long: the compaction's three phases in order over one plan (preconditions before the first read of the mirror,
// header and segment copies counted to prove the size, deltas re-taken), each a straight run of checks
Expected<size_t, CompactError> compact_live_image(std::span<const std::byte> mirror, const MirrorLayout& layout,
                                                  PoolCounts cursors, uint64_t n, std::span<std::byte> out) {
  // ---- preconditions: all before the first read of the mirror ----
  const uint64_t W = layout.W();
  const PoolCounts cap = layout.seg.counts;
  // Zoo: none of the preconditions checked before the mirror is read.
  const bool unchecked = defects::active(defects::Defect::kCompactionUnchecked);
  if (n > W && !unchecked) return fail(CompactErrorKind::kNGreaterThanW, fmt::format("n={} > W={}", n, W));
  if ((cursors.tensors > cap.tensors || cursors.scalars > cap.scalars || cursors.fanin > cap.fanin) && !unchecked)
    return fail(CompactErrorKind::kCursorOverCapacity,
                fmt::format("cursors ({}, {}, {}) exceed capacities ({}, {}, {})", cursors.tensors, cursors.scalars,
                            cursors.fanin, cap.tensors, cap.scalars, cap.fanin));
  if (layout.payload_stride != sizeof(TaskPayload) && !unchecked)
    return fail(CompactErrorKind::kPayloadStride,
                fmt::format("payload_stride {} != sizeof(TaskPayload) {}", layout.payload_stride, sizeof(TaskPayload)));
  if (!LayoutPlanner::valid_W(W) || !(layout.seg == LayoutPlanner::mirror(W).seg) ||
      mirror.size() < layout.seg.total_bytes)
    return fail(CompactErrorKind::kMirrorLayout,
                fmt::format("mirror layout for W={} is not the planner's or the mirror ({} B) is "
                            "shorter than it ({} B)",
                            W, mirror.size(), layout.seg.total_bytes));
  // Zoo: the image pitched to the task window instead of the submitted count.
  const SegmentLayout plan = defects::active(defects::Defect::kImagePitchedToCapacity)
                                 ? LayoutPlanner::plan(W, cursors)
                                 : LayoutPlanner::image(n, cursors);
  if (out.size() != plan.total_bytes && !unchecked)
    return fail(CompactErrorKind::kOutSize, fmt::format("out has {} bytes, the plan {}", out.size(), plan.total_bytes));

  const SegmentLayout& ml = layout.seg;
  const std::byte* src = mirror.data();
  std::byte* dst = out.data();
  uint64_t covered = 0;  // bytes of out written, to prove the image is exactly the plan

  // ---- header: re-derived; only the run state is taken from the mirror ----
  ImageHeader mh;
  std::memcpy(&mh, src, sizeof mh);
  ImageHeader h{};
  std::memcpy(h.magic, kImageMagic, 8);
  h.version = kImageVersion;
  h.W = static_cast<uint32_t>(W);
  h.pitch = static_cast<uint32_t>(plan.pitch);
  h.n = static_cast<uint32_t>(n);
  h.orch_done = mh.orch_done;
  h.orch_error = mh.orch_error;
  h.sched_error = mh.sched_error;
  h.sched_error_thread = mh.sched_error_thread;
  h.sched_error_bitmap = mh.sched_error_bitmap;
  h.image_bytes = plan.total_bytes;
  for (uint32_t s = 0; s < kSegCount; ++s) h.seg_off[s] = plan.off[s];
  h.tensor_count = static_cast<uint32_t>(cursors.tensors);
  h.scalar_count = static_cast<uint32_t>(cursors.scalars);
  h.fanin_count = static_cast<uint32_t>(cursors.fanin);
  h.reserved = 0;
  std::memcpy(dst, &h, sizeof h);
  covered += sizeof h;

  // ---- one memcpy per live segment prefix; unused records and padding zeroed ----
  const std::array<uint64_t, kSegCount> live = live_segment_bytes(cursors, n);
  std::memset(dst + sizeof h, 0, plan.off[0] - sizeof h);  // header padding (none today)
  covered += plan.off[0] - sizeof h;
  for (uint32_t s = 0; s < kSegCount; ++s) {
    auto seg = static_cast<Segment>(s);
    if (live[s] > 0) std::memcpy(dst + plan.off[s], src + ml.off[s], live[s]);
    // n = 0 leaves one all-zero record in each per-task segment (pitch 1).
    std::memset(dst + plan.off[s] + live[s], 0, plan.next_start(seg) - plan.off[s] - live[s]);
    covered += plan.next_start(seg) - plan.off[s];
  }
  STACK_CHECK(covered == plan.total_bytes && plan.total_bytes == out.size(),
              "compaction wrote a size different from the plan");

  // Zoo: the deltas shipped as the mirror had them (relative to the mirror's layout).
  if (defects::active(defects::Defect::kCompactionCopiesDeltas)) return static_cast<size_t>(plan.total_bytes);

  // ---- deltas, re-taken by index ----
  for (uint64_t i = 0; i < n; ++i) {
    SlotState slot;
    std::memcpy(&slot, dst + plan.slot_at(i), sizeof slot);
    if (slot.desc != 0)
      STACK_CHECK(set_at(dst, plan.slot_at(i) + kSlotDescField, plan.desc_at(i)),
                  "slot->desc delta out of int32 reach inside an image");
    if (slot.payload != 0)
      STACK_CHECK(set_at(dst, plan.slot_at(i) + kSlotPayloadField, plan.payload_at(i)),
                  "slot->payload delta out of int32 reach inside an image");

    TaskPayload p;
    std::memcpy(&p, dst + plan.payload_at(i), sizeof p);
    for (const PayloadPool& f : kPayloadPools) {
      int32_t d;
      std::memcpy(&d, dst + plan.payload_at(i) + f.field, sizeof d);
      if (d == 0) continue;  // unbound stays unbound
      const uint64_t field_off = ml.payload_at(i) + f.field;
      const uint64_t pool = ml.off[f.seg];
      const uint64_t cursor = cursor_of(cursors, f.seg);
      std::optional<uint64_t> t = resolve_offset(field_off, d);
      if (!t || *t < pool || (*t - pool) % f.elem != 0)
        return fail(CompactErrorKind::kBadPoolRef,
                    fmt::format("task {} {} delta {} does not point at a {} pool element", i, f.name, d, f.name));
      const uint64_t idx = (*t - pool) / f.elem;
      const uint64_t region = region_entries(p, f.seg);
      if (f.seg == kSegScalar && idx % kScalarLine != 0)
        return fail(CompactErrorKind::kBadPoolRef,
                    fmt::format("task {} scalars region at entry {} is not 8-aligned", i, idx));
      if (idx >= cursor || region > cursor - idx)
        return fail(CompactErrorKind::kBadPoolRef, fmt::format("task {} {} region [{}, {}) is past the cursor {}", i,
                                                               f.name, idx, idx + region, cursor));
      const uint64_t target = plan.off[f.seg] + idx * f.elem;
      if (!set_at(dst, plan.payload_at(i) + f.field, target))
        return fail(CompactErrorKind::kBadPoolRef,
                    fmt::format("task {} {} delta out of int32 reach in the image", i, f.name));
    }
  }
  return static_cast<size_t>(plan.total_bytes);
}

}  // namespace stackcheck::runtime
