// The IR rule families against the codes the stack's verifiers can give (COMPILER.md §4):
// every WellFormed code of verify/well_formed/internal.h is broken, on the corpus programs,
// by break_well_formed_rule with that code as the first diagnostic, and every
// GraphBoundaryLegalized code the verifier reports (graph_boundary_legalized.cpp) by
// break_graph_rule, and every code of OrchestrationCodegen (codegen.h) on some breaker's
// program; a code without a breaker is listed below with the reason, so a code added to a
// verifier or to codegen without one fails here. The codes come from the sources, not from
// this file.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "properties/gen/ir_breaker.h"
#include "properties/gen/program_gen.h"
#include "properties/gen/random_bytes_test_util.h"
#include "stack/codegen/codegen.h"
#include "stack/ir/parser.h"
#include "stack/passes/pipeline.h"
#include "stack/verify/graph_boundary_legalized.h"
#include "stack/verify/well_formed.h"

namespace stackcheck::gen {
namespace {

const std::filesystem::path kRoot(STACKCHECK_SOURCE_DIR);

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The values of `enum Code : int { kName = N, ... }` in a source file.
std::set<int> enum_codes(const std::string& src) {
  std::set<int> out;
  const size_t at = src.find("enum Code : int {");
  if (at == std::string::npos) return out;
  const std::string body = src.substr(at, src.find("};", at) - at);
  const std::regex value(R"re(\bk\w+ = (\d+))re");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), value); it != std::sregex_iterator(); ++it)
    out.insert(std::stoi((*it)[1]));
  return out;
}

// The literal codes a verifier passes to its report(CODE, ...).
std::set<int> reported_codes(const std::string& src) {
  std::set<int> out;
  const std::regex call(R"re(report\((\d+),)re");
  for (auto it = std::sregex_iterator(src.begin(), src.end(), call); it != std::sregex_iterator(); ++it)
    out.insert(std::stoi((*it)[1]));
  return out;
}

// The corpus programs and 40 generated ones (all well-formed).
std::vector<ir::Program> corpus_programs() {
  std::vector<ir::Program> out;
  std::mt19937_64 rng(1306);
  for (int i = 0; i < 40; ++i) {
    const std::vector<uint8_t> bytes = random_bytes(rng, 4096);
    ByteChoices c(bytes);
    out.push_back(generate_program(c).program);
  }
  for (const char* name : {"example.gir", "decode_layers.gir"}) {
    ir::ParseResult r = ir::parse_program(read(kRoot / "corpus/programs" / name));
    EXPECT_TRUE(r.ok()) << name;
    if (r.ok()) out.push_back(r.program());
  }
  return out;
}

// The first-diagnostic codes break_well_formed_rule gives when asked for `code`.
std::set<int> well_formed_codes_given(int code) {
  std::set<int> out;
  std::mt19937_64 rng(20261206 + code);
  for (const ir::Program& wf : corpus_programs())
    for (int i = 0; i < 4; ++i) {
      const std::vector<uint8_t> bytes = random_bytes(rng, 512);
      ByteChoices c(bytes);
      const std::optional<BrokenProgram> b = break_well_formed_rule(c, wf, code);
      if (!b) continue;
      const ir::Diagnostics d = verify::check_well_formed(b->program);
      if (!d.empty()) out.insert(d.front().code);
    }
  return out;
}

// Every code GraphBoundaryLegalized gives on break_graph_rule's programs (the corpus programs
// legalized by the default pipeline).
std::set<int> graph_codes_given() {
  std::set<int> out;
  std::mt19937_64 rng(61206);
  for (const ir::Program& p : corpus_programs()) {
    passes::PassManager pm = passes::default_pipeline();
    const passes::PipelineResult legal = pm.run(p);
    EXPECT_TRUE(legal.ok()) << legal.message;
    if (!legal.ok()) continue;
    for (int i = 0; i < 40; ++i) {
      const std::vector<uint8_t> bytes = random_bytes(rng, 512);
      ByteChoices c(bytes);
      const std::optional<BrokenProgram> b = break_graph_rule(c, legal.program);
      if (!b) continue;
      for (const ir::Diagnostic& d : verify::check_graph_boundary_legalized(b->program)) out.insert(d.code);
    }
  }
  return out;
}

// Codes a verifier can give that no breaker gives, with why.
const std::map<int, std::string> kNoBreaker = {};

TEST(IrCatalog, every_well_formed_code_has_a_breaker) {
  const std::set<int> codes = enum_codes(read(kRoot / "stack/verify/well_formed/internal.h"));
  ASSERT_EQ(codes.size(), 14u) << "verify/well_formed/internal.h's codes were not read";
  for (int code : codes) {
    if (kNoBreaker.count(code)) continue;
    const std::set<int> given = well_formed_codes_given(code);
    EXPECT_TRUE(given.count(code)) << fmt::format("WellFormed {}: break_well_formed_rule gave first codes {}", code,
                                                  fmt::join(given, ", "));
  }
}

TEST(IrCatalog, every_graph_boundary_code_has_a_breaker) {
  std::set<int> codes;
  for (const char* f : {"stack/verify/graph_boundary_legalized.cpp"})
    for (int c : reported_codes(read(kRoot / f))) codes.insert(c);
  ASSERT_GE(codes.size(), 15u) << "graph_boundary_legalized.cpp's report() codes were not read";
  const std::set<int> given = graph_codes_given();
  for (int code : codes)
    if (!kNoBreaker.count(code)) EXPECT_TRUE(given.count(code)) << "GraphBoundaryLegalized " << code << ": no breaker gives it";
}

// Every code codegen gives on the breakers' programs, run without the verifier: its own
// refusals (break_codegen_rule), its defence behind GraphBoundaryLegalized (break_graph_rule on
// legalized programs) and its lowering preconditions (break_well_formed_rule).
std::set<int> codegen_codes_given() {
  std::set<int> out;
  const auto add = [&](const ir::Program& p) {
    for (const ir::Diagnostic& d : codegen::generate_orchestration(p).diagnostics) out.insert(d.code);
  };
  std::mt19937_64 rng(80611);
  for (const ir::Program& p : corpus_programs()) {
    for (int i = 0; i < 8; ++i) {
      std::vector<uint8_t> bytes = random_bytes(rng, 512);
      ByteChoices c(bytes);
      if (const std::optional<BrokenProgram> b = break_codegen_rule(c, p)) add(b->program);
      bytes = random_bytes(rng, 512);
      ByteChoices w(bytes);
      if (const std::optional<BrokenProgram> b = break_well_formed_rule(w, p); b && b->lowering_precondition)
        add(b->program);
    }
    passes::PassManager pm = passes::default_pipeline();
    const passes::PipelineResult legal = pm.run(p);
    if (!legal.ok()) continue;
    for (int i = 0; i < 40; ++i) {
      const std::vector<uint8_t> bytes = random_bytes(rng, 512);
      ByteChoices c(bytes);
      if (const std::optional<BrokenProgram> b = break_graph_rule(c, legal.program)) add(b->program);
    }
  }
  return out;
}

TEST(IrCatalog, every_codegen_code_has_a_breaker) {
  const std::set<int> codes = enum_codes(read(kRoot / "stack/codegen/codegen.h"));
  ASSERT_GE(codes.size(), 7u) << "codegen.h's codes were not read";
  const std::set<int> given = codegen_codes_given();
  for (int code : codes)
    if (!kNoBreaker.count(code))
      EXPECT_TRUE(given.count(code)) << "OrchestrationCodegen " << code << ": no breaker's program gives it";
}

// The control: the readers find codes (a planted enum and report calls), and a code no
// breaker gives is reported missing.
TEST(IrCatalogControl, a_code_no_breaker_gives_is_found) {
  EXPECT_EQ(enum_codes("enum Code : int {\n  kA = 1,  // x\n  kB = 14,\n};"), (std::set<int>{1, 14}));
  EXPECT_EQ(reported_codes("report(201, loc, m); report(code, loc, m); report(217, l, m);"), (std::set<int>{201, 217}));
  EXPECT_TRUE(well_formed_codes_given(99).empty());  // no rule 99: nothing broken, nothing given
}

}  // namespace
}  // namespace stackcheck::gen
