// Parser of the `.plan` text form (RUNTIME.md §17). Accepts any bytes: returns an
// OrchProgram or the first error as `line:column: message` (1-based bytes), never crashes,
// never recurses past the nesting limit (open ( [ { together, PlanLimits::max_nesting) and
// rejects inputs over PlanLimits::max_bytes up front. Lexing follows the Graph IR
// (COMPILER.md §1): `#` comments, ID [A-Za-z_][A-Za-z0-9_]*, INT [0-9]+ <= 2^63-1 (2^63
// only right after a unary `-`), plus `$ : = [ ]`; blank lines are skipped; a CR is an error.
// After a syntactically valid parse the static checks of check.h run, so a returned
// program always passes validate_plan. The parser adds the one rule the program cannot
// carry: a graph is defined before its first use in the text (§17), so a submit_graph above
// its graph's definition is an error at the submit_graph (the earlier of that and the
// static checks' first error is reported). A `config` value outside its field's range
// (plan/config_ranges.h) is an error at its KEY.
//
// Grammar (NL ends every line; `graph` definitions sit at top level only, between
// statements if need be, each before its first use):
//   program = [config] {tensor} {graph | stmt} {mutate}
//   config  = "config" KEY "=" ["-"] INT {KEY "=" ["-"] INT}
//   tensor  = "tensor" ID ":" ("In" | "InOut") shape
//   graph   = "graph" ID "(" [ID {"," ID}] ")" block
//   mutate  = "mutate" ["header"] INT INT
//   stmt    = "scope_begin" | "scope_end" | "fatal" | "wait_tensor" ID | "sync_start" INT
//           | "alloc" ID ":" shape {"," ID ":" shape} | "view" ID "=" win | "set" ID "=" expr
//           | "read" ID "=" ID "[" expr {"," expr} "]"
//           | "submit" BUILTIN args | "submit_graph" ID args
//           | "for" ID "=" expr "," expr "," expr block
//           | "if" expr CMP expr block ["else" block]
//   block   = "{" NL {stmt NL} "}"       args = "(" [arg {"," arg}] ")"
//   arg     = ("input" | "inout" | "output_existing" | "no_dep") win
//           | "output" ID ":" shape | "scalar" expr
//   win     = ID ["[" expr ":" INT {"," expr ":" INT} "]"]      shape = "[" INT {"," INT} "]"
//   expr    = term {("+" | "-") term}     term = atom {("*" | "/" | "%") atom}
//   atom    = INT | "-" INT | ID | "$" INT | "(" expr ")"
#pragma once

#include <string_view>
#include <variant>

#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::runtime {

// Holds an OrchProgram on success, else the first PlanError.
struct PlanParseResult {
  std::variant<OrchProgram, PlanError> value;
  bool ok() const { return value.index() == 0; }
  const OrchProgram& program() const { return std::get<OrchProgram>(value); }
  OrchProgram& program() { return std::get<OrchProgram>(value); }
  const PlanError& error() const { return std::get<PlanError>(value); }
};

PlanParseResult parse_plan(std::string_view text, const PlanLimits& limits = {});

}  // namespace stackcheck::runtime
