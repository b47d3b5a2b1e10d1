// WellFormed rule 4's call cycles (COMPILER.md §4: "no cycles"), which no generator writes and
// the rule catalog's rule-4 entry does not make (an unknown callee, a call of the entry): a
// generated program gets a cycle of one graph calling itself with its own params, or of two
// graphs calling each other with fresh creates of the callee's shapes and literal scalars.
// WellFormed, on the program and on its printed and reparsed text, reports exactly one code 4
// per call that closes the cycle, naming the callee and the caller, on that call's line, and
// nothing else. The class: a cycle check that sees only a graph calling itself, or none (a
// call graph whose components are never computed). The control is a WellFormed that drops
// its cycle findings.
#include "properties/gen/arbitrary.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/verify/well_formed.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace stackcheck;

namespace {

using WellFormedFn = std::function<ir::Diagnostics(const ir::Program&)>;

// A call of `callee` placed first in `caller`'s body: its tensor params get fresh creates of
// their shapes (writable, of the right type), its scalars a literal.
void add_call(ir::Function& caller, const ir::Function& callee, const std::string& tag) {
  namespace b = ir::build;
  std::vector<ir::Stmt> front;
  std::vector<ir::Expr> args;
  if (&caller == &callee) {
    for (const ir::Param& p : callee.params) args.push_back(b::var(p.name));
  } else {
    for (size_t i = 0; i < callee.params.size(); ++i) {
      const ir::Param& p = callee.params[i];
      if (!p.type.is_tensor()) {
        args.push_back(b::lit(1));
        continue;
      }
      const std::string name = fmt::format("zz_{}{}", tag, i);
      std::vector<ir::Expr> shape;
      for (int64_t d : p.type.dims) shape.push_back(b::lit(d));
      front.push_back(b::create(name, std::move(shape)));
      args.push_back(b::var(name));
    }
  }
  front.push_back(b::call(callee.name, std::move(args)));
  caller.body.insert(caller.body.begin(), std::make_move_iterator(front.begin()), std::make_move_iterator(front.end()));
}

// The 1-based lines of `text` holding `call <callee>(` inside the function `caller`.
std::vector<uint32_t> call_lines(const std::string& text, const std::string& caller, const std::string& callee) {
  std::vector<uint32_t> out;
  std::istringstream in(text);
  std::string line, in_fn;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line[0] != ' ' && line[0] != '}') {  // a function's first line: `<kind> <name>(`
      const size_t name_at = line.find(' ') + 1;
      in_fn = line.substr(name_at, line.find('(') - name_at);
    }
    if (in_fn == caller && line.find("call " + callee + "(") != std::string::npos) out.push_back(n);
  }
  return out;
}

void cycle_case(const WellFormedFn& well_formed) {
  const gen::GeneratedProgram g = gen::any_program();
  std::vector<size_t> graphs;
  for (size_t i = 0; i < g.program.functions.size(); ++i)
    if (g.program.functions[i].kind == ir::Function::Kind::Graph) graphs.push_back(i);
  RC_PRE(!graphs.empty());
  gen::ChoiceSource& c = gen::choices();
  const bool two = graphs.size() >= 2 && c.boolean();
  const int64_t n = static_cast<int64_t>(graphs.size());
  const int64_t ia = c.integer(0, n - 1), step = two ? c.integer(1, n - 1) : 0;  // another graph: no retry loop
  const size_t a = graphs[static_cast<size_t>(ia)], b = graphs[static_cast<size_t>((ia + step) % n)];
  ir::Program p = g.program;
  ir::Function &fa = p.functions[a], &fb = p.functions[b];
  // Each edge of the cycle (caller, callee), in program order of the callers.
  std::vector<std::pair<std::string, std::string>> edges = {{fa.name, fb.name}};
  if (two) {
    const ir::Function copy_a = fa;  // fb's call reads fa's params as they were
    add_call(fa, fb, "a");
    add_call(fb, copy_a, "b");
    edges.emplace_back(fb.name, fa.name);
    if (b < a) std::swap(edges[0], edges[1]);
  } else {
    add_call(fa, fa, "a");  // its own params
  }
  gen::tag(two ? "two graphs" : "one graph");
  const std::string text = ir::print_program(p);
  const ir::ParseResult parsed = ir::parse_program(text);
  RC_ASSERT(parsed.ok());
  const ir::Diagnostics found = well_formed(parsed.program());
  std::string want;
  bool ok = found.size() == edges.size();
  for (size_t k = 0; k < edges.size(); ++k) {
    const auto& [caller, callee] = edges[k];
    const std::string message = fmt::format("call of '{}' from '{}' closes a call cycle", callee, caller);
    const std::vector<uint32_t> lines = call_lines(text, caller, callee);
    want += fmt::format("  {}: error[4]: {}\n", lines.empty() ? 0 : lines.front(), message);
    ok = ok && lines.size() == 1 && found[k].code == 4 && found[k].location.function == caller &&
         found[k].location.line == lines.front() && found[k].message == message;
  }
  if (ok) return;
  std::string got;
  for (const ir::Diagnostic& d : found) got += "  " + d.render("") + "\n";
  props::report(oracles::Verdict::fail("call-cycle", fmt::format("WellFormed on a program with a call cycle finds\n{}"
                                                                 "but each call that closes it must be reported:\n{}",
                                                                 got.empty() ? "  (none)\n" : got, want)),
                props::counterexample("well-formed", text));
}

ir::Diagnostics stack_well_formed(const ir::Program& p) { return verify::check_well_formed(p); }

// The control: a WellFormed blind to call cycles.
ir::Diagnostics blind_to_cycles(const ir::Program& p) {
  ir::Diagnostics out;
  for (ir::Diagnostic& d : verify::check_well_formed(p))
    if (d.message.find("closes a call cycle") == std::string::npos) out.push_back(std::move(d));
  return out;
}

}  // namespace

STACKCHECK_PROP(WellFormedCycles, each_call_closing_a_cycle_is_reported_on_its_line, 0.05) {
  cycle_case(stack_well_formed);
}

STACKCHECK_CONTROL(WellFormedCyclesControl, a_well_formed_blind_to_cycles_fails, "call-cycle") {
  cycle_case(blind_to_cycles);
}
