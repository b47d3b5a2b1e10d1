// The graph-definition family (graph_def_edit.h): the two edge CSRs (fanin below its node and
// ascending, every edge in the fanout, fanout above its node).
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "properties/gen/breakers/graph_def_edit.h"

namespace stackcheck::gen::breakers {

// 21: a fanin entry at or above its node, or two entries swapped
bool forge_fanin_order(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const auto i = e.node_with([&](uint32_t x) { return e.node16(x, kNFanin) > 0; });
  if (!i) return false;
  const uint64_t at = get<uint64_t>(b, kFaninOff) + 2ull * e.node32(*i, kFaninBegin);
  const uint16_t nf = e.node16(*i, kNFanin);
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
  return true;
}

// 22: a fanout entry moved off its consumer: that edge is missing from the CSR
bool forge_edge_missing(GraphDefEdit& e) {
  std::vector<std::byte>& b = e.b;  // the lambda below reads it (a reference, not a binding)
  Forged& f = e.f;
  const uint32_t n = e.n;
  // A producer p whose last fanout entry i has i + 1 < n: it becomes i + 1 (still ascending).
  const uint64_t fanout_off = get<uint64_t>(b, kFanoutOff);
  const auto p = e.node_with([&](uint32_t x) {
    const uint16_t nf = e.node16(x, kNFanout);
    return nf > 0 && get<uint16_t>(b, fanout_off + 2ull * (e.node32(x, kFanoutBegin) + nf - 1)) + 1u < n;
  });
  if (!p) return false;
  const uint64_t at = fanout_off + 2ull * (e.node32(*p, kFanoutBegin) + e.node16(*p, kNFanout) - 1);
  const uint16_t i = get<uint16_t>(b, at);
  put<uint16_t>(b, at, static_cast<uint16_t>(i + 1));
  f.pattern = fmt::format("edge {}->{} missing from the fanout CSR", *p, i);
  f.edit = fmt::format("node {}'s fanout entry {} made {}", *p, i, i + 1);
  return true;
}

// 23: 23: a fanout entry at or below its node
bool forge_fanout_order(GraphDefEdit& e) {
  auto [c, b, f] = e.context();
  const auto p = e.node_with([&](uint32_t x) { return e.node16(x, kNFanout) > 0; });
  if (!p) return false;
  const uint64_t at = get<uint64_t>(b, kFanoutOff) + 2ull * e.node32(*p, kFanoutBegin);
  const uint16_t v = static_cast<uint16_t>(c.integer(0, *p));
  put<uint16_t>(b, at, v);
  f.pattern = fmt::format("node {} fanout {} not ascending above the node", *p, v);
  f.edit = fmt::format("node {} fanout 0 = {}", *p, v);
  return true;
}

}  // namespace stackcheck::gen::breakers
