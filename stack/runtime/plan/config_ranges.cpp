// The config keys' valid ranges and their refusal messages (RUNTIME.md §4, §13 -2, §17).
#include "stack/runtime/plan/config_ranges.h"

#include <fmt/format.h>
#include <array>
#include <bit>

namespace stackcheck::runtime {
namespace {

// Upper bounds keep every derived size and reservation sane; they are far above any use.
constexpr int64_t kMaxHeap = int64_t{1} << 40;
constexpr int64_t kMaxCapacity = int64_t{1} << 32;

// W <= 2^19 keeps the mirror (128 + 2785 W bytes) within INT32_MAX (§4). A lower bound of 0
// marks the fields where 0 means "derived": ready_capacity (§5) and scope_tasks_capacity (W).
constexpr std::array<ConfigRange, kConfigKeyCount> kRanges = {{
    {"W", 4, int64_t{1} << 19, true},
    {"task_heap", 1024, kMaxHeap, false},
    {"graph_heap", 64, kMaxHeap, false},
    {"ready_capacity", 0, kMaxCapacity, false},
    {"tensormap_capacity", 1, kMaxCapacity, false},
    {"scope_tasks_capacity", 0, kMaxCapacity, false},
    {"workers", 1, 256, false},
    {"progress_timeout_ms", 1, kMaxCapacity, false},
    {"clusters", 1, 65536, false},
    {"fill_byte", 0, 255, false},
}};

constexpr std::array<std::string_view, kRanges.size()> kKeys = [] {
  std::array<std::string_view, kRanges.size()> k{};
  for (size_t i = 0; i < kRanges.size(); ++i) k[i] = kRanges[i].key;
  return k;
}();

// 2^k for the powers of two past 2^16 (the table's bounds read as RUNTIME.md writes them).
std::string bound(int64_t v) {
  if (v > 65536 && (v & (v - 1)) == 0) return fmt::format("2^{}", std::countr_zero(static_cast<uint64_t>(v)));
  return std::to_string(v);
}

}  // namespace

std::span<const ConfigRange> config_ranges() { return kRanges; }

const ConfigRange* config_range(std::string_view key) {
  for (const ConfigRange& r : kRanges)
    if (r.key == key) return &r;
  return nullptr;
}

std::span<const std::string_view> config_keys() { return kKeys; }

bool is_config_key(std::string_view key) { return config_range(key) != nullptr; }

std::string config_refusal(const ConfigRange& r, const std::string& value) {
  return fmt::format("config {}={} is not {}in [{}, {}]", r.key, value, r.power_of_two ? "a power of two " : "",
                     bound(r.lo), bound(r.hi));
}

std::optional<std::string> check_config_value(std::string_view key, int64_t value) {
  const ConfigRange* r = config_range(key);
  if (r == nullptr) return fmt::format("unknown config key '{}'", key);
  const bool in_range = value >= r->lo && value <= r->hi;
  if (in_range && (!r->power_of_two || (value & (value - 1)) == 0)) return std::nullopt;
  return config_refusal(*r, std::to_string(value));
}

}  // namespace stackcheck::runtime
