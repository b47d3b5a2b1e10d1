// The oracles' own model of LegalizeGraphBoundary's output (COMPILER.md §5.3 steps 2-4): from
// the pass's input program it predicts, per graph, the hoists and aliases in definition order
// and the appended params, and the whole legalized program (the rewritten graphs and every call
// site's emitted `<v>__graph_arg<k>` definitions and appended arguments). Written from the spec
// with the oracles' own arithmetic (ref_arith.h) and shapes; no stack code but the AST types.
// It predicts the output of a run the pass accepts; its rejections (201-217) are judged elsewhere.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stack/ir/ast.h"
#include "stack/passes/legalize_graph_boundary.h"

namespace stackcheck::oracles::boundary {

struct Shape {
  bool known = false;
  ir::Dims dims;
};

// Provenance of a tensor name of G (§3): its root, whether the root is a tensor param of G
// (original or appended: rooted) and whether the name is reached through no slice (whole).
struct Tensor {
  std::string root;
  bool rooted = false;
  bool whole = true;
  Shape shape;
};

// One entry of the Collect walk, in definition order: an alias (deleted, `of` is its base) or a
// hoist (deleted, appended as a param).
struct Entry {
  enum class Kind { Alias, Scalar, View, Create };
  Kind kind = Kind::Scalar;
  const ir::Stmt* def = nullptr;
  std::string of;      // Alias: the param or hoisted scalar it names
  std::string source;  // View: the sliced name
  uint32_t depth = 0;  // enclosing for-loops
  ir::Dir dir = ir::Dir::In;
  ir::Type type;
};

struct GraphModel {
  const ir::Function* graph = nullptr;
  std::vector<Entry> entries;                // aliases and hoists in definition order
  std::vector<size_t> param_order;           // hoists: creates, views, scalars (each in order)
  std::map<std::string, Tensor> tensors;     // every tensor name of G
  std::map<std::string, std::string> alias;  // scalar alias -> base
  std::string rejects;                       // the model predicts a rejection (e.g. "211 ...")
  std::string unknown;                       // the model cannot predict (a shape it lacks)
};

// Steps 1-2 for one graph: the collect walk (step_c: COMPILER.md §5.3's option).
GraphModel collect(const ir::Program& p, const ir::Function& g, bool step_c);

// The value of a literal (INT, `dim` of a name whose shape `tensors` knows, operators), with the
// oracles' arithmetic; nullopt otherwise.
std::optional<int64_t> literal_value(const ir::Expr& e, const std::map<std::string, Tensor>& tensors);

struct Prediction {
  ir::Program program;  // the legalized program (valid when why is empty)
  std::map<std::string, GraphModel> graphs;
  std::string why;         // non-empty: no prediction (unknown) or a rejection
  bool rejection = false;  // why names a rejection the model predicts
};

// Steps 3-4 on every graph of `input`.
Prediction predict(const ir::Program& input, bool step_c);

}  // namespace stackcheck::oracles::boundary
