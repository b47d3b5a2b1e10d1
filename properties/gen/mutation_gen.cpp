#include "properties/gen/mutation_gen.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

namespace stackcheck::gen {

namespace {
// Bytes of the ImageHeader's figures (records.h): pitch, n, image_bytes, the segment
// offsets of the seven segments, and the three pool counts.
constexpr uint64_t kImageHeaderFigures[] = {16, 17, 20, 21, 48,  49,  50,  56,  64,
                                            72, 80, 88, 96, 104, 112, 113, 116, 120};
// Bytes of a GraphSubmission's figures: block_base, block_bytes, n_bt, n_bs, record_bytes.
constexpr uint64_t kSubmissionFigures[] = {16, 17, 20, 24, 25, 26, 36, 38, 40, 41};
// Bytes of the fields a task's records must hold as zero or open (DirtyPadding, RUNTIME.md
// §11), each as (segment, offset in the record): the descriptor's reserved @12, the payload's
// reserved @20, the slot's wake_head @12, wake_next @16, wake_count @20, reserved @22.
constexpr std::pair<int, uint64_t> kZeroFields[] = {{0, 12}, {0, 15}, {1, 20}, {1, 23}, {2, 12},
                                                    {2, 16}, {2, 20}, {2, 22}, {2, 23}};
// Whole fields of the records (RUNTIME.md §4, §5, §9), for the field-level changes (where 12):
// the record, the field's offset in it and its width in bytes.
enum class Rec : uint8_t { kRuntime, kImage, kDesc, kPayload, kSlot, kSubmission };
struct Field {
  Rec rec;
  uint8_t off, width;
};
constexpr Field kFields[] = {
    // RuntimeHeader: magic, version, W, Q, graph_count, image .. region_bytes, reserved
    {Rec::kRuntime, 0, 8},
    {Rec::kRuntime, 8, 4},
    {Rec::kRuntime, 12, 4},
    {Rec::kRuntime, 16, 4},
    {Rec::kRuntime, 20, 4},
    {Rec::kRuntime, 24, 8},
    {Rec::kRuntime, 32, 8},
    {Rec::kRuntime, 40, 8},
    {Rec::kRuntime, 48, 8},
    {Rec::kRuntime, 56, 8},
    {Rec::kRuntime, 64, 8},
    {Rec::kRuntime, 72, 8},
    {Rec::kRuntime, 80, 8},
    {Rec::kRuntime, 88, 8},
    {Rec::kRuntime, 96, 8},
    {Rec::kRuntime, 104, 8},
    {Rec::kRuntime, 112, 8},
    {Rec::kRuntime, 120, 8},
    // ImageHeader: magic, version, W, pitch, n, orch_done, the error words, image_bytes, seg_off[7], counts, reserved
    {Rec::kImage, 0, 8},
    {Rec::kImage, 8, 4},
    {Rec::kImage, 12, 4},
    {Rec::kImage, 16, 4},
    {Rec::kImage, 20, 4},
    {Rec::kImage, 24, 4},
    {Rec::kImage, 28, 4},
    {Rec::kImage, 32, 4},
    {Rec::kImage, 36, 4},
    {Rec::kImage, 40, 8},
    {Rec::kImage, 48, 8},
    {Rec::kImage, 56, 8},
    {Rec::kImage, 64, 8},
    {Rec::kImage, 72, 8},
    {Rec::kImage, 80, 8},
    {Rec::kImage, 88, 8},
    {Rec::kImage, 96, 8},
    {Rec::kImage, 104, 8},
    {Rec::kImage, 112, 4},
    {Rec::kImage, 116, 4},
    {Rec::kImage, 120, 4},
    {Rec::kImage, 124, 4},
    // TaskDescriptor: task_id, kernel_id, kind, reserved, heap_begin, heap_end
    {Rec::kDesc, 0, 4},
    {Rec::kDesc, 4, 4},
    {Rec::kDesc, 8, 4},
    {Rec::kDesc, 12, 4},
    {Rec::kDesc, 16, 8},
    {Rec::kDesc, 24, 8},
    // TaskPayload: the four counts, the three pool deltas, reserved, graph_ctx
    {Rec::kPayload, 0, 2},
    {Rec::kPayload, 2, 2},
    {Rec::kPayload, 4, 2},
    {Rec::kPayload, 6, 2},
    {Rec::kPayload, 8, 4},
    {Rec::kPayload, 12, 4},
    {Rec::kPayload, 16, 4},
    {Rec::kPayload, 20, 4},
    {Rec::kPayload, 24, 8},
    // SlotState: state, desc and payload deltas, wake_head, wake_next, wake_count, reserved,
    // last_consumer, fanin_cursor
    {Rec::kSlot, 0, 4},
    {Rec::kSlot, 4, 4},
    {Rec::kSlot, 8, 4},
    {Rec::kSlot, 12, 4},
    {Rec::kSlot, 16, 4},
    {Rec::kSlot, 20, 2},
    {Rec::kSlot, 22, 2},
    {Rec::kSlot, 24, 4},
    {Rec::kSlot, 28, 4},
    // GraphSubmission: definition_addr, definition_hash, block_base, block_bytes, outer_id, n_bt, n_bs,
    // record_bytes
    {Rec::kSubmission, 0, 8},
    {Rec::kSubmission, 8, 8},
    {Rec::kSubmission, 16, 8},
    {Rec::kSubmission, 24, 8},
    {Rec::kSubmission, 32, 4},
    {Rec::kSubmission, 36, 2},
    {Rec::kSubmission, 38, 2},
    {Rec::kSubmission, 40, 8},
};

uint64_t load_le(std::span<const std::byte> b, uint64_t at, unsigned width) {
  uint64_t v = 0;
  for (unsigned k = 0; k < width && at + k < b.size(); ++k) v |= static_cast<uint64_t>(b[at + k]) << (8 * k);
  return v;
}

// A field's new value at a limit: the old one off by a step the layouts use (1, 4, 8, 32, 64,
// 128, either way), zero, all ones, the int32 limits (INT32_MAX, INT32_MIN as the field holds
// it), or one bit flipped anywhere in it.
uint64_t field_value(uint64_t old, unsigned width, uint8_t op, uint8_t value) {
  static constexpr uint64_t kSteps[] = {1, 4, 8, 32, 64, 128};
  const uint64_t mask = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
  switch (op) {
    case 0: {
      const uint64_t step = kSteps[(value / 2) % std::size(kSteps)];
      return (value % 2 ? old + step : old - step) & mask;
    }
    case 1: return 0;
    case 2: return mask;
    case 3: return (value % 2 ? uint64_t{0x7fff'ffff} : uint64_t{0x8000'0000}) & mask;
    default: return (old ^ (uint64_t{1} << (value % (8 * width)))) & mask;
  }
}

}  // namespace

std::vector<MutationDraw> draw_mutations(ChoiceSource& c) {
  // Seven cases in eight put every change in one region (the runtime header, the ImageHeader's
  // figures, the first records, anywhere, the first submission record twice as often: its
  // figures are attach's last checks), so that a check late in attach's order (a submission
  // record's figures, BadGraphContext) is reached by a case none of whose changes an earlier
  // check rejects first (the fanin pool's entries, which attach never reads, among them); the
  // eighth mixes regions per change. Half the cases make a single
  // change, which reaches each check on its own; the others make 2..8.
  static constexpr uint8_t kFocus[] = {0, 2, 5, 7, 9, 9, 10, 11, 12, 12};
  const size_t focus = c.one_of(std::size(kFocus) + 1);
  std::vector<MutationDraw> out(c.boolean() ? 2 + c.one_of(7) : 1);
  for (MutationDraw& d : out) {
    const auto where = static_cast<uint8_t>(c.integer(0, 12));
    d.where = focus < std::size(kFocus) ? kFocus[focus] : where;
    d.at = static_cast<uint32_t>(c.integer(0, 0xFFFF'FFFF));
    d.op = static_cast<uint8_t>(c.integer(0, 4));
    d.value = static_cast<uint8_t>(c.integer(0, 255));
  }
  return out;
}

// long: one pass over the draws sharing the bytes changed so far (byte_now): a whole field at a limit, else one
// byte by its `where`; under gen/, kept whole so the mutations stay byte-identical
std::vector<runtime::Mutation> resolve_mutations(std::span<const MutationDraw> draws, std::span<const std::byte> staged,
                                                 uint64_t image_offset) {
  std::vector<runtime::Mutation> out;
  const uint64_t header_bytes = std::min<uint64_t>(image_offset, staged.size());
  const uint64_t image_bytes = staged.size() - header_bytes;
  if (staged.empty()) return out;
  // The first submission record follows the image (ImageHeader::image_bytes @48) at the next
  // 64-byte boundary; none when the upload ends there (or the header is too short to say).
  uint64_t subs_at = image_bytes;
  if (image_bytes >= sizeof(uint64_t) + 48) {
    uint64_t img = 0;
    std::memcpy(&img, staged.data() + header_bytes + 48, sizeof img);
    if (img <= image_bytes) subs_at = std::min(image_bytes, (header_bytes + img + 63) / 64 * 64 - header_bytes);
  }
  std::map<uint64_t, uint8_t> changed;  // absolute offset -> value so far
  auto byte_now = [&](uint64_t at) {
    const auto seen = changed.find(at);
    return seen != changed.end() ? seen->second : static_cast<uint8_t>(staged[at]);
  };
  for (const MutationDraw& d : draws) {
    if (d.where == 12 && image_bytes >= 128) {
      // A whole field of a record at a limit (kFields): the runtime header's, the ImageHeader's,
      // task i's descriptor, payload or slot (any i < n, its segment's base read from the
      // ImageHeader) or the first submission record's, its value read as the upload holds it.
      const Field& f = kFields[d.at % std::size(kFields)];
      const uint64_t n = std::max<uint64_t>(load_le(staged, header_bytes + 20, 4), 1);
      const uint64_t task = (d.at / std::size(kFields)) % n;
      uint64_t base = 0;  // absolute offset of the record
      bool header = false;
      switch (f.rec) {
        case Rec::kRuntime: header = true; break;
        case Rec::kImage: base = header_bytes; break;
        case Rec::kDesc:
        case Rec::kPayload:
        case Rec::kSlot:
          base = header_bytes +
                 load_le(staged,
                         header_bytes + 56 +
                             8 * static_cast<uint64_t>(f.rec == Rec::kDesc      ? 0
                                                       : f.rec == Rec::kPayload ? 1
                                                                                : 2),
                         8) +
                 32 * task;
          break;
        case Rec::kSubmission: base = header_bytes + subs_at; break;
      }
      const bool fits = header ? header_bytes >= uint64_t{f.off} + f.width
                               : base >= header_bytes && base + f.off + f.width <= staged.size();
      if (fits) {
        const uint64_t at = base + f.off;
        uint64_t old = 0;
        for (unsigned k = 0; k < f.width; ++k) old |= static_cast<uint64_t>(byte_now(at + k)) << (8 * k);
        uint64_t v = field_value(old, f.width, d.op, d.value);
        // An address or size field (8 bytes) sometimes takes another address of the same
        // upload instead: the region, image, submissions, device-only zone or a heap (the
        // RuntimeHeader's @24, @40, @56, @72, @88, @104), plus 0..3 lines, so a pointer lands
        // on memory that is mapped but holds something else.
        if (f.width == 8 && d.op == 3 && d.value % 3 == 0 && header_bytes >= 112) {
          static constexpr uint64_t kAddresses[] = {24, 40, 56, 72, 88, 104};
          v = load_le(staged, kAddresses[(d.value / 3) % std::size(kAddresses)], 8) + 64 * ((d.value / 18) % 4);
        }
        for (unsigned k = 0; k < f.width; ++k) {
          runtime::Mutation m;
          m.target = header ? runtime::MutationTarget::kRuntimeHeader : runtime::MutationTarget::kImage;
          m.offset = header ? at + k : at + k - header_bytes;
          m.value = static_cast<uint8_t>(v >> (8 * k));
          changed[at + k] = m.value;
          out.push_back(m);
        }
        continue;
      }
      // No such record in this upload (no submission, a header too short): a byte anywhere.
    }
    runtime::Mutation m;
    if ((d.where < 2 && header_bytes > 0) || image_bytes == 0) {
      m.target = runtime::MutationTarget::kRuntimeHeader;
      m.offset = d.at % header_bytes;
    } else {
      m.target = runtime::MutationTarget::kImage;
      if (d.where < 5)
        m.offset = std::min(kImageHeaderFigures[d.at % std::size(kImageHeaderFigures)], image_bytes - 1);
      else if (d.where < 7)
        m.offset = d.at % std::min<uint64_t>(image_bytes, 512);
      else if (d.where == 9 && subs_at < image_bytes)  // block base and size, counts, record size
        m.offset = std::min(subs_at + kSubmissionFigures[d.at % std::size(kSubmissionFigures)], image_bytes - 1);
      else if (d.where == 10 && image_bytes >= 56 + 3 * sizeof(uint64_t)) {
        // a zero field of task (at / 9) % 4's records, its segment's base read from the
        // ImageHeader (seg_off @56) and its records 32 bytes apart
        const auto& [seg, field] = kZeroFields[d.at % std::size(kZeroFields)];
        uint64_t base = 0;
        std::memcpy(&base, staged.data() + header_bytes + 56 + 8 * seg, sizeof base);
        const uint64_t at = base + 32 * ((d.at / std::size(kZeroFields)) % 4) + field;
        m.offset = at < image_bytes ? at : d.at % image_bytes;
      } else if (d.where == 11 && image_bytes >= 128) {
        // a byte of the fanin pool's entries (seg_off[6] @104, fanin_count @120): attach reads
        // none of them, the scheduler's classification every one
        uint64_t base = 0;
        uint32_t count = 0;
        std::memcpy(&base, staged.data() + header_bytes + 104, sizeof base);
        std::memcpy(&count, staged.data() + header_bytes + 120, sizeof count);
        const bool inside = count > 0 && base < image_bytes && image_bytes - base >= 4ull * count;
        m.offset = inside ? base + d.at % (4ull * count) : d.at % image_bytes;
      } else
        m.offset = d.at % image_bytes;
    }
    const uint64_t at = m.target == runtime::MutationTarget::kRuntimeHeader ? m.offset : header_bytes + m.offset;
    const uint8_t old = byte_now(at);
    switch (d.op) {
      case 0: m.value = d.value; break;
      case 1: m.value = 0; break;
      case 2: m.value = 255; break;
      case 3: m.value = static_cast<uint8_t>(old ^ (1u << (d.value % 8))); break;
      default: m.value = static_cast<uint8_t>(d.value % 2 == 1 ? old + 1 : old - 1);
    }
    changed[at] = m.value;
    out.push_back(m);
  }
  return out;
}

size_t record_field_count() { return std::size(kFields); }

std::vector<runtime::Mutation> field_change(std::span<const std::byte> staged, uint64_t image_offset, size_t field,
                                            uint32_t task, uint8_t op, uint8_t value) {
  const MutationDraw d{12, static_cast<uint32_t>(field % std::size(kFields) + std::size(kFields) * task), op, value};
  return resolve_mutations(std::span(&d, 1), staged, image_offset);
}

std::vector<runtime::Mutation> generate_mutations(ChoiceSource& c, std::span<const std::byte> staged,
                                                  uint64_t image_offset) {
  const std::vector<MutationDraw> draws = draw_mutations(c);
  return resolve_mutations(draws, staged, image_offset);
}

}  // namespace stackcheck::gen
