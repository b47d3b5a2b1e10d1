"""scripts/observables_map.tsv against docs/observables.md, and scripts/mutate's report grouping its
survivors by those rows (ctest `scripts/observables-map`, label unit; needs no build):
- every line of the map names a table row of the doc under its section number, and every table row
  of the doc is in the map;
- every file glob matches a file under stack/, and every function glob's last name occurs in the
  files it is paired with;
- observable_of puts a survivor in its row, and one in a file no row names in `(no row)` (the
  control: the grouping can fail to match); a line with both '-' matches nothing;
- summary() prints `survivors by observable` before the survivor list and writes
  survivors_by_observable.tsv.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import tempfile
import unittest
from fnmatch import fnmatchcase
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "lib"))
import mutate_report  # noqa: E402

DOC = ROOT / "docs" / "observables.md"
MAP = ROOT / "scripts" / "observables_map.tsv"


def doc_rows(text: str) -> list[tuple[str, str]]:
    """(section number, first cell) of every table row under a `## N. Title` heading."""
    out, section = [], None
    for line in text.splitlines():
        if line.startswith("## "):
            m = re.match(r"## (\d+)\. ", line)
            section = m.group(1) if m else None
        elif section and line.startswith("|") and not re.match(r"\|\s*(Observable\s*\||-{3})", line):
            out.append((section, line.split("|")[1].strip()))
    return out


def stack_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "stack").rglob("*") if p.is_file())


def survivor(file: str, function: str, outcome: str = mutate_report.SURVIVED, id_: str = "") -> dict:
    r = {c: "-" for c in mutate_report.COLUMNS}
    r.update(id=id_ or f"{file}:1:1:rel:<=", file=file, function=function, outcome=outcome, before="a < b",
             after="a <= b", line="1", col="1", operator="rel", replacement="<=", seconds="1.0")
    return r


class Map(unittest.TestCase):
    def setUp(self):
        self.table = mutate_report.read_observables(MAP)
        self.doc = doc_rows(DOC.read_text())

    def test_every_row_both_ways(self):
        self.assertGreater(len(self.doc), 100)  # the doc parsed: nine tables
        in_map = {(t["section"], t["row"]) for t in self.table}
        in_doc = set(self.doc)
        self.assertEqual(sorted(in_map - in_doc), [], "map rows the doc does not have (section, text)")
        self.assertEqual(sorted(in_doc - in_map), [], "doc rows the map leaves out")

    def test_file_globs_name_files_of_stack(self):
        files = stack_files()
        for t in self.table:
            for g in t["files"]:
                with self.subTest(line=t["line"], glob=g):
                    self.assertTrue(any(fnmatchcase(f, g) for f in files), f"{MAP.name}:{t['line']}: {g} names no file")

    def test_function_globs_name_what_their_files_hold(self):
        files = stack_files()
        for t in self.table:
            paired = [f for f in files if any(fnmatchcase(f, g) for g in t["files"])] if t["files"] else files
            text = "\n".join((ROOT / f).read_text(errors="replace") for f in paired)
            for g in t["functions"]:
                name = re.sub(r"[*?\[\]]", "", g.split("::")[-1]).lstrip("~")
                if not name:
                    continue  # Class::*
                with self.subTest(line=t["line"], glob=g):
                    self.assertTrue(re.search(rf"\b{re.escape(name)}\b", text),
                                    f"{MAP.name}:{t['line']}: no {name} in {t['files'] or 'stack/'}")

    def test_a_survivor_goes_to_its_row(self):
        cases = {
            ("stack/runtime/status/bind_stats.cpp", "runtime::BindStats::ratio_text"): "§3 `ratio`",
            ("stack/runtime/host/orchestrator.cpp", "runtime::Orchestrator::claim"): "§8 mirror reuse and slot reset",
            # the same file, another function: the file's later, broader line
            ("stack/runtime/host/orchestrator.cpp", "runtime::Orchestrator::publish"):
                "§9 mirror records of API call sequences",
            ("stack/runtime/device/scheduler_run.cpp", "runtime::sched_detail::SchedulerRun::push"):
                "§1 -1104 READY_QUEUE_OVERFLOW",
            ("stack/ir/printer.cpp", "ir::(anonymous)::print_stmt"): "§6 `.gir` printer text",
        }
        for (file, function), want in cases.items():
            with self.subTest(function=function):
                self.assertEqual(mutate_report.observable_of({"file": file, "function": function}, self.table), want)

    def test_a_survivor_no_row_names_goes_to_no_row(self):
        # Positive control: the grouping must be able to fail to match.
        for file, function in (("stack/support/check.h", "detail::check_failed"), ("stack/nowhere/x.cpp", "f"),
                               ("properties/oracles/plan_model.cpp", "run_plan_model")):
            with self.subTest(file=file):
                self.assertEqual(mutate_report.observable_of({"file": file, "function": function}, self.table),
                                 mutate_report.NO_ROW)

    def test_first_match_wins_and_dash_lines_match_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "map.tsv"
            p.write_text("section\trow\tfiles\tfunctions\n# a comment\n"
                         "1\tnothing\t-\t-\n"
                         "2\tnarrow\tstack/a/*.cpp\t*::f\n"
                         "3\tbroad\tstack/a/*\t-\n"
                         "4\tany file\t-\t*::g\n")
            t = mutate_report.read_observables(p)
            self.assertEqual([x["line"] for x in t], [3, 4, 5, 6])
            of = lambda f, fn: mutate_report.observable_of({"file": f, "function": fn}, t)  # noqa: E731
            self.assertEqual(of("stack/a/b.cpp", "n::f"), "§2 narrow")
            self.assertEqual(of("stack/a/b.cpp", "n::h"), "§3 broad")
            self.assertEqual(of("stack/a/b.h", "n::f"), "§3 broad")
            self.assertEqual(of("stack/z.cpp", "n::g"), "§4 any file")
            self.assertEqual(of("stack/z.cpp", "n::h"), mutate_report.NO_ROW)
            p.write_text("1\ttoo few cells\t-\n")
            with self.assertRaises(ValueError):
                mutate_report.read_observables(p)
            self.assertEqual(mutate_report.read_observables(Path(d) / "absent.tsv"), [])


class Summary(unittest.TestCase):
    def test_summary_prints_survivors_by_observable(self):
        rows = [survivor("stack/runtime/status/bind_stats.cpp", "runtime::BindStats::ratio_text"),
                survivor("stack/support/check.h", "detail::check_failed", mutate_report.NOT_REACHED)]
        rows.append({**survivor("stack/runtime/status/bind_stats.cpp", "runtime::BindStats::to_line",
                                mutate_report.KILLED), "id": "killed-one"})
        a = SimpleNamespace(seed=7, command="scripts/mutate --sample 3 --seed 7", files_table=True)
        with tempfile.TemporaryDirectory() as d:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                mutate_report.summary(rows, {}, Path(d), a)
            text = out.getvalue()
            tsv = (Path(d) / "survivors_by_observable.tsv").read_text().splitlines()
        head = "survivors by observable (docs/observables.md):"
        self.assertIn(head, text)
        self.assertLess(text.index(head), text.index("survivors (and mutants no judging test reaches):"))
        self.assertGreater(text.index(head), text.index("\nfile "))
        section = text[text.index(head):text.index("survivors (and mutants")]
        self.assertIn(f"  §3 `ratio`: 1 survivor(s)\n      {rows[0]['id']}\n", section)
        self.assertIn(f"  (no row): 1\n      {rows[1]['id']} [NOT REACHED]\n", section)
        self.assertNotIn("killed-one", section)
        self.assertEqual(tsv, ["section\trow\tid\tfile\tfunction",
                               f"3\t`ratio`\t{rows[0]['id']}\tstack/runtime/status/bind_stats.cpp\t"
                               "runtime::BindStats::ratio_text",
                               f"-\t(no row)\t{rows[1]['id']}\tstack/support/check.h\tdetail::check_failed"])


if __name__ == "__main__":
    unittest.main()
