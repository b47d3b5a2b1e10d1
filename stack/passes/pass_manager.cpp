#include "stack/passes/pass_manager.h"

#include <fmt/format.h>

#include <utility>

#include "stack/ir/printer.h"
#include "stack/passes/normalize_return_order.h"
#include "stack/passes/simplify.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/return_params_explicit.h"
#include "stack/verify/well_formed.h"

namespace stackcheck::passes {
namespace {

VerifierRegistry& mutable_default_verifiers() {
  static VerifierRegistry registry = [] {
    VerifierRegistry r;
    r.set(kWellFormed, [](const ir::Program& p) { return verify::check_well_formed(p); });
    r.set(kReturnParamsExplicit, [](const ir::Program& p) { return verify::check_return_params_explicit(p); });
    r.set(kGraphBoundaryLegalized, [](const ir::Program& p) { return verify::check_graph_boundary_legalized(p); });
    return r;
  }();
  return registry;
}

std::string first_finding(const verify::Diagnostics& d) {
  if (d.empty()) return "no diagnostic";
  std::string s = d.front().render("");
  if (d.size() > 1) s += fmt::format(" (+{} more)", d.size() - 1);
  return s;
}

}  // namespace

const Verifier* VerifierRegistry::find(Property p) const {
  auto it = verifiers_.find(p);
  return it == verifiers_.end() || !it->second ? nullptr : &it->second;
}

const VerifierRegistry& default_verifiers() { return mutable_default_verifiers(); }

void register_verifier(Property p, Verifier v) { mutable_default_verifiers().set(p, std::move(v)); }

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
  switch (o) {
    case Outcome::Ok: return "ok";
    case Outcome::InputRejected: return "input rejected";
    case Outcome::PassBug: return "pass bug";
  }
  return "?";
}

std::function<void(std::string_view)> string_sink(std::string& out) {
  return [&out](std::string_view s) { out.append(s); };
}

PassManager::PassManager(PassManagerOptions options, VerifierRegistry verifiers)
    : options_(std::move(options)), verifiers_(std::move(verifiers)) {}

PassManager& PassManager::add(std::unique_ptr<Pass> pass) {
  passes_.push_back(std::move(pass));
  return *this;
}

PipelineResult PassManager::run(const ir::Program& input, PropertySet held) {
  PipelineResult res;
  res.program = input;
  res.held = held;
  // Who last claimed each held property: a pass name, or empty for the caller's claim or
  // a property found to hold by verification of the input.
  std::map<Property, std::string> claimant;
  // Properties verified on the current program (cleared whenever a pass changes it).
  PropertySet verified = 0;

  // Runs p's verifier on the current program; true when it holds (or cannot be checked).
  auto holds = [&](Property p, verify::Diagnostics& found) {
    if ((verified & p) != 0) return true;
    const Verifier* v = verifiers_.find(p);
    if (v == nullptr) {
      res.unverified |= p;
      return true;
    }
    found = (*v)(res.program);
    if (!found.empty()) return false;
    verified |= p;
    return true;
  };

  for (const std::unique_ptr<Pass>& pass : passes_) {
    const std::string name(pass->name());
    if (options_.verify) {
      for (Property p : properties_in(pass->required())) {
        verify::Diagnostics found;
        if (holds(p, found)) {
          res.held |= p;
          continue;
        }
        auto c = claimant.find(p);
        const bool produced_by_pass = (res.held & p) != 0 && c != claimant.end() && !c->second.empty();
        res.diagnostics = std::move(found);
        if (produced_by_pass) {
          res.outcome = Outcome::PassBug;
          res.pass = c->second;
          res.message =
              fmt::format("bug in pass {}: {} claimed by it no longer holds before {} (last pass run: {}): {}",
                          c->second, property_name(p), name, res.passes_run.empty() ? "-" : res.passes_run.back(),
                          first_finding(res.diagnostics));
        } else {
          res.outcome = Outcome::InputRejected;
          res.pass = name;
          res.message = fmt::format("input rejected by {}: required property {} does not hold: {}", name,
                                    property_name(p), first_finding(res.diagnostics));
        }
        return res;
      }
    }

    PassResult out = pass->run(res.program);
    if (!out.ok) {
      res.outcome = Outcome::InputRejected;
      res.pass = name;
      res.diagnostics = std::move(out.diagnostics);
      res.message = fmt::format("input rejected by {}: {}", name, first_finding(res.diagnostics));
      return res;
    }
    if (options_.print_after_all && options_.sink) {
      options_.sink(fmt::format("# after {}\n{}", name, ir::print_program(out.program)));
    }

    ir::Program accepted = std::move(res.program);
    res.program = std::move(out.program);
    verified = 0;
    res.held = (res.held & ~pass->invalidated()) | pass->produced();
    for (Property p : properties_in(pass->invalidated())) claimant.erase(p);
    for (Property p : properties_in(pass->produced())) claimant[p] = name;

    if (options_.verify) {
      for (Property p : properties_in(kWellFormed | pass->produced())) {
        verify::Diagnostics found;
        if (holds(p, found)) continue;
        res.outcome = Outcome::PassBug;
        res.pass = name;
        res.diagnostics = std::move(found);
        res.message = fmt::format("bug in pass {}: its output violates {}: {}", name, property_name(p),
                                  first_finding(res.diagnostics));
        res.program = std::move(accepted);
        return res;
      }
      res.held |= kWellFormed;
    }
    res.passes_run.push_back(name);
  }
  return res;
}

PassManager default_pipeline(const PipelineOptions& pipeline, PassManagerOptions options) {
  PassManager pm(std::move(options));
  pm.add(std::make_unique<Simplify>());
  pm.add(std::make_unique<NormalizeReturnOrder>());
  pm.add(std::make_unique<LegalizeGraphBoundary>(pipeline.lgb));
  return pm;
}

}  // namespace stackcheck::passes
