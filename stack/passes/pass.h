// The pass interface (COMPILER.md §5). A pass maps a Program to a new Program or rejects it
// with diagnostics, and declares the properties it requires, produces and invalidates.
// Passes never print and never mutate their input.
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/diagnostic.h"

#include <cstdint>
#include <utility>
#include <string>
#include <string_view>

namespace stackcheck::passes {

// Properties a Program may hold; each has its own verifier in stack/verify/.
enum Property : uint32_t {
  kWellFormed = 1u << 0,              // verify/well_formed.h
  kReturnParamsExplicit = 1u << 1,    // verify/return_params_explicit.h
  kGraphBoundaryLegalized = 1u << 2,  // verify/graph_boundary_legalized.h
};
using PropertySet = uint32_t;

std::string property_name(Property p);

struct PassResult {
  bool ok = false;                  // false: input rejected, see diagnostics
  ir::Program program;              // valid when ok
  ir::Diagnostics diagnostics;  // why the input was rejected

  // The result of a pass that cannot reject its input.
  static PassResult accepted(ir::Program p) {
    PassResult r;
    r.ok = true;
    r.program = std::move(p);
    return r;
  }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual PropertySet required() const = 0;
  virtual PropertySet produced() const = 0;
  virtual PropertySet invalidated() const = 0;
  virtual PassResult run(const ir::Program& input) = 0;
};

}  // namespace stackcheck::passes
