"""Unit tests of scripts/lib/fuzzlib.py (ctest `scripts/fuzzlib`, label unit, every preset)."""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import fuzzlib  # noqa: E402

ORACLE_REPORT = """replay: x (12 bytes)

# stackcheck fuzz_program
# oracle: end-to-end
# rule: value-mismatch
# message: entry c differs at [3]: 7 != 9
==1==ERROR: AddressSanitizer: ABRT on unknown address
    #0 0x7f in abort /build/glibc/abort.c:79
    #1 0x55 in stackcheck::fuzz::report_finding(char const*, std::basic_string_view<char>, stackcheck::oracles::Verdict const&) /work/main/fuzz/fuzz_target.h:20:3
    #2 0x56 in LLVMFuzzerTestOneInput /work/main/fuzz/fuzz_program.cpp:40:5
    #3 0x57 in stackcheck::oracles::check_end_to_end(stackcheck::ir::Program const&, unsigned long) /work/main/properties/oracles/end_to_end.cpp:88:7
    #4 0x58 in stackcheck::passes::run(stackcheck::ir::Program&) /work/main/stack/passes/pipeline.cpp:10:1
    #5 0x59 in main /work/main/fuzz/replay_main.cpp:30:1
"""

ASAN_REPORT = """==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602
READ of size 4 at 0x602 thread T0
    #0 0x1 in stackcheck::runtime::attach(stackcheck::runtime::Image&) /work/main/stack/runtime/device/attach.cpp:120:9
    #1 0x2 in stackcheck::runtime::bind_plan(stackcheck::runtime::Plan const&) /work/main/stack/runtime/host/bind.cpp:40:3
    #2 0x3 in LLVMFuzzerTestOneInput /work/main/fuzz/fuzz_attach.cpp:20:3
SUMMARY: AddressSanitizer: heap-buffer-overflow /work/main/stack/runtime/device/attach.cpp:120:9 in attach
"""


class FindingTest(unittest.TestCase):
    def test_oracle_finding_names_oracle_rule_and_project_frames(self):
        f = fuzzlib.parse_finding(-6, ORACLE_REPORT)
        self.assertEqual((f.kind, f.oracle, f.rule), ("oracle", "end-to-end", "value-mismatch"))
        self.assertEqual(f.frames, ["stackcheck::oracles::check_end_to_end", "stackcheck::passes::run"])
        self.assertIn("differs", f.message)

    def test_sanitizer_finding(self):
        f = fuzzlib.parse_finding(1, ASAN_REPORT)
        self.assertEqual((f.kind, f.oracle, f.rule), ("sanitizer", "AddressSanitizer", "heap-buffer-overflow"))
        self.assertEqual(f.frames[0], "stackcheck::runtime::attach")

    def test_buckets_differ_by_rule_and_frames(self):
        a = fuzzlib.parse_finding(-6, ORACLE_REPORT)
        b = fuzzlib.parse_finding(-6, ORACLE_REPORT.replace("value-mismatch", "missing-entry"))
        c = fuzzlib.parse_finding(-6, ORACLE_REPORT.replace("pipeline.cpp", "x.cpp").replace("passes::run", "q"))
        self.assertNotEqual(a.bucket("t"), b.bucket("t"))
        self.assertNotEqual(a.bucket("t"), c.bucket("t"))
        self.assertEqual(a.bucket("t"), fuzzlib.parse_finding(-6, ORACLE_REPORT).bucket("t"))
        self.assertNotEqual(a.bucket("t"), a.bucket("u"))

    def test_clean_exit_is_no_finding_and_crash_without_report_is_one(self):
        clean = ("replay: d/a (9 bytes)\nreplay: d/b (7 bytes)\nreplay: d/b: rejected: 2:1: expected a statement\n"
                 "replay: 2 input(s) ran without a finding: 1 passed, 0 inconclusive, 1 rejected")
        self.assertFalse(fuzzlib.parse_finding(0, clean).found)
        self.assertEqual(fuzzlib.parse_finding(-11, "").kind, "crash")
        self.assertEqual(fuzzlib.parse_finding(0, "", timed_out=True).kind, "timeout")

    def test_driver_error_is_its_first_error_line_not_a_rejected_input(self):
        err = ("replay: d/b (7 bytes)\nreplay: d/b: rejected: 2:1: expected a statement\n"
               "fuzz_parse: d/c: empty file (a corpus file holds one input; the empty input is not one)\n"
               "replay: 1 input(s) ran without a finding: 0 passed, 0 inconclusive, 1 rejected; 1 error(s) above")
        f = fuzzlib.parse_finding(2, err)
        self.assertEqual(f.kind, "error")
        self.assertTrue(f.message.startswith("fuzz_parse: d/c: empty file"), f.message)

    def test_short_function_drops_signature_and_templates(self):
        self.assertEqual(fuzzlib.short_function("ns::f<int>(char const*) const"), "ns::f")
        self.assertEqual(fuzzlib.short_function("g()"), "g")


class FilesTest(unittest.TestCase):
    def test_with_header_inserts_after_first_line_and_replaces_keys(self):
        text = b"# stackcheck fuzz_program\n# rule: old\nkernel k\n"
        out = fuzzlib.with_header(text, ["# oracle: e2e", "# rule: new"])
        self.assertEqual(out, b"# stackcheck fuzz_program\n# oracle: e2e\n# rule: new\nkernel k\n")

    def test_target_from_header_folder_or_error(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "x.gir"
            p.write_bytes(b"# stackcheck fuzz_parse\n")
            self.assertEqual(fuzzlib.targets_for_file(p), ["fuzz_parse"])
            p.write_bytes(b"# stackcheck end-to-end\n")
            self.assertEqual(fuzzlib.targets_for_file(p), [fuzzlib.CLI])
            p.write_bytes(b"# stackcheck fuzz_nope\n")
            with self.assertRaises(fuzzlib.UsageError):
                fuzzlib.targets_for_file(p)
            raw = Path(d) / "fuzz_pipeline" / "crash-1"
            raw.parent.mkdir()
            raw.write_bytes(b"\x00\x01")
            self.assertEqual(fuzzlib.targets_for_file(raw), ["fuzz_pipeline"])
            plans = Path(d) / "plans" / "a.plan"
            plans.parent.mkdir()
            plans.write_bytes(b"tensor x: In [4]\n")
            self.assertEqual(fuzzlib.targets_for_file(plans), fuzzlib.SHARED_CORPUS["plans"])
            stray = Path(d) / "stray.bin"
            stray.write_bytes(b"\xff")
            with self.assertRaises(fuzzlib.UsageError):
                fuzzlib.targets_for_file(stray)

    def test_atomic_write_and_unit_check(self):
        with tempfile.TemporaryDirectory() as d:
            data = b"unit bytes"
            p = Path(d) / hashlib.sha1(data).hexdigest()
            fuzzlib.atomic_write(p, data)
            self.assertTrue(fuzzlib.is_complete_unit(p))
            self.assertEqual([f.name for f in Path(d).iterdir()], [p.name])
            p.write_bytes(data[:3])
            self.assertFalse(fuzzlib.is_complete_unit(p))
            (Path(d) / ".x.tmp-12").write_bytes(b"")
            self.assertEqual(fuzzlib.remove_stale_temps(Path(d)), 1)

    def test_number_args_refuse_what_is_out_of_range(self):
        nonneg, positive = fuzzlib.number_arg(float), fuzzlib.number_arg(int, positive=True)
        self.assertEqual(nonneg("0"), 0.0)
        self.assertEqual(positive("3"), 3)
        for parse, bad, why in ((nonneg, "-1", "is negative"), (nonneg, "x", "is not a number"),
                                (positive, "0", "must be more than 0"), (positive, "1.5", "is not a number")):
            with self.assertRaisesRegex(argparse.ArgumentTypeError, why):
                parse(bad)

    def test_property_env_drops_allocation_stacks_unless_asked(self):
        import os
        from unittest import mock
        with mock.patch.dict(os.environ, {"ASAN_OPTIONS": "detect_leaks=1"}):
            self.assertEqual(fuzzlib.property_env({"RC_PARAMS": "seed=1"})["ASAN_OPTIONS"],
                             "detect_leaks=1:malloc_context_size=0")
            self.assertEqual(fuzzlib.sanitizer_env()["ASAN_OPTIONS"], "detect_leaks=1")
        with mock.patch.dict(os.environ, {"ASAN_OPTIONS": "malloc_context_size=30"}):
            self.assertEqual(fuzzlib.property_env()["ASAN_OPTIONS"], "malloc_context_size=30")

    def test_properties_are_targets(self):
        props = fuzzlib.property_names()
        self.assertIn("EndToEnd.generated_programs_match_interpreter", props)
        self.assertNotIn(fuzzlib.PROPS, fuzzlib.all_targets())  # only as props:Suite.Name
        both = fuzzlib.check_targets(["props:EndToEnd.generated_programs_match_interpreter", "fuzz_program"])
        self.assertEqual(both, ["props:EndToEnd.generated_programs_match_interpreter", "fuzz_program"])
        self.assertEqual(len(fuzzlib.check_targets(["props:*"])), len(props))
        with self.assertRaisesRegex(fuzzlib.UsageError, "unknown property 'Nope.nothing'"):
            fuzzlib.check_targets(["props:Nope.nothing"])
        t = "props:" + props[0]
        self.assertEqual(fuzzlib.cmake_target(t), fuzzlib.PROPS)
        self.assertEqual(fuzzlib.cmake_target(t + "_replay"), fuzzlib.PROPS + "_replay")
        self.assertEqual(fuzzlib.read_options(t), fuzzlib.read_options(fuzzlib.PROPS))
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "x"
            p.write_bytes(b"# stackcheck fuzz_props\n# property: " + props[0].encode() + b"\n00\n")
            self.assertEqual(fuzzlib.targets_for_file(p), [fuzzlib.PROPS])
            raw = Path(d) / "crashes" / t / "crash-1"
            raw.parent.mkdir(parents=True)
            raw.write_bytes(b"\x00")
            self.assertEqual(fuzzlib.targets_for_file(raw), [t])

    def test_counterexample_verdict_of_a_fuzz_target_text_form(self):
        text = ("# stackcheck fuzz_bind_plan\n# failed: fail [deps-order]: deps: task 3 runs before 2\n"
                "# replay: seed=1\n")
        self.assertEqual(fuzzlib.counterexample_verdict(text), ("deps", "deps-order", "task 3 runs before 2"))
        text = "# stackcheck end-to-end\n# failed: fail [differential]: c differs\n"
        self.assertEqual(fuzzlib.counterexample_verdict(text), ("end-to-end", "differential", "c differs"))

    def test_options_of_every_target_parse(self):
        for t in fuzzlib.all_targets():
            flags = fuzzlib.libfuzzer_flags(t)
            for f in flags:
                self.assertRegex(f, r"^-\w+=")


if __name__ == "__main__":
    unittest.main()
