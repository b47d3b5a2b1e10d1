// The WellFormed rule family of the rule catalog (ir_breaker.h: break_well_formed_rule, one
// rule of COMPILER.md §4, 1-14, broken in a well-formed program): one entry per rule code,
// each with the function that makes the edit at a drawn place and fills what the rule's owner
// must report (BrokenProgram: the code, the marker of the broken line, the message parts, the
// interpreter's error, the at-limit twin). break_well_formed_rule draws the code, then runs
// its entry on a WellFormedEdit; the order and number of the draws is the choice sequence
// saved counterexamples and corpus files replay, so an entry draws exactly as the one
// function before it did. The entries, by family:
//   well_formed_names.cpp    2 a name bound twice, 3 an undefined or out-of-scope name,
//                            4 an unknown callee
//   well_formed_calls.cpp    5 a call's arity, 6 a tensor or scalar of the wrong kind, 12 tuples
//   well_formed_types.cpp    8 an entry param made Out, 9 a bad type or create extent
//   well_formed_kernels.cpp  10 a kernel that no longer fits its builtin
//   well_formed_bounds.cpp   11 an axis, index or window out of bounds, 13 a literal zero
//   well_formed_program.cpp  1 entries and twins, 14 returns
//   well_formed_writes.cpp   7 an In param written
// and the places a broken expression goes (rules 3, 11, 13) in well_formed_sites.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/ir_breaker.h"
#include "stack/ir/ast.h"

namespace stackcheck::gen::breakers {

// One WellFormed edit in progress: what an entry reads (the choices, the source program, its
// functions and the entry's body as they are in the copy being broken) and fills (b).
struct WellFormedEdit {
  ChoiceSource& c;
  const ir::Program& wf;      // the well-formed source
  BrokenProgram& b;           // the copy being broken, and what the rule's owner must report
  ir::Function* entry;        // b.program's entry (rules 1 and 7 may leave it dangling)
  std::vector<ir::Stmt>& body;  // the entry's body
  std::vector<ir::Function*> kernels, graphs;  // b.program's, in order
  std::vector<size_t> tensor_params;           // the entry's tensor params
  std::vector<size_t> calls;                   // kernel calls at the top of the entry's body
  std::optional<size_t> place;  // break_expression_at: the place the broken expression goes
  bool placed = false;          // a place is given: the rule draws no variant of its own
  // The edit leaves codegen something it can lower (a call's empty result bound to a name that
  // nothing reads): not one of its preconditions.
  bool lowers_anyway = false;

  void front(ir::Stmt s) { body.insert(body.begin(), std::move(s)); }
  // The broken scalar expression `bad` placed where the language takes one (kExprPlaces
  // places, ir_breaker.h): `place`, else drawn. The rule's owner must report it on that
  // statement's line (b.marker); b.what gets the place.
  void scalar_site(ir::Expr bad);
};

// What an entry did: no place for its rule in this program (nullopt); the edit made, codegen's
// refusal then expected where the catalog says the rule is a lowering precondition; or the
// edit made with b.lowering_precondition final (the entry decided it, or the program changed
// so that the entry and its body dangle).
enum class Made : uint8_t { kNoPlace, kBroken, kFinal };

// What the reference interpreter must report on a rule's broken program (COMPILER.md §7), at
// the broken statement's line where the breaker knows it (BrokenProgram::interp_errors).
enum class InterpExpect : uint8_t {
  kNotJudged,         // it may run the edit: a name bound again, an In param written, directions, returns
  kInvalid,           // not runnable: a name, callee, arity, kind, kernel or tuple it cannot resolve
  kInvalidIfFlagged,  // Invalid for the edits that say so (BrokenProgram::interp_invalid) only
  kOutOfBounds,       // a static window or index past its buffer
  kZero,              // a static zero divisor or zero loop step
};

struct WellFormedRuleEntry {
  int code;
  // Codegen's lowering rests on the rule (BrokenProgram::lowering_precondition) unless the
  // edit says otherwise (WellFormedEdit::lowers_anyway).
  bool lowering_precondition;
  InterpExpect interp;
  Made (*break_it)(WellFormedEdit& e);
};

// The interpreter's errors an entry expects of one broken program: none when the edit says the
// interpreter runs it (BrokenProgram::interp_runs).
std::vector<interp::ErrorKind> expected_interp_errors(InterpExpect expect, const BrokenProgram& b);

// Every rule of the family, by code (1..14).
std::span<const WellFormedRuleEntry> well_formed_rule_catalog();

// The entries.
Made break_program_entries(WellFormedEdit& e);      // 1
Made break_name_twice(WellFormedEdit& e);           // 2
Made break_undefined_name(WellFormedEdit& e);       // 3
Made break_unknown_callee(WellFormedEdit& e);       // 4
Made break_call_arity(WellFormedEdit& e);           // 5
Made break_argument_kind(WellFormedEdit& e);        // 6
Made break_in_param_written(WellFormedEdit& e);     // 7
Made break_entry_param_out(WellFormedEdit& e);      // 8
Made break_type(WellFormedEdit& e);                 // 9
Made break_kernel_builtin(WellFormedEdit& e);       // 10
Made break_bounds(WellFormedEdit& e);               // 11
Made break_tuple(WellFormedEdit& e);                // 12
Made break_literal_zero(WellFormedEdit& e);         // 13
Made break_returns(WellFormedEdit& e);              // 14

}  // namespace stackcheck::gen::breakers
