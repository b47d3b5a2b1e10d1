// apply_mutations and mutation_hook (image_mutation.h).
#include "properties/oracles/image_mutation.h"

#include <fmt/format.h>

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

runtime::BeforeUploadHook mutation_hook(std::vector<runtime::Mutation> mutations) {
  if (mutations.empty()) return {};
  return [mutations = std::move(mutations)](runtime::StagedUpload& up) { return apply_mutations(mutations, up); };
}

}  // namespace stackcheck::oracles
