// parse, print, verify: the IR-level commands.
#include "cli/cli.h"

#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>

namespace stackcheck::cli {

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

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
  ir::Diagnostics (*check)(const ir::Program&) = nullptr;
  if (rule == "WellFormed")
    check = verify::check_well_formed;
  else if (rule == "ReturnParamsExplicit")
    check = verify::check_return_params_explicit;
  else if (rule == "GraphBoundaryLegalized")
    check = verify::check_graph_boundary_legalized;
  if (!check) {
    fmt::print(stderr,
               "stackcheck: --rule: unknown verifier '{}' (known: WellFormed, ReturnParamsExplicit, "
               "GraphBoundaryLegalized)\n",
               rule);
    return kUsage;
  }
  int rc = kOk;
  auto p = load_program(a.positional[0], rc);
  if (!p) return rc;
  const auto diags = check(*p);
  for (const auto& d : diags) fmt::print("{}\n", d.render(display_name(a.positional[0])));
  return diags.empty() ? kOk : kFail;
}

}  // namespace stackcheck::cli
