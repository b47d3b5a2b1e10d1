"""Unit tests of scripts/lib/reach_tables.py (ctest `scripts/reach-tables`, label unit): reading
the tag tables and production tables out of a suite's output, sorting tags into limits, codes
and the rest, and refusing bad flags. Needs no build.
"""

from __future__ import annotations

import subprocess
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
import reach_tables  # noqa: E402

OUTPUT = """[ RUN      ] RuntimeExec.every_capacity_at_its_need_and_one_past
verdicts: 300 cases, 0 inconclusive
tags over 300 cases:
  limit:W:at+past                 18.0%
  scope                           30.3%
[       OK ] RuntimeExec.every_capacity_at_its_need_and_one_past (10 ms)
[ RUN      ] WellFormedRules.broken_expressions_in_every_place
tags over 100 cases:
  code-13                        416.0%
  code-13, in a loop's step       34.7%
[       OK ] WellFormedRules.broken_expressions_in_every_place (1 ms)
[ RUN      ] RuntimeProps.config_values_at_and_past_every_bound
tags over 50 cases:
  config W at-lo                   3.0%
  config W inside                  9.0%
[       OK ] RuntimeProps.config_values_at_and_past_every_bound (1 ms)
[ RUN      ] RuntimeProps.no_tags
verdicts: 10 cases, 0 inconclusive
[       OK ] RuntimeProps.no_tags (1 ms)
[ RUN      ] GenProps.plan_generator_reaches_every_production
seed 20261203, 6000 plans (choice seeds 20261203..20267202)
productions over 6000 inputs:
  stmt:scope_begin@top                      45.0%
[       OK ] GenProps.plan_generator_reaches_every_production (900 ms)
"""


class ParseTest(unittest.TestCase):
    def setUp(self):
        self.tests, self.productions = reach_tables.parse(OUTPUT)

    def test_each_property_keeps_its_own_table(self):
        self.assertEqual(self.tests["RuntimeExec.every_capacity_at_its_need_and_one_past"],
                         (300, [("limit:W:at+past", 18.0), ("scope", 30.3)]))
        self.assertEqual(self.tests["WellFormedRules.broken_expressions_in_every_place"][1][1],
                         ("code-13, in a loop's step", 34.7))
        self.assertNotIn("RuntimeProps.no_tags", self.tests)  # no table printed: no row invented

    def test_production_table_is_kept_verbatim(self):
        self.assertEqual(self.productions[0], "seed 20261203, 6000 plans (choice seeds 20261203..20267202)")
        self.assertIn("  stmt:scope_begin@top                      45.0%", self.productions)
        self.assertFalse(any(line.startswith("[") for line in self.productions))

    def test_tags_sorted_into_limits_codes_and_the_rest(self):
        limit = lambda t: bool(reach_tables.LIMIT_RE.search(t))  # noqa: E731
        code = lambda t: bool(reach_tables.CODE_RE.match(t)) and not limit(t)  # noqa: E731
        self.assertTrue(limit("limit:W:at+past"))
        self.assertTrue(limit("config W at-lo"))
        self.assertTrue(limit("int32 delta one past its limit"))
        self.assertFalse(limit("config W inside"))  # a value inside the range is no limit
        self.assertFalse(limit("scope"))
        self.assertTrue(code("code-13, in a loop's step"))
        self.assertFalse(code("scope"))
        rows = reach_tables.table("Limits", self.tests, limit)
        self.assertIn("| `RuntimeExec.every_capacity_at_its_need_and_one_past` | 300 | limit:W:at+past | 18.0% |", rows)
        self.assertFalse(any("inside" in r for r in rows))
        self.assertIn("| - | - | (none) | - |", reach_tables.table("None", self.tests, lambda t: False))


class FlagsTest(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, str(HERE.parent / "lib" / "reach_tables.py"), *args],
                              capture_output=True, text=True)

    def test_bad_flags_are_one_line_errors(self):
        r = self.run_script("--cases", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--cases must be at least 1", r.stderr)
        r = self.run_script("--preset", "no-such-preset")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no property binaries", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
