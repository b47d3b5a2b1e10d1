// TEST SUPPORT ONLY (runtime unit tests under stack/runtime/): fixtures shared by the host,
// plan and device tests. Not for library code: it uses gtest assertions.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "stack/runtime/host/bind.h"

namespace stackcheck::runtime::testing {

// A before-upload hook that sets byte `offset` of the staged image (counted from the
// ImageHeader, like a `mutate` line) to `value`; an offset past the staged bytes fails the
// test and stops the bind.
inline BeforeUploadHook set_image_byte(uint64_t offset, uint8_t value) {
  return [offset, value](StagedUpload& up) -> std::optional<std::string> {
    if (offset >= up.bytes.size() - up.image_offset) {
      ADD_FAILURE() << "image offset " << offset << " past the " << up.bytes.size() - up.image_offset
                    << " staged image bytes";
      return "offset past the staged image";
    }
    up.bytes[up.image_offset + offset] = std::byte{value};
    return std::nullopt;
  };
}

}  // namespace stackcheck::runtime::testing
