// RapidCheck generators over the choice-source generators (rc_choices.h): what the property
// suites draw from. Counterexamples print as their text form (`.gir`, `.plan`) with the
// features the case exercised.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <sstream>

#include "properties/gen/plan_gen.h"
#include "properties/gen/rc_choices.h"
#include "properties/gen/program_gen.h"

namespace stackcheck::gen {

// ---- The engine of a property body (HARNESS.md §9) ----
// A property body draws only through the choice source choices() returns: RapidCheck's
// (rc_choices.h, each choice one rc draw, integrated shrinking) unless an engine installed
// another for the running body (fuzz_props: ByteChoices over libFuzzer's bytes). The RapidCheck
// engine is the default, so a body run by rc::detail::checkGTest (a positive control) needs
// nothing installed.
ChoiceSource& choices();
// True while choices() is RapidCheck's.
bool rapidcheck_engine();
// Installs `c` as choices() for its lifetime (not reentrant: one body at a time per thread).
class ScopedChoices {
 public:
  explicit ScopedChoices(ChoiceSource& c);
  ~ScopedChoices();
  ScopedChoices(const ScopedChoices&) = delete;
  ScopedChoices& operator=(const ScopedChoices&) = delete;

 private:
  ChoiceSource* saved_;
};

// A value a case is built from (a program, a plan, a mutation, a setup), drawn from choices():
// on RapidCheck one rc value (rc::gen::exec over fresh RapidCheck choices), so a counterexample
// prints it whole with its showValue and shrinks it inside; on any other engine `build` reads
// the installed source directly, and the value as RapidCheck would print it is recorded for
// the running input's text form (drawn_values()).
// `Size::kFull` draws at RapidCheck's nominal size from the first case (sizes do not grow over
// the run); the byte engine has no notion of size.
// RapidCheck keeps `build` and runs it again while it shrinks, after the drawing scope has
// ended: a lambda must capture by value what it reads (a reference to a loop variable or a
// local dangles then).
enum class Size : uint8_t { kGrowing, kFull };
template <class T>
T draw_value(const std::function<T(ChoiceSource&)>& build, Size size = Size::kGrowing);
// What the values drawn so far in this case printed as (the byte engine's counterexample, the
// lines RapidCheck would print); cleared when an engine installs its source.
std::vector<std::string>& drawn_values();

rc::Gen<GeneratedProgram> arbitrary_program(const ProgramKnobs& knobs = {});
rc::Gen<GeneratedPlan> arbitrary_plan(const PlanKnobs& knobs = {});

// Draws one case inside a property from choices() and counts its features into feature_tally().
GeneratedProgram draw_program(const ProgramKnobs& knobs = {});
GeneratedPlan draw_plan(const PlanKnobs& knobs = {});
// The same without counting features (a second draw in one case, or a property that tags
// its own).
GeneratedProgram any_program(const ProgramKnobs& knobs = {});
GeneratedPlan any_plan(const PlanKnobs& knobs = {}, Size size = Size::kGrowing);

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

namespace detail {
template <class T>
std::string shown(const T& v) {
  std::ostringstream os;
  rc::show(v, os);
  return os.str();
}
}  // namespace detail

template <class T>
T draw_value(const std::function<T(ChoiceSource&)>& build, Size size) {
  if (rapidcheck_engine()) {
    // RapidCheck copies a generator's callable as it generates and keeps it for shrinking after
    // this returns: one copy of `build` (whose captures may hold a whole program) shared by all.
    auto g = rc::gen::exec([shared = std::make_shared<const std::function<T(ChoiceSource&)>>(build)] {
      RapidCheckChoices c;
      return (*shared)(c);
    });
    return size == Size::kFull ? *rc::gen::resize(rc::kNominalSize, g) : *g;
  }
  T v = build(choices());
  drawn_values().push_back(rc::detail::typeToString<T>() + ": " + detail::shown(v));
  return v;
}

}  // namespace stackcheck::gen

namespace stackcheck::ir {
// RapidCheck prints counterexamples with showValue (found by ADL): programs as `.gir` text.
void showValue(const Program& p, std::ostream& os);
}  // namespace stackcheck::ir
