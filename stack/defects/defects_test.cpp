// The defect registry (zoo build only): the table is complete and consistent, and
// selections parse, including pairs and unknown names.
#include "stack/defects/defects.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace stackcheck::defects {
namespace {

TEST(Defects, table_is_complete_and_consistent) {
  size_t n = 0;
  const DefectInfo* t = table(&n);
  ASSERT_EQ(n, static_cast<size_t>(Defect::kCount));
  EXPECT_GE(n, 24u);
  std::set<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(static_cast<size_t>(t[i].id), i);
    EXPECT_TRUE(names.insert(t[i].name).second) << t[i].name;
    EXPECT_EQ(find(t[i].name), t[i].id);
    EXPECT_EQ(&info(t[i].id), &t[i]);
    EXPECT_NE(std::string(t[i].where).find("stack/"), std::string::npos) << t[i].name;
    EXPECT_FALSE(std::string(t[i].description).empty());
    if (t[i].pair != nullptr) EXPECT_TRUE(find(t[i].pair).has_value()) << t[i].pair;
  }
}

TEST(Defects, selections) {
  EXPECT_EQ(parse_selection("").mask, 0u);
  EXPECT_FALSE(parse_selection("").error);
  const Selection one = parse_selection("status_negated");
  EXPECT_FALSE(one.error);
  EXPECT_EQ(one.mask, uint64_t{1} << static_cast<unsigned>(Defect::kStatusNegated));
  const Selection pair = parse_selection("rebind_provenance_lost, verifier_blind_to_rebinds");
  EXPECT_FALSE(pair.error);
  EXPECT_EQ(pair.mask, (uint64_t{1} << static_cast<unsigned>(Defect::kRebindProvenanceLost)) |
                           (uint64_t{1} << static_cast<unsigned>(Defect::kVerifierBlindToRebinds)));
  const Selection bad = parse_selection("status_negated,no_such_defect");
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.mask, 0u);
  EXPECT_NE(bad.error->find("unknown defect 'no_such_defect'"), std::string::npos) << *bad.error;
}

}  // namespace
}  // namespace stackcheck::defects
