#include "properties/gen/arbitrary.h"

#include <fmt/format.h>

#include <algorithm>

#include "properties/gen/rc_choices.h"
#include "stack/ir/printer.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::gen {

rc::Gen<GeneratedProgram> arbitrary_program(const ProgramKnobs& knobs) {
  return from_choices<GeneratedProgram>([knobs](ChoiceSource& c) { return generate_program(c, knobs); });
}

rc::Gen<GeneratedPlan> arbitrary_plan(const PlanKnobs& knobs) {
  return from_choices<GeneratedPlan>([knobs](ChoiceSource& c) { return generate_plan(c, knobs); });
}

void FeatureTally::declare(const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (hits_.emplace(n, 0).second) order_.push_back(n);
}

void FeatureTally::hit(const std::string& tag) {
  if (hits_.emplace(tag, 0).second) order_.push_back(tag);
  ++hits_[tag];
}

size_t FeatureTally::hits(const std::string& tag) const {
  auto it = hits_.find(tag);
  return it == hits_.end() ? 0 : it->second;
}

std::string FeatureTally::table() const {
  if (cases_ == 0 || order_.empty()) return "";
  std::string out = fmt::format("tags over {} cases:\n", cases_);
  for (const std::string& t : order_)
    out += fmt::format("  {:<30} {:5.1f}%\n", t, 100.0 * static_cast<double>(hits(t)) / static_cast<double>(cases_));
  return out;
}

FeatureTally& feature_tally() {
  static FeatureTally tally;
  return tally;
}

namespace {
template <class Set>
void tally_case(const Set& features) {
  FeatureTally& t = feature_tally();
  t.declare(Set::all_names());
  t.begin_case();
  for (const std::string& f : features.names()) t.hit(f);
}
}  // namespace

void tag_features(const FeatureSet& features) { tally_case(features); }
void tag_plan(const PlanFeatureSet& features) { tally_case(features); }

void tag(const std::string& name) { feature_tally().hit(name); }

namespace {
ChoiceSource*& installed() {
  thread_local ChoiceSource* c = nullptr;
  return c;
}
}  // namespace

ChoiceSource& choices() {
  if (ChoiceSource* c = installed()) return *c;
  thread_local RapidCheckChoices rapidcheck;
  return rapidcheck;
}

bool rapidcheck_engine() { return installed() == nullptr; }

std::vector<std::string>& drawn_values() {
  thread_local std::vector<std::string> v;
  return v;
}

ScopedChoices::ScopedChoices(ChoiceSource& c) : saved_(installed()) {
  installed() = &c;
  drawn_values().clear();
}

ScopedChoices::~ScopedChoices() { installed() = saved_; }

GeneratedProgram any_program(const ProgramKnobs& knobs) {
  return draw_value<GeneratedProgram>([knobs](ChoiceSource& c) { return generate_program(c, knobs); });
}

GeneratedPlan any_plan(const PlanKnobs& knobs, Size size) {
  return draw_value<GeneratedPlan>([knobs](ChoiceSource& c) { return generate_plan(c, knobs); }, size);
}

namespace {
void tag_swarm(const SwarmMask& m) {
  tag(m.defaults ? "swarm:defaults" : "swarm:masked");
  if (m.widened) tag("swarm:wide");
}
}  // namespace

GeneratedProgram draw_program(const ProgramKnobs& knobs) {
  GeneratedProgram g = any_program(knobs);
  tag_features(g.features);
  tag_swarm(g.swarm);
  return g;
}

GeneratedPlan draw_plan(const PlanKnobs& knobs) {
  GeneratedPlan g = any_plan(knobs);
  tag_plan(g.features);
  tag_swarm(g.swarm);
  return g;
}

void showValue(const GeneratedProgram& p, std::ostream& os) {
  os << "\n# swarm: " << p.swarm.describe();
  os << "\n# features:";
  for (const std::string& f : p.features.names()) os << " " << f;
  os << "\n" << ir::print_program(p.program);
}

void showValue(const GeneratedPlan& p, std::ostream& os) {
  os << "\n# swarm: " << p.swarm.describe();
  os << "\n# features:";
  for (const std::string& f : p.features.names()) os << " " << f;
  if (p.planted != 0) os << "\n# planted fatal code " << p.planted;
  os << "\n" << runtime::print_plan(p.plan);
}

}  // namespace stackcheck::gen

namespace stackcheck::ir {
void showValue(const Program& p, std::ostream& os) { os << "\n" << print_program(p); }
}  // namespace stackcheck::ir
