// The rule catalog's families against what they break. The `.plan` family (breakers/
// plan_edit.h) against runtime/plan/check.cpp: every entry, on corpus plans, gives a plan the
// check refuses with the entry's own message (and an at-limit twin it accepts), and every
// message the check can give is the message of some entry, or is listed below with the reason
// it has none. The fatal-latch family (breakers/latch_edit.h) against status/codes.h: every
// orchestrator code that is not retired has an entry. The graph-definition family
// (breakers/graph_def_edit.h) against runtime/image/graph_def_validate.inl: every refusal has a
// forge. A rule added without an entry fails here.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "properties/gen/breakers/graph_def_edit.h"
#include "properties/gen/breakers/plan_edit.h"
#include "properties/gen/plan_builder.h"
#include "properties/gen/random_bytes_test_util.h"
#include "stack/runtime/plan/check.h"
#include "stack/runtime/plan/parser.h"
#include "stack/runtime/status/codes.h"

namespace stackcheck::gen {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::filesystem::path kRoot(STACKCHECK_SOURCE_DIR);

std::vector<runtime::OrchProgram> corpus_plans() {
  std::vector<runtime::OrchProgram> out;
  for (const char* name : {"example.plan", "loops_views.plan", "graph_two_submissions.plan", "hazards_dag.plan"}) {
    runtime::PlanParseResult r = runtime::parse_plan(read(kRoot / "corpus/plans" / name));
    EXPECT_TRUE(r.ok()) << name;
    if (r.ok()) out.push_back(r.program());
  }
  return out;
}

// Every message each entry gives, over the corpus plans and 40 choice sequences each.
std::map<PlanRule, std::set<std::string>> messages_by_rule() {
  std::map<PlanRule, std::set<std::string>> out;
  std::mt19937_64 rng(20261206);
  const std::vector<runtime::OrchProgram> plans = corpus_plans();
  for (const breakers::PlanRuleEntry& entry : breakers::plan_rule_catalog())
    for (const runtime::OrchProgram& valid : plans)
      for (int i = 0; i < 40; ++i) {
        const std::vector<uint8_t> bytes = random_bytes(rng, 256);
        ByteChoices c(bytes);
        const std::optional<BrokenPlan> b = break_plan_rule(c, valid, entry.rule);
        if (!b) continue;
        const std::optional<runtime::PlanError> err = runtime::validate_plan(b->plan);
        EXPECT_TRUE(err.has_value()) << entry.name;
        if (!err) continue;
        EXPECT_EQ(err->message, b->expected) << entry.name;
        if (b->at_limit) EXPECT_EQ(runtime::validate_plan(*b->at_limit), std::nullopt) << entry.name << ": " << b->limit;
        out[entry.rule].insert(err->message);
      }
  return out;
}

TEST(PlanCatalog, every_entry_breaks_its_rule_with_its_message) {
  const auto by_rule = messages_by_rule();
  for (const breakers::PlanRuleEntry& entry : breakers::plan_rule_catalog()) {
    EXPECT_EQ(plan_rule_name(entry.rule), std::string(entry.name));
    EXPECT_TRUE(by_rule.count(entry.rule)) << entry.name << " never broke its rule on the corpus plans";
  }
}

// The messages of check.cpp no entry gives, each with why.
const std::map<std::string, std::string> kNoEntry = {
    {"unknown config key '{}'", "config lines: the parser's (RuntimeProps' config cases), not a body's rule"},
    {"config key '{}' repeated", "config lines: the parser's (RuntimeProps' config cases), not a body's rule"},
    {"bad graph name '{}'", "gap: no entry names a graph with a keyword yet (keyword-name covers body names)"},
    {"graph '{}' used before its definition",
     "gap: no entry submits, from a graph body, a graph defined after it (a new rule shifts the rule draw "
     "of every saved plan input, so it waits for the next change of the choice sequence)"},
    {"unknown builtin", "a Builtin value past the enum: no generated plan can hold one"},
};
// The fail() calls whose message is not a literal: each is followed where it is built.
const std::set<std::string> kComputed = {"*why", "graph_used_before_definition(n.graph)", "std::string msg"};

// The message formats of check.cpp's fail() calls, as written.
std::vector<std::string> check_formats(std::set<std::string>& computed) {
  const std::string src = read(kRoot / "stack/runtime/plan/check.cpp");
  std::vector<std::string> out;
  const std::regex call(R"re(fail\([^,]*,\s*(fmt::format\(\s*"((?:[^"\\]|\\.)*)"|"((?:[^"\\]|\\.)*)"|([^;]*?)\)(?:,|;|\s*\{)))re");
  for (auto it = std::sregex_iterator(src.begin(), src.end(), call); it != std::sregex_iterator(); ++it) {
    if ((*it)[2].matched) out.push_back((*it)[2]);
    else if ((*it)[3].matched) out.push_back((*it)[3]);
    else computed.insert((*it)[4]);
  }
  // graph_used_before_definition's format, where it is built.
  const std::regex built(R"re(graph_used_before_definition\(std::string_view graph\) \{\s*return fmt::format\("([^"]*)")re");
  std::smatch m;
  if (std::regex_search(src, m, built)) out.push_back(m[1]);
  return out;
}

// A format string as a pattern: each {...} field matches any text.
std::regex as_pattern(const std::string& format) {
  std::string re;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && format.find('}', i) != std::string::npos) {
      re += ".+";
      i = format.find('}', i);
    } else if (std::string("\\^$.|?*+()[]{}").find(format[i]) != std::string::npos) {
      re += std::string("\\") + format[i];
    } else {
      re += format[i];
    }
  }
  return std::regex(re);
}

// Every message format read from `source` is matched by a message the catalog's entries gave,
// unless `no_entry` says why none can; and every format `no_entry` excuses is still in the source.
void expect_formats_given(const std::vector<std::string>& formats, const std::set<std::string>& given,
                          const std::map<std::string, std::string>& no_entry, const char* source) {
  for (const std::string& f : formats) {
    if (no_entry.count(f)) continue;
    const std::regex re = as_pattern(f);
    bool found = false;
    for (const std::string& m : given) found = found || std::regex_match(m, re);
    EXPECT_TRUE(found) << "no catalog entry gives " << source << "'s \"" << f << "\"";
  }
  for (const auto& [f, why] : no_entry)
    EXPECT_NE(std::find(formats.begin(), formats.end(), f), formats.end()) << f << " is gone from " << source;
}

TEST(PlanCatalog, every_message_of_the_check_has_an_entry) {
  std::set<std::string> computed;
  const std::vector<std::string> formats = check_formats(computed);
  ASSERT_GE(formats.size(), 20u) << "check.cpp's fail() calls were not read";
  EXPECT_EQ(computed, kComputed) << "a fail() message not written as a literal: follow it to its format";
  std::set<std::string> given;
  for (const auto& [rule, msgs] : messages_by_rule()) given.insert(msgs.begin(), msgs.end());
  expect_formats_given(formats, given, kNoEntry, "check.cpp");
}

// The control: a check message no entry gives must be reported (the matcher is not blind).
TEST(PlanCatalogControl, a_message_no_entry_gives_is_found_missing) {
  std::set<std::string> given;
  for (const auto& [rule, msgs] : messages_by_rule()) given.insert(msgs.begin(), msgs.end());
  const std::regex missing = as_pattern("graph '{}' has {} tensors");
  bool found = false;
  for (const std::string& m : given) found = found || std::regex_match(m, missing);
  EXPECT_FALSE(found);
  const std::regex present = as_pattern("undefined name '{}'");
  found = false;
  for (const std::string& m : given) found = found || std::regex_match(m, present);
  EXPECT_TRUE(found);
}

// The graph-definition family (breakers/graph_def_edit.h) against the definition validator
// (runtime/image/graph_def_validate.inl): every message it can return is the refusal of some
// entry's forge, or is listed with why it has none.
const std::map<std::string, std::string> kGraphDefNoEntry = {
    {"definition shorter than its header", "a forge keeps the buffer's length (fuzz_attach's truncations meet it)"},
    {"definition larger than INT32_MAX", "it needs a 2 GiB buffer; total_bytes past the buffer is refused first"},
};

std::vector<std::string> validator_formats() {
  const std::string src = read(kRoot / "stack/runtime/image/graph_def_validate.inl");
  std::vector<std::string> out;
  const std::regex ret(R"re(return (?:std::string|fmt::format)\(\s*"((?:[^"\\]|\\.)*)")re");
  for (auto it = std::sregex_iterator(src.begin(), src.end(), ret); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(GraphDefCatalog, every_refusal_of_the_validator_has_an_entry) {
  const std::vector<std::string> formats = validator_formats();
  ASSERT_GE(formats.size(), 25u) << "graph_def_validate.inl's messages were not read";
  std::set<std::string> given;
  std::mt19937_64 rng(20261206);
  for (int i = 0; i < 40; ++i) {
    const std::vector<uint8_t> bytes = random_bytes(rng, 4096);
    ByteChoices c(bytes);
    const std::vector<std::byte> good = runtime::encode_graph_def(breakers::draw_graph_def_spec(c));
    ASSERT_EQ(runtime::validate_graph_def_bytes(good, nullptr), std::nullopt);
    for (const breakers::GraphDefRuleEntry& entry : breakers::graph_def_rule_catalog()) {
      const int kind = static_cast<int>(&entry - breakers::graph_def_rule_catalog().data());
      const std::vector<uint8_t> fb = random_bytes(rng, 64);
      ByteChoices fc(fb);
      const std::optional<breakers::Forged> f = breakers::forge_graph_def(fc, good, kind);
      if (!f) continue;
      EXPECT_EQ(f->rule, entry.name);
      const std::optional<std::string> why = runtime::validate_graph_def_bytes(f->bytes, nullptr);
      ASSERT_TRUE(why.has_value()) << entry.name << ": " << f->edit;
      EXPECT_TRUE(std::regex_match(*why, std::regex(f->pattern))) << entry.name << ": " << *why;
      given.insert(*why);
    }
  }
  expect_formats_given(formats, given, kGraphDefNoEntry, "graph_def_validate.inl");
}

// The fatal-latch family (breakers/latch_edit.h): the orchestrator codes (below 100) that are
// not retired and have no entry; an entry of a code that is not one is reported too.
std::vector<std::string> latch_gaps(std::span<const int32_t> codes,
                                    std::span<const plan_detail::PlanBuilder::LatchEntry> catalog) {
  std::vector<std::string> out;
  for (int32_t code : codes) {
    if (code <= 0 || code >= 100 || runtime::code_class(code) == runtime::CodeClass::kRetired) continue;
    bool has = false;
    for (const auto& e : catalog) has = has || e.code == code;
    if (!has) out.push_back(fmt::format("code {} ({}) has no entry", code, runtime::code_name(code)));
  }
  for (const auto& e : catalog) {
    if (runtime::code_name(e.code) != e.name) out.push_back(fmt::format("entry {} is named {}", e.code, e.name));
    if (e.plant == nullptr) out.push_back(fmt::format("entry {} plants nothing", e.code));
  }
  return out;
}

TEST(LatchCatalog, every_orchestrator_code_has_an_entry) {
  EXPECT_EQ(latch_gaps(runtime::all_codes(), plan_detail::PlanBuilder::latch_catalog()), std::vector<std::string>{});
  // Each entry, planted alone, is what the generator records.
  std::mt19937_64 rng(61206);
  for (const auto& e : plan_detail::PlanBuilder::latch_catalog())
    for (int i = 0; i < 20; ++i) {
      const std::vector<uint8_t> bytes = random_bytes(rng, 512);
      ByteChoices c(bytes);
      PlanKnobs k;
      k.planted_percent = 100;
      k.planted_code = e.code;
      EXPECT_EQ(generate_plan(c, k).planted, e.code) << e.name;
    }
}

// The control: a code the runtime had and the catalog lacked, and a misnamed entry, are found.
TEST(LatchCatalogControl, a_code_without_an_entry_is_reported) {
  const std::vector<int32_t> codes = {1, 6, 12};
  const plan_detail::PlanBuilder::LatchEntry one[] = {{1, "SCOPE_DEADLOCK", nullptr}};
  const std::vector<std::string> gaps = latch_gaps(codes, one);
  ASSERT_EQ(gaps.size(), 2u);  // 6 is retired; 12 is missing; entry 1 plants nothing
  EXPECT_EQ(gaps[0], "code 12 (UNKNOWN(12)) has no entry");
  EXPECT_EQ(gaps[1], "entry 1 plants nothing");
}

}  // namespace
}  // namespace stackcheck::gen
