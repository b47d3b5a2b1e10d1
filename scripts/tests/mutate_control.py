"""The mutation judge's positive control (ctest `scripts/mutate-control`, label unit): the whole
job on a tiny CMake project with the tree's layout (a git repository, a `dev` preset, stack/,
ctest labels property and unit, a positive-control suite), no build of the tree needed, in both
modes. A mutant its property test catches must come out KILLED, naming the test, oracle and rule
it printed; the always-failing *Control suite must be left out (or the baseline would fail);
`x + 0` to `x - 0` is EQUIVALENT; a mutant only a unit test sees SURVIVES (one at a time) or is
NOT REACHED (schemata) with "unit tests catch it" under --with-unit. The schemata path: the
mutants of one build behind their switches, a schema that cannot compile (a literal in a
template argument) judged one at a time instead, the reach map naming the test that runs a
site, the zoo switch planted as a schema mutant (--control) KILLED, and every verdict of an
--all run the same in both modes (--compare). A resumed run judges nothing twice, also after a
SIGKILL with a mutant applied; two jobs judge each mutant with their own clone's binaries; and
a baseline that fails aborts with exit 1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"
sys.path.insert(0, str(LIB))
import mutate  # noqa: E402

PRESETS = """{"version": 6, "configurePresets": [{"name": "dev", "generator": "Ninja",
  "binaryDir": "${sourceDir}/build/dev", "cacheVariables": {"CMAKE_CXX_COMPILER": "g++",
  "CMAKE_BUILD_TYPE": "RelWithDebInfo", "CMAKE_CXX_FLAGS_RELWITHDEBINFO": "-O1 -g1"}}],
  "buildPresets": [{"name": "dev", "configurePreset": "dev"}]}"""
CMAKE = """cmake_minimum_required(VERSION 3.20)
project(tiny CXX)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
set(STACKCHECK_PRELUDE "" CACHE FILEPATH "scripts/mutate's switch header")
if(STACKCHECK_PRELUDE)
  add_compile_options("SHELL:-include ${STACKCHECK_PRELUDE}")
endif()
enable_testing()
add_library(stack STATIC stack/calc.cpp)
target_include_directories(stack PUBLIC ${PROJECT_SOURCE_DIR})
add_executable(calc_props properties/calc_props.cpp)
target_link_libraries(calc_props stack)
add_test(NAME CalcProps.sum_is_clamped COMMAND calc_props sum)
add_test(NAME CalcControl.planted_failure COMMAND calc_props control)
set_tests_properties(CalcProps.sum_is_clamped CalcControl.planted_failure PROPERTIES LABELS property)
add_executable(calc_unit properties/calc_unit.cpp)
target_link_libraries(calc_unit stack)
add_test(NAME calc_unit COMMAND calc_unit)
set_tests_properties(calc_unit PROPERTIES LABELS unit)
"""
CALC = """#include "stack/calc.h"
namespace stackcheck::calc {
int clamp_add(int a, int b, int cap) {
  int s = a + b;
  if (s > cap) s = cap;
  return s;
}
int zero(int x) { return x + 0; }
int triple(int x) { return x * 3; }
int width() { std::array<int, 3> a{}; return static_cast<int>(a.size()); }
int bumped(int x) {
  if (defects::active(defects::Defect::kBumpTwice)) ++x;
  return x + 1;
}
}  // namespace stackcheck::calc
"""
HEADER = """#pragma once
#include <array>
namespace stackcheck::defects {
enum class Defect { kBumpTwice };
constexpr bool active(Defect) { return false; }
}
namespace stackcheck::calc {
int clamp_add(int, int, int);
int zero(int);
int triple(int);
int width();
int bumped(int);
}
"""
PROPS = """#include <cstdio>
#include <cstring>
#include "stack/calc.h"
using namespace stackcheck::calc;
int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "control") == 0) return 1;  // the planted failure
  if (clamp_add(2, 3, 10) != 5 || clamp_add(8, 8, 10) != 10 || zero(4) != 4 || width() != 3 || bumped(1) != 2) {
    std::fprintf(stderr, "# stackcheck calc\\n# oracle: arith\\n# rule: clamped-sum\\n# message: wrong sum\\n");
    return 1;
  }
  return 0;
}
"""
UNIT = '#include "stack/calc.h"\nint main() { return stackcheck::calc::triple(2) == 6 ? 0 : 1; }\n'

KILLED = "stack/calc.cpp:4:13:arith:-"       # a + b -> a - b: the property sees it
EQUIVALENT = "stack/calc.cpp:8:28:arith:-"   # x + 0 -> x - 0: the same object code
UNIT_ONLY = "stack/calc.cpp:9:32:lit:4"      # x * 3 -> x * 4: only the unit test looks
TEMPLATE_ARG = "stack/calc.cpp:10:31:lit:4"  # std::array<int, 3> -> <int, 4>: no schema compiles there


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


class MutateControl(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name) / "tiny"
        for rel, text in {"CMakePresets.json": PRESETS, "CMakeLists.txt": CMAKE, "stack/calc.cpp": CALC,
                          "stack/calc.h": HEADER, "properties/calc_props.cpp": PROPS,
                          "properties/calc_unit.cpp": UNIT, ".gitignore": "build/\n"}.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text)
        git(self.root, "init", "-q")
        git(self.root, "add", "-A")
        git(self.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tiny")
        self.saved_root = mutate.ROOT
        mutate.ROOT = self.root
        self.out = self.root / "build" / "mutate"

    def tearDown(self):
        mutate.ROOT = self.saved_root
        self.tmp.cleanup()

    def run_mutate(self, *flags: str) -> int:
        return mutate.main(["--out", str(self.out), "--scratch", str(self.out / "scratch"), "--equivalents",
                            str(self.root / "none.tsv"), *flags])

    def rows(self, run_dir: Path) -> dict[str, dict]:
        return {r["id"]: r for r in mutate.read_tsv(run_dir / "mutants.tsv")}

    def test_judge_says_killed_equivalent_and_unit_only(self):
        flags = ["--mode", "one-at-a-time", "--with-unit", "--seed", "3",
                 *[x for i in (KILLED, EQUIVALENT, UNIT_ONLY) for x in ("--mutant", i)]]
        self.assertEqual(self.run_mutate(*flags), 0)
        [run_dir] = [p for p in self.out.iterdir() if p.name != "scratch" and p.name != "sites"]
        rows = self.rows(run_dir)
        k = rows[KILLED]
        self.assertEqual((k["outcome"], k["killer"], k["oracle"], k["rule"]),
                         ("KILLED", "CalcProps.sum_is_clamped", "arith", "clamped-sum"))
        self.assertEqual(rows[EQUIVALENT]["outcome"], "EQUIVALENT")
        u = rows[UNIT_ONLY]
        self.assertEqual((u["outcome"], u["unit"]), ("SURVIVED", "calc_unit"))
        self.assertEqual((self.root / "stack" / "calc.cpp").read_text(), CALC)  # the work tree untouched
        baseline = mutate.read_tsv(run_dir / "baseline.tsv")
        self.assertNotIn("CalcControl.planted_failure", {r["test"] for r in baseline})
        # resumed: everything was done, nothing is judged again
        before = (run_dir / "results.tsv").read_text()
        self.assertEqual(mutate.main(["--resume", str(run_dir), "--equivalents", str(self.root / "none.tsv"),
                                      "--scratch", str(self.out / "scratch")]), 0)
        self.assertEqual((run_dir / "results.tsv").read_text(), before)

    def test_two_jobs_judge_each_mutant_in_its_own_clone(self):
        killing = [KILLED, KILLED, "stack/calc.cpp:5:16:delete:deleted", "stack/calc.cpp:5:7:negate:!",
                   "stack/calc.cpp:6:10:ret:0", "stack/calc.cpp:8:30:lit:1"]
        self.assertEqual(self.run_mutate("--mode", "one-at-a-time", "--jobs", "2",
                                         *[x for i in killing for x in ("--mutant", i)]), 0)
        [run_dir] = [p for p in self.out.iterdir() if p.name not in ("scratch", "sites")]
        rows = self.rows(run_dir)
        self.assertEqual({i: rows[i]["outcome"] for i in killing}, {i: "KILLED" for i in killing})
        self.assertEqual(len(rows), 5)  # a mutant given twice is judged once
        self.assertTrue((self.out / "scratch" / "job2" / "build" / "dev" / "bin" / "calc_props").exists())

    def test_killed_run_resumes_with_the_scratch_restored(self):
        """SIGKILL in the middle of a run (a mutant may be applied in the scratch clone), then
        --resume: every planned mutant judged once, the clone's sources back to HEAD's."""
        code = (f"import sys; sys.path.insert(0, {str(LIB)!r}); import mutate; from pathlib import Path; "
                f"mutate.ROOT = Path({str(self.root)!r}); sys.exit(mutate.main(sys.argv[1:]))")
        flags = ["--out", str(self.out), "--scratch", str(self.out / "scratch"), "--equivalents",
                 str(self.root / "none.tsv")]
        # one at a time: a mutant is applied in the scratch clone while it is judged (a schemata
        # run of this tiny project ends before the kill can land)
        p = subprocess.Popen([sys.executable, "-c", code, *flags, "--sample", "10", "--seed", "4",
                              "--mode", "one-at-a-time"],
                             stderr=subprocess.PIPE, text=True)
        for line in p.stderr:
            if line.startswith("mutate: [2/"):
                break
        time.sleep(0.5)  # into the third mutant
        p.kill()
        p.wait()
        p.stderr.close()
        [run_dir] = [d for d in self.out.iterdir() if d.name not in ("scratch", "sites")]
        done = [r["id"] for r in mutate.read_tsv(run_dir / "results.tsv")]
        self.assertLess(len(done), 10)
        r = subprocess.run([sys.executable, "-c", code, "--resume", str(run_dir), "--scratch",
                            str(self.out / "scratch"), "--equivalents", str(self.root / "none.tsv")],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertIn(f"resuming: {len(done)} of 10 mutants done before", r.stderr)
        ids = [x["id"] for x in mutate.read_tsv(run_dir / "results.tsv")]
        self.assertEqual(len(ids), 10)
        self.assertEqual(len(set(ids)), 10)
        self.assertEqual(ids[:len(done)], done)
        scratch = self.out / "scratch" / "job1"
        self.assertEqual((scratch / "stack" / "calc.cpp").read_text(), CALC)
        self.assertFalse((scratch / ".stackcheck-mutant").exists())

    def test_schemata_build_judges_by_reach_and_falls_back(self):
        ids = (KILLED, EQUIVALENT, UNIT_ONLY, TEMPLATE_ARG)
        flags = ["--with-unit", "--seed", "3", *[x for i in ids for x in ("--mutant", i)]]
        self.assertEqual(self.run_mutate(*flags), 0)
        [run_dir] = [p for p in self.out.iterdir() if p.name not in ("scratch", "sites")]
        rows = self.rows(run_dir)
        k = rows[KILLED]
        self.assertEqual((k["outcome"], k["killer"], k["oracle"], k["rule"], k["path"], k["reached"]),
                         ("KILLED", "CalcProps.sum_is_clamped", "arith", "clamped-sum", "schemata", "1"))
        self.assertEqual((rows[EQUIVALENT]["outcome"], rows[EQUIVALENT]["path"]), ("EQUIVALENT", "schemata"))
        u = rows[UNIT_ONLY]
        self.assertEqual((u["outcome"], u["unit"], u["reached"]), ("NOT REACHED", "calc_unit", "0"))
        t = rows[TEMPLATE_ARG]  # taken out of the schemata build, judged one at a time
        self.assertEqual((t["outcome"], t["path"]), ("KILLED", "one at a time"))
        ejected = {r["id"]: r["why"] for r in mutate.read_tsv(run_dir / "schemata.tsv")}
        self.assertEqual(ejected, {TEMPLATE_ARG: "its schema does not compile"})
        reach = {r["id"]: r["tests"] for r in mutate.read_tsv(run_dir / "reached_by.tsv")}
        self.assertEqual(reach[KILLED], "CalcProps.sum_is_clamped")
        self.assertEqual(reach[UNIT_ONLY], "-")
        self.assertEqual((self.root / "stack" / "calc.cpp").read_text(), CALC)  # the work tree untouched

    def test_zoo_switch_as_a_schema_mutant_is_killed(self):
        self.assertEqual(self.run_mutate("--control", "bump_twice"), 0)
        [run_dir] = [p for p in self.out.iterdir() if p.name not in ("scratch", "sites")]
        [row] = self.rows(run_dir).values()
        self.assertEqual((row["outcome"], row["path"], row["operator"]), ("KILLED", "schemata", "zoo"))

    def test_both_modes_give_every_mutant_the_same_verdict(self):
        saved = mutate.mutate_schemata.CHUNK
        mutate.mutate_schemata.CHUNK = 12  # the schemata run in several builds, as --all over stack/ is
        try:
            self.assertEqual(self.run_mutate("--all", "--seed", "5", "--jobs", "2"), 0)
        finally:
            mutate.mutate_schemata.CHUNK = saved
        self.assertEqual(self.run_mutate("--all", "--seed", "5", "--mode", "one-at-a-time", "--jobs", "2"), 0)
        runs = sorted(p for p in self.out.iterdir() if p.name not in ("scratch", "sites"))
        self.assertEqual(len(runs), 2)
        a = self.rows(runs[0])
        self.assertGreater(len(a), 20)
        self.assertGreaterEqual(len(list(runs[0].glob("chunk-*/reached_by.tsv"))), 2)  # one folder a build
        self.assertEqual({r["path"] for r in a.values()} >= {"schemata"}, True)
        self.assertEqual(mutate.main(["--compare", str(runs[0]), str(runs[1]), "--equivalents",
                                      str(self.root / "none.tsv")]), 0)
        n, diffs = mutate.mutate_report.compare(runs[0], runs[1], {})
        self.assertEqual((n, diffs), (len(a), []))

    def test_diff_judges_the_lines_a_change_touched(self):
        calc = self.root / "stack" / "calc.cpp"
        calc.write_text(CALC.replace("int triple(int x) { return x * 3; }", "int triple(int x) { return x * 3 + 0; }"))
        git(self.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "a change")
        self.assertEqual(self.run_mutate("--diff", "HEAD~1", "--seed", "1"), 0)
        [run_dir] = [p for p in self.out.iterdir() if p.name not in ("scratch", "sites")]
        rows = self.rows(run_dir)
        self.assertTrue(rows)
        self.assertEqual({r["line"] for r in rows.values()}, {"9"})  # the changed line, all its sites
        self.assertEqual(rows["stack/calc.cpp:9:34:arith:-"]["outcome"], "EQUIVALENT")  # the new "+ 0"
        # nothing changed since HEAD: a clear error, exit 2
        self.assertEqual(self.run_mutate("--diff", "HEAD", "--seed", "1"), 2)

    def test_failing_baseline_aborts(self):
        props = self.root / "properties" / "calc_props.cpp"
        props.write_text(PROPS.replace("clamp_add(2, 3, 10) != 5", "clamp_add(2, 3, 10) != 6"))
        git(self.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "break the property")
        self.assertEqual(self.run_mutate("--mutant", KILLED), 1)


if __name__ == "__main__":
    if not shutil.which("cmake") or not shutil.which("ninja") or not shutil.which("g++"):
        print("mutate_control: needs cmake, ninja and g++", file=sys.stderr)
        sys.exit(1)
    unittest.main()
