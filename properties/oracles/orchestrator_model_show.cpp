// Text of the model's setups and calls, for counterexamples (orchestrator_model.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "properties/oracles/orchestrator_model.h"

namespace stackcheck::oracles::orch {

namespace {
std::string show_win(const std::optional<Window>& w) {
  if (!w) return "";
  std::string s = "[";
  for (size_t i = 0; i < w->off.size(); ++i) s += fmt::format("{}{}:{}", i ? ", " : "", w->off[i], w->size[i]);
  return s + "]";
}
const char* tag_name(uint32_t t) {
  switch (t) {
    case runtime::kTagInput: return "input";
    case runtime::kTagOutput: return "output";
    case runtime::kTagInout: return "inout";
    case runtime::kTagOutputExisting: return "output_existing";
    case runtime::kTagNoDep: return "no_dep";
    default: return "invalid";
  }
}
std::string show_items(const std::vector<ArgItem>& items) {
  std::vector<std::string> parts;
  for (const ArgItem& it : items) {
    if (it.is_scalar)
      parts.push_back(fmt::format("scalar {}", it.scalar));
    else if (it.tensor.tag == runtime::kTagOutput)
      parts.push_back(fmt::format("output [{}]", fmt::join(it.tensor.out_dims, ", ")));
    else {
      const uint32_t b = it.tensor.buffer;
      const std::string buffer = b == kNullBuffer      ? "null"
                                 : b == kForeignBuffer ? "foreign"
                                                       : fmt::format("b{}", b);
      parts.push_back(fmt::format("{} {}{}", tag_name(it.tensor.tag), buffer, show_win(it.tensor.win)));
    }
  }
  return fmt::format("({})", fmt::join(parts, ", "));
}
}  // namespace

std::string show_setup(const ModelSetup& s) {
  const ModelConfig& c = s.config;
  std::string out = fmt::format(
      "config W={} task_heap={} graph_heap={} tensormap_capacity={} scope_tasks_capacity={} "
      "clusters={}\n",
      c.W, c.task_heap, c.graph_heap, c.tensormap_capacity, c.scope_tasks_capacity, c.clusters);
  for (size_t i = 0; i < s.entries.size(); ++i)
    out +=
        fmt::format("entry b{}: {} [{}]\n", i, s.entries[i].inout ? "InOut" : "In", fmt::join(s.entries[i].dims, ", "));
  for (size_t g = 0; g < s.graphs.size(); ++g) {
    const GraphFnSpec& fn = s.graphs[g];
    std::vector<std::string> ps;
    for (size_t i = 0; i < fn.params.size(); ++i)
      ps.push_back(fmt::format("{} [{}]", tag_name(fn.tags[i]), fmt::join(fn.params[i], ", ")));
    out += fmt::format("graph g{}({}; {} scalars):", g, fmt::join(ps, ", "), fn.n_scalars);
    for (const BodyNode& n : fn.nodes) {
      switch (n.kind) {
        case BodyNode::Kind::kScopeBegin: out += " scope_begin;"; continue;
        case BodyNode::Kind::kScopeEnd: out += " scope_end;"; continue;
        case BodyNode::Kind::kNestedGraph: out += " submit_graph;"; continue;
        case BodyNode::Kind::kWaitTensor: out += " wait_tensor;"; continue;
        case BodyNode::Kind::kAlloc: out += fmt::format(" alloc x{};", n.alloc.size()); continue;
        case BodyNode::Kind::kSubmit: break;
      }
      std::vector<std::string> ts;
      for (const BodyTensor& t : n.tensors) {
        const char* src = t.source == BodyTensor::Source::kBoundary   ? "b"
                          : t.source == BodyTensor::Source::kInternal ? "i"
                          : t.source == BodyTensor::Source::kOuter    ? "outer buffer "
                                                                      : "new";
        ts.push_back(t.source == BodyTensor::Source::kOutput
                         ? fmt::format("output [{}]", fmt::join(t.out_dims, ", "))
                         : fmt::format("{} {}{}{}", tag_name(t.tag), src, t.index, show_win(t.win)));
      }
      std::string sc;
      for (const BodyScalar& s : n.scalars)
        sc += s.kind == BodyScalar::Kind::kHandSlot      ? fmt::format(", hand-made slot ${} = {}", s.slot, s.literal)
              : s.kind == BodyScalar::Kind::kForeignSlot ? fmt::format(", foreign slot ${} = {}", s.slot, s.literal)
                                                         : std::string(", scalar");
      out += fmt::format(" k{}({}{});", n.kernel, fmt::join(ts, ", "), sc);
    }
    out += "\n";
  }
  return out;
}

std::string show_call(const Call& c) {
  return std::visit(
      [](const auto& call) -> std::string {
        using T = std::decay_t<decltype(call)>;
        if constexpr (std::is_same_v<T, ScopeBegin>)
          return "scope_begin";
        else if constexpr (std::is_same_v<T, ScopeEnd>)
          return "scope_end";
        else if constexpr (std::is_same_v<T, AllocTensors>) {
          std::vector<std::string> s;
          for (const Dims& d : call.shapes) s.push_back(fmt::format("[{}]", fmt::join(d, ", ")));
          return fmt::format("alloc_tensors {}", fmt::join(s, ", "));
        } else if constexpr (std::is_same_v<T, Submit>)
          return fmt::format("submit k{}{}", call.kernel, show_items(call.items));
        else if constexpr (std::is_same_v<T, SubmitGraph>)
          return fmt::format("submit_graph g{}{}", call.fn, show_items(call.items));
        else if constexpr (std::is_same_v<T, Read>)
          return fmt::format("read e{}[{}] -> fill({} b{}{})", call.entry, fmt::join(call.index, ", "),
                             tag_name(call.target.tag), call.target.buffer, show_win(call.target.win));
        else if constexpr (std::is_same_v<T, WaitTensor>)
          return fmt::format("wait_tensor b{}", call.buffer);
        else if constexpr (std::is_same_v<T, Fatal>)
          return "fatal";
        else
          return fmt::format("sync_start {}", call.blocks);
      },
      c);
}

}  // namespace stackcheck::oracles::orch
