// predict_attach (attach_model.h): RUNTIME.md §11 as a second implementation over host bytes.
#include "properties/oracles/attach_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

#include <cstring>
#include <initializer_list>
#include <vector>

#include "properties/oracles/bind_checks.h"
#include "properties/oracles/spec_layout.h"
#include "stack/support/fnv1a.h"

namespace stackcheck::oracles {

namespace {

// ---- record sizes and field offsets, from RUNTIME.md §4, §5, §9 ----
using namespace spec;  // the §4 layout: segments, record sizes, Layout
constexpr uint64_t kRtBytes = 128;
constexpr uint64_t kSubmissionHeaderBytes = 48, kDefHeaderBytes = 128, kSchedControlBytes = 64;
constexpr uint64_t kInt32Max = 0x7fff'ffffull;
constexpr unsigned char kRtMagic[8] = {'S', 'T', 'K', 'R', 'T', 'H', 0, 1};
constexpr unsigned char kImgMagic[8] = {'S', 'T', 'K', 'I', 'M', 'G', 0, 1};
constexpr unsigned char kDefMagic[8] = {'S', 'T', 'K', 'G', 'D', 'E', 'F', '1'};
constexpr const char* kPoolName[3] = {"tensors", "scalars", "fanin"};
// A task payload's pool deltas (@8 tensors, @12 scalars, @16 fanin) and counts (u16 @0, @2, @4).
constexpr uint64_t kPoolDeltaField[3] = {8, 12, 16};
constexpr uint64_t kPoolCountField[3] = {0, 2, 4};

constexpr bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t m) { return a < b + m && b < a + n; }

class Model {
 public:
  Model(std::span<const std::byte> staged, uint64_t dest, const runtime::DeviceMemory& mem)
      : bytes_(staged), dest_(dest), mem_(mem) {}

  std::optional<AttachPrediction> run(std::string* unknown) {
    AttachPrediction p = judge();
    if (!lost_.empty()) {
      if (unknown) *unknown = lost_;
      return std::nullopt;
    }
    return p;
  }

 private:
  std::span<const std::byte> bytes_;
  uint64_t dest_;
  const runtime::DeviceMemory& mem_;
  std::string lost_;  // why the model cannot tell (set once)

  // ---- the shipped bytes, by device address ----
  bool shipped(uint64_t addr, uint64_t n) const {
    return addr >= dest_ && addr - dest_ <= bytes_.size() && n <= bytes_.size() - (addr - dest_);
  }
  template <class T>
  T at(uint64_t addr) {
    T v{};
    if (!lost_.empty()) return v;
    if (!shipped(addr, sizeof(T))) {
      lost_ = fmt::format("a rule reads {} bytes at {:#x}, outside the {} shipped bytes at {:#x}", sizeof(T), addr,
                          bytes_.size(), dest_);
      return v;
    }
    std::memcpy(&v, bytes_.data() + (addr - dest_), sizeof(T));
    return v;
  }
  bool zero(uint64_t addr, uint64_t n) {
    if (!lost_.empty()) return true;
    if (!shipped(addr, n)) {
      lost_ = fmt::format("padding [{:#x}, +{}) lies outside the shipped bytes", addr, n);
      return true;
    }
    for (uint64_t k = 0; k < n; ++k)
      if (bytes_[addr - dest_ + k] != std::byte{0}) return false;
    return true;
  }
  bool magic(uint64_t addr, const unsigned char (&m)[8]) {
    const auto v = at<uint64_t>(addr);
    return std::memcmp(&v, m, 8) == 0;
  }
  bool mapped(uint64_t a, uint64_t n) const { return mem_.mapped(runtime::DevAddr(a), n); }

  // ---- decoded headers ----
  struct Rt {
    uint32_t version, W, Q, graphs;
    uint64_t image, image_bytes, subs, subs_bytes, devonly, devonly_bytes, task_heap, task_heap_bytes, graph_heap,
        graph_heap_bytes, region, region_bytes, reserved;
  } rt_{};
  struct Img {
    uint32_t version, W, pitch, n, orch_done;
    int32_t orch_error, sched_error, sched_thread;
    uint64_t sched_bitmap, image_bytes, seg_off[kSegs];
    uint32_t count[3], reserved;
  } h_{};
  uint64_t img_ = 0;  // the image's device address

  void read_rt() {
    const uint64_t b = dest_;
    rt_.version = at<uint32_t>(b + 8), rt_.W = at<uint32_t>(b + 12), rt_.Q = at<uint32_t>(b + 16);
    rt_.graphs = at<uint32_t>(b + 20);
    uint64_t* f[] = {&rt_.image,      &rt_.image_bytes,      &rt_.subs,      &rt_.subs_bytes,
                     &rt_.devonly,    &rt_.devonly_bytes,    &rt_.task_heap, &rt_.task_heap_bytes,
                     &rt_.graph_heap, &rt_.graph_heap_bytes, &rt_.region,    &rt_.region_bytes,
                     &rt_.reserved};
    for (size_t k = 0; k < std::size(f); ++k) *f[k] = at<uint64_t>(b + 24 + 8 * k);
  }
  void read_img() {
    const uint64_t b = img_;
    h_.version = at<uint32_t>(b + 8), h_.W = at<uint32_t>(b + 12), h_.pitch = at<uint32_t>(b + 16);
    h_.n = at<uint32_t>(b + 20), h_.orch_done = at<uint32_t>(b + 24);
    h_.orch_error = at<int32_t>(b + 28), h_.sched_error = at<int32_t>(b + 32), h_.sched_thread = at<int32_t>(b + 36);
    h_.sched_bitmap = at<uint64_t>(b + 40), h_.image_bytes = at<uint64_t>(b + 48);
    for (int s = 0; s < kSegs; ++s) h_.seg_off[s] = at<uint64_t>(b + 56 + 8 * s);
    for (int k = 0; k < 3; ++k) h_.count[k] = at<uint32_t>(b + 112 + 4 * k);
    h_.reserved = at<uint32_t>(b + 124);
  }

  // Image offset `field` + delta -> image offset, or nullopt (unbound, or below the image).
  static std::optional<uint64_t> follow(uint64_t field, int32_t d) {
    const int64_t t = static_cast<int64_t>(field) + d;
    if (d == 0 || t < 0) return std::nullopt;
    return static_cast<uint64_t>(t);
  }
  // The same for a delta an earlier class proved bound and inside (0 once the model is lost,
  // when a read returned 0 instead: the answer is then discarded).
  static uint64_t target(uint64_t field, int32_t d) { return follow(field, d).value_or(0); }
  uint64_t pool_region(int k, uint64_t count) const { return k == 1 ? (count + 7) / 8 * 8 : count; }

  static AttachPrediction reject(const char* cls, std::string why, std::vector<int64_t> figures = {}) {
    return {cls, std::move(why), std::move(figures)};
  }

  // A refusal's figures, in the order its detail states them (the unsigned ones a detail can
  // print as an int64; a larger one is left out, the others keep their order).
  static std::vector<int64_t> figs(std::initializer_list<uint64_t> v) {
    std::vector<int64_t> out;
    for (uint64_t x : v)
      if (x <= static_cast<uint64_t>(INT64_MAX)) out.push_back(static_cast<int64_t>(x));
    return out;
  }
  using Step = std::optional<AttachPrediction>;

  // §11's checks in order, each stage the first rule it finds broken (or nothing).
  AttachPrediction judge() {
    if (Step p = headers()) return *p;
    const Layout L(h_.pitch, h_.count[0], h_.count[1], h_.count[2]);
    if (Step p = deltas_in_image(L)) return *p;  // one stage at a time: a later one may read
    if (Step p = deltas_aligned(L)) return *p;   // bytes the shipped range lacks (lost_)
    if (Step p = counts(L)) return *p;
    if (Step p = padding(L)) return *p;
    // BadGraphContext.
    if (std::optional<std::string> g = graph_contexts(L)) return reject("BadGraphContext", *g);
    // LatchedError.
    if (h_.orch_error != 0 || h_.sched_error != 0 || h_.sched_thread != 0 || h_.sched_bitmap != 0)
      return reject("LatchedError", "a nonzero error word",
                    {int64_t{h_.orch_error}, int64_t{h_.sched_error}, int64_t{h_.sched_thread}});
    if (h_.orch_done != 1) return reject("LatchedError", "orch_done not 1", figs({h_.orch_done}));
    return AttachPrediction{"", "accepted", {}};
  }

  Step headers() {
    // BadMagic: the RuntimeHeader.
    if (!magic(dest_, kRtMagic)) return reject("BadMagic", "runtime header magic");
    read_rt();
    if (rt_.version != 1) return reject("BadMagic", "runtime header version");
    // §5: the image opens right after the RuntimeHeader; nothing is read at another address.
    img_ = dest_ + kRtBytes;
    if (rt_.image != img_) return reject("BadLayout", "image not right after the runtime header");
    if (!mapped(img_, kImgHdrBytes)) return reject("TooLarge", "image header not mapped");
    if (!magic(img_, kImgMagic)) return reject("BadMagic", "image header magic");
    read_img();
    if (h_.version != 1) return reject("BadMagic", "image header version");
    // BadPitch.
    const bool w_ok = h_.W >= 4 && h_.W <= (1u << 30) && (h_.W & (h_.W - 1)) == 0;
    if (!w_ok || h_.W != rt_.W)
      return reject("BadPitch", "W not a power of two in [4, 2^30] or not the runtime's", figs({h_.W, rt_.W}));
    if (h_.pitch == 0 || h_.pitch > h_.W || h_.pitch != std::max<uint32_t>(h_.n, 1))
      return reject("BadPitch", "pitch not in (0, W] or not max(n, 1)", figs({h_.pitch, h_.n, h_.W}));
    // Truncated: the flag segment's end from the pitch alone.
    const uint64_t flag_end = Layout(h_.pitch, 0, 0, 0).end[kFlag];
    if (h_.image_bytes < flag_end)
      return reject("Truncated", "image ends before the flags", figs({h_.image_bytes, flag_end}));
    // TooLarge: the image header's own figure against INT32_MAX and the region.
    if (h_.image_bytes > kInt32Max) return reject("TooLarge", "image over INT32_MAX", figs({h_.image_bytes}));
    const uint64_t rb = rt_.region, re = rb + rt_.region_bytes;
    if (re < rb || !mapped(rb, rt_.region_bytes) || img_ < rb || img_ > re || h_.image_bytes > re - img_)
      return reject("TooLarge", "image past the region");
    const uint64_t db = rt_.devonly, de = db + rt_.devonly_bytes;
    if (de < db || db < rb || de > dest_ || rt_.Q == 0 ||
        rt_.devonly_bytes < kSchedControlBytes + 8 * static_cast<uint64_t>(rt_.Q))
      return reject("TooLarge", "device-only zone cannot hold SchedControl and the ring before the runtime header",
                    figs({rt_.devonly_bytes, rt_.Q}));
    // BadLayout.
    if (db != rb) return reject("BadLayout", "device-only zone not at the region's start");
    const Layout L(h_.pitch, h_.count[0], h_.count[1], h_.count[2]);
    for (int s = 0; s < kSegs; ++s)
      if (h_.seg_off[s] != L.off[s])
        return reject("BadLayout", fmt::format("segment {} offset", s), figs({uint64_t(s), h_.seg_off[s], L.off[s]}));
    if (h_.image_bytes > L.total)
      return reject("BadLayout", "image_bytes past the planned end", figs({h_.image_bytes, L.total}));
    if (rt_.image_bytes != h_.image_bytes)
      return reject("BadLayout", "the two headers' image_bytes differ", figs({rt_.image_bytes, h_.image_bytes}));
    const bool zone = rt_.subs != 0 || rt_.subs_bytes != 0;
    if (zone && (rt_.subs_bytes == 0 || rt_.subs != up64(img_ + h_.image_bytes)))
      return reject("BadLayout", "submissions not right after the image", figs({rt_.subs_bytes}));
    // PoolOutOfImage.
    for (int s = kTensors; s <= kFanin; ++s)
      if (L.end[s] > h_.image_bytes)
        return reject("PoolOutOfImage", fmt::format("pool segment {} past the image", s),
                      figs({uint64_t(s), L.end[s], h_.image_bytes}));
    return std::nullopt;
  }

  // DeltaOutOfImage: every bound delta lands inside its own segment with room for a record.
  Step deltas_in_image(const Layout& L) {
    auto inside = [&](uint64_t field, int32_t d, int seg) {
      const std::optional<uint64_t> t = follow(field, d);
      return t && *t < h_.image_bytes && *t >= L.off[seg] && *t < L.end[seg] && L.end[seg] - *t >= kSegElem[seg];
    };
    for (uint64_t i = 0; i < h_.n && lost_.empty(); ++i) {
      const uint64_t slot = L.record(kSlot, i), pay = L.record(kPayload, i);
      const int32_t desc_d = at<int32_t>(img_ + slot + 4);
      if (!inside(slot + 4, desc_d, kDesc))
        return reject("DeltaOutOfImage", fmt::format("slot {} desc delta outside its segment", i),
                      {int64_t(i), int64_t{desc_d}});
      const int32_t pay_d = at<int32_t>(img_ + slot + 8);
      if (!inside(slot + 8, pay_d, kPayload))
        return reject("DeltaOutOfImage", fmt::format("slot {} payload delta outside its segment", i),
                      {int64_t(i), int64_t{pay_d}});
      for (int k = 0; k < 3; ++k) {
        const int32_t d = at<int32_t>(img_ + pay + kPoolDeltaField[k]);
        if (d != 0 && !inside(pay + kPoolDeltaField[k], d, kTensors + k))
          return reject("DeltaOutOfImage", fmt::format("task {} {} delta outside its pool", i, kPoolName[k]),
                        {int64_t(i), int64_t{d}});
      }
    }
    return std::nullopt;
  }

  // DeltaMisaligned: each delta at its own index; a pool region on an element (a scalar one on
  // an 8-entry line) and inside the pool's count.
  Step deltas_aligned(const Layout& L) {
    for (uint64_t i = 0; i < h_.n && lost_.empty(); ++i) {
      const uint64_t slot = L.record(kSlot, i), pay = L.record(kPayload, i);
      if (target(slot + 4, at<int32_t>(img_ + slot + 4)) != L.record(kDesc, i) ||
          target(slot + 8, at<int32_t>(img_ + slot + 8)) != pay)
        return reject("DeltaMisaligned", fmt::format("slot {} points at another index", i), {int64_t(i)});
      for (int k = 0; k < 3; ++k) {
        const int32_t d = at<int32_t>(img_ + pay + kPoolDeltaField[k]);
        if (d == 0) continue;
        const uint64_t rel = target(pay + kPoolDeltaField[k], d) - L.off[kTensors + k];
        const uint64_t elem = kSegElem[kTensors + k], idx = rel / elem;
        const uint64_t region = pool_region(k, at<uint16_t>(img_ + pay + kPoolCountField[k]));
        if (rel % elem != 0)
          return reject("DeltaMisaligned", fmt::format("task {} {} delta off-element", i, kPoolName[k]), {int64_t(i)});
        if (k == 1 && idx % 8 != 0)
          return reject("DeltaMisaligned", fmt::format("task {} scalar region not on an 8-entry line", i),
                        figs({i, idx}));
        if (region > L.count[k] - idx)
          return reject("DeltaMisaligned", fmt::format("task {} {} region past the count", i, kPoolName[k]),
                        figs({i, idx, idx + region, L.count[k]}));
      }
    }
    return std::nullopt;
  }

  Step counts(const Layout& L) {
    const uint64_t n = h_.n;
    uint64_t next[3] = {};
    for (uint64_t i = 0; i < n && lost_.empty(); ++i) {
      const uint64_t desc = img_ + L.record(kDesc, i), pay = L.record(kPayload, i), slot = img_ + L.record(kSlot, i);
      const auto task_id = at<int32_t>(desc), kernel = at<int32_t>(desc + 4);
      const auto kind = at<uint32_t>(desc + 8);
      const auto heap_begin = at<uint64_t>(desc + 16), heap_end = at<uint64_t>(desc + 24);
      const auto n_nodes = at<uint16_t>(img_ + pay + 6);
      uint16_t count[3];
      for (int k = 0; k < 3; ++k) count[k] = at<uint16_t>(img_ + pay + kPoolCountField[k]);
      if (task_id != static_cast<int64_t>(i)) return reject("CountMismatch", fmt::format("task {} id", i), {int64_t(i), task_id});
      if (kind < 1 || kind > 3) return reject("CountMismatch", fmt::format("task {} kind {}", i, kind), {int64_t(i), kind});
      const bool kernel_ok = kind == 1 ? kernel >= 0 && kernel <= 7 : kind == 2 ? kernel == 7 : kernel == -1;
      if (!kernel_ok)
        return reject("CountMismatch", fmt::format("task {} kernel id for its kind", i), {int64_t(i), kernel, kind});
      if (heap_begin > heap_end) return reject("CountMismatch", fmt::format("task {} heap block reversed", i), {int64_t(i)});
      const bool nodes_ok =
          kind == 3 ? n_nodes >= 1 && n_nodes <= 1024 && count[0] == 0 && count[1] == 0 : n_nodes == 0;
      if (!nodes_ok)
        return reject("CountMismatch", fmt::format("task {} n_nodes for its kind", i), {int64_t(i), n_nodes, kind});
      for (int k = 0; k < 3; ++k) {
        const int32_t d = at<int32_t>(img_ + pay + kPoolDeltaField[k]);
        if ((d != 0) != (count[k] > 0))
          return reject("CountMismatch", fmt::format("task {} {} bound <=> count", i, kPoolName[k]),
                        {int64_t(i), count[k]});
        if (d == 0) continue;
        const uint64_t idx = (target(pay + kPoolDeltaField[k], d) - L.off[kTensors + k]) / kSegElem[kTensors + k];
        if (idx != next[k])
          return reject("CountMismatch", fmt::format("task {} {} region out of order", i, kPoolName[k]),
                        {int64_t(i), int64_t(idx), int64_t(next[k])});
        next[k] += pool_region(k, count[k]);
      }
      const auto state = at<uint32_t>(slot);
      if (state != 1 && state != 2)
        return reject("CountMismatch", fmt::format("slot {} state {}", i, state), {int64_t(i), state});
      if (at<int32_t>(slot + 28) != static_cast<int32_t>(count[2]))
        return reject("CountMismatch", fmt::format("slot {} fanin_cursor", i),
                      {int64_t(i), at<int32_t>(slot + 28), count[2]});
    }
    for (int k = 0; k < 3; ++k)
      if (lost_.empty() && next[k] != h_.count[k])
        return reject("CountMismatch", fmt::format("{} pool count not the sum of the regions", kPoolName[k]),
                      {int64_t(h_.count[0]), int64_t(h_.count[1]), int64_t(h_.count[2]), int64_t(next[0]),
                       int64_t(next[1]), int64_t(next[2])});
    return std::nullopt;
  }

  Step padding(const Layout& L) {
    const uint64_t n = h_.n;
    if (h_.reserved != 0 || rt_.reserved != 0) return reject("DirtyPadding", "a header's reserved field");
    if (std::optional<std::string> z = zone_padding(L)) return reject("DirtyPadding", *z);
    if (!zero(img_ + kImgHdrBytes, L.off[0] - kImgHdrBytes)) return reject("DirtyPadding", "after the image header");
    for (int s = 0; s < kSegs; ++s) {
      const uint64_t next_start = s + 1 < kSegs ? L.off[s + 1] : L.total;
      if (!zero(img_ + L.end[s], next_start - L.end[s]))
        return reject("DirtyPadding", fmt::format("after segment {}", s), {int64_t{s}});
    }
    if (n == 0) {
      for (int s : {kDesc, kPayload, kSlot})
        if (!zero(img_ + L.record(s, 0), kTaskRecordBytes)) return reject("DirtyPadding", "the unused n=0 record");
    }
    for (uint64_t i = 0; i < n && lost_.empty(); ++i) {
      const uint64_t desc = img_ + L.record(kDesc, i), pay = img_ + L.record(kPayload, i),
                     slot = img_ + L.record(kSlot, i);
      if (at<uint32_t>(desc + 12) != 0 || at<uint32_t>(pay + 20) != 0 || at<uint16_t>(slot + 22) != 0)
        return reject("DirtyPadding", fmt::format("task {} reserved field", i), {int64_t(i)});
      if (at<int32_t>(slot + 12) != 0 || at<int32_t>(slot + 16) != 0 || at<uint16_t>(slot + 20) != 0)
        return reject("DirtyPadding", fmt::format("slot {} wake fields", i), {int64_t(i)});
      const uint16_t ns = at<uint16_t>(pay + 2);
      if (ns > 0) {
        const uint64_t first = target(L.record(kPayload, i) + 12, at<int32_t>(pay + 12));
        const uint64_t pad = (ns + 7) / 8 * 8 - ns;
        if (!zero(img_ + first + 8 * ns, 8 * pad))
          return reject("DirtyPadding", fmt::format("task {} scalar pad", i), {int64_t(i)});
      }
    }
    return std::nullopt;
  }

  uint32_t kind_of(const Layout& L, uint64_t i) { return at<uint32_t>(img_ + L.record(kDesc, i) + 8); }
  uint64_t record_size(uint64_t rec) {
    return kSubmissionHeaderBytes + kTensorArgBytes * at<uint16_t>(rec + 36) + 8 * at<uint16_t>(rec + 38);
  }

  // The submissions zone's padding, records placed as BadGraphContext places them.
  std::optional<std::string> zone_padding(const Layout& L) {
    const uint64_t zb = rt_.subs, ze = zb + rt_.subs_bytes;
    if (rt_.subs_bytes == 0 || ze < zb || !mapped(zb, rt_.subs_bytes)) return std::nullopt;
    const uint64_t image_end = img_ + h_.image_bytes;
    if (zb > image_end && mapped(image_end, zb - image_end) && !zero(image_end, zb - image_end))
      return "between the image and the first submission record";
    uint64_t end = 0;
    for (uint64_t i = 0; i < h_.n && lost_.empty(); ++i) {
      if (kind_of(L, i) != 3) continue;
      const uint64_t rec = end == 0 ? zb : up64(end);
      if (rec > ze || ze - rec < kSubmissionHeaderBytes) break;
      if (end != 0 && rec > end && !zero(end, rec - end)) return fmt::format("before task {}'s submission record", i);
      const auto rb = at<uint64_t>(rec + 40);
      if (rb != record_size(rec) || rb > ze - rec) break;
      end = rec + rb;
    }
    return std::nullopt;
  }

  // A definition at `a` as the device holds it: nullopt when valid (its header in *hdr), else why.
  std::optional<std::string> definition(uint64_t a, std::vector<uint64_t>* hdr) {
    if (overlaps(a, kDefHeaderBytes, rt_.region, rt_.region_bytes) ||
        overlaps(a, kDefHeaderBytes, rt_.task_heap, rt_.task_heap_bytes) ||
        overlaps(a, kDefHeaderBytes, rt_.graph_heap, rt_.graph_heap_bytes))
      return "definition inside the region or a heap";
    if (!mapped(a, kDefHeaderBytes)) return "definition not mapped";
    const std::optional<runtime::ReservationInfo> r = mem_.reservation_of(runtime::DevAddr(a));
    const bool at_start = r && r->base.raw() == a && r->name.rfind("graph_def:", 0) == 0;
    unsigned char head[kDefHeaderBytes];
    mem_.inspect(runtime::DevAddr(a), head, sizeof head);
    if (!at_start) {
      if (std::memcmp(head, kDefMagic, 8) == 0 && lost_.empty())
        lost_ = fmt::format("the definition magic at {:#x}, which starts no definition reservation", a);
      return "no definition starts there";
    }
    if (std::memcmp(head, kDefMagic, 8) != 0) return "definition magic";
    uint64_t total = 0;
    std::memcpy(&total, head + 16, 8);
    if (total < kDefHeaderBytes || !mapped(a, total)) return "definition extent not mapped";
    std::vector<unsigned char> all(total);
    mem_.inspect(runtime::DevAddr(a), all.data(), total);
    uint64_t stored = 0;
    std::memcpy(&stored, all.data() + 8, 8);
    std::memset(all.data() + 8, 0, 8);
    if (support::fnv1a64(support::kFnvOffset, all.data(), all.size()) != stored) return "definition hash";
    // hash, n_nodes, n_bt, n_bs, T, K, required_heap, storage_bytes
    auto u32 = [&](size_t off) {
      uint32_t v;
      std::memcpy(&v, head + off, 4);
      return uint64_t{v};
    };
    auto u64 = [&](size_t off) {
      uint64_t v;
      std::memcpy(&v, head + off, 8);
      return v;
    };
    *hdr = {stored, u32(28), u32(32), u32(36), u32(40), u32(44), u64(56), u64(64)};
    return std::nullopt;
  }

  std::optional<std::string> graph_contexts(const Layout& L) {
    const uint64_t zb = rt_.subs, ze = zb + rt_.subs_bytes;
    const uint64_t rb = rt_.region, re = rb + rt_.region_bytes;
    const bool zone_ok =
        rt_.subs_bytes == 0 || (ze >= zb && zb >= rb && ze <= re && zb % 64 == 0 && mapped(zb, rt_.subs_bytes));
    uint64_t cursor = zb, records_end = zb, graphs = 0;
    uint64_t blocks_end = rt_.graph_heap;  // blocks come in task order, each its own (§6)
    for (uint64_t i = 0; i < h_.n && lost_.empty(); ++i) {
      const uint64_t pay = img_ + L.record(kPayload, i);
      const auto ctx = at<uint64_t>(pay + 24);
      if (kind_of(L, i) != 3) {
        if (ctx != 0) return fmt::format("task {} is no GRAPH task and has a graph_ctx", i);
        continue;
      }
      ++graphs;
      if (!zone_ok) return "submissions zone outside the region or unmapped";
      if (ctx != cursor) return fmt::format("task {} graph_ctx is not its record", i);
      if (cursor > ze || ze - cursor < kSubmissionHeaderBytes) return fmt::format("task {} record past the zone", i);
      const auto bytes = at<uint64_t>(cursor + 40);
      if (bytes != record_size(cursor) || bytes > ze - cursor) return fmt::format("task {} record_bytes", i);
      if (at<int32_t>(cursor + 32) != static_cast<int64_t>(i)) return fmt::format("task {} record's outer_id", i);
      std::vector<uint64_t> d;
      if (std::optional<std::string> e = definition(at<uint64_t>(cursor), &d)) return fmt::format("task {}: {}", i, *e);
      if (d[0] != at<uint64_t>(cursor + 8)) return fmt::format("task {} definition hash differs", i);
      if (d[1] != at<uint16_t>(pay + 6) || d[2] != at<uint16_t>(cursor + 36) || d[3] != at<uint16_t>(cursor + 38))
        return fmt::format("task {} counts differ from the definition", i);
      const uint64_t need = d[6] + kTensorArgBytes * d[4] + 8 * d[5] + d[7];
      const uint64_t base = at<uint64_t>(cursor + 16), size = at<uint64_t>(cursor + 24);
      const uint64_t gb = rt_.graph_heap, ge = gb + rt_.graph_heap_bytes;
      if (size < need || base % 64 != 0 || base < gb || base > ge || size > ge - base)
        return fmt::format("task {} graph-heap block", i);
      if (base < blocks_end) return fmt::format("task {} graph-heap block overlaps the previous one", i);
      blocks_end = base + size;
      records_end = cursor + bytes;
      cursor = up64(records_end);
    }
    if (!lost_.empty()) return std::nullopt;
    if (graphs != rt_.graphs) return "GRAPH tasks differ from the runtime header's count";
    if (records_end != ze) return "submissions zone does not end with the last record";
    return std::nullopt;
  }
};

}  // namespace

std::optional<AttachPrediction> predict_attach(std::span<const std::byte> staged, runtime::DevAddr destination,
                                               const runtime::DeviceMemory& mem, std::string* unknown) {
  if (staged.size() < kRtBytes + kImgHdrBytes) {
    if (unknown) *unknown = fmt::format("{} staged bytes hold no image header", staged.size());
    return std::nullopt;
  }
  return Model(staged, destination.raw(), mem).run(unknown);
}


Verdict check_attach_prediction(const AttachPrediction& p, const runtime::BindResult& r) {
  const bool attach = r.failure == runtime::BindFailure::kAttach && r.attach_class.has_value();
  const std::string got = attach ? runtime::attach_error_name(*r.attach_class) : "";
  if (!p.accepts() && got == p.rejected && !states_in_order(r.detail, p.figures))
    return Verdict::fail("attach-model", fmt::format("the model of RUNTIME.md §11 expects {} ({}) stating [{}] in that "
                                                     "order; attach said: {}",
                                                     p.rejected, p.why, fmt::join(p.figures, ", "), r.detail));
  if (p.accepts() ? !attach : got == p.rejected) return Verdict::pass();
  return Verdict::fail("attach-model",
                       fmt::format("the model of RUNTIME.md §11 {} ({}); attach {}",
                                   p.accepts() ? "accepts the image" : "expects " + p.rejected, p.why,
                                   attach ? fmt::format("rejected it with {}: {}", got, r.detail)
                                          : fmt::format("did not reject it: {} ({})", runtime::status_line(r),
                                                        runtime::bind_failure_name(r.failure))));
}

Verdict CorruptJudgement::first_failure() const {
  for (const Verdict& v : verdicts)
    if (!v.passed()) return v;
  return Verdict::pass();
}

CorruptJudgement judge_corrupt_bind(const Captured& c, const runtime::DeviceMemory& mem,
                                    std::span<const runtime::Mutation> muts) {
  CorruptJudgement j;
  j.verdicts.push_back(check_corrupt_image_run(c.result));
  if (!c.staged.empty()) {
    j.predicted = predict_attach(c.staged, c.destination, mem, &j.unknown);
    if (j.predicted) j.verdicts.push_back(check_attach_prediction(*j.predicted, c.result));
  } else {
    j.unknown = "nothing was shipped";
  }
  j.verdicts.push_back(check_accepted_graph_blocks(c, mem));
  j.verdicts.push_back(check_bind_report(c, mem));
  j.fanin = predict_fanin_corruption(c.staged, c.image_offset, muts);
  if (j.fanin) j.verdicts.push_back(check_fanin_prediction(*j.fanin, c.result));
  return j;
}

}  // namespace stackcheck::oracles
