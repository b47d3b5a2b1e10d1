// The WellFormed rule family's catalog and break_well_formed_rule / break_expression_at
// (ir_breaker.h): the program copied, the rule's code drawn (or given), its entry run on a
// WellFormedEdit (well_formed_context.h), and codegen's refusal expected where the rule is a
// lowering precondition.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "properties/gen/breakers/ir_build.h"
#include "properties/gen/breakers/well_formed_context.h"

namespace stackcheck::gen {
namespace breakers {

namespace {

// By code, with what the reference interpreter must report (COMPILER.md §7): a name, callee,
// kind or tuple it cannot resolve (3, 4, 6, 12) makes the program not runnable (Invalid), as a
// call with an argument fewer or more than its callee's params (5: the entry edits a call at
// the top of the entry, which runs) and a kernel with a param fewer than its builtin or one of
// the other kind, launched at the top of the entry (10; BrokenProgram::interp_runs otherwise);
// a create of an extent below 1 or an entry param of a shape it cannot allocate (9), or a
// program without an entry (1), only for the edits that say so (BrokenProgram::interp_invalid:
// not a kernel param's type or a dtype it never reads, nor a second entry or kernel it
// ignores); a static out-of-bounds window or index (11) and a static zero divisor or step (13)
// are its errors of that kind.
// Not a precondition of codegen's lowering: a repeated assignment (a create bound
// again is a new buffer; rule 2's entry decides the rest), a type (9), a kernel's fit to its
// builtin (10), a literal zero (13), returns (14), and writability (7: WellFormed's to check).
// Rule 1's entry decides for each of its edits (Made::kFinal), as 11's do for some.
constexpr std::array<WellFormedRuleEntry, 14> kCatalog = {{
    {1, false, InterpExpect::kInvalidIfFlagged, break_program_entries},
    {2, false, InterpExpect::kNotJudged, break_name_twice},
    {3, true, InterpExpect::kInvalid, break_undefined_name},
    {4, true, InterpExpect::kInvalid, break_unknown_callee},
    {5, true, InterpExpect::kInvalid, break_call_arity},
    {6, true, InterpExpect::kInvalid, break_argument_kind},
    {7, false, InterpExpect::kNotJudged, break_in_param_written},
    {8, true, InterpExpect::kNotJudged, break_entry_param_out},
    {9, false, InterpExpect::kInvalidIfFlagged, break_type},
    {10, false, InterpExpect::kInvalid, break_kernel_builtin},
    {11, true, InterpExpect::kOutOfBounds, break_bounds},
    {12, true, InterpExpect::kInvalid, break_tuple},
    {13, false, InterpExpect::kZero, break_literal_zero},
    {14, false, InterpExpect::kNotJudged, break_returns},
}};

}  // namespace

std::span<const WellFormedRuleEntry> well_formed_rule_catalog() { return kCatalog; }

std::vector<interp::ErrorKind> expected_interp_errors(InterpExpect expect, const BrokenProgram& b) {
  using K = interp::ErrorKind;
  if (b.interp_runs) return {};
  switch (expect) {
    case InterpExpect::kInvalid: return {K::Invalid};
    case InterpExpect::kInvalidIfFlagged: return b.interp_invalid ? std::vector<K>{K::Invalid} : std::vector<K>{};
    case InterpExpect::kOutOfBounds: return {K::OutOfBounds};
    case InterpExpect::kZero: return {K::ZeroDivisor, K::ZeroStep};
    case InterpExpect::kNotJudged: break;
  }
  return {};
}

}  // namespace breakers

namespace {

using namespace ir;
using breakers::invoke_of;
using breakers::is_kernel;

struct ForcedPlace {
  int code = 0;
  std::optional<size_t> place;  // none: the rule given, its place and variant drawn
};

std::optional<BrokenProgram> break_well_formed(ChoiceSource& c, const Program& wf, const ForcedPlace* forced) {
  BrokenProgram b;
  b.program = wf;
  Function* entry = nullptr;
  std::vector<Function*> kernels, graphs;
  for (Function& f : b.program.functions) {
    if (f.kind == Function::Kind::Orchestration) entry = &f;
    if (f.kind == Function::Kind::Kernel) kernels.push_back(&f);
    if (f.kind == Function::Kind::Graph) graphs.push_back(&f);
  }
  if (entry == nullptr) return std::nullopt;
  b.graph = entry->name;
  // The order of the codes is the choice sequence's: choice 0 is rule 3.
  static const std::vector<int> kCodes = {3, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 7};
  b.code = forced != nullptr ? forced->code : c.pick(kCodes);
  breakers::WellFormedEdit e{c, wf, b, entry, entry->body, std::move(kernels), std::move(graphs), {}, {}, {}};
  e.place = forced != nullptr ? forced->place : std::nullopt;
  b.whole_list = b.code != 10;
  e.placed = e.place.has_value();  // break_expression_at
  for (size_t i = 0; i < entry->params.size(); ++i)
    if (entry->params[i].type.is_tensor()) e.tensor_params.push_back(i);
  for (size_t i = 0; i < e.body.size(); ++i)
    if (const Invoke* v = invoke_of(e.body[i]); v != nullptr && is_kernel(b.program, v->callee)) e.calls.push_back(i);
  const auto catalog = breakers::well_formed_rule_catalog();
  const auto entry_of = std::find_if(catalog.begin(), catalog.end(), [&](const auto& r) { return r.code == b.code; });
  if (entry_of == catalog.end()) return std::nullopt;
  const breakers::Made made = entry_of->break_it(e);
  if (made == breakers::Made::kNoPlace) return std::nullopt;
  b.interp_errors = breakers::expected_interp_errors(entry_of->interp, b);
  b.pipeline_refuses = true;
  if (made == breakers::Made::kBroken && entry_of->lowering_precondition && !e.lowers_anyway)
    b.lowering_precondition = true;
  return b;
}

}  // namespace

std::optional<BrokenProgram> break_well_formed_rule(ChoiceSource& c, const Program& well_formed) {
  return break_well_formed(c, well_formed, nullptr);
}

std::optional<BrokenProgram> break_well_formed_rule(ChoiceSource& c, const Program& well_formed, int code) {
  static const std::vector<int> kAll = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  if (std::find(kAll.begin(), kAll.end(), code) == kAll.end()) return std::nullopt;
  const ForcedPlace forced{code, std::nullopt};
  return break_well_formed(c, well_formed, &forced);
}

std::optional<BrokenProgram> break_expression_at(ChoiceSource& c, const Program& well_formed, int code, size_t place) {
  if ((code != 3 && code != 11 && code != 13) || place >= kExprPlaces) return std::nullopt;
  const ForcedPlace forced{code, place};
  return break_well_formed(c, well_formed, &forced);
}

}  // namespace stackcheck::gen
