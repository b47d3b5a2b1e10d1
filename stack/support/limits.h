// The model's shared limits, defined once: the compiler checks a program against the same
// numbers the runtime enforces (COMPILER.md §4 and §6, RUNTIME.md §8 and §9), so a legal
// program never meets a runtime limit it was not checked against. Layers name them under
// their own vocabulary (e.g. LegalizeGraphBoundary's 204/205/216) by referring here.
#pragma once

#include <cstdint>

namespace stackcheck::support {

// A graph boundary (submit_graph): tensor and scalar params (GBL 204/205, codegen 305,
// GraphArgs latch 5).
inline constexpr uint32_t kGraphMaxTensors = 128;
inline constexpr uint32_t kGraphMaxScalars = 64;
// Nodes of one graph definition (GBL 216, the recorder's latch 5).
inline constexpr uint32_t kGraphMaxNodes = 1024;
// One task or graph node: tensors, scalars and producers (latch 5, latch 4).
inline constexpr uint32_t kTaskMaxTensors = 32;
inline constexpr uint32_t kTaskMaxScalars = 16;
inline constexpr uint32_t kTaskMaxFanin = 128;
// Buffers of one alloc_tensors call: also the creates one ALLOC node holds (§4 node count).
inline constexpr uint32_t kAllocMaxBuffers = 16;
// Elements of one tensor type (COMPILER.md §1; WellFormed 9, interpreter, codegen).
inline constexpr int64_t kTensorMaxElements = 65536;

}  // namespace stackcheck::support
