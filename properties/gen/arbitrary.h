// RapidCheck generators over the choice-source generators (rc_choices.h): what the property
// suites draw from. Counterexamples print as `.gir` text (showValue), with the features the
// case exercised.
#pragma once

#include <rapidcheck.h>

#include <ostream>
#include <string>

#include "properties/gen/program_gen.h"

namespace stackcheck::gen {

rc::Gen<GeneratedProgram> arbitrary_program(const ProgramKnobs& knobs = {});

// Per property (one gtest test), how many cases hit each feature. RC_TAG would tabulate
// every combination of tags; the share per feature is what tells a generator's reach.
class FeatureTally {
 public:
  void add(const FeatureSet& f);
  void reset() { *this = FeatureTally(); }
  size_t cases() const { return cases_; }
  size_t hits(Feature f) const { return hits_[static_cast<unsigned>(f)]; }
  // "feature  share" lines, one per feature, in enum order; empty when no case was tallied.
  std::string table() const;

 private:
  size_t cases_ = 0;
  size_t hits_[static_cast<unsigned>(Feature::kCount)] = {};
};
FeatureTally& feature_tally();  // the running test's (props_main prints and resets it)

// Counts the case's features into feature_tally().
void tag_features(const FeatureSet& features);

void showValue(const GeneratedProgram& p, std::ostream& os);

}  // namespace stackcheck::gen

namespace stackcheck::ir {
// RapidCheck prints counterexamples with showValue (found by ADL): programs as `.gir` text.
void showValue(const Program& p, std::ostream& os);
}  // namespace stackcheck::ir
