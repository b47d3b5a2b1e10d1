// The `.plan` config keys and their valid ranges (RUNTIME.md §4, §17): one table, in
// RuntimeConfig's field order, read by validate_plan (each `config KEY=INT` at its
// line:column) and by the host's RuntimeConfig (host/runtime_config.h), which maps each key
// to its field by position. A value is valid when lo <= value <= hi (as an i64, so a
// negative value never is) and, for W, a power of two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stackcheck::runtime {

struct ConfigRange {
  std::string_view key;
  int64_t lo, hi;
  bool power_of_two;
};

// How many keys the table has (RuntimeConfig's field table is checked against it).
inline constexpr size_t kConfigKeyCount = 10;

std::span<const ConfigRange> config_ranges();
const ConfigRange* config_range(std::string_view key);  // null for an unknown key

// The `config` keys, in RuntimeConfig's field order.
std::span<const std::string_view> config_keys();
bool is_config_key(std::string_view key);

// Why `key=value` is refused ("config W=-1 is not a power of two in [4, 2^19]"), or nullopt.
std::optional<std::string> check_config_value(std::string_view key, int64_t value);

// The refusal of `value` (already printed, e.g. a u64 past INT64_MAX) under range `r`.
std::string config_refusal(const ConfigRange& r, const std::string& value);

}  // namespace stackcheck::runtime
