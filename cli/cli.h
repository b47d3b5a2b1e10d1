// The `stackcheck` command: one flag table (flags.cpp) shared by all subcommands, and one
// function per subcommand. Exit codes (ARCHITECTURE.md, CLI conventions): 0 success or
// equal, 1 diagnostics / mismatch / non-zero status, 2 usage, 3 inconclusive.
#pragma once

#include "stack/ir/ast.h"
#include "stack/runtime/host/bind.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stackcheck::cli {

enum Exit { kOk = 0, kFail = 1, kUsage = 2, kInconclusive = 3 };

struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // "--seed" -> "7"; boolean flags map to ""
  bool has(const std::string& f) const { return flags.count(f) != 0; }
  std::string get(const std::string& f, const std::string& fallback = "") const {
    auto it = flags.find(f);
    return it == flags.end() ? fallback : it->second;
  }
};

// Parses argv against the flag table; on a usage error returns nullopt and sets `error`.
std::optional<Args> parse_args(int argc, char** argv, std::string& error);
std::string usage();
// Parses an unsigned 64-bit flag value; false on garbage.
bool parse_u64(const std::string& text, uint64_t& out);

// Reads FILE or "-" (stdin); false with a message when it cannot.
bool read_input(const std::string& path, std::string& out, std::string& error);

// Subcommands. Each returns an Exit code; output goes to stdout, settings and errors to stderr.
int cmd_parse(const Args& a);
int cmd_print(const Args& a);
int cmd_verify(const Args& a);
int cmd_compile(const Args& a);
int cmd_interp(const Args& a);
int cmd_bind(const Args& a);
int cmd_dot(const Args& a);
int cmd_run(const Args& a);
int cmd_bench_bind(const Args& a);
int cmd_replay(const Args& a);
int cmd_defects(const Args& a);

// --seed and --schedule of the runtime commands (bind, dot) into `opts`; false after printing
// the usage error.
bool runtime_flags(const Args& a, runtime::BindOptions& opts, std::string& schedule_text);

// Reads and parses FILE|-; on failure prints the error (stderr), sets `exit_code`.
std::optional<ir::Program> load_program(const std::string& path, int& exit_code);
std::string display_name(const std::string& path);

}  // namespace stackcheck::cli
