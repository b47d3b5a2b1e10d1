// Structural checks of one bind (RUNTIME.md §15.2, §15.4, §15.5, §15.7, §15.8), over what a
// Bench captured: the shipped bytes, the copy ledger behind BindStats, the Runtime's mirror
// and device memory after the run. Shared by the runtime properties and the fuzz targets;
// each returns a Verdict naming the invariant it checks.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "properties/oracles/image_checks.h"
#include "properties/oracles/oracle.h"
#include "stack/runtime/image/compact.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

// What an oracle that needs a completed bind says of one that did not complete (status != 0):
// inconclusive, a resource latch with its code, -2 unsupported, else runtime-refused with
// the code (or the status). Oracles that judge statuses themselves do not use it.
Verdict bind_status_verdict(const runtime::BindResult& r);

// §15.4: a successful bind made exactly one image copy, `definitions` definition copies and
// one upload per entry tensor; and (§10) one read-back of the error words plus one per entry
// InOut tensor (an In tensor is never read back).
Verdict check_copies(const runtime::BindStats& s, uint64_t definitions,
                     std::span<const runtime::EntryTensor> entries);

// Reservations predicted from the plan alone (RUNTIME.md §4 defaults, §10, §14), not from what
// the device memory holds: reserved.th and reserved.gh are the config's task_heap and
// graph_heap (256 MiB and 64 MiB when the plan sets none), reserved.ent is 4 bytes per element
// of every entry tensor. For a bind that reached step 1 (completed or latched).
Verdict check_reserved_from_plan(const runtime::OrchProgram& p, const runtime::BindStats& s);

// §15.5: a completed run read every shipped byte (the runtime header, the image, the
// submissions zone with its padding), measured by the machinery that observes them: the
// copies this bind made to the staged bytes' destination (`mem`'s copy ledger from
// c.first_copy) cover exactly the staged bytes, and every one of those bytes has its read bit
// set in `mem`. BindStats' shipped, read, image and image_read must report the same figures.
// Fails "image-read" naming the first unread byte and where it lies, or "bind-stats".
Verdict check_image_read(const Captured& c, const runtime::DeviceMemory& mem);

// §14: the stats line prints each field under its own key, and the figures a completed
// bind's device memory and shipped bytes determine are the ones reported: the heaps'
// reservations (found from the shipped RuntimeHeader's addresses), the image and submissions
// sizes (its header), the live entry and definition reservations, the region split at the
// upload's destination (device-only below, copied from it on), and the mirror (128 + 2785 W).
// check_image_read ends with it. Fails "bind-stats" naming the figure.
Verdict check_stats_observed(const Captured& c, const runtime::DeviceMemory& mem);
// The first part alone: `line` (BindStats::to_line's) holds every field of `s` under its key.
Verdict check_stats_line(const runtime::BindStats& s, const std::string& line);

// §11/§12, corrupt images: a bind that got past attach (completed, or stopped by a builtin
// fault or a scheduler code) followed every graph submission record of the bytes as shipped,
// so each record's graph-heap block must hold what its definition needs, derived here from
// RUNTIME.md §12 ([required_heap][args: 64 T + 8 K][GraphExecution 32][nodes: 128 (n-1) + 104],
// the definition read from device memory), 64-aligned inside the runtime header's graph heap.
// Passes when attach rejected the image (there is nothing it vouched for).
Verdict check_accepted_graph_blocks(const Captured& c, const runtime::DeviceMemory& mem);

// §13 and §14, what a user reads of any bind, completed or not:
// - the status is one §13 allows (0, -1, -2, -(1000+code) for a listed code; never -3), and
//   status_line() is predicted from it with this oracle's own table of §13's names:
//   "status=0 OK", "status=-2 UNSUPPORTED", "status=S NAME", "status=-1 GENERIC <detail>";
// - every nonzero status carries a detail (bind.h: "why, for every nonzero status");
// - the stats line holds every field under its key (check_stats_line), and h2d and shipped
//   are the copies to the upload's destination in `mem`'s copy ledger since the bind began
//   (no upload staged: none).
// Fails "bind-report" (or "bind-stats" from the line).
Verdict check_bind_report(const Captured& c, const runtime::DeviceMemory& mem);

// §15.7: a latched bind copied nothing (image, definitions, readbacks), shipped nothing and
// reserved no region.
Verdict check_latch_uploads_nothing(const Captured& c);

// §15.2: compacting `mirror` with every byte outside the live prefix ([0, n) records,
// [0, cursor) pool entries, the header) set to 0x00, and again to 0xFF (each such byte
// changes under one of the two), gives the same image, and that image is `shipped`.
// `compact` is the compaction under test (runtime::compact_live_image). Only the live prefix
// of `mirror` is read by the check itself (Runtime::mirror_live() is enough).
using Compactor = std::function<bool(std::span<const std::byte> mirror, const runtime::MirrorLayout&,
                                     const runtime::PoolCounts&, uint32_t n, std::span<std::byte> out)>;
Compactor runtime_compactor();
Verdict check_compaction_live_prefix(const Compactor& compact, std::span<const std::byte> mirror,
                                     const runtime::MirrorLayout& layout, const runtime::PoolCounts& cursors,
                                     uint32_t n, std::span<const std::byte> shipped);

// §15.8: each definition's storage figure is 32+128(n-1)+104 (the last entry's full object,
// not stride x n), each submission's block is [required_heap][args][storage] exactly, the
// scheduler's GraphExecution sits where that places the span, and blocks never overlap.
// Reads definitions and blocks with `mem` (after the run).
Verdict check_graph_storage(const Captured& c, runtime::DeviceMemory& mem, uint32_t* submissions = nullptr);

}  // namespace stackcheck::oracles
