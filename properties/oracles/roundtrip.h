// Round-trip oracle of the `.gir` text form (COMPILER.md §8.6): parse(print(p)) equals p
// structurally and print is a fixed point. Shared by the round-trip property and fuzz_parse.
#pragma once

#include "properties/oracles/oracle.h"
#include "stack/ir/ast.h"

namespace stackcheck::oracles {

Verdict check_print_roundtrip(const ir::Program& p);

}  // namespace stackcheck::oracles
