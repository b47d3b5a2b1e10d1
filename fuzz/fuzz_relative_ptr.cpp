// fuzz_relative_ptr: the int32 self-relative delta (RUNTIME.md §3, §15.1, §15.3) against an
// independent 128-bit model. For (field, target): a delta exists iff target != field and
// target - field fits int32; it is then exactly that difference (never truncated), resolves
// back to the target (offsets and device addresses), and is unchanged when both are moved
// by the same base (position independence). Raw input: u64 field, u64 target, u64 rebase
// (little-endian, zero-padded). Text form: `# stackcheck fuzz_relative_ptr`, then lines
// `field_off target_off` (checked as they are and rebased by 2^32 and by 2^63) or
// `field_off target_off rebase` (checked with that rebase, as a raw input is: the text form
// of raw bytes is that one line); comment and blank lines are skipped, any other line is
// not the text form (rejected: a truncated or garbled file says so instead of passing).
// Each pair also places a SelfRelativePtr<int32_t> in a real buffer at the pair's positions
// modulo its size (check_object).
#include "fuzz/fuzz_target.h"
#include "stack/runtime/image/self_relative.h"

#include <fmt/format.h>
#include <cstring>
#include <new>
#include <string>

namespace {

using stackcheck::oracles::Verdict;

void fail(const std::string& msg) {
  stackcheck::fuzz::report_finding("fuzz_relative_ptr", "relative-ptr", Verdict::fail("int32-delta", msg));
}

void check_pair(uint64_t field, uint64_t target) {
  using namespace stackcheck::runtime;
  const __int128 diff = static_cast<__int128>(target) - static_cast<__int128>(field);
  const bool fits = diff != 0 && diff >= INT32_MIN && diff <= INT32_MAX;
  const std::optional<int32_t> d = delta_for(field, target);
  if (d.has_value() != fits)
    fail(fmt::format("delta_for({}, {}) is {} but the difference {} {} int32", field, target,
                     d ? std::to_string(*d) : "unbound", static_cast<long long>(diff > INT64_MAX ? INT64_MAX : diff),
                     fits ? "fits" : "does not fit"));
  if (!d) return;
  if (static_cast<__int128>(*d) != diff) fail(fmt::format("delta_for({}, {}) = {}: truncated", field, target, *d));
  const auto back = resolve_offset(field, *d);
  if (!back || *back != target) fail(fmt::format("resolve_offset({}, {}) does not give {}", field, *d, target));
  const auto dev = resolve(DevAddr(field), *d);
  if (!dev || dev->raw() != target) fail(fmt::format("resolve(DevAddr {}, {}) does not give {}", field, *d, target));
}

// SelfRelativePtr<T> in a real buffer, at the pair's positions modulo its size: set() binds
// (get() is the target, the delta the byte difference) unless the target is the field itself
// (unbound, false); set(nullptr) unbinds and reports success.
void check_object(uint64_t field, uint64_t target) {
  using stackcheck::runtime::SelfRelativePtr;
  constexpr uint64_t kInts = 1u << 14;
  alignas(8) static int32_t buf[kInts];
  const uint64_t fi = field % kInts, ti = target % kInts;
  auto* p = new (&buf[fi]) SelfRelativePtr<int32_t>();
  if (p->bound() || p->get() != nullptr) fail("a new SelfRelativePtr is bound");
  const bool ok = p->set(&buf[ti]);
  const int64_t want = (static_cast<int64_t>(ti) - static_cast<int64_t>(fi)) * 4;
  if (fi == ti) {
    if (ok || p->bound() || p->get() != nullptr)
      fail(fmt::format("SelfRelativePtr at int {} set to itself: set()={}, bound()={}", fi, ok, p->bound()));
  } else if (!ok || !p->bound() || p->get() != &buf[ti] || p->delta() != want) {
    fail(fmt::format("SelfRelativePtr at int {} set to int {}: set()={}, delta {} (want {}), get() {}", fi, ti, ok,
                     p->delta(), want, p->get() == &buf[ti] ? "the target" : "elsewhere"));
  }
  if (!p->set(nullptr) || p->bound() || p->get() != nullptr) fail("SelfRelativePtr::set(nullptr) does not unbind");
  p->~SelfRelativePtr<int32_t>();
}

void check_with_rebase(uint64_t field, uint64_t target, uint64_t base) {
  check_pair(field, target);
  check_object(field, target);
  // Position independence: moving both ends by the same base keeps the delta, when the
  // moved offsets do not wrap.
  if (field + base < field || target + base < target) return;
  const auto a = stackcheck::runtime::delta_for(field, target);
  const auto b = stackcheck::runtime::delta_for(field + base, target + base);
  if (a != b) fail(fmt::format("delta of ({}, {}) changes when rebased by {}", field, target, base));
  check_pair(field + base, target + base);
}

struct Raw {
  uint64_t field = 0, target = 0, rebase = 0;
};

Raw decode(const uint8_t* data, size_t size) {
  uint8_t buf[24] = {};
  if (size > 0) std::memcpy(buf, data, size < sizeof buf ? size : sizeof buf);
  auto le64 = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | buf[at + static_cast<size_t>(i)];
    return v;
  };
  return Raw{le64(0), le64(8), le64(16)};
}

bool parse_u64(const std::string& s, size_t& i, uint64_t& out) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    const uint64_t dgt = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - dgt) / 10) return false;
    v = v * 10 + dgt;
  }
  out = v;
  return true;
}

}  // namespace

namespace stackcheck::fuzz {
const char* target_name() { return "fuzz_relative_ptr"; }
bool parses_text_form() { return true; }
std::string text_form(std::span<const uint8_t> in) {
  const std::string_view text = as_text(in.data(), in.size());
  if (is_text_form(text)) return with_header(target_name(), text);
  const Raw r = decode(in.data(), in.size());
  return fmt::format("# stackcheck {}\n{} {} {}\n", target_name(), r.field, r.target, r.rebase);
}
}  // namespace stackcheck::fuzz

namespace {
// The delta of a pair, as the determinism check sees it (replay build only).
void observe_delta(stackcheck::fuzz::Judge& judge, uint64_t field, uint64_t target) {
  judge.observe([&] {
    const std::optional<int32_t> d = stackcheck::runtime::delta_for(field, target);
    return stackcheck::oracles::digest_u64(stackcheck::support::kFnvOffset,
                                           d ? 1 + static_cast<uint64_t>(static_cast<uint32_t>(*d)) : 0);
  });
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  stackcheck::fuzz::Judge judge(stackcheck::fuzz::target_name());
  const std::string_view in = stackcheck::fuzz::as_text(data, size);
  if (stackcheck::fuzz::is_text_form(in)) {
    size_t start = 0, pairs = 0, number = 0;
    while (start < in.size()) {
      ++number;
      size_t end = in.find('\n', start);
      if (end == std::string_view::npos) end = in.size();
      const std::string line(in.substr(start, end - start));
      start = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
      size_t i = 0;
      uint64_t field = 0, target = 0, rebase = 0;
      const bool pair = parse_u64(line, i, field) && parse_u64(line, i, target);
      const bool with_rebase = pair && parse_u64(line, i, rebase);
      if (!pair || line.find_first_not_of(" \t\r", i) != std::string::npos)
        return judge.reject(fmt::format("line {} is not `field target [rebase]`", number));
      ++pairs;
      observe_delta(judge, field, target);
      if (with_rebase) {
        check_with_rebase(field, target, rebase);
        continue;
      }
      for (uint64_t base : {uint64_t{0}, uint64_t{1} << 32, uint64_t{1} << 63}) check_with_rebase(field, target, base);
    }
    if (pairs == 0) return judge.reject("no `field target` line");
    return judge.done();
  }
  const Raw r = decode(data, size);
  observe_delta(judge, r.field, r.target);
  check_with_rebase(r.field, r.target, r.rebase);
  return judge.done();
}
