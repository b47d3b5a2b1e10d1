// Structural checks of a shipped image (RUNTIME.md §15.1-§15.3), re-derived from the bytes
// and the record layouts alone (independently of attach, which enforces the same rules on
// the device): every self-relative delta is unbound or an int32 that resolves to the right
// record in its own buffer, and resolution survives a copy to any base.
//
// Bench binds a plan on its own DeviceMemory and Runtime and keeps what the one copy shipped
// (captured by a before-upload hook), so properties can read the image as the device got it,
// the Runtime's mirror, and device memory after the run (DeviceMemory::inspect).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "properties/oracles/oracle.h"
#include "stack/runtime/devmem/device_memory.h"
#include "stack/runtime/host/bind.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::oracles {

struct Captured {
  runtime::BindResult result;
  std::vector<std::byte> staged;  // [RuntimeHeader][image][submissions] as copied (empty: no copy)
  uint64_t image_offset = 0, image_bytes = 0;
  runtime::DevAddr destination;
  uint64_t first_copy = 0;  // the device memory's copy-ledger length when the bind began
  std::span<const std::byte> image() const {
    return std::span<const std::byte>(staged).subspan(image_offset, image_bytes);
  }
};

class Bench {
 public:
  // The Runtime of `p.config` (fill_byte overrides the config's); nullopt message on a
  // rejected config.
  static std::unique_ptr<Bench> create(const runtime::OrchProgram& p, std::optional<uint8_t> fill_byte,
                                       bool strict_uninit, std::string* error = nullptr);
  // Binds `p`, capturing the shipped bytes; `opts.before_upload`, if set, runs after the capture.
  Captured bind(const runtime::OrchProgram& p, runtime::BindOptions opts = {});
  runtime::DeviceMemory& memory() { return *mem_; }
  runtime::Runtime& runtime() { return *rt_; }

 private:
  std::unique_ptr<runtime::DeviceMemory> mem_;  // first: outlives the Runtime
  std::unique_ptr<runtime::Runtime> rt_;
};

// §15.1: the image's slot deltas point to record i of their own index; payload deltas are
// bound exactly when their count is > 0 and point to an aligned element (a scalar region to
// a whole 8-entry line) of their pool with the whole run below the pool's count; the layout
// is the planner's. `what` names the buffer in messages.
Verdict check_image_deltas(std::span<const std::byte> image, const std::string& what = "image");

// §15.3: the image copied into a device reservation at `offset` (lazily backed, so offsets
// near 2^31 and 2^32 cost nothing) resolves every delta to the same record, read back with
// device loads and resolve().
Verdict check_position_independent(std::span<const std::byte> image, uint64_t offset);

}  // namespace stackcheck::oracles
