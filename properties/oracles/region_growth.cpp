// RegionGrowth (region_growth.h).
#include "properties/oracles/region_growth.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace stackcheck::oracles {

Verdict RegionGrowth::after_bind(const Captured& c, const runtime::DeviceMemory& mem) {
  ++binds_;
  std::vector<runtime::ReservationInfo> regions;
  for (const runtime::ReservationInfo& r : mem.reservations())
    if (r.live && r.name == "region") regions.push_back(r);
  uint64_t dev_only = 0;
  if (!c.staged.empty()) {
    if (c.staged.size() < 20) return Verdict::fail("region", "the image copy is shorter than a RuntimeHeader");
    uint32_t q = 0;
    for (unsigned k = 0; k < 4; ++k) q |= static_cast<uint32_t>(c.staged[16 + k]) << (8 * k);
    dev_only = (64 + 8 * uint64_t{q} + 63) / 64 * 64;
    const uint64_t need = dev_only + c.staged.size();
    if (predicted_ == 0 || need > predicted_) predicted_ = std::max(need, 2 * predicted_);
  }
  if (predicted_ == 0) {
    if (!regions.empty())
      return Verdict::fail("region", fmt::format("bind {}: a region of {} bytes with no image copied yet", binds_,
                                                 regions.front().bytes));
    return Verdict::pass();
  }
  if (regions.size() != 1)
    return Verdict::fail(
        "region", fmt::format("bind {}: {} live reservations named region; §5 gives one", binds_, regions.size()));
  if (regions.front().bytes != predicted_)
    return Verdict::fail("region", fmt::format("bind {}: the region is {} bytes; §5 gives {} (need {}, grown to "
                                               "max(need, 2·old))",
                                               binds_, regions.front().bytes, predicted_,
                                               c.staged.empty() ? 0 : dev_only + c.staged.size()));
  if (!c.staged.empty() && c.destination.raw() != regions.front().base.raw() + dev_only)
    return Verdict::fail("region", fmt::format("bind {}: the RuntimeHeader landed at {:#x}; §5 puts it {} bytes into "
                                               "the region at {:#x}",
                                               binds_, c.destination.raw(), dev_only, regions.front().base.raw()));
  return Verdict::pass();
}

}  // namespace stackcheck::oracles
