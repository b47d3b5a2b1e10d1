// measure_bind (bind_measure.h). Reservations are classified by the names bind gives them
// (runtime.cpp): "task_heap", "graph_heap", "region", "entry:<name>", "graph_def:<k>".
#include "stack/runtime/host/bind_measure.h"

#include <map>
#include <optional>
#include <string_view>

#include "stack/runtime/image/records.h"

namespace stackcheck::runtime {
namespace {

bool named(std::string_view name, std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; }

// The RuntimeHeader at `at` as shipped, when [at, at+128) lies in a live reservation.
std::optional<RuntimeHeader> shipped_header(const DeviceMemory& mem, DevAddr at) {
  if (!mem.mapped(at, sizeof(RuntimeHeader))) return std::nullopt;
  RuntimeHeader rh;
  mem.inspect(at, &rh, sizeof rh);
  return rh;
}

}  // namespace

void measure_bind(const DeviceMemory& mem, HostLinkId link, uint64_t first_copy, BindStats& st) {
  std::map<uint64_t, ReservationInfo> mine;
  for (ReservationInfo& r : mem.reservations())
    if (r.link == link) mine.emplace(r.base.raw(), std::move(r));

  st.h2d = st.def_h2d = st.tensor_h2d = st.d2h = st.shipped = 0;
  std::optional<HostCopy> image_copy;
  for (const HostCopy& c : mem.host_copies(first_copy)) {
    if (c.link != link) continue;
    if (c.direction == CopyDirection::kToHost) {
      ++st.d2h;
      continue;
    }
    const auto it = mine.find(c.reservation.raw());
    const std::string_view name = it == mine.end() ? std::string_view() : std::string_view(it->second.name);
    if (named(name, "entry:")) {
      ++st.tensor_h2d;
    } else if (named(name, "graph_def:")) {
      ++st.def_h2d;
    } else {
      ++st.h2d;
      st.shipped += c.bytes;
      image_copy = c;
    }
  }

  st.reserved = ReservedBytes{};
  st.defs = 0;
  const ReservationInfo* region = nullptr;
  for (const auto& [base, r] : mine) {
    if (!r.live) continue;
    if (r.name == "task_heap") {
      st.reserved.task_heap += r.bytes;
    } else if (r.name == "graph_heap") {
      st.reserved.graph_heap += r.bytes;
    } else if (named(r.name, "graph_def:")) {
      st.reserved.definitions += r.bytes;
      ++st.defs;
    } else if (named(r.name, "entry:")) {
      st.reserved.entries += r.bytes;
    } else if (r.name == "region") {
      region = &r;
    }
  }
  if (region != nullptr) {
    // Before any copy landed in it, the whole region counts as copied zone.
    st.reserved.device_only = region->copies_in > 0 ? region->last_copy_offset : 0;
    st.reserved.copied = region->bytes - st.reserved.device_only;
    if (region->copies_in > 0)
      if (const auto rh = shipped_header(mem, region->base + region->last_copy_offset)) {
        st.reserved.image = rh->image_bytes;
        st.reserved.submissions = rh->submissions_bytes;
      }
  }

  st.read = st.image = st.image_read = 0;
  if (image_copy) {
    st.read = mem.bytes_read(image_copy->device, image_copy->bytes);
    if (image_copy->bytes >= sizeof(RuntimeHeader))
      if (const auto rh = shipped_header(mem, image_copy->device)) {
        st.image = rh->image_bytes;
        st.image_read = mem.bytes_read(rh->image, rh->image_bytes);
      }
  }
}

}  // namespace stackcheck::runtime
