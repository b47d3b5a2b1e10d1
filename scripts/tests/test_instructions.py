"""Unit tests of scripts/lib/instructions.py (ctest `scripts/instructions`, label unit).

The count and the calls are read from synthetic callgrind files: names given once and then by
number (callgrind's compression), calls of the judge summed over its callers, and an overload of
the same name not counted (positive control: counting it would double the inputs). A whole
--no-build run on a fake valgrind (a Python stand-in that writes such a file) prints the table
and writes instructions.json; bad flags, a missing benchmark and a file without totals are
errors. Needs no build.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import unittest
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import instructions  # noqa: E402
from fakebin import temp_dir, write_exe  # noqa: E402
from fuzzlib import UsageError  # noqa: E402

PROGRAM = instructions.JUDGES["fuzz_program"]


def callgrind_file(total: int, calls: list[int], judge: str = PROGRAM, other: int = 0) -> str:
    lines = ["version: 1", "events: Ir", "fn=(1) main", "0 10"]
    for k, n in enumerate(calls):
        # The first call names the judge, the later ones refer to it by number.
        lines += [f"cfn=(2) {judge}" if k == 0 else "cfn=(2)", f"calls={n} 0", f"0 {100 * n}"]
    if other:
        lines += ["cfn=(3) stackcheck::judge::judge_program(stackcheck::judge::Judgement&, int)", f"calls={other} 0",
                  "0 5"]
    lines += [f"summary: {total}", f"totals: {total}", ""]
    return "\n".join(lines)


class Judged(unittest.TestCase):
    def test_total_and_calls_over_callers(self):
        d = temp_dir(self, "instructions-")
        f = Path(d) / "cg.out"
        f.write_text(callgrind_file(7_560_000, [100, 100]))
        self.assertEqual(instructions.judged(f, PROGRAM), (7_560_000, 200))

    def test_an_overload_of_the_same_name_is_not_counted(self):
        d = temp_dir(self, "instructions-")
        f = Path(d) / "cg.out"
        f.write_text(callgrind_file(1000, [100], other=100))
        self.assertEqual(instructions.judged(f, PROGRAM), (1000, 100))

    def test_a_file_without_totals_is_an_error(self):
        d = temp_dir(self, "instructions-")
        f = Path(d) / "cg.out"
        f.write_text("version: 1\nfn=(1) main\n")
        with self.assertRaises(UsageError):
            instructions.judged(f, PROGRAM)


class Flags(unittest.TestCase):
    def test_unknown_and_empty_targets(self):
        for argv in (["--targets", "fuzz_nothing"], ["--targets", ","]):
            with self.assertRaises(UsageError):
                instructions.parse_args(argv)

    def test_defaults(self):
        a = instructions.parse_args([])
        self.assertEqual(a.preset, "dev")
        self.assertEqual(a.targets, list(instructions.JUDGES))


# valgrind: writes a callgrind file for --callgrind-out-file naming the judge of --toggle-collect,
# 100 calls of it and 1,000 instructions a call.
FAKE_VALGRIND = r'''
import sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
judge = args["toggle-collect"]
open(args["callgrind-out-file"], "w").write(
    "fn=(1) main\ncfn=(2) " + judge + "\ncalls=100 0\n0 100000\nsummary: 100000\ntotals: 100000\n")
'''


class WholeRun(unittest.TestCase):
    def test_no_build_run_prints_and_writes(self):
        d = temp_dir(self, "instructions-")
        root = Path(d)
        bindir = root / "fakebin"
        write_exe(bindir / "valgrind", FAKE_VALGRIND)
        bench = root / "build" / "dev" / "bin" / "throughput_bench"
        write_exe(bench, "print('unused')")
        out = io.StringIO()
        env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
        with mock.patch.object(instructions, "ROOT", root), mock.patch.dict(os.environ, env), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = instructions.main(["--no-build", "--targets", "fuzz_program,fuzz_attach",
                                      "--out", str(root / "out")])
        self.assertEqual(code, 0)
        self.assertIn("| fuzz_program | 100 | 0.001 M |", out.getvalue())
        runs = list((root / "out").iterdir())
        self.assertEqual(len(runs), 1)
        data = json.loads((runs[0] / "instructions.json").read_text())
        self.assertEqual(data["targets"]["fuzz_attach"]["per_input"], 1000)

    def test_a_missing_benchmark_is_an_error(self):
        d = temp_dir(self, "instructions-")
        with mock.patch.object(instructions, "ROOT", Path(d)), contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(instructions.main(["--no-build", "--out", str(Path(d) / "out")]), 2)
        self.assertIn("is not built", err.getvalue())


if __name__ == "__main__":
    unittest.main()
