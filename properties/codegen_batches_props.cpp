// Long statement lists of creates (COMPILER.md §6: a list opens with `alloc` statements for
// its non-fresh creates, 16 buffers each). No generator puts more than a handful of creates in
// one list, so the batching past 16 is never drawn by the program generators.
//
// The case takes a generated program and puts 15 to 48 creates in one entry list, at the top
// of the entry or in a new two-trip loop around them, each drawn to be used as a kernel's In
// and InOut operand (allocated), copied into as its first use (fresh), aliased first
// (allocated), or never used (allocated); a `full` gives the copies their source. The program
// is compiled by the default pipeline and the given codegen, and:
//  1. the plan has the layout codegen_layout.h predicts (the allocs' batches among it);
//  2. compiled by the stack's codegen, it runs to the interpreter's bytes (end to end).
// The control is a codegen that moves one buffer from a full alloc statement into the next.
#include "properties/gen/arbitrary.h"
#include "properties/legal_pipeline.h"
#include "properties/oracles/codegen_layout.h"
#include "properties/oracles/end_to_end.h"
#include "properties/property.h"
#include "stack/ir/builder.h"
#include "stack/ir/printer.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

using namespace stackcheck;

namespace {

namespace b = ir::build;
using oracles::Verdict;

// The program `g` with `n` creates of shape [w] in one entry list (drawn last in the case).
ir::Program with_creates(ir::Program p, gen::ChoiceSource& c) {
  const int64_t w = c.integer(1, 8);
  const ir::Type t = ir::Type::tensor({w});
  const int sizes[] = {15, 16, 17, 31, 32, 33, 48};
  const int n = sizes[c.one_of(std::size(sizes))];
  std::vector<ir::Stmt> list;
  list.push_back(b::full("zz_f", {b::lit(w)}, b::lit(c.integer(0, 9))));
  std::vector<ir::Stmt> uses;
  int fresh = 0;
  for (int k = 0; k < n; ++k) {
    const std::string name = fmt::format("zz_b{}", k);
    list.push_back(b::create(name, {b::lit(w)}));
    switch (c.one_of(4)) {
      case 0: uses.push_back(b::call_to(fmt::format("zz_u{}", k), "zz_kacc", b::names({name.c_str(), name.c_str()}))); break;
      case 1:
        uses.push_back(b::call_to(fmt::format("zz_u{}", k), "zz_kcopy", b::names({"zz_f", name.c_str()})));
        ++fresh;
        break;
      case 2: uses.push_back(b::let(fmt::format("zz_u{}", k), b::var(name))); break;
      default: break;  // never used: allocated with the others
    }
  }
  list.insert(list.end(), uses.begin(), uses.end());
  const bool in_loop = c.boolean();
  gen::tag(fmt::format("creates:{}", n));
  gen::tag(in_loop ? "list:loop" : "list:top");
  gen::tag(n - fresh > 16 ? "allocs:2+" : "allocs:1");
  p.functions.insert(p.functions.begin(),
                     b::kernel("zz_kacc", {b::param("x", ir::Dir::In, t), b::param("a", ir::Dir::InOut, t)}, {"a"},
                               "acc"));
  p.functions.insert(p.functions.begin(),
                     b::kernel("zz_kcopy", {b::param("s", ir::Dir::In, t), b::param("d", ir::Dir::Out, t)}, {"d"},
                               "copy"));
  for (ir::Function& f : p.functions) {
    if (f.kind != ir::Function::Kind::Orchestration) continue;
    if (in_loop) {
      f.body.insert(f.body.begin(), b::for_("zz_i", b::lit(0), b::lit(2), b::lit(1), std::move(list)));
    } else {
      f.body.insert(f.body.begin(), list.begin(), list.end());
    }
    break;
  }
  return p;
}

void batches_case(const props::Codegen& cg) {
  const gen::GeneratedProgram g = props::draw();
  const ir::Program p = with_creates(g.program, gen::choices());
  const uint64_t seed = static_cast<uint64_t>(gen::choices().integer(0, 999));
  const oracles::Counterexample cx = props::counterexample("codegen-batches", ir::print_program(p));
  const oracles::PipelineRun run = props::pipeline_or_fail(p);
  const ir::Program& legal = run.stages.back().program;
  const codegen::CodegenResult r = cg(legal);
  if (!r.ok)
    props::report(Verdict::fail("codegen", "codegen rejects a legalized program: " +
                                               (r.diagnostics.empty() ? std::string("?") : r.diagnostics.front().render(""))),
                  cx);
  props::report(oracles::check_codegen_layout(legal, r.program), cx);
  const oracles::EndToEndRun e2e = oracles::check_end_to_end(p, seed, *oracles::parse_schedule("newest"));
  props::report(e2e.verdict, props::counterexample("codegen-batches", ir::print_program(p), {{"seed", std::to_string(seed)}}));
}

// The control's codegen: the stack's, then the first alloc of 16 buffers followed by another
// alloc gives its last buffer to that one (15 + more), in any block.
bool unbatch(runtime::PlanBlock& block) {
  for (size_t i = 0; i + 1 < block.size(); ++i) {
    auto* a = std::get_if<runtime::AllocStmt>(&block[i].node);
    auto* next = std::get_if<runtime::AllocStmt>(&block[i + 1].node);
    if (a != nullptr && next != nullptr && a->buffers.size() == 16) {
      next->buffers.insert(next->buffers.begin(), a->buffers.back());
      a->buffers.pop_back();
      return true;
    }
  }
  for (runtime::PlanStmt& s : block)
    if (auto* f = std::get_if<runtime::ForStmt>(&s.node); f != nullptr && unbatch(f->body)) return true;
  return false;
}

codegen::CodegenResult unbatched(const ir::Program& p) {
  codegen::CodegenResult r = codegen::generate_orchestration(p);
  if (r.ok) unbatch(r.program.body);
  return r;
}

}  // namespace

STACKCHECK_PROP(CodegenBatches, long_create_lists_alloc_16_a_statement, 0.1) {
  batches_case(codegen::generate_orchestration);
}

STACKCHECK_CONTROL(CodegenBatchesControl, allocs_batched_15_and_more_fail, "codegen-layout") { batches_case(unbatched); }
