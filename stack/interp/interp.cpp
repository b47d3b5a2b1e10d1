#include "stack/interp/interp.h"

#include <fmt/format.h>

#include <boost/container/small_vector.hpp>

#include <limits>
#include <memory_resource>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "stack/interp/kernels.h"
#include "stack/interp/memory.h"
#include "stack/ir/arith.h"
#include "stack/support/fnv1a.h"
#include "stack/support/limits.h"
#include "stack/support/splitmix.h"
#include "stack/support/enum_names.h"

namespace stackcheck::interp {
namespace {

using ir::Expr;
using ir::Function;
using ir::Stmt;

constexpr size_t kMaxElements = support::kTensorMaxElements;

struct Value {
  enum class Kind : uint8_t { Unset, Scalar, Tensor, Tuple, TaskId };
  Kind kind = Kind::Unset;
  int64_t scalar = 0;  // Scalar; TaskId: the task's number
  Window window;
  std::vector<Value> tuple;

  static Value of_scalar(int64_t v) {
    Value x;
    x.kind = Kind::Scalar;
    x.scalar = v;
    return x;
  }
  static Value of_tensor(Window w) {
    Value x;
    x.kind = Kind::Tensor;
    x.window = std::move(w);
    return x;
  }
};

// A call's arguments, inline for the arities programs use.
using Args = boost::container::small_vector<Value, 6>;

// A frame's names are views of the program's strings (and of the entry inputs' names), which
// outlive the run; its table's nodes come from the machine's pool, reused frame after frame.
struct Frame {
  explicit Frame(std::pmr::memory_resource* pool) : env(pool) {}
  const Function* fn = nullptr;
  std::pmr::unordered_map<std::string_view, Value> env;
  std::optional<std::vector<Value>> returned;  // set by `return`: the body stops
};

// Executes statements; every method returning bool returns false once an error is set
// (or, for blocks, once a `return` ran), and the caller unwinds.
class Machine {
 public:
  Machine(const ir::Program& p, const Options& o) : options_(o) {
    for (const Function& f : p.functions) functions_.emplace(f.name, &f);
  }
  std::pmr::memory_resource* pool() { return &pool_; }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  std::optional<Error> error;
  uint64_t used = 0;

  bool run_entry(Frame& frame) { return block(frame.fn->body, frame); }

 private:
  bool fail(ErrorKind kind, const Frame& fr, const ir::Loc& loc, std::string msg) {
    if (!error) {
      error = Error{kind, ir::Location{fr.fn->name, loc.line, loc.column}, std::move(msg)};
    }
    return false;
  }
  bool charge(uint64_t n, const Frame& fr, const ir::Loc& loc) {
    if (n > options_.budget - used) {
      used = options_.budget;
      return fail(ErrorKind::Budget, fr, loc,
                  fmt::format("budget of {} statements and element operations exhausted", options_.budget));
    }
    used += n;
    return true;
  }

  const Function* function(const std::string& name) const {
    auto it = functions_.find(name);
    return it == functions_.end() ? nullptr : it->second;
  }

  const Value* lookup(const Frame& fr, const std::string& name) const {
    auto it = fr.env.find(name);
    return it == fr.env.end() || it->second.kind == Value::Kind::Unset ? nullptr : &it->second;
  }
  const Window* tensor(const Frame& fr, const std::string& name, const ir::Loc& loc) {
    const Value* v = lookup(fr, name);
    if (v == nullptr || v->kind != Value::Kind::Tensor) {
      fail(ErrorKind::Invalid, fr, loc, fmt::format("'{}' is not a tensor here", name));
      return nullptr;
    }
    return &v->window;
  }

  std::optional<int64_t> eval(const Expr& e, Frame& fr) {
    switch (e.kind) {
      case Expr::Kind::Int: return e.value;
      case Expr::Kind::Var: {
        const Value* v = lookup(fr, e.name);
        if (v == nullptr || v->kind != Value::Kind::Scalar) {
          fail(ErrorKind::Invalid, fr, e.loc, fmt::format("'{}' is not a scalar here", e.name));
          return std::nullopt;
        }
        return v->scalar;
      }
      case Expr::Kind::Binary: {
        if (e.args.size() != 2) {
          fail(ErrorKind::Invalid, fr, e.loc, "malformed binary expression");
          return std::nullopt;
        }
        std::optional<int64_t> a = eval(e.args[0], fr);
        if (!a) return std::nullopt;
        std::optional<int64_t> b = eval(e.args[1], fr);
        if (!b) return std::nullopt;
        std::optional<int64_t> r = ir::apply_binop(e.op, *a, *b);
        if (!r) {
          fail(ErrorKind::ZeroDivisor, fr, e.loc,
               fmt::format("zero divisor in {} {} {}", *a, ir::binop_text(e.op), *b));
        }
        return r;
      }
      case Expr::Kind::Dim: {
        const Window* w = tensor(fr, e.name, e.loc);
        if (w == nullptr) return std::nullopt;
        if (e.value < 0 || static_cast<uint64_t>(e.value) >= w->rank()) {
          fail(ErrorKind::OutOfBounds, fr, e.loc,
               fmt::format("dim({}, {}) of a rank-{} tensor", e.name, e.value, w->rank()));
          return std::nullopt;
        }
        return w->shape[static_cast<size_t>(e.value)];
      }
      case Expr::Kind::Read: {
        Extent idx;
        for (const Expr& a : e.args) {
          std::optional<int64_t> v = eval(a, fr);
          if (!v) return std::nullopt;
          idx.push_back(*v);
        }
        const Window* w = tensor(fr, e.name, e.loc);
        if (w == nullptr || !charge(1, fr, e.loc)) return std::nullopt;
        std::optional<Window> cell = sub_window(*w, view(idx), view(Extent(idx.size(), 1)));
        if (!cell) {
          fail(ErrorKind::OutOfBounds, fr, e.loc,
               fmt::format("read({}, [{}]) outside its shape [{}]", e.name, fmt::join(idx, ", "),
                           fmt::join(w->shape, ", ")));
          return std::nullopt;
        }
        // An i32 element read as i64: sign-extended.
        return static_cast<int64_t>(static_cast<int32_t>(cell->origin()));
      }
    }
    return std::nullopt;
  }

  bool eval_all(const std::vector<Expr>& es, Frame& fr, Extent& out) {
    out.clear();
    for (const Expr& e : es) {
      std::optional<int64_t> v = eval(e, fr);
      if (!v) return false;
      out.push_back(*v);
    }
    return true;
  }

  // A fresh buffer for create/full, charging one operation per element.
  std::optional<Window> allocate(const std::vector<Expr>& shape, uint32_t fill, Frame& fr, const ir::Loc& loc) {
    Extent dims;
    if (!eval_all(shape, fr, dims)) return std::nullopt;
    std::optional<size_t> n = checked_element_count(view(dims), kMaxElements);
    if (!n || dims.size() > 3) {
      fail(ErrorKind::Invalid, fr, loc,
           fmt::format("bad tensor shape [{}] (rank 1..3, dims >= 1, <= {} elements)", fmt::join(dims, ", "),
                       kMaxElements));
      return std::nullopt;
    }
    if (!charge(*n, fr, loc)) return std::nullopt;
    return fresh_window(view(dims), fill);
  }

  // Evaluates a call's arguments: plain names of tensors (and tuples, for the error) are
  // passed as they are, everything else as a scalar.
  bool eval_args(const ir::Invoke& inv, Frame& fr, Args& args) {
    for (const Expr& a : inv.args) {
      if (a.kind == Expr::Kind::Var) {
        const Value* v = lookup(fr, a.name);
        if (v != nullptr && v->kind != Value::Kind::Scalar) {
          args.push_back(*v);
          continue;
        }
      }
      std::optional<int64_t> s = eval(a, fr);
      if (!s) return false;
      args.push_back(Value::of_scalar(*s));
    }
    return true;
  }

  // Runs a call or submit; `results` receives the callee's results (not the task id).
  bool invoke(const ir::Invoke& inv, Frame& fr, std::vector<Value>& results) {
    const Function* callee = function(inv.callee);
    if (callee == nullptr || callee->kind == Function::Kind::Orchestration) {
      return fail(ErrorKind::Invalid, fr, inv.loc, fmt::format("'{}' is not a callable kernel or graph", inv.callee));
    }
    Args args;
    if (!eval_args(inv, fr, args)) return false;
    if (args.size() != callee->params.size()) {
      return fail(ErrorKind::Invalid, fr, inv.loc,
                  fmt::format("'{}' takes {} arguments, got {}", inv.callee, callee->params.size(), args.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const bool want_tensor = callee->params[i].type.is_tensor();
      const Value::Kind want = want_tensor ? Value::Kind::Tensor : Value::Kind::Scalar;
      if (args[i].kind != want) {
        return fail(ErrorKind::Invalid, fr, inv.loc,
                    fmt::format("argument {} of '{}' must be a {}", i, inv.callee, want_tensor ? "tensor" : "scalar"));
      }
    }
    if (callee->kind == Function::Kind::Kernel) return run_kernel(*callee, inv, args, fr, results);
    return run_graph(*callee, inv, std::move(args), fr, results);
  }

  bool run_kernel(const Function& k, const ir::Invoke& inv, const Args& args, Frame& fr, std::vector<Value>& results) {
    const ir::Builtin* b = ir::find_builtin(k.builtin);
    if (b == nullptr || args.size() < b->arity()) {
      return fail(ErrorKind::Invalid, fr, inv.loc,
                  fmt::format("kernel '{}' does not bind builtin '{}'", k.name, k.builtin));
    }
    // The builtin sees the first n arguments; later (extra) ones are never touched.
    boost::container::small_vector<Operand, 4> slots(b->arity());
    const std::span<Operand> ops(slots.data(), slots.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      if (args[i].kind == Value::Kind::Tensor)
        ops[i].tensor = &args[i].window;
      else
        ops[i].scalar = args[i].scalar;
    }
    if (auto bad = check_operands(*b, ops)) {
      return fail(ErrorKind::Invalid, fr, inv.loc, fmt::format("kernel '{}': {}", k.name, *bad));
    }
    if (!charge(builtin_cost(*b, ops), fr, inv.loc)) return false;
    run_builtin(*b, ops);
    // Result j is the window of the argument bound to the j-th returned param.
    for (const std::string& r : k.kernel_returns) {
      size_t i = 0;
      while (i < k.params.size() && k.params[i].name != r) ++i;
      if (i == k.params.size()) {
        return fail(ErrorKind::Invalid, fr, inv.loc,
                    fmt::format("kernel '{}' returns '{}', which is no param", k.name, r));
      }
      results.push_back(args[i]);
    }
    return true;
  }

  bool run_graph(const Function& g, const ir::Invoke& inv, Args args, Frame& fr, std::vector<Value>& results) {
    if (depth_ >= options_.max_call_depth) {
      return fail(ErrorKind::Invalid, fr, inv.loc,
                  fmt::format("graph calls nest deeper than {}", options_.max_call_depth));
    }
    Frame inner(&pool_);
    inner.fn = &g;
    for (size_t i = 0; i < args.size(); ++i) inner.env[g.params[i].name] = std::move(args[i]);
    ++depth_;
    block(g.body, inner);
    --depth_;
    if (error) return false;
    if (inner.returned) {
      results = std::move(*inner.returned);
    } else if (!g.results.empty()) {
      return fail(ErrorKind::Invalid, fr, inv.loc, fmt::format("graph '{}' ended without its return", g.name));
    }
    return true;
  }

  bool assign(const Stmt& s, Frame& fr) {
    Value out;
    if (const auto* e = std::get_if<ir::ExprRhs>(&s.rhs)) {
      const Value* alias = e->expr.kind == Expr::Kind::Var ? lookup(fr, e->expr.name) : nullptr;
      if (alias != nullptr && alias->kind != Value::Kind::Scalar) {
        out = *alias;  // a bare tensor name aliases its window
      } else {
        std::optional<int64_t> v = eval(e->expr, fr);
        if (!v) return false;
        out = Value::of_scalar(*v);
      }
    } else if (const auto* c = std::get_if<ir::InvokeRhs>(&s.rhs)) {
      std::vector<Value> results;
      if (!invoke(c->invoke, fr, results)) return false;
      if (c->invoke.submit) {
        out.kind = Value::Kind::Tuple;
        out.tuple = std::move(results);
        Value task;
        task.kind = Value::Kind::TaskId;
        task.scalar = static_cast<int64_t>(tasks_++);
        out.tuple.push_back(std::move(task));
      } else if (results.size() == 1) {
        out = std::move(results[0]);
      } else if (results.size() >= 2) {
        out.kind = Value::Kind::Tuple;
        out.tuple = std::move(results);
      }
    } else if (const auto* t = std::get_if<ir::TupleGetRhs>(&s.rhs)) {
      const Value* tup = lookup(fr, t->tuple);
      if (tup == nullptr || tup->kind != Value::Kind::Tuple || t->index < 0 ||
          static_cast<uint64_t>(t->index) >= tup->tuple.size()) {
        return fail(ErrorKind::Invalid, fr, s.loc, fmt::format("'{}.{}' is no tuple element", t->tuple, t->index));
      }
      out = tup->tuple[static_cast<size_t>(t->index)];
    } else if (const auto* cr = std::get_if<ir::CreateRhs>(&s.rhs)) {
      std::optional<Window> w = allocate(cr->shape, 0, fr, s.loc);
      if (!w) return false;
      out = Value::of_tensor(std::move(*w));
    } else if (const auto* fu = std::get_if<ir::FullRhs>(&s.rhs)) {
      std::optional<int64_t> v = eval(fu->value, fr);
      if (!v) return false;
      std::optional<Window> w = allocate(fu->shape, static_cast<uint32_t>(static_cast<uint64_t>(*v)), fr, s.loc);
      if (!w) return false;
      out = Value::of_tensor(std::move(*w));
    } else if (const auto* sl = std::get_if<ir::SliceRhs>(&s.rhs)) {
      Extent offs;
      if (!eval_all(sl->offsets, fr, offs)) return false;
      const Window* src = tensor(fr, sl->source, s.loc);
      if (src == nullptr) return false;
      std::optional<Window> w = sub_window(*src, view(offs), ir::dims_span(sl->sizes));
      if (!w) {
        return fail(ErrorKind::OutOfBounds, fr, s.loc,
                    fmt::format("slice of '{}' at [{}] size [{}] outside its shape [{}]", sl->source,
                                fmt::join(offs, ", "), fmt::join(sl->sizes, ", "), fmt::join(src->shape, ", ")));
      }
      out = Value::of_tensor(std::move(*w));
    } else if (const auto* as = std::get_if<ir::AssembleRhs>(&s.rhs)) {
      Extent offs;
      if (!eval_all(as->offsets, fr, offs)) return false;
      const Window* dst = tensor(fr, as->target, s.loc);
      const Window* src = dst == nullptr ? nullptr : tensor(fr, as->source, s.loc);
      if (src == nullptr) return false;
      std::optional<Window> region = sub_window(*dst, view(offs), view(src->shape));
      if (!region) {
        return fail(
            ErrorKind::OutOfBounds, fr, s.loc,
            fmt::format("assemble of '{}' [{}] into '{}' at [{}] outside its shape [{}]", as->source,
                        fmt::join(src->shape, ", "), as->target, fmt::join(offs, ", "), fmt::join(dst->shape, ", ")));
      }
      if (!charge(src->element_count(), fr, s.loc)) return false;
      region->write_all(src->read_all());  // read first: source and target may overlap
      out = Value::of_tensor(*dst);
    }
    fr.env[s.name] = std::move(out);
    return true;
  }

  bool loop(const Stmt& s, Frame& fr) {
    std::optional<int64_t> lo = eval(s.lo, fr);
    if (!lo) return false;
    std::optional<int64_t> hi = eval(s.hi, fr);
    if (!hi) return false;
    std::optional<int64_t> step = eval(s.step, fr);
    if (!step) return false;
    std::optional<uint64_t> trips = ir::trip_count(*lo, *hi, *step);
    if (!trips) return fail(ErrorKind::ZeroStep, fr, s.loc, "range() with a zero step");
    int64_t v = *lo;
    for (uint64_t k = 0; k < *trips; ++k) {
      if (!charge(1, fr, s.loc)) return false;  // an iteration costs one, even if empty
      fr.env[s.name] = Value::of_scalar(v);
      if (!block(s.body, fr)) return false;
      v = ir::wrap_add(v, *step);
    }
    return true;
  }

 public:
  // Runs a statement list; false on an error or after a `return`.
  bool block(const std::vector<Stmt>& body, Frame& fr) {
    for (const Stmt& s : body) {
      if (!charge(1, fr, s.loc)) return false;
      switch (s.kind) {
        case Stmt::Kind::Assign:
          if (!assign(s, fr)) return false;
          break;
        case Stmt::Kind::Invoke: {
          std::vector<Value> ignored;
          if (!invoke(s.invoke, fr, ignored)) return false;
          if (s.invoke.submit) ++tasks_;
          break;
        }
        case Stmt::Kind::Return: {
          std::vector<Value> values;
          for (const std::string& r : s.returns) {
            const Window* w = tensor(fr, r, s.loc);
            if (w == nullptr) return false;
            values.push_back(Value::of_tensor(*w));
          }
          fr.returned = std::move(values);
          return false;
        }
        case Stmt::Kind::For:
          if (!loop(s, fr)) return false;
          break;
        case Stmt::Kind::If: {
          std::optional<int64_t> a = eval(s.lo, fr);
          if (!a) return false;
          std::optional<int64_t> b = eval(s.hi, fr);
          if (!b) return false;
          if (!block(ir::apply_cmp(s.cmp, *a, *b) ? s.body : s.else_body, fr)) return false;
          break;
        }
      }
    }
    return true;
  }

 private:
  const Options& options_;
  std::unordered_map<std::string, const Function*> functions_;
  std::pmr::unsynchronized_pool_resource pool_;
  unsigned depth_ = 0;
  uint64_t tasks_ = 0;
};

void append_le(std::vector<uint8_t>& out, uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
}

}  // namespace

const char* error_kind_name(ErrorKind k) {
  static constexpr auto kNames = support::names_through<ErrorKind::Invalid>({
      "zero divisor", "out of bounds", "zero step", "budget", "invalid program"});
  return support::enum_name(kNames, k);
}

std::string Error::render() const {
  return fmt::format("{}:{}:{}: interp error ({}): {}", location.function, location.line, location.column,
                     error_kind_name(kind), message);
}

std::variant<std::vector<InputValue>, Error> generate_inputs(const Function& entry, uint64_t seed) {
  support::SplitMix64 rng(seed);
  std::vector<InputValue> out;
  for (const ir::Param& p : entry.params) {
    InputValue in;
    in.name = p.name;
    in.tensor = p.type.is_tensor();
    if (in.tensor) {
      std::optional<size_t> n = checked_element_count(ir::dims_span(p.type.dims), kMaxElements);
      if (!n || p.type.dims.size() > 3) {
        return Error{ErrorKind::Invalid, ir::Location{entry.name, p.loc.line, p.loc.column},
                     fmt::format("entry param '{}' has no valid tensor type", p.name)};
      }
      in.dims = ir::dims_vector(p.type.dims);
      in.elements.reserve(*n);
      for (size_t i = 0; i < *n; ++i) in.elements.push_back(static_cast<uint32_t>(rng.next()));
    } else {
      in.scalar = static_cast<int64_t>(rng.next() % 16);
    }
    out.push_back(std::move(in));
  }
  return out;
}

Result run(const ir::Program& p, uint64_t seed, const Options& options) {
  const Function* entry = nullptr;
  for (const Function& f : p.functions) {
    if (f.kind == Function::Kind::Orchestration) {
      entry = &f;
      break;
    }
  }
  if (entry == nullptr) {
    return Result{Error{ErrorKind::Invalid, {}, "the program has no orchestration function"}};
  }
  auto inputs = generate_inputs(*entry, seed);
  if (auto* e = std::get_if<Error>(&inputs)) return Result{std::move(*e)};

  Machine m(p, options);
  Frame frame(m.pool());
  frame.fn = entry;
  std::vector<std::pair<std::string, Window>> tensors;  // entry tensor params, kept whole
  for (InputValue& in : std::get<std::vector<InputValue>>(inputs)) {
    if (in.tensor) {
      Window w = fresh_window(in.dims, 0);
      w.buffer->data = std::move(in.elements);
      tensors.emplace_back(in.name, w);
      frame.env[in.name] = Value::of_tensor(std::move(w));
    } else {
      frame.env[in.name] = Value::of_scalar(in.scalar);
    }
  }
  m.run_entry(frame);
  if (m.error) return Result{std::move(*m.error)};

  Outputs out;
  out.steps = m.used;
  for (const auto& [name, w] : tensors) {
    TensorBytes t{name, {}};
    t.bytes.reserve(w.element_count() * 4);
    for (uint32_t v : w.read_all()) append_le(t.bytes, v);
    out.tensors.push_back(std::move(t));
  }
  return Result{std::move(out)};
}

uint64_t fnv1a64(std::span<const uint8_t> bytes) { return support::fnv1a64(bytes); }

uint64_t fnv1a64(const Outputs& outputs) {
  uint64_t h = support::kFnvOffset;
  for (const TensorBytes& t : outputs.tensors) h = support::fnv1a64(h, t.bytes.data(), t.bytes.size());
  return h;
}

}  // namespace stackcheck::interp
