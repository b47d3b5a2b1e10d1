"""Unit tests of scripts/lib/coverage.py (ctest `scripts/coverage`, label unit, every preset).

The classification on synthetic exports: which paths are measured (ccache-relative paths,
another clone's, test-only files left out), lcov lines, branches from the JSON export once per
source location (a never-evaluated branch is not reached; two template instantiations that
each take one outcome reach both), folded branches (a condition the compiler decided) left out as llvm-cov leaves them out, the zoo's hooks (code only a switched-on defect runs) left out, a closing brace after a jump that ran left out, lines given to the innermost function (a lambda inside a function), and the
positive control: a line only the unit side reaches must come out as a blind spot of the
harness, a line neither reaches as unreached, and a harness-reached line as neither. Bad flags
and a broken reasons file are one-line errors. Needs no build.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
import coverage  # noqa: E402
from fuzzlib import UsageError  # noqa: E402

LCOV_H = """SF:/w/repo/build/coverage/../../stack/ir/a.cpp
DA:10,3
DA:11,3
DA:12,0
DA:13,0
DA:20,1
end_of_record
SF:/w/repo/build/coverage/../../stack/ir/a_test.cpp
DA:1,5
end_of_record
SF:/w/repo/properties/oracles/x.cpp
DA:1,5
end_of_record
"""
LCOV_U = """SF:/other/clone/stack/ir/a.cpp
DA:10,1
DA:11,1
DA:12,4
DA:13,0
DA:20,0
end_of_record
"""

# llvm-cov's JSON export: [line, col, end line, end col, true count, false count, ...].
JSON_H = {"data": [{"files": [
    {"filename": "/w/repo/build/coverage/../../stack/ir/a.cpp", "branches": [[11, 5, 11, 9, 2, 0, 0, 0, 4]]},
    {"filename": "/w/repo/build/coverage/../../stack/ir/a_test.cpp", "branches": [[1, 1, 1, 2, 1, 1, 0, 0, 4]]}]}]}
# The unit side's binary holds two instantiations of the branch at 11:5, each taking one outcome.
JSON_U = {"data": [{"files": [
    {"filename": "/other/clone/stack/ir/a.cpp", "branches": [[11, 5, 11, 9, 1, 0, 0, 0, 4],
                                                              [11, 5, 11, 9, 0, 1, 0, 0, 4]]}]}]}


class PathsTest(unittest.TestCase):
    def test_measured_paths(self):
        self.assertEqual(coverage.stack_path("/w/r/build/coverage/../../stack/ir/a.cpp"), "stack/ir/a.cpp")
        self.assertEqual(coverage.stack_path("/elsewhere/stack/runtime/host/bind.h"), "stack/runtime/host/bind.h")
        for left_out in ("/w/stack/ir/a_test.cpp", "/w/stack/defects/defects.cpp", "/w/stack/ir/testing.h",
                         "/w/stack/runtime/host/test_support.h", "/w/stack/codegen/codegen_test_util.h",
                         "/w/properties/oracles/deps.cpp", "/usr/include/fmt/core.h"):
            self.assertIsNone(coverage.stack_path(left_out), left_out)

    def test_ranges(self):
        self.assertEqual(coverage.ranges([]), "-")
        self.assertEqual(coverage.ranges([3]), "3")
        self.assertEqual(coverage.ranges([1, 2, 3, 7, 9, 10]), "1-3 7 9-10")


class ClassifyTest(unittest.TestCase):
    def setUp(self):
        self.h = coverage.read_lcov(LCOV_H)
        self.u = coverage.read_lcov(LCOV_U)
        coverage.read_branches(JSON_H, self.h)
        coverage.read_branches(JSON_U, self.u)

    def test_only_stack_sources_are_read(self):
        self.assertEqual(list(self.h), ["stack/ir/a.cpp"])
        self.assertEqual(list(self.u), ["stack/ir/a.cpp"])
        self.assertEqual(self.h["stack/ir/a.cpp"].branches[(11, 5, 11, 9, 1)], 0)  # the false outcome, never taken
        self.assertEqual(len(self.u["stack/ir/a.cpp"].branches), 2)  # one decision, two outcomes, instantiations unified

    def test_tallies(self):
        # lines 10-13, 20: harness 10 11 20, unit 10 11 12; union 10 11 12 20
        # branches: harness 1 of 2, unit 2 of 2
        self.assertEqual(coverage.tally(self.h["stack/ir/a.cpp"], self.u["stack/ir/a.cpp"]), [5, 3, 3, 4, 2, 1, 2, 2])

    def test_blind_spots_by_function(self):
        funcs = [coverage.Function("stack/ir/a.cpp", 9, 14, ["_Z1fv"]),
                 coverage.Function("stack/ir/a.cpp", 12, 13, ["_Z1fv_lambda"]),
                 coverage.Function("stack/ir/a.cpp", 19, 21, ["_Z1gv"])]
        names = {"_Z1fv": "f()", "_Z1fv_lambda": "f()::$_0::operator()() const", "_Z1gv": "g()"}
        reasons = [("stack/ir/a.cpp", "$_0", "defensive: a reviewed reason")]
        rows, funcs_out = coverage.build_tables(self.h, self.u, funcs, names, reasons)
        self.assertEqual(rows[0], ("total", "stack/", 5, 3, 3, 4, 2, 1, 2, 2))
        self.assertIn(("folder", "stack/ir", 5, 3, 3, 4, 2, 1, 2, 2), rows)
        self.assertIn(("file", "stack/ir/a.cpp", 5, 3, 3, 4, 2, 1, 2, 2), rows)
        # f() keeps 10-11 (reached by both): nothing to list. The lambda owns 12-13: 12 only the
        # unit tests reach (a blind spot), 13 neither. g() is reached by the harness alone.
        self.assertEqual(funcs_out, [("stack/ir/a.cpp", "f()::$_0::operator()() const", 12, 13, 2, 0, 1, "12", "13",
                                      "defensive: a reviewed reason")])


# llvm-cov show -show-branches=count: 30:7 is folded in every view (an `if constexpr`), 31:9 is
# folded in one instantiation and counted in another (kept), 11:5 is an ordinary branch.
SHOW = """/w/repo/build/coverage/../../stack/ir/a.cpp:
   11|      3|  if (x) {
  ------------------
  |  Branch (11:5): [True: 2, False: 1]
  ------------------
   30|      1|  if constexpr (k) {
  ------------------
  |  Branch (30:7): [Folded - Ignored]
  ------------------
   31|      1|  if (kFlag) {
  ------------------
  |  Branch (31:9): [Folded - Ignored]
  |  Branch (31:9): [True: 0, False: 1]
  ------------------
/w/repo/stack/ir/a_test.cpp:
  |  Branch (5:1): [Folded - Ignored]
"""


class FoldedTest(unittest.TestCase):
    def test_folded_branches_are_left_out(self):
        folded = coverage.read_folded(SHOW)
        self.assertEqual(folded, {"stack/ir/a.cpp": {(30, 7)}})
        files = {"stack/ir/a.cpp": coverage.FileCov(branches={(30, 7, 30, 9, 0): 0, (30, 7, 30, 9, 1): 0,
                                                              (11, 5, 11, 9, 0): 2, (11, 5, 11, 9, 1): 0})}
        self.assertEqual(coverage.drop_folded(files, folded), 2)
        self.assertEqual(set(files["stack/ir/a.cpp"].branches), {(11, 5, 11, 9, 0), (11, 5, 11, 9, 1)})


ZOO_SRC = """int f(int a, bool b) {
  if (defects::active(defects::Defect::kA)) {
    a += 1;
    a *= 2;
  } else {
    a -= 1;
  }
  if (b && defects::active(defects::Defect::kB) &&
      a > 3)
    a = 0;
  if (!(defects::active(defects::Defect::kC) && b))
    a += 5;
  const int k = defects::active(defects::Defect::kD) ? 1 : 2;
  return a + k;
}
"""


class ZooHooksTest(unittest.TestCase):
    def test_hooks_are_found(self):
        body, cond = coverage.zoo_hooks(ZOO_SRC)
        # kA's block (not its else), kB's statement below its two-line condition; not kC's
        # negated guard (the ordinary path) nor kD's one-line ternary.
        self.assertEqual(body, {3, 4, 10})
        self.assertEqual(cond, {2: 7, 8: 12, 9: 1, 11: 9, 13: 17})

    def test_hooks_are_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "stack").mkdir()
            (Path(d) / "stack" / "z.cpp").write_text(ZOO_SRC)
            cov = coverage.FileCov(lines={2: 1, 3: 0, 4: 0, 6: 1, 10: 0, 12: 1},
                                   branches={(8, 7, 8, 8, 0): 1, (8, 12, 8, 40, 0): 0, (9, 7, 9, 12, 1): 0,
                                             (11, 9, 11, 40, 0): 0, (6, 3, 6, 4, 0): 1})
            files = {"stack/z.cpp": cov}
            self.assertEqual(coverage.drop_zoo_hooks(files, Path(d)), (3, 3))
            self.assertEqual(set(cov.lines), {2, 6, 12})
            # `b` before active() on line 8 is an ordinary branch and stays
            self.assertEqual(set(cov.branches), {(8, 7, 8, 8, 0), (6, 3, 6, 4, 0)})


BRACES_SRC = """int g(int k) {
  switch (k) {
    case 0: {
      k += 1;
      return k;  // a jump that ran
    }
    case 1: {
      return 7;
    }
  }
  return 0;
}
"""


class DeadBracesTest(unittest.TestCase):
    def test_a_brace_after_a_jump_that_ran_goes(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "stack").mkdir()
            (Path(d) / "stack" / "b.cpp").write_text(BRACES_SRC)
            h = {"stack/b.cpp": coverage.FileCov(lines={4: 2, 5: 2, 6: 0, 8: 0, 9: 0, 11: 1, 12: 0})}
            u = {"stack/b.cpp": coverage.FileCov(lines={4: 0, 5: 0, 6: 0, 8: 0, 9: 0, 11: 1, 12: 1})}
            # 6 goes (its jump ran); 9 stays (case 1 never ran: its lines are unreached code);
            # 12 stays (a side ran it)
            self.assertEqual(coverage.drop_dead_braces(h, u, Path(d)), 1)
            self.assertEqual(set(h["stack/b.cpp"].lines), {4, 5, 8, 9, 11, 12})
            self.assertEqual(set(u["stack/b.cpp"].lines), {4, 5, 8, 9, 11, 12})


class ErrorsTest(unittest.TestCase):
    def test_bad_reasons_file(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "r.tsv"
            p.write_text("# comment\nstack/ir/a.cpp\tonly two fields\n")
            with self.assertRaises(UsageError) as e:
                coverage.read_reasons(p)
            self.assertIn("r.tsv:2:", str(e.exception))

    def test_bad_flags_are_one_line(self):
        for args in (["--jobs", "0"], ["--seed", "x"], ["--corpus", "/nonexistent/dir"], ["--no-run"], ["--bogus"]):
            p = subprocess.run([sys.executable, str(HERE.parent / "lib" / "coverage.py"), *args], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 2, args)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, p.stderr))
            self.assertIn("coverage:", p.stderr)


if __name__ == "__main__":
    unittest.main()
