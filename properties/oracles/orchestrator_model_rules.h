// Internals of the orchestrator model (orchestrator_model.h), shared by its .cpp files: the
// spec's limits and codes (RUNTIME.md §6-§9, §13), window arithmetic, and the model's own
// byte-range book (§7): disjoint segments, each with its last writer and the readers since.
// Private to the model: nothing but orchestrator_model*.cpp includes it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "properties/oracles/orchestrator_model.h"

namespace stackcheck::oracles::orch::rules {

using runtime::TensorArg;

using runtime::TensorArg;

constexpr uint64_t kElem = 4;            // every tensor holds i32
constexpr uint64_t kTensorAlign = 1024;  // §6: tensors align to 1024
constexpr uint32_t kMaxScopes = 64;      // §8: root included
constexpr uint32_t kMaxTensors = 32, kMaxScalars = 16, kMaxFanin = 128, kMaxAlloc = 16;
constexpr uint32_t kMaxBoundaryTensors = 128, kMaxBoundaryScalars = 64, kMaxNodes = 1024;
constexpr size_t kCacheCapacity = 16;  // §9: definitions per Runtime
constexpr size_t kRecent = 8;
constexpr int32_t kNoTask = -1, kGraphInlined = -2;

// §13 codes.
enum : int32_t {
  kScopeDeadlock = 1,
  kHeapExhausted = 2,
  kTaskWindow = 3,
  kFaninOverflow = 4,
  kInvalidArgs = 5,
  kSyncStart = 7,
  kWaitTimeout = 8,
  kExplicitFatal = 9,
  kScopeTasks = 10,
  kTensormap = 11,
};

inline uint64_t up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

uint64_t elements(const Dims& d);
Dims row_major(const Dims& d);
bool dims_ok(const Dims& d);  // rank 1..4; extents and row-major strides i32; at most 2^40 elements
// A window's bounding byte range (§7: an access covers it).
std::pair<uint64_t, uint64_t> range_of(const TensorArg& a);
OrchestratorModel::Mode mode_of(uint32_t tag);

using Seg = OrchestratorModel::Segment;
using Book = std::vector<Seg>;
using Mode = OrchestratorModel::Mode;

struct Edge {
  int32_t producer;
  EdgeKind kind;
};

uint64_t book_size(const Book& b);  // segments + reader records
// Producers an access of [lo, hi) must wait for: overlapping writers; for a writing access
// also the readers since (WAR), unless `forget_war` (a flawed model).
void producers(const Book& b, uint64_t lo, uint64_t hi, Mode m, bool forget_war, std::vector<Edge>& out);
// Registers the access: a read joins the readers of [lo, hi) (gaps become writer-less
// segments read by it); a write makes [lo, hi) one segment of its own with no readers.
void record(Book& b, uint64_t lo, uint64_t hi, Mode m, int32_t task);
// Alias classes (§9): the smallest index of each overlap component of the boundary.
std::vector<uint32_t> classes_of(const std::vector<TensorArg>& bt);

}  // namespace stackcheck::oracles::orch::rules
