// RuntimeConfig keys, their valid ranges, application of `config` lines and validation
// (RUNTIME.md §4, §13 -2, §17).
#include "stack/runtime/host/runtime_config.h"

#include <fmt/format.h>
#include <array>
#include <bit>
#include <cstdint>

namespace stackcheck::runtime {
namespace {

// Upper bounds keep every derived size and reservation sane; they are far above any use.
constexpr int64_t kMaxHeap = int64_t{1} << 40;
constexpr int64_t kMaxCapacity = int64_t{1} << 32;

// W <= 2^19 keeps the mirror (128 + 2785 W bytes) within INT32_MAX (§4). A lower bound of 0
// marks the fields where 0 means "derived": ready_capacity (§5) and scope_tasks_capacity (W).
constexpr std::array<ConfigRule, 10> kRules = {{
    {"W", &RuntimeConfig::W, 4, int64_t{1} << 19, true},
    {"task_heap", &RuntimeConfig::task_heap, 1024, kMaxHeap, false},
    {"graph_heap", &RuntimeConfig::graph_heap, 64, kMaxHeap, false},
    {"ready_capacity", &RuntimeConfig::ready_capacity, 0, kMaxCapacity, false},
    {"tensormap_capacity", &RuntimeConfig::tensormap_capacity, 1, kMaxCapacity, false},
    {"scope_tasks_capacity", &RuntimeConfig::scope_tasks_capacity, 0, kMaxCapacity, false},
    {"workers", &RuntimeConfig::workers, 1, 256, false},
    {"progress_timeout_ms", &RuntimeConfig::progress_timeout_ms, 1, kMaxCapacity, false},
    {"clusters", &RuntimeConfig::clusters, 1, 65536, false},
    {"fill_byte", &RuntimeConfig::fill_byte, 0, 255, false},
}};

constexpr std::array<std::string_view, kRules.size()> kKeys = [] {
  std::array<std::string_view, kRules.size()> k{};
  for (size_t i = 0; i < kRules.size(); ++i) k[i] = kRules[i].key;
  return k;
}();

// 2^k for the powers of two past 2^16 (the table's bounds read as RUNTIME.md writes them).
std::string bound(int64_t v) {
  if (v > 65536 && (v & (v - 1)) == 0) return fmt::format("2^{}", std::countr_zero(static_cast<uint64_t>(v)));
  return std::to_string(v);
}

std::string refusal(const ConfigRule& r, const std::string& value) {
  return fmt::format("config {}={} is not {}in [{}, {}]", r.key, value, r.power_of_two ? "a power of two " : "",
                     bound(r.lo), bound(r.hi));
}

std::optional<std::string> check(const ConfigRule& r, int64_t v) {
  const bool in_range = v >= r.lo && v <= r.hi;
  if (in_range && (!r.power_of_two || (v & (v - 1)) == 0)) return std::nullopt;
  return refusal(r, std::to_string(v));
}

}  // namespace

std::span<const ConfigRule> config_rules() { return kRules; }

const ConfigRule* config_rule(std::string_view key) {
  for (const ConfigRule& r : kRules)
    if (r.key == key) return &r;
  return nullptr;
}

std::span<const std::string_view> config_keys() { return kKeys; }

bool is_config_key(std::string_view key) { return config_rule(key) != nullptr; }

std::optional<std::string> check_config_value(std::string_view key, int64_t value) {
  const ConfigRule* r = config_rule(key);
  if (r == nullptr) return fmt::format("unknown config key '{}'", key);
  return check(*r, value);
}

std::optional<std::string> apply_config(std::span<const ConfigEntry> entries, RuntimeConfig& out) {
  for (const ConfigEntry& e : entries) {
    if (auto why = check_config_value(e.key, e.value)) return why;
    out.*(config_rule(e.key)->field) = static_cast<uint64_t>(e.value);
  }
  return validate_config(out);
}

std::optional<std::string> validate_config(const RuntimeConfig& c) {
  for (const ConfigRule& r : kRules) {
    const uint64_t v = c.*r.field;
    // A u64 past INT64_MAX is past every hi; report it as the u64 it is.
    if (v > static_cast<uint64_t>(INT64_MAX)) return refusal(r, std::to_string(v));
    if (auto why = check(r, static_cast<int64_t>(v))) return why;
  }
  return std::nullopt;
}

}  // namespace stackcheck::runtime
