// Pass manager and its instruments (COMPILER.md §5). Runs a sequence of passes, tracking the
// properties the program holds: held = (held - invalidated) + produced.
//   verify (on by default): before a pass, each required property is checked by its
//     verifier; a failure is the input's fault (InputRejected) if the property was never
//     produced by a pass, else a bug of the pass that last claimed it (PassBug). After a
//     pass, WellFormed and every produced property are checked; a failure is a PassBug of
//     that pass. A pass's own rejection is InputRejected, naming the pass.
//   print-after-all: after each pass, writes "# after <Pass>\n" and the printed program to
//     a sink (a callback; the library itself never prints).
// Verifiers are looked up in a VerifierRegistry (property -> function); the default
// registry knows every verifier of stack/verify/, and register_verifier() lets a property's
// verifier be replaced at run time. A property with no verifier is trusted, and the
// outcome lists it in `unverified`.
#pragma once

#include "stack/ir/ast.h"
#include "stack/passes/legalize_graph_boundary.h"
#include "stack/passes/pass.h"
#include "stack/verify/diagnostic.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stackcheck::passes {

using Verifier = std::function<verify::Diagnostics(const ir::Program&)>;

// Property -> verifier. Copyable; a PassManager keeps its own copy.
class VerifierRegistry {
 public:
  void set(Property p, Verifier v) { verifiers_[p] = std::move(v); }
  const Verifier* find(Property p) const;

 private:
  std::map<Property, Verifier> verifiers_;
};

// The process-wide default registry: WellFormed, ReturnParamsExplicit and
// GraphBoundaryLegalized (when built in). Mutating it does not affect existing managers.
const VerifierRegistry& default_verifiers();
// Wires (or replaces) a property's verifier in the default registry. Not thread-safe:
// call it at start-up, before building PassManagers.
void register_verifier(Property p, Verifier v);

// Every single property bit set in `set`, in bit order.
std::vector<Property> properties_in(PropertySet set);
// "WellFormed|ReturnParamsExplicit" ("-" for none).
std::string property_set_name(PropertySet set);

enum class Outcome { Ok, InputRejected, PassBug };
const char* outcome_name(Outcome o);

struct PipelineResult {
  Outcome outcome = Outcome::Ok;
  ir::Program program;                  // Ok: the final program; else the last program that
                                        // was accepted (the input of the failing step)
  std::string pass;                     // the pass rejected or blamed ("" when Ok)
  std::string message;                  // one line: what failed, where and whose fault
  verify::Diagnostics diagnostics;      // the rejection or the failing verifier's findings
  PropertySet held = 0;                 // properties held at the end
  PropertySet unverified = 0;           // properties trusted because no verifier was registered
  std::vector<std::string> passes_run;  // passes that ran to completion, in order

  bool ok() const { return outcome == Outcome::Ok; }
};

struct PassManagerOptions {
  bool verify = true;
  bool print_after_all = false;
  // Receives each "# after <Pass>\n<program>" block when print_after_all is on.
  std::function<void(std::string_view)> sink;
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}, VerifierRegistry verifiers = default_verifiers());

  PassManager& add(std::unique_ptr<Pass> pass);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  // Runs every pass in order on `input`, of which `held` is already known to hold (it is
  // still verified when required, but a failure then is the caller's InputRejected).
  PipelineResult run(const ir::Program& input, PropertySet held = 0);

 private:
  PassManagerOptions options_;
  VerifierRegistry verifiers_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

// Options of the default pipeline's passes.
struct PipelineOptions {
  // LegalizeGraphBoundary (step_c). Still spelled `lgb`: codegen_differential_test.cpp,
  // which another branch is moving, sets it; rename it with that file's next edit.
  LegalizeGraphBoundaryOptions lgb;
};

// Simplify, NormalizeReturnOrder, LegalizeGraphBoundary (COMPILER.md §5).
PassManager default_pipeline(const PipelineOptions& pipeline = {}, PassManagerOptions options = {});

// A print-after-all sink appending to `out` (which must outlive the manager's runs).
std::function<void(std::string_view)> string_sink(std::string& out);

}  // namespace stackcheck::passes
