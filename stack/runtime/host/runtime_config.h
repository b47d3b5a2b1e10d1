// RuntimeConfig (RUNTIME.md §4): the knobs of one Runtime, with the spec's defaults, the
// `.plan` config keys that set them (their ranges: plan/config_ranges.h), and the
// validation whose rejection is status -2 (UNSUPPORTED, §13). A validated config keeps every
// derived size inside the model's limits: the mirror stays <= INT32_MAX bytes (W <= 2^19)
// and the heaps fit a reservation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "stack/runtime/plan/config_ranges.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

struct RuntimeConfig {
  uint64_t W = 16384;                   // task window (mirror pitch), power of two
  uint64_t task_heap = 256ull << 20;    // bytes, >= 1024
  uint64_t graph_heap = 64ull << 20;    // bytes
  uint64_t ready_capacity = 0;          // 0: derived (§5)
  uint64_t tensormap_capacity = 65536;  // ranges + reader records
  uint64_t scope_tasks_capacity = 0;    // 0: W (the spec's default)
  uint64_t workers = 4;
  uint64_t progress_timeout_ms = 10000;
  uint64_t clusters = 24;
  uint64_t fill_byte = 0x00;  // DeviceMemory's lazy fill (tests: 0xAA)

  uint64_t effective_scope_tasks_capacity() const { return scope_tasks_capacity == 0 ? W : scope_tasks_capacity; }
};

// Which field of RuntimeConfig a config key sets: position i of config_ranges()
// (plan/config_ranges.h) is field config_fields()[i].
std::span<uint64_t RuntimeConfig::* const> config_fields();

// Applies `config` lines over the defaults. An unknown key or a value outside its rule gives
// a message (the caller returns status -2; a plan that passed validate_plan has neither).
std::optional<std::string> apply_config(std::span<const ConfigEntry> entries, RuntimeConfig& out);

// Why `c` is rejected (the first field outside its rule), or nullopt if it is accepted.
std::optional<std::string> validate_config(const RuntimeConfig& c);

}  // namespace stackcheck::runtime
