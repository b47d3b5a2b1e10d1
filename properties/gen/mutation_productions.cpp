// image_mutation_productions and its universe (limits.h): the corrupted upload against the
// clean one, byte by byte, each changed byte placed by the clean upload's layout (RUNTIME.md
// §4: the image's segments, §5: the RuntimeHeader, §9: the submission records), never by the
// `where` a draw had.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>

#include "properties/gen/limits.h"

namespace stackcheck::gen {

namespace {

struct FieldDef {
  const char* name;
  uint8_t off, width;
};

constexpr FieldDef kRuntimeHeader[] = {
    {"magic", 0, 8},         {"version", 8, 4},      {"W", 12, 4},
    {"Q", 16, 4},            {"graph_count", 20, 4}, {"image", 24, 8},
    {"image_bytes", 32, 8},  {"submissions", 40, 8}, {"submissions_bytes", 48, 8},
    {"device_only", 56, 8},  {"device_only_bytes", 64, 8}, {"task_heap", 72, 8},
    {"task_heap_bytes", 80, 8}, {"graph_heap", 88, 8}, {"graph_heap_bytes", 96, 8},
    {"region", 104, 8},      {"region_bytes", 112, 8}, {"reserved", 120, 8}};
constexpr FieldDef kImageHeader[] = {
    {"magic", 0, 8},           {"version", 8, 4},          {"W", 12, 4},
    {"pitch", 16, 4},          {"n", 20, 4},               {"orch_done", 24, 4},
    {"orch_error", 28, 4},     {"sched_error", 32, 4},     {"sched_error_thread", 36, 4},
    {"sched_error_bitmap", 40, 8}, {"image_bytes", 48, 8}, {"seg_off.desc", 56, 8},
    {"seg_off.payload", 64, 8}, {"seg_off.slot", 72, 8},   {"seg_off.flag", 80, 8},
    {"seg_off.tensor", 88, 8}, {"seg_off.scalar", 96, 8},  {"seg_off.fanin", 104, 8},
    {"tensor_count", 112, 4},  {"scalar_count", 116, 4},   {"fanin_count", 120, 4},
    {"reserved", 124, 4}};
constexpr FieldDef kDescriptor[] = {{"task_id", 0, 4},  {"kernel_id", 4, 4},   {"kind", 8, 4},
                                    {"reserved", 12, 4}, {"heap_begin", 16, 8}, {"heap_end", 24, 8}};
constexpr FieldDef kPayload[] = {{"n_tensors", 0, 2}, {"n_scalars", 2, 2}, {"n_fanin", 4, 2},
                                 {"n_nodes", 6, 2},   {"tensors", 8, 4},   {"scalars", 12, 4},
                                 {"fanin", 16, 4},    {"reserved", 20, 4}, {"graph_ctx", 24, 8}};
constexpr FieldDef kSlot[] = {{"state", 0, 4},      {"desc", 4, 4},      {"payload", 8, 4},
                              {"wake_head", 12, 4}, {"wake_next", 16, 4}, {"wake_count", 20, 2},
                              {"reserved", 22, 2},  {"last_consumer", 24, 4}, {"fanin_cursor", 28, 4}};
constexpr FieldDef kTensorArg[] = {{"base", 0, 8},   {"buffer_bytes", 8, 8}, {"offset_bytes", 16, 8},
                                   {"tag", 24, 4},   {"rank", 28, 4},        {"shape", 32, 4},
                                   {"shape", 36, 4}, {"shape", 40, 4},       {"shape", 44, 4},
                                   {"stride", 48, 4}, {"stride", 52, 4},     {"stride", 56, 4},
                                   {"stride", 60, 4}};
constexpr FieldDef kSubmission[] = {{"definition_addr", 0, 8}, {"definition_hash", 8, 8}, {"block_base", 16, 8},
                                    {"block_bytes", 24, 8},    {"outer_id", 32, 4},       {"n_bt", 36, 2},
                                    {"n_bs", 38, 2},           {"record_bytes", 40, 8}};

// The record kinds a changed byte can fall in, in table order; the ones whose fields the
// generator sets whole at a limit (kFields of mutation_gen.cpp) first.
constexpr const char* kRecords[] = {"runtime-header", "image-header", "desc", "payload", "slot", "submission"};
// Records whose fields change one byte at a time only: a whole field of theirs at a limit is a gap.
constexpr std::pair<const char*, const char*> kByteOnly[] = {
    {"tensor-arg", "the tensor pool's TensorArgs have no entry in the field table (kFields)"},
    {"scalar-pool", "the scalar pool's entries have no entry in the field table"},
    {"submission-later", "figures and field changes reach only the first submission record"},
    {"submission.tensor-arg", "a submission record's boundary TensorArgs have no entry in the field table"},
    {"submission.scalar", "a submission record's boundary scalars have no entry in the field table"}};
constexpr const char* kValueKinds[] = {"zero", "all-ones", "int32-max", "int32-min", "plus-one",
                                       "minus-one", "one-bit", "step", "address", "other"};

uint64_t load_le(std::span<const std::byte> b, uint64_t at, unsigned width) {
  uint64_t v = 0;
  for (unsigned k = 0; k < width && at + k < b.size(); ++k) v |= static_cast<uint64_t>(b[at + k]) << (8 * k);
  return v;
}

// Where a byte of the upload lies: the field (its record and name, where it begins and its
// width) and, for a task record, the task's index.
struct Place {
  std::string record, field;
  uint64_t begin = 0;
  unsigned width = 1;
  int64_t task = -1;
  bool later = false;  // a submission record after the first
};

template <size_t N>
Place field_of(const char* record, const FieldDef (&table)[N], uint64_t base, uint64_t off) {
  for (const FieldDef& f : table)
    if (off >= f.off && off < uint64_t{f.off} + f.width) return {record, f.name, base + f.off, f.width};
  return {"padding", "", base + off, 1};
}

// The clean upload's layout, read from its own headers.
class Layout {
 public:
  Layout(std::span<const std::byte> s, uint64_t image_offset) : hb_(std::min<uint64_t>(image_offset, s.size())) {
    if (s.size() >= hb_ + 128) {
      pitch_ = load_le(s, hb_ + 16, 4);
      image_bytes_ = load_le(s, hb_ + 48, 8);
      for (int k = 0; k < 7; ++k) seg_[k] = load_le(s, hb_ + 56 + 8 * static_cast<uint64_t>(k), 8);
      counts_[0] = load_le(s, hb_ + 112, 4);
      counts_[1] = load_le(s, hb_ + 116, 4);
      counts_[2] = load_le(s, hb_ + 120, 4);
    }
    if (hb_ < 48) return;
    const uint64_t image = load_le(s, 24, 8), subs = load_le(s, 40, 8);
    uint64_t at = hb_ + (subs - image);
    for (uint64_t g = 0, n = load_le(s, 20, 4); subs != 0 && g < n && at + 48 <= s.size(); ++g) {
      const uint64_t bytes = load_le(s, at + 40, 8);
      if (bytes < 48 || at + bytes > s.size()) break;
      records_.push_back({at, bytes, load_le(s, at + 36, 2)});
      at = (at + bytes + 63) / 64 * 64;
    }
  }

  Place at(uint64_t a) const {
    if (a < hb_) return field_of("runtime-header", kRuntimeHeader, 0, a);
    const uint64_t rel = a - hb_;
    if (rel < 128) return field_of("image-header", kImageHeader, hb_, rel);
    if (rel < image_bytes_) return in_image(rel);
    for (size_t r = 0; r < records_.size(); ++r) {
      const Record& rec = records_[r];
      if (a < rec.at || a >= rec.at + rec.bytes) continue;
      const uint64_t off = a - rec.at;
      Place p;
      if (off < 48)
        p = field_of("submission", kSubmission, rec.at, off);
      else if (off < 48 + 64 * rec.n_bt)
        p = field_of("submission.tensor-arg", kTensorArg, rec.at + 48 + (off - 48) / 64 * 64, (off - 48) % 64);
      else
        p = {"submission.scalar", "", rec.at + off / 8 * 8, 8};
      p.later = r > 0;
      return p;
    }
    const bool before_end = !records_.empty() && a < records_.back().at + records_.back().bytes;
    return {before_end ? "padding" : "unmapped", "", a, 1};
  }

 private:
  struct Record {
    uint64_t at, bytes, n_bt;
  };

  // A byte of the image past its header: a task record, a flag, a pool entry or padding.
  Place in_image(uint64_t rel) const {
    static constexpr const char* kTaskRecords[] = {"desc", "payload", "slot"};
    for (int k = 6; k >= 0; --k) {
      if (rel < seg_[k]) continue;
      const uint64_t off = rel - seg_[k], base = hb_ + seg_[k];
      Place p{"padding", "", hb_ + rel, 1};
      if (k < 3 && off < 32 * pitch_) {
        const FieldDef* table = k == 0 ? kDescriptor : k == 1 ? kPayload : kSlot;
        const size_t n = k == 0 ? std::size(kDescriptor) : k == 1 ? std::size(kPayload) : std::size(kSlot);
        for (size_t i = 0; i < n; ++i)
          if (off % 32 >= table[i].off && off % 32 < uint64_t{table[i].off} + table[i].width)
            p = {kTaskRecords[k], table[i].name, base + off / 32 * 32 + table[i].off, table[i].width};
        p.task = static_cast<int64_t>(off / 32);
      } else if (k == 3 && off < pitch_) {
        p = {"flag", "", hb_ + rel, 1};
      } else if (k == 4 && off < 64 * counts_[0]) {
        p = field_of("tensor-arg", kTensorArg, base + off / 64 * 64, off % 64);
      } else if (k == 5 && off < 8 * counts_[1]) {
        p = {"scalar-pool", "", base + off / 8 * 8, 8};
      } else if (k == 6 && off < 4 * counts_[2]) {
        p = {"fanin-pool", "", base + off / 4 * 4, 4};
      }
      return p;
    }
    return {"padding", "", hb_ + rel, 1};
  }

  uint64_t hb_, pitch_ = 0, image_bytes_ = 0, seg_[7] = {}, counts_[3] = {};
  std::vector<Record> records_;
};

// What a field's value became against its old one.
const char* value_kind(uint64_t old, uint64_t now, unsigned width, std::span<const uint64_t> addresses) {
  const uint64_t mask = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
  const uint64_t up = (now - old) & mask, down = (old - now) & mask;
  if (now == 0) return "zero";
  if (now == mask) return "all-ones";
  if (now == 0x7fff'ffff) return "int32-max";
  if (now == 0x8000'0000) return "int32-min";
  if (up == 1) return "plus-one";
  if (down == 1) return "minus-one";
  if (std::popcount(old ^ now) == 1) return "one-bit";
  for (uint64_t step : {uint64_t{4}, uint64_t{8}, uint64_t{32}, uint64_t{64}, uint64_t{128}})
    if (up == step || down == step) return "step";
  if (width == 8)
    for (uint64_t a : addresses)
      if (now >= a && now - a <= 192 && (now - a) % 64 == 0) return "address";
  return "other";
}

const char* size_class(uint64_t n) { return n == 0 ? "0" : n == 1 ? "1" : n <= 8 ? "2-8" : n <= 64 ? "9-64" : "65+"; }

const char* region_of(const std::string& record) {
  if (record == "desc" || record == "payload" || record == "slot" || record == "flag") return "task-records";
  if (record == "tensor-arg" || record == "scalar-pool" || record == "fanin-pool") return "pools";
  if (record.rfind("submission", 0) == 0) return "submissions";
  return record == "padding" || record == "unmapped" ? "padding" : "headers";
}

}  // namespace

std::set<std::string> image_mutation_productions(std::span<const std::byte> staged, uint64_t image_offset,
                                                 std::span<const runtime::Mutation> muts) {
  std::set<std::string> out;
  std::vector<std::byte> after(staged.begin(), staged.end());
  std::set<uint64_t> lines;
  const uint64_t hb = std::min<uint64_t>(image_offset, staged.size());
  for (const runtime::Mutation& m : muts) {
    const bool header = m.target == runtime::MutationTarget::kRuntimeHeader;
    out.insert(header ? "target:runtime-header" : "target:image");
    const uint64_t at = header ? m.offset : hb + m.offset;
    if ((header && m.offset >= hb) || at >= staged.size()) {
      out.insert("offset:outside-target");
      continue;
    }
    if (!lines.insert(at).second) out.insert("lines:same-byte-twice");
    after[at] = static_cast<std::byte>(m.value);
  }
  out.insert(fmt::format("lines:{}", size_class(muts.size())));
  // The fields the changed bytes fall in, each with how many of its bytes changed.
  const Layout layout(staged, image_offset);
  std::map<uint64_t, std::pair<Place, int>> fields;
  uint64_t changed = 0;
  for (uint64_t a = 0; a < staged.size(); ++a) {
    if (after[a] == staged[a]) continue;
    ++changed;
    Place p = layout.at(a);
    auto [it, fresh] = fields.try_emplace(p.begin, std::move(p), 0);
    ++it->second.second;
  }
  out.insert(fmt::format("changed-bytes:{}", size_class(changed)));
  std::vector<uint64_t> addresses;
  for (uint64_t off : {24u, 40u, 56u, 72u, 88u, 104u}) addresses.push_back(load_le(staged, off, 8));
  std::set<std::string> regions;
  for (const auto& [begin, entry] : fields) {
    const auto& [p, bytes] = entry;
    out.insert(p.field.empty() ? "field:" + p.record : fmt::format("field:{}.{}", p.record, p.field));
    regions.insert(region_of(p.record));
    if (p.record == "submission") out.insert(p.later ? "submission-record:later" : "submission-record:first");
    if (p.task >= 0) out.insert(p.task == 0 ? "task:first" : p.task < 4 ? "task:second-to-fourth" : "task:fifth-on");
    if (p.record == "padding" || p.record == "unmapped") continue;
    const std::string kind =
        value_kind(load_le(staged, begin, p.width), load_le(after, begin, p.width), p.width, addresses);
    out.insert("value:" + kind);
    const bool limit = kind == "all-ones" || kind == "int32-max" || kind == "int32-min" || kind == "address";
    // (The fanin pool is left out: its entries are few, and where 11's byte changes crowd
    // them, so one becomes -1 or INT32_MAX byte by byte now and then.)
    if (limit && p.width >= 4 && bytes >= 2 && p.record != "fanin-pool")
      out.insert(fmt::format("at-limit:{}", p.record == "submission" && p.later ? "submission-later" : p.record));
  }
  if (!regions.empty()) out.insert(regions.size() == 1 ? "regions:one" : "regions:several");
  return out;
}

// In the order of the records of RUNTIME.md §4, §5 and §9.
std::vector<Production> image_mutation_production_universe() {
  std::vector<Production> u;
  auto add = [&](std::string n, std::string why = "") { u.push_back({std::move(n), std::move(why), ""}); };
  add("target:runtime-header");
  add("target:image");
  add("offset:outside-target", "resolve_mutations takes every offset modulo its target's size (mutation_gen.h)");
  for (const char* n : {"0", "1", "2-8", "9-64", "65+"}) {
    std::string why;
    if (std::string(n) == "0") why = "draw_mutations makes 1..8 changes, and every one becomes a line";
    if (std::string(n) == "65+") why = "at most 8 changes of at most 8 bytes (a whole u64 field) each";
    add(fmt::format("lines:{}", n), why);
  }
  add("lines:same-byte-twice");
  for (const char* n : {"0", "1", "2-8", "9-64", "65+"})
    add(fmt::format("changed-bytes:{}", n), std::string(n) == "65+" ? "at most 64 lines, one byte each" : "");
  add("regions:one");
  add("regions:several");
  auto fields = [&](const char* record, std::span<const FieldDef> table) {
    std::set<std::string> seen;
    for (const FieldDef& f : table)
      if (seen.insert(f.name).second) add(fmt::format("field:{}.{}", record, f.name));
  };
  fields("runtime-header", kRuntimeHeader);
  fields("image-header", kImageHeader);
  fields("desc", kDescriptor);
  fields("payload", kPayload);
  fields("slot", kSlot);
  add("field:flag");
  fields("tensor-arg", kTensorArg);
  add("field:scalar-pool");
  add("field:fanin-pool");
  fields("submission", kSubmission);
  fields("submission.tensor-arg", kTensorArg);
  add("field:submission.scalar");
  add("field:padding");
  add("field:unmapped", "every shipped byte is a header, a record, a pool entry or padding (RUNTIME.md §4, §9)");
  add("submission-record:first");
  add("submission-record:later");
  add("task:first");
  add("task:second-to-fourth");
  add("task:fifth-on");
  for (const char* k : kValueKinds) add(fmt::format("value:{}", k));
  for (const char* r : kRecords) add(fmt::format("at-limit:{}", r));
  for (const auto& [r, why] : kByteOnly) u.push_back({fmt::format("at-limit:{}", r), "", why});
  return u;
}

}  // namespace stackcheck::gen
