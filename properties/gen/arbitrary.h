// RapidCheck generators over the choice-source generators (rc_choices.h): what the property
// suites draw from. Counterexamples print as their text form (`.gir`, `.plan`) with the
// features the case exercised.
#pragma once

#include <rapidcheck.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "properties/gen/plan_gen.h"
#include "properties/gen/program_gen.h"

namespace stackcheck::gen {

rc::Gen<GeneratedProgram> arbitrary_program(const ProgramKnobs& knobs = {});
rc::Gen<GeneratedPlan> arbitrary_plan(const PlanKnobs& knobs = {});

// Draws one case inside a property and counts its features into feature_tally().
GeneratedProgram draw_program(const ProgramKnobs& knobs = {});
GeneratedPlan draw_plan(const PlanKnobs& knobs = {});

// Per property (one gtest test), how many cases hit each tag. RC_TAG would tabulate every
// combination of tags; the share per tag is what tells a generator's reach. Tags are the
// generators' features (declared up front, so a feature no case hit shows 0%) plus what a
// property measured of the case (e.g. the status its bind ended with).
class FeatureTally {
 public:
  void declare(const std::vector<std::string>& names);  // tags shown even at 0%
  void begin_case() { ++cases_; }
  void hit(const std::string& tag);  // once per case per tag
  void reset() { *this = FeatureTally(); }
  size_t cases() const { return cases_; }
  size_t hits(const std::string& tag) const;
  // "tag  share" lines in declaration / first-hit order; empty when no case was tallied.
  std::string table() const;

 private:
  size_t cases_ = 0;
  std::vector<std::string> order_;
  std::map<std::string, size_t> hits_;
};
FeatureTally& feature_tally();  // the running test's (props_main prints and resets it)

// Counts one case's features into feature_tally() (one case each call).
void tag_features(const FeatureSet& features);
void tag_plan(const PlanFeatureSet& features);
// A measured tag of the current case (after tag_features / tag_plan).
void tag(const std::string& name);

void showValue(const GeneratedProgram& p, std::ostream& os);
void showValue(const GeneratedPlan& p, std::ostream& os);

}  // namespace stackcheck::gen

namespace stackcheck::ir {
// RapidCheck prints counterexamples with showValue (found by ADL): programs as `.gir` text.
void showValue(const Program& p, std::ostream& os);
}  // namespace stackcheck::ir
