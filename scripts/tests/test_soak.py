"""Unit tests of scripts/lib/soak.py (ctest `scripts/soak`, label unit, every preset).

scripts/soak runs the campaign underneath and turns its targets.tsv and run.tsv into a table.
Here the campaign is a fake (scripts/lib/campaign.py under a temporary ROOT) that records the
command it was given and writes the tables a campaign would: the tests check the command
(OSS-Fuzz's limits, plain libFuzzer processes, the flags passed through), the table, that only
the new run's folder is read, the exit code passed through, and bad flags. Needs no build.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written inside the repository
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "lib"))
sys.path.insert(0, str(HERE))
import soak  # noqa: E402
from fakebin import Env, write_exe  # noqa: E402

# The fake campaign: records its argv, writes <out>/<stamp>/targets.tsv and run.tsv (or not).
FAKE_CAMPAIGN = r'''
import json, os, sys
from pathlib import Path
argv = sys.argv[1:]
out = Path(argv[argv.index("--out") + 1])
Path(os.environ["FAKE_SOAK_ARGV"]).write_text(json.dumps(argv))
mode = os.environ.get("FAKE_SOAK_MODE", "table")
if mode != "none":
    run = out / "20300101T000000Z"
    run.mkdir(parents=True)
    (run / "targets.tsv").write_text(
        "target\texecs\texec_s\tcov\tft\tcorpus\tcorpus_bytes\tfindings\tbuckets\tseconds\tstatus\tslowest_s\tpeak_rss_mb\n"
        "fuzz_a\t1234567\t2048\t10\t20\t5\t50\t0\t0\t60\tdone\t0\t312\n"
        "fuzz_b\t42\t7\t3\t4\t1\t9\t2\t1\t60\tdone\t3\t2600\n"
        "fuzz_c\t0\t0\t0\t0\t0\t0\t0\t0\t60\tdone\t1\t0\n")
    (run / "run.tsv").write_text("key\tvalue\nstarted\t2030-01-01T00:00:00Z\nseed\t77\ncommit\tabc1234\n")
sys.exit(int(os.environ.get("FAKE_SOAK_EXIT", "0")))
'''


class SoakRun(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="soak-test-"))
        self.addCleanup(subprocess.run, ["rm", "-rf", str(self.tmp)])
        write_exe(self.tmp / "root" / "scripts" / "lib" / "campaign.py", FAKE_CAMPAIGN)
        self.out = self.tmp / "out"
        self.argv_file = self.tmp / "argv.json"
        saved = soak.ROOT
        soak.ROOT = self.tmp / "root"
        self.addCleanup(setattr, soak, "ROOT", saved)

    def soak(self, *argv: str, **env: str) -> tuple[int, str]:
        stdout = io.StringIO()
        with Env(FAKE_SOAK_ARGV=str(self.argv_file), **env), contextlib.redirect_stdout(stdout):
            rc = soak.main(["--out", str(self.out), *argv])
        return rc, stdout.getvalue()

    def campaign_argv(self) -> list[str]:
        return json.loads(self.argv_file.read_text())

    def test_the_campaign_runs_plain_libfuzzer_under_oss_fuzz_flags(self):
        rc, _ = self.soak("--hours", "0.25", "--jobs", "3", "--targets", "fuzz_a", "--targets", "fuzz_b",
                          "--seed", "9", "--no-build")
        self.assertEqual(rc, 0)
        argv = self.campaign_argv()
        self.assertEqual(argv[argv.index("--minutes") + 1], "15")  # hours -> minutes
        self.assertEqual(argv[argv.index("--jobs") + 1], "3")
        self.assertEqual(argv[argv.index("--seed") + 1], "9")
        self.assertEqual(argv[argv.index("--out") + 1], str(self.out.resolve()))
        for flag in ("--no-fork", "--no-properties", "--plain", "--libfuzzer=-report_slow_units=1", "--no-build",
                     "--targets=fuzz_a", "--targets=fuzz_b"):
            self.assertIn(flag, argv)

    def test_without_seed_or_no_build_neither_is_passed(self):
        self.soak()
        argv = self.campaign_argv()
        self.assertNotIn("--seed", argv)
        self.assertNotIn("--no-build", argv)
        self.assertEqual(argv[argv.index("--minutes") + 1], "30")  # the default half hour
        self.assertFalse([a for a in argv if a.startswith("--targets")])

    def test_table_rows_from_the_campaigns_targets_tsv(self):
        rc, printed = self.soak("--hours", "1", "--jobs", "2")
        self.assertEqual(rc, 0)
        soak_md = self.out / "20300101T000000Z" / "soak.md"
        text = soak_md.read_text()
        self.assertIn(text, printed)
        self.assertTrue(text.startswith("# Soak 2030-01-01T00:00:00Z: 1 h, 2 jobs, seed 77, commit abc1234"), text)
        self.assertIn("| fuzz_a | 1,234,567 | 2,048 | 0 | 0 | < 1 s | 312 MB |", text)
        self.assertIn("| fuzz_b | 42 | 7 | 2 | 1 | ≥ 3 s | 2600 MB |", text)
        self.assertIn("| fuzz_c | 0 | 0 | 0 | 0 | ≥ 1 s | 0 MB |", text)  # slow units are reported from 1 s
        self.assertIn("timeout 25 s, RSS 2,560 MB", text)
        self.assertIn(f"Campaign report: {self.out / '20300101T000000Z' / 'index.html'}", text)

    def test_a_run_folder_from_before_is_not_read(self):
        old = self.out / "20990101T000000Z"  # sorts after the new one: only the before-set keeps it out
        old.mkdir(parents=True)
        (old / "targets.tsv").write_text("target\texecs\nstale\t1\n")
        (old / "run.tsv").write_text("key\tvalue\n")
        rc, _ = self.soak()
        self.assertEqual(rc, 0)
        self.assertFalse((old / "soak.md").exists())
        self.assertTrue((self.out / "20300101T000000Z" / "soak.md").exists())

    def test_the_campaigns_exit_code_passes_through_with_the_table(self):
        rc, _ = self.soak(FAKE_SOAK_EXIT="1")
        self.assertEqual(rc, 1)
        self.assertTrue((self.out / "20300101T000000Z" / "soak.md").exists())

    def test_no_table_is_an_error(self):  # positive control: a campaign that wrote nothing
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc, _ = self.soak(FAKE_SOAK_MODE="none")
        self.assertEqual(rc, 2)
        self.assertIn("soak: the campaign wrote no table", err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()):
            rc, _ = self.soak(FAKE_SOAK_MODE="none", FAKE_SOAK_EXIT="3")
        self.assertEqual(rc, 3)  # the campaign's own failure wins


class BadFlags(unittest.TestCase):
    def run_soak(self, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(HERE.parent / "lib" / "soak.py"), *argv], capture_output=True,
                              text=True, timeout=60, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"})

    def test_bad_hours(self):
        for value, why in (("0", "must be more than 0"), ("-2", "must be more than 0"), ("x", "'x' is not a number")):
            p = self.run_soak("--hours", value)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stderr.strip(), f"soak: argument --hours: {why}")

    def test_unknown_flag(self):
        p = self.run_soak("--minutes", "5")
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("soak: unrecognized arguments: --minutes 5"), p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
