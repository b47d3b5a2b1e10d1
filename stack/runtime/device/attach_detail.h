// Internal to attach (not a public header): the per-class passes of attach_populated,
// split over attach.cpp (image checks) and attach_graph.cpp (graph contexts).
// Invariant: each pass returns the first problem of its class, and passes run in the
// RUNTIME.md §11 order; after check_headers succeeds every image byte is mapped.
#pragma once

#include <optional>
#include <string>

#include "stack/runtime/device/attach.h"

namespace stackcheck::runtime::attach_detail {

struct Attacher {
  DeviceAccess& dev;
  DevAddr rt_addr;
  RuntimeHeader rt{};
  ImageHeader h{};
  DevAddr img{};
  SegmentLayout L{};

  TaskDescriptor desc(uint64_t i);
  TaskPayload payload(uint64_t i);
  SlotState slot(uint64_t i);
  bool zero_bytes(DevAddr a, uint64_t n);  // reads [a, a+n) through dev
  std::optional<uint64_t> target_in(uint64_t field, int32_t d, Segment s, uint64_t elem) const;

  // BadMagic, BadPitch, Truncated, TooLarge, BadLayout, PoolOutOfImage
  std::optional<AttachError> check_headers();
  std::optional<AttachError> check_deltas_in_image();  // DeltaOutOfImage
  std::optional<AttachError> check_deltas_aligned();   // DeltaMisaligned
  std::optional<AttachError> check_counts();           // CountMismatch
  std::optional<AttachError> check_padding();          // DirtyPadding
  std::optional<AttachError> check_zone_padding();     // DirtyPadding of the submissions zone
  std::optional<AttachError> check_graph_contexts();   // BadGraphContext
  std::optional<AttachError> check_latched();          // LatchedError
};

}  // namespace stackcheck::runtime::attach_detail
