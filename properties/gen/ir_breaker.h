// Programs with exactly one rule of GraphBoundaryLegalized broken (COMPILER.md §4, 201-217),
// for the verifier run on its own and for LegalizeGraphBoundary fed what its predecessors
// never hand it. The source is a legalized program (the default pipeline's output, which the
// verifier accepts); one graph function chosen by the ChoiceSource gets one edit:
//   201 a scalar param made InOut or Out     202 a tensor param made Out
//   204 129+ tensor params (call sites pass a tensor of the same type for each)
//   205 65+ scalar params (call sites pass literals)
//   206 a `full` at the top of the body       207 a create whose shape is not a literal
//   208 the graph calls itself                 210 a call site with one argument too many,
//       an argument of the other kind or of another shape; a kernel launch with one too many
//   214 a launch wrapped in a loop whose trips are a scalar param
//   215 a launch wrapped in an if              216 a launch repeated past 1024 nodes
//   217 a `read` in the body
//   209 a returned param made a whole view of itself (only the verifier: Step B repairs it)
//   211 a view of a tensor param at the variable of a node-free loop whose trips are a scalar
//       param                                  212 an assemble of a fresh create into an
//       InOut param at offset (scalar param % extent)
//   213 a launch's scalar argument made `n + 7919` of a scalar param n
// with the code the verifier (and the pass) must give. 203: every tensor param made a create
// in the body (only the verifier: Step A hoists them back).
// Choice 0 (the simplest) is 206. No RapidCheck here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "properties/gen/choice.h"
#include "stack/interp/interp.h"
#include "stack/ir/ast.h"

namespace stackcheck::gen {

struct BrokenProgram {
  ir::Program program;
  int code = 0;
  std::string graph;  // the graph function edited
  std::string what;   // one line: the edit
  // break_well_formed_rule: the edit breaks what codegen's lowering itself rests on (names
  // defined once and in scope, callees, arity, tensor or scalar kinds, axes and index
  // ranks, tuples, entry params, a kernel with the builtin's params), so codegen run
  // without the verifier must refuse it. Not so a kernel param's direction or a kernel's
  // returns: lowering trusts WellFormed for those (COMPILER.md §6 lists no code for them).
  bool lowering_precondition = false;
  // break_graph_rule: LegalizeGraphBoundary must report the code too (the dispatcher sets it).
  // False where the edit also breaks WellFormed (a kernel launch's arity, WellFormed 5), the
  // pass's precondition: only the verifier, run directly, owns it then.
  bool pass_owns = false;
  // break_graph_rule: the owner reports this code and no other (the verifier checks every rule).
  bool only_code = false;
  // break_graph_rule: how many findings the owner, and the pass where it owns the code, report
  // (one rule broken in one graph: one); 0: not judged.
  size_t findings = 0;
  // break_well_formed_rule: the pipeline refuses the program as its input (WellFormed is the
  // pipeline's precondition), never a pass bug or a crash.
  bool pipeline_refuses = false;
  // The printed text is syntax (it parses) and carries the edit; false for a negative dim in a
  // param type or a negative view size, which the grammar cannot write, and for results
  // declared by the entry, which the printer does not write: the text is not judged then.
  bool has_text = true;
  // A text on the line of the printed program where the rule's owner must report (its last
  // occurrence: a kernel defined twice is reported at the copy); empty: the line is not checked.
  std::string marker;
  // Texts the first diagnostic's message must hold: the names of what broke the rule, in the
  // places the message puts them (who is passed for what, whose buffer it is).
  std::vector<std::string> message_has;
  // The first diagnostic's whole message, where the catalog entry states all of its words and
  // names (the verifier's message table restated); empty: only message_has is checked.
  std::string message;
  // whole_list: the owner's diagnostics are exactly `message` and then these messages, in
  // order (break_well_formed_rule sets it for every rule but 10, whose kernels also misfit
  // their calls; an entry clears it where it cannot say what follows).
  bool whole_list = false;
  std::vector<std::string> then;
  // break_well_formed_rule, code 9: the reference interpreter cannot run it either (a create or
  // an entry param of a shape it cannot allocate): its Invalid error (COMPILER.md §7).
  bool interp_invalid = false;
  // The reference interpreter can run the edit all the same (a tuple aliased by a bare name, a
  // call's empty result bound and never read): the interpreter's error is not expected.
  bool interp_runs = false;
  // break_well_formed_rule: the errors the reference interpreter may give on the program, one
  // of which it must give at the marker's line (COMPILER.md §7), from the rule's catalog entry
  // and the two flags above; empty: the interpreter is not judged.
  std::vector<interp::ErrorKind> interp_errors;
  // break_graph_rule: the code codegen, run without the verifier, must refuse the edit with
  // (its defence in depth, COMPILER.md §6; from the rule's catalog entry); 0: none.
  int codegen_code = 0;
  // break_graph_rule, a limit's rule (204, 205): the same edit with exactly the limit's count,
  // legal at every stage (the verifier, the pass, codegen, the runtime's graph arguments).
  std::optional<ir::Program> at_limit;
  std::string limit;  // what at_limit holds, one line
  // break_graph_rule: at_limit is legal at every stage, so LegalizeGraphBoundary takes it and it
  // runs end to end as the interpreter runs it (else only the owner is asked).
  bool at_limit_runs = false;
  // break_at_call_site: how many call sites pass the breaking value (one, or every site of the
  // graph), so how many diagnostics the pass must give, one per site in program order.
  size_t broken_sites = 1;
};

// nullopt when the drawn rule has no place in `legal` (no graph, no scalar param, ...).
std::optional<BrokenProgram> break_graph_rule(ChoiceSource& c, const ir::Program& legal);

// A rule broken only at one call site of a graph (COMPILER.md §5.3 Step D): a WellFormed
// program's graph gets a scalar param `zz_s` and, at the top of its body, a definition Step A
// hoists to every call site: `zz_d = K / zz_s` (13: one site passes 0, a static zero divisor
// there) or `zz_v = slice(p, [zz_s, 0..], [1, ..])` of a tensor param p (11: one site passes
// p's first extent, a view one past its end; the others pass 0). LegalizeGraphBoundary must
// reject exactly that site with the code; `at_limit` passes the last legal offset (extent - 1)
// instead, which every stage must take. Where the graph has several call sites, sometimes
// every site passes the breaking value (BrokenProgram::broken_sites): one rejection each, in
// program order. nullopt when no graph is called.
std::optional<BrokenProgram> break_at_call_site(ChoiceSource& c, const ir::Program& wf);

// Codegen's own refusal of a WellFormed program (COMPILER.md §6; breakers/codegen_rules.cpp):
// an entry scalar param (306) or a read whose root is not an entry In param (303), with the
// marker of the line codegen must refuse; `what` is the variant's tag. nullopt without an entry.
std::optional<BrokenProgram> break_codegen_rule(ChoiceSource& c, const ir::Program& wf);

// One WellFormed rule (COMPILER.md §4, 1-99) broken in a well-formed program, through the
// entry's body or a declaration:
//   1 a second orchestration, a kernel or a graph defined twice, no orchestration at all
//   2 an assignment repeated          3 an undefined name (a scalar; a tensor: a view's source, an
//                                       assemble's target or source, a kernel call's tensor argument),
//                                       or a scalar used before its definition
//   4 an unknown callee               5 a kernel call with one argument fewer or more
//   6 a tensor argument given as a literal
//   8 an entry param made Out         9 a create of a zero or negative extent, or a kernel
//                                       param type with a zero dim
//  10 a kernel with one param fewer than its builtin, a param direction other than the
//     builtin's, a return naming an In param
//  11 dim() past the rank, read() with the wrong index rank or at a static index past an axis
//     (at its extent or -1), a view of size 0 or -1 or larger
//     than its source on an axis, a view or an assemble at a static
//     offset past its buffer's end
//  12 `.k` of a name that is not a tuple
//  13 a literal zero divisor, a literal zero loop step
//   (3's undefined name, 11's dim()/read() and 13's divisor sit in any of kExprPlaces places
//   below: scalar statements, loop bounds and steps, the operands of creates, fulls, views,
//   assembles and calls; the marker is its line)
//   7 an In param written: passed for an Out param (call or submit) or made an assemble
//     target, directly or through a chain of 1-3 aliases and views (a view of a view), at the
//     top level, in a loop or in an if
//  14 a statement after a graph's return, the entry returning a name, a graph returning a scalar
//     param as a tensor result, a graph returning one
//     name fewer or more than it declares
// The expected code is the first diagnostic's.
std::optional<BrokenProgram> break_well_formed_rule(ChoiceSource& c, const ir::Program& well_formed);
// The same with the rule given (1..14; its place and variant drawn); nullopt for another code.
std::optional<BrokenProgram> break_well_formed_rule(ChoiceSource& c, const ir::Program& well_formed, int code);

// A broken expression's places (rules 3, 11 and 13 above): 0 an assignment, 1 and 2 an if
// condition's sides, 3 a loop's upper bound, 4 and 5 an assignment in a loop or an if body,
// 6 a create's or a full's extent or a full's value, 7 a loop's lower bound, 8 a view's
// offset, 9 a loop's step, 10 an assemble's offset, 11 a call's scalar argument (kernel or
// graph). Where the program has no place of the kind (no tensor param, no scalar argument) the
// expression goes into an assignment.
inline constexpr size_t kExprPlaces = 12;
// break_well_formed_rule with the rule and the place given: `code` 3 (an undefined name),
// 11 (dim() past the rank or read() with the wrong index rank) or 13 (a literal zero
// divisor) in place `place`. nullopt for another code or place, or no place for the rule.
std::optional<BrokenProgram> break_expression_at(ChoiceSource& c, const ir::Program& well_formed, int code,
                                                 size_t place);

}  // namespace stackcheck::gen
