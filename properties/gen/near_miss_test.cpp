// Near-miss expectations worked out by hand from the grammars (near_miss.h): the byte engine
// picks the corruption (the first byte indexes the list: joined lines 0, split 1, dropped
// brace 2, extra brace 3, name twice 4, literal 5, callee 6, builtin 7, missing argument 8,
// CRLF 9, then `.gir` swap 10 / `.plan` config 10, mutate 11, tensor after statements 12,
// graph below its use 13, config value 14; then a stray token: `.gir` 11, `.plan` 15).
#include "properties/gen/near_miss.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "properties/gen/limits.h"
#include "properties/gen/production_test_util.h"
#include "properties/gen/program_gen.h"
#include "stack/codegen/codegen.h"
#include "stack/ir/printer.h"
#include "stack/passes/pipeline.h"
#include "stack/runtime/plan/printer.h"

namespace stackcheck::gen {
namespace {

using oracles::FrontEnd;

const std::string kGir =
    "kernel kacc(x: In tensor<i32>[8], a: InOut tensor<i32>[8]) -> (a) = builtin acc\n"
    "orchestration main(x: In tensor<i32>[8], c: InOut tensor<i32>[8]) {\n"
    "  if 1 < 2 {\n"
    "    t = create [8]\n"
    "    t1 = call kacc(x, t)\n"
    "  } else {\n"
    "    call kacc(x, c)\n"
    "  }\n"
    "}\n";

const std::string kPlan =
    "config W=64\n"
    "tensor x: In [16]\n"
    "graph g(a, b) {\n"
    "  submit scale(input a, output_existing b, scalar $0)\n"
    "}\n"
    "for i = 0, 2, 1 {\n"
    "  set o = i * 8\n"
    "  view v = x[o:8]\n"
    "}\n";

NearMiss gir(std::vector<uint8_t> bytes) {
  ByteChoices c(bytes);
  return near_miss_gir(c, kGir);
}
NearMiss plan(std::vector<uint8_t> bytes) {
  ByteChoices c(bytes);
  return near_miss_plan(c, kPlan);
}

void expect(const NearMiss& m, Corruption c, FrontEnd f, uint32_t line, uint32_t col, const std::string& msg,
            int code = 0) {
  EXPECT_EQ(m.corruption, c) << m.what;
  EXPECT_EQ(m.expected.stage, f);
  EXPECT_EQ(m.expected.line, line);
  EXPECT_EQ(m.expected.column, col);
  EXPECT_EQ(m.expected.message, msg);
  EXPECT_EQ(m.expected.code, code);
}

TEST(NearMiss, joined_lines_stop_at_the_second_statement) {
  const NearMiss m = gir({0, 0});
  expect(m, Corruption::kJoinLines, FrontEnd::kGirParser, 1, 81,
         "expected end of line, found 'orchestration'");  // 79 + 2
  EXPECT_EQ(m.text.substr(0, 90), kGir.substr(0, 79) + " orchestrat");
}

TEST(NearMiss, a_dropped_else_brace_runs_to_the_end) {
  // Line 8 (the else block's '}') dropped: main's own '}' closes the else, main stays open.
  expect(gir({2, 0}), Corruption::kDropBrace, FrontEnd::kGirParser, 9, 1,
         "unterminated block: expected '}' before end of input");
}

TEST(NearMiss, an_extra_brace_closes_main_early) {
  // A '}' before line 7 closes the else; line 8 closes main; line 10's '}' is at top level.
  expect(gir({3, 6}), Corruption::kExtraBrace, FrontEnd::kGirParser, 10, 1,
         "expected 'kernel', 'graph' or 'orchestration', found '}'");
}

TEST(NearMiss, two_to_the_63_is_out_of_range_unless_negated) {
  const NearMiss m = gir({5, 0, 1});
  expect(m, Corruption::kLiteralRange, FrontEnd::kGirParser, 1, 31,
         "integer literal 9223372036854775808 out of range (max 9223372036854775807)");
}

TEST(NearMiss, a_misspelt_builtin_is_well_formed_code_4_at_the_kernel) {
  const NearMiss m = gir({7, 0});
  expect(m, Corruption::kUnknownBuiltin, FrontEnd::kWellFormed, 1, 1, "", 4);
  EXPECT_NE(m.text.find("= builtin accum\n"), std::string::npos);
}

TEST(NearMiss, swapped_statements_use_a_name_before_its_definition) {
  const NearMiss m = gir({10, 0});
  expect(m, Corruption::kUseBeforeDefinition, FrontEnd::kWellFormed, 4, 23, "", 3);
}

TEST(NearMiss, plan_config_key_repeated) {
  const NearMiss m = plan({10, 0, 1});
  expect(m, Corruption::kConfigKey, FrontEnd::kPlanCheck, 1, 13, "config key 'W' repeated");
}

TEST(NearMiss, plan_entry_tensor_after_the_statements) {
  const NearMiss m = plan({12});
  expect(m, Corruption::kTensorAfterStatement, FrontEnd::kPlanParser, 9, 1,
         "entry tensors must come before graphs and statements");
}

// Plan near misses 13 and 14 (near_miss_plan.cpp), each held to the stack's `.plan` front end.
const std::string kPlanGraph =
    "tensor x: In [16]\n"
    "tensor c: InOut [8]\n"
    "graph g(a, b) {\n"
    "  submit acc(input a, inout b)\n"
    "}\n"
    "for i = 0, 2, 1 {\n"
    "  submit_graph g(input x[0:8], inout c)\n"
    "}\n";

NearMiss plan_of(const std::string& text, std::vector<uint8_t> bytes) {
  ByteChoices c(bytes);
  return near_miss_plan(c, text);
}

TEST(NearMiss, plan_graph_moved_below_its_use) {
  const NearMiss m = plan_of(kPlanGraph, {13});
  expect(m, Corruption::kGraphAfterUse, FrontEnd::kPlanParser, 4, 3, "graph 'g' used before its definition");
  EXPECT_EQ(m.text,
            "tensor x: In [16]\ntensor c: InOut [8]\nfor i = 0, 2, 1 {\n  submit_graph g(input x[0:8], inout c)\n}\n"
            "graph g(a, b) {\n  submit acc(input a, inout b)\n}\n");
  EXPECT_TRUE(oracles::check_rejected(m.text, m.expected).passed()) << m.text;
  // kPlan submits no graph: the next kind applies (a config value).
  EXPECT_EQ(plan({13}).corruption, Corruption::kConfigValue);
}

TEST(NearMiss, plan_config_value_out_of_range) {
  const NearMiss w = plan({14, 0, 0, 0});  // W, negative
  expect(w, Corruption::kConfigValue, FrontEnd::kPlanCheck, 1, 8, "config W=-1 is not a power of two in [4, 2^19]");
  EXPECT_EQ(w.text.substr(0, 12), "config W=-1\n");
  const NearMiss k = plan({14, 6, 2, 0});  // workers past 256, added to the line
  expect(k, Corruption::kConfigValue, FrontEnd::kPlanCheck, 1, 13, "config workers=257 is not in [1, 256]");
  const NearMiss z = plan_of(kPlanGraph, {14, 8, 1});  // clusters 0, on a new first line
  expect(z, Corruption::kConfigValue, FrontEnd::kPlanCheck, 1, 8, "config clusters=0 is not in [1, 65536]");
  const NearMiss p = plan({14, 0, 3});  // W in range, not a power of two
  expect(p, Corruption::kConfigValue, FrontEnd::kPlanCheck, 1, 8, "config W=48 is not a power of two in [4, 2^19]");
  for (const NearMiss* m : {&w, &k, &z, &p})
    EXPECT_TRUE(oracles::check_rejected(m->text, m->expected).passed())
        << m->text << oracles::check_rejected(m->text, m->expected).to_string();
}

TEST(NearMiss, a_stray_paren_before_a_statement_is_no_statement) {
  // The second candidate line (`t = create [8]`), a punctuation token, the first: '('.
  const NearMiss m = gir({11, 1, 0, 0});
  expect(m, Corruption::kStrayToken, FrontEnd::kGirParser, 4, 5, "expected a statement, found '('");
  EXPECT_NE(m.text.find("    ( t = create [8]\n"), std::string::npos) << m.text;
}

TEST(NearMiss, a_stray_byte_in_a_graph_body_is_the_lexers) {
  // The first candidate line (the graph's `submit`), a byte, the first: 0x01.
  const NearMiss m = plan({15, 0, 2, 0});
  expect(m, Corruption::kStrayToken, FrontEnd::kPlanParser, 4, 3, "unexpected byte 0x01");
}

TEST(NearMiss, a_stray_bang_is_named_by_each_lexer) {
  // A character, the 12th of the list: '!' (a .gir lexer suggests '!=').
  expect(gir({11, 0, 1, 11}), Corruption::kStrayToken, FrontEnd::kGirParser, 3, 3,
         "unexpected '!' (did you mean '!='?)");
  expect(plan({15, 1, 1, 11}), Corruption::kStrayToken, FrontEnd::kPlanParser, 6, 1, "unexpected character '!'");
}

// The limits of the near misses (limits.h): cases drawn as the NearMiss properties draw them, a
// third each from a generated program's text, the same program compiled and printed as a plan,
// and a plan of corpus/plans; the productions read from the near miss against its valid text.
std::vector<std::string> corpus_plans() {
  std::vector<std::string> texts;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(STACKCHECK_SOURCE_DIR) / "corpus/plans"))
    if (e.path().extension() == ".plan") {
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      texts.push_back(text.str());
    }
  std::sort(texts.begin(), texts.end());
  return texts;
}

std::map<std::string, int> near_miss_counts(int n) {
  static const std::vector<std::string> corpus = corpus_plans();
  return count_productions(n, [](ChoiceSource& c, int i) {
    std::string valid;
    if (i % 3 == 2) {
      valid = c.pick(corpus);
    } else {
      const ir::Program p = generate_program(c).program;
      if (i % 3 == 0) {
        valid = ir::print_program(p);
      } else {
        const passes::PipelineResult legal = passes::default_pipeline().run(p);
        if (!legal.ok()) return std::set<std::string>{};
        const codegen::CodegenResult cg = codegen::generate_orchestration(legal.program);
        if (!cg.ok) return std::set<std::string>{};
        valid = runtime::print_plan(cg.program);
      }
    }
    const bool gir = i % 3 == 0;
    return near_miss_productions(gir, valid, gir ? near_miss_gir(c, valid) : near_miss_plan(c, valid));
  });
}

TEST(GenLimits, near_misses_reach_every_production) {
  const int n = 3000;
  expect_every_production("near misses", n, near_miss_production_universe(), near_miss_counts(n));
}

TEST(GenLimitsControl, a_near_miss_production_nobody_makes_is_reported) {
  expect_control_reports(near_miss_production_universe(), near_miss_counts(150));
}

}  // namespace
}  // namespace stackcheck::gen
