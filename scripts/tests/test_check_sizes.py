"""scripts/check_sizes.py (ctest `sizes`, label unit): the tree holds the size limit, and the
check can fail: a planted 701-line file, a listed file that grew, and bad flags."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unittest
from unittest import mock
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import check_sizes  # noqa: E402


class Sizes(unittest.TestCase):
    def test_the_tree_holds_the_limit(self):
        self.assertEqual(check_sizes.check(str(ROOT), check_sizes.LIMIT), [])

    def test_a_planted_701_line_file_fails(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "stack").mkdir()
            (Path(d) / "stack" / "ok.cpp").write_text("x\n" * 700)
            (Path(d) / "stack" / "big.cpp").write_text("x\n" * 701)
            (Path(d) / "notes.md").write_text("x\n" * 900)  # prose is not counted
            self.assertEqual(check_sizes.check(d, 700), ["stack/big.cpp: 701 lines (limit 700)"])
            r = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_sizes.py"), "--root", d],
                               capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stdout.strip()), (1, "stack/big.cpp: 701 lines (limit 700)"))

    def test_a_listed_file_may_not_grow(self):
        # A file of its own on the list: the tree's files have all come under the limit.
        rel, cap = "stack/grandfathered.cpp", 900
        with tempfile.TemporaryDirectory() as d, mock.patch.dict(check_sizes.OVER, {rel: cap}):
            (Path(d) / rel).parent.mkdir(parents=True)
            (Path(d) / rel).write_text("x\n" * (cap + 1))
            self.assertEqual(len(check_sizes.check(d, 700)), 1)
            (Path(d) / rel).write_text("x\n" * cap)
            self.assertEqual(check_sizes.check(d, 700), [])

    def test_bad_flags_exit_2(self):
        self.assertEqual(check_sizes.main(["--limit", "0"]), 2)
        self.assertEqual(check_sizes.main(["--root", "/no/such/folder"]), 2)
        self.assertEqual(check_sizes.main(["--bogus"]), 2)


if __name__ == "__main__":
    unittest.main()
