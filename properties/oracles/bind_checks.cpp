#include "properties/oracles/bind_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::oracles {

using namespace runtime;

Verdict bind_status_verdict(const BindResult& r) {
  const int32_t code = status_to_code(r.status).value_or(r.status);
  if (is_resource_latch_status(r.status))
    return Verdict::inconclusive(Inconclusive::kResourceLatch, status_line(r), code);
  if (r.status == kStatusUnsupported)
    return Verdict::inconclusive(Inconclusive::kUnsupported, fmt::format("{} ({})", status_line(r), r.detail));
  return Verdict::inconclusive(Inconclusive::kRuntimeRefused, fmt::format("{} ({})", status_line(r), r.detail), code);
}

Verdict check_copies(const BindStats& s, uint64_t definitions, uint64_t entry_tensors) {
  if (s.h2d != 1) return Verdict::fail("one-copy", fmt::format("a successful bind made {} image copies", s.h2d));
  if (s.def_h2d != definitions)
    return Verdict::fail("def-copies", fmt::format("def_h2d={} for {} new definitions", s.def_h2d, definitions));
  if (s.tensor_h2d != entry_tensors)
    return Verdict::fail("entry-copies",
                         fmt::format("tensor_h2d={} for {} entry tensors", s.tensor_h2d, entry_tensors));
  return Verdict::pass();
}

Verdict check_image_read(const BindStats& s, uint64_t image_bytes) {
  if (s.image != image_bytes || s.image_read != s.image)
    return Verdict::fail(
        "image-read", fmt::format("read {} of {} image bytes (the copy held {})", s.image_read, s.image, image_bytes));
  return Verdict::pass();
}

Verdict check_latch_uploads_nothing(const Captured& c) {
  const BindStats& s = c.result.stats;
  if (s.h2d != 0 || s.def_h2d != 0 || s.d2h != 0 || s.shipped != 0 || s.reserved.copied != 0 || !c.staged.empty())
    return Verdict::fail("latch-uploads", fmt::format("latched, yet h2d={} def_h2d={} d2h={} shipped={} copied-zone={}",
                                                      s.h2d, s.def_h2d, s.d2h, s.shipped, s.reserved.copied));
  return Verdict::pass();
}

Compactor runtime_compactor() {
  return [](std::span<const std::byte> mirror, const MirrorLayout& L, const PoolCounts& cur, uint32_t n,
            std::span<std::byte> out) { return compact_live_image(mirror, L, cur, n, out).has_value(); };
}

Verdict check_compaction_live_prefix(const Compactor& compact, std::span<const std::byte> mirror, const MirrorLayout& L,
                                     const PoolCounts& cur, uint32_t n, std::span<const std::byte> shipped) {
  std::vector<std::pair<uint64_t, uint64_t>> live = {{0, sizeof(ImageHeader)},
                                                     {L.seg.off[kSegDesc], n * sizeof(TaskDescriptor)},
                                                     {L.seg.off[kSegPayload], n * L.payload_stride},
                                                     {L.seg.off[kSegSlot], n * sizeof(SlotState)},
                                                     {L.seg.off[kSegFlag], n},
                                                     {L.seg.off[kSegTensor], cur.tensors * sizeof(TensorArg)},
                                                     {L.seg.off[kSegScalar], cur.scalars * 8},
                                                     {L.seg.off[kSegFanin], cur.fanin * 4}};
  std::sort(live.begin(), live.end());
  std::vector<std::byte> scrambled(mirror.begin(), mirror.end());
  uint64_t at = 0, changed = 0;
  auto invert = [&](uint64_t from, uint64_t to) {
    for (uint64_t k = from; k < to && k < scrambled.size(); ++k, ++changed) scrambled[k] = ~scrambled[k];
  };
  for (const auto& [off, len] : live) {
    if (off > at) invert(at, off);
    at = std::max(at, off + len);
  }
  invert(at, scrambled.size());
  std::vector<std::byte> a(shipped.size()), s(shipped.size());
  if (!compact(mirror, L, cur, n, a) || !compact(scrambled, L, cur, n, s))
    return Verdict::fail("compaction", "a valid mirror was refused");
  if (a != s)
    return Verdict::fail("compaction-live-prefix",
                         fmt::format("inverting the {} bytes outside the live prefix changed the image", changed));
  if (!std::equal(a.begin(), a.end(), shipped.begin(), shipped.end()))
    return Verdict::fail("compaction", "compacting the mirror again does not give the shipped image");
  return Verdict::pass();
}

Verdict check_graph_storage(const Captured& c, DeviceMemory& mem, uint32_t* submissions) {
  if (c.staged.size() < sizeof(RuntimeHeader)) return Verdict::fail("storage-span", "nothing was shipped");
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  if (submissions) *submissions = rh.graph_count;
  if (rh.graph_count == 0) return Verdict::pass();
  uint64_t off = rh.submissions - c.destination;
  uint64_t previous_end = 0;
  for (uint32_t k = 0; k < rh.graph_count; ++k) {
    if (off + sizeof(GraphSubmission) > c.staged.size())
      return Verdict::fail("storage-span", fmt::format("submission {} lies past the shipped bytes", k));
    GraphSubmission sub;
    std::memcpy(&sub, c.staged.data() + off, sizeof sub);
    GraphDefHeader h;
    mem.inspect(sub.definition_addr, &h, sizeof h);
    const uint64_t storage = graph_storage_bytes(h.n_nodes);
    const uint64_t want = h.required_heap + graph_args_bytes(h.n_tensor_args, h.n_scalar_args) + storage;
    if (h.storage_bytes != storage || sub.block_bytes != want)
      return Verdict::fail("storage-span",
                           fmt::format("submission {}: block {} B with storage {} B; expected {} and {}", k,
                                       sub.block_bytes, h.storage_bytes, want, storage));
    // The scheduler wrote its GraphExecution where the span starts: it placed the storage
    // where the shipped figures say.
    GraphExecution ex;
    mem.inspect(sub.block_base + (sub.block_bytes - storage), &ex, sizeof ex);
    if (ex.magic != kGraphExecutionMagic || ex.n != h.n_nodes || ex.outer != sub.outer_id)
      return Verdict::fail("storage-span", fmt::format("submission {}: no GraphExecution of task {} ({} nodes) at the "
                                                       "span's start",
                                                       k, sub.outer_id, h.n_nodes));
    if (k > 0 && sub.block_base.raw() < previous_end)
      return Verdict::fail("storage-span", fmt::format("submission {}: its block overlaps the previous one", k));
    previous_end = sub.block_base.raw() + sub.block_bytes;
    off = align64(off + sub.record_bytes);
  }
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
