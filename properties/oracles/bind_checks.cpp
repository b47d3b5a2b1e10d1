#include "properties/oracles/bind_checks.h"
#include "properties/oracles/status_codes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "stack/runtime/image/compact.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

namespace stackcheck::oracles {

using namespace runtime;

Verdict bind_status_verdict(const BindResult& r) {
  const int32_t code = latch_code(r.status).value_or(r.status);
  if (config_bound_status(r.status))
    return Verdict::inconclusive(Inconclusive::kResourceLatch, status_line(r), code);
  if (r.status == kStatusUnsupported)
    return Verdict::inconclusive(Inconclusive::kUnsupported, fmt::format("{} ({})", status_line(r), r.detail));
  return Verdict::inconclusive(Inconclusive::kRuntimeRefused, fmt::format("{} ({})", status_line(r), r.detail), code);
}

Verdict check_copies(const BindStats& s, uint64_t definitions, std::span<const runtime::EntryTensor> entries) {
  if (s.h2d != 1) return Verdict::fail("one-copy", fmt::format("a successful bind made {} image copies", s.h2d));
  if (s.def_h2d != definitions)
    return Verdict::fail("def-copies", fmt::format("def_h2d={} for {} new definitions", s.def_h2d, definitions));
  if (s.tensor_h2d != entries.size())
    return Verdict::fail("entry-copies",
                         fmt::format("tensor_h2d={} for {} entry tensors", s.tensor_h2d, entries.size()));
  const auto inout = static_cast<uint64_t>(std::count_if(entries.begin(), entries.end(), [](const auto& e) { return e.inout; }));
  if (s.d2h != 1 + inout)
    return Verdict::fail("read-backs", fmt::format("d2h={} for the error words and {} entry InOut tensors", s.d2h, inout));
  return Verdict::pass();
}

Verdict check_reserved_from_plan(const runtime::OrchProgram& p, const BindStats& s) {
  uint64_t task_heap = 256ull << 20, graph_heap = 64ull << 20, entries = 0;  // RUNTIME.md's defaults
  for (const runtime::ConfigEntry& e : p.config) {
    if (e.key == "task_heap") task_heap = static_cast<uint64_t>(e.value);
    if (e.key == "graph_heap") graph_heap = static_cast<uint64_t>(e.value);
  }
  for (const runtime::EntryTensor& t : p.tensors) {
    uint64_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<uint64_t>(d);
    entries += 4 * elements;
  }
  const std::pair<const char*, std::pair<uint64_t, uint64_t>> figures[] = {
      {"reserved.th (the config's task_heap)", {s.reserved.task_heap, task_heap}},
      {"reserved.gh (the config's graph_heap)", {s.reserved.graph_heap, graph_heap}},
      {"reserved.ent (4 bytes per entry element)", {s.reserved.entries, entries}}};
  for (const auto& [name, v] : figures)
    if (v.first != v.second)
      return Verdict::fail("reserved-from-plan", fmt::format("BindStats say {} = {}; the plan gives {}", name, v.first,
                                                             v.second));
  return Verdict::pass();
}

namespace {

// Where byte `off` of [RuntimeHeader][image][pad][submissions] lies.
std::string shipped_place(const Captured& c, uint64_t off) {
  if (off < c.image_offset) return fmt::format("runtime header +{}", off);
  if (off < c.image_offset + c.image_bytes) return fmt::format("image +{}", off - c.image_offset);
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  const uint64_t zone = rh.submissions.raw() - c.destination.raw();
  if (rh.submissions.is_null() || off < zone) return fmt::format("padding after the image +{}", off - c.image_offset);
  return fmt::format("submissions zone +{}", off - zone);
}

}  // namespace

Verdict check_image_read(const Captured& c, const DeviceMemory& mem) {
  const uint64_t shipped = c.staged.size();
  if (shipped < sizeof(RuntimeHeader) || c.image_offset + c.image_bytes > shipped)
    return Verdict::fail("image-read", fmt::format("no whole upload was captured ({} bytes)", shipped));
  const uint64_t at = c.destination.raw();
  // The copies into [at, at + shipped), from the ledger: together they must cover it.
  std::vector<std::pair<uint64_t, uint64_t>> copies;
  for (const HostCopy& h : mem.host_copies(c.first_copy))
    if (h.direction == CopyDirection::kToDevice && h.device.raw() >= at && h.device.raw() - at < shipped)
      copies.emplace_back(h.device.raw() - at, h.bytes);
  std::sort(copies.begin(), copies.end());
  uint64_t covered = 0;
  for (const auto& [off, n] : copies)
    if (off <= covered) covered = std::max(covered, off + n);
  if (covered < shipped)
    return Verdict::fail("image-read", fmt::format("the copies cover {} of the {} staged bytes", covered, shipped));
  const uint64_t read = mem.bytes_read(c.destination, shipped);
  const uint64_t image_read = mem.bytes_read(c.destination + c.image_offset, c.image_bytes);
  if (read != shipped) {
    uint64_t lo = 0, hi = shipped;  // the shortest prefix holding an unread byte is [0, hi)
    while (lo + 1 < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (mem.bytes_read(c.destination, mid) < mid ? hi : lo) = mid;
    }
    return Verdict::fail("image-read",
                         fmt::format("read {} of {} shipped bytes (image: {} of {}); byte {} ({}) never read", read,
                                     shipped, image_read, c.image_bytes, hi - 1, shipped_place(c, hi - 1)));
  }
  const BindStats& s = c.result.stats;
  if (s.shipped != shipped || s.read != read || s.image != c.image_bytes || s.image_read != image_read)
    return Verdict::fail(
        "bind-stats", fmt::format("BindStats say shipped={} read={} image={} image_read={}; the device "
                                  "memory {} {} {} {}",
                                  s.shipped, s.read, s.image, s.image_read, shipped, read, c.image_bytes, image_read));
  return check_stats_observed(c, mem);
}

namespace {

// The "key=value" figures of a stats line, in order, as views of the line; the
// reserved=(k=v,...) group's keys carry "reserved" as their prefix. Text that is not a figure
// is skipped. (Every bind is judged with it: no strings made.)
struct LineFigure {
  std::string_view prefix, key, value;
  std::string name() const { return prefix.empty() ? std::string(key) : fmt::format("{}.{}", prefix, key); }
  bool named(std::string_view n) const {
    if (prefix.empty()) return n == key;
    return n.size() == prefix.size() + 1 + key.size() && n.starts_with(prefix) && n[prefix.size()] == '.' &&
           n.ends_with(key);
  }
};
std::vector<LineFigure> line_figures(std::string_view line) {
  std::vector<LineFigure> out;
  out.reserve(32);
  std::string_view prefix;
  size_t i = 0;
  while (i < line.size()) {
    const size_t eq = line.find('=', i);
    if (eq == std::string_view::npos) break;
    size_t k = eq;
    while (k > i && line[k - 1] != ' ' && line[k - 1] != ',' && line[k - 1] != '(') --k;
    const std::string_view key = line.substr(k, eq - k);
    if (eq + 1 < line.size() && line[eq + 1] == '(') {
      prefix = key;
      i = eq + 2;
      continue;
    }
    size_t e = eq + 1;
    while (e < line.size() && line[e] != ' ' && line[e] != ',' && line[e] != ')') ++e;
    out.push_back(LineFigure{prefix, key, line.substr(eq + 1, e - eq - 1)});
    if (e < line.size() && line[e] == ')') prefix = {};
    i = e + 1;
  }
  return out;
}

}  // namespace

Verdict check_stats_line(const BindStats& s, const std::string& line) {
  const std::pair<std::string_view, uint64_t> fields[] = {
      {"tasks", s.tasks}, {"nodes", s.nodes}, {"defs", s.defs}, {"inlined", s.inlined}, {"h2d", s.h2d},
      {"def_h2d", s.def_h2d}, {"tensor_h2d", s.tensor_h2d}, {"d2h", s.d2h}, {"shipped", s.shipped},
      {"read", s.read}, {"ratio", 0}, {"image", s.image}, {"image_read", s.image_read}, {"mirror", s.mirror},
      {"task_hw", s.task_heap_high_water}, {"graph_hw", s.graph_heap_high_water}, {"gint", s.graph_internal_heap},
      {"reserved.dev", s.reserved.device_only}, {"reserved.cp", s.reserved.copied}, {"reserved.img", s.reserved.image},
      {"reserved.sub", s.reserved.submissions}, {"reserved.th", s.reserved.task_heap},
      {"reserved.gh", s.reserved.graph_heap}, {"reserved.def", s.reserved.definitions},
      {"reserved.ent", s.reserved.entries}};
  const auto printed = line_figures(line);
  if (printed.size() != std::size(fields))
    return Verdict::fail("bind-stats", fmt::format("the stats line has {} figures, BindStats {}: {}", printed.size(),
                                                   std::size(fields), line));
  for (size_t i = 0; i < std::size(fields); ++i) {
    fmt::memory_buffer want;
    if (fields[i].first != "ratio")
      fmt::format_to(std::back_inserter(want), "{}", fields[i].second);
    else if (s.shipped == 0)
      fmt::format_to(std::back_inserter(want), "n/a");
    else
      fmt::format_to(std::back_inserter(want), "{:.3f}", static_cast<double>(s.read) / static_cast<double>(s.shipped));
    const std::string_view w(want.data(), want.size());
    if (!printed[i].named(fields[i].first) || printed[i].value != w)
      return Verdict::fail("bind-stats", fmt::format("the stats line's figure {} is {}={}; the field {} holds {}: {}",
                                                     i + 1, printed[i].name(), printed[i].value, fields[i].first, w,
                                                     line));
  }
  return Verdict::pass();
}

Verdict check_stats_observed(const Captured& c, const DeviceMemory& mem) {
  const BindStats& s = c.result.stats;
  if (Verdict v = check_stats_line(s, s.to_line()); !v.passed()) return v;
  if (c.staged.size() < sizeof(RuntimeHeader)) return Verdict::pass();
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  uint64_t entries = 0, definitions = 0, defs = 0;
  std::optional<ReservationInfo> region;
  for (const ReservationInfo& r : mem.reservations()) {
    if (!r.live) continue;
    if (r.base == rh.region) region = r;
    if (r.name.rfind("entry:", 0) == 0) entries += r.bytes;
    if (r.name.rfind("graph_def:", 0) == 0) {
      definitions += r.bytes;
      ++defs;
    }
  }
  const auto task_heap = mem.reservation_of(rh.task_heap), graph_heap = mem.reservation_of(rh.graph_heap);
  struct Figure {
    const char* name;
    uint64_t reported, observed;
  };
  const uint64_t device_only = region ? c.destination.raw() - region->base.raw() : 0;
  const std::vector<Figure> observed{
      {"reserved.th (the task heap's reservation)", s.reserved.task_heap, task_heap ? task_heap->bytes : 0},
      {"reserved.gh (the graph heap's reservation)", s.reserved.graph_heap, graph_heap ? graph_heap->bytes : 0},
      {"reserved.img (the shipped header's image_bytes)", s.reserved.image, rh.image_bytes},
      {"reserved.sub (the shipped header's submissions_bytes)", s.reserved.submissions, rh.submissions_bytes},
      {"reserved.ent (live entry reservations)", s.reserved.entries, entries},
      {"reserved.def (live definition reservations)", s.reserved.definitions, definitions},
      {"defs (live definition reservations)", s.defs, defs},
      {"reserved.dev (the region below the upload)", s.reserved.device_only, device_only},
      {"reserved.cp (the region from the upload on)", s.reserved.copied, region ? region->bytes - device_only : 0},
      {"mirror (128 + 2785 W)", s.mirror, rh.W >= 64 ? 128 + 2785ull * rh.W : s.mirror},
  };
  for (const Figure& f : observed)
    if (f.reported != f.observed)
      return Verdict::fail("bind-stats", fmt::format("BindStats say {} = {}; observed {}", f.name, f.reported,
                                                     f.observed));
  if (task_heap && rh.task_heap_bytes != task_heap->bytes)
    return Verdict::fail("bind-stats", fmt::format("the shipped header's task heap is {} bytes, its reservation {}",
                                                   rh.task_heap_bytes, task_heap->bytes));
  return Verdict::pass();
}

Verdict check_bind_report(const Captured& c, const DeviceMemory& mem) {
  const BindResult& r = c.result;
  std::string want;
  if (r.status == 0) {
    want = "status=0 OK";
  } else if (r.status == -2) {
    want = "status=-2 UNSUPPORTED";
  } else if (r.status == -1) {
    want = "status=-1 GENERIC " + r.detail;
  } else if (const std::optional<int> code = latch_code(r.status)) {
    want = fmt::format("status={} {}", r.status, spec_code_name(*code));
  } else {
    return Verdict::fail("bind-report", fmt::format("status {} is none of RUNTIME.md §13's ({})", r.status,
                                                    status_line(r)));
  }
  if (const std::string got = status_line(r); got != want)
    return Verdict::fail("bind-report", fmt::format("status {}: the status line reads '{}', §13 gives '{}'", r.status,
                                                    got, want));
  if (r.status != 0 && r.detail.empty())
    return Verdict::fail("bind-report", fmt::format("'{}' (failure {}) carries no detail", status_line(r),
                                                    bind_failure_name(r.failure)));
  // A code's detail is its name, or its name, ": " and what latched it (RUNTIME.md §13).
  if (const std::optional<int> code = latch_code(r.status)) {
    const std::string name(spec_code_name(*code));
    if (r.detail != name && !(r.detail.starts_with(name + ": ") && r.detail.size() > name.size() + 2))
      return Verdict::fail("bind-report", fmt::format("'{}': the detail '{}' is not '{}' or '{}: <why>'", status_line(r),
                                                      r.detail, name, name));
  }
  const BindStats& s = r.stats;
  if (Verdict v = check_stats_line(s, s.to_line()); !v.passed()) return v;
  uint64_t copies = 0, bytes = 0;
  if (!c.staged.empty())
    for (const HostCopy& h : mem.host_copies(c.first_copy))
      if (h.direction == CopyDirection::kToDevice && h.device.raw() == c.destination.raw()) ++copies, bytes += h.bytes;
  if (s.shipped != bytes || s.h2d != copies)
    return Verdict::fail("bind-report", fmt::format("BindStats say h2d={} shipped={}; the copy ledger holds {} copies "
                                                    "of {} bytes to the upload's destination",
                                                    s.h2d, s.shipped, copies, bytes));
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

namespace {

// `size` bytes all `fill`, kept per thread: a check writes the live prefixes into it and puts
// the fill back over exactly those bytes when done, so it costs the live bytes, not the
// mirror's size (45 MB at the default W).
struct FilledScratch {
  uint8_t fill;
  std::vector<std::byte> bytes;
  std::span<std::byte> get(uint64_t size) {
    if (bytes.size() < size) bytes.assign(size, std::byte{fill});
    return {bytes.data(), size};
  }
};
thread_local FilledScratch zero_scratch{0x00, {}}, ones_scratch{0xFF, {}};

}  // namespace

Verdict check_compaction_live_prefix(const Compactor& compact, std::span<const std::byte> mirror, const MirrorLayout& L,
                                     const PoolCounts& cur, uint32_t n, std::span<const std::byte> shipped) {
  std::vector<std::pair<uint64_t, uint64_t>> live = {{0, sizeof(ImageHeader)}};
  const std::array<uint64_t, kSegCount> prefix = live_segment_bytes(cur, n);
  for (uint32_t s = 0; s < kSegCount; ++s) live.emplace_back(L.seg.off[s], prefix[s]);
  std::sort(live.begin(), live.end());
  const uint64_t size = mirror.size();
  // The live ranges clipped to the mirror, merged.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t kept = 0;
  for (const auto& [off, len] : live) {
    const uint64_t from = std::max(ranges.empty() ? 0 : ranges.back().second, off), to = std::min(off + len, size);
    if (from >= to) continue;
    if (!ranges.empty() && ranges.back().second == from)
      ranges.back().second = to;
    else
      ranges.emplace_back(from, to);
    kept += to - from;
  }
  std::vector<std::byte> a(shipped.size()), s(shipped.size());
  if (!compact(mirror, L, cur, n, a)) return Verdict::fail("compaction", "a valid mirror was refused");
  // The mirror with every byte outside the live prefix set to 0x00, then to 0xFF: every such byte
  // differs from its own value under one of the two (whatever the mirror held there: poison,
  // an earlier bind's records, a block no bind reached).
  for (FilledScratch* scratch : {&zero_scratch, &ones_scratch}) {
    const std::span<std::byte> buf = scratch->get(size);
    for (const auto& [from, to] : ranges) std::memcpy(buf.data() + from, mirror.data() + from, to - from);
    const bool ok = compact(buf, L, cur, n, s);
    for (const auto& [from, to] : ranges) std::memset(buf.data() + from, scratch->fill, to - from);
    if (!ok) return Verdict::fail("compaction", "a valid mirror was refused");
    if (a != s)
      return Verdict::fail("compaction-live-prefix",
                           fmt::format("setting the {} bytes outside the live prefix to {:#04x} changed the image",
                                       size - kept, scratch->fill));
  }
  if (!std::equal(a.begin(), a.end(), shipped.begin(), shipped.end()))
    return Verdict::fail("compaction", "compacting the mirror again does not give the shipped image");
  return Verdict::pass();
}

Verdict check_accepted_graph_blocks(const Captured& c, const DeviceMemory& mem) {
  using runtime::BindFailure;
  const BindFailure f = c.result.failure;
  if (f != BindFailure::kNone && f != BindFailure::kKernelFault && f != BindFailure::kScheduler) return Verdict::pass();
  if (c.staged.size() < sizeof(RuntimeHeader)) return Verdict::pass();
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  const uint64_t heap_begin = rh.graph_heap.raw(), heap_end = heap_begin + rh.graph_heap_bytes;
  uint64_t off = rh.submissions.raw() - c.destination.raw();
  uint64_t blocks_end = heap_begin;  // each submission its own block, in order (RUNTIME.md §6)
  for (uint32_t k = 0; k < rh.graph_count; ++k) {
    if (off > c.staged.size() || c.staged.size() - off < sizeof(GraphSubmission))
      return Verdict::fail("accepted-graph-block",
                           fmt::format("attach accepted submission {} past the {} shipped bytes", k, c.staged.size()));
    GraphSubmission sub;
    std::memcpy(&sub, c.staged.data() + off, sizeof sub);
    if (!mem.mapped(sub.definition_addr, sizeof(GraphDefHeader)))
      return Verdict::fail("accepted-graph-block", fmt::format("attach accepted submission {} whose definition at "
                                                               "{:#x} is not mapped",
                                                               k, sub.definition_addr.raw()));
    GraphDefHeader h;
    mem.inspect(sub.definition_addr, &h, sizeof h);
    if (h.n_nodes == 0) return Verdict::fail("accepted-graph-block", fmt::format("submission {}: 0 nodes", k));
    const uint64_t storage = 32 + 128 * (uint64_t{h.n_nodes} - 1) + 104;
    const uint64_t need = h.required_heap + 64 * uint64_t{h.n_tensor_args} + 8 * uint64_t{h.n_scalar_args} + storage;
    const uint64_t base = sub.block_base.raw();
    if (sub.block_bytes < need || base % 64 != 0 || base < heap_begin || base > heap_end ||
        sub.block_bytes > heap_end - base)
      return Verdict::fail("accepted-graph-block",
                           fmt::format("attach accepted submission {}: block [{:#x}, +{}) for a definition that needs "
                                       "{} B inside the graph heap [{:#x}, +{})",
                                       k, base, sub.block_bytes, need, heap_begin, rh.graph_heap_bytes));
    if (base < blocks_end)
      return Verdict::fail("accepted-graph-block",
                           fmt::format("attach accepted submission {}: its block at {:#x} overlaps the previous "
                                       "submission's, which ends at {:#x}",
                                       k, base, blocks_end));
    blocks_end = base + sub.block_bytes;
    off = align64(off + sub.record_bytes);
  }
  return Verdict::pass();
}

Verdict check_graph_storage(const Captured& c, DeviceMemory& mem, uint32_t* submissions) {
  if (c.staged.size() < sizeof(RuntimeHeader)) return Verdict::fail("storage-span", "nothing was shipped");
  RuntimeHeader rh;
  std::memcpy(&rh, c.staged.data(), sizeof rh);
  if (submissions) *submissions = rh.graph_count;
  if (rh.graph_count == 0) return Verdict::pass();
  uint64_t off = rh.submissions - c.destination;
  uint64_t previous_end = 0, blocks = 0;
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
    // §6: one 64-aligned block per submission, inside the graph heap.
    const uint64_t heap = rh.graph_heap.raw();
    if ((sub.block_base.raw() - heap) % 64 != 0 || sub.block_base.raw() < heap ||
        sub.block_base.raw() + sub.block_bytes > heap + rh.graph_heap_bytes)
      return Verdict::fail("storage-span", fmt::format("submission {}: block at graph heap +{} ({} B) is not a 64-aligned "
                                                       "block inside the {} B graph heap",
                                                       k, sub.block_base.raw() - heap, sub.block_bytes,
                                                       rh.graph_heap_bytes));
    previous_end = sub.block_base.raw() + sub.block_bytes;
    blocks += align64(sub.block_bytes);
    off = align64(off + sub.record_bytes);
  }
  // The graph heap holds the blocks and nothing else, so its high water is their 64-rounded sum.
  if (c.result.stats.graph_heap_high_water != blocks)
    return Verdict::fail("storage-span", fmt::format("graph_hw={} but the {} blocks take {} B rounded to 64",
                                                     c.result.stats.graph_heap_high_water, rh.graph_count, blocks));
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
