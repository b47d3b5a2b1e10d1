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
}  // namespace

std::vector<MutationDraw> draw_mutations(ChoiceSource& c) {
  // Seven cases in eight put every change in one region (the runtime header, the ImageHeader's
  // figures, the first records, anywhere, the first submission record twice as often: its
  // figures are attach's last checks), so that a check late in attach's order (a submission
  // record's figures, BadGraphContext) is reached by a case none of whose changes an earlier
  // check rejects first (the fanin pool's entries, which attach never reads, among them); the
  // eighth mixes regions per change. Half the cases make a single
  // change, which reaches each check on its own; the others make 2..8.
  static constexpr uint8_t kFocus[] = {0, 2, 5, 7, 9, 9, 10, 11};
  const size_t focus = c.one_of(std::size(kFocus) + 1);
  std::vector<MutationDraw> out(c.boolean() ? 2 + c.one_of(7) : 1);
  for (MutationDraw& d : out) {
    const auto where = static_cast<uint8_t>(c.integer(0, 11));
    d.where = focus < std::size(kFocus) ? kFocus[focus] : where;
    d.at = static_cast<uint32_t>(c.integer(0, 0xFFFF'FFFF));
    d.op = static_cast<uint8_t>(c.integer(0, 4));
    d.value = static_cast<uint8_t>(c.integer(0, 255));
  }
  return out;
}

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
  for (const MutationDraw& d : draws) {
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
      }
      else if (d.where == 11 && image_bytes >= 128) {
        // a byte of the fanin pool's entries (seg_off[6] @104, fanin_count @120): attach reads
        // none of them, the scheduler's classification every one
        uint64_t base = 0;
        uint32_t count = 0;
        std::memcpy(&base, staged.data() + header_bytes + 104, sizeof base);
        std::memcpy(&count, staged.data() + header_bytes + 120, sizeof count);
        const bool inside = count > 0 && base < image_bytes && image_bytes - base >= 4ull * count;
        m.offset = inside ? base + d.at % (4ull * count) : d.at % image_bytes;
      }
      else
        m.offset = d.at % image_bytes;
    }
    const uint64_t at = m.target == runtime::MutationTarget::kRuntimeHeader ? m.offset : header_bytes + m.offset;
    const auto seen = changed.find(at);
    const uint8_t old = seen != changed.end() ? seen->second : static_cast<uint8_t>(staged[at]);
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

std::vector<runtime::Mutation> generate_mutations(ChoiceSource& c, std::span<const std::byte> staged,
                                                  uint64_t image_offset) {
  const std::vector<MutationDraw> draws = draw_mutations(c);
  return resolve_mutations(draws, staged, image_offset);
}

}  // namespace stackcheck::gen
