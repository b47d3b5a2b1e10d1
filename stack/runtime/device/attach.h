// attach_populated: the device's admission check of an uploaded image (RUNTIME.md §11).
// Given only a DeviceAccess and the DevAddr of the RuntimeHeader, it validates the image in
// the §11 class order and returns a DevImageView (addresses the scheduler needs) or the first
// AttachError. It resets nothing and writes nothing. It reads every header, descriptor,
// payload, slot and padding byte (the submissions zone's included), every scalar pad entry
// and every submission record's header through DeviceAccess (records by value via load<T>);
// it never reads flags, live pool entries or boundary args (the scheduler does), so a
// completed run reads exactly the shipped bytes (RUNTIME.md §15.5).
// Wall: this unit sees device memory only; it includes nothing from host/ or image/compact.h.
#pragma once

#include <cstdint>
#include <string>

#include "stack/runtime/devmem/device_access.h"
#include "stack/runtime/image/layout.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/status/expected.h"

namespace stackcheck::runtime {

enum class AttachErrorClass : uint8_t {
  kBadMagic,         // RuntimeHeader or ImageHeader magic/version
  kBadPitch,         // W invalid or != RuntimeHeader.W; pitch not in (0, W]; pitch != max(n,1)
  kTruncated,        // the ImageHeader's image_bytes < flag segment end
  kTooLarge,         // the ImageHeader's image_bytes > INT32_MAX or past the region, the
                     // region not mapped (whatever the RuntimeHeader says); device-only
                     // zone too small for SchedControl + Q ring entries
  kBadLayout,        // the image not right after the RuntimeHeader (checked before the image
                     // header is read), segment offsets != the planner's, image longer than
                     // planned, the RuntimeHeader's and the ImageHeader's image_bytes disagree,
                     // or the submissions not at the next 64-byte boundary after the image
  kPoolOutOfImage,   // a pool extent past image_bytes
  kDeltaOutOfImage,  // a bound delta (or a live slot's unbound delta) outside the image or
                     // its segment
  kDeltaMisaligned,  // slot delta to another index; pool delta off-element, scalar region
                     // not 8-aligned, or region past the pool count
  kCountMismatch,    // bound <=> count>0; kind not 1..3; n_nodes/kernel id/task id wrong for
                     // the task; slot state/fanin_cursor; pool counts != sum of regions
  kDirtyPadding,     // nonzero padding (the image's, or the submissions zone's: after the
                     // image and between records), reserved field, scalar pad entry,
                     // device-owned wake field, or unused n=0 slot
  kBadGraphContext,  // graph_ctx not at its submission record; submission or definition bad
                     // (or inside the region or a heap); the zone longer than its records
  kLatchedError,     // a nonzero error word, or orch_done != 1
};
const char* attach_error_name(AttachErrorClass c);  // "BadMagic", ...

struct AttachError {
  AttachErrorClass cls;
  std::string message;
};

// Everything the scheduler needs, as device addresses (no host pointers).
struct DevImageView {
  DevAddr runtime_header;
  RuntimeHeader rt;  // by value
  DevAddr image;     // ImageHeader at image + 0
  uint32_t W = 0;
  uint32_t n = 0;
  SegmentLayout layout;  // pitch, counts (= header pool counts), offsets, total_bytes

  DevAddr desc(uint64_t i) const { return image + layout.desc_at(i); }
  DevAddr payload(uint64_t i) const { return image + layout.payload_at(i); }
  DevAddr slot(uint64_t i) const { return image + layout.slot_at(i); }
  DevAddr flag(uint64_t i) const { return image + layout.flag_at(i); }
  DevAddr tensor(uint64_t k) const { return image + layout.tensor_at(k); }
  DevAddr scalar(uint64_t k) const { return image + layout.scalar_at(k); }
  DevAddr fanin(uint64_t k) const { return image + layout.fanin_at(k); }
  DevAddr header_field(uint64_t off) const { return image + off; }  // e.g. sched_error
};

Expected<DevImageView, AttachError> attach_populated(DeviceAccess& dev, DevAddr runtime_header);

}  // namespace stackcheck::runtime
