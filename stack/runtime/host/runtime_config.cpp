// RuntimeConfig keys, application of `config` lines and validation (RUNTIME.md §4, §13 -2).
#include "stack/runtime/host/runtime_config.h"

#include <fmt/format.h>
#include <array>

namespace stackcheck::runtime {
namespace {

constexpr std::array<std::string_view, 10> kKeys = {
    "W",       "task_heap",           "graph_heap", "ready_capacity", "tensormap_capacity", "scope_tasks_capacity",
    "workers", "progress_timeout_ms", "clusters",   "fill_byte"};

uint64_t* field(RuntimeConfig& c, std::string_view key) {
  if (key == "W") return &c.W;
  if (key == "task_heap") return &c.task_heap;
  if (key == "graph_heap") return &c.graph_heap;
  if (key == "ready_capacity") return &c.ready_capacity;
  if (key == "tensormap_capacity") return &c.tensormap_capacity;
  if (key == "scope_tasks_capacity") return &c.scope_tasks_capacity;
  if (key == "workers") return &c.workers;
  if (key == "progress_timeout_ms") return &c.progress_timeout_ms;
  if (key == "clusters") return &c.clusters;
  if (key == "fill_byte") return &c.fill_byte;
  return nullptr;
}

// Upper bounds keep every derived size and reservation sane; they are far above any use.
constexpr uint64_t kMaxHeap = 1ull << 40;
constexpr uint64_t kMaxCapacity = 1ull << 32;

}  // namespace

std::span<const std::string_view> config_keys() { return kKeys; }

bool is_config_key(std::string_view key) {
  for (auto k : kKeys)
    if (k == key) return true;
  return false;
}

std::optional<std::string> apply_config(std::span<const ConfigEntry> entries, RuntimeConfig& out) {
  for (const ConfigEntry& e : entries) {
    uint64_t* f = field(out, e.key);
    if (f == nullptr) return fmt::format("unknown config key '{}'", e.key);
    if (e.value < 0) return fmt::format("config {}={} is negative", e.key, e.value);
    *f = static_cast<uint64_t>(e.value);
  }
  return validate_config(out);
}

std::optional<std::string> validate_config(const RuntimeConfig& c) {
  // W <= 2^19 keeps the mirror (128 + 2785 W bytes) within INT32_MAX (§4).
  if (c.W < 4 || c.W > (1ull << 19) || (c.W & (c.W - 1)) != 0)
    return fmt::format("config W={} is not a power of two in [4, 2^19]", c.W);
  if (c.task_heap < 1024 || c.task_heap > kMaxHeap)
    return fmt::format("config task_heap={} is not in [1024, 2^40]", c.task_heap);
  if (c.graph_heap < 64 || c.graph_heap > kMaxHeap)
    return fmt::format("config graph_heap={} is not in [64, 2^40]", c.graph_heap);
  if (c.ready_capacity > kMaxCapacity) return fmt::format("config ready_capacity={} exceeds 2^32", c.ready_capacity);
  if (c.tensormap_capacity < 1 || c.tensormap_capacity > kMaxCapacity)
    return fmt::format("config tensormap_capacity={} is not in [1, 2^32]", c.tensormap_capacity);
  if (c.scope_tasks_capacity > kMaxCapacity)
    return fmt::format("config scope_tasks_capacity={} exceeds 2^32", c.scope_tasks_capacity);
  if (c.workers < 1 || c.workers > 256) return fmt::format("config workers={} is not in [1, 256]", c.workers);
  if (c.progress_timeout_ms < 1 || c.progress_timeout_ms > kMaxCapacity)
    return fmt::format("config progress_timeout_ms={} is not in [1, 2^32]", c.progress_timeout_ms);
  if (c.clusters < 1 || c.clusters > 65536) return fmt::format("config clusters={} is not in [1, 65536]", c.clusters);
  if (c.fill_byte > 255) return fmt::format("config fill_byte={} is not a byte", c.fill_byte);
  return std::nullopt;
}

}  // namespace stackcheck::runtime
