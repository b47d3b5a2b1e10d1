"""Unit tests of scripts/mutate --hunt (scripts/lib/mutate_hunt.py; ctest `scripts/hunt`, label
unit): one survivor's campaign and the gate a finding must pass before it is promoted, with fake
`fuzz_props` and `fuzz_props_replay` binaries (no build of the tree).

The fake replay driver classifies an input by its bytes and the active mutant: `KILL<n>` fails
while STACKCHECK_MUTANT is n, `BOTH` fails with or without a mutant, anything else passes; its
--text form is the bytes in hex under the fuzz_props header. The fake fuzzer writes the bytes of
FAKE_FIND (if set) as a crash artifact, as libFuzzer does when a property fails.
The positive controls: a finding that also fails on the unmutated stack is REJECTED, and one that
does not fail again with the mutant on is not kept; neither reaches the corpus.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"
sys.path.insert(0, str(LIB))
import hunted  # noqa: E402
import mutants  # noqa: E402
import mutate_hunt  # noqa: E402

REPLAY = r'''#!/usr/bin/env python3
import os, sys
args = [a for a in sys.argv[1:] if not a.startswith("--property=")]
prop = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--property=")), "?")
data = open(args[-1], "rb").read()
if data.startswith(b"# stackcheck fuzz_props"):
    data = bytes.fromhex("".join(l for l in data.decode().splitlines() if not l.startswith("#")))
if args[0] == "--text":
    sys.stdout.write(f"# stackcheck fuzz_props\n# property: {prop}\n{data.hex()}\n")
    sys.exit(0)
active = os.environ.get("STACKCHECK_MUTANT", "")
fails = b"BOTH" in data or (active != "" and f"KILL{active}".encode() in data)
print(("fail:property/planted" if fails else "pass") + "\t" + args[-1])
'''

FUZZER = r'''#!/usr/bin/env python3
import os, sys
prefix = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("-artifact_prefix="))
find = os.environ.get("FAKE_FIND", "")
if find:
    open(prefix + "crash-0001", "wb").write(find.encode())
    sys.exit(1)
print("Done 10 runs in 1 second(s)")
'''


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


class HuntTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = Path(self.tmp.name)
        self.bin = d / "bin"
        self.bin.mkdir()
        executable(self.bin / "fuzz_props", FUZZER)
        executable(self.bin / "fuzz_props_replay", REPLAY)
        run = d / "run"
        run.mkdir()
        (run / "args.json").write_text('{"commit": "0000000"}')
        a = argparse.Namespace(hunt=run, seed=3, hunt_seconds=2.0, hunt_props=2, hunt_max=None, jobs=1)
        self.h = mutate_hunt.Hunt(a, lambda msg: None)
        self.h.corpus = d / "corpus" / "fuzz_props"
        self.m = mutants.Mutant("stack/a.cpp", 7, 3, "rel", "<=", ((0, 1, "<="),), "f", "if (a < b)", "if (a <= b)")
        os.environ.pop("FAKE_FIND", None)

    def tearDown(self):
        os.environ.pop("FAKE_FIND", None)
        self.tmp.cleanup()

    def hunt(self, find: str) -> dict:
        if find:
            os.environ["FAKE_FIND"] = find
        return self.h.hunt_one(self.bin, 5, self.m, ["A.b"])

    def test_a_confirmed_kill_is_promoted_naming_its_mutant(self):
        row = self.hunt("xx KILL5 xx")
        self.assertEqual(row["outcome"], "KILLED", row)
        self.assertEqual((row["property"], row["oracle"], row["rule"]), ("A.b", "property", "planted"))
        promoted = self.h.corpus / "A.b" / f"hunt-{hunted.mutant_key(self.m)}"
        self.assertTrue(promoted.exists())
        self.assertEqual(hunted.hunted_for(str(promoted)), (self.m.id, hunted.mutant_key(self.m)))
        text = promoted.read_text().splitlines()
        self.assertEqual(text[0], "# stackcheck fuzz_props")
        self.assertIn("# property: A.b", text)
        self.assertEqual(bytes.fromhex(text[-1]), b"xx KILL5 xx")

    def test_a_finding_of_the_unmutated_stack_is_rejected(self):  # positive control of the gate
        row = self.hunt("BOTH")
        self.assertEqual(row["outcome"], "REJECTED", row)
        self.assertIn("fails on the unmutated stack too", row["message"])
        self.assertFalse((self.h.corpus / "A.b").exists())
        kept = list((self.h.dir / "findings").iterdir())  # a finding of its own, kept for triage
        self.assertEqual([f.read_bytes() for f in kept], [b"BOTH"])

    def test_a_finding_that_does_not_fail_again_is_not_kept(self):  # another mutant's, or flaky
        row = self.hunt("KILL6")
        self.assertEqual(row["outcome"], "REJECTED", row)
        self.assertIn("does not fail again with the mutant on", row["message"])
        self.assertFalse((self.h.corpus / "A.b").exists())

    def test_no_finding_survives_and_no_property_is_not_reached(self):
        self.assertEqual(self.hunt("")["outcome"], "SURVIVED")
        self.assertEqual(self.h.hunt_one(self.bin, 5, self.m, [])["outcome"], "NOT REACHED")


if __name__ == "__main__":
    unittest.main()
