// The one judge of a program with one IR rule broken (gen::BrokenProgram, made by the
// WellFormed and GraphBoundaryLegalized rule catalogs, properties/gen/breakers/): it walks the
// program's expectations, each checked where the catalog entry or its dispatcher set it, so
// that a suite names only the rule's owner and keeps no table of codes.
//   code            the owner's first diagnostic has it (only_code: it is the only code; findings:
//                   that many, from the owner and from the pass where it owns the code)
//   at_limit        the same edit at exactly the limit: the owner takes it (at_limit_runs:
//                   LegalizeGraphBoundary takes it too and it runs end to end as interpreted)
//   has_text        the printed text parses and the owner gives the code on it, and then:
//     interp_errors   the reference interpreter gives one of them, at the marker's line
//     message_has     the diagnostic's message says each
//     message         the diagnostic's message is exactly this (on the AST as well)
//     marker          the diagnostic is on the marker's line, and so is codegen's refusal
//   pass_owns       LegalizeGraphBoundary reports the code as well
//   pipeline_refuses  the pipeline refuses the program as input (never a pass bug or a crash)
//   lowering_precondition  codegen run without the verifier refuses it
//   codegen_code    codegen run without the verifier refuses it with that code
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "properties/gen/ir_breaker.h"
#include "properties/legal_pipeline.h"
#include "stack/interp/interp.h"
#include "stack/ir/diagnostic.h"
#include "stack/passes/legalize_graph_boundary.h"

namespace stackcheck::props {

// Who owns the rules (the stack's verifier, or a planted defective one in a positive control)
// and the stages run after it (the stack's, or planted ones).
struct RuleOwner {
  std::string name;  // in messages: "WellFormed", "the verifier"
  // Verdict rules are <rule_prefix>-code, -limit, -message and -line; counterexamples are of
  // this oracle kind.
  std::string rule_prefix;
  std::function<ir::Diagnostics(const ir::Program&)> check;
  Codegen generate;
  std::function<interp::Result(const ir::Program&, uint64_t)> run_interp;
  // LegalizeGraphBoundary, where the program says the pass owns the code (a control swaps it).
  std::function<passes::PassResult(const ir::Program&)> pass;
};

// The stack's own stages behind a given checker.
RuleOwner rule_owner(std::string name, std::string rule_prefix,
                     std::function<ir::Diagnostics(const ir::Program&)> check);

void judge_broken_program(const gen::BrokenProgram& b, const RuleOwner& owner);

}  // namespace stackcheck::props
