// apply_mutations and mutation_hook (image_mutation.h).
#include "properties/oracles/image_mutation.h"
#include "properties/oracles/status_codes.h"

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "stack/runtime/status/codes.h"

namespace stackcheck::oracles {

std::optional<std::string> apply_mutations(std::span<const runtime::Mutation> mutations, runtime::StagedUpload& up) {
  // The RuntimeHeader is everything before the ImageHeader; the image target runs to the end
  // of the staged bytes (the submissions included).
  const uint64_t header_bytes = up.image_offset;
  const uint64_t image_bytes = up.bytes.size() - up.image_offset;
  for (const runtime::Mutation& m : mutations) {
    if (m.target == runtime::MutationTarget::kRuntimeHeader && m.offset >= header_bytes)
      return fmt::format("mutate header offset {} is past the {} runtime header bytes", m.offset, header_bytes);
    if (m.target == runtime::MutationTarget::kImage && m.offset >= image_bytes)
      return fmt::format("mutate offset {} is past the {} image bytes", m.offset, image_bytes);
  }
  for (const runtime::Mutation& m : mutations) {
    const uint64_t at = m.target == runtime::MutationTarget::kRuntimeHeader ? m.offset : up.image_offset + m.offset;
    up.bytes[at] = std::byte{m.value};
  }
  return std::nullopt;
}

Verdict check_corrupt_image_run(const runtime::BindResult& r) {
  using runtime::BindFailure;
  if ((r.failure == BindFailure::kAttach) != r.attach_class.has_value())
    return Verdict::fail("attach-class",
                         fmt::format("failure {} with{} an attach class ({})", runtime::bind_failure_name(r.failure),
                                     r.attach_class ? "" : "out", runtime::status_line(r)));
  switch (r.failure) {
    case BindFailure::kNone:
    case BindFailure::kAttach:
    case BindFailure::kKernelFault:
    case BindFailure::kScheduler:
    case BindFailure::kLatched: return Verdict::pass();
    default:
      return Verdict::fail(
          r.failure == BindFailure::kDeviceFault ? "device-fault" : "corrupt-image",
          fmt::format("{} ({}: {})", runtime::status_line(r), runtime::bind_failure_name(r.failure), r.detail));
  }
}

namespace {
// Offsets of the ImageHeader and TaskPayload fields this prediction reads (RUNTIME.md §4,
// written from the spec's layout, not from stack/runtime/image/records.h).
constexpr uint64_t kHdrN = 20, kHdrImageBytes = 48, kHdrSegOff = 56, kHdrFaninCount = 120, kHdrBytes = 128;
constexpr uint64_t kSegPayload = 1, kSegFanin = 6, kPayloadBytes = 32, kPayloadNFanin = 4, kPayloadFanin = 16;

template <class T>
std::optional<T> at(std::span<const std::byte> b, uint64_t off) {
  if (off > b.size() || b.size() - off < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
}  // namespace

std::optional<FaninPrediction> predict_fanin_corruption(std::span<const std::byte> staged, uint64_t image_offset,
                                                        std::span<const runtime::Mutation> muts) {
  if (muts.empty() || image_offset > staged.size()) return std::nullopt;
  const std::span<const std::byte> img = staged.subspan(image_offset);
  const auto n = at<uint32_t>(img, kHdrN);
  const auto end = at<uint64_t>(img, kHdrImageBytes);
  const auto payload = at<uint64_t>(img, kHdrSegOff + 8 * kSegPayload);
  const auto fanin = at<uint64_t>(img, kHdrSegOff + 8 * kSegFanin);
  const auto count = at<uint32_t>(img, kHdrFaninCount);
  if (!n || !end || !payload || !fanin || !count || img.size() < kHdrBytes || *end > img.size() ||
      *fanin > *end || (*end - *fanin) / 4 < *count)
    return std::nullopt;
  std::set<uint64_t> touched;  // fanin pool entry indices
  // The pool is placed by the ImageHeader it reads: a change of the header itself (which a
  // header claiming the pool at offset 0 would count as "in the pool") is no fanin corruption.
  if (*fanin < kHdrBytes) return std::nullopt;
  for (const runtime::Mutation& m : muts) {
    if (m.target != runtime::MutationTarget::kImage || m.offset < kHdrBytes || m.offset < *fanin ||
        m.offset >= *fanin + 4ull * *count)
      return std::nullopt;
    touched.insert((m.offset - *fanin) / 4);
  }
  FaninPrediction out;
  for (uint32_t i = 0; i < *n; ++i) {
    const uint64_t rec = *payload + kPayloadBytes * i;
    const auto k = at<uint16_t>(img, rec + kPayloadNFanin);
    const auto delta = at<int32_t>(img, rec + kPayloadFanin);
    if (!k || !delta) return std::nullopt;
    if (*k == 0) continue;
    const int64_t first = static_cast<int64_t>(rec + kPayloadFanin) + *delta;
    if (first < static_cast<int64_t>(*fanin) || (first - static_cast<int64_t>(*fanin)) % 4 != 0) return std::nullopt;
    const uint64_t e0 = (static_cast<uint64_t>(first) - *fanin) / 4;
    for (uint64_t e = e0; e < e0 + *k; ++e) {
      if (!touched.count(e)) continue;
      const auto p = at<int32_t>(img, *fanin + 4 * e);
      if (!p) return std::nullopt;
      if (*p < 0 || static_cast<uint32_t>(*p) >= i || static_cast<uint32_t>(*p) >= *n) {
        if (!out.invalid_entry) out.what = fmt::format("task {} fanin entry {} names {} (n={})", i, e - e0, *p, *n);
        out.invalid_entry = true;
        ++out.invalid_entries;
        out.reason = fmt::format("task {} fanin entry {} names producer {} (n={})", i, e - e0, *p, *n);
      } else {
        out.other_touched = true;
      }
    }
  }
  return out;
}

Verdict check_fanin_prediction(const FaninPrediction& p, const runtime::BindResult& r) {
  using runtime::BindFailure;
  const bool code_103 = r.failure == BindFailure::kScheduler && latch_code(r.status) == 103;  // WAIT_REGISTRATION_FAILED
  const bool contained = r.failure == BindFailure::kKernelFault;
  bool ok = false;
  std::string want;
  if (p.invalid_entry && !p.other_touched) {
    const bool exact = p.invalid_entries == 1;  // the one entry any scan order meets
    ok = code_103 && (!exact || r.detail.ends_with(p.reason));
    want = exact ? fmt::format("scheduler code 103 stating '{}'", p.reason) : "scheduler code 103";
  } else if (p.invalid_entry) {
    ok = code_103 || contained;
    want = "scheduler code 103 or a contained kernel fault";
  } else {
    ok = r.failure == BindFailure::kNone || contained;
    want = "a completed run or a contained kernel fault";
  }
  if (ok) return Verdict::pass();
  return Verdict::fail("fanin-prediction",
                       fmt::format("a corruption of fanin entries only ({}) must give {}; got {} ({}: {})",
                                   p.invalid_entry ? p.what : "every touched entry names an earlier task", want,
                                   runtime::status_line(r), runtime::bind_failure_name(r.failure), r.detail));
}

runtime::BeforeUploadHook mutation_hook(std::vector<runtime::Mutation> mutations) {
  if (mutations.empty()) return {};
  return [mutations = std::move(mutations)](runtime::StagedUpload& up) { return apply_mutations(mutations, up); };
}

}  // namespace stackcheck::oracles
