// libFuzzer's custom mutator and crossover for the text targets (text_mutator.h), linked into
// the libFuzzer binaries of fuzz_parse and fuzz_pipeline only (fuzz/CMakeLists.txt). The
// target's own name decides whether edits must keep the program WellFormed.
#include <cstring>

#include "fuzz/fuzz_target.h"
#include "fuzz/text_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  using namespace stackcheck::fuzz;
  static const TextMutatorOptions options{
      .want_well_formed = std::strcmp(target_name(), "fuzz_pipeline") == 0,
  };
  return mutate_text(data, size, max_size, seed, options, &LLVMFuzzerMutate).size;
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                                            uint8_t* out, size_t max_out_size, unsigned int seed) {
  return stackcheck::fuzz::crossover_text(data1, size1, data2, size2, out, max_out_size, seed);
}
