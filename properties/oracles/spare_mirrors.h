// The thread's spare host-mirror allocations, for the oracles that make a mirror per case or per
// input (Bench, OrchestratorSut): a mirror of 128 KiB or more is its own mmap under ASan, and a
// 45 MB one at the default W faulted in page by page. A kept allocation is handed to the next
// mirror made on this thread; runtime::MirrorBuffer::reset makes it read as a fresh one (its
// blocks filled as accesses reach them).
#pragma once

#include "stack/runtime/host/mirror_buffer.h"

namespace stackcheck::oracles {

// The largest allocation kept on this thread, or an empty buffer.
runtime::MirrorBuffer take_spare_mirror();
// Keeps `b`'s allocation if it is among the thread's two largest (a case may hold two mirrors at
// once: an orchestrator's and a foreign one's).
void keep_spare_mirror(runtime::MirrorBuffer&& b);

}  // namespace stackcheck::oracles
