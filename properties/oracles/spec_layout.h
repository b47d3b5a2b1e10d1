// The image and mirror layout of RUNTIME.md §4, written from the spec for the oracles (never
// from stack/runtime/image/layout.h): the segments in order, each at ALIGN64 of the previous
// end from the header's 128 bytes; per-task segments of `pitch` records, pools of the given
// entry counts. An image has pitch max(n, 1) and its cursors as counts; a mirror has pitch W
// and pools of 32W / 16W / 128W entries.
#pragma once

#include <cstdint>

namespace stackcheck::oracles::spec {

constexpr uint64_t kImgHdrBytes = 128, kTaskRecordBytes = 32, kTensorArgBytes = 64;
// Segments of §4 in order: desc, payload, slot, flag, tensor pool, scalar pool, fanin pool.
enum Seg { kDesc, kPayload, kSlot, kFlag, kTensors, kScalars, kFanin, kSegs };
constexpr uint64_t kSegElem[kSegs] = {32, 32, 32, 1, kTensorArgBytes, 8, 4};

constexpr uint64_t up64(uint64_t x) { return x % 64 == 0 ? x : x + (64 - x % 64); }

struct Layout {
  uint64_t pitch = 0, count[3] = {};
  uint64_t off[kSegs] = {}, end[kSegs] = {};
  uint64_t total = 0;
  Layout(uint64_t p, uint64_t tensors, uint64_t scalars, uint64_t fanin) : pitch(p), count{tensors, scalars, fanin} {
    uint64_t at = kImgHdrBytes;
    for (int s = 0; s < kSegs; ++s) {
      off[s] = up64(at);
      const uint64_t n = s < kTensors ? pitch : count[s - kTensors];
      end[s] = off[s] + n * kSegElem[s];
      at = end[s];
    }
    total = at;
  }
  uint64_t record(int seg, uint64_t i) const { return off[seg] + kTaskRecordBytes * i; }
};

// A mirror of pitch W (§4: pools of 32W / 16W / 128W entries; 128 + 2785 W bytes for W >= 64).
inline Layout mirror_layout(uint64_t W) { return Layout(W, 32 * W, 16 * W, 128 * W); }

}  // namespace stackcheck::oracles::spec
