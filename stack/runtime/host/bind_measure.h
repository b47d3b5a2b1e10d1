// The measured figures of one bind (RUNTIME.md §14, §15.4/5/7): what DeviceMemory observed,
// read from its ledgers, its read bits and the shipped bytes, never from what the bind code
// believes it did, so an oracle reading BindStats sees a second copy or a stray reservation
// if one happens. This is the one place those figures are derived:
//   host-copy ledger (this bind's entries made through this Runtime's HostLink):
//     into an `entry:*` reservation -> tensor_h2d; into a `graph_def:*` one -> def_h2d;
//     every other host->device copy -> h2d, its bytes adding to shipped (so an unexpected
//     copy shows as one image copy too many); every device->host copy -> d2h.
//   reservation ledger (this link's live reservations): task_heap, graph_heap, entry:*,
//     graph_def:* (bytes, and their count as defs); the region splits at the last copy into
//     it: device_only = bytes before that copy's destination, copied = the rest.
//   shipped bytes (the RuntimeHeader at the destination of the last copy into the region,
//     as the device reads it): reserved image and submissions; for this bind's own image
//     copy also `image`.
//   read bits: read over this bind's last image copy, image_read over the image it names.
// The remaining figures (tasks, nodes, inlined, mirror, heap high-waters, graph-internal
// heap) are host bookkeeping the bind fills itself; see bind_stats.h.
#pragma once

#include <cstdint>

#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/status/bind_stats.h"

namespace stackcheck::runtime {

// Sets h2d, def_h2d, tensor_h2d, d2h, shipped, read, image, image_read, defs and reserved
// from `mem`'s ledgers: copies from index `first_copy` on, reservations, both filtered by
// `link`. Every other field of `st` is left as it is.
void measure_bind(const DeviceMemory& mem, HostLinkId link, uint64_t first_copy, BindStats& st);

}  // namespace stackcheck::runtime
