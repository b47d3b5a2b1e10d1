// Swarm generation (HARNESS.md §1): before a generator builds a case, the case draws which of
// the generator's features it may use and how large its counts may grow (Groce et al.,
// "Swarm testing", ISSTA 2012, as Csmith applies it). A default configuration makes every
// feature likely in every case, so two features that crowd each other out (a loop full of
// views leaves no room for the submit that would race it) rarely meet at depth; a case with
// half its features off spends its whole budget on the other half.
//
// The mask is drawn from the case's own choice source, ahead of the case:
// - a case replays from its bytes or its seed alone;
// - a fuzzer's byte mutation of the first bytes flips features;
// - shrinking walks each draw toward 0, and 0 means "off" (or the smallest cap), so a shrunk
//   counterexample keeps on only the features its failure needs.
// One case in four (kSwarmDefaultsPercent) keeps the caller's knobs whole: today's default
// distribution stays in every run.
//
// The mask only narrows what the caller allows: a feature the caller turned off stays off, a
// planted or illegal construct the caller asks for is never touched, and a count keeps the
// caller's minimum. Where the caller left a count at the knob's default, a case may also raise
// it past the default, up to the generator's wide cap (a count past what it ever drew).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "properties/gen/choice.h"

namespace stackcheck::gen {

struct ProgramKnobs;
struct PlanKnobs;

inline constexpr int kSwarmDefaultsPercent = 25;

// What one case's swarm draw decided, for its tags and its printed counterexample.
struct SwarmMask {
  bool defaults = true;                          // the caller's knobs, whole
  int density = 0;                               // tenths: each feature on with this probability
  std::vector<std::string> off;                  // features the mask turned off
  std::vector<std::pair<std::string, int>> caps;  // counts and the cap the case drew for each
  bool widened = false;                          // some cap is past the knob's default
  // "defaults", or e.g. "swarm 6/10: off views,ifs; max_graphs<=1 max_trips<=5 (wide)".
  std::string describe() const;
};

// The knobs one case is built with: `base` narrowed by a mask drawn from `c` (or `base` whole,
// kSwarmDefaultsPercent of the time). `mask` receives what was drawn.
ProgramKnobs swarm_program_knobs(ChoiceSource& c, const ProgramKnobs& base, SwarmMask& mask);
PlanKnobs swarm_plan_knobs(ChoiceSource& c, const PlanKnobs& base, SwarmMask& mask);

// One case built with the knobs its swarm draw gives (`draw`: swarm_program_knobs or
// swarm_plan_knobs), its mask kept in the result; `knobs` whole when knobs.swarm is off.
template <class Generated, class Knobs, class Draw, class Build>
Generated with_swarm(ChoiceSource& c, const Knobs& knobs, Draw draw, Build build) {
  if (!knobs.swarm) return build(knobs);
  SwarmMask mask;
  Knobs k = draw(c, knobs, mask);
  k.swarm = false;
  Generated g = build(k);
  g.swarm = std::move(mask);
  return g;
}

namespace swarm_detail {
// One case's draws: the share of cases at the defaults first, then a density, then one draw per
// feature and per count, in the order the caller asks.
class Drawer {
 public:
  Drawer(ChoiceSource& c, SwarmMask& mask);
  bool defaults() const { return mask_.defaults; }
  // Narrows `flag` (the caller's): on only if the caller has it on and the mask keeps it.
  void feature(const char* name, bool& flag);
  // A cap in [lo, value] one time in four (0 is lo), `value` itself one time in two, and one
  // time in four, where `value` is the knob's default, in (value, wide].
  void count(const char* name, int& value, int lo, int default_value, int wide);

 private:
  ChoiceSource& c_;
  SwarmMask& mask_;
};
}  // namespace swarm_detail

}  // namespace stackcheck::gen
