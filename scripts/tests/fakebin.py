"""Fake binaries for the scripts' unit tests: small Python programs standing in for the libFuzzer
targets, their replay drivers and the property suites, so that scripts/campaign, scripts/zoo,
scripts/replay, scripts/minimize, scripts/promote and scripts/throughput run without a build.

What a fake reports is decided by the input's bytes, so that a test plants its findings:
  - an input holding `BUG-<X>` is a finding: its replay prints an oracle report with rule
    `rule-<X>` (one bucket per X);
  - an input holding `ERROR` is a broken file: its replay exits 2 with one error line;
  - an input holding `OVERREAD` is a heap read past a buffer that only ASan sees: the replay
    driver of a sanitized fake (fuzzer(..., sanitized=True)) prints an AddressSanitizer report,
    a fast-lane fake's replays it clean;
  - anything else replays clean.
The fake fuzzer (a binary not named *_replay) writes one corpus unit per run (named by its
SHA-1) and a partial file next to it, prints libFuzzer's status and final-stats lines, and
writes a crash artifact when FAKE_CRASH names it (FAKE_UNIT_TEXT is added to every unit it
writes; with FAKE_UNIT_DEFECT set, only while STACKCHECK_DEFECT is that defect), and (`target=BUG-X`, comma separated; with
FAKE_CRASH_DEFECT set, only while STACKCHECK_DEFECT is that defect). With -merge=1 it keeps
every unit not starting with `redundant`; with -minimize_crash=1 it writes the input's
`BUG-<X>` token alone.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
import unittest
from pathlib import Path

FUZZER = r'''
SANITIZED = False
import hashlib, os, re, shutil, signal, sys, time
from pathlib import Path

signal.signal(signal.SIGINT, signal.default_int_handler)  # as libFuzzer's own, even if started ignoring it

me = Path(sys.argv[0]).name
args = sys.argv[1:]
flags = dict(a[1:].split("=", 1) for a in args if a.startswith("-") and "=" in a)
pos = [a for a in args if not a.startswith("-")]
log = os.environ.get("FAKE_ARGV_LOG")
if log:
    with open(log, "a") as f:
        f.write(me + "\t" + "\t".join(args) + "\n")


def body(p):
    data = Path(p).read_bytes()
    if data.startswith(b"# stackcheck "):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return data


if me.endswith("_replay"):
    target = me[: -len("_replay")]
    if args[0] == "--text":
        data = body(args[1])
        if b"NOTEXT" in data:
            sys.exit(1)
        data = data.replace(b"MUTATE-ON-TEXT BUG-A", b"BUG-B")
        sys.stdout.buffer.write(b"# stackcheck " + target.encode() + b"\n" + data)
        sys.exit(0)
    if args[0] == "--classify":
        for d in args[1:]:
            for f in sorted(Path(d).iterdir()):
                if not f.name.startswith("."):
                    print(("rejected" if f.read_bytes().startswith(b"bad") else "valid") + "\t" + str(f))
        sys.exit(0)
    for p in args:  # FILE...: each in turn; the first finding or broken file ends the process (replay_main)
        data = body(p)
        print(f"replay: {p} ({len(data)} bytes)", file=sys.stderr)
        if SANITIZED and b"OVERREAD" in data:
            print("==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014\n"
                  "READ of size 4 at 0x602000000014 thread T0\n"
                  "    #0 0x4f00aa in stackcheck::runtime::Orchestrator::publish(int) /src/stack/runtime/o.cpp:9:5\n"
                  "    #1 0x4f00bb in stackcheck::runtime::Orchestrator::submit() /src/stack/runtime/o.cpp:20:3\n\n"
                  "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/stack/runtime/o.cpp:9:5 in publish",
                  file=sys.stderr)
            sys.exit(1)
        m = re.search(rb"BUG-([A-Z])", data)
        if m:
            x = m.group(1).decode()
            print(f"# stackcheck {target}\n# oracle: end-to-end\n# rule: rule-{x}\n# message: planted bug {x}",
                  file=sys.stderr)
            sys.exit(1)
        if b"ERROR" in data:
            print(f"{me}: {p}: broken input", file=sys.stderr)
            sys.exit(2)
    sys.exit(0)

if flags.get("merge") == "1":
    new, corpus = Path(pos[0]), Path(pos[1])
    for f in corpus.iterdir():
        if not f.name.startswith(".") and not f.read_bytes().startswith(b"redundant"):
            shutil.copy(f, new / f.name)
    sys.exit(0)

if flags.get("minimize_crash") == "1":
    m = re.search(rb"BUG-[A-Z]", Path(pos[0]).read_bytes())
    if m:
        Path(flags["exact_artifact_path"]).write_bytes(m.group(0))
    sys.exit(0)

seed = flags.get("seed", "0")
session = Path(pos[0])
print(f"INFO: Seed: {seed}", flush=True)
print("#2\tINITED cov: 10 ft: 20 corp: 3/30b exec/s: 0 rss: 25Mb", flush=True)
extra = os.environ.get("FAKE_UNIT_TEXT", "")
if os.environ.get("FAKE_UNIT_DEFECT") and os.environ.get("STACKCHECK_DEFECT") != os.environ["FAKE_UNIT_DEFECT"]:
    extra = ""
unit = (f"unit {me} {seed}" + (f" {extra}" if extra else "") + "\n").encode()
session.mkdir(parents=True, exist_ok=True)
(session / hashlib.sha1(unit).hexdigest()).write_bytes(unit)
(session / "0123456789abcdef0123456789abcdef01234567").write_bytes(b"cut short by a kill")
print("#500\tNEW    cov: 15 ft: 30 corp: 4/40b lim: 4 exec/s: 250 rss: 26Mb L: 3/3 MS: 1 ChangeBit-", flush=True)
crash = dict(c.split("=", 1) for c in os.environ.get("FAKE_CRASH", "").split(",") if "=" in c)
if SANITIZED and b"OVERREAD" in unit:  # a sanitized fuzzer sees the read past the buffer itself
    crash[me] = "OVERREAD"
want = os.environ.get("FAKE_CRASH_DEFECT")
code = 0
if me in crash and (not want or os.environ.get("STACKCHECK_DEFECT") == want):
    data = f"{crash[me]} found at seed {seed}\n".encode()
    Path(flags.get("artifact_prefix", "./") + "crash-" + hashlib.sha1(data).hexdigest()).write_bytes(data)
    print("==1== ERROR: libFuzzer: deadly signal", flush=True)
    code = 1
time.sleep(float(os.environ.get("FAKE_FUZZ_SECONDS", "0.3")))
print("Slowest unit: 2 s:", flush=True)
print("stat::number_of_executed_units: 600\nstat::average_exec_per_sec:     300\nstat::peak_rss_mb: 26", flush=True)
sys.exit(code)
'''


def write_exe(path: Path, source: str) -> Path:
    """A Python program at `path`, executable, run by this interpreter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n" + source.lstrip("\n"))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def temp_dir(test: unittest.TestCase, prefix: str) -> Path:
    """A fresh temporary folder for `test`, removed when it ends."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    test.addCleanup(shutil.rmtree, tmp, True)
    return tmp


def fuzzer(bin_dir: Path, target: str, sanitized: bool = False) -> None:
    """The fake libFuzzer binary of `target` and its replay driver in bin_dir (sanitized: its
    replays see an `OVERREAD`, as an ASan build)."""
    source = FUZZER.replace("SANITIZED = False", f"SANITIZED = {sanitized}", 1)
    write_exe(bin_dir / target, source)
    write_exe(bin_dir / f"{target}_replay", source)


class Env:
    """Sets environment variables for a test and restores them after (a context manager)."""

    def __init__(self, **values: str | None):
        self.values = values
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> "Env":
        for k, v in self.values.items():
            self.saved[k] = os.environ.get(k)
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        return self

    def __exit__(self, *exc) -> None:
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
