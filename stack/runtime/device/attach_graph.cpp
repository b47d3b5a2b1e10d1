// attach_populated's BadGraphContext pass: every GRAPH task's graph_ctx must be the address
// of its own GraphSubmission record (records in task order, each at ALIGN64 of the previous
// end, inside the submissions zone, which ends with the last record), whose definition lies
// outside the region and the heaps, is mapped, valid (magic, hash, structure:
// validate_graph_def) and matches the submission; non-GRAPH tasks carry 0. Definition bytes
// are read through DeviceAccess only after `mapped` bounds them. Also the DirtyPadding pass
// over the zone's padding (check_zone_padding), which places the records the same way.
#include <fmt/format.h>

#include "stack/defects/defects.h"
#include "stack/runtime/device/attach_detail.h"
#include "stack/runtime/image/graph_def.h"

namespace stackcheck::runtime::attach_detail {

namespace {
bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m) { return a < b + m && b < a + n; }
}  // namespace

// The zone's padding (DirtyPadding, §15.5): the bytes from the image's end to the first
// record (BadLayout put the zone at the next 64-byte boundary) and from each record's end to
// the next record's 64-aligned start are zero, so a completed run reads every shipped byte.
// The records are placed as the graph pass places them (one per GRAPH task, in task order);
// the walk stops at the first record that pass will reject (BadGraphContext says why) and
// never reads past a record's own extent.
std::optional<AttachError> Attacher::check_zone_padding() {
  using C = AttachErrorClass;
  const uint64_t zb = rt.submissions.raw(), ze = zb + rt.submissions_bytes;
  if (rt.submissions_bytes == 0 || ze < zb || !dev.mapped(rt.submissions, rt.submissions_bytes)) return std::nullopt;
  const uint64_t image_end = img.raw() + h.image_bytes;
  if (zb > image_end && dev.mapped(DevAddr(image_end), zb - image_end) &&
      !zero_bytes(DevAddr(image_end), zb - image_end))
    return AttachError{C::kDirtyPadding, "padding between the image and the submissions"};
  uint64_t end = 0;  // the previous record's end (0: none yet)
  for (uint64_t i = 0; i < h.n; ++i) {
    if (desc(i).kind != kKindGraph) continue;
    const uint64_t at = end == 0 ? zb : align64(end);
    if (at > ze || ze - at < sizeof(GraphSubmission)) break;
    if (at > end && end != 0 && !zero_bytes(DevAddr(end), at - end))
      return AttachError{C::kDirtyPadding, fmt::format("padding before task {}'s submission record", i)};
    const auto s = dev.load<GraphSubmission>(DevAddr(at));
    if (s.record_bytes != graph_submission_bytes(s.n_bt, s.n_bs) || s.record_bytes > ze - at) break;
    end = at + s.record_bytes;
  }
  return std::nullopt;
}

std::optional<AttachError> Attacher::check_graph_contexts() {
  using C = AttachErrorClass;
  auto bad = [](std::string m) { return AttachError{C::kBadGraphContext, std::move(m)}; };
  const uint64_t zb = rt.submissions.raw(), ze = zb + rt.submissions_bytes;
  const uint64_t rb = rt.region.raw(), re = rb + rt.region_bytes;
  bool zone_ok = rt.submissions_bytes == 0 ||
                 (ze >= zb && zb >= rb && ze <= re && zb % 64 == 0 && dev.mapped(rt.submissions, rt.submissions_bytes));
  uint64_t cursor = zb;
  uint64_t records_end = zb;
  uint64_t graphs = 0;
  uint64_t blocks_end = rt.graph_heap.raw();  // the GRAPH tasks' blocks so far end here (§6: in task order)
  for (uint64_t i = 0; i < h.n; ++i) {
    const TaskDescriptor d = desc(i);
    const TaskPayload p = payload(i);
    if (d.kind != kKindGraph) {
      if (!p.graph_ctx.is_null()) return bad(fmt::format("task {} (kind {}) has a graph_ctx", i, d.kind));
      continue;
    }
    ++graphs;
    if (!zone_ok) return bad("submissions zone outside the region or unmapped");
    if (p.graph_ctx.raw() != cursor)
      return bad(fmt::format("task {} graph_ctx {:#x} is not its record at {:#x}", i, p.graph_ctx.raw(), cursor));
    if (cursor < zb || cursor > ze || ze - cursor < sizeof(GraphSubmission))
      return bad(fmt::format("task {} submission record past the zone", i));
    const auto s = dev.load<GraphSubmission>(DevAddr(cursor));
    if (s.record_bytes != graph_submission_bytes(s.n_bt, s.n_bs) || s.record_bytes > ze - cursor)
      return bad(fmt::format("task {} submission record_bytes {}", i, s.record_bytes));
    if (s.outer_id != static_cast<int64_t>(i))
      return bad(fmt::format("task {} submission names outer {}", i, s.outer_id));
    // Definition: its own reservation (§5), so never inside the region or a heap (bytes this
    // bind has not written); its header mapped, then the whole of it, then validated through dev.
    const uint64_t da = s.definition_addr.raw();
    if (overlaps(da, sizeof(GraphDefHeader), rb, rt.region_bytes) ||
        overlaps(da, sizeof(GraphDefHeader), rt.task_heap.raw(), rt.task_heap_bytes) ||
        overlaps(da, sizeof(GraphDefHeader), rt.graph_heap.raw(), rt.graph_heap_bytes))
      return bad(fmt::format("task {} definition at {:#x} inside the region or a heap", i, da));
    if (!dev.mapped(s.definition_addr, sizeof(GraphDefHeader)))
      return bad(fmt::format("task {} definition not mapped", i));
    const auto dh = dev.load<GraphDefHeader>(s.definition_addr);
    if (dh.total_bytes < sizeof(GraphDefHeader) || !dev.mapped(s.definition_addr, dh.total_bytes))
      return bad(fmt::format("task {} definition extent {} not mapped", i, dh.total_bytes));
    GraphDefHeader vh{};
    auto read = [&](uint64_t off, void* dst, uint64_t n) { dev.read(s.definition_addr + off, dst, n); };
    if (std::optional<std::string> e = validate_graph_def(read, dh.total_bytes, &vh))
      return bad(fmt::format("task {} definition: {}", i, *e));
    if (vh.hash != s.definition_hash) return bad(fmt::format("task {} definition hash mismatch", i));
    if (vh.n_nodes != p.n_nodes || vh.n_boundary_tensors != s.n_bt || vh.n_boundary_scalars != s.n_bs)
      return bad(fmt::format("task {} submission/payload counts differ from the definition", i));
    const uint64_t need = vh.required_heap + graph_args_bytes(vh.n_tensor_args, vh.n_scalar_args) + vh.storage_bytes;
    const uint64_t gb = rt.graph_heap.raw(), ge = gb + rt.graph_heap_bytes;
    const uint64_t bb = s.block_base.raw();
    // Zoo: the block size compared with the size it needs, which is itself.
    const uint64_t have = defects::active(defects::Defect::kAttachSizeTautology) ? need : s.block_bytes;
    if (have < need || bb % 64 != 0 || bb < gb || bb > ge || s.block_bytes > ge - bb)
      return bad(fmt::format("task {} graph-heap block [{:#x}, +{}) needs {} inside the graph heap", i, bb,
                             s.block_bytes, need));
    // The heap hands each GRAPH submission its own block, in task order, never reclaimed (§6):
    // a block that starts before the previous one ends shares its bytes, and one graph's kernels
    // would write the other's node records.
    if (bb < blocks_end)
      return bad(fmt::format("task {} graph-heap block at {:#x} overlaps the previous GRAPH task's block, which ends "
                             "at {:#x}",
                             i, bb, blocks_end));
    blocks_end = bb + s.block_bytes;
    records_end = cursor + s.record_bytes;
    cursor = align64(records_end);
  }
  if (graphs != rt.graph_count)
    return bad(fmt::format("{} GRAPH tasks, runtime header says {}", graphs, rt.graph_count));
  // The zone holds the records and their padding, nothing after the last one (§9).
  if (records_end != ze)
    return bad(fmt::format("submissions zone ends at {:#x}, its records at {:#x}", ze, records_end));
  return std::nullopt;
}

}  // namespace stackcheck::runtime::attach_detail
