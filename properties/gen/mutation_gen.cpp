#include "properties/gen/mutation_gen.h"

#include <algorithm>
#include <map>

namespace stackcheck::gen {

namespace {
// Bytes of the ImageHeader's figures (records.h): pitch, n, image_bytes, the segment
// offsets of the seven segments, and the three pool counts.
constexpr uint64_t kImageHeaderFigures[] = {16, 17, 20, 21, 48,  49,  50,  56,  64,
                                            72, 80, 88, 96, 104, 112, 113, 116, 120};
}  // namespace

std::vector<MutationDraw> draw_mutations(ChoiceSource& c) {
  std::vector<MutationDraw> out(1 + c.one_of(8));
  for (MutationDraw& d : out) {
    d.where = static_cast<uint8_t>(c.integer(0, 9));
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
