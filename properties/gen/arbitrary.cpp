#include "properties/gen/arbitrary.h"

#include "properties/gen/rc_choices.h"
#include "stack/ir/printer.h"

#include <fmt/format.h>

namespace stackcheck::gen {

rc::Gen<GeneratedProgram> arbitrary_program(const ProgramKnobs& knobs) {
  return from_choices<GeneratedProgram>([knobs](ChoiceSource& c) { return generate_program(c, knobs); });
}

void FeatureTally::add(const FeatureSet& f) {
  ++cases_;
  for (unsigned i = 0; i < static_cast<unsigned>(Feature::kCount); ++i) hits_[i] += f.has(static_cast<Feature>(i));
}

std::string FeatureTally::table() const {
  if (cases_ == 0) return "";
  std::string out = fmt::format("generator features over {} cases:\n", cases_);
  for (unsigned i = 0; i < static_cast<unsigned>(Feature::kCount); ++i)
    out += fmt::format("  {:<30} {:5.1f}%\n", feature_name(static_cast<Feature>(i)), 100.0 * hits_[i] / cases_);
  return out;
}

FeatureTally& feature_tally() {
  static FeatureTally tally;
  return tally;
}

void tag_features(const FeatureSet& features) { feature_tally().add(features); }

void showValue(const GeneratedProgram& p, std::ostream& os) {
  os << "\n# features:";
  for (const std::string& f : p.features.names()) os << " " << f;
  os << "\n" << ir::print_program(p.program);
}

}  // namespace stackcheck::gen

namespace stackcheck::ir {
void showValue(const Program& p, std::ostream& os) { os << "\n" << print_program(p); }
}  // namespace stackcheck::ir
