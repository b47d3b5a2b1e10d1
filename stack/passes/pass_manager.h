// Pass manager and its instruments (COMPILER.md §5; MLIR's PassInstrumentation). Runs a
// sequence of passes, tracking the properties the program holds in a ledger:
// held = (held - invalidated) + produced, with the pass that last claimed each one.
// Everything that watches or judges the run is an instrument with before-pass, after-pass
// and after-failed hooks; each hook sees the pass, its input (and output) program and the
// ledger, and may let the run go on, stop it cleanly after the pass, or fail it. The
// built-in instruments, switched on by PassManagerOptions:
//   verify (on by default): before a pass, each required property is checked by its
//     verifier; a failure is the input's fault (InputRejected) if the property was never
//     produced by a pass, else a bug of the pass that last claimed it (PassBug). After a
//     pass, WellFormed and every produced property are checked; a failure is a PassBug of
//     that pass. A verifier with an incremental form (WellFormed's) judges the output given
//     the pass's input when it verified that input: what the pass left alone is not walked
//     again, and the findings are the full verifier's. A pass's own rejection is
//     InputRejected, naming the pass.
//   print-after-all: after each pass, writes "# after <Pass>\n" and the printed program to
//     a sink (a callback; the library itself never prints).
//   stop-after: ends the run cleanly after the named pass.
// Snapshot (added by the caller) records each accepted pass output. Verifiers come from a
// VerifierRegistry carried in the options (default_verifiers(): stack/verify/'s three); a
// property with no verifier is trusted, and the outcome lists it in `unverified`. Nothing
// here is global or mutable beyond one PassManager.
#pragma once

#include "stack/ir/ast.h"
#include "stack/passes/pass.h"
#include "stack/ir/diagnostic.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stackcheck::passes {

using Verifier = std::function<ir::Diagnostics(const ir::Program&)>;
// A verifier's incremental form: its findings on `program` given `clean`, a program on which
// the same verifier found nothing (alive for the call). It must find exactly what the
// verifier finds on `program`; it may skip what `program` shares with `clean`.
using IncrementalVerifier = std::function<ir::Diagnostics(const ir::Program& program, const ir::Program& clean)>;

// Property -> verifier, and optionally its incremental form. A value: each PassManager holds
// its own copy. set() replaces both (a new verifier without one has none).
class VerifierRegistry {
 public:
  void set(Property p, Verifier v, IncrementalVerifier since = {}) {
    verifiers_[p] = Entry{std::move(v), std::move(since)};
  }
  const Verifier* find(Property p) const;
  const IncrementalVerifier* find_since(Property p) const;

 private:
  struct Entry {
    Verifier full;
    IncrementalVerifier since;
  };
  std::map<Property, Entry> verifiers_;
};

// A registry of WellFormed (with its incremental form, check_well_formed_since),
// ReturnParamsExplicit and GraphBoundaryLegalized (a new value on every call).
VerifierRegistry default_verifiers();

// Every single property bit set in `set`, in bit order.
std::vector<Property> properties_in(PropertySet set);
// "WellFormed|ReturnParamsExplicit" ("-" for none).
std::string property_set_name(PropertySet set);

enum class Outcome { Ok, InputRejected, PassBug };
const char* outcome_name(Outcome o);

// The property bookkeeping of one run, shared by the manager and its instruments.
struct PropertyLedger {
  PropertySet held = 0;  // properties the current program holds
  // Who last claimed each held property: a pass, or "" for the caller's claim or a property
  // found to hold by verifying the input.
  std::map<Property, std::string> claimant;
  PropertySet unverified = 0;           // trusted because no verifier was registered
  std::vector<std::string> passes_run;  // passes that ran to completion, in order
};

// An instrument's answer to a hook: go on, stop the run cleanly after this pass, or fail
// the run with an outcome, the pass to name and the evidence.
struct HookResult {
  enum class Action : uint8_t { Continue, Stop, Fail };
  Action action = Action::Continue;
  Outcome outcome = Outcome::Ok;  // Fail: InputRejected or PassBug
  std::string pass;               // Fail: the pass rejected or blamed
  std::string message;            // Fail: one line, what failed, where and whose fault
  ir::Diagnostics diagnostics;

  static HookResult proceed() { return {}; }
  static HookResult stop() {
    HookResult h;
    h.action = Action::Stop;
    return h;
  }
  static HookResult fail(Outcome outcome, std::string pass, std::string message, ir::Diagnostics diagnostics) {
    return HookResult{Action::Fail, outcome, std::move(pass), std::move(message), std::move(diagnostics)};
  }
};

// Hooks run in the order the instruments were added. The first Fail ends the run (later
// instruments' hook for that step is skipped); a Stop lets the other hooks of the step run,
// then ends the run after the pass with outcome Ok.
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  // Before the first pass of a run (instruments keep per-run state).
  virtual void before_pipeline(const ir::Program& input, PropertyLedger& ledger) {}
  // Before `pass` runs on `input`.
  virtual HookResult before_pass(const Pass& pass, const ir::Program& input, PropertyLedger& ledger) { return {}; }
  // After `pass` turned `input` into `output`; the ledger already records what it produced
  // and invalidated, but not yet the pass in passes_run.
  virtual HookResult after_pass(const Pass& pass, const ir::Program& input, const ir::Program& output,
                                PropertyLedger& ledger) {
    return {};
  }
  // After every after_pass hook let `output` through: it is the program the next pass reads.
  // Shared, not copied: an instrument that keeps it (SnapshotInstrument) keeps the pointer.
  virtual void accepted(const Pass& pass, const std::shared_ptr<const ir::Program>& output) {}
  // After `pass` rejected `input`, or an after_pass hook failed its output; `diagnostics`
  // are the rejection's or the failing hook's.
  virtual void after_pass_failed(const Pass& pass, const ir::Program& input, const ir::Diagnostics& diagnostics,
                                 const PropertyLedger& ledger) {}
};

struct PipelineResult {
  Outcome outcome = Outcome::Ok;
  ir::Program program;                  // Ok: the final program; else the last program that
                                        // was accepted (the input of the failing step); empty
                                        // under PassManagerOptions::result_program = false
  std::string pass;                     // the pass rejected or blamed ("" when Ok)
  std::string message;                  // one line: what failed, where and whose fault
  ir::Diagnostics diagnostics;      // the rejection or the failing verifier's findings
  PropertySet held = 0;                 // properties held at the end
  PropertySet unverified = 0;           // properties trusted because no verifier was registered
  std::vector<std::string> passes_run;  // passes that ran to completion, in order
  std::string stopped_after;            // the pass after which an instrument stopped the run

  bool ok() const { return outcome == Outcome::Ok; }
  bool ran(std::string_view p) const {
    for (const std::string& name : passes_run) {
      if (name == p) return true;
    }
    return false;
  }
};

struct PassManagerOptions {
  bool verify = true;                                // the verify instrument
  VerifierRegistry verifiers = default_verifiers();  // what it checks with
  bool print_after_all = false;                      // the print-after-all instrument
  // Receives each "# after <Pass>\n<program>" block when print_after_all is on.
  std::function<void(std::string_view)> sink;
  std::string stop_after;  // non-empty: the stop-after instrument, ending after this pass
  // false: PipelineResult::program is left empty, for a caller that keeps the programs through
  // an instrument (SnapshotInstrument): no copy of the last one into the result.
  bool result_program = true;
};

class PassManager {
 public:
  // The built-in instruments the options ask for, in the order print-after-all, verify,
  // stop-after (so a pass's output is printed even when verifying it fails).
  explicit PassManager(PassManagerOptions options = {});

  PassManager& add(std::unique_ptr<Pass> pass);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  // Appends an instrument after those already there.
  PassManager& add_instrument(std::unique_ptr<PassInstrument> instrument);
  // Constructs an instrument in place, appends it and returns it (it lives as long as the
  // manager), e.g. `auto& snapshots = pm.emplace_instrument<SnapshotInstrument>();`.
  template <typename T, typename... Args>
  T& emplace_instrument(Args&&... args) {
    auto owned = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *owned;
    instruments_.push_back(std::move(owned));
    return ref;
  }
  const std::vector<std::unique_ptr<PassInstrument>>& instruments() const { return instruments_; }

  // Runs every pass in order on `input`, of which `held` is already known to hold (it is
  // still verified when required, but a failure then is the caller's InputRejected).
  PipelineResult run(const ir::Program& input, PropertySet held = 0);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<std::unique_ptr<PassInstrument>> instruments_;
  bool result_program_ = true;
};

// ---- the built-in instruments ----------------------------------------------------------

// verify: see the banner. Keeps which properties it has verified on the current program.
class VerifyInstrument final : public PassInstrument {
 public:
  explicit VerifyInstrument(VerifierRegistry verifiers) : verifiers_(std::move(verifiers)) {}
  void before_pipeline(const ir::Program& input, PropertyLedger& ledger) override;
  HookResult before_pass(const Pass& pass, const ir::Program& input, PropertyLedger& ledger) override;
  HookResult after_pass(const Pass& pass, const ir::Program& input, const ir::Program& output,
                        PropertyLedger& ledger) override;

 private:
  // True when p holds on `program` (or has no verifier); else its findings are in `found`.
  // `clean`, when given, is a program p was verified on (the pass's input): the verifier's
  // incremental form, if it has one, judges `program` against it.
  bool holds(Property p, const ir::Program& program, PropertyLedger& ledger, ir::Diagnostics& found,
             const ir::Program* clean = nullptr);

  VerifierRegistry verifiers_;
  PropertySet verified_ = 0;  // verified on the current program
};

// print-after-all: "# after <Pass>\n<printed output>" to the sink after every pass.
class PrintAfterAllInstrument final : public PassInstrument {
 public:
  explicit PrintAfterAllInstrument(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {}
  HookResult after_pass(const Pass& pass, const ir::Program& input, const ir::Program& output,
                        PropertyLedger& ledger) override;

 private:
  std::function<void(std::string_view)> sink_;
};

// stop-after: stops the run once the named pass has completed.
class StopAfterInstrument final : public PassInstrument {
 public:
  explicit StopAfterInstrument(std::string pass) : pass_(std::move(pass)) {}
  HookResult after_pass(const Pass& pass, const ir::Program& input, const ir::Program& output,
                        PropertyLedger& ledger) override;

 private:
  std::string pass_;
};

// snapshot: records each pass's accepted output, in order (the manager's own program, shared:
// no copy); the record is reset when a run begins.
class SnapshotInstrument final : public PassInstrument {
 public:
  struct Snapshot {
    std::string pass;
    std::shared_ptr<const ir::Program> program;
  };
  void before_pipeline(const ir::Program& input, PropertyLedger& ledger) override { snapshots_.clear(); }
  void accepted(const Pass& pass, const std::shared_ptr<const ir::Program>& output) override;
  const std::vector<Snapshot>& snapshots() const { return snapshots_; }
  // Hands the record over (it is empty afterwards), for a caller done with the manager.
  std::vector<Snapshot> take() { return std::exchange(snapshots_, {}); }

 private:
  std::vector<Snapshot> snapshots_;
};

// A print-after-all sink appending to `out` (which must outlive the manager's runs).
std::function<void(std::string_view)> string_sink(std::string& out);

}  // namespace stackcheck::passes
