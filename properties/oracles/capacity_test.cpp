// oracles/capacity.h on RUNTIME.md §17's example plan: each capacity met exactly and one past
// it with the real runtime, and the positive controls: runtimes that meet a limit one off, or
// latch another code past it, must be reported.
#include "properties/oracles/capacity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "properties/oracles/plan_model.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::oracles {
namespace {

// A verdict that fails, saying `says`.
void expect_failure_saying(const Verdict& v, std::string_view says) {
  ASSERT_TRUE(v.failed()) << v.to_string();
  EXPECT_NE(v.message.find(says), std::string::npos) << v.message;
}

// A runtime that latches code `instead` where it should latch `code`.
PlanBinder latching_instead(int code, int instead) {
  return [code, instead](const runtime::OrchProgram& q) {
    runtime::BindResult r = runtime::bind_plan(q);
    if (runtime::status_to_code(r.status) == code) r.status = -(1000 + instead);
    return r;
  };
}

// RUNTIME.md §17's example, as corpus/plans/example.plan keeps it.
std::string example_text() {
  std::ifstream in(STACKCHECK_CORPUS_DIR "/plans/example.plan", std::ios::binary);
  EXPECT_TRUE(in.good()) << STACKCHECK_CORPUS_DIR "/plans/example.plan";
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

runtime::OrchProgram plan() {
  runtime::PlanParseResult r = runtime::parse_plan(example_text());
  EXPECT_TRUE(r.ok());
  return r.program();
}

const CapacityKey& key(const std::string& name) {
  for (const CapacityKey& k : capacity_keys())
    if (k.key == name) return k;
  ADD_FAILURE() << name;
  return capacity_keys()[0];
}

uint64_t tasks(const runtime::OrchProgram& p) { return run_plan_model(p, 0).tasks.size(); }

runtime::BindResult bind(const runtime::OrchProgram& p) { return runtime::bind_plan(p); }

int64_t config(const runtime::OrchProgram& p, const std::string& k) {
  for (const runtime::ConfigEntry& e : p.config)
    if (e.key == k) return e.value;
  return -1;
}

TEST(Capacity, every_key_at_its_need_and_one_past) {
  const runtime::OrchProgram p = plan();
  for (const CapacityKey& k : capacity_keys()) {
    CapacityFinding f;
    const Verdict v = check_capacity_at_need(p, k, tasks(p), bind, &f);
    EXPECT_TRUE(v.passed()) << k.key << ": " << v.message;
    EXPECT_FALSE(f.tag.empty()) << k.key;
    ASSERT_TRUE(f.need.has_value()) << k.key;
  }
  CapacityFinding w;
  ASSERT_TRUE(check_capacity_at_need(p, key("W"), tasks(p), bind, &w).passed());
  EXPECT_EQ(*w.need, 8);  // 6 tasks (2 x alloc, acc, graph) padded to W = 8
  EXPECT_EQ(w.tag, "at+past");
}

TEST(Capacity, padding_adds_exactly_the_tasks_asked_for) {
  const runtime::OrchProgram p = plan();
  for (uint64_t k : {0, 1, 2, 9}) EXPECT_EQ(tasks(pad_with_tasks(p, k)), tasks(p) + k) << k;
  EXPECT_EQ(config(with_config(p, "W", 16), "W"), 16);
  EXPECT_EQ(config(with_config(p, "task_heap", 4096), "task_heap"), 4096);
}

// Positive control: a window that holds one task less than W (one more task than asked is
// bound) latches at the need.
TEST(Capacity, control_a_window_one_short_is_reported) {
  const runtime::OrchProgram p = plan();
  const PlanBinder one_short = [](const runtime::OrchProgram& q) {
    return runtime::bind_plan(config(q, "W") != 64 ? pad_with_tasks(q, 1) : q);
  };
  const Verdict v = check_capacity_at_need(p, key("W"), tasks(p), one_short);
  expect_failure_saying(v, "W at its need");
}

// Positive control: a task heap that fits 64 B less than it is given: the least heap that
// binds is no longer the high-water mark.
TEST(Capacity, control_a_heap_short_by_a_line_is_reported) {
  const runtime::OrchProgram p = plan();
  const PlanBinder short_heap = [](const runtime::OrchProgram& q) {
    const int64_t h = config(q, "task_heap");
    return runtime::bind_plan(h > 0 ? with_config(q, "task_heap", std::max<int64_t>(1024, h - 64)) : q);
  };
  const Verdict v = check_capacity_at_need(p, key("task_heap"), tasks(p), short_heap);
  expect_failure_saying(v, "high-water");
}

// Positive control: a runtime that latches another code when the scope task list overflows.
TEST(Capacity, control_another_code_past_the_limit_is_reported) {
  const runtime::OrchProgram p = plan();
  const PlanBinder wrong_code = latching_instead(10, 11);
  const Verdict v = check_capacity_at_need(p, key("scope_tasks_capacity"), tasks(p), wrong_code);
  expect_failure_saying(v, "one past its need");
}

}  // namespace
}  // namespace stackcheck::oracles

namespace stackcheck::oracles {
namespace {

TEST(Capacity, every_structural_limit_at_and_one_past) {
  const runtime::OrchProgram p = plan();
  for (const StructuralLimit& l : structural_limits()) {
    CapacityFinding f;
    const Verdict v = check_structural_limit(p, l, run_plan_model(p, 0).definitions, bind, &f);
    EXPECT_TRUE(v.passed()) << l.name << ": " << v.message;
    EXPECT_EQ(f.tag, "at+past") << l.name;
  }
}

}  // namespace
}  // namespace stackcheck::oracles

namespace stackcheck::oracles {
namespace {

const StructuralLimit& structural(const std::string& name) {
  for (const StructuralLimit& l : structural_limits())
    if (l.name == name) return l;
  ADD_FAILURE() << name;
  return structural_limits()[0];
}

// Positive control: a runtime that holds one open scope less than the limit (one more pair of
// scopes is bound than asked) latches at the limit.
TEST(Capacity, control_a_scope_limit_one_short_is_reported) {
  const runtime::OrchProgram p = plan();
  const PlanBinder one_short = [](const runtime::OrchProgram& q) {
    runtime::OrchProgram more = q;
    const bool deep = std::count_if(q.body.begin(), q.body.end(), [](const runtime::PlanStmt& s) {
                        return std::holds_alternative<runtime::ScopeBeginStmt>(s.node);
                      }) > 32;
    if (deep) {  // the whole body one scope deeper
      more.body.insert(more.body.begin(), runtime::PlanStmt{runtime::ScopeBeginStmt{}, {}});
      more.body.push_back(runtime::PlanStmt{runtime::ScopeEndStmt{}, {}});
    }
    return runtime::bind_plan(more);
  };
  const Verdict v = check_structural_limit(p, structural("scope-depth"), 1, one_short);
  expect_failure_saying(v, "scope-depth at its limit 64");
}

// Positive control: a runtime that latches INVALID_ARGS where a task has too many producers.
TEST(Capacity, control_another_code_past_the_fanin_limit_is_reported) {
  const runtime::OrchProgram p = plan();
  const PlanBinder wrong_code = latching_instead(4, 5);
  const Verdict v = check_structural_limit(p, structural("fanin"), 1, wrong_code);
  expect_failure_saying(v, "fanin one past its limit (129)");
}

}  // namespace
}  // namespace stackcheck::oracles
