// generate_stress_plan (stress_plan.h): each shape's text with its drawn sizes; the shapes
// take turns from a shared task budget, each with its own tensor names (suffix k).
#include "properties/gen/stress_plan.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "stack/runtime/plan/parser.h"

namespace stackcheck::gen {
namespace {

// A size in [lo, hi] drawn from one of three bands (small, medium, up to hi), so that every
// band is common and shrinking goes towards lo.
int banded(ChoiceSource& c, int lo, int hi) {
  const int band = static_cast<int>(c.one_of(3));
  const int top = band == 0 ? std::min(hi, lo + 15) : band == 1 ? std::min(hi, std::max(lo, hi / 8)) : hi;
  return static_cast<int>(c.integer(lo, std::max(lo, top)));
}

// A shape's text in the plan's three sections: entry tensors, graphs, statements.
struct Shaped {
  std::string tensors, graphs, body;
  int tasks = 0;
  int nodes = 0;
};

Shaped fan_out(ChoiceSource& c, int k, int budget) {
  const int n = banded(c, 2, std::min(4000, budget - 2));
  Shaped s;
  s.tensors = fmt::format("tensor a{0}: In [1]\ntensor x{0}: InOut [1]\ntensor o{0}: InOut [{1}]\n", k, n);
  s.body = fmt::format(
      "submit fill(output_existing o{0}, scalar 0)\nsubmit scale(input a{0}, output_existing x{0}, scalar 3)\n"
      "for i{0} = 0, {1}, 1 {{\n  view v{0} = o{0}[i{0}:1]\n  submit acc(input x{0}, inout v{0})\n}}\n",
      k, n);
  s.tasks = n + 2;
  return s;
}

Shaped fan_in(ChoiceSource& c, int k, int budget) {
  const int width = banded(c, 1, 128);
  const int groups = banded(c, 1, std::max(1, std::min(32, (budget - 2) / (width + 1))));
  Shaped s;
  s.tensors = fmt::format("tensor a{0}: In [{1}, {2}]\ntensor x{0}: InOut [{1}, {2}]\n"
                          "tensor s{0}: InOut [1, {1}]\ntensor t{0}: InOut [1, 1]\n",
                          k, groups, width);
  s.body = fmt::format(
      "submit fill(output_existing x{0}, scalar 0)\n"
      "for g{0} = 0, {1}, 1 {{\n  for j{0} = 0, {2}, 1 {{\n"
      "    view ag{0} = a{0}[g{0}:1, j{0}:1]\n    view xg{0} = x{0}[g{0}:1, j{0}:1]\n"
      "    submit acc(input ag{0}, inout xg{0})\n  }}\n}}\n"
      "for h{0} = 0, {1}, 1 {{\n  view row{0} = x{0}[h{0}:1, 0:{2}]\n  view sh{0} = s{0}[0:1, h{0}:1]\n"
      "  submit rowsum(input row{0}, output_existing sh{0})\n}}\n"
      "submit rowsum(input s{0}, output_existing t{0})\n",
      k, groups, width);
  s.tasks = groups * (width + 1) + 2;
  return s;
}

Shaped chain(ChoiceSource& c, int k, int budget) {
  const int n = banded(c, 2, std::min(5000, budget));
  Shaped s;
  s.tensors = fmt::format("tensor c{0}: InOut [{1}]\n", k, n);
  s.body = fmt::format(
      "submit fill(output_existing c{0}, scalar 1)\n"
      "for q{0} = 1, {1}, 1 {{\n  view p{0} = c{0}[q{0} - 1:1]\n  view u{0} = c{0}[q{0}:1]\n"
      "  submit acc(input p{0}, inout u{0})\n}}\n",
      k, n);
  s.tasks = n;
  return s;
}

Shaped lattice(ChoiceSource& c, int k, int budget) {
  int n = 2;
  while (n < 32 && 2 * n * n + 3 <= budget) ++n;
  n = banded(c, 2, n);
  Shaped s;
  s.tensors = fmt::format("tensor L{0}: InOut [{1}, {1}]\n", k, n);
  s.body = fmt::format(
      "submit fill(output_existing L{0}, scalar 0)\n"
      "view top{0} = L{0}[0:1, 0:{1}]\nsubmit fill(output_existing top{0}, scalar 1)\n"
      "view side{0} = L{0}[1:{2}, 0:1]\nsubmit fill(output_existing side{0}, scalar 1)\n"
      "for i{0} = 1, {1}, 1 {{\n  for j{0} = 1, {1}, 1 {{\n"
      "    view up{0} = L{0}[i{0} - 1:1, j{0}:1]\n    view le{0} = L{0}[i{0}:1, j{0} - 1:1]\n"
      "    view me{0} = L{0}[i{0}:1, j{0}:1]\n"
      "    submit acc(input up{0}, inout me{0})\n    submit acc(input le{0}, inout me{0})\n  }}\n}}\n",
      k, n, n - 1);
  s.tasks = 2 * (n - 1) * (n - 1) + 3;
  return s;
}

Shaped graph_replays(ChoiceSource& c, int k, int budget) {
  const int nodes = banded(c, 1, 128);
  const int rounds = banded(c, 1, std::max(1, std::min(16, (budget - 2) / 2)));
  Shaped s;
  s.tensors = fmt::format("tensor ga{0}: In [1, {1}]\ntensor y{0}: InOut [{2}, {1}]\ntensor ty{0}: InOut [{2}, 1]\n"
                          "tensor z{0}: InOut [1, {1}]\ntensor tz{0}: InOut [1, 1]\n",
                          k, nodes, rounds);
  s.graphs = fmt::format(
      "graph g{0}(src, dst, tot) {{\n  for j = 0, {1}, 1 {{\n"
      "    view sj = src[0:1, j:1]\n    view dj = dst[0:1, j:1]\n"
      "    submit acc(input sj, inout dj)\n  }}\n  submit rowsum(input dst, output_existing tot)\n}}\n",
      k, nodes);
  s.body = fmt::format(
      "submit fill(output_existing y{0}, scalar 0)\nsubmit fill(output_existing z{0}, scalar 0)\n"
      "for r{0} = 0, {2}, 1 {{\n  view yr{0} = y{0}[r{0}:1, 0:{1}]\n  view tr{0} = ty{0}[r{0}:1, 0:1]\n"
      "  submit_graph g{0}(input ga{0}, inout yr{0}, inout tr{0})\n"
      "  submit_graph g{0}(input ga{0}, inout z{0}, inout tz{0})\n}}\n",
      k, nodes, rounds);
  s.tasks = 2 * rounds + 2;
  s.nodes = 2 * rounds * (nodes + 1);
  return s;
}

}  // namespace

const char* stress_shape_name(StressShape s) {
  switch (s) {
    case StressShape::kFanOut: return "fan-out";
    case StressShape::kFanIn: return "fan-in";
    case StressShape::kChain: return "chain";
    case StressShape::kLattice: return "lattice";
    case StressShape::kGraphReplays: return "graph-replays";
    case StressShape::kCount: break;
  }
  return "?";
}

StressPlan generate_stress_plan(ChoiceSource& c) {
  StressPlan out;
  out.workers = static_cast<unsigned>(c.integer(2, 8));
  std::string tensors, graphs, body;
  const int count = static_cast<int>(c.integer(1, 3));
  for (int k = 0; k < count; ++k) {
    const int budget = kMaxStressTasks - out.tasks;
    if (budget < 20) break;
    const auto shape = static_cast<StressShape>(c.one_of(static_cast<size_t>(StressShape::kCount)));
    Shaped s;
    switch (shape) {
      case StressShape::kFanOut: s = fan_out(c, k, budget); break;
      case StressShape::kFanIn: s = fan_in(c, k, budget); break;
      case StressShape::kChain: s = chain(c, k, budget); break;
      case StressShape::kLattice: s = lattice(c, k, budget); break;
      default: s = graph_replays(c, k, budget); break;
    }
    out.shapes.push_back(shape);
    out.tasks += s.tasks;
    out.graph_nodes += s.nodes;
    tensors += s.tensors;
    graphs += s.graphs;
    body += s.body;
  }
  out.text = fmt::format("config W=8192 workers={}\n{}{}{}", out.workers, tensors, graphs, body);
  runtime::PlanParseResult parsed = runtime::parse_plan(out.text);
  if (!parsed.ok())
    throw std::logic_error(fmt::format("stress plan does not parse: {}\n{}", parsed.error().to_string(), out.text));
  out.plan = parsed.program();
  return out;
}

void showValue(const StressPlan& p, std::ostream& os) {
  os << "\n# stress shapes:";
  for (StressShape s : p.shapes) os << " " << stress_shape_name(s);
  os << fmt::format(" ({} tasks, {} graph nodes)\n", p.tasks, p.graph_nodes) << p.text;
}

}  // namespace stackcheck::gen
