// Swarm over the orchestrator calls' command mix, and a whole case as the model property's byte
// engine draws it (orchestrator_calls.h).
#include <memory>

#include "properties/gen/orchestrator_calls.h"

namespace stackcheck::gen {

using oracles::orch::Call;
using oracles::orch::OrchestratorModel;

uint32_t swarm_call_kinds(ChoiceSource& c, SwarmMask& mask) {
  swarm_detail::Drawer d(c, mask);
  if (d.defaults()) return kEveryCallKind;
  uint32_t kinds = 0;
  for (unsigned k = 0; k <= static_cast<unsigned>(CallKind::kProvoke); ++k) {
    const auto kind = static_cast<CallKind>(k);
    bool on = true;
    if (kind != CallKind::kSubmit && kind != CallKind::kProvoke) d.feature(call_kind_name(kind), on);
    if (on) kinds |= 1u << k;
  }
  return kinds;
}

std::vector<CallKind> allowed_mix(uint32_t kinds) {
  std::vector<CallKind> out;
  for (CallKind k : kCallMix)
    if (kind_allowed(kinds, k)) out.push_back(k);
  return out;
}

CallCaseSetup generate_call_setup(ChoiceSource& c, bool swarm) {
  CallCaseSetup s;
  s.provoking = c.chance(35);
  s.setup = generate_model_setup(c, s.provoking);
  if (swarm) s.kinds = swarm_call_kinds(c, s.swarm);
  return s;
}

CallCase generate_call_case(ChoiceSource& c, bool swarm) {
  CallCase out{generate_call_setup(c, swarm), {}};
  OrchestratorModel m(std::make_shared<const oracles::orch::ModelSetup>(out.head.setup));
  const std::vector<CallKind> mix = allowed_mix(out.head.kinds);
  const size_t commands = c.length(kMaxByteCommands);
  for (size_t i = 0; i < commands; ++i) {
    const std::vector<Call> more = generate_calls(c, m, mix[c.one_of(mix.size())], out.head.provoking);
    for (const Call& call : more) m.apply(call);
    out.calls.insert(out.calls.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace stackcheck::gen
