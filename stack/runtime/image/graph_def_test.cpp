// Tests of the GraphDefinition format: encoding, hash, and structural validation (§9).
#include <gtest/gtest.h>

#include "stack/runtime/image/graph_def.h"

namespace stackcheck::runtime {
namespace {

GraphTensorArgDef targ(uint32_t src, uint32_t idx, uint32_t tag) {
  GraphTensorArgDef a{};
  a.source = src;
  a.index = idx;
  a.tag = tag;
  a.rank = 1;
  a.shape[0] = 8;
  a.stride[0] = 1;
  return a;
}

// node0: alloc internal 0; node1: scale(boundary0 -> internal0, slot 0); node2: add -> boundary1
GraphDefSpec example() {
  GraphDefSpec s;
  s.fn_id = 3;
  s.n_boundary_tensors = 2;
  s.n_boundary_scalars = 1;
  s.internal_bytes = {32, 100};
  s.nodes.push_back({kAllocKernelId, {targ(kSrcInternal, 0, kTagOutput)}, {}, {}});
  s.nodes.push_back({4,
                     {targ(kSrcBoundary, 0, kTagInput), targ(kSrcInternal, 0, kTagOutputExisting)},
                     {GraphScalarArgDef{kScalarSlot, 0, 0}},
                     {0}});
  s.nodes.push_back(
      {2,
       {targ(kSrcInternal, 0, kTagInput), targ(kSrcBoundary, 0, kTagInput), targ(kSrcBoundary, 1, kTagInout)},
       {GraphScalarArgDef{kScalarLiteral, 0, 77}},
       {1, 0, 1}});
  return s;
}

void rehash(std::vector<std::byte>& b) {
  uint64_t h = graph_def_hash(b);
  std::memcpy(b.data() + offsetof(GraphDefHeader, hash), &h, 8);
}

TEST(GraphDef, encode_validates) {
  auto b = encode_graph_def(example());
  GraphDefHeader h{};
  auto err = validate_graph_def_bytes(b, &h);
  ASSERT_FALSE(err.has_value()) << *err;
  EXPECT_EQ(h.n_nodes, 3u);
  EXPECT_EQ(h.n_edges, 3u);  // 0->1, 0->2, 1->2 (duplicate fanin removed)
  EXPECT_EQ(h.n_tensor_args, 6u);
  EXPECT_EQ(h.n_scalar_args, 2u);
  EXPECT_EQ(h.required_heap, 64u + 128u);
  EXPECT_EQ(h.storage_bytes, graph_storage_bytes(3));
  EXPECT_EQ(graph_storage_bytes(3), 32u + 128u * 2 + 104u);
  EXPECT_EQ(h.total_bytes, b.size());
  EXPECT_EQ(h.hash, graph_def_hash(b));
}

TEST(GraphDef, hash_stable_and_sensitive) {
  auto a = encode_graph_def(example());
  auto b = encode_graph_def(example());
  EXPECT_EQ(a, b);
  auto spec = example();
  spec.nodes[2].scalars[0].value = 78;
  auto c = encode_graph_def(spec);
  EXPECT_NE(graph_def_hash(a), graph_def_hash(c));
  // Any byte flipped (outside the hash itself) is caught by the hash.
  for (size_t off : {size_t{0}, size_t{30}, a.size() / 2, a.size() - 1}) {
    auto d = a;
    d[off] ^= std::byte{1};
    EXPECT_TRUE(validate_graph_def_bytes(d).has_value()) << off;
  }
}

template <class Mutate>
std::optional<std::string> mutated(Mutate m) {
  auto b = encode_graph_def(example());
  GraphDefHeader h;
  std::memcpy(&h, b.data(), sizeof h);
  m(b, h);
  rehash(b);
  return validate_graph_def_bytes(b);
}

TEST(GraphDef, structure_rejected) {
  auto node_field = [](std::vector<std::byte>& b, const GraphDefHeader& h, uint32_t i, size_t field, uint16_t v) {
    std::memcpy(b.data() + h.nodes_off + i * sizeof(NodeDef) + field, &v, 2);
  };
  EXPECT_FALSE(mutated([](auto&, auto&) {}).has_value());  // positive control
  EXPECT_TRUE(mutated([](auto& b, auto&) { b[0] = std::byte{'X'}; }).has_value());
  // fanin entry of node 1 (== 0) made 1: not below the node
  EXPECT_TRUE(mutated([](auto& b, auto& h) {
    uint16_t v = 1;
    std::memcpy(b.data() + h.fanin_off, &v, 2);
  }));
  // fanout of node 0 lists 2 twice: not ascending
  EXPECT_TRUE(mutated([](auto& b, auto& h) {
    uint16_t v = 2;
    std::memcpy(b.data() + h.fanout_off, &v, 2);
  }));
  // kernel id out of range
  EXPECT_TRUE(mutated([&](auto& b, auto& h) { node_field(b, h, 1, 0, 99); }));
  // node n_tensors changed: ranges no longer consecutive
  EXPECT_TRUE(mutated([&](auto& b, auto& h) { node_field(b, h, 0, offsetof(NodeDef, n_tensors), 2); }));
  // boundary index past n_boundary_tensors
  EXPECT_TRUE(mutated([](auto& b, auto& h) {
    uint32_t v = 2;
    std::memcpy(b.data() + h.tensor_args_off + 1 * sizeof(GraphTensorArgDef) + 4, &v, 4);
  }));
  // SLOT index past n_boundary_scalars
  EXPECT_TRUE(mutated([](auto& b, auto& h) {
    uint64_t v = 1;
    std::memcpy(b.data() + h.scalar_args_off + 8, &v, 8);
  }));
  // internal_off not 64-aligned
  EXPECT_TRUE(mutated([](auto& b, auto& h) {
    uint64_t v = 65;
    std::memcpy(b.data() + h.internal_off_off + 8, &v, 8);
  }));
  // storage_bytes = stride * n instead of the exact span
  EXPECT_TRUE(mutated([](auto& b, auto&) {
    uint64_t v = 32 + 128 * 3;
    std::memcpy(b.data() + offsetof(GraphDefHeader, storage_bytes), &v, 8);
  }));
  // total_bytes beyond the buffer
  EXPECT_TRUE(mutated([](auto& b, auto&) {
    uint64_t v = b.size() + 64;
    std::memcpy(b.data() + offsetof(GraphDefHeader, total_bytes), &v, 8);
  }));
  EXPECT_TRUE(validate_graph_def_bytes(std::span<const std::byte>()).has_value());
}

}  // namespace
}  // namespace stackcheck::runtime
