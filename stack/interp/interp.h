// The reference interpreter (COMPILER.md §7): the semantic oracle the compiled program on
// the runtime must reproduce byte for byte. Runs the entry (the orchestration function) in
// program order on host buffers, from inputs drawn deterministically from a seed.
//
// Inputs: splitmix64 seeded with `seed`, over the entry params in order: one draw per
// tensor element, row-major (its low 32 bits); `draw % 16` per scalar.
// Output: the final bytes (little-endian i32) of every entry tensor param, in param order.
// Errors (the verdict is then inconclusive): a zero divisor, an out-of-bounds window or
// index, a zero step, an exhausted budget (statements + loop iterations + element
// operations), or a program the interpreter cannot run (it is meant for WellFormed
// programs, but any Program yields a result, never a crash).
// Deterministic: the same Program and seed always give the same Result.
#pragma once

#include "stack/ir/ast.h"
#include "stack/ir/diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace stackcheck::interp {

struct Options {
  uint64_t budget = 10'000'000;  // statements + loop iterations + element operations
  unsigned max_call_depth = 64;  // graph calls nest at most 1 deep in WellFormed programs
};

// One entry param's input value.
struct InputValue {
  std::string name;
  bool tensor = false;
  std::vector<int64_t> dims;       // tensors
  std::vector<uint32_t> elements;  // tensors, row-major
  int64_t scalar = 0;              // scalars: draw % 16
};

struct TensorBytes {
  std::string name;
  std::vector<uint8_t> bytes;  // little-endian i32 elements, row-major
};

enum class ErrorKind : uint8_t {
  ZeroDivisor,
  OutOfBounds,  // a window, read index, or dim axis outside its tensor
  ZeroStep,
  Budget,   // exhausted: inconclusive even when only a transformed program hits it
  Invalid,  // the program is not runnable (ill-formed: unknown name, kind mismatch, ...)
};
const char* error_kind_name(ErrorKind k);

struct Error {
  ErrorKind kind = ErrorKind::Invalid;
  ir::Location location;  // function and line:column of the failing node
  std::string message;
  // "function:line:column: interp error (<kind>): message"
  std::string render() const;
};

struct Outputs {
  std::vector<TensorBytes> tensors;  // every entry tensor param, in param order
  uint64_t steps = 0;                // budget used
};

struct Result {
  std::variant<Outputs, Error> value;
  bool ok() const { return value.index() == 0; }
  const Outputs& outputs() const { return std::get<Outputs>(value); }
  const Error& error() const { return std::get<Error>(value); }
};

// Inputs of `entry`'s params for `seed`; an Error (Invalid) if a tensor param's type is not
// a valid tensor type (dims >= 1, <= 65,536 elements).
std::variant<std::vector<InputValue>, Error> generate_inputs(const ir::Function& entry, uint64_t seed);

Result run(const ir::Program& p, uint64_t seed, const Options& options = {});

// 64-bit FNV-1a of `bytes` (the CLI's `interp` digest).
uint64_t fnv1a64(std::span<const uint8_t> bytes);
// FNV-1a over every output tensor's bytes in order (names not included).
uint64_t fnv1a64(const Outputs& outputs);

}  // namespace stackcheck::interp
