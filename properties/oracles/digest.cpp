#include "properties/oracles/digest.h"

#include "stack/ir/printer.h"

namespace stackcheck::oracles {

uint64_t digest_bind(uint64_t h, const runtime::BindResult& r, std::span<const std::byte> staged) {
  h = digest_u64(h, static_cast<uint64_t>(static_cast<int64_t>(r.status)));
  h = digest_u64(h, static_cast<uint64_t>(r.failure));
  h = digest_u64(h, r.attach_class ? 1 + static_cast<uint64_t>(*r.attach_class) : 0);
  h = digest_text(h, r.stats.to_line());
  for (const runtime::EntryResult& e : r.entries) {
    h = digest_text(h, e.name);
    h = digest_u64(h, e.inout ? 1 : 0);
    h = digest_u64(h, e.bytes.size());
    h = support::fnv1a64(h, e.bytes.data(), e.bytes.size());
  }
  h = digest_u64(h, staged.size());
  return support::fnv1a64(h, staged.data(), staged.size());
}

uint64_t digest_program(uint64_t h, const ir::Program& p) { return digest_text(h, ir::print_program(p)); }

}  // namespace stackcheck::oracles
