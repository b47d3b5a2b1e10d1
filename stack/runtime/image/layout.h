// LayoutPlanner: every segment offset of a mirror or an image, as u64, from (pitch, pool
// counts) alone (RUNTIME.md §4). It allocates nothing, so layouts beyond 2 GiB can be planned
// and checked. Invariant: segments are, in order, header | desc[pitch] | payload[pitch] |
// slot[pitch] | flag[pitch] (u8) | tensor pool (TensorArg) | scalar pool (u64) | fanin pool
// (i32), each starting at ALIGN64 of the previous end; total_bytes is the end of the fanin
// pool; the bytes between a segment end and the next start are padding (zero when shipped).
// Header-only and pure: device/ (attach) re-derives layouts with it.
#pragma once

#include <cstdint>
#include <limits>

#include "stack/runtime/image/records.h"
#include "stack/support/limits.h"

namespace stackcheck::runtime {

constexpr uint64_t align64(uint64_t x) { return (x + 63) & ~uint64_t{63}; }

struct PoolCounts {
  uint64_t tensors = 0;  // TensorArg entries
  uint64_t scalars = 0;  // u64 entries
  uint64_t fanin = 0;    // i32 entries
  bool operator==(const PoolCounts&) const = default;
};

struct SegmentLayout {
  uint64_t pitch = 0;
  PoolCounts counts;             // pool capacities (mirror) or cursors (image)
  uint64_t off[kSegCount] = {};  // start of each segment (Segment enum), header at 0
  uint64_t total_bytes = 0;      // end of the fanin pool

  // End of segment s (start + its record bytes), before padding.
  constexpr uint64_t seg_end(Segment s) const { return off[s] + seg_bytes(s); }
  constexpr uint64_t seg_bytes(Segment s) const {
    switch (s) {
      case kSegDesc: return pitch * sizeof(TaskDescriptor);
      case kSegPayload: return pitch * sizeof(TaskPayload);
      case kSegSlot: return pitch * sizeof(SlotState);
      case kSegFlag: return pitch;
      case kSegTensor: return counts.tensors * sizeof(TensorArg);
      case kSegScalar: return counts.scalars * 8;
      case kSegFanin: return counts.fanin * 4;
      default: return 0;
    }
  }
  // Start of the segment after s (or total_bytes after the fanin pool); padding is
  // [seg_end(s), next_start(s)).
  constexpr uint64_t next_start(Segment s) const { return s + 1 < kSegCount ? off[s + 1] : total_bytes; }
  constexpr uint64_t desc_at(uint64_t i) const { return off[kSegDesc] + i * sizeof(TaskDescriptor); }
  constexpr uint64_t payload_at(uint64_t i) const { return off[kSegPayload] + i * sizeof(TaskPayload); }
  constexpr uint64_t slot_at(uint64_t i) const { return off[kSegSlot] + i * sizeof(SlotState); }
  constexpr uint64_t flag_at(uint64_t i) const { return off[kSegFlag] + i; }
  constexpr uint64_t tensor_at(uint64_t k) const { return off[kSegTensor] + k * sizeof(TensorArg); }
  constexpr uint64_t scalar_at(uint64_t k) const { return off[kSegScalar] + k * 8; }
  constexpr uint64_t fanin_at(uint64_t k) const { return off[kSegFanin] + k * 4; }

  constexpr bool operator==(const SegmentLayout&) const = default;
};

// The host mirror: an image-format buffer of pitch W with full-capacity pools.
// payload_stride = bytes moved per payload by compaction (== sizeof(TaskPayload) for every
// planner-made layout; a larger value is refused by compaction before any read).
struct MirrorLayout {
  SegmentLayout seg;
  uint64_t payload_stride = sizeof(TaskPayload);
  constexpr uint64_t W() const { return seg.pitch; }
  constexpr bool operator==(const MirrorLayout&) const = default;
};

class LayoutPlanner {
 public:
  // Pool capacities per mirror window W: at most W tasks, each with <= 32 tensors, <= 16
  // scalars (= two whole 8-entry lines) and <= 128 fanin, so a claim within W never
  // overflows a pool.
  static constexpr uint64_t kTensorsPerTask = support::kTaskMaxTensors;
  static constexpr uint64_t kScalarsPerTask = support::kTaskMaxScalars;
  static constexpr uint64_t kFaninPerTask = support::kTaskMaxFanin;
  static constexpr uint64_t kMinW = 4;
  static constexpr uint64_t kMaxW = 1ull << 30;
  // Largest W whose mirror is <= INT32_MAX bytes (RuntimeConfig refuses larger).
  static constexpr uint64_t kMaxConfigW = 1ull << 19;

  // Any pitch and counts; no overflow check needed below ~2^50 entries (u64 arithmetic).
  static constexpr SegmentLayout plan(uint64_t pitch, PoolCounts counts) {
    SegmentLayout l;
    l.pitch = pitch;
    l.counts = counts;
    uint64_t end = sizeof(ImageHeader);
    for (uint32_t s = 0; s < kSegCount; ++s) {
      l.off[s] = align64(end);
      end = l.off[s] + l.seg_bytes(static_cast<Segment>(s));
    }
    l.total_bytes = end;
    return l;
  }

  static constexpr bool valid_W(uint64_t W) { return W >= kMinW && W <= kMaxW && (W & (W - 1)) == 0; }
  static constexpr PoolCounts mirror_capacity(uint64_t W) {
    return PoolCounts{kTensorsPerTask * W, kScalarsPerTask * W, kFaninPerTask * W};
  }
  // Mirror for window W (valid_W(W) is the caller's precondition; the formula holds for any
  // W): 128 + 2785 W bytes for W >= 64.
  static constexpr MirrorLayout mirror(uint64_t W) {
    return MirrorLayout{plan(W, mirror_capacity(W)), sizeof(TaskPayload)};
  }
  static constexpr bool mirror_fits_int32(uint64_t W) {
    return mirror(W).seg.total_bytes <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
  }
  // Image of n submitted tasks: pitch max(n, 1), pool counts = the cursors.
  static constexpr SegmentLayout image(uint64_t n, PoolCounts cursors) { return plan(n == 0 ? 1 : n, cursors); }
};

static_assert(LayoutPlanner::mirror(16384).seg.total_bytes == 45'629'568);
static_assert(LayoutPlanner::mirror(64).seg.total_bytes == 128 + 2785 * 64);
static_assert(LayoutPlanner::mirror_fits_int32(LayoutPlanner::kMaxConfigW));
static_assert(!LayoutPlanner::mirror_fits_int32(LayoutPlanner::kMaxConfigW * 2));

}  // namespace stackcheck::runtime
