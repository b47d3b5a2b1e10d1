// Walkers (ir/walk.h): statement order, places and list events, skipping, mutable walks
// (editing visited statements and the list just left), invoke_of, expression order, and
// nesting far deeper than any recursion could take: thousands of levels walked on a thread
// whose stack is small enough that a recursive walk of the same program dies (that death
// is checked too, so the deep tests could fail).
#include "stack/ir/walk.h"

#include "stack/ir/builder.h"
#include "stack/ir/printer.h"
#include "stack/ir/testing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace stackcheck::ir {
namespace {

namespace b = build;

Program parse(const std::string& text) { return testing::parse_or_fail(text); }

// Statements named in program order: a0 .. a7, loop vars i, j, with an if/else between.
const char* kNested = R"(orchestration main(x: In tensor<i32>[8]) {
  a0 = 1
  for i in range(0, 2, 1) {
    a1 = i
    if a1 < 1 {
      a2 = 2
      for j in range(0, 3, 1) {
        a3 = j
      }
    } else {
      a4 = 4
    }
    a5 = 5
  }
  a6 = 6
  return
}
)";

// A statement's printable label: its name, or its kind.
std::string label(const Stmt& s) {
  switch (s.kind) {
    case Stmt::Kind::Assign:
    case Stmt::Kind::For: return s.name;
    case Stmt::Kind::If: return "if";
    case Stmt::Kind::Invoke: return "invoke";
    case Stmt::Kind::Return: return "return";
  }
  return "?";
}

TEST(Walk, statements_in_program_order) {
  const Program p = parse(kNested);
  std::vector<std::string> seen;
  walk_statements(p.functions[0].body, [&](const Stmt& s) { seen.push_back(label(s)); });
  EXPECT_EQ(seen, (std::vector<std::string>{"a0", "i", "a1", "if", "a2", "j", "a3", "a4", "a5", "a6", "return"}));
}

TEST(Walk, places_give_depth_owner_and_position) {
  const Program p = parse(kNested);
  std::vector<std::string> seen;
  walk_statements(p.functions[0].body, [&](const Stmt& s, const Place& at) {
    const char* block = at.block == Block::Root ? "root" : at.block == Block::Body ? "body" : "else";
    seen.push_back(fmt::format("{} loops={} nest={} {} of {} in {}{}{}", label(s), at.loop_depth, at.nesting, at.index,
                               at.size, block, at.owner != nullptr ? " of " + label(*at.owner) : "",
                               at.top_level() && at.last() ? " (last top-level)" : ""));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "a0 loops=0 nest=0 0 of 4 in root",
                      "i loops=0 nest=0 1 of 4 in root",
                      "a1 loops=1 nest=1 0 of 3 in body of i",
                      "if loops=1 nest=1 1 of 3 in body of i",
                      "a2 loops=1 nest=2 0 of 2 in body of if",
                      "j loops=1 nest=2 1 of 2 in body of if",
                      "a3 loops=2 nest=3 0 of 1 in body of j",
                      "a4 loops=1 nest=2 0 of 1 in else of if",
                      "a5 loops=1 nest=1 2 of 3 in body of i",
                      "a6 loops=0 nest=0 2 of 4 in root",
                      "return loops=0 nest=0 3 of 4 in root (last top-level)",
                  }));
}

// Records every event of a walk.
struct EventLog {
  std::vector<std::string> events;
  void enter_block(const std::vector<Stmt>& list, const Place& at) {
    events.push_back("enter " + where(at) + " size=" + std::to_string(list.size()));
  }
  void leave_block(const std::vector<Stmt>&, const Place& at) { events.push_back("leave " + where(at)); }
  void visit(const Stmt& s, const Place&) { events.push_back(label(s)); }
  static std::string where(const Place& at) {
    if (at.owner == nullptr) return "root";
    return label(*at.owner) + (at.block == Block::Else ? ".else" : ".body");
  }
};

TEST(Walk, list_events_nest_like_scopes) {
  const Program p = parse(kNested);
  EventLog log;
  walk_statements(p.functions[0].body, log);
  // The else-block opens only after the then-block has been left; an if without else and an
  // empty body still get their (empty) list events.
  EXPECT_EQ(log.events, (std::vector<std::string>{"enter root size=4",
                                                  "a0",
                                                  "i",
                                                  "enter i.body size=3",
                                                  "a1",
                                                  "if",
                                                  "enter if.body size=2",
                                                  "a2",
                                                  "j",
                                                  "enter j.body size=1",
                                                  "a3",
                                                  "leave j.body",
                                                  "leave if.body",
                                                  "enter if.else size=1",
                                                  "a4",
                                                  "leave if.else",
                                                  "a5",
                                                  "leave i.body",
                                                  "a6",
                                                  "return",
                                                  "leave root"}));
  EventLog bare;
  const Program empty_if = parse("orchestration m() {\n  if 1 < 2 {\n  }\n}\n");
  walk_statements(empty_if.functions[0].body, bare);
  EXPECT_EQ(bare.events, (std::vector<std::string>{"enter root size=1", "if", "enter if.body size=0", "leave if.body",
                                                   "enter if.else size=0", "leave if.else", "leave root"}));
}

TEST(Walk, visit_returning_false_skips_nested_lists) {
  const Program p = parse(kNested);
  std::vector<std::string> seen;
  walk_statements(p.functions[0].body, [&](const Stmt& s) {
    seen.push_back(label(s));
    return s.kind != Stmt::Kind::If;  // do not enter ifs
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a0", "i", "a1", "if", "a5", "a6", "return"}));
}

TEST(Walk, list_only_visitor) {
  const Program p = parse(kNested);
  struct Sizes {
    std::vector<size_t> sizes;
    void leave_block(const std::vector<Stmt>& list, const Place&) { sizes.push_back(list.size()); }
  } sizes;
  walk_statements(p.functions[0].body, sizes);
  EXPECT_EQ(sizes.sizes, (std::vector<size_t>{1, 2, 1, 3, 4}));  // j, if, else, i, root
}

TEST(Walk, mutable_walk_edits_statements_and_left_lists) {
  Program p = parse(kNested);
  // Renames every assignment and, once a list is left, appends a marker statement to it: a
  // list is complete when it is left, so editing it then cannot disturb the walk.
  struct Editor {
    int marks = 0;
    void visit(Stmt& s, const MutablePlace&) {
      if (s.kind == Stmt::Kind::Assign) s.name += "_x";
    }
    void leave_block(std::vector<Stmt>& list, const MutablePlace& at) {
      if (at.owner != nullptr) list.push_back(b::let("m" + std::to_string(marks++), b::lit(0)));
    }
  } editor;
  walk_statements(p.functions[0].body, editor);
  EXPECT_EQ(editor.marks, 4);
  EXPECT_EQ(print_program(p), print_program(parse(R"(orchestration main(x: In tensor<i32>[8]) {
  a0_x = 1
  for i in range(0, 2, 1) {
    a1_x = i
    if a1 < 1 {
      a2_x = 2
      for j in range(0, 3, 1) {
        a3_x = j
        m0 = 0
      }
      m1 = 0
    } else {
      a4_x = 4
      m2 = 0
    }
    a5_x = 5
    m3 = 0
  }
  a6_x = 6
  return
}
)")));
}

TEST(Walk, invoke_of_finds_calls_and_submits) {
  const Program p = parse(R"(kernel k(x: In tensor<i32>[8], o: InOut tensor<i32>[8]) -> (o) = builtin acc
orchestration main(x: In tensor<i32>[8], o: InOut tensor<i32>[8]) {
  call k(x, o)
  o1 = call k(x, o)
  r = submit k(x, o)
  v = 3
  return
}
)");
  const std::vector<Stmt>& body = p.functions[1].body;
  ASSERT_NE(invoke_of(body[0]), nullptr);
  EXPECT_EQ(invoke_of(body[0]), &body[0].invoke);
  ASSERT_NE(invoke_of(body[1]), nullptr);
  EXPECT_FALSE(invoke_of(body[1])->submit);
  EXPECT_EQ(invoke_of(body[1])->args.size(), 2u);
  ASSERT_NE(invoke_of(body[2]), nullptr);
  EXPECT_TRUE(invoke_of(body[2])->submit);
  EXPECT_EQ(invoke_of(body[3]), nullptr);
  EXPECT_EQ(invoke_of(body[4]), nullptr);
  Stmt s = body[1];
  invoke_of(s)->callee = "other";
  EXPECT_EQ(std::get<InvokeRhs>(s.rhs).invoke.callee, "other");
}

TEST(Walk, expressions_of_each_statement_in_source_order) {
  const Program p = parse(R"(kernel k(x: In tensor<i32>[8], o: InOut tensor<i32>[8], s: In i64) -> (o) = builtin scale
orchestration main(x: In tensor<i32>[8], o: InOut tensor<i32>[8]) {
  e = 1 + 2
  call k(x, o, 3)
  t = create [4, 5]
  f = full [6], 7
  v = slice(x, [8], [4])
  w = assemble(o, v, [9])
  for i in range(10, 11, 12) {
    if i < 13 {
    }
  }
  return
}
)");
  std::vector<std::string> seen;
  walk_statements(p.functions[1].body, [&](const Stmt& s) {
    std::string line = label(s) + ":";
    for_each_expr(s, [&](const Expr& e) { line += " " + print_expr(e); });
    seen.push_back(line);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"e: 1 + 2", "invoke: x o 3", "t: 4 5", "f: 6 7", "v: 8", "w: 9",
                                            "i: 10 11 12", "if: i 13", "return:"}));
}

TEST(Walk, subexpressions_pre_order_and_mutable) {
  Expr e = b::add(b::mul(b::var("a"), b::read("x", {b::var("b"), b::lit(1)})), b::dim("x", 0));
  std::vector<std::string> seen;
  for_each_subexpr(static_cast<const Expr&>(e), [&](const Expr& x) { seen.push_back(print_expr(x)); });
  EXPECT_EQ(seen, (std::vector<std::string>{"a * read(x, [b, 1]) + dim(x, 0)", "a * read(x, [b, 1])", "a",
                                            "read(x, [b, 1])", "b", "1", "dim(x, 0)"}));
  for_each_subexpr(e, [](Expr& x) {
    if (x.kind == Expr::Kind::Var) x.name += "2";
  });
  EXPECT_EQ(print_expr(e), "a2 * read(x, [b2, 1]) + dim(x, 0)");
}

// ---- deep nesting --------------------------------------------------------------------

using testing::dismantle;
using testing::kDeepNesting;
using testing::nest_in_loops;
using testing::on_small_stack;

constexpr size_t kDepth = kDeepNesting;

// kDepth nested loops `for iK in range(0, 1, 1) { ... }` around `leaf = 1`.
std::vector<Stmt> deep_loops() {
  std::vector<Stmt> leaf;
  leaf.push_back(b::let("leaf", b::lit(1)));
  return nest_in_loops(std::move(leaf), kDepth);
}

// The recursive walk the walkers replace, with a frame no optimizer can shrink away.
size_t recursive_count(const std::vector<Stmt>& body) {
  volatile char frame[64] = {};
  size_t n = frame[0];
  for (const Stmt& s : body) n += 1 + recursive_count(s.body) + recursive_count(s.else_body);
  return n + frame[63];
}

TEST(WalkDeathTest, recursive_walk_overflows_the_small_stack) {
  // The positive control of the deep tests: at this depth and stack size recursion dies.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::vector<Stmt> body = deep_loops();
        size_t n = 0;
        on_small_stack([&] { n = recursive_count(body); });
        fprintf(stderr, "counted %zu\n", n);  // not reached
      },
      "");
}

TEST(Walk, deep_nesting_does_not_overflow) {
  std::vector<Stmt> body = deep_loops();
  size_t statements = 0, max_depth = 0, lists = 0;
  std::string leaf_owner;
  on_small_stack([&] {
    walk_statements(static_cast<const std::vector<Stmt>&>(body), [&](const Stmt& s, const Place& at) {
      ++statements;
      max_depth = std::max<size_t>(max_depth, at.loop_depth);
      if (s.kind == Stmt::Kind::Assign) leaf_owner = at.owner != nullptr ? at.owner->name : "";
    });
    struct Lists {
      size_t& n;
      void leave_block(std::vector<Stmt>&, const MutablePlace&) { ++n; }
      void visit(Stmt& s, const MutablePlace&) { s.name += "'"; }
    } mutable_walk{lists};
    walk_statements(body, mutable_walk);
  });
  EXPECT_EQ(statements, kDepth + 1);
  EXPECT_EQ(max_depth, kDepth);
  EXPECT_EQ(leaf_owner, "i" + std::to_string(kDepth - 1));
  EXPECT_EQ(lists, kDepth + 1);
  EXPECT_EQ(body[0].name, "i0'");
  dismantle(body);
}

TEST(Walk, deep_expression_does_not_overflow) {
  Expr e = b::var("v");
  for (size_t k = 0; k < kDepth; ++k) e = b::add(std::move(e), b::lit(static_cast<int64_t>(k)));
  size_t nodes = 0, vars = 0;
  on_small_stack([&] {
    for_each_subexpr(static_cast<const Expr&>(e), [&](const Expr&) { ++nodes; });
    for_each_subexpr(e, [&](Expr& x) {
      if (x.kind == Expr::Kind::Var) {
        x.name = "w";
        ++vars;
      }
    });
  });
  EXPECT_EQ(nodes, 2 * kDepth + 1);
  EXPECT_EQ(vars, 1u);
  dismantle(e);
}

}  // namespace
}  // namespace stackcheck::ir
