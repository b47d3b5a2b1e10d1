// LLVMFuzzerInitialize of every fuzz target, in both builds (libFuzzer calls it before the
// first input; replay_main.cpp calls it first thing): a STACKCHECK_DEFECT selection this
// build cannot honour (an unknown name, or any name without the zoo's switches) would fuzz
// a clean stack and look like a pass, so the target refuses to start (exit 2). The active
// defects are printed, so a run's log says what it ran against. A target with flags of its
// own (fuzz_props' --property) defines stackcheck_target_initialize, called last.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "stack/defects/defects.h"

extern "C" __attribute__((weak)) int stackcheck_target_initialize(int* argc, char*** argv);

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const char* prog = argc && *argc > 0 && argv && *argv && (*argv)[0] ? (*argv)[0] : "fuzz target";
  if (auto why = stackcheck::defects::check_selection()) {
    std::fprintf(stderr, "%s: %s\n", prog, why->c_str());
    std::exit(2);
  }
  if (const std::string d = stackcheck::defects::active_names(); !d.empty())
    std::fprintf(stderr, "%s: defects active: %s\n", prog, d.c_str());
  return stackcheck_target_initialize ? stackcheck_target_initialize(argc, argv) : 0;
}

#if !defined(STACKCHECK_FUZZ_REPLAY) && defined(__has_feature)
#if __has_feature(address_sanitizer)
// The libFuzzer binaries' ASan defaults (ASAN_OPTIONS, read after these, overrides them): no
// allocation and free stacks kept per allocation. Recording them (StackDepot::Put and the unwind
// on every malloc and free) cost fuzz_program a fifth of its executions (docs/throughput.md);
// every error is still detected and reported with its own stack, and the replay drivers
// (<target>_replay, which scripts/replay, minimize and promote run) keep the full stacks.
extern "C" const char* __asan_default_options() { return "malloc_context_size=0"; }
#endif
#endif
