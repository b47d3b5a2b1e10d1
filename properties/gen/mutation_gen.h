// Image mutations (HARNESS.md §1 "image bytes"): byte changes of a staged upload
// ([RuntimeHeader][image][pad][submissions], as the bind's before-upload hook sees it),
// written once over a ChoiceSource so the corrupt-image property and fuzz_attach draw them
// alike. One change (half the cases) or 2..8, all in one region (six cases in seven, the
// submission record's figures a third of those) or each in its own; a region is
// the runtime header, a figure of the ImageHeader (pitch, n, image_bytes, segment offsets,
// pool counts), the first records, a figure of the first graph submission record, or
// a zero field (reserved, wake) of one of the first four tasks' descriptor, payload or slot
// records, a byte of the fanin pool's entries, or anywhere in the image and submissions, or a
// whole field of a record set to a value at a limit (where 12); a byte's value is any byte, 0, 255, the byte there with one bit
// flipped, or the byte there +-1, so figures shrink, grow and go off by one. Choice 0 at
// every step is the simplest: one change, byte 0 of the runtime header, value 0.
//
// Drawn in two steps, so that a byte engine can draw the changes BEFORE the plan whose upload
// they change (the first bytes of a fuzz input then decide the corruption, and an input that
// runs out while decoding the plan still has its changes): draw_mutations takes every choice
// (an offset as a 32-bit draw), resolve_mutations places them on an upload (that draw modulo
// the target's size) as `mutate` lines, offsets relative to their target, in order, which
// oracles::apply_mutations applies to the same upload exactly; a later change of the same
// byte sees the earlier one. No RapidCheck here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "properties/gen/choice.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen {

// One change before it meets an upload.
struct MutationDraw {
  uint8_t where = 0;  // 0-1 runtime header, 2-4 an ImageHeader figure, 5-6 the first 512 image bytes,
                      // 7-8 anywhere, 9 a figure of the first submission record (else anywhere),
                      // 10 a zero field (reserved, wake) of one of the first four tasks' records,
                      // 11 a byte of the fanin pool's entries (else anywhere),
                      // 12 a whole field of a record (the two headers, task i's descriptor,
                      // payload or slot for any i < n, the first submission record) set to a
                      // value at a limit: off by 1/4/8/32/64/128 either way, 0, all ones,
                      // INT32_MAX or INT32_MIN, or one bit flipped (`op`, `value`); an
                      // 8-byte field sometimes another address of the upload (region,
                      // image, submissions, device-only zone, a heap) plus 0..3 lines
  uint32_t at = 0;    // which byte of that range (modulo its size)
  uint8_t op = 0;     // 0 `value`, 1 zero, 2 all ones, 3 flip bit `value % 8`, 4 +1 (value odd) or -1
  uint8_t value = 0;
  bool operator==(const MutationDraw&) const = default;
};

std::vector<MutationDraw> draw_mutations(ChoiceSource& c);

// `staged`: the upload's bytes; `image_offset`: where its ImageHeader starts (the runtime
// header is everything before). Empty when the upload has no byte to change.
std::vector<runtime::Mutation> resolve_mutations(std::span<const MutationDraw> draws, std::span<const std::byte> staged,
                                                 uint64_t image_offset);

// The field-level changes (where 12) one at a time: how many fields the table has (a draw's
// `at` picks field at % count of task at / count), and the change of field `field` of task
// `task` (records that have tasks) with `op` and `value` as MutationDraw has them.
size_t record_field_count();
std::vector<runtime::Mutation> field_change(std::span<const std::byte> staged, uint64_t image_offset, size_t field,
                                            uint32_t task, uint8_t op, uint8_t value);

// Both steps at once, for an engine that draws after the upload is known (the properties).
std::vector<runtime::Mutation> generate_mutations(ChoiceSource& c, std::span<const std::byte> staged,
                                                  uint64_t image_offset);

}  // namespace stackcheck::gen
