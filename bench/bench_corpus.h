// The benchmark's fixed corpus (corpus/bench/<target>/: raw inputs as libFuzzer hands them to
// the target), read by throughput_bench and alloc_balance_test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stackcheck::bench {

struct Input {
  std::string name;
  std::vector<uint8_t> bytes;
};

// STACKCHECK_BENCH_CORPUS when set, else the source tree's corpus/bench.
std::string corpus_root();
// The target's inputs in name order; an unreadable or empty corpus sets `error` (a message
// naming the path) and returns no inputs.
std::vector<Input> load(const std::string& target, std::string* error);

}  // namespace stackcheck::bench
