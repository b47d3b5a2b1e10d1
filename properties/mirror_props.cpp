// The host mirror's lazily filled bytes (stack/runtime/host/mirror_buffer.h, RUNTIME.md §8)
// against a model that fills every byte at reset. What a bind ships is the mirror's bytes, and
// an allocation moves from one Runtime's mirror to the next without a refill, so a block the
// lazy fill skips ships the previous bind's bytes: the byte differentials see that only when the
// stale bytes differ from the fill byte. Here a case runs up to 40 steps on two buffers:
// - reset to sizes at and around block edges (0, one byte, a block, a block and one, several),
//   with a fill byte of its own, smaller or larger than the allocation held;
// - ensure of ranges at block edges, across blocks, empty, or past the size;
// - writes of random bytes to ensured ranges, reads of ensured ranges, materialize;
// - moves between the two buffers (assignment and construction), and resets of the moved-from.
// After every step: size(), blocks(), filled(b) for every block and one past, filled_blocks(),
// capacity() (kept when the size fits it, else the size), data() kept when the allocation is
// reused, and the bytes read equal to the model's: the fill byte where nothing was written since
// the reset. Control (MirrorControl): a model that calls blocks filled when a write reaches
// them, not when ensure does, must fail.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "properties/gen/arbitrary.h"
#include "properties/property.h"
#include "stack/runtime/host/mirror_buffer.h"

using namespace stackcheck;
using runtime::MirrorBuffer;

namespace {

constexpr uint64_t kBlock = MirrorBuffer::kBlockBytes;

// One buffer as the model sees it: every byte as a fully filled buffer would hold it.
struct Model {
  std::vector<uint8_t> bytes;
  std::set<uint64_t> filled;
  uint64_t capacity = 0;
  uint8_t fill = 0;
};

class Checker {
 public:
  Checker(gen::ChoiceSource& c, bool flawed) : c_(c), flawed_(flawed) {}

  std::string run() {
    const size_t steps = c_.length(40);
    for (size_t i = 0; i < steps && failure_.empty(); ++i) {
      const size_t which = c_.one_of(2);
      step(which);
      for (size_t k = 0; k < 2 && failure_.empty(); ++k) check(k);
    }
    return failure_.empty() ? "" : fmt::format("{}\nafter:\n{}", failure_, trace_);
  }

 private:
  uint64_t size_draw() {
    const uint64_t blocks = static_cast<uint64_t>(c_.integer(0, 5));
    return static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(blocks * kBlock) + c_.integer(-2, 2)));
  }
  // A range of buffer k at block edges: [off, off + n).
  std::pair<uint64_t, uint64_t> range(size_t k) {
    const uint64_t size = m_[k].bytes.size();
    const uint64_t b = static_cast<uint64_t>(c_.integer(0, 5));
    uint64_t off = static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(b * kBlock) + c_.integer(-3, 3)));
    if (size > 0 && c_.chance(50)) off = std::min(off, size - 1);
    const uint64_t n = c_.chance(10) ? 0 : static_cast<uint64_t>(c_.near_edges(1, 2 * kBlock + 2));
    return {off, n};
  }
  // A non-empty range of buffer k inside its size, ensured on the buffer and in the model (a
  // write or a read goes through ensure first, as the orchestrator's accesses do); nullopt when
  // the drawn range starts past the size.
  std::optional<std::pair<uint64_t, uint64_t>> inside(size_t k) {
    auto [off, n] = range(k);
    if (off >= m_[k].bytes.size()) return std::nullopt;
    n = std::min<uint64_t>(std::max<uint64_t>(n, 1), m_[k].bytes.size() - off);
    buf_[k].ensure(off, n);
    ensure_model(k, off, n);
    return std::pair{off, n};
  }
  // Model of ensure(off, n): the blocks of the part inside the size.
  void ensure_model(size_t k, uint64_t off, uint64_t n) {
    const uint64_t size = m_[k].bytes.size();
    if (n == 0 || off >= size) return;
    const uint64_t end = std::min(size, off + n);
    for (uint64_t b = off / kBlock; b <= (end - 1) / kBlock; ++b) m_[k].filled.insert(b);
  }

  void step(size_t k) {
    MirrorBuffer& x = buf_[k];
    Model& m = m_[k];
    switch (const size_t op = c_.one_of(7)) {
      case 0: {
        const uint64_t size = size_draw();
        const uint8_t fill = static_cast<uint8_t>(c_.integer(0, 255));
        const std::byte* before = x.data();
        const bool fits = size <= m.capacity;
        note(k, fmt::format("reset({}, {:#04x})", size, fill));
        x.reset(size, fill);
        m.bytes.assign(size, fill), m.filled.clear(), m.fill = fill;
        if (!fits) m.capacity = size;
        if (fits && before != nullptr && x.data() != before)
          failure_ = fmt::format("buffer {}: reset({}) within capacity {} moved the allocation", k, size, m.capacity);
        gen::tag(fits ? "reset:reuse" : "reset:grow");
        return;
      }
      case 1:
      case 2: {
        const auto [off, n] = range(k);
        note(k, fmt::format("ensure({}, {})", off, n));
        x.ensure(off, n);
        if (!flawed_) ensure_model(k, off, n);
        gen::tag("ensure");
        return;
      }
      case 3:
      case 4: {  // a write of one random byte value, or a read
        const auto r = inside(k);
        if (!r) return;
        const auto [off, n] = *r;
        if (op == 4) {
          note(k, fmt::format("read({}, {})", off, n));
          compare(k, reinterpret_cast<const uint8_t*>(x.data()) + off, off, n, "read");
          gen::tag("read");
          return;
        }
        const uint8_t v = static_cast<uint8_t>(c_.integer(0, 255));
        note(k, fmt::format("write({}, {}, {:#04x})", off, n, v));
        std::memset(x.data() + off, v, n);
        std::memset(m.bytes.data() + off, v, n);
        gen::tag("write");
        return;
      }
      case 5: {
        note(k, "materialize()");
        const std::span<std::byte> all = x.materialize();
        for (uint64_t b = 0; b * kBlock < m.bytes.size(); ++b) m.filled.insert(b);
        if (all.size() != m.bytes.size())
          failure_ =
              fmt::format("buffer {}: materialize() spans {} bytes, the size is {}", k, all.size(), m.bytes.size());
        else if (!all.empty())
          compare(k, reinterpret_cast<const uint8_t*>(all.data()), 0, all.size(), "materialize");
        gen::tag("materialize");
        return;
      }
      default: {
        const size_t to = 1 - k;
        const bool construct = c_.boolean();
        note(k,
             fmt::format("buffer {} = move(buffer {}){}", to, k, construct ? " through a moved-constructed one" : ""));
        if (construct) {
          MirrorBuffer moved(std::move(x));
          buf_[to] = std::move(moved);
        } else {
          buf_[to] = std::move(x);
        }
        m_[to] = std::move(m);
        m_[k] = Model{};
        gen::tag("move");
        return;
      }
    }
  }

  void compare(size_t k, const uint8_t* got, uint64_t off, uint64_t n, const char* how) {
    const Model& m = m_[k];
    for (uint64_t i = 0; i < n; ++i)
      if (got[i] != m.bytes[off + i]) {
        failure_ = fmt::format("buffer {}: {} byte {} is {:#04x}, the model {:#04x} (fill {:#04x})", k, how, off + i,
                               got[i], m.bytes[off + i], m.fill);
        return;
      }
  }

  void check(size_t k) {
    const MirrorBuffer& x = buf_[k];
    const Model& m = m_[k];
    const uint64_t blocks = (m.bytes.size() + kBlock - 1) / kBlock;
    if (x.size() != m.bytes.size() || x.blocks() != blocks || x.capacity() != m.capacity)
      return void(failure_ = fmt::format("buffer {}: size {} blocks {} capacity {}, the model {} {} {}", k, x.size(),
                                         x.blocks(), x.capacity(), m.bytes.size(), blocks, m.capacity));
    if (x.filled_blocks() != m.filled.size())
      return void(
          failure_ = fmt::format("buffer {}: filled_blocks() {}, the model {}", k, x.filled_blocks(), m.filled.size()));
    for (uint64_t b = 0; b <= blocks; ++b)
      if (x.filled(b) != (m.filled.count(b) > 0))
        return void(failure_ =
                        fmt::format("buffer {}: filled({}) is {}, the model {}", k, b, x.filled(b), !x.filled(b)));
    if (m.bytes.size() > 0 && x.fill_byte() != m.fill)
      failure_ = fmt::format("buffer {}: fill_byte() {:#04x}, the model {:#04x}", k, x.fill_byte(), m.fill);
  }

  void note(size_t k, const std::string& what) { trace_ += fmt::format("  buffer {}: {}\n", k, what); }

  gen::ChoiceSource& c_;
  bool flawed_;
  MirrorBuffer buf_[2];
  Model m_[2];
  std::string failure_, trace_;
};

void mirror_case(bool flawed) {
  gen::feature_tally().begin_case();
  Checker k(gen::choices(), flawed);
  if (const std::string failure = k.run(); !failure.empty())
    props::report(oracles::Verdict::fail("mirror-buffer", failure));
}

}  // namespace

STACKCHECK_PROP(MirrorProps, lazily_filled_mirror_reads_as_a_filled_one, 0.0) { mirror_case(false); }

STACKCHECK_CONTROL(MirrorControl, a_model_filling_blocks_only_on_writes_fails, "filled") { mirror_case(true); }
