"""scripts/campaign: the main job. See `scripts/campaign --help` and README.md.

Layout of the working folder DIR (default build/campaign):
  corpus/<target>/        the persistent corpus: every file is named by the SHA-1 of its bytes
                          and arrives by temp file + rename, so a kill never leaves a partial one
  sessions/<target>/<id>/ libFuzzer's writable corpus of one run; harvested into corpus/ while
                          the run goes and again on the next start (only complete units)
  pruned/<target>/        units a completed merge found redundant (moved, never deleted)
  crashes/<target>/       raw finding bytes as libFuzzer wrote them
  findings/<bucket>/      per bucket: the minimized bytes and what the replay showed
  sanitized/<target>.tsv  the fast lane's units replayed under ASan+UBSan, one verdict a line
  candidates/<target>/    one text-form file per bucket, with its header: review, then
                          `scripts/promote FILE`
  <timestamp>/            one run's logs, time series, tables, report.md and index.html

Modules: campaign_cli (flags), campaign_store (the kill-safe corpus), campaign_run (one
libFuzzer run: its log and peak RSS), campaign_lanes (the fast lane and the sanitizer checks
of what it adds), campaign_after (merge, findings, corpus classes),
campaign_properties (the properties at scale), campaign_report (tables, report, summary).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
import rss  # noqa: E402
from campaign_after import AfterFuzzing  # noqa: E402
from campaign_cli import parse_args  # noqa: E402
from campaign_lanes import SanitizerCheck, fast_lane  # noqa: E402
from campaign_properties import Properties  # noqa: E402
from campaign_report import Reporting, tsv  # noqa: E402
from campaign_run import OSS_FUZZ_LIMITS, PROG, Stats, Task, fmt_int, fmt_secs, log  # noqa: E402
from campaign_store import Store  # noqa: E402
from fuzzlib import ROOT, UsageError, die_with_parent  # noqa: E402


class Campaign(AfterFuzzing, Properties, Reporting):
    def __init__(self, args: argparse.Namespace):
        self.a = args
        self.out = Path(args.out).resolve()
        if self.out == ROOT or ROOT / "build" not in [self.out, *self.out.parents] and ROOT in self.out.parents:
            raise UsageError(f"--out {args.out}: the campaign never writes into the source tree (use build/...)")
        self.store = Store(self.out)
        self.bin = ROOT / "build" / args.asan_preset / "bin"  # replays, minimizing, properties: sanitized
        self.fast_bin = ROOT / "build" / args.fast_preset / "bin"
        self.sanitizer: SanitizerCheck | None = None
        self.stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.run_dir = self.out / self.stamp
        self.started = time.time()  # the run (build included)
        self.t0 = self.started  # fuzzing: reset when the fuzzing starts, so the build never eats the budget
        self.stop_requested = 0
        self.tasks: list[Task] = []
        self.totals: dict[str, Stats] = {}
        self.execs_total: dict[str, int] = {}
        self.seconds_total: dict[str, float] = {}
        self.tty = sys.stderr.isatty() and not args.plain
        self.status_lines = 0
        self.last_plain = 0.0
        self.last_refresh = time.time()
        self.last_sample = 0.0
        self.last_harvest = time.time()
        self.buckets: dict[str, dict] = {}
        self.property_rows: list[dict] = []

    # -- setup ------------------------------------------------------------------------------
    def lock(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self.lock_file = open(self.out / ".lock", "w")
        try:
            fcntl.flock(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UsageError(f"another campaign is running on {self.out}")

    def fast_targets(self) -> list[str]:
        return [t for t in self.a.targets if fast_lane(t, self.a.sanitize)]

    def lane_bin(self, t: str) -> Path:
        """The build a target fuzzes in (its merges and corpus classes run there too)."""
        return self.fast_bin if fast_lane(t, self.a.sanitize) else self.bin

    def build(self) -> None:
        fast = [n for t in self.fast_targets() for n in (t, f"{t}_replay")]
        if self.a.no_build:
            for d, names in ((self.bin, [n for t in self.a.targets for n in (t, f"{t}_replay")]), (self.fast_bin, fast)):
                for b in names:
                    if not (d / b).exists():
                        raise UsageError(f"--no-build but {d / b} does not exist")
            return
        names = [n for t in self.a.targets for n in (t, f"{t}_replay")] + ["stackcheck-report"]
        if self.a.properties:
            names += [p.stem for p in sorted((ROOT / "properties").glob("*_props.cpp"))]
        for preset, want in ((self.a.asan_preset, names), (self.a.fast_preset, fast)):
            if want:
                log(f"building preset {preset}: {len(want)} targets (log: {self.run_dir / 'build.log'})")
                fuzzlib.build(preset, want, log=self.run_dir / "build.log")

    # -- scheduling -------------------------------------------------------------------------
    def plan(self, round_seconds: float) -> list[Task]:
        """Every target gets an equal share of the slots: with J slots and T > J targets, each
        runs J slices of round / T seconds, so the round ends on time with every slot busy
        (T <= J: each runs the whole round). The sanitized twins (--asan-jobs N) share N slots
        the same way, the targets the other J - N."""
        base = self.a.seed
        main = [Task(target=name, seconds=0, slice=0, seed=base + i, lane="fast" if fast_lane(name, self.a.sanitize)
                     else "asan") for i, name in enumerate(self.a.targets)]
        twins = [Task(target=name, seconds=0, slice=0, seed=base + 500 + i, lane="asan", twin=True)
                 for i, name in enumerate(self.fast_targets())] if self.a.asan_jobs else []
        for pool, j in ((main, self.a.jobs - self.a.asan_jobs), (twins, self.a.asan_jobs)):
            t = len(pool)
            for task in pool:
                task.seconds = round_seconds if t <= j else round_seconds * j / t
                task.slice = round_seconds if t <= j else round_seconds / t
        return main + twins

    def slots(self) -> list[tuple[bool, int]]:
        """(twin, jobs) per pool: the targets' and the sanitized twins'."""
        return [(False, self.a.jobs - self.a.asan_jobs), (True, self.a.asan_jobs)]

    def next_task(self, twin: bool = False) -> Task | None:
        """The waiting task of a pool with the most time left (so shares even out, round-robin)."""
        waiting = [t for t in self.tasks if not t.proc and not t.done and t.twin == twin]
        return max(waiting, key=lambda t: (t.seconds - t.used, -self.tasks.index(t)), default=None)

    def start(self, task: Task, now: float) -> None:
        t = task.target
        task.session = self.store.sessions(t) / f"{self.stamp}{'.asan' if task.twin else ''}-{task.restarts}"
        task.session.mkdir(parents=True, exist_ok=True)
        self.store.crashes(t).mkdir(parents=True, exist_ok=True)
        self.store.corpus(t).mkdir(parents=True, exist_ok=True)
        task.log_path = self.run_dir / "logs" / f"{task.name}.{task.restarts}.log"
        task.log_path.parent.mkdir(parents=True, exist_ok=True)
        secs = max(5, int(min(task.slice, task.remaining(now))))
        binary = (self.fast_bin if task.lane == "fast" else self.bin) / t
        cmd = [str(binary), str(task.session), str(self.store.corpus(t)),
               *[str(d) for d in fuzzlib.seed_dirs(t)], *self.limits(t), *fuzzlib.libfuzzer_flags(t), *self.a.extra,
               f"-seed={task.seed + 1000 * task.restarts}", f"-max_total_time={secs}", "-print_final_stats=1",
               f"-artifact_prefix={self.store.crashes(t)}/", "-reload=30"]
        if self.a.fork:
            cmd += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
        # -fork keeps its job folders under TMPDIR: inside DIR, so a killed run's are found and
        # removed on the next start.
        tmp = self.out / "tmp" / t
        tmp.mkdir(parents=True, exist_ok=True)
        env = fuzzlib.sanitizer_env({"ASAN_OPTIONS": "symbolize=1:detect_leaks=1:abort_on_error=0",
                                     "TMPDIR": str(tmp)})
        with open(task.log_path, "wb") as lf:
            lf.write(("$ " + " ".join(cmd) + "\n").encode())
            lf.flush()
            task.proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         cwd=self.store.crashes(t), env=env, preexec_fn=die_with_parent)
        # Its process group, so the next start can end fork-mode jobs a SIGKILLed campaign
        # left behind (PR_SET_PDEATHSIG reaches the fuzzer itself, not the jobs it spawned).
        (task.session / ".pgid").write_text(str(task.proc.pid))
        task.started = now
        task.log_pos = 0
        task.status = "running"

    def limits(self, t: str) -> list[str]:
        own = fuzzlib.read_options(t)
        return [f"-{k}={v}" for k, v in OSS_FUZZ_LIMITS.items() if k not in own]

    def finish(self, task: Task, now: float) -> None:
        """A run ended (its time, a finding without -fork, or a stop): bank its figures, and
        write its last sample (peak RSS from wait4 included)."""
        task.read_log()
        self.sample_task(task, now)
        task.used += now - task.started
        task.base_execs += task.stats.execs
        task.stats.execs = 0
        self.store.harvest(task.target, task.session)
        shutil.rmtree(task.session, ignore_errors=True)
        task.proc = None
        if self.stop_requested or task.remaining(now) < 5:
            task.done = True
            task.status = "done"
        else:
            task.restarts += 1  # its slice ended, or a finding stopped it: more of its share later
            task.status = "waiting"

    def stop_children(self, sig: int) -> None:
        if self.sanitizer and sig == signal.SIGKILL:
            self.sanitizer.kill()
        for task in self.tasks:
            if task.proc and task.proc.returncode is None:  # not poll(): Task.reap reaps it
                try:
                    os.killpg(task.proc.pid, sig)
                except ProcessLookupError:
                    pass

    # -- progress ---------------------------------------------------------------------------
    def progress_rows(self, now: float) -> list[str]:
        rows = [f"{'target':<18} {'execs':>12} {'exec/s':>8} {'cov':>6} {'ft':>7} {'corpus':>7} {'finds':>5} "
                f"{'left':>7}  state"]
        for task in self.tasks:
            s = task.stats
            corpus_n, _ = self.store.size(task.target)
            rows.append(f"{task.name:<18} {fmt_int(task.total_execs):>12} {fmt_int(s.exec_s):>8} "
                        f"{s.cov:>6} {s.ft:>7} {corpus_n:>7} {self.findings_count(task.target):>5} "
                        f"{fmt_secs(task.remaining(now)):>7}  {task.status}")
        if self.sanitizer:
            st = self.sanitizer.state.values()
            rows.append(f"sanitizer checks of the fast lane's new inputs: {sum(s.inputs for s in st):,} done, "
                        f"{self.sanitizer.pending():,} waiting, {sum(s.findings for s in st)} finding(s)")
        left = "until interrupted" if self.a.minutes == 0 else f"{fmt_secs(self.deadline - now)} left"
        rows.append(f"elapsed {fmt_secs(now - self.t0)}, {left}; seed {self.a.seed}; Ctrl-C stops and reports")
        return rows

    def show(self, now: float, force: bool = False) -> None:
        rows = self.progress_rows(now)
        if self.tty:
            if self.status_lines:
                sys.stderr.write(f"\x1b[{self.status_lines}F")
            for r in rows:
                sys.stderr.write("\x1b[2K" + r + "\n")
            sys.stderr.flush()
            self.status_lines = len(rows)
        elif force or now - self.last_plain >= self.a.progress_every:
            self.last_plain = now
            for task in self.tasks:
                if task.status == "running" or force:
                    s = task.stats
                    log(f"[{task.name}] execs={task.total_execs} exec/s={s.exec_s} cov={s.cov} "
                        f"corpus={self.store.size(task.target)[0]} findings={self.findings_count(task.target)} "
                        f"left={fmt_secs(task.remaining(now))} {task.status}")

    def sample(self, now: float) -> None:
        for task in self.tasks:
            if task.status == "running":
                self.sample_task(task, now)

    def sample_task(self, task: Task, now: float) -> None:
        """One row of series/<target>.tsv; rss_mb is the task's peak RSS so far (the report's
        peak RSS column is its largest), `-` before its first measurement."""
        s = task.stats
        rss_mb = task.peak_rss_mb if task.peak_rss.kib else "-"
        p = self.run_dir / "series" / f"{task.name}.tsv"
        new = not p.exists()
        with open(p, "a") as f:
            if new:
                f.write("t_s\texecs\texec_s\tcov\tft\tcorpus\trss_mb\n")
            f.write(f"{now - self.t0:.1f}\t{task.total_execs}\t{s.exec_s}\t{s.cov}\t{s.ft}\t"
                    f"{self.store.size(task.target)[0]}\t{rss_mb}\n")

    # -- the fuzzing loop -------------------------------------------------------------------
    def fuzz(self) -> None:
        continuous = self.a.minutes == 0
        round_s = self.a.round * 60 if continuous else self.a.minutes * 60
        self.t0 = time.time()
        self.deadline = self.t0 + (10**9 if continuous else round_s)
        self.tasks = self.plan(round_s)
        rnd = 0
        while True:
            self.run_round()
            if self.sanitizer:  # every unit the round added is checked before the round ends
                self.sanitizer.drain(stop=lambda: self.stop_requested > 1)
            rnd += 1
            if self.stop_requested or not continuous:
                break
            self.merge_all()
            self.refresh_report("running")
            self.tasks = self.plan(round_s)  # next round: same shares, new seeds
            for i, t in enumerate(self.tasks):
                t.seed = self.a.seed + 7919 * rnd + i
        self.show(time.time(), force=True)

    def run_round(self) -> None:
        while not all(t.done for t in self.tasks):
            now = time.time()
            running = [t for t in self.tasks if t.proc]
            kids = rss.children_map() if running else {}
            for task in running:
                task.read_log()
                task.sample_rss(kids)
                if task.reap():
                    self.finish(task, now)
            if self.stop_requested:
                for task in self.tasks:
                    if not task.proc:
                        task.done = True
                        task.status = "stopped" if task.status == "queued" else task.status
                if not any(t.proc for t in self.tasks):
                    break
            else:
                for twin, jobs in self.slots():
                    free = jobs - sum(1 for t in self.tasks if t.proc and t.twin == twin)
                    while free > 0:
                        task = self.next_task(twin)
                        if task is None:
                            break
                        self.start(task, now)
                        free -= 1
            if now - self.last_sample >= self.a.sample_every:
                self.last_sample = now
                self.sample(now)
            if now - self.last_harvest >= 10:
                self.last_harvest = now
                for task in self.tasks:
                    if task.proc:
                        self.store.harvest(task.target, task.session)
                if self.sanitizer:
                    self.sanitizer.scan()
            if self.sanitizer and not self.stop_requested:
                self.sanitizer.poll()
            if self.a.minutes == 0 and now - self.last_refresh >= self.a.refresh * 60:
                self.refresh_report("running")
            self.show(now)
            time.sleep(1)


    def run(self) -> int:
        self.lock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "series").mkdir(exist_ok=True)
        self.build()
        for t in self.a.targets:
            got, temps = self.store.recover(t)
            if got or temps:
                log(f"[{t}] resumed: {got} unit(s) recovered from interrupted runs, {temps} partial file(s) dropped")
        log(f"seed={self.a.seed} minutes={self.a.minutes or 'until interrupted'} jobs={self.a.jobs} "
            f"targets: {' '.join(self.a.targets)}")
        log(f"working corpus under {self.out}, this run in {self.run_dir}")
        fast = self.fast_targets()
        if fast:
            log(f"fast lane ({self.a.fast_preset}, no sanitizer): {' '.join(fast)}; "
                + ("their new inputs are replayed under ASan+UBSan" if self.a.sanitize == "new" else "nothing checked")
                + (f"; sanitized twins on {self.a.asan_jobs} job(s)" if self.a.asan_jobs else ""))
        if self.a.sanitize == "new" and fast:
            self.sanitizer = SanitizerCheck(self.store, self.bin, fast, self.a.replay_timeout)
        self.fuzz()
        status = "interrupted" if self.stop_requested else "complete"
        if self.stop_requested < 2:
            log("merging and minimizing each corpus (-merge=1)")
            self.merge_all()
        log("bucketing and minimizing findings")
        self.process_findings()
        if self.a.properties and not self.stop_requested:
            self.run_properties()
        if not self.stop_requested:
            rows = self.classify_corpus()
            tsv(self.run_dir / "classes.tsv", ["target", "class", "count"], rows)
        if self.a.coverage and not self.stop_requested:
            rows = self.coverage()
            tsv(self.run_dir / "coverage.tsv", ["folder", "lines", "lines_covered", "branches", "branches_covered"],
                rows)
        self.write_tables(status)
        page = self.render()
        self.summary()
        print(f"\nreport: {self.run_dir / 'report.md'}" + (f"\n        {page}" if page else ""))
        print(f"seed: {self.a.seed}   rerun: scripts/campaign --seed {self.a.seed} --minutes {self.a.minutes} "
              f"--targets {','.join(self.a.targets)} --out {self.a.out}"
              + (f" --sanitize {self.a.sanitize}" if self.a.sanitize != "new" else "")
              + (f" --asan-jobs {self.a.asan_jobs}" if self.a.asan_jobs else "")
              + (f" --fast-preset {self.a.fast_preset}" if self.a.fast_preset != "fuzz-fast" else "")
              + (f" --asan-preset {self.a.asan_preset}" if self.a.asan_preset != "fuzz" else ""))
        failed_props = any(r["result"] == "fail" for r in self.property_rows)
        if self.a.fail_on_finding and (self.buckets or failed_props):
            return 1
        return 0



def main(argv: list[str]) -> int:
    a = parse_args(argv)  # a relative --out is relative to the directory the campaign starts in
    os.chdir(ROOT)
    try:
        c = Campaign(a)
    except UsageError as e:
        log(str(e))
        return 2

    def on_signal(sig, frame):
        c.stop_requested += 1
        if c.stop_requested == 1:
            log("stopping: the fuzzers finish, then merge, findings and the report (Ctrl-C again: report only)")
            c.stop_children(signal.SIGINT)
        else:
            c.stop_children(signal.SIGKILL)

    return fuzzlib.run_stoppable(PROG, c.run, on_signal)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
