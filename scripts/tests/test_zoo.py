"""Unit tests of scripts/lib/zoo.py (ctest `scripts/zoo`, label unit, every preset).

The zoo preset's binaries are fakes in a temporary folder (zoo.BIN): `stackcheck defects` lists
three defects, a property suite has a property that fails only under `d_prop` (writing a
counterexample file, as properties/property.cpp does), a positive-control suite the hunt must
leave out, and a libFuzzer target (fakebin.py) crashes only under `d_fuzz`; nothing catches
`d_none`. Checked: the defect list and reproducer sizes parsed, the hunters chosen, their order,
a whole hunt (control first, each defect found by its own hunter, oracle, rule and reproducer
read back, the undetected one reported and the exit code 1), the control failing when a
property fails with no defect (the positive control), --matrix, and bad flags. Needs no build.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import fuzzlib  # noqa: E402
import zoo  # noqa: E402
from fakebin import Env, fuzzer, temp_dir, write_exe  # noqa: E402
from fuzzlib import UsageError  # noqa: E402

T = "fuzz_program" if "fuzz_program" in fuzzlib.all_targets() else fuzzlib.all_targets()[0]
SUITE = sorted(p.stem for p in (fuzzlib.ROOT / "properties").glob("*_props.cpp"))[0]

FAKE_CLI = r'''
import os, sys
if os.environ.get("FAKE_DEFECTS_FAIL"):
    print("no defects here", file=sys.stderr)
    sys.exit(1)
print(os.environ.get("FAKE_DEFECTS", "name\twhere\tdescription\nd_prop\tstack/passes/a.cpp\tdrops a check\n"
      "    the check a pass makes\nd_fuzz  stack/runtime/b.cpp  reads past the end\nd_none"))
'''
# A gtest property suite: ZooProps.catches fails under d_prop (or always, with FAKE_CONTROL_FAILS).
FAKE_SUITE = r'''
import os, sys
from pathlib import Path
if sys.argv[1] == "--gtest_list_tests":
    print("ZooProps.\n  catches\n  never_fails  # a comment\n  fixed_corpus\nZooControl.\n  planted\n"
          "Other.\n  planted_control_case")
    sys.exit(0)
name = sys.argv[1].split("=", 1)[1]
params = os.environ.get("RC_PARAMS", "")
with open(os.environ["FAKE_SUITE_LOG"], "a") as f:
    f.write(f"{name}\t{params}\t{os.environ.get('STACKCHECK_DEFECT', '-')}\n")
if name == "ZooProps.fixed_corpus":
    sys.exit(0)
cases = params.split("max_success=")[1]
if name == "ZooProps.catches" and (os.environ.get("STACKCHECK_DEFECT") == "d_prop" or os.environ.get("FAKE_CONTROL_FAILS")):
    print("stackcheck: first failing case at 0.05 s")
    Path(os.environ["STACKCHECK_COUNTEREXAMPLES"], "cx.gir").write_text(
        "# stackcheck end-to-end\n# failed: fail [value-mismatch]: entry c differs\n"
        "kernel k(a: i32)\n  x = a + 1\n\n  # note\n  y = x * 2\n}\n")
    print("Falsifiable after 7 tests and 3 shrinks")
    sys.exit(1)
print(f"verdicts: {cases} cases, 0 inconclusive")
'''


class Fakes(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir(self, "zoo-test-")
        self.bin = self.tmp / "bin"
        write_exe(self.bin / "stackcheck", FAKE_CLI)
        write_exe(self.bin / SUITE, FAKE_SUITE)
        fuzzer(self.bin, T)
        saved = zoo.BIN
        zoo.BIN = self.bin
        self.addCleanup(setattr, zoo, "BIN", saved)
        self.suite_log = self.tmp / "suite.log"
        env = Env(FAKE_SUITE_LOG=str(self.suite_log), FAKE_CRASH=f"{T}=BUG-Z", FAKE_CRASH_DEFECT="d_fuzz",
                  FAKE_FUZZ_SECONDS="0.1", STACKCHECK_DEFECT=None, FAKE_CONTROL_FAILS=None)
        env.__enter__()
        self.addCleanup(env.__exit__)


class ParsingTest(Fakes):
    def test_defect_names_and_where(self):
        self.assertEqual(zoo.defect_names(), [("d_prop", "stack/passes/a.cpp"), ("d_fuzz", "stack/runtime/b.cpp"),
                                              ("d_none", "")])

    def test_defect_listing_failures(self):
        with Env(FAKE_DEFECTS_FAIL="1"), self.assertRaisesRegex(UsageError, "stackcheck defects failed: no defects"):
            zoo.defect_names()
        with Env(FAKE_DEFECTS="name  where\n  only a description"), self.assertRaisesRegex(UsageError, "no defect"):
            zoo.defect_names()

    def test_statements_count_what_the_zoo_ctest_counts(self):
        text = "# stackcheck x\nkernel k()\n  a = 1\n\n  # c\n  b = a\n  }\ngraph g()\norchestration o()\n  run k\n"
        self.assertEqual(zoo.statements(text), 3)
        self.assertEqual(zoo.statements(""), 0)

    def test_hunters_leave_out_positive_controls(self):
        hs = zoo.hunters()
        self.assertEqual([(h.kind, h.name) for h in hs], [("property", "ZooProps.catches"),
                                                          ("property", "ZooProps.never_fails"),
                                                          ("property", "ZooProps.fixed_corpus"), ("fuzz", T)])
        self.assertEqual(hs[0].binary, self.bin / SUITE)
        (self.bin / T).unlink()
        self.assertNotIn("fuzz", {h.kind for h in zoo.hunters()})

    def test_hunter_commands(self):
        work = self.tmp / "w"
        cmd, env = zoo.Hunter("property", "S.p", self.bin / SUITE).command(3, 10, work, 400)
        self.assertEqual(cmd, [str(self.bin / SUITE), "--gtest_filter=S.p"])
        self.assertEqual(env, {"RC_PARAMS": "seed=3 max_success=400", "STACKCHECK_COUNTEREXAMPLES": str(work)})
        cmd, env = zoo.Hunter("fuzz", T, self.bin / T).command(3, 10, work, 400)
        self.assertEqual(cmd[:2], [str(self.bin / T), str(work / "corpus")])
        self.assertIn("-seed=3", cmd)
        self.assertIn("-max_total_time=10", cmd)
        self.assertIn(f"-artifact_prefix={work}/", cmd)
        self.assertTrue((work / "corpus").is_dir())


class OrderTest(unittest.TestCase):
    def hs(self) -> list[zoo.Hunter]:
        return [zoo.Hunter("property", f"S.p{i}", Path("/x")) for i in range(8)]

    def zoo(self, order: str, seed: int = 1) -> zoo.Zoo:
        return zoo.Zoo(argparse.Namespace(seed=seed, order=order, out="/nonexistent"))

    def test_cheapest_first_unknown_last_ties_by_seed(self):
        z = self.zoo("cost")
        z.cost = {"S.p3": 0.5, "S.p5": 2.0, "S.p1": 2.0, "S.p0": 9.0}
        names = [h.name for h in z.order("d", self.hs())]
        self.assertEqual(names[0], "S.p3")
        self.assertEqual(set(names[1:3]), {"S.p5", "S.p1"})
        self.assertEqual(names[3], "S.p0")
        self.assertEqual(set(names[4:]), {"S.p2", "S.p4", "S.p6", "S.p7"})
        self.assertEqual(names, [h.name for h in z.order("d", self.hs())])  # the same seed, the same order

    def test_random_order_ignores_cost_and_follows_seed_and_defect(self):
        z = self.zoo("random")
        z.cost = {f"S.p{i}": float(i) for i in range(8)}
        orders = {tuple(h.name for h in z.order(d, self.hs())) for d in ("a", "b", "c", "d")}
        self.assertGreater(len(orders), 1)
        self.assertNotIn(tuple(f"S.p{i}" for i in range(8)), orders)
        self.assertEqual(z.order("a", self.hs()), z.order("a", self.hs()))
        self.assertNotEqual([h.name for h in self.zoo("random", 2).order("a", self.hs())],
                            [h.name for h in z.order("a", self.hs())])


class HuntTest(Fakes):
    def zoo(self, *argv: str) -> tuple[int, str, str, Path]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = zoo.main(["--no-build", "--out", str(self.tmp / "out"), "--seed", "11", "--jobs", "2",
                           "--slice", "1", "--property-cap", "5", "--reduce-seconds", "0", "--minimize-seconds", "1",
                           "--cases", "10", "--control-cases", "20", *argv])
        (run,) = (self.tmp / "out").iterdir()
        return rc, out.getvalue(), err.getvalue(), run

    def rows(self, run: Path) -> dict[str, dict]:
        lines = (run / "zoo.tsv").read_text().splitlines()
        head = lines[0].split("\t")
        return {r["defect"]: r for r in (dict(zip(head, l.split("\t"))) for l in lines[1:])}

    def test_each_defect_found_by_its_hunter_and_the_undetected_one_fails_the_run(self):
        rc, out, err, run = self.zoo("--budget", "2")
        self.assertEqual(rc, 1, err)  # d_none is not detected
        rows = self.rows(run)
        self.assertEqual(list(rows), ["none", "d_prop", "d_fuzz", "d_none"])
        self.assertEqual(rows["none"]["detected"], "no")
        p = rows["d_prop"]
        self.assertEqual((p["detected"], p["oracle"], p["rule"], p["found_by"]),
                         ("yes", "end-to-end", "value-mismatch", "ZooProps.catches"))
        self.assertEqual(p["reproducer_size"], "2")
        self.assertTrue((run / p["reproducer"]).is_file())  # relative to the run folder
        self.assertLessEqual(float(p["seconds"]), float(p["shrunk_seconds"]))
        f = rows["d_fuzz"]
        self.assertEqual((f["detected"], f["oracle"], f["rule"], f["found_by"]), ("yes", "end-to-end", "rule-Z", T))
        self.assertEqual((run / f["reproducer"]).read_text(), f"# stackcheck {T}\nBUG-Z")  # minimized, text form
        self.assertEqual(f["reproducer_size"], "1")
        self.assertEqual((rows["d_none"]["detected"], rows["d_none"]["seconds"]), ("no", "2"))
        self.assertIn("d_none: NOT detected in 2s", err)
        self.assertIn("detected 2 of 3", out)
        self.assertIn("control: no failure", out)
        meta = dict(l.split("\t", 1) for l in (run / "run.tsv").read_text().splitlines()[1:])
        self.assertEqual((meta["kind"], meta["seed"], meta["status"], meta["budget_s"]), ("zoo", "11", "complete", "2"))

    def test_the_control_gives_every_hunter_one_turn_without_a_defect(self):
        self.zoo("--budget", "4", "--defects", "d_none")
        calls = [l.split("\t") for l in self.suite_log.read_text().splitlines()]
        control = [c for c in calls if c[2] == "-"]
        self.assertEqual(sorted(c[0] for c in control), ["ZooProps.catches", "ZooProps.fixed_corpus",
                                                         "ZooProps.never_fails"])
        self.assertTrue(all(c[1].endswith("max_success=20") for c in control))
        hunting = [c for c in calls if c[2] == "d_none"]
        # a fixed test (no verdicts line in the control) runs only in the first round
        self.assertEqual(sum(1 for c in hunting if c[0] == "ZooProps.fixed_corpus"), 1)
        cases = sorted({int(c[1].split("max_success=")[1]) for c in hunting if c[0] == "ZooProps.never_fails"})
        self.assertEqual(cases[:2], [10, 40])  # four times the cases each round

    def test_found_defects_with_a_clean_control_pass(self):
        rc, _, err, run = self.zoo("--budget", "20", "--defects", "d_prop,d_fuzz")
        self.assertEqual(rc, 0, err)
        self.assertEqual([r["detected"] for r in self.rows(run).values()], ["no", "yes", "yes"])

    def test_a_control_that_fails_fails_the_run(self):  # positive control
        with Env(FAKE_CONTROL_FAILS="1"):
            rc, out, err, run = self.zoo("--budget", "20", "--defects", "d_prop,d_fuzz")
        self.assertEqual(rc, 1)
        self.assertEqual(self.rows(run)["none"]["detected"], "yes")
        self.assertIn("control: FAILED: ZooProps.catches value-mismatch", err)
        self.assertIn("control: FAILED", out)

    def test_unknown_defect_and_hunter_filter(self):
        rc, _, err, _ = self.zoo("--defects", "d_nonesuch")
        self.assertEqual(rc, 2)
        self.assertIn("zoo: unknown defect 'd_nonesuch' (have: d_prop d_fuzz d_none)", err)
        shutil.rmtree(self.tmp / "out")
        rc, _, err, _ = self.zoo("--hunters", "^nothing$")
        self.assertEqual(rc, 2)
        self.assertIn("no hunter matches", err)

    def test_matrix_runs_every_hunter_against_every_defect(self):
        rc, out, _, run = self.zoo("--matrix", "--defects", "d_prop,d_fuzz", "--hunters", "catches|never|fuzz_")
        self.assertEqual(rc, 0)
        lines = (run / "matrix.tsv").read_text().splitlines()
        self.assertEqual(lines[0], "defect\thunter\toutcome\tseconds\tcases\tshrinks")
        got = {(r[0], r[1]): (r[2], r[4], r[5]) for r in (l.split("\t") for l in lines[1:])}
        self.assertEqual(got[("d_prop", "ZooProps.catches")], ("fail", "7", "3"))
        self.assertEqual(got[("d_prop", "ZooProps.never_fails")], ("pass", "-", "-"))
        self.assertEqual(got[("d_prop", T)][0], "pass")
        self.assertEqual(got[("d_fuzz", T)][0], "fail")
        self.assertEqual(got[("d_fuzz", "ZooProps.catches")][0], "pass")
        self.assertEqual(len(got), 6)
        self.assertRegex(out, r"d_prop\s+1 of 3")


class BadFlagsTest(unittest.TestCase):
    def run_zoo(self, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(HERE.parent / "lib" / "zoo.py"), *argv], capture_output=True,
                              text=True, timeout=60, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"})

    def test_one_line_and_exit_2(self):
        cases = [(["--budget", "0"], "argument --budget: '0' must be more than 0"),
                 (["--jobs", "x"], "argument --jobs: 'x' is not a number"),
                 (["--order", "alphabetic"], "argument --order: invalid choice"),
                 (["--hunters", "(unclosed"], "--hunters '(unclosed' is not a regular expression"),
                 (["--out", str(fuzzlib.ROOT / "docs" / "zoo")], "the zoo never writes into the source tree")]
        for argv, why in cases:
            p = self.run_zoo(*argv)
            self.assertEqual(p.returncode, 2, (argv, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertTrue(p.stderr.startswith("zoo: "), p.stderr)
            self.assertIn(why, p.stderr)
            self.assertIn("(see scripts/zoo --help)", p.stderr)
        self.assertFalse((fuzzlib.ROOT / "docs" / "zoo").exists())


if __name__ == "__main__":
    unittest.main()
