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
#include "stack/runtime/host/mirror_buffer.h"
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

// What Bench::reset does; a test leaves one step out to show the reset oracle sees it.
enum class BenchReset : uint8_t {
  kFull,        // a new Runtime on the device memory reset, in the old mirror's allocation
  kKeepMemory,  // (positive control) the device memory is not reset
};

class Bench {
 public:
  ~Bench();  // keeps its mirror's allocation for this thread's next create
  // The Runtime of `p.config` (fill_byte overrides the config's); nullopt message on a
  // rejected config.
  static std::unique_ptr<Bench> create(const runtime::OrchProgram& p, std::optional<uint8_t> fill_byte,
                                       bool strict_uninit, std::string* error = nullptr);
  // This bench made again as create(p, fill_byte, strict_uninit) would make it, reusing its
  // allocations: the Runtime is destroyed, the device memory reset (its pages kept as spares),
  // and a new Runtime created on it in the old mirror's allocation. Every later bind gives
  // byte-identical results to one on a fresh bench (Determinism.reset_bench_binds_as_fresh).
  // False, with the message, on a rejected config (the bench is then unusable).
  bool reset(const runtime::OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit,
             std::string* error = nullptr, BenchReset how = BenchReset::kFull);
  // A bench for `p` from this thread's spare one (reset), or a new one: how the judges of a
  // process that judges many inputs pay for device memory, mirror and pages once. Give it back
  // with recycle() when done (which frees what its binds allocated, keeping the pages and the
  // mirror's allocation); null with the message on a rejected config.
  static std::unique_ptr<Bench> acquire(const runtime::OrchProgram& p, std::optional<uint8_t> fill_byte,
                                        bool strict_uninit, std::string* error = nullptr);
  static void recycle(std::unique_ptr<Bench> b);
  // Binds `p`, capturing the shipped bytes; `opts.before_upload`, if set, runs after the capture.
  Captured bind(const runtime::OrchProgram& p, runtime::BindOptions opts = {});
  runtime::DeviceMemory& memory() { return *mem_; }
  runtime::Runtime& runtime() { return *rt_; }
  // Destroys the Runtime (runtime() is then unusable until a reset) and reads the device
  // memory: everything a Runtime reserved (heaps, region, entry tensors, graph definitions)
  // must be released with it (rule "teardown", naming the first reservation still live).
  Verdict check_teardown();

 private:
  std::unique_ptr<runtime::DeviceMemory> mem_;  // first: outlives the Runtime
  std::unique_ptr<runtime::Runtime> rt_;
  runtime::MirrorBuffer spare_mirror_;  // a torn-down Runtime's mirror, for the next reset
};

// A bench from Bench::acquire, given back to the thread's spare when it goes.
struct BenchRecycler {
  void operator()(Bench* b) const;
};
using BenchLease = std::unique_ptr<Bench, BenchRecycler>;
// Bench::acquire as a lease; null with the message on a rejected config.
BenchLease lease_bench(const runtime::OrchProgram& p, std::optional<uint8_t> fill_byte, bool strict_uninit,
                       std::string* error = nullptr);

// The first byte at which two host mirrors read differently, as materialize() would leave them
// (a block not filled reads as its buffer's fill byte), compared block by block without filling
// either (a mirror is 45 MB at the default W; the binds fill a few blocks of it).
struct MirrorDifference {
  uint64_t at;
  uint8_t a, b;
};
std::optional<MirrorDifference> first_mirror_difference(const runtime::MirrorBuffer& a, const runtime::MirrorBuffer& b);

// A reset bench is a fresh one: `used` (reset) and `fresh` (created) after the same bind hold
// the same mirror bytes and the same device memory as observed from outside: every
// reservation (base, size, name, liveness, who made it, the copies that landed in it), the
// host-copy ledger, the copy counters, uninitialised reads, resident pages, and per live
// reservation its written and read bytes and (up to 4 MiB) its contents.
Verdict check_same_bench_state(Bench& used, Bench& fresh);

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
