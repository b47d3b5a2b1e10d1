// Application of `config` lines and validation of a RuntimeConfig (RUNTIME.md §4, §13 -2,
// §17), by the ranges of plan/config_ranges.h.
#include "stack/runtime/host/runtime_config.h"

#include <array>
#include <cstdint>

namespace stackcheck::runtime {
namespace {

// In config_ranges()'s order (RuntimeConfig's field order); parser_test checks each key
// against its field's name.
constexpr std::array<uint64_t RuntimeConfig::*, kConfigKeyCount> kFields = {
    &RuntimeConfig::W,
    &RuntimeConfig::task_heap,
    &RuntimeConfig::graph_heap,
    &RuntimeConfig::ready_capacity,
    &RuntimeConfig::tensormap_capacity,
    &RuntimeConfig::scope_tasks_capacity,
    &RuntimeConfig::workers,
    &RuntimeConfig::progress_timeout_ms,
    &RuntimeConfig::clusters,
    &RuntimeConfig::fill_byte,
};

}  // namespace

std::span<uint64_t RuntimeConfig::* const> config_fields() { return kFields; }

std::optional<std::string> apply_config(std::span<const ConfigEntry> entries, RuntimeConfig& out) {
  for (const ConfigEntry& e : entries) {
    if (auto why = check_config_value(e.key, e.value)) return why;
    out.*kFields[static_cast<size_t>(config_range(e.key) - config_ranges().data())] = static_cast<uint64_t>(e.value);
  }
  return validate_config(out);
}

std::optional<std::string> validate_config(const RuntimeConfig& c) {
  const std::span<const ConfigRange> ranges = config_ranges();
  for (size_t i = 0; i < ranges.size(); ++i) {
    const uint64_t v = c.*kFields[i];
    // A u64 past INT64_MAX is past every hi; report it as the u64 it is.
    if (v > static_cast<uint64_t>(INT64_MAX)) return config_refusal(ranges[i], std::to_string(v));
    if (auto why = check_config_value(ranges[i].key, static_cast<int64_t>(v))) return why;
  }
  return std::nullopt;
}

}  // namespace stackcheck::runtime
