// The one judge of a program with one IR rule broken (broken_program_judge.h).
#include "properties/broken_program_judge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "properties/oracles/compiler_oracles.h"
#include "properties/oracles/end_to_end.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/passes/legalize_graph_boundary.h"

namespace stackcheck::props {

namespace {

using CxFn = std::function<oracles::Counterexample()>;

// One broken program under judgement: what the messages and counterexamples share.
struct Judged {
  const gen::BrokenProgram& b;
  const RuleOwner& owner;
  std::string text;  // the printed program
  std::string what;  // "<code> (<edit> in <function>)"

  std::string rule(const char* part) const { return owner.rule_prefix + "-" + part; }
  oracles::Counterexample cx() const {
    return props::counterexample(owner.rule_prefix, text, {{"code", std::to_string(b.code)}});
  }
  void fail(const std::string& rule, const std::string& message) const {
    props::report(oracles::Verdict::fail(rule, "broke " + what + ": " + message), cx());
  }
  // The line of the printed text the marker is on (its last occurrence); 0: no marker, or not
  // in the text.
  uint32_t marker_line() const {
    const size_t at = b.marker.empty() ? std::string::npos : text.rfind(b.marker);
    if (at == std::string::npos) return 0;
    return static_cast<uint32_t>(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  }
};

std::string first_of(const ir::Diagnostics& d) { return d.empty() ? "nothing" : d.front().render(""); }

// The owner's diagnostics give the code: the first one (only_code: the only code given).
void judge_code(const Judged& j, const ir::Diagnostics& d, const char* on) {
  if (j.b.findings != 0 && d.size() != j.b.findings)
    j.fail(j.rule("code"), fmt::format("{}{} reported {} finding(s), expected {}: {}", j.owner.name, on, d.size(),
                                       j.b.findings, first_of(d)));
  if (j.b.only_code) {
    std::set<int> codes;
    for (const ir::Diagnostic& x : d) codes.insert(x.code);
    if (codes != std::set<int>{j.b.code})
      j.fail(j.rule("code"), fmt::format("{}{} reported [{}]{}", j.owner.name, on, fmt::join(codes, ","),
                                         d.empty() ? "" : ": " + d.front().message));
  } else if (d.empty() || d.front().code != j.b.code) {
    j.fail(j.rule("code"), fmt::format("{}{} reported {}", j.owner.name, on, first_of(d)));
  }
}

// The same edit at exactly the limit is legal for the owner; at_limit_runs: for
// LegalizeGraphBoundary too, and it runs end to end as the interpreter runs it (codegen and the
// runtime's limits too).
void judge_at_limit(const Judged& j) {
  const gen::BrokenProgram& b = j.b;
  if (!b.at_limit) return;
  gen::tag(fmt::format("at-limit-{}", b.code));
  const std::string at_text = ir::print_program(*b.at_limit);
  const auto acx = [&](const char* oracle) { return props::counterexample(oracle, at_text); };
  if (const ir::Diagnostics ad = j.owner.check(*b.at_limit); !ad.empty())
    props::report(oracles::Verdict::fail(j.rule("limit"), fmt::format("broke {}: at the limit ({}) {} reported {}",
                                                                      j.what, b.limit, j.owner.name, first_of(ad))),
                  acx(j.owner.rule_prefix.c_str()));
  if (!b.at_limit_runs) return;
  if (const passes::PassResult ar = passes::legalize_graph_boundary(*b.at_limit); !ar.ok)
    props::report(oracles::Verdict::fail("pass-limit", fmt::format("{} in {} (legal): LegalizeGraphBoundary "
                                                                   "rejected it: {}",
                                                                   b.limit, b.graph, first_of(ar.diagnostics))),
                  acx("end-to-end"));
  const oracles::EndToEndRun e2e =
      oracles::check_end_to_end(*b.at_limit, 1, runtime::ScheduleOptions{}, {}, {{"W", 256, {}}});
  if (e2e.verdict.inconclusive() && e2e.verdict.reason == oracles::Inconclusive::kInputRejected)
    props::report(oracles::Verdict::fail("pipeline-limit", fmt::format("{} in {} (legal): the pipeline rejected "
                                                                       "it: {}",
                                                                       b.limit, b.graph, e2e.verdict.message)),
                  acx("end-to-end"));
  if (!e2e.verdict.inconclusive()) props::report(e2e.verdict, acx("end-to-end"));
  gen::tag(e2e.verdict.inconclusive() ? "at-limit-e2e-inconclusive" : "at-limit-e2e-equal");
}

// The reference interpreter on the parsed text (COMPILER.md §7): one of the errors the rule's
// catalog entry expects, at the broken statement's line where the breaker knows it. A trap the
// generator planted may stop the run first: on a line before it, or anywhere where the breaker
// does not know the line.
void judge_interpreter(const Judged& j, const ir::Program& parsed) {
  const std::vector<interp::ErrorKind>& want = j.b.interp_errors;
  if (want.empty()) return;
  const uint32_t line = j.marker_line();
  const interp::Result r = j.owner.run_interp(parsed, 1);
  const auto expected = [&](interp::ErrorKind k) { return std::find(want.begin(), want.end(), k) != want.end(); };
  const bool trap_before = !r.ok() && r.error().kind != interp::ErrorKind::Invalid &&
                           r.error().kind != interp::ErrorKind::Budget && (line == 0 || r.error().location.line < line);
  if (r.ok() || (!trap_before && (!expected(r.error().kind) || (line != 0 && r.error().location.line != line))))
    j.fail("interp-error", fmt::format("the interpreter {}, expected {} error{}",
                                       r.ok() ? std::string("ran it to the end") : "reported " + r.error().render(),
                                       interp::error_kind_name(want.front()),
                                       line == 0 ? std::string() : fmt::format(" on line {}", line)));
}

// On the parsed text: the diagnostic names what broke the rule, at the broken statement's line,
// and codegen's own refusal (run without the verifier on the parsed text, whose statements have
// their lines) points at the same statement.
void judge_message_and_line(const Judged& j, const ir::Diagnostics& t, const ir::Program& parsed) {
  const gen::BrokenProgram& b = j.b;
  if (t.empty()) return;  // judge_code reported it
  for (const std::string& want : b.message_has)
    if (t.front().message.find(want) == std::string::npos)
      j.fail(j.rule("message"), fmt::format("{} reported {}, whose message does not say \"{}\"", j.owner.name,
                                            t.front().render(""), want));
  if (!b.message.empty() && t.front().message != b.message)
    j.fail(j.rule("message"), fmt::format("{} reported {}, whose message is not \"{}\"", j.owner.name,
                                          t.front().render(""), b.message));
  if (b.marker.empty()) return;
  const uint32_t line = j.marker_line();
  if (line == 0) {
    j.fail("breaker", fmt::format("the marker \"{}\" of the broken statement is not in the printed text", b.marker));
    return;
  }
  if (t.front().location.line != line)
    j.fail(j.rule("line"), fmt::format("{} reported {} where the broken statement is on line {}", j.owner.name,
                                       t.front().render(""), line));
  if (!b.lowering_precondition) return;
  const codegen::CodegenResult cg = j.owner.generate(parsed);
  const bool there = std::any_of(cg.diagnostics.begin(), cg.diagnostics.end(),
                                 [&](const ir::Diagnostic& x) { return x.location.line == line; });
  if (!cg.ok && !there)
    j.fail("codegen-line", fmt::format("codegen, run without the verifier, refused it with {} where the broken "
                                       "statement is on line {}",
                                       cg.diagnostics.front().render(""), line));
}

// LegalizeGraphBoundary on the parsed text, where it owns the code (§5.3 steps 1 and 5 check
// the codes of §4 again): its diagnostic with the code says what the owner's must say, on the
// broken statement's line.
void judge_pass_on_text(const Judged& j, const ir::Program& parsed) {
  const gen::BrokenProgram& b = j.b;
  if (!b.pass_owns) return;
  const passes::PassResult r = j.owner.pass(parsed);
  const auto d = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                              [&](const ir::Diagnostic& x) { return x.code == b.code; });
  if (d == r.diagnostics.end()) return;  // judge_later_stages reports it
  for (const std::string& want : b.message_has)
    if (d->message.find(want) == std::string::npos)
      j.fail("pass-message", fmt::format("LegalizeGraphBoundary reported {}, whose message does not say \"{}\"",
                                         d->render(""), want));
  const uint32_t line = j.marker_line();
  if (line != 0 && d->location.line != line)
    j.fail("pass-line", fmt::format("LegalizeGraphBoundary reported {} where the broken statement is on line {}",
                                    d->render(""), line));
}

// whole_list: nothing but the rule's finding and what the entry says follows from it, so a
// verifier that reports a second finding for one edit, or drops one, is caught.
void judge_whole_list(const Judged& j, const ir::Diagnostics& d) {
  const gen::BrokenProgram& b = j.b;
  if (!b.whole_list || b.message.empty()) return;
  std::vector<std::string> want{b.message};
  want.insert(want.end(), b.then.begin(), b.then.end());
  std::vector<std::string> got;
  for (const ir::Diagnostic& x : d) got.push_back(x.message);
  if (got != want)
    j.fail(j.rule("message"), fmt::format("{} reported {} finding(s) [{}], expected exactly [{}]", j.owner.name,
                                          got.size(), fmt::join(got, " | "), fmt::join(want, " | ")));
}

// The edit is in the AST; its printed text is syntax all the same (BrokenProgram::has_text), so
// it must parse, and the owner must give the code on it too.
void judge_text(const Judged& j) {
  if (!j.b.has_text) return;
  const ir::ParseResult parsed = ir::parse_program(j.text);
  if (!parsed.ok()) {
    j.fail(j.rule("code"), "its printed text does not parse: " + parsed.error().to_string());
    return;
  }
  const ir::Diagnostics t = j.owner.check(parsed.program());
  judge_code(j, t, " on the printed text");
  judge_interpreter(j, parsed.program());
  judge_message_and_line(j, t, parsed.program());
  judge_pass_on_text(j, parsed.program());
}

// The stages after the owner: the pass, the pipeline and codegen, each where the program
// expects it.
void judge_later_stages(const Judged& j) {
  const gen::BrokenProgram& b = j.b;
  if (b.pass_owns) {
    const passes::PassResult r = j.owner.pass(b.program);
    const bool has = std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                                 [&](const ir::Diagnostic& x) { return x.code == b.code; });
    if (r.ok || !has)
      j.fail("pass-code", r.ok ? std::string("LegalizeGraphBoundary accepted it")
                               : "LegalizeGraphBoundary rejected it without that code: " + r.diagnostics.front().message);
    if (!r.ok && b.findings != 0 && r.diagnostics.size() != b.findings)
      j.fail("pass-code", fmt::format("LegalizeGraphBoundary reported {} finding(s), expected {}: {}",
                                      r.diagnostics.size(), b.findings, first_of(r.diagnostics)));
  }
  if (b.pipeline_refuses)
    if (const oracles::PipelineRun run = oracles::run_pipeline(b.program);
        run.verdict.reason != oracles::Inconclusive::kInputRejected)
      j.fail(j.rule("code"), fmt::format("the pipeline did not refuse its input ({})", run.verdict.to_string()));
  if (b.lowering_precondition && j.owner.generate(b.program).ok)
    j.fail("codegen-precondition", "codegen, run without the verifier, emitted a plan");
  if (b.codegen_code != 0) {
    const codegen::CodegenResult cg = j.owner.generate(b.program);
    const bool has = std::any_of(cg.diagnostics.begin(), cg.diagnostics.end(),
                                 [&](const ir::Diagnostic& x) { return x.code == b.codegen_code; });
    if (cg.ok || !has)
      j.fail("codegen-code", fmt::format("codegen, run without the verifier, {} (expected {})",
                                         cg.ok ? "accepted it"
                                               : "rejected it with " + std::to_string(cg.diagnostics.front().code) +
                                                     ": " + cg.diagnostics.front().message,
                                         b.codegen_code));
  }
}

}  // namespace

RuleOwner rule_owner(std::string name, std::string rule_prefix,
                     std::function<ir::Diagnostics(const ir::Program&)> check) {
  return RuleOwner{std::move(name), std::move(rule_prefix), std::move(check), codegen::generate_orchestration,
                   [](const ir::Program& p, uint64_t seed) { return interp::run(p, seed); },
                   [](const ir::Program& p) { return passes::legalize_graph_boundary(p); }};
}

void judge_broken_program(const gen::BrokenProgram& b, const RuleOwner& owner) {
  gen::tag(fmt::format("code-{}", b.code));
  if (const size_t in = b.what.rfind(", in "); in != std::string::npos)
    gen::tag(fmt::format("code-{}{}", b.code, b.what.substr(in)));  // the place: "code-3, in a view's offset"
  const Judged j{b, owner, ir::print_program(b.program), fmt::format("{} ({} in {})", b.code, b.what, b.graph)};
  const ir::Diagnostics d = owner.check(b.program);
  judge_code(j, d, "");
  // The whole message on the AST too, where the grammar cannot write the edit (has_text false).
  if (!b.message.empty() && !d.empty() && d.front().code == b.code && d.front().message != b.message)
    j.fail(j.rule("message"), fmt::format("{} reported {}, whose message is not \"{}\"", owner.name,
                                          d.front().render(""), b.message));
  judge_whole_list(j, d);
  judge_at_limit(j);
  judge_text(j);
  judge_later_stages(j);
}

}  // namespace stackcheck::props
