// Plans with exactly one rule of the `.plan` static check broken (RUNTIME.md §17,
// runtime/plan/check.h), built as ASTs, so that every rule is reached whatever the text
// syntax allows: a valid generated plan gets one rule-breaking edit at the start of a body
// chosen by the ChoiceSource (the root body, a graph body, or the body of a root-level for
// loop, whose variable is then in scope), and the message the check must give, written
// from check.h's rules (the wording is the check's, the choice of which rule is broken is
// the generator's). Rules: an undefined name used as a tensor or as a scalar, a tensor used
// as a scalar and a scalar as a tensor, a name bound twice in one body, a loop variable used
// after its loop, a `$k` slot in the root body or past $63, an alloc or output dimension 0,
// a rank-5 shape, an entry tensor past 2^20 elements, an undefined graph, a negative
// sync_start, an empty alloc, a read through a non-In root, a read index of rank 0 or 5, a
// window of rank 5 or of negative size, a keyword as a name, blocks nested past 256,
// an expression deeper than 1024, a graph defined twice, a mutate offset past 2^63-1; and, for
// a caller that builds plans as ASTs (what the parser never hands the check), an expression
// node of a malformed shape (a literal or slot with a name, a name with a value, a binary
// with a value, a name, one or three operands, a leaf with operands) and an argument with a
// field its tag does not use.
// Rule 0 (the simplest choice) is the undefined tensor. No RapidCheck here.
#pragma once

#include <optional>
#include <string>

#include "properties/gen/choice.h"
#include "stack/runtime/plan/program.h"

namespace stackcheck::gen {

enum class PlanRule : uint8_t {
  kUndefinedTensor,
  kUndefinedScalar,
  kTensorAsScalar,
  kScalarAsTensor,
  kBoundTwice,
  kOutOfScope,
  kSlotInRoot,
  kSlotRange,
  kDimZero,
  kRankFive,
  kEntryTooLarge,
  kUndefinedGraph,
  kSyncNegative,
  kAllocEmpty,
  kReadNotIn,
  kReadRank,
  kWindowRank,
  kWindowNegative,
  kKeywordName,
  kNestingDeep,
  kExprDeep,
  kGraphTwice,
  kMutateOffset,
  kMalformedExpr,  // an expression node the parser never builds (AST only)
  kArgUnusedField,  // an argument with a field its tag does not use (AST only)
  kCount
};
const char* plan_rule_name(PlanRule r);

struct BrokenPlan {
  runtime::OrchProgram plan;
  PlanRule rule = PlanRule::kUndefinedTensor;
  std::string where;     // "root body", "graph g0 body", "for i body"
  std::string expected;  // the check's message
  // For a rule with a limit (slot range, nesting, expression depth, rank, dims, entry size,
  // sync count, window size and rank): the same edit at the same place with the value at the
  // limit, which the check must accept (the one past it is `plan`).
  std::optional<runtime::OrchProgram> at_limit;
  std::string limit;  // what at_limit holds, one line
  // False for an edit only an AST can hold (a malformed expression node, an argument field its
  // tag does not use): the printer cannot write it, so its text is not judged.
  bool text_form = true;
};

// `valid` must pass runtime::validate_plan. nullopt when the drawn rule has no place in this
// plan (e.g. a slot range without a graph): the caller draws again or discards.
// `rule`: that rule (its place and its variant still drawn), else one drawn.
std::optional<BrokenPlan> break_plan_rule(ChoiceSource& c, const runtime::OrchProgram& valid,
                                          std::optional<PlanRule> rule = std::nullopt);

}  // namespace stackcheck::gen
