// Graph definitions forged past their hash (RUNTIME.md §9). A definition's hash is checked
// first, so a corrupted upload or a flipped byte only ever meets "definition hash": every rule
// after it (counts and §9 limits, section offsets, storage, internal_off, node ranges, argument
// sources, the two edge CSRs) is reached only by a definition whose hash was recomputed after
// the damage, which is what this property forges.
//
// A definition is drawn as a spec (1..16 nodes, or exactly the 1,024 limit; 0..128 boundary
// tensors and 0..64 boundary scalars, favouring the limits; internal allocations; nodes of up to
// the 32 tensor and 16 scalar arguments, each from the boundary, an internal allocation, a slot
// or a literal; fanin from earlier nodes) and encoded by the host encoder. It must validate, its
// header read back as encoded. Then one field is changed so that exactly one §9 rule breaks
// (every rule the validator checks before it still holds), the hash is recomputed, and
// validate_graph_def must refuse it for that rule: the forge predicts the rule, and the message
// must be that rule's. Field offsets are the spec's (§9's header at fixed offsets, 32-byte
// NodeDefs, 64-byte tensor and 16-byte scalar argument records), written here, not read from
// the encoder's structs.
//
// Class of bug: a check of §9 dropped, weakened by one (`>` for `>=` at a limit), or moved after
// another (the refusal names a later rule); a limit refused at the limit itself. Not reached: a
// definition over INT32_MAX bytes (rule 4, it needs a 2 GiB buffer; total_bytes past the buffer
// is refused first). Control: a validator blind to kernel ids.
#include "properties/gen/arbitrary.h"
#include "properties/gen/tags.h"
#include "properties/property.h"
#include "stack/runtime/image/graph_def.h"
#include "stack/runtime/image/records.h"

#include <fmt/format.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

using namespace stackcheck;

namespace {

using oracles::Verdict;
namespace rt = stackcheck::runtime;

// §9's header fields, by byte offset.
enum HeaderField : size_t {
  kHash = 8, kTotalBytes = 16, kNodes = 28, kBoundaryTensors = 32, kBoundaryScalars = 36, kTensorArgs = 40,
  kScalarArgs = 44, kInternal = 48, kEdges = 52, kRequiredHeap = 56, kStorage = 64, kNodesOff = 72,
  kTensorArgsOff = 80, kScalarArgsOff = 88, kFaninOff = 96, kFanoutOff = 104, kInternalOffOff = 112, kReserved = 120,
};
constexpr size_t kNodeBytes = 32, kTensorArgBytes = 64, kScalarArgBytes = 16;
// NodeDef fields.
enum NodeField : size_t {
  kKernel = 0, kTensorBegin = 4, kScalarBegin = 8, kFaninBegin = 12, kFanoutBegin = 16, kNTensors = 20,
  kNScalars = 22, kNFanin = 24, kNFanout = 26, kNodeReserved = 28,
};

template <class T>
T get(const std::vector<std::byte>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
template <class T>
void put(std::vector<std::byte>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

rt::GraphDefSpec draw_spec(gen::ChoiceSource& c) {
  rt::GraphDefSpec s;
  s.fn_id = static_cast<uint32_t>(c.integer(0, 7));
  s.n_boundary_tensors = static_cast<uint32_t>(c.near_edges(0, rt::kGraphMaxBoundaryTensors));
  s.n_boundary_scalars = static_cast<uint32_t>(c.near_edges(0, rt::kGraphMaxBoundaryScalars));
  const size_t n_internal = c.length(4);
  for (size_t k = 0; k < n_internal; ++k) s.internal_bytes.push_back(static_cast<uint64_t>(c.integer(1, 4096)));
  const bool at_limit = c.chance(5);
  const size_t n = at_limit ? rt::kGraphMaxNodes : 1 + c.length(15);
  if (at_limit) gen::tag("nodes-at-limit");
  for (size_t i = 0; i < n; ++i) {
    rt::GraphNodeSpec node;
    node.kernel_id = static_cast<int32_t>(c.near_edges(0, rt::kMaxBuiltinKernelId));
    const bool sources = s.n_boundary_tensors > 0 || n_internal > 0;
    const size_t nt = !sources ? 0 : !at_limit && c.chance(3) ? rt::kGraphMaxNodeTensors : c.length(3);
    for (size_t a = 0; a < nt; ++a) {
      rt::GraphTensorArgDef t{};
      const bool boundary = s.n_boundary_tensors > 0 && (n_internal == 0 || c.boolean());
      t.source = boundary ? rt::kSrcBoundary : rt::kSrcInternal;
      t.index = static_cast<uint32_t>(
          c.near_edges(0, static_cast<int64_t>(boundary ? s.n_boundary_tensors : n_internal) - 1));
      t.tag = static_cast<uint32_t>(c.integer(rt::kTagInput, rt::kTagNoDep));
      t.rank = static_cast<uint32_t>(c.integer(1, 4));
      for (uint32_t d = 0; d < t.rank; ++d) {
        t.shape[d] = static_cast<int32_t>(c.integer(1, 64));
        t.stride[d] = static_cast<int32_t>(c.integer(1, 4096));
      }
      t.offset_bytes = static_cast<uint64_t>(c.integer(0, 1 << 16)) * 4;
      node.tensors.push_back(t);
    }
    const size_t ns = !at_limit && c.chance(3) ? rt::kGraphMaxNodeScalars : c.length(2);
    for (size_t a = 0; a < ns; ++a) {
      rt::GraphScalarArgDef v{};
      const bool slot = s.n_boundary_scalars > 0 && c.boolean();
      v.source = slot ? rt::kScalarSlot : rt::kScalarLiteral;
      v.value = slot ? static_cast<uint64_t>(c.near_edges(0, s.n_boundary_scalars - 1))
                     : static_cast<uint64_t>(c.integer(-1000, 1000));
      node.scalars.push_back(v);
    }
    const size_t nf = i == 0 ? 0 : c.length(std::min<size_t>(i, 3));
    for (size_t e = 0; e < nf; ++e) node.fanin.push_back(static_cast<uint16_t>(c.integer(0, static_cast<int64_t>(i) - 1)));
    s.nodes.push_back(std::move(node));
  }
  return s;
}

// One forged definition: the bytes (hash recomputed unless the hash is what was forged), the
// rule broken and the pattern its message must match.
struct Forged {
  std::vector<std::byte> bytes;
  std::string rule;
  std::string pattern;
  std::string edit;
};

constexpr int kEdits = 24;
constexpr const char* kEditNames[kEdits] = {
    "magic",        "total-bytes",   "hash",          "reserved",     "node-count",   "boundary-counts",
    "arg-totals",   "edge-count",    "offsets",       "storage",      "internal-off", "required-heap",
    "heap-int32",   "node-reserved", "kernel-id",     "node-counts",  "consecutive",  "past-totals",
    "cover-totals", "tensor-arg",    "scalar-arg",    "fanin-order",  "edge-missing", "fanout-order"};

// Applies edit `kind` to a valid definition; nullopt when the definition has no place for it
// (no internal allocation, no node with a fanin, ...).
std::optional<Forged> forge(gen::ChoiceSource& c, std::vector<std::byte> b, int kind) {
  const uint32_t n = get<uint32_t>(b, kNodes);
  const uint32_t n_bt = get<uint32_t>(b, kBoundaryTensors), n_bs = get<uint32_t>(b, kBoundaryScalars);
  const uint32_t T = get<uint32_t>(b, kTensorArgs), K = get<uint32_t>(b, kScalarArgs);
  const uint32_t n_internal = get<uint32_t>(b, kInternal);
  const uint64_t nodes_off = get<uint64_t>(b, kNodesOff), internal_off_off = get<uint64_t>(b, kInternalOffOff);
  const auto node_at = [&](uint32_t i) { return nodes_off + uint64_t{i} * kNodeBytes; };
  const auto node16 = [&](uint32_t i, size_t f) { return get<uint16_t>(b, node_at(i) + f); };
  const auto node32 = [&](uint32_t i, size_t f) { return get<uint32_t>(b, node_at(i) + f); };
  // Nodes with a property, or nullopt.
  const auto node_with = [&](const std::function<bool(uint32_t)>& ok) -> std::optional<uint32_t> {
    std::vector<uint32_t> v;
    for (uint32_t i = 0; i < n; ++i)
      if (ok(i)) v.push_back(i);
    if (v.empty()) return std::nullopt;
    return v[c.one_of(v.size())];
  };
  Forged f;
  f.rule = kEditNames[kind];
  bool rehash = true;
  switch (kind) {
    case 0: {  // magic
      const size_t at = c.one_of(8);
      put<uint8_t>(b, at, static_cast<uint8_t>(get<uint8_t>(b, at) ^ static_cast<uint8_t>(c.integer(1, 255))));
      f.pattern = "definition magic";
      f.edit = fmt::format("magic byte {} changed", at);
      break;
    }
    case 1: {  // total_bytes outside [128, available]
      const uint64_t v = c.boolean() ? b.size() + 8 * static_cast<uint64_t>(c.integer(1, 64))
                                     : static_cast<uint64_t>(c.integer(0, 127));
      put<uint64_t>(b, kTotalBytes, v);
      f.pattern = R"(definition total_bytes \d+ outside \[128, \d+\])";
      f.edit = fmt::format("total_bytes {} (the buffer holds {})", v, b.size());
      break;
    }
    case 2: {  // a byte after the header changed, the hash left as it was
      const size_t at = static_cast<size_t>(c.integer(128, static_cast<int64_t>(b.size()) - 1));
      put<uint8_t>(b, at, static_cast<uint8_t>(get<uint8_t>(b, at) ^ static_cast<uint8_t>(c.integer(1, 255))));
      rehash = false;
      f.pattern = R"(definition hash 0x[0-9a-f]+ != stored 0x[0-9a-f]+)";
      f.edit = fmt::format("byte {} changed, hash kept", at);
      break;
    }
    case 3:
      put<uint64_t>(b, kReserved, static_cast<uint64_t>(c.integer(1, INT64_MAX)));
      f.pattern = "definition reserved field nonzero";
      f.edit = "header reserved nonzero";
      break;
    case 4: {
      const uint32_t v = c.boolean() ? 0 : static_cast<uint32_t>(c.near_edges(rt::kGraphMaxNodes + 1, UINT32_MAX));
      put<uint32_t>(b, kNodes, v);
      f.pattern = R"(definition has \d+ nodes \(1\.\.1024\))";
      f.edit = fmt::format("n_nodes {}", v);
      break;
    }
    case 5: {
      const bool tensors = c.boolean();
      const uint32_t v = static_cast<uint32_t>(
          c.near_edges((tensors ? rt::kGraphMaxBoundaryTensors : rt::kGraphMaxBoundaryScalars) + 1, UINT32_MAX));
      put<uint32_t>(b, tensors ? kBoundaryTensors : kBoundaryScalars, v);
      f.pattern = "definition boundary counts over limit";
      f.edit = fmt::format("n_boundary_{} {}", tensors ? "tensors" : "scalars", v);
      break;
    }
    case 6: {
      const bool tensors = c.boolean();
      const uint64_t v = uint64_t{n} * (tensors ? rt::kGraphMaxNodeTensors : rt::kGraphMaxNodeScalars) + 1;
      put<uint32_t>(b, tensors ? kTensorArgs : kScalarArgs, static_cast<uint32_t>(v));
      f.pattern = "definition argument totals over limit";
      f.edit = fmt::format("n_{}_args {} for {} nodes", tensors ? "tensor" : "scalar", v, n);
      break;
    }
    case 7:
      put<uint32_t>(b, kEdges, n * n + 1);
      f.pattern = "definition edge count";
      f.edit = fmt::format("n_edges {} for {} nodes", n * n + 1, n);
      break;
    case 8: {  // an offset moved, or total_bytes grown with the buffer (both differ from the plan)
      const size_t which = c.one_of(7);
      if (which == 6) {
        b.resize(b.size() + 64, std::byte{0});
        put<uint64_t>(b, kTotalBytes, b.size());
        f.edit = "64 bytes appended, total_bytes grown to match";
      } else {
        const size_t field = kNodesOff + 8 * which;
        put<uint64_t>(b, field, get<uint64_t>(b, field) + 64);
        f.edit = fmt::format("section offset at @{} moved by 64", field);
      }
      f.pattern = "definition section offsets differ from the plan";
      break;
    }
    case 9: {
      const uint64_t v = get<uint64_t>(b, kStorage) + (c.boolean() ? 64 : static_cast<uint64_t>(-64));
      put<uint64_t>(b, kStorage, v);
      f.pattern = R"(definition storage_bytes \d+ != \d+)";
      f.edit = "storage_bytes moved by 64";
      break;
    }
    case 10: {  // internal_off: entry 0 nonzero; a later entry misaligned, equal to or below the one before
      const uint32_t k = static_cast<uint32_t>(c.integer(0, n_internal));
      const uint64_t at = internal_off_off + 8ull * k;
      const uint64_t prev = k == 0 ? 0 : get<uint64_t>(b, at - 8);
      const size_t how = k == 0 ? 0 : c.one_of(prev >= 64 ? 3 : 2);
      if (k == 0) {
        put<uint64_t>(b, at, 64 * static_cast<uint64_t>(c.integer(1, 4)));
        f.edit = "internal_off[0] nonzero";
      } else if (how == 0) {
        put<uint64_t>(b, at, get<uint64_t>(b, at) + static_cast<uint64_t>(c.integer(1, 63)));
        f.edit = fmt::format("internal_off[{}] not a multiple of 64", k);
      } else if (how == 1) {
        put<uint64_t>(b, at, prev);
        f.edit = fmt::format("internal_off[{}] = internal_off[{}]", k, k - 1);
      } else {
        put<uint64_t>(b, at, prev - 64);
        f.edit = fmt::format("internal_off[{}] below internal_off[{}]", k, k - 1);
      }
      f.pattern = how == 1 ? fmt::format("internal allocation {} is empty", k - 1)
                           : fmt::format(R"(internal_off\[{}\] = \d+ not an ALIGN64 prefix sum)", k);
      break;
    }
    case 11:
      put<uint64_t>(b, kRequiredHeap, get<uint64_t>(b, kRequiredHeap) + 64);
      f.pattern = "internal_off does not end at required_heap";
      f.edit = "required_heap + 64";
      break;
    case 12: {  // the last internal allocation grown to 2 GiB, required_heap with it
      if (n_internal == 0) return std::nullopt;
      const uint64_t v = uint64_t{1} << 31;
      put<uint64_t>(b, internal_off_off + 8ull * n_internal, v);
      put<uint64_t>(b, kRequiredHeap, v);
      f.pattern = R"(required_heap \+ args \+ storage > INT32_MAX)";
      f.edit = "the last internal allocation grown to 2 GiB";
      break;
    }
    case 13: {
      const uint32_t i = static_cast<uint32_t>(c.integer(0, n - 1));
      put<uint32_t>(b, node_at(i) + kNodeReserved, static_cast<uint32_t>(c.integer(1, UINT32_MAX)));
      f.pattern = fmt::format("node {} reserved field nonzero", i);
      f.edit = fmt::format("node {} reserved nonzero", i);
      break;
    }
    case 14: {
      const uint32_t i = static_cast<uint32_t>(c.integer(0, n - 1));
      const int32_t v = c.boolean() ? static_cast<int32_t>(c.near_edges(INT32_MIN, -1))
                                    : static_cast<int32_t>(c.near_edges(rt::kMaxBuiltinKernelId + 1, INT32_MAX));
      put<int32_t>(b, node_at(i) + kKernel, v);
      f.pattern = fmt::format("node {} kernel id {}", i, v);
      f.edit = fmt::format("node {} kernel id {}", i, v);
      break;
    }
    case 15: {
      const uint32_t i = static_cast<uint32_t>(c.integer(0, n - 1));
      const bool tensors = c.boolean();
      const uint16_t v = static_cast<uint16_t>(
          c.near_edges((tensors ? rt::kGraphMaxNodeTensors : rt::kGraphMaxNodeScalars) + 1, UINT16_MAX));
      put<uint16_t>(b, node_at(i) + (tensors ? kNTensors : kNScalars), v);
      f.pattern = fmt::format("node {} argument counts over limit", i);
      f.edit = fmt::format("node {} n_{} {}", i, tensors ? "tensors" : "scalars", v);
      break;
    }
    case 16: {  // a range start off by one
      const uint32_t i = static_cast<uint32_t>(c.integer(0, n - 1));
      const size_t field = kTensorBegin + 4 * c.one_of(4);
      put<uint32_t>(b, node_at(i) + field, node32(i, field) + 1);
      f.pattern = fmt::format("node {} ranges are not consecutive", i);
      f.edit = fmt::format("node {} range start @{} + 1", i, field);
      break;
    }
    case 17: {  // the last node one argument more than the totals hold
      const uint32_t i = n - 1;
      const bool tensors = c.boolean();
      const uint16_t cur = node16(i, tensors ? kNTensors : kNScalars);
      if (cur >= (tensors ? rt::kGraphMaxNodeTensors : rt::kGraphMaxNodeScalars)) return std::nullopt;
      put<uint16_t>(b, node_at(i) + (tensors ? kNTensors : kNScalars), static_cast<uint16_t>(cur + 1));
      f.pattern = fmt::format("node {} ranges past the totals", i);
      f.edit = fmt::format("last node n_{} + 1", tensors ? "tensors" : "scalars");
      break;
    }
    case 18: {  // the last node one argument fewer: the totals are not covered
      const uint32_t i = n - 1;
      const bool tensors = node16(i, kNTensors) > 0 && (node16(i, kNScalars) == 0 || c.boolean());
      const uint16_t cur = node16(i, tensors ? kNTensors : kNScalars);
      if (cur == 0) return std::nullopt;
      put<uint16_t>(b, node_at(i) + (tensors ? kNTensors : kNScalars), static_cast<uint16_t>(cur - 1));
      f.pattern = "node ranges do not cover the argument and edge totals";
      f.edit = fmt::format("last node n_{} - 1", tensors ? "tensors" : "scalars");
      break;
    }
    case 19: {  // a tensor argument: source, index, tag, rank or reserved
      if (T == 0) return std::nullopt;
      const auto i = node_with([&](uint32_t x) { return node16(x, kNTensors) > 0; });
      const uint32_t a = static_cast<uint32_t>(c.integer(0, node16(*i, kNTensors) - 1));
      const uint64_t at = get<uint64_t>(b, kTensorArgsOff) + (uint64_t{node32(*i, kTensorBegin)} + a) * kTensorArgBytes;
      const uint32_t source = get<uint32_t>(b, at);
      switch (c.one_of(5)) {
        case 0: put<uint32_t>(b, at, c.boolean() ? 0 : static_cast<uint32_t>(c.integer(3, UINT32_MAX))); f.edit = "source"; break;
        case 1:
          put<uint32_t>(b, at + 4, source == rt::kSrcBoundary ? n_bt : n_internal);
          f.edit = "index one past its pool";
          break;
        case 2: put<uint32_t>(b, at + 16, c.boolean() ? rt::kTagInput - 1 : rt::kTagNoDep + 1); f.edit = "tag"; break;
        case 3: put<uint32_t>(b, at + 20, c.boolean() ? 0 : 5); f.edit = "rank"; break;
        default: put<uint64_t>(b, at + 56, static_cast<uint64_t>(c.integer(1, INT64_MAX))); f.edit = "reserved"; break;
      }
      f.pattern = fmt::format("node {} tensor arg {} malformed", *i, a);
      f.edit = fmt::format("node {} tensor arg {}: {}", *i, a, f.edit);
      break;
    }
    case 20: {  // a scalar argument: source, slot index, reserved
      if (K == 0) return std::nullopt;
      const auto i = node_with([&](uint32_t x) { return node16(x, kNScalars) > 0; });
      const uint32_t a = static_cast<uint32_t>(c.integer(0, node16(*i, kNScalars) - 1));
      const uint64_t at = get<uint64_t>(b, kScalarArgsOff) + (uint64_t{node32(*i, kScalarBegin)} + a) * kScalarArgBytes;
      switch (c.one_of(3)) {
        case 0: put<uint32_t>(b, at, c.boolean() ? 0 : 3); f.edit = "source"; break;
        case 1:
          put<uint32_t>(b, at, rt::kScalarSlot);
          put<uint64_t>(b, at + 8, n_bs + static_cast<uint64_t>(c.integer(0, 3)));
          f.edit = "slot past the boundary scalars";
          break;
        default: put<uint32_t>(b, at + 4, static_cast<uint32_t>(c.integer(1, UINT32_MAX))); f.edit = "reserved"; break;
      }
      f.pattern = fmt::format("node {} scalar arg {} malformed", *i, a);
      f.edit = fmt::format("node {} scalar arg {}: {}", *i, a, f.edit);
      break;
    }
    case 21: {  // a fanin entry at or above its node, or two entries swapped
      const auto i = node_with([&](uint32_t x) { return node16(x, kNFanin) > 0; });
      if (!i) return std::nullopt;
      const uint64_t at = get<uint64_t>(b, kFaninOff) + 2ull * node32(*i, kFaninBegin);
      const uint16_t nf = node16(*i, kNFanin);
      if (nf >= 2 && c.boolean()) {
        const uint16_t p0 = get<uint16_t>(b, at), p1 = get<uint16_t>(b, at + 2);
        put<uint16_t>(b, at, p1);
        put<uint16_t>(b, at + 2, p0);
        f.pattern = fmt::format("node {} fanin {} not ascending below the node", *i, p0);
        f.edit = fmt::format("node {} fanin entries 0 and 1 swapped", *i);
      } else {
        const uint16_t v = static_cast<uint16_t>(c.integer(*i, UINT16_MAX));
        put<uint16_t>(b, at, v);
        f.pattern = fmt::format("node {} fanin {} not ascending below the node", *i, v);
        f.edit = fmt::format("node {} fanin 0 = {}", *i, v);
      }
      break;
    }
    case 22: {  // a fanout entry moved off its consumer: that edge is missing from the CSR
      // A producer p whose last fanout entry i has i + 1 < n: it becomes i + 1 (still ascending).
      const uint64_t fanout_off = get<uint64_t>(b, kFanoutOff);
      const auto p = node_with([&](uint32_t x) {
        const uint16_t nf = node16(x, kNFanout);
        return nf > 0 && get<uint16_t>(b, fanout_off + 2ull * (node32(x, kFanoutBegin) + nf - 1)) + 1u < n;
      });
      if (!p) return std::nullopt;
      const uint64_t at = fanout_off + 2ull * (node32(*p, kFanoutBegin) + node16(*p, kNFanout) - 1);
      const uint16_t i = get<uint16_t>(b, at);
      put<uint16_t>(b, at, static_cast<uint16_t>(i + 1));
      f.pattern = fmt::format("edge {}->{} missing from the fanout CSR", *p, i);
      f.edit = fmt::format("node {}'s fanout entry {} made {}", *p, i, i + 1);
      break;
    }
    default: {  // 23: a fanout entry at or below its node
      const auto p = node_with([&](uint32_t x) { return node16(x, kNFanout) > 0; });
      if (!p) return std::nullopt;
      const uint64_t at = get<uint64_t>(b, kFanoutOff) + 2ull * node32(*p, kFanoutBegin);
      const uint16_t v = static_cast<uint16_t>(c.integer(0, *p));
      put<uint16_t>(b, at, v);
      f.pattern = fmt::format("node {} fanout {} not ascending above the node", *p, v);
      f.edit = fmt::format("node {} fanout 0 = {}", *p, v);
      break;
    }
  }
  if (rehash) {  // over what the validator hashes: total_bytes bytes (all of them when it lies)
    const uint64_t total = get<uint64_t>(b, kTotalBytes);
    const size_t len = total >= 128 && total <= b.size() ? static_cast<size_t>(total) : b.size();
    put<uint64_t>(b, kHash, rt::graph_def_hash(std::span<const std::byte>(b).first(len)));
  }
  f.bytes = std::move(b);
  return f;
}

using Validator = std::function<std::optional<std::string>(std::span<const std::byte>, rt::GraphDefHeader*)>;

void judge_forged(const Validator& validate, const rt::GraphDefSpec& spec, const Forged& forged);
void forged_case(const Validator& validate, std::optional<int> only) {
  const rt::GraphDefSpec spec = gen::draw_value<rt::GraphDefSpec>(draw_spec);
  const std::vector<std::byte> good = rt::encode_graph_def(spec);
  rt::GraphDefHeader h{};
  if (auto why = validate(good, &h))
    props::report(Verdict::fail("graph-def", fmt::format("a definition within §9 is refused: {}", *why)));
  if (std::memcmp(&h, good.data(), sizeof h) != 0)
    props::report(Verdict::fail("graph-def", "the header read back differs from the encoded one"));
  // One edit, drawn; one with no place in this definition gives way to another (up to four).
  std::optional<Forged> f;
  for (int attempt = 0; attempt < 4 && !f; ++attempt) {
    const int kind = only ? *only : static_cast<int>(gen::choices().one_of(kEdits));
    // By value: RapidCheck replays the recipe while it shrinks, after this scope is gone.
    f = gen::draw_value<std::optional<Forged>>([good, kind](gen::ChoiceSource& c) { return forge(c, good, kind); });
  }
  if (!f) props::report(Verdict::inconclusive(oracles::Inconclusive::kUnsupported, "no place for the edit"));
  judge_forged(validate, spec, *f);
}

void judge_forged(const Validator& validate, const rt::GraphDefSpec& spec, const Forged& forged) {
  const Forged* f = &forged;
  gen::tag("forged-" + f->rule);
  const std::optional<std::string> why = validate(f->bytes, nullptr);
  const std::string context =
      fmt::format("{} nodes, {} boundary tensors, {} boundary scalars, {} internal: {} (rule {})", spec.nodes.size(),
                  spec.n_boundary_tensors, spec.n_boundary_scalars, spec.internal_bytes.size(), f->edit, f->rule);
  if (!why)
    props::report(Verdict::fail("graph-def-forged", fmt::format("accepted a forged definition: {}", context)));
  if (!std::regex_match(*why, std::regex(f->pattern)))
    props::report(Verdict::fail("graph-def-forged", fmt::format("refused a forged definition with \"{}\"; the rule "
                                                                "broken wants \"{}\": {}",
                                                                *why, f->pattern, context)));
}

std::optional<std::string> real_validator(std::span<const std::byte> b, rt::GraphDefHeader* h) {
  return rt::validate_graph_def_bytes(b, h);
}

}  // namespace

STACKCHECK_PROP(GraphDefProps, forged_definitions_refused_for_the_rule_broken, 0.05) {
  forged_case(real_validator, std::nullopt);
}

// Every one of the 24 edits forged in one drawn definition (each where it has a place), each
// judged as above: a rule's variants (a tensor argument's tag, rank or reserved word; each
// section offset) are met at 100 cases instead of four times each.
namespace {
void every_edit_case(const Validator& validate) {
  const rt::GraphDefSpec spec = gen::draw_value<rt::GraphDefSpec>(draw_spec);
  const std::vector<std::byte> good = rt::encode_graph_def(spec);
  if (auto why = validate(good, nullptr))
    props::report(Verdict::fail("graph-def", fmt::format("a definition within §9 is refused: {}", *why)));
  for (int kind = 0; kind < kEdits; ++kind) {
    const auto f =
        gen::draw_value<std::optional<Forged>>([good, kind](gen::ChoiceSource& c) { return forge(c, good, kind); });
    if (f) judge_forged(validate, spec, *f);
  }
}
}  // namespace
STACKCHECK_PROP(GraphDefProps, every_edit_forged_in_each_definition, 0.0) { every_edit_case(real_validator); }

namespace {
// The control's validator: the real one, except that it lets a bad kernel id through.
std::optional<std::string> blind_to_kernel_ids(std::span<const std::byte> b, rt::GraphDefHeader* h) {
  std::optional<std::string> why = rt::validate_graph_def_bytes(b, h);
  if (why && why->find("kernel id") != std::string::npos) return std::nullopt;
  return why;
}
}  // namespace

TEST(GraphDefPropsControl, a_validator_blind_to_kernel_ids_fails_every_edit) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] {
                         ++props::tally().cases;
                         every_edit_case(blind_to_kernel_ids);
                       }),
                       "accepted a forged definition");
}
TEST(GraphDefPropsControl, a_validator_blind_to_kernel_ids_fails) {
  EXPECT_FATAL_FAILURE(rc::detail::checkGTest([] { forged_case(blind_to_kernel_ids, 14); }),
                       "accepted a forged definition");
}
