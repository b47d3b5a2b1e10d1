// dependency_dot (deps.h): the decoded DAG through boost::write_graphviz. Vertices are the
// units (kernel/ALLOC tasks as boxes, a GRAPH's start and completion as house shapes, its
// nodes as ellipses); edges are styled by kind; each unordered conflicting pair is one more
// edge, red and dashed, from the earlier unit to the later, labelled with the overlap.

// write_graphviz walks boost::edges, whose iterator gcc 12 flags as maybe-uninitialized
// (boost::optional inside adj_list_edge_iterator): a false positive, silenced in this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <fmt/format.h>

#include <sstream>

#include <boost/graph/graphviz.hpp>

#include "properties/oracles/deps.h"

namespace stackcheck::oracles {
namespace {

struct DotEdge {
  EdgeKind kind = EdgeKind::kFanin;
  std::string conflict;  // non-empty: an unordered conflicting pair, this its label
};
using DotGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, DotEdge>;

// A double-quoted DOT string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + "\"";
}

// describe_unit's text split at " at " onto a second line, for narrow boxes.
std::string vertex_label(const TaskGraph& g, UnitId u, const Provenance& prov) {
  std::string s = describe_unit(g, u, prov);
  if (const size_t at = s.find(" at "); at != std::string::npos) s.replace(at, 4, "\n");
  if (const size_t gir = s.find(", .gir"); gir != std::string::npos) s.replace(gir, 2, "\n");
  return s;
}

class VertexWriter {
 public:
  VertexWriter(const TaskGraph& g, const Provenance& prov) : g_(g), prov_(prov) {}
  void operator()(std::ostream& os, DotGraph::vertex_descriptor v) const {
    const Unit& u = g_.dag[v];
    const char* shape = "box";
    const char* fill = "white";
    if (u.kind == UnitKind::kGraphStart || u.kind == UnitKind::kGraphEnd) {
      shape = u.kind == UnitKind::kGraphStart ? "invhouse" : "house";
      fill = "lightgrey";
    } else if (u.kind == UnitKind::kNode) {
      shape = "ellipse";
      fill = "lightblue";
    } else if (u.kind == UnitKind::kAlloc) {
      fill = "lightyellow";
    }
    os << fmt::format("[label={}, shape={}, style=filled, fillcolor={}]", quoted(vertex_label(g_, v, prov_)), shape,
                      fill);
  }

 private:
  const TaskGraph& g_;
  const Provenance& prov_;
};

class EdgeWriter {
 public:
  explicit EdgeWriter(const DotGraph& d) : d_(d) {}
  void operator()(std::ostream& os, DotGraph::edge_descriptor e) const {
    const DotEdge& x = d_[e];
    if (!x.conflict.empty()) {
      os << fmt::format("[color=red, fontcolor=red, style=dashed, label={}]", quoted(x.conflict));
      return;
    }
    switch (x.kind) {
      case EdgeKind::kFanin: os << "[color=black]"; return;
      case EdgeKind::kOuterToNode: os << "[color=grey50, style=dotted]"; return;
      case EdgeKind::kNodeCsr: os << "[color=blue]"; return;
      case EdgeKind::kNodeToOuter: os << "[color=grey50, style=dotted]"; return;
    }
  }

 private:
  const DotGraph& d_;
};

struct GraphWriter {
  void operator()(std::ostream& os) const {
    os << "rankdir=TB;\nnode [fontname=\"Helvetica\", fontsize=10];\nedge [fontname=\"Helvetica\", fontsize=9];\n";
  }
};

}  // namespace

std::string dependency_dot(const TaskGraph& g, const DepsCheck& c, const Provenance& prov) {
  DotGraph d(boost::num_vertices(g.dag));
  for (UnitId u = 0; u < boost::num_vertices(g.dag); ++u)  // out-edge lists: see deps.cpp on boost::edges
    for (auto [e, end] = boost::out_edges(u, g.dag); e != end; ++e)
      boost::add_edge(u, boost::target(*e, g.dag), DotEdge{g.dag[*e].kind, {}}, d);
  for (const Conflict& x : c.unordered) {
    const DecodedWindow& w = g.dag[x.earlier].accesses[x.earlier_access].window;
    // The overlap as bytes of the earlier access's buffer, its windows' shapes alongside.
    const DecodedWindow& v = g.dag[x.later].accesses[x.later_access].window;
    const auto shape = [](const DecodedWindow& d) {
      std::string s = "[";
      for (uint32_t k = 0; k < d.rank && k < 4; ++k) s += fmt::format("{}{}", k ? "," : "", d.shape[k]);
      return s + "]";
    };
    const std::string label =
        fmt::format("unordered: {} bytes [{}, {})\n{}@{} vs {}@{}", prov.address_name(w.base), x.overlap.lo - w.base,
                    x.overlap.hi - w.base, shape(w), w.offset_bytes, shape(v), v.offset_bytes);
    boost::add_edge(x.earlier, x.later, DotEdge{EdgeKind::kFanin, label}, d);
  }
  std::ostringstream os;
  boost::write_graphviz(os, d, VertexWriter(g, prov), EdgeWriter(d), GraphWriter());
  return os.str();
}

}  // namespace stackcheck::oracles
