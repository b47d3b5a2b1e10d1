"""Unit tests of scripts/lib/rss.py (ctest `scripts/rss`, label unit, every preset).

A fake fuzzer tree: a Python child that starts a grandchild, as libFuzzer's -fork runs its
inputs in processes below the one the campaign started. The grandchild touches MB megabytes
(or none: the positive control, which must come out small) and either holds them until its
stdin closes (seen by sampling) or exits at once (seen only through the reaping chain).
"""

from __future__ import annotations

import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import rss  # noqa: E402

GRANDCHILD = """
import sys
held = b"\\x01" * (int(sys.argv[1]) << 20)  # every page written, so resident
print("ready", flush=True)
if sys.argv[2] == "hold":
    sys.stdin.read()
"""
CHILD = """
import subprocess, sys
sys.exit(subprocess.run([sys.executable, "-c", sys.argv[1], *sys.argv[2:]]).returncode)
"""
ALLOCATED_MB = 64
SMALL_MB = 32  # a Python interpreter that allocates nothing extra stays well below


def fake_tree(mb: int, mode: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, GRANDCHILD, str(mb), mode], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


class PeakRssTest(unittest.TestCase):
    def live(self, mb: int) -> tuple[int, int]:
        """(the sample's figure, the collector's peak) for a tree holding mb in its grandchild."""
        p = fake_tree(mb, "hold")
        self.assertEqual(p.stdout.readline().strip(), "ready")
        peak = rss.PeakRss()
        self.assertEqual(len(rss.tree(p.pid, rss.children_map())), 2)  # the child and the grandchild
        now = peak.sample(p.pid)
        self.assertIsNone(peak.wait(p.pid))  # still running: not reaped
        p.stdin.close()
        self.assertEqual(peak.wait(p.pid, block=True), 0)
        p.returncode = 0  # reaped here, not by Popen
        p.stdout.close()
        return now, peak.kib

    def reaped(self, mb: int) -> int:
        """The collector's peak for a tree that allocated and ended before any sample."""
        p = fake_tree(mb, "exit")
        p.stdin.close()
        self.assertEqual(p.stdout.readline().strip(), "ready")
        peak = rss.PeakRss()
        self.assertEqual(peak.wait(p.pid, block=True), 0)
        p.returncode = 0
        p.stdout.close()
        return peak.kib

    def test_a_sample_sees_a_grandchild_holding_memory(self):
        now, peak = self.live(ALLOCATED_MB)
        self.assertGreaterEqual(now, ALLOCATED_MB << 10)
        self.assertGreaterEqual(peak, ALLOCATED_MB << 10)

    def test_a_sample_of_a_tree_that_allocates_nothing_is_small(self):  # positive control
        now, peak = self.live(0)
        self.assertGreater(now, 0)
        self.assertLess(peak, SMALL_MB << 10)

    def test_reaping_sees_a_grandchild_that_has_ended(self):
        self.assertGreaterEqual(self.reaped(ALLOCATED_MB), ALLOCATED_MB << 10)

    def test_reaping_a_tree_that_allocates_nothing_is_small(self):  # positive control
        kib = self.reaped(0)
        self.assertGreater(kib, 0)
        self.assertLess(kib, SMALL_MB << 10)

    def test_megabytes_round_down_like_libfuzzer(self):
        peak = rss.PeakRss()
        peak.kib = 3 * 1024 + 1023
        self.assertEqual(peak.mb, 3)

    def test_a_process_that_is_gone_counts_nothing(self):
        p = subprocess.Popen([sys.executable, "-c", "pass"])
        p.wait()
        self.assertEqual(rss.high_water_kib(p.pid), 0)
        self.assertEqual(rss.PeakRss().sample(p.pid), 0)

    def test_tree_stays_below_its_root(self):
        kids = {1: [2, 3], 2: [4], 3: [], 5: [6]}
        self.assertEqual(sorted(rss.tree(1, kids)), [1, 2, 3, 4])
        self.assertEqual(sorted(rss.tree(2, kids)), [2, 4])


if __name__ == "__main__":
    unittest.main()
