// Entry point of `stackcheck`: parses flags against the one table and dispatches.
#include "cli/cli.h"
#include "stack/defects/defects.h"

#include <cstdio>
#include <exception>

#include <fmt/format.h>

using namespace stackcheck::cli;

int main(int argc, char** argv) {
  std::string error;
  auto args = parse_args(argc, argv, error);
  if (!args) {
    fmt::print(stderr, "stackcheck: {}\n\n{}", error, usage());
    return kUsage;
  }
  if (args->command == "help" || args->has("--help")) {
    fmt::print("{}", usage());
    return kOk;
  }
  // A defect selection this build cannot honour (an unknown name, or any name in a build
  // without the switches) would run clean and look like a pass: refuse it.
  if (auto why = stackcheck::defects::check_selection()) {
    fmt::print(stderr, "stackcheck: {}\n", *why);
    return kUsage;
  }
  if (const std::string d = stackcheck::defects::active_names(); !d.empty())
    fmt::print(stderr, "stackcheck: defects active: {}\n", d);
  try {
    if (args->command == "parse") return cmd_parse(*args);
    if (args->command == "print") return cmd_print(*args);
    if (args->command == "verify") return cmd_verify(*args);
    if (args->command == "compile") return cmd_compile(*args);
    if (args->command == "interp") return cmd_interp(*args);
    if (args->command == "bind") return cmd_bind(*args);
    if (args->command == "dot") return cmd_dot(*args);
    if (args->command == "run") return cmd_run(*args);
    if (args->command == "bench-bind") return cmd_bench_bind(*args);
    if (args->command == "replay") return cmd_replay(*args);
    if (args->command == "defects") return cmd_defects(*args);
  } catch (const std::exception& e) {
    // Library code reports through values; reaching here is a bug of the stack.
    fmt::print(stderr, "stackcheck: internal error: {}\n", e.what());
    return kFail;
  }
  fmt::print(stderr, "stackcheck: command '{}' not implemented\n", args->command);
  return kUsage;
}
