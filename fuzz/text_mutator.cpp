// The text targets' structure-aware mutators (text_mutator.h).
#include "fuzz/text_mutator.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "properties/gen/choice.h"
#include "properties/gen/ir_edits.h"
#include "properties/judge/judges.h"
#include "stack/ir/parser.h"
#include "stack/ir/printer.h"
#include "stack/ir/walk.h"
#include "stack/support/splitmix.h"
#include "stack/verify/well_formed.h"

namespace stackcheck::fuzz {

namespace {

constexpr size_t kGeneratorBytes = 512;  // seeded bytes a generated program is decoded from
constexpr size_t kPool = 1024;           // generated programs kept (decoding one costs more than a mutation)
constexpr unsigned kRedraws = 8;         // fuzz_pipeline: edits or donors tried before giving up on WellFormed

std::optional<ir::Program> parse_text(const uint8_t* data, size_t size) {
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;
  ir::ParseResult r = ir::parse_program(std::string_view(reinterpret_cast<const char*>(data), size), limits);
  if (!r.ok()) return std::nullopt;
  return std::move(r.program());
}

ir::Program generated_program(uint64_t seed) {
  support::SplitMix64 rng(seed);
  std::vector<uint8_t> bytes(kGeneratorBytes);
  for (size_t i = 0; i < bytes.size(); i += 8) {
    const uint64_t v = rng.next();
    std::memcpy(bytes.data() + i, &v, std::min<size_t>(8, bytes.size() - i));
  }
  gen::ByteChoices c{std::span<const uint8_t>(bytes)};
  return judge::decode_program(c).program;
}

// Generated program k of the pool (k < kPool), decoded on first use: a donor or a fresh input
// costs a copy, not a decode. Slot k always holds the same program, so a mutation stays a
// function of its seed. libFuzzer calls a mutator from one thread.
const ir::Program& pooled_program(uint64_t r) {
  static std::vector<std::optional<ir::Program>> pool(kPool);
  std::optional<ir::Program>& slot = pool[r % kPool];
  if (!slot) slot = generated_program(r % kPool + 1);
  return *slot;
}

// Writes `text` over the buffer when it fits; else leaves it and returns nullopt.
std::optional<size_t> put(const std::string& text, uint8_t* data, size_t max_size) {
  if (text.empty() || text.size() > max_size) return std::nullopt;
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

bool well_formed(const ir::Program& p) { return verify::check_well_formed(p).empty(); }

// What the cheap edits can change, found in one walk (pointers into the program, used before
// anything moves).
struct Targets {
  std::vector<ir::Expr*> literals, binaries;
  std::vector<ir::Stmt*> ifs;
  std::vector<ir::Param*> params;
  std::vector<std::vector<ir::Stmt>*> lists;
};

Targets targets_of(ir::Program& p) {
  Targets t;
  for (ir::Function& f : p.functions) {
    for (ir::Param& param : f.params) t.params.push_back(&param);
    if (!f.body.empty()) t.lists.push_back(&f.body);
    ir::walk_statements(f.body, [&t](ir::Stmt& s) {
      if (s.kind == ir::Stmt::Kind::If) t.ifs.push_back(&s);
      if (!s.body.empty()) t.lists.push_back(&s.body);
      if (!s.else_body.empty()) t.lists.push_back(&s.else_body);
      ir::for_each_expr(s, [&t](ir::Expr& e) {
        ir::for_each_subexpr(e, [&t](ir::Expr& x) {
          if (x.kind == ir::Expr::Kind::Int) t.literals.push_back(&x);
          if (x.kind == ir::Expr::Kind::Binary) t.binaries.push_back(&x);
        });
      });
    });
  }
  return t;
}

// One cheap edit in place (a walk, no list of every edit): a literal to a value near it or at a
// boundary, an operator or a comparison to another, a param's direction, a statement dropped,
// repeated or moved one place. False when the program has nothing of the kind drawn.
bool cheap_edit(ir::Program& p, support::SplitMix64& rng) {
  Targets t = targets_of(p);
  auto pick = [&rng](auto& v) { return v[rng.next() % v.size()]; };
  switch (rng.next() % 5) {
    case 0: {
      if (t.literals.empty()) return false;
      ir::Expr* e = pick(t.literals);
      const auto v = static_cast<uint64_t>(e->value);  // wrapping: a literal may be at INT64's ends
      const auto near = [](uint64_t x) { return static_cast<int64_t>(x); };
      const int64_t choices[] = {0, 1, -1, 2, 3, 7, 8, 16, 64, 1024,
                                 near(v + 1), near(v - 1), near(v * 2), e->value / 2};
      e->value = choices[rng.next() % std::size(choices)];
      return true;
    }
    case 1: {
      if (t.binaries.empty()) return false;
      ir::Expr* e = pick(t.binaries);
      e->op = static_cast<ir::BinOp>((static_cast<unsigned>(e->op) + 1 + rng.next() % 4) % 5);
      return true;
    }
    case 2: {
      if (t.ifs.empty()) return false;
      ir::Stmt* s = pick(t.ifs);
      s->cmp = static_cast<ir::CmpOp>((static_cast<unsigned>(s->cmp) + 1 + rng.next() % 5) % 6);
      return true;
    }
    case 3: {
      if (t.params.empty()) return false;
      ir::Param* param = pick(t.params);
      param->dir = static_cast<ir::Dir>((static_cast<unsigned>(param->dir) + 1 + rng.next() % 2) % 3);
      return true;
    }
    default: {
      if (t.lists.empty()) return false;
      std::vector<ir::Stmt>& list = *pick(t.lists);
      const size_t i = rng.next() % list.size();
      switch (rng.next() % 3) {
        case 0: list.erase(list.begin() + static_cast<std::ptrdiff_t>(i)); break;
        case 1: list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), ir::Stmt(list[i])); break;
        default:
          if (list.size() < 2) return false;
          std::swap(list[i], list[i + 1 < list.size() ? i + 1 : i - 1]);
      }
      return true;
    }
  }
}

// One edit: a cheap one (cheap_edit) four times in five, else one of gen::ir_edit_sites's
// one-field edits (a name, a kind, a dim, ...: every node, but the list costs more than the
// rest of a mutation). With `keep_well_formed` (fuzz_pipeline, on a WellFormed input) an edit
// that breaks WellFormed is redrawn, up to kRedraws times. Returns whether it made one.
bool edit(ir::Program& p, support::SplitMix64& rng, bool keep_well_formed) {
  std::vector<gen::IrEdit> sites;
  const bool cheap = rng.next() % 5 != 0;
  if (!cheap) {
    sites = gen::ir_edit_sites(p);
    if (sites.empty()) return false;
  }
  for (unsigned attempt = 0; attempt < kRedraws; ++attempt) {
    ir::Program next = p;
    if (cheap) {
      if (!cheap_edit(next, rng)) continue;
    } else {
      sites[rng.next() % sites.size()].apply(next);
    }
    if (!keep_well_formed || well_formed(next)) {
      p = std::move(next);
      return true;
    }
  }
  return false;
}

// A function of `donor` of the same kind as a function of `p` takes its place (its name kept,
// so the calls to it still resolve), or is appended when `p` has none of that kind. With
// `keep_well_formed`, another donor function is tried (kRedraws times) while the result is not.
void splice(ir::Program& p, const ir::Program& donor, support::SplitMix64& rng, bool keep_well_formed) {
  if (donor.functions.empty()) return;
  for (unsigned attempt = 0;; ++attempt) {
    ir::Program next = p;
    const ir::Function& f = donor.functions[rng.next() % donor.functions.size()];
    std::vector<size_t> same;
    for (size_t i = 0; i < next.functions.size(); ++i)
      if (next.functions[i].kind == f.kind) same.push_back(i);
    if (same.empty()) {
      next.functions.push_back(f);
    } else {
      ir::Function& into = next.functions[same[rng.next() % same.size()]];
      std::string name = std::move(into.name);
      into = f;
      into.name = std::move(name);
    }
    if (!keep_well_formed || attempt + 1 >= kRedraws || well_formed(next)) {
      p = std::move(next);
      return;
    }
  }
}

bool parses(const std::string& text) {
  ir::ParseLimits limits;
  limits.max_bytes = 64 << 10;
  return ir::parse_program(text, limits).ok();
}

}  // namespace

const char* text_mutation_name(TextMutation m) {
  switch (m) {
    case TextMutation::Bytes: return "bytes";
    case TextMutation::Edit: return "edit";
    case TextMutation::Splice: return "splice";
    case TextMutation::Fresh: return "fresh";
  }
  return "?";
}

std::string generated_program_text(uint64_t seed) { return ir::print_program(generated_program(seed)); }

TextMutationResult mutate_text(uint8_t* data, size_t size, size_t max_size, unsigned seed,
                               const TextMutatorOptions& options, const ByteMutate& bytes) {
  support::SplitMix64 rng(seed);
  const auto by_bytes = [&] { return TextMutationResult{bytes(data, size, max_size), TextMutation::Bytes}; };
  if (rng.next() % 100 < options.bytes_percent) return by_bytes();
  std::optional<ir::Program> p = parse_text(data, size);
  const uint64_t roll = rng.next() % 100;
  const bool keep = options.want_well_formed && p && well_formed(*p);
  TextMutation kind = TextMutation::Fresh;
  if (!p || roll >= 85) {
    p = pooled_program(rng.next());
  } else if (roll >= 60) {
    splice(*p, pooled_program(rng.next()), rng, keep);
    kind = TextMutation::Splice;
  } else if (edit(*p, rng, keep)) {
    kind = TextMutation::Edit;
  } else {  // no edit kept it WellFormed: a generated program rather than the input again
    p = pooled_program(rng.next());
  }
  std::string text = ir::print_program(*p);
  // A few edits print text the parser refuses (a dtype, a rank-0 tensor): fine for the parser's
  // target, a wasted input for the pipeline's, which gets a generated program instead.
  if (options.want_well_formed && kind != TextMutation::Fresh && !parses(text)) {
    text = ir::print_program(pooled_program(rng.next()));
    kind = TextMutation::Fresh;
  }
  if (const std::optional<size_t> n = put(text, data, max_size)) return {*n, kind};
  return by_bytes();  // too long to print in place
}

size_t crossover_text(const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size, uint8_t* out, size_t max_out,
                      unsigned seed) {
  support::SplitMix64 rng(seed);
  std::optional<ir::Program> pa = parse_text(a, a_size);
  const std::optional<ir::Program> pb = pa ? parse_text(b, b_size) : std::nullopt;
  if (pa && pb) {
    splice(*pa, *pb, rng, false);
    if (const std::optional<size_t> n = put(ir::print_program(*pa), out, max_out)) return *n;
  }
  // One cut in each: a's head, b's tail.
  const size_t cut_a = a_size == 0 ? 0 : rng.next() % (a_size + 1);
  const size_t cut_b = b_size == 0 ? 0 : rng.next() % (b_size + 1);
  const size_t head = std::min(cut_a, max_out);
  const size_t tail = std::min(b_size - cut_b, max_out - head);
  std::memcpy(out, a, head);
  std::memcpy(out + head, b + cut_b, tail);
  return head + tail;
}

}  // namespace stackcheck::fuzz
