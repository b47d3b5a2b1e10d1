// The one flag table of `stackcheck`: every flag, the commands that take it, its help.
#include "cli/cli.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "stack/passes/pipeline.h"

namespace stackcheck::cli {

namespace {

struct CommandSpec {
  const char* name;
  const char* synopsis;
  int min_positional, max_positional;
};

struct FlagSpec {
  const char* name;
  bool takes_value;
  const char* commands;  // space-separated list of commands accepting the flag
  const char* help;
};

constexpr CommandSpec kCommands[] = {
    {"parse", "parse FILE|-            check the syntax of a .gir program", 1, 1},
    {"print", "print FILE|-            print a .gir program canonically", 1, 1},
    {"verify", "verify FILE|- [--rule R] run a verifier (WellFormed by default)", 1, 1},
    {"compile",
     "compile FILE|- [--print-after-all] [--stop-after PASS] [--no-step-c] [--report] [--emit gir|orch]\n"
     "                          run the pass pipeline, print the legalized program",
     1, 1},
    {"interp", "interp FILE|- [--seed S] [--dump]  run the reference interpreter", 1, 1},
    {"bind",
     "bind FILE.plan|- [--seed S] [--fill B] [--schedule M]  bind, upload, attach and run an orchestration program", 1,
     1},
    {"replay",
     "replay FILE|-            rerun a saved counterexample through the oracle its header names\n"
     "                          (# stackcheck ORACLE, # replay: seed=S schedule=M step_c=0|1 W=N)",
     1, 1},
    {"dot",
     "dot FILE.plan|FILE.gir|- [--seed S] [--schedule M]  the task DAG decoded from the shipped image, as Graphviz;\n"
     "                          exit 1 when the dependency oracle finds an unordered conflicting pair or a cycle",
     1, 1},
    {"run",
     "run FILE|- [--seed S] [--schedule threaded|pct:SEED[:D]|random:SEED|newest|oldest] [--no-step-c]\n"
     "                          compile, bind, run; compare with the reference interpreter",
     1, 1},
    {"bench-bind", "bench-bind SCENE.gir [--max-layers N]  bind figures of the decode scene for N = 1, 2, 4, ...", 1,
     1},
    {"defects",
     "defects                  the injectable defects of the zoo build (name, where, what); "
     "STACKCHECK_DEFECT=NAME[,NAME]\n"
     "                          selects them at run time",
     0, 0},
};

constexpr FlagSpec kFlags[] = {
    {"--rule", true, "verify", "verifier to run: WellFormed (default), ReturnParamsExplicit, GraphBoundaryLegalized"},
    {"--seed", true, "interp bind dot run", "input seed (default 0)"},
    {"--schedule", true, "bind dot run", "scheduler: threaded (default), pct:SEED[:DEPTH], random:SEED, newest, oldest"},
    {"--max-layers", true, "bench-bind", "largest layer count (default 64)"},
    {"--fill", true, "bind", "device memory fill byte 0..255 (default: the config's fill_byte)"},
    {"--dump", false, "interp", "also print every element of each entry tensor"},
    {"--print-after-all", false, "compile", "print the program after each pass (stderr)"},
    {"--stop-after", true, "compile", "stop after the named pipeline stage (listed below)"},
    {"--no-step-c", false, "compile run", "run LegalizeGraphBoundary without Step C (creates stay)"},
    {"--report", false, "compile", "print LegalizeGraphBoundary's report (stderr)"},
    {"--emit", true, "compile",
     "what to print: gir (the legalized program, default) or orch (the orchestration program)"},
    {"--help", false, "*", "print this help"},
};

const CommandSpec* find_command(const std::string& name) {
  for (const auto& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

const FlagSpec* find_flag(const std::string& name) {
  for (const auto& f : kFlags)
    if (name == f.name) return &f;
  return nullptr;
}

bool flag_allowed(const FlagSpec& f, const std::string& command) {
  if (std::strcmp(f.commands, "*") == 0) return true;
  std::istringstream in(f.commands);
  std::string c;
  while (in >> c)
    if (c == command) return true;
  return false;
}

}  // namespace

std::string usage() {
  std::string out = "usage: stackcheck COMMAND [ARGS] [FLAGS]\n\ncommands:\n";
  for (const auto& c : kCommands) out += fmt::format("  {}\n", c.synopsis);
  out += "\nflags:\n";
  for (const auto& f : kFlags)
    out +=
        fmt::format("  {:<22} {} [{}]\n", fmt::format("{}{}", f.name, f.takes_value ? " V" : ""), f.help, f.commands);
  out += fmt::format("\npipeline stages: {}\n", passes::pipeline_stage_names());
  out += "\nexit codes: 0 success/equal, 1 diagnostics/mismatch/failure status, 2 usage, 3 inconclusive\n";
  return out;
}

bool parse_u64(const std::string& text, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
    const uint64_t d = static_cast<uint64_t>(ch - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

std::optional<Args> parse_args(int argc, char** argv, std::string& error) {
  Args a;
  if (argc < 2) {
    error = "missing command";
    return std::nullopt;
  }
  a.command = argv[1];
  if (a.command == "--help" || a.command == "help") {
    a.command = "help";
    return a;
  }
  const CommandSpec* cmd = find_command(a.command);
  if (!cmd) {
    error = fmt::format("unknown command '{}'", a.command);
    return std::nullopt;
  }
  for (int i = 2; i < argc; ++i) {
    std::string tok = argv[i];
    if (tok.size() > 2 && tok.rfind("--", 0) == 0) {
      std::string value;
      bool inline_value = false;
      if (auto eq = tok.find('='); eq != std::string::npos) {
        value = tok.substr(eq + 1);
        tok = tok.substr(0, eq);
        inline_value = true;
      }
      const FlagSpec* f = find_flag(tok);
      if (!f) {
        error = fmt::format("unknown flag '{}'", tok);
        return std::nullopt;
      }
      if (!flag_allowed(*f, a.command)) {
        error = fmt::format("flag '{}' does not apply to '{}'", tok, a.command);
        return std::nullopt;
      }
      if (f->takes_value && !inline_value) {
        if (i + 1 >= argc) {
          error = fmt::format("flag '{}' needs a value", tok);
          return std::nullopt;
        }
        value = argv[++i];
      } else if (!f->takes_value && inline_value) {
        error = fmt::format("flag '{}' takes no value", tok);
        return std::nullopt;
      }
      if (a.flags.count(tok)) {
        error = fmt::format("flag '{}' given twice", tok);
        return std::nullopt;
      }
      a.flags[tok] = value;
    } else {
      a.positional.push_back(tok);
    }
  }
  if (a.has("--help")) return a;
  const int n = static_cast<int>(a.positional.size());
  if (n < cmd->min_positional || n > cmd->max_positional) {
    error = fmt::format("'{}' takes {} argument(s): {}", a.command, cmd->min_positional, cmd->synopsis);
    return std::nullopt;
  }
  return a;
}

bool read_input(const std::string& path, std::string& out, std::string& error) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = fmt::format("'{}' is a directory", path);
    return false;
  }
  // Inputs are text files of a few KiB; a file past this is refused, not read into memory.
  constexpr uintmax_t kMaxInputBytes = 64u << 20;
  if (const uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxInputBytes) {
    error = fmt::format("'{}' has {} bytes, more than an input may ({} MiB)", path, size, kMaxInputBytes >> 20);
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("cannot read '{}'", path);
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = fmt::format("error while reading '{}'", path);
    return false;
  }
  return true;
}

}  // namespace stackcheck::cli
