// compact_live_image: the host-side compaction of a mirror into a shippable image
// (RUNTIME.md §10). HOST ONLY: device/ must not include this header (a wall test checks).
// Invariants:
// - Every precondition is checked before any byte of the mirror is read, each with its own
//   error, and nothing outside [0, n) records and [0, cursor) pool entries is read.
// - The image has pitch max(n, 1), pool counts = cursors, size = LayoutPlanner::image(...)
//   exactly (a difference is a broken invariant, STACK_CHECK), all padding zero, and the
//   header re-derived (magic, version, W, pitch, n, counts, offsets, image_bytes; orch_done
//   and the error words are copied from the mirror header).
// - Deltas are re-taken by index: slot i -> desc[i] / payload[i]; a pool delta becomes the
//   same element index in the image pool (aligned, and a scalar region on 8 entries, and in
//   [0, cursor)); unbound stays unbound. Compaction of the same live state is byte-identical
//   whatever the mirror held before (poison, earlier runs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "stack/runtime/image/layout.h"
#include "stack/runtime/status/expected.h"

namespace stackcheck::runtime {

enum class CompactErrorKind : uint8_t {
  kNGreaterThanW,       // n > W
  kCursorOverCapacity,  // a pool cursor above the mirror capacity
  kPayloadStride,       // layout.payload_stride != sizeof(TaskPayload) (only > is unsafe;
                        // a shorter stride would ship unwritten payload tails)
  kMirrorLayout,        // layout differs from LayoutPlanner::mirror(W), or the mirror span
                        // is shorter than the layout
  kOutSize,             // out.size() != LayoutPlanner::image(n, cursors).total_bytes
  kBadPoolRef,          // a bound pool delta outside its pool, off-element, a scalar region
                        // not on 8 entries, or its region past the cursor
};
const char* compact_error_name(CompactErrorKind k);

struct CompactError {
  CompactErrorKind kind;
  std::string message;  // human detail, e.g. "task 3 scalars delta -> entry 5 not 8-aligned"
};

// The bytes of each segment's live prefix (Segment order): [0, n) records, [0, cursor) pool
// entries; what compaction reads of the mirror besides its header.
std::array<uint64_t, kSegCount> live_segment_bytes(PoolCounts cursors, uint64_t n);

// Returns the number of bytes written (== out.size()).
Expected<size_t, CompactError> compact_live_image(std::span<const std::byte> mirror, const MirrorLayout& layout,
                                                  PoolCounts cursors, uint64_t n, std::span<std::byte> out);

}  // namespace stackcheck::runtime
