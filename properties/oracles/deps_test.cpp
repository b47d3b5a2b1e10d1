// The dependency oracle (deps.h). Passing cases: every corpus plan and compiled corpus
// program, aliased graph boundaries, no_dep accesses. Positive controls: a fanin edge dropped
// in the SHIPPED bytes, a write-after-read edge removed from the decoded DAG, a cycle (in the
// DAG and in the bytes), node CSR edges, corrupt bytes and definitions (a fail, never a
// crash). Both reachability methods agree on every single-edge removal; the 1,000-task plan
// gives the figures quoted in deps.h.

// Copying a TaskDag (adjacency_list's copy walks boost::edges) trips gcc 12's
// maybe-uninitialized inside Boost's edge iterator, a false positive; the tests copy graphs.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "properties/oracles/deps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "stack/ir/parser.h"
#include "stack/runtime/host/runtime.h"
#include "stack/runtime/host/runtime_config.h"
#include "stack/runtime/host/test_support.h"
#include "stack/runtime/image/records.h"
#include "stack/runtime/image/self_relative.h"
#include "stack/runtime/plan/parser.h"

namespace stackcheck::oracles {
namespace {

namespace rt = runtime;
namespace fs = std::filesystem;

rt::OrchProgram parse(std::string_view text) {
  rt::PlanParseResult r = rt::parse_plan(text);
  EXPECT_TRUE(r.ok()) << r.error().to_string() << "\n" << text;
  return r.ok() ? r.program() : rt::OrchProgram{};
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> corpus(const char* dir, const char* ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(STACKCHECK_CORPUS_DIR) / dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

rt::BindOptions options() {
  rt::BindOptions o;
  o.fill_byte = 0xAA;
  o.schedule.mode = rt::ScheduleOptions::Mode::kOldest;
  return o;
}

// A bind on memory the test owns, with the shipped bytes captured and the Runtime alive, so
// the pure decode can be run on those bytes (and on corrupted copies of them).
struct Captured {
  std::unique_ptr<rt::DeviceMemory> mem;  // outlives the Runtime
  std::unique_ptr<rt::Runtime> runtime;
  rt::BindResult bind;
  std::vector<std::byte> bytes;
  uint64_t destination = 0;
};

Captured capture(const rt::OrchProgram& p, rt::BeforeUploadHook mutate = {}) {
  Captured c;
  rt::RuntimeConfig cfg;
  EXPECT_FALSE(rt::apply_config(p.config, cfg).has_value());
  rt::DeviceMemoryConfig mc;
  mc.fill_byte = 0xAA;
  c.mem = std::make_unique<rt::DeviceMemory>(mc);
  auto made = rt::Runtime::create(*c.mem, cfg);
  EXPECT_TRUE(made.has_value());
  c.runtime = std::move(*made);
  rt::BindOptions o = options();
  o.before_upload = [&c, mutate](rt::StagedUpload& up) -> std::optional<std::string> {
    if (mutate)
      if (auto stop = mutate(up)) return stop;
    c.bytes.assign(up.bytes.begin(), up.bytes.end());
    c.destination = up.destination.raw();
    return std::nullopt;
  };
  c.bind = c.runtime->bind(p, o);
  return c;
}

// The fanin entries of task `i` in a staged upload (the image's own records).
std::span<int32_t> fanin_of(rt::StagedUpload& up, uint32_t i) {
  std::byte* img = up.bytes.data() + up.image_offset;
  rt::ImageHeader h;
  std::memcpy(&h, img, sizeof h);
  const uint64_t pay = h.seg_off[rt::kSegPayload] + sizeof(rt::TaskPayload) * i;
  rt::TaskPayload p;
  std::memcpy(&p, img + pay, sizeof p);
  const uint64_t at = *rt::resolve_offset(pay + rt::kPayloadFaninField, p.fanin);
  return {reinterpret_cast<int32_t*>(img + at), p.n_fanin};
}

// Every edge (source, target), from the out-edge lists (gcc warns inside boost::edges).
std::vector<std::pair<UnitId, UnitId>> edge_list(const TaskDag& g) {
  std::vector<std::pair<UnitId, UnitId>> out;
  for (UnitId u = 0; u < boost::num_vertices(g); ++u)
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) out.emplace_back(u, boost::target(*e, g));
  return out;
}

// The edge a -> b of the DAG, which must exist.
void remove_edge(TaskGraph& g, UnitId a, UnitId b) {
  ASSERT_TRUE(boost::edge(a, b, g.dag).second) << a << " -> " << b;
  boost::remove_edge(a, b, g.dag);
}

TEST(DepsOracle, corpus_plans_pass) {
  for (const fs::path& f : corpus("plans", ".plan")) {
    SCOPED_TRACE(f.filename().string());
    const rt::OrchProgram p = parse(read_file(f));
    const DepsRun run = check_plan_dependencies(p, options());
    if (f.filename().string().rfind("fatal_", 0) == 0) {  // latched: nothing uploaded, nothing to judge
      EXPECT_TRUE(run.verdict.inconclusive()) << run.verdict.to_string();
      EXPECT_EQ(run.graph, nullptr);
      continue;
    }
    ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
    ASSERT_NE(run.graph, nullptr);
    EXPECT_EQ(run.graph->task_start.size(), run.bind.stats.tasks);
    EXPECT_GT(run.check.conflicting_pairs, 0u) << "the check judged no pair at all";
    EXPECT_TRUE(run.provenance.note.empty()) << run.provenance.note;
  }
}

TEST(DepsOracle, corpus_programs_pass) {
  for (const fs::path& f : corpus("programs", ".gir")) {
    SCOPED_TRACE(f.filename().string());
    const ir::ParseResult parsed = ir::parse_program(read_file(f));
    ASSERT_TRUE(parsed.ok());
    const DepsRun run = check_program_dependencies(parsed.program(), options(), {}, {{"W", 1024, {}}});
    ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
    EXPECT_FALSE(run.plan_text.empty());
    EXPECT_GT(run.check.conflicting_pairs, 0u);
  }
}

// Two boundary tensors of one submission alias (x[0:8] and x[4:8]): the recorder treats the
// class as one range, so the nodes writing one name and reading the other are ordered.
TEST(DepsOracle, aliased_boundary_passes) {
  const DepsRun run = check_plan_dependencies(
      parse(read_file(fs::path(STACKCHECK_CORPUS_DIR) / "plans/graph_alias_internal.plan")), options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  const TaskGraph& g = *run.graph;
  ASSERT_EQ(g.task_nodes.size(), 3u);
  for (const auto& nodes : g.task_nodes) EXPECT_EQ(nodes.size(), 4u);
  // Submission 1: node 1 (copy) reads a = x[0:8], node 3 (acc) writes b = x[4:12]; bytes 16..32
  // of x are shared.
  const Unit& copy = g.dag[g.task_nodes[1][1]];
  const Unit& acc = g.dag[g.task_nodes[1][3]];
  EXPECT_EQ(copy.accesses[0].window.base, acc.accesses[1].window.base);
  EXPECT_EQ(copy.accesses[0].window.offset_bytes, 0u);
  EXPECT_EQ(acc.accesses[1].window.offset_bytes, 16u);
}

TEST(DepsOracle, no_dep_accesses_make_no_conflict) {
  const DepsRun untracked =
      check_plan_dependencies(parse("config W=16\ntensor x: InOut [8]\nsubmit fill(no_dep x, scalar 1)\n"
                                    "submit fill(no_dep x, scalar 2)\n"),
                              options());
  ASSERT_TRUE(untracked.verdict.passed()) << untracked.verdict.to_string();
  EXPECT_EQ(untracked.check.conflicting_pairs, 0u);
  EXPECT_EQ(boost::num_edges(untracked.graph->dag), 0u);  // the runtime orders nothing either
  EXPECT_FALSE(untracked.graph->dag[0].accesses[0].tracked);
  // The same writes tracked: one conflicting pair, ordered by the WAW edge; without it, a fail.
  DepsRun tracked = check_plan_dependencies(parse("config W=16\ntensor x: InOut [8]\n"
                                                  "submit fill(output_existing x, scalar 1)\n"
                                                  "submit fill(output_existing x, scalar 2)\n"),
                                            options());
  ASSERT_TRUE(tracked.verdict.passed()) << tracked.verdict.to_string();
  EXPECT_EQ(tracked.check.conflicting_pairs, 1u);
  remove_edge(*tracked.graph, 0, 1);
  EXPECT_EQ(check_task_graph(*tracked.graph, tracked.provenance).verdict.rule, "deps-order");
}

constexpr const char* kFanin =
    "config W=16\n"
    "tensor x: InOut [8]\n"
    "tensor y: InOut [8]\n"
    "# task 0 writes y, task 1 writes x, task 2 reads x into y: fanin {0, 1}\n"
    "submit fill(output_existing y, scalar 1)\n"
    "submit fill(output_existing x, scalar 2)\n"
    "submit acc(input x, inout y)\n";

// The hook rewrites task 2's fanin {0, 1} to {0, 0} in the staged bytes: the run still
// completes (the scheduler waits on task 0 twice), and the oracle, reading what shipped, sees
// task 1's write of x unordered with task 2's read.
TEST(DepsOracle, dropped_fanin_in_the_shipped_bytes_is_reported) {
  const rt::OrchProgram p = parse(kFanin);
  ASSERT_TRUE(check_plan_dependencies(p, options()).verdict.passed());
  rt::BindOptions o = options();
  o.before_upload = [](rt::StagedUpload& up) -> std::optional<std::string> {
    std::span<int32_t> f = fanin_of(up, 2);
    if (f.size() != 2 || f[0] != 0 || f[1] != 1) return "unexpected fanin";
    f[1] = 0;
    return std::nullopt;
  };
  const DepsRun run = check_plan_dependencies(p, o);
  ASSERT_EQ(run.bind.status, 0) << run.bind.detail;
  ASSERT_TRUE(run.verdict.failed()) << run.verdict.to_string();
  EXPECT_EQ(run.verdict.rule, "deps-order");
  EXPECT_NE(run.verdict.message.find("task 1 (fill) at plan line 6 writes arg 0"), std::string::npos)
      << run.verdict.message;
  EXPECT_NE(run.verdict.message.find("task 2 (acc) at plan line 7 reads arg 0"), std::string::npos)
      << run.verdict.message;
  EXPECT_NE(run.verdict.message.find("window of the 32 B buffer at entry:x+0: offset 0 B, shape [8], stride [1]"),
            std::string::npos)
      << run.verdict.message;
  EXPECT_NE(run.verdict.message.find("overlapping at bytes [entry:x+0, entry:x+32)"), std::string::npos);
  EXPECT_EQ(run.check.unordered_pairs, 1u);
}

// A write-after-read: task 0 reads y, task 1 overwrites it. Removing exactly that edge from
// the decoded DAG is reported with both tasks, their windows and their lines.
TEST(DepsOracle, missing_war_edge_names_both_tasks_and_lines) {
  DepsRun run = check_plan_dependencies(parse("config W=16\n"
                                              "tensor y: InOut [8]\n"
                                              "submit copy(input y, output o: [8])\n"
                                              "submit fill(output_existing y[2:4], scalar 3)\n"),
                                        options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  TaskGraph& g = *run.graph;
  remove_edge(g, g.task_end[0], g.task_start[1]);
  const DepsCheck c = check_task_graph(g, run.provenance);
  ASSERT_EQ(c.verdict.rule, "deps-order") << c.verdict.to_string();
  const std::string& m = c.verdict.message;
  EXPECT_NE(m.find("task 0 (copy) at plan line 3 reads arg 0 (input window"), std::string::npos) << m;
  EXPECT_NE(m.find("task 1 (fill) at plan line 4 writes arg 0 (output_existing window"), std::string::npos) << m;
  EXPECT_NE(m.find("offset 8 B, shape [4], stride [1]"), std::string::npos) << m;  // y[2:4]
  ASSERT_EQ(c.unordered.size(), 1u);
  EXPECT_EQ(c.unordered[0].overlap.hi - c.unordered[0].overlap.lo, 16u);  // the 4 shared elements
  // The other method finds the same.
  EXPECT_EQ(check_task_graph(g, run.provenance, Reachability::kClosure).verdict.message, m);
  // A provenance that does not describe these tasks names no lines, and says so.
  Provenance wrong = run.provenance;
  wrong.plan.pop_back();
  const std::string w = check_task_graph(g, wrong).verdict.message;
  EXPECT_EQ(w.find("at plan line"), std::string::npos) << w;
  EXPECT_NE(w.find("plan lines omitted: the plan model made 1 tasks, the image holds 2"), std::string::npos) << w;
}

// The runtime binds a buffer used after its scope ended (the plan model refuses it): the
// oracle still judges, without lines, and says why.
TEST(DepsOracle, model_error_leaves_no_lines) {
  DepsRun run = check_plan_dependencies(
      parse("config W=16\nscope_begin\nalloc t: [8]\nscope_end\nsubmit fill(output_existing t, scalar 1)\n"),
      options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  EXPECT_NE(run.provenance.note.find("plan model"), std::string::npos);
  remove_edge(*run.graph, 0, 1);
  const std::string m = check_task_graph(*run.graph, run.provenance).verdict.message;
  EXPECT_NE(m.find("task 0 (alloc) writes arg 0"), std::string::npos) << m;
  EXPECT_NE(m.find("plan lines unavailable (plan model: "), std::string::npos) << m;
}

TEST(DepsOracle, cycle_in_the_dag_is_reported) {
  DepsRun run = check_plan_dependencies(parse(kFanin), options());
  ASSERT_TRUE(run.verdict.passed());
  TaskGraph& g = *run.graph;
  boost::add_edge(g.task_end[2], g.task_start[1], UnitEdge{}, g.dag);
  const DepsCheck c = check_task_graph(g, run.provenance);
  ASSERT_EQ(c.verdict.rule, "deps-acyclic") << c.verdict.to_string();
  EXPECT_EQ(c.cycle.size(), 2u);
  EXPECT_NE(c.verdict.message.find("task 1 (fill) at plan line 6 -> task 2 (acc) at plan line 7 -> task 1"),
            std::string::npos)
      << c.verdict.message;
}

// A task naming itself in its fanin ships a self-loop: the scheduler refuses it (103, the run
// is inconclusive for the oracle), and the decode of those bytes finds the cycle.
TEST(DepsOracle, cycle_in_the_shipped_bytes_is_reported) {
  const auto self = [](rt::StagedUpload& up) -> std::optional<std::string> {
    fanin_of(up, 2)[1] = 2;
    return std::nullopt;
  };
  rt::BindOptions o = options();
  o.before_upload = self;
  const rt::OrchProgram p = parse(kFanin);
  EXPECT_TRUE(check_plan_dependencies(p, o).verdict.inconclusive());
  const Captured c = capture(p, self);
  ASSERT_FALSE(c.bytes.empty());
  const DecodeResult d = decode_task_graph(c.bytes, c.destination, device_definition_reader(*c.mem));
  ASSERT_TRUE(d.ok()) << d.error;
  const DepsCheck check = check_task_graph(*d.graph);
  EXPECT_EQ(check.verdict.rule, "deps-acyclic");
  EXPECT_EQ(check.cycle, std::vector<UnitId>{2});
}

// Nodes of one submission are ordered by the definition's CSR; removing node 2 -> node 3 (acc
// then fill on a view of the same boundary) is reported with the graph body's lines.
TEST(DepsOracle, missing_node_csr_edge_names_the_body_lines) {
  DepsRun run = check_plan_dependencies(
      parse(read_file(fs::path(STACKCHECK_CORPUS_DIR) / "plans/graph_two_submissions.plan")), options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  TaskGraph& g = *run.graph;
  ASSERT_EQ(g.task_nodes[1].size(), 4u);
  remove_edge(g, g.task_nodes[1][2], g.task_nodes[1][3]);
  const DepsCheck c = check_task_graph(g, run.provenance);
  ASSERT_EQ(c.verdict.rule, "deps-order") << c.verdict.to_string();
  const std::string& m = c.verdict.message;
  EXPECT_NE(m.find("task 1 node 2 (acc) at plan line 11 (graph body; submit_graph at line 16)"), std::string::npos)
      << m;
  EXPECT_NE(m.find("task 1 node 3 (fill) at plan line 13 (graph body; submit_graph at line 16)"), std::string::npos)
      << m;
  // The internal buffer t (alloc node 0) lies in each submission's own graph-heap block.
  EXPECT_NE(g.dag[g.task_nodes[1][0]].accesses[0].window.base, g.dag[g.task_nodes[2][0]].accesses[0].window.base);
}

// Past 16 definitions a miss runs the body inline: its nodes become ordinary tasks, which the
// provenance names by the body's lines.
TEST(DepsOracle, inlined_graph_tasks_name_the_body_lines) {
  const std::string text = runtime::testing::plan_past_16_definitions();
  DepsRun run = check_plan_dependencies(parse(text), options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  TaskGraph& g = *run.graph;
  ASSERT_EQ(g.task_start.size(), 18u);
  EXPECT_EQ(g.dag[g.task_start[16]].kind, UnitKind::kKernel);
  remove_edge(g, g.task_end[15], g.task_start[16]);
  const DepsCheck c = check_task_graph(g, run.provenance);
  ASSERT_EQ(c.verdict.rule, "deps-order") << c.verdict.to_string();
  // Every earlier submission's node wrote c, ordered before task 16 only through task 15.
  EXPECT_EQ(c.unordered_pairs, 16u);
  EXPECT_NE(c.verdict.message.find("task 0 node 0 (fill) at plan line 3 (graph body; submit_graph at line 55)"),
            std::string::npos)
      << c.verdict.message;
  EXPECT_NE(c.verdict.message.find("task 16 (fill) at plan line 53 writes"), std::string::npos) << c.verdict.message;
}

// A replay keeps the view offset frozen at recording ($0 = 0): every submission's node 0
// reads x at offset 0, although `scalar $0` (patched) differs.
TEST(DepsOracle, nodes_read_the_frozen_offset) {
  const DepsRun run = check_plan_dependencies(
      parse(read_file(fs::path(STACKCHECK_CORPUS_DIR) / "plans/graph_frozen_view.plan")), options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  ASSERT_EQ(run.graph->task_nodes.size(), 4u);
  for (const auto& nodes : run.graph->task_nodes) {
    const UnitAccess& in = run.graph->dag[nodes[0]].accesses[0];
    EXPECT_EQ(in.window.offset_bytes, 0u);
    EXPECT_EQ(in.footprint, (std::vector<ByteRange>{{in.window.base, in.window.base + 32}}));
  }
}

// A 2-D column window of a row-major buffer: one byte range per row, not the bounding range.
TEST(DepsOracle, strided_footprints_are_exact) {
  const DepsRun run = check_plan_dependencies(parse("config W=16\ntensor b: InOut [4, 8]\n"
                                                    "submit fill(output_existing b[0:4, 0:2], scalar 1)\n"
                                                    "submit fill(output_existing b[0:4, 2:2], scalar 2)\n"),
                                              options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  const UnitAccess& a = run.graph->dag[0].accesses[0];
  ASSERT_EQ(a.footprint.size(), 4u);
  EXPECT_EQ(a.footprint[1].lo - a.footprint[0].lo, 32u);  // one row of 8 elements apart
  EXPECT_EQ(a.footprint[0].hi - a.footprint[0].lo, 8u);
  EXPECT_EQ(run.check.conflicting_pairs, 0u);  // interleaved columns, disjoint elements
}

// Corrupt bytes and definitions decode to a graph or an error, never a crash; a fanin naming
// a task past n and a truncated copy name what is wrong.
TEST(DepsOracle, corrupt_bytes_fail_cleanly) {
  const Captured c = capture(parse(read_file(fs::path(STACKCHECK_CORPUS_DIR) / "plans/graph_two_submissions.plan")));
  ASSERT_EQ(c.bind.status, 0) << c.bind.detail;
  const DefinitionReader reader = device_definition_reader(*c.mem);
  ASSERT_TRUE(decode_task_graph(c.bytes, c.destination, reader).ok());
  EXPECT_NE(decode_task_graph(std::span(c.bytes).first(200), c.destination, reader).error.find("outside the shipped"),
            std::string::npos);
  size_t errors = 0;
  for (size_t k = 0; k < c.bytes.size(); ++k)
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0xFF}, uint8_t{0x7F}}) {
      std::vector<std::byte> b = c.bytes;
      if (b[k] == std::byte{v}) continue;
      b[k] = std::byte{v};
      const DecodeResult d = decode_task_graph(b, c.destination, reader);
      errors += d.ok() ? 0 : 1;
      if (d.ok()) (void)check_task_graph(*d.graph);  // whatever it decodes, the check runs
    }
  EXPECT_GT(errors, 0u);
  // The definition as read: every byte corrupted in turn.
  const uint64_t def = [&] {
    const auto rh = *reinterpret_cast<const rt::RuntimeHeader*>(c.bytes.data());
    rt::GraphSubmission s;
    std::memcpy(&s, c.bytes.data() + (rh.submissions.raw() - c.destination), sizeof s);
    return s.definition_addr.raw();
  }();
  for (uint64_t k = 0; k < 1024; ++k) {
    const DefinitionReader bent = [&](uint64_t addr, std::span<std::byte> out) {
      std::optional<std::string> r = reader(addr, out);
      if (!r && def + k >= addr && def + k < addr + out.size()) out[def + k - addr] ^= std::byte{0x5A};
      return r;
    };
    const DecodeResult d = decode_task_graph(c.bytes, c.destination, bent);
    if (d.ok()) (void)check_task_graph(*d.graph);
  }
  // Task 3's fanin names a task past n.
  const auto past = [](rt::StagedUpload& up) -> std::optional<std::string> {
    fanin_of(up, 3)[0] = 9;
    return std::nullopt;
  };
  const Captured bad =
      capture(parse(read_file(fs::path(STACKCHECK_CORPUS_DIR) / "plans/graph_two_submissions.plan")), past);
  const DecodeResult d = decode_task_graph(bad.bytes, bad.destination, device_definition_reader(*bad.mem));
  EXPECT_EQ(d.error, "task 3: fanin entry 0 names task 9 of 4");
}

// The three reachability methods (rows, the default; a search per source; the closure) agree
// on every DAG reached by removing one edge of a corpus plan's DAG.
TEST(DepsOracle, bfs_and_closure_agree) {
  for (const char* name : {"hazards_dag.plan", "graph_two_submissions.plan", "loops_views.plan", "example.plan"}) {
    SCOPED_TRACE(name);
    const DepsRun run =
        check_plan_dependencies(parse(read_file(fs::path(STACKCHECK_CORPUS_DIR) / "plans" / name)), options());
    ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
    size_t failing = 0;
    for (const auto& [a, b] : edge_list(run.graph->dag)) {
      TaskGraph g = *run.graph;
      boost::remove_edge(a, b, g.dag);
      const DepsCheck rows = check_task_graph(g, run.provenance, Reachability::kRows);
      const DepsCheck bfs = check_task_graph(g, run.provenance, Reachability::kBfs);
      const DepsCheck closure = check_task_graph(g, run.provenance, Reachability::kClosure);
      EXPECT_EQ(bfs.verdict.to_string(), closure.verdict.to_string());
      EXPECT_EQ(bfs.unordered_pairs, closure.unordered_pairs);
      EXPECT_EQ(rows.verdict.to_string(), bfs.verdict.to_string());
      EXPECT_EQ(rows.unordered_pairs, bfs.unordered_pairs);
      failing += bfs.verdict.failed() ? 1 : 0;
    }
    EXPECT_GT(failing, 0u) << "no single edge mattered";
  }
}

// Asking only the pairs adjacent on their bytes decides as asking every pair, and a fail
// reports what every pair's check reports, on every DAG reached by removing one or two edges
// of a corpus plan's DAG; on the plans themselves it asks fewer pairs.
TEST(DepsOracle, adjacent_and_all_pairs_agree) {
  size_t fewer = 0;
  for (const fs::path& f : corpus("plans", ".plan")) {
    if (f.filename().string().rfind("fatal_", 0) == 0) continue;
    SCOPED_TRACE(f.filename().string());
    const DepsRun run = check_plan_dependencies(parse(read_file(f)), options());
    ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
    const DepsCheck all = check_task_graph(*run.graph, run.provenance, kDefaultReachability, Pairs::kAll);
    ASSERT_TRUE(all.verdict.passed());
    EXPECT_LE(run.check.conflicting_pairs, all.conflicting_pairs);
    fewer += run.check.conflicting_pairs < all.conflicting_pairs ? 1 : 0;
    const auto edges = edge_list(run.graph->dag);
    size_t failing = 0;
    for (size_t i = 0; i < edges.size(); ++i)
      for (size_t j = i; j < edges.size() && j < i + 3; ++j) {
        TaskGraph g = *run.graph;
        boost::remove_edge(edges[i].first, edges[i].second, g.dag);
        boost::remove_edge(edges[j].first, edges[j].second, g.dag);
        const DepsCheck adjacent = check_task_graph(g, run.provenance, kDefaultReachability, Pairs::kAdjacent);
        const DepsCheck every = check_task_graph(g, run.provenance, kDefaultReachability, Pairs::kAll);
        ASSERT_EQ(adjacent.verdict.to_string(), every.verdict.to_string());
        EXPECT_EQ(adjacent.unordered_pairs, every.unordered_pairs);
        failing += every.verdict.failed() ? 1 : 0;
      }
    EXPECT_GT(failing, 0u) << "no edge mattered";
  }
  EXPECT_GT(fewer, 0u) << "adjacency never saved a pair";
}

// Three writes of one buffer, then a read of it, ordered as a chain 0 -> 1 -> 2 -> 3: the adjacent
// pairs are the chain's links, and the chain orders the rest by transitivity. Cut one link
// and the pairs it carried are unordered, every one of them counted.
TEST(DepsOracle, adjacent_pairs_lean_on_transitivity) {
  DepsRun run = check_plan_dependencies(parse("config W=16\ntensor x: InOut [8]\ntensor y: InOut [8]\n"
                                              "submit fill(output_existing x, scalar 1)\n"
                                              "submit fill(output_existing x, scalar 2)\n"
                                              "submit fill(output_existing x, scalar 3)\n"
                                              "submit copy(input x, output_existing y)\n"),
                                        options());
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  const DepsCheck all = check_task_graph(*run.graph, run.provenance, kDefaultReachability, Pairs::kAll);
  EXPECT_EQ(all.conflicting_pairs, 6u);        // every two of the four tasks
  EXPECT_EQ(run.check.conflicting_pairs, 3u);  // 0-1, 1-2, 2-3
  remove_edge(*run.graph, 1, 2);
  boost::remove_edge(0, 2, run.graph->dag);  // the runtime's edges past the chain, if it made any
  boost::remove_edge(0, 3, run.graph->dag);
  boost::remove_edge(1, 3, run.graph->dag);
  const DepsCheck cut = check_task_graph(*run.graph, run.provenance);
  EXPECT_EQ(cut.verdict.rule, "deps-order");
  EXPECT_EQ(cut.unordered_pairs, 4u);  // 0-2, 0-3, 1-2, 1-3
  EXPECT_EQ(cut.conflicting_pairs, 6u);
}

// A compiled program's report names the plan line and the .gir line behind each unit.
TEST(DepsOracle, compiled_program_names_gir_lines) {
  const std::string gir = read_file(fs::path(STACKCHECK_CORPUS_DIR) / "programs/example.gir");
  const ir::ParseResult parsed = ir::parse_program(gir);
  ASSERT_TRUE(parsed.ok());
  const DepsRun run = check_program_dependencies(parsed.program(), options(), {}, {{"W", 64, {}}});
  ASSERT_TRUE(run.verdict.passed()) << run.verdict.to_string();
  std::vector<std::string> gir_lines(1), plan_lines(1);
  for (std::istringstream in(gir); std::getline(in, gir_lines.emplace_back());) {
  }
  for (std::istringstream in(run.plan_text); std::getline(in, plan_lines.emplace_back());) {
  }
  size_t checked = 0;
  for (const auto& [a, b] : edge_list(run.graph->dag)) {
    TaskGraph g = *run.graph;
    boost::remove_edge(a, b, g.dag);
    const DepsCheck c = check_task_graph(g, run.provenance);
    if (!c.verdict.failed()) continue;
    ++checked;
    const std::string& m = c.verdict.message;
    // Every plan line named is a submit or alloc of the printed plan, every .gir line a call or
    // a create.
    static const std::regex kPlan(R"(plan line (\d+))"), kGir(R"(\.gir line (\d+))");
    size_t gir_named = 0;
    for (std::sregex_iterator it(m.begin(), m.end(), kPlan), stop; it != stop; ++it)
      EXPECT_TRUE(std::regex_search(plan_lines.at(std::stoul((*it)[1])), std::regex("submit|alloc"))) << m;
    for (std::sregex_iterator it(m.begin(), m.end(), kGir), stop; it != stop; ++it, ++gir_named)
      EXPECT_TRUE(std::regex_search(gir_lines.at(std::stoul((*it)[1])), std::regex("call|create"))) << m;
    EXPECT_EQ(gir_named, 2u) << m;
  }
  EXPECT_GT(checked, 0u);
}

// The figures of deps.h: 1,000 kernel tasks over overlapping 2-D windows of two buffers.
TEST(DepsOracle, thousand_tasks_timings) {
  const rt::OrchProgram p = parse(
      "config W=1024\n"
      "tensor x: InOut [64, 64]\n"
      "tensor y: InOut [64, 64]\n"
      "for i = 0, 500, 1 {\n"
      "  set r = i % 61\n"
      "  set c = i % 33\n"
      "  set w = i * 7 % 61\n"
      "  set k = 32 - c\n"
      "  view a = x[r:3, c:32]\n"
      "  view b = y[r:3, 0:32]\n"
      "  submit acc(input a, inout b)\n"
      "  view d = x[w:3, k:32]\n"
      "  submit copy(input b, output_existing d)\n"
      "}\n");
  const Captured c = capture(p);
  ASSERT_EQ(c.bind.status, 0) << c.bind.detail;
  ASSERT_EQ(c.bind.stats.tasks, 1000u);
  const DefinitionReader reader = device_definition_reader(*c.mem);
  using Clock = std::chrono::steady_clock;
  const auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  constexpr int kRounds = 5;
  double decode = 1e9, rows = 1e9, bfs = 1e9, closure = 1e9, all = 1e9;  // the best of kRounds each
  DecodeResult d;
  DepsCheck by_rows, by_bfs, by_closure, every;
  for (int k = 0; k < kRounds; ++k) {
    auto t0 = Clock::now();
    d = decode_task_graph(c.bytes, c.destination, reader);
    auto t1 = Clock::now();
    ASSERT_TRUE(d.ok()) << d.error;
    by_bfs = check_task_graph(*d.graph, {}, Reachability::kBfs);
    auto t2 = Clock::now();
    by_closure = check_task_graph(*d.graph, {}, Reachability::kClosure);
    auto t3 = Clock::now();
    by_rows = check_task_graph(*d.graph, {}, Reachability::kRows);
    auto t4 = Clock::now();
    every = check_task_graph(*d.graph, {}, Reachability::kRows, Pairs::kAll);
    auto t5 = Clock::now();
    all = std::min(all, ms(t5 - t4));
    decode = std::min(decode, ms(t1 - t0));
    bfs = std::min(bfs, ms(t2 - t1));
    closure = std::min(closure, ms(t3 - t2));
    rows = std::min(rows, ms(t4 - t3));
  }
  EXPECT_TRUE(by_rows.verdict.passed()) << by_rows.verdict.to_string();
  EXPECT_TRUE(by_bfs.verdict.passed()) << by_bfs.verdict.to_string();
  EXPECT_TRUE(by_closure.verdict.passed()) << by_closure.verdict.to_string();
  EXPECT_EQ(by_bfs.conflicting_pairs, by_closure.conflicting_pairs);
  EXPECT_EQ(by_rows.conflicting_pairs, by_closure.conflicting_pairs);
  EXPECT_TRUE(every.verdict.passed()) << every.verdict.to_string();
  EXPECT_LT(by_rows.conflicting_pairs, every.conflicting_pairs);
  std::printf(
      "deps 1000 tasks: %zu units, %zu edges, %llu adjacent of %llu conflicting pairs; decode %.2f ms, check rows "
      "%.2f ms, check bfs %.2f ms, check closure %.2f ms, every pair by rows %.2f ms\n",
      boost::num_vertices(d.graph->dag), boost::num_edges(d.graph->dag),
      static_cast<unsigned long long>(by_bfs.conflicting_pairs),
      static_cast<unsigned long long>(every.conflicting_pairs), decode, rows, bfs, closure, all);
  EXPECT_LT(decode + std::min({rows, bfs, closure}), 1000.0);
}

}  // namespace
}  // namespace stackcheck::oracles
