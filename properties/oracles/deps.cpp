// The checks of the dependency oracle and its whole runs (deps.h). Decoding is in
// deps_decode.cpp, the Graphviz form in deps_dot.cpp.
//
// Conflicts: every tracked access contributes its footprint's byte ranges; one sweep over all
// ranges in address order finds the pairs adjacent on their bytes (deps.h, Pairs), or every
// pair of accesses of different units that overlap with a write among them, once per access
// pair. Each such pair asks one reachability question (earlier unit -> later unit), answered
// after the sweep, grouped by source.
#include "properties/oracles/deps.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <boost/graph/transitive_closure.hpp>

#include "properties/oracles/bind_checks.h"
#include "properties/oracles/compiler_oracles.h"
#include "stack/codegen/codegen.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/host/runtime_config.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/plan/printer.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::oracles {
namespace {

namespace rt = runtime;
using Edge = TaskDag::edge_descriptor;

const char* builtin_text(int32_t kernel) {
  static constexpr const char* kNames[] = {"fill", "copy", "add", "acc", "scale", "matmul", "rowsum", "zero"};
  return kernel >= 0 && kernel <= rt::kMaxBuiltinKernelId ? kNames[kernel] : "?";
}

const char* tag_text(uint32_t tag) {
  switch (tag) {
    case rt::kTagInput: return "input";
    case rt::kTagOutput: return "output";
    case rt::kTagInout: return "inout";
    case rt::kTagOutputExisting: return "output_existing";
    case rt::kTagNoDep: return "no_dep";
    default: return "?";
  }
}

std::string dims_text(const std::array<int32_t, 4>& v, uint32_t rank) {
  std::string s = "[";
  for (uint32_t d = 0; d < rank && d < 4; ++d) s += fmt::format("{}{}", d ? ", " : "", v[d]);
  return s + "]";
}

std::string window_text(const DecodedWindow& w, const Provenance& prov) {
  return fmt::format("{} window of the {} B buffer at {}: offset {} B, shape {}, stride {}", tag_text(w.tag),
                     w.buffer_bytes, prov.address_name(w.base), w.offset_bytes, dims_text(w.shape, w.rank),
                     dims_text(w.stride, w.rank));
}

// The provenance only names lines when it describes the decoded tasks one for one.
bool provenance_fits(const TaskGraph& g, const std::vector<TaskOrigin>& tasks) {
  if (tasks.size() != g.task_start.size()) return false;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const UnitKind k = g.dag[g.task_start[i]].kind;
    const TaskOrigin::Kind want = k == UnitKind::kAlloc        ? TaskOrigin::Kind::kAlloc
                                  : k == UnitKind::kGraphStart ? TaskOrigin::Kind::kGraph
                                                               : TaskOrigin::Kind::kKernel;
    if (tasks[i].kind != want || tasks[i].nodes.size() != g.task_nodes[i].size()) return false;
  }
  return true;
}

std::string lines_of(const Unit& u, const std::vector<TaskOrigin>& tasks, const char* what) {
  const TaskOrigin& o = tasks[static_cast<size_t>(u.task)];
  if (u.kind == UnitKind::kNode)
    return fmt::format("{} line {} (graph body; submit_graph at line {})", what,
                       o.nodes[static_cast<size_t>(u.node)].line, o.loc.line);
  return fmt::format("{} line {}", what, o.loc.line);
}

// Why a report names no plan lines, if it does not ("" when it does, or none were asked for).
std::string provenance_note(const TaskGraph& g, const Provenance& prov) {
  if (!prov.note.empty()) return "; " + prov.note;
  if (!prov.plan.empty() && !provenance_fits(g, prov.plan))
    return fmt::format("; plan lines omitted: the plan model made {} tasks, the image holds {}", prov.plan.size(),
                       g.task_start.size());
  return "";
}

// ---- cycles ----

struct CycleFinder : boost::default_dfs_visitor {
  std::vector<UnitId>* parent;
  std::optional<std::pair<UnitId, UnitId>>* back;
  void tree_edge(Edge e, const TaskDag& g) const { (*parent)[boost::target(e, g)] = boost::source(e, g); }
  void back_edge(Edge e, const TaskDag& g) const {
    if (!*back) *back = std::make_pair(boost::source(e, g), boost::target(e, g));
  }
};

// A cycle of a graph topological_sort refused: a DFS back edge u -> v closes the tree path
// v -> ... -> u.
std::vector<UnitId> find_cycle(const TaskDag& g) {
  std::vector<UnitId> parent(boost::num_vertices(g));
  std::optional<std::pair<UnitId, UnitId>> back;
  boost::depth_first_search(g, boost::visitor(CycleFinder{{}, &parent, &back}));
  std::vector<UnitId> cycle;
  if (!back) return cycle;
  for (UnitId u = back->first; u != back->second; u = parent[u]) cycle.push_back(u);
  cycle.push_back(back->second);
  std::reverse(cycle.begin(), cycle.end());
  // Start the report at the unit submitted first.
  std::rotate(cycle.begin(),
              std::min_element(cycle.begin(), cycle.end(), [&](UnitId a, UnitId b) { return g[a].order < g[b].order; }),
              cycle.end());
  return cycle;
}

// ---- reachability ----

struct Query {
  UnitId from, to;
  Conflict conflict;
};

struct Discover : boost::default_bfs_visitor {
  std::vector<char>* seen;
  void discover_vertex(UnitId u, const TaskDag&) const { (*seen)[u] = 1; }
};

// ordered[k]: a path joins queries[k].from to queries[k].to. `queries` sorted by `from`.
std::vector<char> answer_by_bfs(const TaskDag& g, const std::vector<Query>& queries) {
  std::vector<char> ordered(queries.size(), 0), seen(boost::num_vertices(g));
  std::vector<boost::default_color_type> color(boost::num_vertices(g));
  for (size_t k = 0; k < queries.size();) {
    const UnitId s = queries[k].from;
    std::fill(seen.begin(), seen.end(), 0);
    boost::breadth_first_search(
        g, s,
        boost::visitor(Discover{{}, &seen})
            .color_map(boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g))));
    for (; k < queries.size() && queries[k].from == s; ++k) ordered[k] = seen[queries[k].to];
  }
  return ordered;
}

// The same from reachability rows built sinks first: a unit's row is its successors' rows and
// the successors themselves (and the unit, as the search marks its source). O(E n / 64) word
// operations and n^2 / 8 bytes, where a search per source is O(S (V + E)); past kRowsMaxUnits
// units (32 MiB of rows) the searches instead. `sinks_first`: boost::topological_sort's order.
constexpr size_t kRowsMaxUnits = 16384;
std::vector<char> answer_by_rows(const TaskDag& g, const std::vector<UnitId>& sinks_first,
                                 const std::vector<Query>& queries) {
  const size_t n = boost::num_vertices(g);
  if (n > kRowsMaxUnits) return answer_by_bfs(g, queries);
  const size_t words = (n + 63) / 64;
  std::vector<uint64_t> rows(n * words, 0);
  for (const UnitId v : sinks_first) {
    uint64_t* row = &rows[v * words];
    row[v / 64] |= uint64_t{1} << (v % 64);
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const uint64_t* succ = &rows[boost::target(*e, g) * words];
      for (size_t i = 0; i < words; ++i) row[i] |= succ[i];
    }
  }
  std::vector<char> ordered(queries.size());
  for (size_t k = 0; k < queries.size(); ++k) {
    const UnitId a = queries[k].from, b = queries[k].to;
    ordered[k] = (rows[a * words + b / 64] >> (b % 64)) & 1;
  }
  return ordered;
}

std::vector<char> answer_by_closure(const TaskDag& g, const std::vector<Query>& queries) {
  using Plain = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const size_t n = boost::num_vertices(g);
  Plain tc;
  std::vector<Plain::vertex_descriptor> to_tc(n);
  boost::transitive_closure(g, tc, boost::make_iterator_property_map(to_tc.begin(), boost::get(boost::vertex_index, g)),
                            boost::get(boost::vertex_index, g));
  std::vector<UnitId> from_tc(boost::num_vertices(tc));
  for (UnitId v = 0; v < n; ++v) from_tc[to_tc[v]] = v;
  const size_t words = (n + 63) / 64;
  std::vector<uint64_t> rows(n * words, 0);
  // Out-edge lists, not boost::edges: gcc 12 warns (maybe-uninitialized) inside Boost's edge
  // iterator.
  for (Plain::vertex_descriptor x = 0; x < boost::num_vertices(tc); ++x)
    for (auto [e, end] = boost::out_edges(x, tc); e != end; ++e) {
      const UnitId a = from_tc[x], b = from_tc[boost::target(*e, tc)];
      rows[a * words + b / 64] |= uint64_t{1} << (b % 64);
    }
  std::vector<char> ordered(queries.size());
  for (size_t k = 0; k < queries.size(); ++k) {
    const UnitId a = queries[k].from, b = queries[k].to;
    ordered[k] = (rows[a * words + b / 64] >> (b % 64)) & 1;
  }
  return ordered;
}

// ---- conflicts ----

struct FlatAccess {
  UnitId unit;
  uint32_t index;  // into the unit's accesses
  uint32_t order;
  bool writes;
};
struct Piece {
  uint64_t lo, hi;
  uint32_t access;
};

// A set of nonzero 64-bit keys (two access indices, the smaller in the high half: never 0,
// since a pair joins two different accesses), open addressing: one probe sequence per key
// and no allocation per key, for the sweep's duplicate pairs (most of what it meets).
class PairSet {
 public:
  // True when `key` was not in the set (it is now).
  bool insert(uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == key) return false;
      if (slots_[i] == 0) {
        slots_[i] = key;
        ++size_;
        return true;
      }
    }
  }

 private:
  static size_t mix(uint64_t k) { return static_cast<size_t>((k ^ (k >> 29)) * 0x9E3779B97F4A7C15ull >> 16); }
  void grow() {
    std::vector<uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), 0);
    size_ = 0;
    for (uint64_t k : old)
      if (k != 0) insert(k);
  }
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

// Every tracked access (in vertex order: submission order, a unit's accesses together) and its
// footprint's byte ranges, by start address; both sweeps below walk these.
struct Footprints {
  std::vector<FlatAccess> acc;
  std::vector<Piece> pieces;
};
Footprints footprints(const TaskGraph& g) {
  Footprints f;
  for (UnitId v = 0; v < boost::num_vertices(g.dag); ++v) {
    const Unit& u = g.dag[v];
    for (uint32_t k = 0; k < u.accesses.size(); ++k) {
      const UnitAccess& a = u.accesses[k];
      if (!a.tracked) continue;
      const auto id = static_cast<uint32_t>(f.acc.size());
      f.acc.push_back(FlatAccess{v, k, u.order, a.writes});
      for (const ByteRange& r : a.footprint)
        if (r.hi > r.lo) f.pieces.push_back(Piece{r.lo, r.hi, id});
    }
  }
  std::sort(f.pieces.begin(), f.pieces.end(), [](const Piece& a, const Piece& b) { return a.lo < b.lo; });
  return f;
}

// What a sweep found: each access pair once, the first time it is met (PairSet), as the query
// of the earlier access `e` against the later `l` over the bytes [lo, hi).
struct Queries {
  explicit Queries(const std::vector<FlatAccess>& a) : acc(a) {}
  const std::vector<FlatAccess>& acc;
  std::vector<Query> out;
  PairSet met;
  void add(uint32_t e, uint32_t l, uint64_t lo, uint64_t hi) {
    if (!met.insert(uint64_t{std::min(e, l)} << 32 | std::max(e, l))) return;
    out.push_back(
        Query{acc[e].unit, acc[l].unit, Conflict{acc[e].unit, acc[l].unit, acc[e].index, acc[l].index, {lo, hi}}});
  }
};

std::vector<Query> conflicting_pairs(const TaskGraph& g) {
  const Footprints f = footprints(g);
  const std::vector<FlatAccess>& acc = f.acc;
  const std::vector<Piece>& pieces = f.pieces;
  Queries found{acc};
  std::vector<uint32_t> active;  // pieces that may overlap the next one
  for (uint32_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    size_t keep = 0;
    for (uint32_t q : active)
      if (pieces[q].hi > p.lo) active[keep++] = q;
    active.resize(keep);
    const FlatAccess& a = acc[p.access];
    for (uint32_t q : active) {
      const FlatAccess& b = acc[pieces[q].access];
      if (a.unit == b.unit || (!a.writes && !b.writes)) continue;
      // Each pair once, where the sweep first meets it (two windows over the same rows meet
      // once per row).
      const bool a_first = a.order < b.order;
      found.add(a_first ? p.access : pieces[q].access, a_first ? pieces[q].access : p.access, p.lo,
                std::min(p.hi, pieces[q].hi));
    }
    active.push_back(i);
  }
  return std::move(found.out);
}

// The pairs adjacent on their bytes (deps.h, Pairs::kAdjacent). The address space is cut at
// every piece's ends (found as the sweep goes) into segments that one set of accesses covers;
// over each segment whose set changed, the accesses in submission order give: each unit
// against the last writing unit before it, and each writing unit against the units that only
// read since that write. One query per access pair (PairSet).
std::vector<Query> adjacent_pairs(const TaskGraph& g) {
  const Footprints f = footprints(g);
  const std::vector<FlatAccess>& acc = f.acc;
  const std::vector<Piece>& pieces = f.pieces;
  Queries found{acc};
  // Active pieces, by access id (= submission order; an access's own pieces are disjoint).
  std::vector<uint32_t> active;
  std::vector<uint64_t> active_hi;  // parallel to `active`
  std::vector<uint32_t> readers;    // one access per unit that only read since the last write
  size_t next = 0;
  // Segments [lo, hi) from one piece end or start to the next, over the bytes some piece covers.
  for (uint64_t lo = 0, hi = 0; next < pieces.size() || !active.empty(); lo = hi) {
    if (active.empty()) lo = pieces[next].lo;  // past a gap
    bool changed = false;
    size_t keep = 0;
    for (size_t i = 0; i < active.size(); ++i)
      if (active_hi[i] > lo) {
        active[keep] = active[i];
        active_hi[keep++] = active_hi[i];
      }
    changed |= keep != active.size();
    active.resize(keep);
    active_hi.resize(keep);
    for (; next < pieces.size() && pieces[next].lo == lo; ++next) {
      const auto at = std::lower_bound(active.begin(), active.end(), pieces[next].access);
      active_hi.insert(active_hi.begin() + (at - active.begin()), pieces[next].hi);
      active.insert(at, pieces[next].access);
      changed = true;
    }
    hi = next < pieces.size() ? pieces[next].lo : UINT64_MAX;
    for (const uint64_t h : active_hi) hi = std::min(hi, h);
    if (!changed || active.size() < 2) continue;
    std::optional<uint32_t> last_write;
    readers.clear();
    for (size_t i = 0; i < active.size();) {
      const UnitId unit = acc[active[i]].unit;
      std::optional<uint32_t> writes;
      const uint32_t first = active[i];
      for (; i < active.size() && acc[active[i]].unit == unit; ++i)
        if (acc[active[i]].writes && !writes) writes = active[i];
      if (last_write) found.add(*last_write, writes.value_or(first), lo, hi);
      if (!writes) {
        readers.push_back(first);
        continue;
      }
      for (uint32_t r : readers) found.add(r, *writes, lo, hi);
      readers.clear();
      last_write = writes;
    }
  }
  return std::move(found.out);
}

std::string conflict_text(const TaskGraph& g, const Conflict& c, const Provenance& prov) {
  const Unit& e = g.dag[c.earlier];
  const Unit& l = g.dag[c.later];
  const UnitAccess& ea = e.accesses[c.earlier_access];
  const UnitAccess& la = l.accesses[c.later_access];
  const auto verb = [](const UnitAccess& a) { return a.writes ? (a.reads ? "reads and writes" : "writes") : "reads"; };
  return fmt::format(
      "{} {} arg {} ({}) and {} {} arg {} ({}), overlapping at bytes [{}, {}), with no path from the earlier to the "
      "later",
      describe_unit(g, c.earlier, prov), verb(ea), ea.arg, window_text(ea.window, prov),
      describe_unit(g, c.later, prov), verb(la), la.arg, window_text(la.window, prov), prov.address_name(c.overlap.lo),
      prov.address_name(c.overlap.hi));
}

}  // namespace

const char* unit_kind_name(UnitKind k) {
  switch (k) {
    case UnitKind::kKernel: return "kernel";
    case UnitKind::kAlloc: return "alloc";
    case UnitKind::kGraphStart: return "graph start";
    case UnitKind::kGraphEnd: return "graph end";
    case UnitKind::kNode: return "node";
  }
  return "?";
}

std::string Provenance::address_name(uint64_t addr) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), addr,
                             [](uint64_t a, const NamedRange& r) { return a < r.range.lo; });
  if (it != ranges.begin() && addr - std::prev(it)->range.lo <= std::prev(it)->range.hi - std::prev(it)->range.lo)
    return fmt::format("{}+{}", std::prev(it)->name, addr - std::prev(it)->range.lo);
  return fmt::format("{:#x}", addr);
}

std::string describe_unit(const TaskGraph& g, UnitId u, const Provenance& prov) {
  const Unit& x = g.dag[u];
  std::string s;
  if (x.kind == UnitKind::kNode)  // an alloc_tensors node runs the zero builtin
    s = fmt::format("task {} node {} ({})", x.task, x.node,
                    x.kernel_id == rt::kAllocKernelId ? "alloc" : builtin_text(x.kernel_id));
  else if (x.kind == UnitKind::kKernel)
    s = fmt::format("task {} ({})", x.task, builtin_text(x.kernel_id));
  else
    s = fmt::format("task {} ({})", x.task, unit_kind_name(x.kind));
  if (provenance_fits(g, prov.plan)) {
    s += " at " + lines_of(x, prov.plan, "plan");
    if (provenance_fits(g, prov.source)) s += ", " + lines_of(x, prov.source, ".gir");
  }
  return s;
}

Provenance plan_provenance(const runtime::OrchProgram& p, uint64_t seed) {
  return plan_provenance(run_plan_model(p, seed));
}

Provenance plan_provenance(PlanModelResult m) {
  Provenance out;
  if (m.ok())
    out.plan = std::move(m.tasks);
  else
    out.note = "plan lines unavailable (plan model: " + *m.error + ")";
  return out;
}

DepsCheck check_task_graph(const TaskGraph& g, const Provenance& prov, Reachability how, Pairs pairs) {
  DepsCheck out;
  std::vector<UnitId> topo;
  try {
    boost::topological_sort(g.dag, std::back_inserter(topo));
  } catch (const boost::not_a_dag&) {
    out.cycle = find_cycle(g.dag);
    std::string path;
    for (UnitId u : out.cycle) path += describe_unit(g, u, prov) + " -> ";
    path += out.cycle.empty() ? "?" : describe_unit(g, out.cycle.front(), prov);
    out.verdict = Verdict::fail("deps-acyclic", "the task DAG has a cycle: " + path + provenance_note(g, prov));
    return out;
  }
  const auto answer = [&](std::vector<Query>& queries) {
    std::sort(queries.begin(), queries.end(), [](const Query& a, const Query& b) { return a.from < b.from; });
    return how == Reachability::kRows  ? answer_by_rows(g.dag, topo, queries)
           : how == Reachability::kBfs ? answer_by_bfs(g.dag, queries)
                                       : answer_by_closure(g.dag, queries);
  };
  std::vector<Query> queries;
  std::vector<char> ordered;
  if (pairs == Pairs::kAdjacent) {
    queries = adjacent_pairs(g);
    ordered = answer(queries);
    out.conflicting_pairs = queries.size();
    if (std::find(ordered.begin(), ordered.end(), 0) == ordered.end()) return out;
    // Some pair is unordered: the report counts and names every unordered pair, as kAll does.
  }
  queries = conflicting_pairs(g);
  ordered = answer(queries);
  out.conflicting_pairs = queries.size();
  std::vector<Conflict> bad;
  for (size_t k = 0; k < queries.size(); ++k)
    if (!ordered[k]) bad.push_back(queries[k].conflict);
  // One report per unit pair, in submission order of the earlier, then the later unit.
  std::sort(bad.begin(), bad.end(), [&](const Conflict& a, const Conflict& b) {
    const auto key = [&](const Conflict& c) {
      return std::make_tuple(g.dag[c.earlier].order, g.dag[c.later].order, c.earlier_access, c.later_access);
    };
    return key(a) < key(b);
  });
  for (size_t k = 0; k < bad.size(); ++k) {
    if (k > 0 && bad[k].earlier == bad[k - 1].earlier && bad[k].later == bad[k - 1].later) continue;
    ++out.unordered_pairs;
    if (out.unordered.size() < DepsCheck::kMaxReported) out.unordered.push_back(bad[k]);
  }
  if (out.unordered.empty()) return out;
  std::string msg = conflict_text(g, out.unordered.front(), prov);
  msg += fmt::format("; {} unordered unit pair(s) in all", out.unordered_pairs) + provenance_note(g, prov);
  out.verdict = Verdict::fail("deps-order", std::move(msg));
  return out;
}

namespace {

// The bind of `p` as bind_plan makes it, on memory this oracle owns, so that the uploaded
// definitions can be read back while the Runtime lives.
DepsRun run_plan(const runtime::OrchProgram& p, const runtime::BindOptions& opts, Provenance prov) {
  DepsRun out;
  rt::BindResult& r = out.bind;
  rt::RuntimeConfig cfg;
  if (auto err = rt::validate_plan(p)) {
    r.status = rt::kStatusGeneric;
    r.detail = "invalid plan: " + err->to_string();
  } else if (auto why = rt::apply_config(p.config, cfg)) {
    r.status = rt::kStatusUnsupported;
    r.detail = *why;
  }
  if (r.status != rt::kStatusOk) {
    out.provenance = std::move(prov);
    out.verdict = bind_status_verdict(r);
    return out;
  }
  if (opts.fill_byte) cfg.fill_byte = *opts.fill_byte;
  rt::DeviceMemoryConfig mc;
  mc.fill_byte = static_cast<uint8_t>(cfg.fill_byte);
  mc.strict_uninit = opts.strict_uninit;
  rt::DeviceMemory mem(mc);  // outlives the Runtime
  auto runtime = rt::Runtime::create(mem, cfg);
  if (!runtime) {
    out.provenance = std::move(prov);
    r.status = rt::kStatusUnsupported;
    r.detail = runtime.error();
    out.verdict = bind_status_verdict(r);
    return out;
  }
  Captured c;
  rt::BindOptions o = opts;
  o.before_upload = [&c, inner = opts.before_upload](rt::StagedUpload& up) {
    if (inner)
      if (std::optional<std::string> stop = inner(up)) return stop;
    c.staged.assign(up.bytes.begin(), up.bytes.end());  // what the one copy ships
    c.image_offset = up.image_offset;
    c.image_bytes = up.image_bytes;
    c.destination = up.destination;
    return std::optional<std::string>();
  };
  c.result = (*runtime)->bind(p, o);
  return check_captured_dependencies(c, mem, std::move(prov));
}

}  // namespace

DepsRun check_captured_dependencies(const Captured& c, const runtime::DeviceMemory& mem, Provenance prov) {
  DepsRun out;
  out.provenance = std::move(prov);
  out.bind = c.result;
  const rt::BindResult& r = out.bind;
  for (const rt::ReservationInfo& info : mem.reservations())  // for the report: which buffer
    if (info.link != rt::kDirectCaller)
      out.provenance.ranges.push_back(NamedRange{{info.base.raw(), info.base.raw() + info.bytes}, info.name});
  std::sort(out.provenance.ranges.begin(), out.provenance.ranges.end(),
            [](const NamedRange& a, const NamedRange& b) { return a.range.lo < b.range.lo; });
  std::string decode_error;
  const bool shipped = !c.staged.empty();
  if (shipped) {
    DecodeResult d = decode_task_graph(c.staged, c.destination.raw(), device_definition_reader(mem));
    out.graph = std::move(d.graph);
    decode_error = std::move(d.error);
  }
  if (r.status != rt::kStatusOk) {
    out.verdict = bind_status_verdict(r);
    return out;
  }
  if (!shipped) {
    out.verdict = Verdict::fail("deps-decode", "a completed bind never reached its before-upload hook");
    return out;
  }
  if (!out.graph) {
    out.verdict = Verdict::fail("deps-decode", decode_error);
    return out;
  }
  out.check = check_task_graph(*out.graph, out.provenance);
  out.verdict = out.check.verdict;
  return out;
}

DepsRun check_plan_dependencies(const runtime::OrchProgram& p, const runtime::BindOptions& opts) {
  // A program built in code has no locations: its printed text supplies them, so a report's
  // "plan line N" is line N of print_plan(p).
  bool located = false;
  for (const rt::PlanStmt& s : p.body) located |= s.loc.line != 0;
  if (!located && !p.body.empty()) {
    rt::PlanParseResult parsed = rt::parse_plan(rt::print_plan(p));
    if (parsed.ok()) return run_plan(parsed.program(), opts, plan_provenance(parsed.program(), opts.seed));
  }
  return run_plan(p, opts, plan_provenance(p, opts.seed));
}

DepsRun check_program_dependencies(const ir::Program& p, const runtime::BindOptions& opts,
                                   const passes::PipelineOptions& pipeline,
                                   const std::vector<runtime::ConfigEntry>& config) {
  DepsRun out;
  const CompiledPlan compiled = compile_to_plan(p, pipeline);
  if (!compiled.verdict.passed()) {
    out.verdict = compiled.verdict;
    return out;
  }
  rt::OrchProgram plan = compiled.plan;  // its statements carry the .gir locations
  plan.config = config;
  const std::string text = rt::print_plan(plan);
  rt::PlanParseResult parsed = rt::parse_plan(text);  // the same program, located in `text`
  if (!parsed.ok()) {
    out.verdict =
        Verdict::fail("plan-roundtrip", fmt::format("the printed plan does not parse: {}:{}: {}", parsed.error().line,
                                                    parsed.error().column, parsed.error().message));
    return out;
  }
  Provenance prov = plan_provenance(parsed.program(), opts.seed);
  prov.source = plan_provenance(plan, opts.seed).plan;
  out = run_plan(parsed.program(), opts, std::move(prov));
  out.plan_text = text;
  return out;
}

}  // namespace stackcheck::oracles
