"""Unit tests of scripts/lib/tools.py: scripts/replay, scripts/minimize and scripts/promote
(ctest `scripts/tools`, label unit, every preset).

The binaries they run are fakes (fakebin.py) under a temporary ROOT (build/<preset>/bin), and
promote's corpus/ is that ROOT's too, so nothing is built and nothing is written into the
tree. Each input plants what its replay shows (`BUG-A`: a finding, `ERROR`: a broken file).
Checked: the exit codes (0 no finding, 1 reproduced, 2 bad input), the route a file takes (its
header, its folder, `stackcheck replay` for a property's counterexample), minimize keeping a
smaller input only when it shows the same finding and writing its text form with a header,
promote refusing what does not reproduce, a bad --name, another file's name, and a text form
that shows another finding (the positive controls).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import fuzzlib  # noqa: E402
import tools  # noqa: E402
from fakebin import fuzzer, temp_dir, write_exe  # noqa: E402

T = "fuzz_program" if "fuzz_program" in fuzzlib.all_targets() else fuzzlib.all_targets()[0]
EXT = fuzzlib.TEXT_EXT.get(T, ".txt")

# `stackcheck replay FILE`: a counterexample holding FAILS reproduces (exit 1, first line the failure).
FAKE_CLI = r'''
import sys
from pathlib import Path
assert sys.argv[1] == "replay", sys.argv
if b"FAILS" in Path(sys.argv[2]).read_bytes():
    print("property-failure: the counterexample still fails")
    sys.exit(1)
print("passes")
'''


class ToolsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir(self, "tools-test-")
        self.root = self.tmp / "root"
        for preset in ("asan", "fuzz"):
            fuzzer(self.root / "build" / preset / "bin", T)
        write_exe(self.root / "build" / "asan" / "bin" / "stackcheck", FAKE_CLI)
        saved = tools.ROOT
        tools.ROOT = self.root
        self.addCleanup(setattr, tools, "ROOT", saved)

    def file(self, rel: str, data: bytes) -> Path:
        p = self.tmp / "inputs" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return p

    def call(self, entry, *argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = entry(list(argv))
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue(), err.getvalue()


class ReplayTest(ToolsTest):
    def replay(self, *argv: str) -> tuple[int, str, str]:
        return self.call(tools.main_replay, "--no-build", *argv)

    def test_a_finding_reproduces_through_the_header_target(self):
        f = self.file("x.bin", f"# stackcheck {T}\nBUG-A\n".encode())
        rc, out, err = self.replay(str(f))
        self.assertEqual(rc, 1)
        self.assertEqual(out.strip(), f"{f}: {T}: REPRODUCES end-to-end/rule-A: planted bug A")
        self.assertIn("# rule: rule-A", err)  # the replay's own output, unless --quiet

    def test_quiet_keeps_the_summary_only(self):
        f = self.file("x.bin", f"# stackcheck {T}\nBUG-A\n".encode())
        rc, out, err = self.replay("-q", str(f))
        self.assertEqual(rc, 1)
        self.assertIn("REPRODUCES", out)
        self.assertEqual(err, "")

    def test_a_clean_file_in_a_target_folder(self):
        f = self.file(f"crashes/{T}/crash-1", b"nothing here")
        rc, out, _ = self.replay(str(f))
        self.assertEqual((rc, out.strip()), (0, f"{f}: {T}: no finding"))

    def test_a_broken_file_is_an_error_and_wins_over_a_finding(self):
        bad = self.file(f"{T}/broken", b"ERROR")
        good = self.file(f"{T}/bug", b"BUG-B")
        rc, out, _ = self.replay(str(good), str(bad))
        self.assertEqual(rc, 2)
        self.assertIn(f"{bad}: {T}: error: {T}_replay: {bad}: broken input", out)
        self.assertIn(f"{good}: {T}: REPRODUCES end-to-end/rule-B", out)

    def test_a_property_counterexample_goes_through_stackcheck_replay(self):
        f = self.file("cx.gir", b"# stackcheck end-to-end\n# failed: fail [x]: y\nFAILS\n")
        rc, out, _ = self.replay(str(f))
        self.assertEqual(rc, 1)
        self.assertIn(f"{f}: stackcheck: REPRODUCES property/: property-failure: the counterexample still fails", out)
        f2 = self.file("cx2.gir", b"# stackcheck end-to-end\nfixed\n")
        self.assertEqual(self.replay(str(f2))[0], 0)

    def test_bad_inputs_are_usage_errors(self):
        cases = [
            (self.file("u.bin", b"# stackcheck fuzz_nonesuch\nx"), "header names unknown target 'fuzz_nonesuch'"),
            (self.file("loose/y.bin", b"no header"), "no '# stackcheck <target>' header and no target folder"),
            (self.file(f"{T}/empty", b""), "empty file"),
        ]
        for f, why in cases:
            rc, _, err = self.replay(str(f))
            self.assertEqual(rc, 2, f)
            self.assertIn(why, err)
        rc, _, err = self.replay(str(self.tmp / "absent"))
        self.assertEqual(rc, 2)
        self.assertIn("no such file", err)

    def test_a_missing_replay_binary(self):
        (self.root / "build" / "asan" / "bin" / f"{T}_replay").unlink()
        rc, _, err = self.replay(str(self.file(f"{T}/a", b"BUG-A")))
        self.assertEqual(rc, 2)
        self.assertIn("does not exist (build preset asan)", err)

    def test_the_preset_picks_the_binaries(self):
        (self.root / "build" / "asan" / "bin" / f"{T}_replay").unlink()
        rc, out, _ = self.replay("--preset", "fuzz", str(self.file(f"{T}/a", b"BUG-A")))
        self.assertEqual(rc, 1, out)


class MinimizeTest(ToolsTest):
    def minimize(self, *argv: str) -> tuple[int, str, str]:
        return self.call(tools.main_minimize, "--no-build", "--out", str(self.tmp / "min"), *argv)

    def test_a_smaller_input_with_the_same_finding_is_kept_in_text_form(self):
        f = self.file(f"crashes/{T}/crash-abc", b"padding padding BUG-A padding padding")
        rc, out, _ = self.minimize("--seconds", "5", str(f))
        self.assertEqual(rc, 0, out)
        result = self.tmp / "min" / T / f"crash-abc{EXT}"
        self.assertEqual(out.splitlines()[-1], str(result))
        self.assertIn("same finding", out)
        text = result.read_text()
        self.assertEqual(text.splitlines()[0], f"# stackcheck {T}")
        self.assertIn("# oracle: end-to-end\n# rule: rule-A\n# description: planted bug A\n", text)
        self.assertTrue(text.endswith("\nBUG-A"), text)  # the minimized bytes, not the original
        self.assertFalse(list((self.tmp / "min" / T).glob(".*")))  # no temporary left

    def test_the_original_header_is_kept(self):
        f = self.file("h.bin", f"# stackcheck {T}\n# oracle: mine\n# rule: r\nBUG-A and more\n".encode())
        self.assertEqual(self.minimize(str(f))[0], 0)
        text = (self.tmp / "min" / T / f"h{EXT}").read_text()
        self.assertIn("# oracle: mine\n# rule: r\n", text)
        self.assertNotIn("# description:", text)

    def test_a_smaller_input_with_another_finding_is_not_kept(self):  # positive control
        write_exe(self.root / "build" / "fuzz" / "bin" / T,
                  "import sys\nfrom pathlib import Path\n"
                  "p = [a for a in sys.argv if a.startswith('-exact_artifact_path=')][0].split('=', 1)[1]\n"
                  "Path(p).write_bytes(b'BUG-B')\n")
        rc, out, _ = self.minimize(str(self.file(f"{T}/o", b"BUG-A, the original")))
        self.assertEqual(rc, 0, out)
        self.assertTrue((self.tmp / "min" / T / f"o{EXT}").read_text().endswith("\nBUG-A, the original"))

    def test_nothing_to_minimize(self):
        rc, _, err = self.minimize(str(self.file(f"{T}/clean", b"clean")))
        self.assertEqual(rc, 1)
        self.assertIn("shows no finding", err)

    def test_a_property_counterexample_is_refused(self):
        rc, _, err = self.minimize(str(self.file("cx.gir", b"# stackcheck end-to-end\nFAILS")))
        self.assertEqual(rc, 2)
        self.assertIn("already shrunk by RapidCheck", err)

    def test_seconds_must_be_positive(self):
        rc, _, err = self.minimize("--seconds", "0", str(self.file(f"{T}/b", b"BUG-A")))
        self.assertEqual(rc, 2)
        self.assertIn("--seconds must be positive", err)

    def test_without_a_smaller_input_the_original_is_used(self):
        # The original has no text form (NOTEXT); minimized to `BUG-A` alone it has one.
        rc, _, err = self.minimize(str(self.file(f"{T}/n", b"BUG-A NOTEXT")))
        self.assertEqual(rc, 0, err)
        # A libFuzzer that writes no smaller input: the original is kept, and its missing text
        # form is an error.
        (self.root / "build" / "fuzz" / "bin" / T).write_text(f"#!{sys.executable}\nimport sys\n")
        rc, _, err = self.minimize(str(self.file(f"{T}/m", b"BUG-A NOTEXT")))
        self.assertEqual(rc, 2)
        self.assertIn(f"{T}_replay --text failed on {self.tmp / 'inputs' / T / 'm'}", err)


class PromoteTest(ToolsTest):
    def promote(self, *argv: str) -> tuple[int, str, str]:
        return self.call(tools.main_promote, "--no-build", *argv)

    def regression(self) -> Path:
        return self.root / "corpus" / T / "regression"

    def test_a_reproducing_finding_is_copied_in_its_text_form(self):
        f = self.file(f"cands/{T}/abc.bin", b"BUG-A")
        rc, out, _ = self.promote(str(f))
        self.assertEqual(rc, 0)
        dest = self.regression() / f"abc{EXT}"
        self.assertEqual(dest.read_bytes(), f"# stackcheck {T}\nBUG-A".encode())
        self.assertIn(f"corpus/{T}/regression/abc{EXT} (end-to-end/rule-A)", out)
        self.assertEqual(self.promote(str(f))[0], 0)  # again: the same bytes are already there

    def test_a_file_with_its_header_is_copied_as_it_is(self):
        data = f"# stackcheck {T}\n# rule: kept\nBUG-A".encode()
        rc, _, _ = self.promote("--name", "mine.gir", str(self.file("h.bin", data)))
        self.assertEqual(rc, 0)
        self.assertEqual((self.regression() / "mine.gir").read_bytes(), data)

    def test_refused_when_it_does_not_reproduce(self):
        rc, _, err = self.promote(str(self.file(f"{T}/clean", b"clean")))
        self.assertEqual(rc, 1)
        self.assertIn("does not reproduce a finding", err)
        self.assertFalse(self.regression().exists())

    def test_refused_over_another_file_of_that_name(self):
        self.regression().mkdir(parents=True)
        (self.regression() / "x.gir").write_bytes(b"someone else's")
        rc, _, err = self.promote("--name", "x.gir", str(self.file(f"{T}/x", b"BUG-A")))
        self.assertEqual(rc, 1)
        self.assertIn("exists with other content", err)
        self.assertEqual((self.regression() / "x.gir").read_bytes(), b"someone else's")

    def test_refused_when_the_text_form_shows_another_finding(self):
        rc, _, err = self.promote(str(self.file(f"{T}/m", b"MUTATE-ON-TEXT BUG-A")))
        self.assertEqual(rc, 1)
        self.assertIn("does not reproduce the same finding (end-to-end/rule-B instead of end-to-end/rule-A)", err)
        self.assertEqual(list(self.regression().iterdir()), [])  # removed again

    def test_bad_names_and_targets(self):
        f = self.file(f"{T}/x", b"BUG-A")
        for name in ("../escape", ".hidden", "a/b"):
            rc, _, err = self.promote("--name", name, str(f))
            self.assertEqual(rc, 2, name)
            self.assertIn(f"bad --name '{name}'", err)
        rc, _, err = self.promote(str(self.file("cx.gir", b"# stackcheck end-to-end\nFAILS")))
        self.assertEqual(rc, 2)
        self.assertIn("promote takes a fuzz target's finding", err)
        shared = self.file("programs/p", b"BUG-A")  # corpus/programs: several targets, not one
        self.assertEqual(self.promote(str(shared))[0], 2)
        self.assertFalse(self.regression().exists())


class EntryTest(unittest.TestCase):
    def test_an_unknown_entry_point(self):
        p = subprocess.run([sys.executable, str(HERE.parent / "lib" / "tools.py"), "frobnicate"], capture_output=True,
                           text=True, timeout=60, env={"PYTHONDONTWRITEBYTECODE": "1"})
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage: tools.py replay|minimize|promote ARGS", p.stderr)


if __name__ == "__main__":
    unittest.main()
