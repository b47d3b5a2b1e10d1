// BindStats: the counters of one bind (RUNTIME.md §14), one field per key of the stats line.
// Invariant: to_line() prints every key, in the §14 order, integers in decimal; `ratio` is
// derived from read/shipped (3 decimals, or "n/a" when nothing was shipped) so it can never
// disagree with them. Pure data. Two sources fill it:
// - MEASURED (host/bind_measure.h, from DeviceMemory's ledgers, read bits and the shipped
//   bytes): h2d, def_h2d, tensor_h2d, d2h, shipped, read, image, image_read, defs, reserved.
//   These are what oracles check; the bind code never assigns them.
// - HOST BOOKKEEPING (the orchestrator's own counts, nothing on the device to read them
//   from): tasks, nodes, inlined, mirror, task_heap_high_water, graph_heap_high_water,
//   graph_internal_heap.
#pragma once

#include <cstdint>
#include <string>

namespace stackcheck::runtime {

// Bytes reserved per reservation class at the end of the bind (the "reserved=(...)" group;
// the line keeps the short keys dev, cp, img, sub, th, gh, def, ent).
struct ReservedBytes {
  uint64_t device_only = 0;  // dev: device-only zone (SchedControl + ready ring) of the region
  uint64_t copied = 0;       // cp: the rest of the region (RuntimeHeader + image + submissions)
  uint64_t image = 0;        // img: image part of the copied zone
  uint64_t submissions = 0;  // sub: submissions part of the copied zone
  uint64_t task_heap = 0;    // th: task heap reservation
  uint64_t graph_heap = 0;   // gh: graph heap reservation
  uint64_t definitions = 0;  // def: all graph-definition reservations
  uint64_t entries = 0;      // ent: all entry-tensor reservations
  bool operator==(const ReservedBytes&) const = default;
};

struct BindStats {
  uint64_t tasks = 0;                  // submitted tasks n
  uint64_t nodes = 0;                  // graph nodes over all GRAPH submissions
  uint64_t defs = 0;                   // graph definitions resident after the bind
  uint64_t inlined = 0;                // graph submissions run inline (graphs_inlined, cache full)
  uint64_t h2d = 0;                    // image copies: 1, or 0 if refused
  uint64_t def_h2d = 0;                // definition uploads in this bind
  uint64_t tensor_h2d = 0;             // entry-tensor uploads
  uint64_t d2h = 0;                    // error-word readback + entry InOut readbacks
  uint64_t shipped = 0;                // bytes of the h2d copies ([RuntimeHeader][image][submissions])
  uint64_t read = 0;                   // distinct device-read bytes in the shipped range
  uint64_t image = 0;                  // image_bytes
  uint64_t image_read = 0;             // distinct device-read bytes of the image
  uint64_t mirror = 0;                 // mirror bytes (128 + 2785 W for W >= 64)
  uint64_t task_heap_high_water = 0;   // task_hw: task-heap high-water bytes
  uint64_t graph_heap_high_water = 0;  // graph_hw: graph-heap high-water bytes
  uint64_t graph_internal_heap = 0;    // gint: sum of required_heap over graph submissions
  ReservedBytes reserved;

  // "1.000" style (3 decimals) or "n/a" when shipped == 0.
  std::string ratio_text() const;

  // "bind tasks=.. nodes=.. defs=.. inlined=.. h2d=.. def_h2d=.. tensor_h2d=.. d2h=..
  //  shipped=.. read=.. ratio=.. image=.. image_read=.. mirror=.. task_hw=.. graph_hw=..
  //  gint=.. reserved=(dev=..,cp=..,img=..,sub=..,th=..,gh=..,def=..,ent=..)" on one line,
  // no trailing newline.
  std::string to_line() const;

  bool operator==(const BindStats&) const = default;
};

}  // namespace stackcheck::runtime
