// parse, print, verify: the IR-level commands.
#include "stack/cli/cli.h"

#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>

namespace stackcheck::cli {

namespace {

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// Reads and parses; on failure prints the error (stderr) and sets `exit_code`.
std::optional<ir::Program> load_program(const std::string& path, int& exit_code) {
  std::string text, error;
  if (!read_input(path, text, error)) {
    fmt::print(stderr, "stackcheck: {}\n", error);
    exit_code = kUsage;
    return std::nullopt;
  }
  ir::ParseResult r = ir::parse_program(text);
  if (!r.ok()) {
    fmt::print(stderr, "{}:{}:{}: error[parse]: {}\n", display_name(path), r.error().line, r.error().column,
               r.error().message);
    exit_code = kFail;
    return std::nullopt;
  }
  return std::move(r.program());
}

}  // namespace

int cmd_parse(const Args& a) {
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;
  fmt::print("{}: ok ({} functions)\n", display_name(a.positional[0]), p->functions.size());
  return kOk;
}

int cmd_print(const Args& a) {
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;
  fmt::print("{}", ir::print_program(*p));
  return kOk;
}

int cmd_verify(const Args& a) {
  const std::string rule = a.get("--rule", "WellFormed");
  if (rule != "WellFormed") {
    fmt::print(stderr, "stackcheck: unknown verifier '{}' (known: WellFormed)\n", rule);
    return kUsage;
  }
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;
  const auto diags = verify::check_well_formed(*p);
  for (const auto& d : diags) fmt::print("{}\n", d.render(display_name(a.positional[0])));
  return diags.empty() ? kOk : kFail;
}

}  // namespace stackcheck::cli
