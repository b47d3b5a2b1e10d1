#include "stack/passes/pass.h"

namespace stackcheck::passes {

std::string property_name(Property p) {
  switch (p) {
    case kWellFormed: return "WellFormed";
    case kReturnParamsExplicit: return "ReturnParamsExplicit";
    case kGraphBoundaryLegalized: return "GraphBoundaryLegalized";
  }
  return "Property#" + std::to_string(static_cast<uint32_t>(p));
}

}  // namespace stackcheck::passes
