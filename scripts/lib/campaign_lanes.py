"""The campaign's two lanes (scripts/campaign, HARNESS.md §5): the deep and the text targets fuzz
in the fast lane (the `fuzz-fast` preset: libFuzzer coverage, no ASan or UBSan), and every
input the fast lane adds to a corpus is replayed through the sanitized build's replay driver
(the `fuzz` preset) while the campaign runs. A sanitizer report there becomes a crash artifact
like any other, so it is bucketed, minimized and written as a candidate (one artifact a bucket
a run; the other inputs that show it are counted).

The modes (--sanitize): `new` (the default) as above; `all` fuzzes every target sanitized, as
before the lanes; `none` fuzzes the fast-lane targets there and checks nothing. The
other targets (fuzz_relative_ptr, the properties) run sanitized in every mode: they are
shallow and cheap already.
--asan-jobs N adds a sanitized twin of each fast-lane target on N of the jobs, fuzzing the same
corpus (AFL++'s one sanitized instance).

What was checked is kept in DIR/sanitized/<target>.tsv (`<unit>\\t<verdict>`, appended line by
line), so a resumed campaign checks each unit once and a killed one loses at most the batch
that was running.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from campaign_store import Store  # noqa: E402
from fuzzlib import die_with_parent  # noqa: E402

# The targets the fast lane takes: those whose inputs cost the most (throughput.TARGETS), and
# the text targets, whose structure-aware mutators (fuzz/text_mutator.h) send most inputs
# through the whole parser and pipeline, where ASan costs them as much.
FAST_TARGETS = ("fuzz_program", "fuzz_bind_plan", "fuzz_attach", "fuzz_parse", "fuzz_pipeline")
MODES = ("new", "all", "none")
BATCH = 64  # units per replay process
REPLAY_LINE = re.compile(r"^replay: (.+) \(\d+ bytes\)$", re.M)


def fast_lane(target: str, mode: str) -> bool:
    """True when `target` fuzzes in the fast lane in this --sanitize mode."""
    return mode != "all" and target in FAST_TARGETS


@dataclass
class Checked:
    """One target's sanitizer checks: what is done, what waits, what they cost."""

    done: dict[str, str] = field(default_factory=dict)  # unit -> clean | finding:<bucket>[:<artifact>] | error
    queue: list[str] = field(default_factory=list)
    inputs: int = 0  # checked by this run
    seconds: float = 0.0
    findings: int = 0


class SanitizerCheck:
    """Replays the fast lane's new units through `<target>_replay` of the sanitized build, one
    batch at a time in a child process (the fuzzers keep their jobs), and turns a finding into
    `crashes/<target>/crash-<sha1>` (or `timeout-<sha1>`) for the campaign's bucketing."""

    def __init__(self, store: Store, replay_bin: Path, targets: list[str], timeout: float):
        self.store = store
        self.bin = replay_bin
        self.timeout = timeout
        self.state: dict[str, Checked] = {t: Checked() for t in targets}
        self.proc: subprocess.Popen | None = None
        self.running: tuple[str, list[str], float, Path] | None = None  # target, batch, start, stderr file
        self.seen: set[str] = set()  # buckets this run copied an artifact for (one each)
        for t in targets:
            self.load(t)

    def ledger(self, t: str) -> Path:
        return self.store.out / "sanitized" / f"{t}.tsv"

    def load(self, t: str) -> None:
        p = self.ledger(t)
        if not p.exists():
            return
        text = p.read_text(errors="replace")
        for line in text.splitlines(keepends=True):
            if line.endswith("\n") and "\t" in line:  # a line a kill cut short is not a verdict
                name, verdict = line.rstrip("\n").split("\t", 1)
                self.state[t].done[name] = verdict

    def record(self, t: str, name: str, verdict: str) -> None:
        p = self.ledger(t)
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "a") as f:
            f.write(f"{name}\t{verdict}\n")
        self.state[t].done[name] = verdict

    def scan(self) -> None:
        """Queues every unit of the targets' corpora that no check has seen."""
        for t, st in self.state.items():
            d = self.store.corpus(t)
            if not d.is_dir():
                continue
            waiting = set(st.queue)
            if self.running and self.running[0] == t:  # the batch being replayed: not queued twice
                waiting.update(self.running[1])
            for f in sorted(d.iterdir()):
                if not f.name.startswith(".") and f.name not in st.done and f.name not in waiting:
                    st.queue.append(f.name)

    def pending(self) -> int:
        return sum(len(s.queue) for s in self.state.values()) + (len(self.running[1]) if self.running else 0)

    def poll(self) -> None:
        """Non-blocking: reaps a finished batch, starts the next."""
        if self.proc is not None:
            if self.proc.poll() is None:
                t, batch, t0, _ = self.running
                if time.time() - t0 > self.batch_timeout(batch):
                    self.proc.kill()
                    self.proc.wait()
                    self.reap(timed_out=True)
                return
            self.reap(timed_out=False)
        self.start_next()

    def drain(self, stop=lambda: False) -> None:
        """Checks everything queued (the end of a round), unless `stop()` says to give up."""
        self.scan()
        while self.pending() and not stop():
            self.poll()
            if self.proc is not None:
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.running = None

    def batch_timeout(self, batch: list[str]) -> float:
        return self.timeout + 2.0 * len(batch)

    def start_next(self) -> None:
        for t, st in self.state.items():
            batch = [n for n in st.queue[:BATCH] if (self.store.corpus(t) / n).exists()]
            del st.queue[:BATCH]
            if not batch:
                continue
            err = self.store.out / "sanitized" / f".{t}.stderr"
            err.parent.mkdir(parents=True, exist_ok=True)
            with open(err, "wb") as ef:
                self.proc = subprocess.Popen([str(self.bin / f"{t}_replay"), *[str(self.store.corpus(t) / n)
                                                                              for n in batch]],
                                             stdout=subprocess.DEVNULL, stderr=ef, stdin=subprocess.DEVNULL,
                                             env=fuzzlib.sanitizer_env(), preexec_fn=die_with_parent)
            self.running = (t, batch, time.time(), err)
            return

    def reap(self, timed_out: bool) -> None:
        t, batch, t0, err = self.running
        code = self.proc.returncode
        self.proc, self.running = None, None
        st = self.state[t]
        st.seconds += time.time() - t0
        stderr = err.read_text(errors="replace") if err.exists() else ""
        named = [Path(m).name for m in REPLAY_LINE.findall(stderr)]
        finding = fuzzlib.parse_finding(code, stderr, timed_out=timed_out)
        if code == 0 and not timed_out:
            for n in batch:
                self.record(t, n, "clean")
            st.inputs += len(batch)
            return
        # The last unit the driver named is the one it stopped on; those before it passed.
        last = named[-1] if named and named[-1] in batch else None
        if last is None:  # stopped before its first input: nothing is known, the batch goes back
            self.record(t, batch[0], "error")  # so one unit the driver cannot start on is not retried forever
            st.queue[:0] = batch[1:]
            return
        k = batch.index(last)
        for n in batch[:k]:
            self.record(t, n, "clean")
        st.inputs += k + 1
        st.queue[:0] = batch[k + 1:]
        if finding.found:
            st.findings += 1
            bucket = finding.bucket(t)
            if bucket in self.seen:  # its bucket has an artifact from this run already: counted, not copied
                self.record(t, last, f"finding:{bucket}")
                return
            self.seen.add(bucket)
            prefix = "timeout-" if finding.kind == "timeout" else "crash-"
            dest = self.store.crashes(t) / f"{prefix}{last}"
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                fuzzlib.atomic_write(dest, (self.store.corpus(t) / last).read_bytes())
            self.record(t, last, f"finding:{bucket}:{dest.name}")
        else:
            self.record(t, last, "error")

    def rows(self) -> list[tuple]:
        return [(t, s.inputs, f"{s.seconds:.1f}", s.findings, len(s.done), len(s.queue))
                for t, s in self.state.items()]


def lane_notes(lanes: list[tuple], checks: list[tuple], mode: str, asan_jobs: int) -> str:
    """The report's section on the lanes: each lane's executions and exec/s, and what the
    sanitizers checked (notes.md, appended to report.md)."""
    out = [f"## Lanes (--sanitize {mode}, --asan-jobs {asan_jobs})", "",
           "| lane | targets | executions | seconds | exec/s |", "|---|---|---:|---:|---:|"]
    for lane, targets, execs, secs in lanes:
        eps = int(execs / secs) if secs else 0
        out.append(f"| {lane} | {' '.join(targets)} | {execs:,} | {secs:.0f} | {eps:,} |")
    if checks:
        out += ["", "Inputs the fast lane added, replayed under ASan + UBSan (`<target>_replay` of the sanitized "
                "build):", "", "| target | checked (this run) | seconds | findings | checked (all runs) | waiting |",
                "|---|---:|---:|---:|---:|---:|"]
        out += [f"| {t} | {n:,} | {s} | {f} | {a:,} | {w:,} |" for t, n, s, f, a, w in checks]
    return "\n".join(out) + "\n"

