// The orchestrator model (orchestrator_model.h) and its comparison with the real orchestrator
// (orchestrator_sut.h) on fixed call sequences: the model's predictions equal figures worked
// out by hand from RUNTIME.md §6-§9, the real orchestrator agrees step by step, and each
// deliberately wrong model is caught at the step where it goes wrong (positive controls).
#include <gtest/gtest.h>

#include <cstring>

#include <memory>
#include <vector>

#include "properties/oracles/orchestrator_sut.h"
#include "stack/runtime/image/graph_def.h"

namespace stackcheck::oracles::orch {
namespace {

namespace rt = stackcheck::runtime;

TensorOperand win(uint32_t tag, uint32_t buffer, Dims off, Dims size) {
  return TensorOperand{tag, buffer, Window{std::move(off), std::move(size)}, {}};
}
TensorOperand whole(uint32_t tag, uint32_t buffer) { return TensorOperand{tag, buffer, std::nullopt, {}}; }
ArgItem t(TensorOperand op) { return ArgItem{false, std::move(op), 0}; }
ArgItem s(uint64_t v) { return ArgItem{true, {}, v}; }
ArgItem out(Dims d) { return ArgItem{false, TensorOperand{rt::kTagOutput, 0, std::nullopt, std::move(d)}, 0}; }

std::shared_ptr<const ModelSetup> setup(ModelConfig c = {}) {
  auto s = std::make_shared<ModelSetup>();
  s->config = c;
  s->entries.push_back(EntrySpec{{8}, false, {1, -2, 3, -4, 5, -6, 7, -8}});  // b0: In [8]
  s->entries.push_back(EntrySpec{{16}, true, {}});                            // b1: InOut [16]
  // g0(input [4], inout [4]; 1 scalar): scale(input b0, output_existing b1, scalar $0).
  GraphFnSpec g;
  g.params = {{4}, {4}};
  g.tags = {rt::kTagInput, rt::kTagInout};
  g.n_scalars = 1;
  BodyNode n;
  n.kernel = 4;
  n.tensors = {BodyTensor{BodyTensor::Source::kBoundary, 0, rt::kTagInput, Window{{0}, {4}}, {}},
               BodyTensor{BodyTensor::Source::kBoundary, 1, rt::kTagOutputExisting, Window{{0}, {4}}, {}}};
  n.scalars = {BodyScalar{BodyScalar::Kind::kSlot, 0, 0}};
  g.nodes.push_back(n);
  s->graphs.push_back(g);
  for (auto& e : s->entries)
    if (e.host.empty()) e.host.assign(16, 0);
  return s;
}

// Runs the calls on the model and the real orchestrator; the first differing step (1-based)
// and its verdict, or 0 when every step and the finish agree.
struct Outcome {
  size_t failed_at = 0;
  Verdict verdict;
};
Outcome run(const std::vector<Call>& calls, ModelFlaw flaw = ModelFlaw::kNone, ModelConfig c = {}) {
  const auto su = setup(c);
  OrchestratorModel m(su, flaw);
  OrchestratorSut sut(su);
  for (size_t i = 0; i < calls.size(); ++i) {
    m.apply(calls[i]);
    const auto returned = sut.run(calls[i]);
    Verdict v = compare_step(m, sut, returned);
    if (!v.passed()) return Outcome{i + 1, v};
  }
  Verdict v = compare_finish(m, sut);
  return Outcome{v.passed() ? 0 : calls.size() + 1, v};
}

OrchestratorModel apply_all(const std::vector<Call>& calls, ModelConfig c = {}) {
  OrchestratorModel m(setup(c));
  for (const Call& call : calls) m.apply(call);
  return m;
}

// RAW, WAW, WAR: alloc a (task 0), copy a -> new (1), then a write of a: WAW on 0, WAR on 1.
const std::vector<Call> kHazards = {
    AllocTensors{{{8}}},
    Submit{1, {t(whole(rt::kTagInput, 2)), out({8})}},
    Submit{0, {t(win(rt::kTagOutputExisting, 2, {2}, {4})), s(5)}},
    ScopeEnd{},
};

TEST(OrchestratorModel, hazard_edges_as_worked_out) {
  OrchestratorModel m = apply_all({kHazards[0], kHazards[1], kHazards[2]});
  ASSERT_EQ(m.error(), 0);
  ASSERT_EQ(m.tasks().size(), 3u);
  EXPECT_EQ(m.tasks()[1].fanin, (std::vector<int32_t>{0}));     // RAW
  EXPECT_EQ(m.tasks()[2].fanin, (std::vector<int32_t>{0, 1}));  // WAW on 0, WAR on 1
  EXPECT_EQ(m.last().edges[static_cast<int>(EdgeKind::kWar)], 1u);
  // Heap: a at 0 (32 B -> 64), the copy's output at 1024 (tensors align to 1024).
  EXPECT_EQ(m.buffers()[2].base, kTaskHeapBase);
  EXPECT_EQ(m.buffers()[3].base, kTaskHeapBase + 1024);
  EXPECT_EQ(m.heap_top(), 1024u + 64u);
  EXPECT_EQ(run(kHazards).failed_at, 0u) << run(kHazards).verdict.to_string();
}

TEST(OrchestratorModel, a_model_without_war_edges_is_caught_at_the_write) {
  const Outcome r = run(kHazards, ModelFlaw::kForgetWar);
  EXPECT_EQ(r.failed_at, 3u);
  EXPECT_EQ(r.verdict.rule, "orch-model/fanin") << r.verdict.to_string();
}

// A scope's allocations are rewound at its end, and the next allocation reuses the range.
const std::vector<Call> kRewind = {
    AllocTensors{{{8}}},    // 0 at heap 0
    ScopeBegin{},           // mark 64
    AllocTensors{{{300}}},  // 1 at 1024..2224
    ScopeEnd{},             // back to 64
    AllocTensors{{{4}}},    // 2 at 1024 again
};

TEST(OrchestratorModel, scope_end_rewinds_the_heap) {
  OrchestratorModel m = apply_all({kRewind[0], kRewind[1], kRewind[2]});
  EXPECT_EQ(m.heap_top(), 1024u + 1216u);  // 1200 B round to 1216
  m.apply(kRewind[3]);
  EXPECT_EQ(m.heap_top(), 64u);
  EXPECT_EQ(m.heap_high_water(), 2240u);
  m.apply(kRewind[4]);
  EXPECT_EQ(m.buffers().back().base, kTaskHeapBase + 1024);
  // The reused range is ordered after its earlier writer (WAW through the tensormap).
  EXPECT_EQ(m.tasks()[2].fanin, (std::vector<int32_t>{1}));
  EXPECT_EQ(run(kRewind).failed_at, 0u) << run(kRewind).verdict.to_string();
}

TEST(OrchestratorModel, a_model_without_the_rewind_is_caught_at_scope_end) {
  const Outcome r = run(kRewind, ModelFlaw::kNoHeapRewind);
  EXPECT_EQ(r.failed_at, 4u);
  EXPECT_EQ(r.verdict.rule, "orch-model/task-heap") << r.verdict.to_string();
}

// The first code wins and later calls are no-ops: 2 (heap), then fatal and a submit.
TEST(OrchestratorModel, first_code_wins_and_later_calls_are_no_ops) {
  ModelConfig c;
  c.task_heap = 2048;
  const std::vector<Call> calls = {AllocTensors{{{8}, {8}}}, AllocTensors{{{8}}}, Fatal{}, Submit{0, {out({4}), s(1)}},
                                   ScopeEnd{}};
  OrchestratorModel m = apply_all(calls, c);
  EXPECT_EQ(m.error(), 2);
  EXPECT_EQ(m.submitted(), 2u);  // the second alloc claimed its slot before the heap failed
  EXPECT_FALSE(m.tasks()[1].published);
  EXPECT_EQ(run(calls, ModelFlaw::kNone, c).failed_at, 0u) << run(calls, ModelFlaw::kNone, c).verdict.to_string();
  const Outcome r = run(calls, ModelFlaw::kLatestCodeWins, c);
  EXPECT_EQ(r.failed_at, 3u);
  EXPECT_EQ(r.verdict.rule, "orch-model/error-word") << r.verdict.to_string();
}

// Each orchestrator latch the calls can provoke, predicted and agreed (bind's codes, §13).
TEST(OrchestratorModel, every_provoked_latch_is_predicted) {
  struct Case {
    std::vector<Call> calls;
    ModelConfig config;
    int32_t code;
  };
  ModelConfig small_w, small_tm, small_scope;
  small_w.W = 4;
  small_tm.tensormap_capacity = 3;
  small_scope.scope_tasks_capacity = 2;
  const Submit fill{0, {out({4}), s(1)}};
  const std::vector<Case> cases = {
      {{ScopeEnd{}, ScopeEnd{}}, {}, 1},
      {std::vector<Call>(64, ScopeBegin{}), {}, 1},
      {{AllocTensors{{{8}}}, AllocTensors{{{8}}}}, ModelConfig{16, 1024, 1 << 20, 65536, 0, 24}, 2},
      {{fill, fill, fill, fill, fill}, small_w, 3},
      {{Submit{1, {t(win(rt::kTagInput, 0, {6}, {4})), out({4})}}}, {}, 5},
      {{Submit{0, {s(1), t(whole(rt::kTagOutputExisting, 1))}}}, {}, 5},
      {{Submit{2, std::vector<ArgItem>(33, t(whole(rt::kTagInput, 0)))}}, {}, 5},
      {{Read{0, {8}, whole(rt::kTagOutputExisting, 1)}}, {}, 5},
      {{SubmitGraph{0, {t(whole(rt::kTagInput, 0))}}}, {}, 5},  // a window of the wrong shape
      {{SyncStart{25}}, {}, 7},
      {{WaitTensor{0}}, {}, 8},
      {{Fatal{}}, {}, 9},
      {{fill, fill, fill}, small_scope, 10},
      {{fill, fill, fill, fill}, small_tm, 11},  // one range each: the fourth passes 3
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const OrchestratorModel m = apply_all(cases[i].calls, cases[i].config);
    EXPECT_EQ(m.error(), cases[i].code);
    const Outcome r = run(cases[i].calls, ModelFlaw::kNone, cases[i].config);
    EXPECT_EQ(r.failed_at, 0u) << r.verdict.to_string();
  }
  // Fanin over 128 (§7): 129 single-element writers, then one reader of all of them.
  ModelConfig big;
  big.W = 256;
  auto su = setup(big);
  auto wide_setup = std::make_shared<ModelSetup>(*su);
  wide_setup->entries[1] = EntrySpec{{160}, true, std::vector<int32_t>(160, 0)};
  std::vector<Call> many;
  for (int64_t e = 0; e < 129; ++e) many.push_back(Submit{0, {t(win(rt::kTagOutputExisting, 1, {e}, {1})), s(1)}});
  many.push_back(Submit{1, {t(whole(rt::kTagInput, 1)), out({160})}});
  OrchestratorModel m(wide_setup);
  OrchestratorSut sut(wide_setup);
  for (const Call& call : many) {
    m.apply(call);
    const auto returned = sut.run(call);
    ASSERT_TRUE(compare_step(m, sut, returned).passed()) << compare_step(m, sut, returned).to_string();
  }
  EXPECT_EQ(m.error(), 4);
}

// A graph recorded once and replayed: the outer tasks' fanin from the boundary, the definition
// (one node, its slot scalar), the graph-heap block of 32 + 104 + 2 x 64 + 8 B, rounded to 64.
TEST(OrchestratorModel, graph_record_and_replay) {
  const std::vector<Call> calls = {
      SubmitGraph{0, {t(win(rt::kTagInput, 0, {0}, {4})), t(win(rt::kTagInout, 1, {0}, {4})), s(3)}},
      SubmitGraph{0, {t(win(rt::kTagInput, 0, {4}, {4})), t(win(rt::kTagInout, 1, {0}, {4})), s(5)}},
  };
  OrchestratorModel m = apply_all(calls);
  ASSERT_EQ(m.error(), 0);
  ASSERT_EQ(m.defs().size(), 1u);
  EXPECT_EQ(m.defs()[0].block_bytes(), 32u + 104u + 128u + 8u);
  EXPECT_EQ(m.graph_heap_top(), 2 * 320u);
  EXPECT_EQ(m.tasks()[1].fanin, (std::vector<int32_t>{0}));  // both write b1[0:4]
  EXPECT_EQ(m.defs()[0].nodes[0].scalars, (std::vector<std::pair<uint32_t, uint64_t>>{{rt::kScalarSlot, 0}}));
  EXPECT_TRUE(m.last().graph_hit);
  EXPECT_EQ(run(calls).failed_at, 0u) << run(calls).verdict.to_string();
}

// Positive controls of the state and header checks: a scope only the model opened, a byte
// in the mirror header before finish, a segment offset or pitch finish did not write.
TEST(OrchestratorModelControl, state_and_header_checks_fail_on_a_difference) {
  const auto su = setup({});
  OrchestratorModel m(su);
  OrchestratorSut sut(su);
  ASSERT_TRUE(compare_state(m, sut).passed()) << compare_state(m, sut).to_string();
  sut.mirror().ensure(0, 128);
  sut.mirror().data()[40] = std::byte{1};
  EXPECT_EQ(compare_state(m, sut).rule, "orch-model/header");
  sut.mirror().data()[40] = std::byte{0};
  m.apply(ScopeBegin{});
  EXPECT_EQ(compare_state(m, sut).rule, "orch-model/scopes");

  rt::ImageHeader h{};
  const unsigned char magic[8] = {'S', 'T', 'K', 'I', 'M', 'G', 0, 1};
  std::memcpy(h.magic, magic, 8);
  h.version = 1;
  h.W = h.pitch = 64;
  h.image_bytes = 128 + 2785 * 64;  // §4's mirror size for W >= 64
  const uint64_t offs[7] = {128, 128 + 32 * 64, 128 + 64 * 64, 128 + 96 * 64, 128 + 97 * 64,
                            128 + 97 * 64 + 2048 * 64, 128 + 97 * 64 + 2176 * 64};
  std::memcpy(h.seg_off, offs, sizeof offs);
  EXPECT_TRUE(check_finished_header(h, 64).passed()) << check_finished_header(h, 64).to_string();
  rt::ImageHeader wrong = h;
  wrong.seg_off[4] += 64;
  EXPECT_EQ(check_finished_header(wrong, 64).rule, "orch-model/header");
  wrong = h;
  wrong.pitch = 1;
  EXPECT_EQ(check_finished_header(wrong, 64).rule, "orch-model/header");
}

}  // namespace
}  // namespace stackcheck::oracles::orch
