#include "stack/passes/pass_manager.h"

#include <fmt/format.h>

#include <utility>

#include "stack/ir/printer.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"
#include "stack/support/enum_names.h"

namespace stackcheck::passes {
namespace {

std::string first_finding(const ir::Diagnostics& d) {
  if (d.empty()) return "no diagnostic";
  std::string s = d.front().render("");
  if (d.size() > 1) s += fmt::format(" (+{} more)", d.size() - 1);
  return s;
}

}  // namespace

const Verifier* VerifierRegistry::find(Property p) const {
  auto it = verifiers_.find(p);
  return it == verifiers_.end() || !it->second.full ? nullptr : &it->second.full;
}

const IncrementalVerifier* VerifierRegistry::find_since(Property p) const {
  auto it = verifiers_.find(p);
  return it == verifiers_.end() || !it->second.full || !it->second.since ? nullptr : &it->second.since;
}

VerifierRegistry default_verifiers() {
  VerifierRegistry r;
  r.set(
      kWellFormed, [](const ir::Program& p) { return verify::check_well_formed(p); },
      [](const ir::Program& p, const ir::Program& clean) { return verify::check_well_formed_since(p, clean); });
  r.set(kReturnParamsExplicit, [](const ir::Program& p) { return verify::check_return_params_explicit(p); });
  r.set(kGraphBoundaryLegalized, [](const ir::Program& p) { return verify::check_graph_boundary_legalized(p); });
  return r;
}

std::vector<Property> properties_in(PropertySet set) {
  std::vector<Property> out;
  for (uint32_t bit = 0; bit < 32; ++bit) {
    if ((set >> bit) & 1u) out.push_back(static_cast<Property>(1u << bit));
  }
  return out;
}

std::string property_set_name(PropertySet set) {
  std::string out;
  for (Property p : properties_in(set)) {
    if (!out.empty()) out += "|";
    out += property_name(p);
  }
  return out.empty() ? "-" : out;
}

const char* outcome_name(Outcome o) {
  static constexpr auto kNames = support::names_through<Outcome::PassBug>({
      "ok", "input rejected", "pass bug"});
  return support::enum_name(kNames, o);
}

std::function<void(std::string_view)> string_sink(std::string& out) {
  return [&out](std::string_view s) { out.append(s); };
}

// ---- instruments -----------------------------------------------------------------------

void VerifyInstrument::before_pipeline(const ir::Program&, PropertyLedger&) { verified_ = 0; }

bool VerifyInstrument::holds(Property p, const ir::Program& program, PropertyLedger& ledger,
                             ir::Diagnostics& found, const ir::Program* clean) {
  if ((verified_ & p) != 0) return true;
  const Verifier* v = verifiers_.find(p);
  if (v == nullptr) {
    ledger.unverified |= p;
    return true;
  }
  const IncrementalVerifier* since = clean != nullptr ? verifiers_.find_since(p) : nullptr;
  found = since != nullptr ? (*since)(program, *clean) : (*v)(program);
  if (!found.empty()) return false;
  verified_ |= p;
  return true;
}

HookResult VerifyInstrument::before_pass(const Pass& pass, const ir::Program& input, PropertyLedger& ledger) {
  const std::string name(pass.name());
  for (Property p : properties_in(pass.required())) {
    ir::Diagnostics found;
    if (holds(p, input, ledger, found)) {
      ledger.held |= p;
      continue;
    }
    // Broken while held: whoever claimed it is to blame, unless that was the caller.
    auto c = ledger.claimant.find(p);
    const bool produced_by_pass = (ledger.held & p) != 0 && c != ledger.claimant.end() && !c->second.empty();
    if (produced_by_pass) {
      const std::string message = fmt::format(
          "bug in pass {}: {} claimed by it no longer holds before {} (last pass run: {}): {}", c->second,
          property_name(p), name, ledger.passes_run.empty() ? "-" : ledger.passes_run.back(), first_finding(found));
      return HookResult::fail(Outcome::PassBug, c->second, message, std::move(found));
    }
    const std::string message = fmt::format("input rejected by {}: required property {} does not hold: {}", name,
                                            property_name(p), first_finding(found));
    return HookResult::fail(Outcome::InputRejected, name, message, std::move(found));
  }
  return HookResult::proceed();
}

HookResult VerifyInstrument::after_pass(const Pass& pass, const ir::Program& input, const ir::Program& output,
                                        PropertyLedger& ledger) {
  const PropertySet clean = verified_;  // verified on the input, which outlives this hook
  verified_ = 0;                        // a new program
  const std::string name(pass.name());
  for (Property p : properties_in(kWellFormed | pass.produced())) {
    ir::Diagnostics found;
    if (holds(p, output, ledger, found, (clean & p) != 0 ? &input : nullptr)) continue;
    const std::string message =
        fmt::format("bug in pass {}: its output violates {}: {}", name, property_name(p), first_finding(found));
    return HookResult::fail(Outcome::PassBug, name, message, std::move(found));
  }
  ledger.held |= kWellFormed;
  return HookResult::proceed();
}

HookResult PrintAfterAllInstrument::after_pass(const Pass& pass, const ir::Program&, const ir::Program& output,
                                               PropertyLedger&) {
  if (sink_) sink_(fmt::format("# after {}\n{}", pass.name(), ir::print_program(output)));
  return HookResult::proceed();
}

HookResult StopAfterInstrument::after_pass(const Pass& pass, const ir::Program&, const ir::Program&, PropertyLedger&) {
  return pass.name() == pass_ ? HookResult::stop() : HookResult::proceed();
}

void SnapshotInstrument::accepted(const Pass& pass, const std::shared_ptr<const ir::Program>& output) {
  snapshots_.push_back(Snapshot{std::string(pass.name()), output});
}

// ---- the manager -----------------------------------------------------------------------

PassManager::PassManager(PassManagerOptions options) : result_program_(options.result_program) {
  if (options.print_after_all && options.sink) {
    emplace_instrument<PrintAfterAllInstrument>(std::move(options.sink));
  }
  if (options.verify) emplace_instrument<VerifyInstrument>(std::move(options.verifiers));
  if (!options.stop_after.empty()) emplace_instrument<StopAfterInstrument>(std::move(options.stop_after));
}

PassManager& PassManager::add(std::unique_ptr<Pass> pass) {
  passes_.push_back(std::move(pass));
  return *this;
}

PassManager& PassManager::add_instrument(std::unique_ptr<PassInstrument> instrument) {
  instruments_.push_back(std::move(instrument));
  return *this;
}

PipelineResult PassManager::run(const ir::Program& input, PropertySet held) {
  PipelineResult res;
  // The program the next pass reads: the input, then each accepted output, shared with the
  // instruments that keep it (never copied per pass; one copy into the result at the end).
  const ir::Program* current = &input;
  std::shared_ptr<const ir::Program> owned;
  PropertyLedger ledger;
  ledger.held = held;
  auto finish = [&] {
    if (result_program_) res.program = *current;
    res.held = ledger.held;
    res.unverified = ledger.unverified;
    res.passes_run = ledger.passes_run;
  };
  auto failed = [&](HookResult&& h) {
    res.outcome = h.outcome;
    res.pass = std::move(h.pass);
    res.message = std::move(h.message);
    res.diagnostics = std::move(h.diagnostics);
    finish();
  };

  for (const auto& instrument : instruments_) instrument->before_pipeline(*current, ledger);
  for (const std::unique_ptr<Pass>& pass : passes_) {
    const std::string name(pass->name());
    for (const auto& instrument : instruments_) {
      HookResult h = instrument->before_pass(*pass, *current, ledger);
      if (h.action == HookResult::Action::Fail) {
        failed(std::move(h));
        return res;
      }
    }

    PassResult out = pass->run(*current);
    if (!out.ok) {
      for (const auto& instrument : instruments_) {
        instrument->after_pass_failed(*pass, *current, out.diagnostics, ledger);
      }
      const std::string message = fmt::format("input rejected by {}: {}", name, first_finding(out.diagnostics));
      failed(HookResult::fail(Outcome::InputRejected, name, message, std::move(out.diagnostics)));
      return res;
    }

    ledger.held = (ledger.held & ~pass->invalidated()) | pass->produced();
    for (Property p : properties_in(pass->invalidated())) ledger.claimant.erase(p);
    for (Property p : properties_in(pass->produced())) ledger.claimant[p] = name;

    bool stop = false;
    for (const auto& instrument : instruments_) {
      HookResult h = instrument->after_pass(*pass, *current, out.program, ledger);
      if (h.action == HookResult::Action::Stop) stop = true;
      if (h.action != HookResult::Action::Fail) continue;
      for (const auto& observer : instruments_) {
        observer->after_pass_failed(*pass, *current, h.diagnostics, ledger);
      }
      failed(std::move(h));  // the result's program is the accepted input
      return res;
    }
    owned = std::make_shared<const ir::Program>(std::move(out.program));
    current = owned.get();
    for (const auto& instrument : instruments_) instrument->accepted(*pass, owned);
    ledger.passes_run.push_back(name);
    if (stop) {
      res.stopped_after = name;
      break;
    }
  }
  finish();
  return res;
}

}  // namespace stackcheck::passes
