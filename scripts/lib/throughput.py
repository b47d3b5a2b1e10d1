"""scripts/throughput: what one input of each deep fuzz target costs (HARNESS.md §7).

Runs bench/throughput_bench (Google Benchmark over corpus/bench/<target>/) in the dev preset
(gcc, uninstrumented) and in the fuzz preset (clang, ASan + UBSan + coverage), prints them side
by side with their ratio and the per-tier table, then runs each libFuzzer target of the fuzz
preset on the same corpus with a fixed seed and run count (its .options applied) and reads its
exec/s, and runs every property suite at a fixed max_success to give cases per CPU second.
Writes build/throughput/<timestamp>/ (throughput.json, run.tsv, notes.md, and report.md +
index.html from stackcheck-report). Python standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzlib  # noqa: E402
from fuzzlib import ROOT, UsageError  # noqa: E402

PROG = "throughput"
TARGETS = ["fuzz_program", "fuzz_bind_plan", "fuzz_attach"]
# The bars of the throughput issue, per target: libFuzzer exec/s and the fuzz/dev cost ratio.
EXEC_BAR = {"fuzz_program": 1000, "fuzz_bind_plan": 2000, "fuzz_attach": 5000}
RATIO_BAR = 3.0
ALLOC_BAR = {"fuzz_program": 1000}
PROPERTY_BAR = 300.0


def log(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/throughput", description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=fuzzlib.number_arg(int, positive=True), default=3000,
                   help="libFuzzer executions per target, corpus included (default 3000)")
    p.add_argument("--seed", type=fuzzlib.number_arg(int), default=1, help="libFuzzer's and RapidCheck's seed (1)")
    p.add_argument("--min-time", type=fuzzlib.number_arg(float, positive=True), default=2.0,
                   help="Google Benchmark's minimum time per benchmark, seconds (2)")
    p.add_argument("--property-cases", type=fuzzlib.number_arg(int, positive=True), default=300,
                   help="max_success per property (300, as the campaign's property phase)")
    p.add_argument("--property-preset", choices=["fuzz", "dev"], default="fuzz",
                   help="the preset whose property suites are timed (fuzz, as the campaign runs them)")
    p.add_argument("--no-properties", action="store_true", help="skip the property suites")
    p.add_argument("--no-libfuzzer", action="store_true", help="skip the libFuzzer runs")
    p.add_argument("--no-build", action="store_true", help="use the binaries as built")
    p.add_argument("--no-scaling", action="store_true",
                   help="skip the scaling benchmark (fuzz_program's cost per statement as programs grow)")
    p.add_argument("--targets", default=",".join(TARGETS), help="comma-separated subset of " + ",".join(TARGETS))
    p.add_argument("--out", type=Path, default=ROOT / "build" / "throughput", help="output folder (build/throughput)")
    a = p.parse_args(argv)
    a.targets = [t for t in re.split(r"[,\s]+", a.targets) if t]
    for t in a.targets:
        if t not in TARGETS:
            raise UsageError(f"unknown target '{t}' (known: {', '.join(TARGETS)})")
    return a


def cpu_run(cmd: list[str], env: dict[str, str], out: Path, timeout: float | None = None) -> tuple[int, float, float]:
    """Runs `cmd` with stdout+stderr to `out`; returns (exit code, CPU seconds, wall seconds)."""
    t0 = time.time()
    with open(out, "wb") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                                preexec_fn=fuzzlib.die_with_parent)
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            proc.kill()
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, ru.ru_utime + ru.ru_stime, time.time() - t0


def run_bench(preset: str, a: argparse.Namespace, run_dir: Path) -> dict[str, dict]:
    binary = ROOT / "build" / preset / "bin" / "throughput_bench"
    if not binary.exists():
        raise UsageError(f"{binary} is not built (drop --no-build)")
    filt = "^(" + "|".join(a.targets) + ")"
    js = run_dir / f"bench-{preset}.json"
    cmd = [str(binary), f"--benchmark_filter={filt}", f"--benchmark_min_time={a.min_time}",
           "--benchmark_format=console", f"--benchmark_out={js}", "--benchmark_out_format=json"]
    log(f"{preset}: {' '.join(cmd)}")
    code, _, wall = cpu_run(cmd, fuzzlib.sanitizer_env(), run_dir / f"bench-{preset}.log")
    if code != 0 or not js.exists():
        raise UsageError(f"the {preset} benchmark failed (exit {code}): see {run_dir / f'bench-{preset}.log'}")
    rows = {}
    for b in json.loads(js.read_text())["benchmarks"]:
        name = b["name"].split("/")[0]
        if b.get("error_occurred"):
            raise UsageError(f"{preset} benchmark {name}: {b.get('error_message')}")
        inputs = b["inputs"]
        per_input_ms = b["real_time"] / inputs  # Unit is ms per iteration, an iteration judges the corpus
        tiers = {}
        for k, v in b.items():
            if k.endswith(".us"):
                tiers.setdefault(k[:-3], {})["us"] = v
            elif k.endswith(".reach"):
                tiers.setdefault(k[:-6], {})["reach"] = v
            elif k.endswith(".allocs"):
                tiers.setdefault(k[:-7], {})["allocs"] = v
        rows[name] = {"ms": per_input_ms, "allocs": b["allocs"], "alloc_bytes": b["alloc_bytes"],
                      "unbalanced": b.get("unbalanced", 0.0),
                      "minflt": b["minflt"], "inputs": int(inputs), "iterations": b["iterations"], "tiers": tiers}
    log(f"{preset}: done in {wall:.0f}s")
    return rows


# A tier whose cost per statement at the largest size is more than this many times its cost at
# the smallest is reported superlinear (HARNESS.md §7: nothing on the per-input path quadratic).
SCALING_BAR = 2.0


def run_scaling(a: argparse.Namespace, run_dir: Path) -> list[dict]:
    """The dev build's scaling benchmark: fuzz_program's tiers per statement as bodies grow."""
    binary = ROOT / "build" / "dev" / "bin" / "throughput_bench"
    js = run_dir / "bench-scaling.json"
    cmd = [str(binary), "--benchmark_filter=^scaling_fuzz_program", f"--benchmark_min_time={a.min_time}",
           "--benchmark_format=console", f"--benchmark_out={js}", "--benchmark_out_format=json"]
    log(f"scaling: {' '.join(cmd)}")
    code, _, _ = cpu_run(cmd, fuzzlib.sanitizer_env(), run_dir / "bench-scaling.log")
    if code != 0 or not js.exists():
        raise UsageError(f"the scaling benchmark failed (exit {code}): see {run_dir / 'bench-scaling.log'}")
    rows = []
    for b in json.loads(js.read_text())["benchmarks"]:
        if b.get("error_occurred"):
            raise UsageError(f"scaling benchmark {b['name']}: {b.get('error_message')}")
        tiers = {k[: -len(".us_per_stmt")]: v for k, v in b.items() if k.endswith(".us_per_stmt")}
        rows.append({"k": int(b["name"].split("/")[1]), "stmts": b["stmts"], "tiers": tiers})
    return sorted(rows, key=lambda r: r["k"])


def run_libfuzzer(target: str, a: argparse.Namespace, run_dir: Path) -> dict:
    binary = ROOT / "build" / "fuzz" / "bin" / target
    if not binary.exists():
        raise UsageError(f"{binary} is not built (drop --no-build)")
    scratch = Path(tempfile.mkdtemp(prefix=f"{target}-", dir=run_dir))
    cmd = [str(binary), *fuzzlib.libfuzzer_flags(target), f"-seed={a.seed}", f"-runs={a.runs}",
           "-print_final_stats=1", f"-artifact_prefix={scratch}/", str(scratch), str(ROOT / "corpus" / "bench" / target)]
    log(f"libFuzzer: {' '.join(cmd)}")
    out = run_dir / f"libfuzzer-{target}.log"
    code, cpu, wall = cpu_run(cmd, fuzzlib.sanitizer_env(), out)
    shutil.rmtree(scratch, ignore_errors=True)
    text = out.read_text(errors="replace")
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M))
    if code != 0 or "average_exec_per_sec" not in stats:
        raise UsageError(f"libFuzzer {target} failed (exit {code}): see {out}")
    execs = int(stats.get("number_of_executed_units", 0))
    return {"exec_s": int(stats["average_exec_per_sec"]), "execs": execs, "cpu_s": cpu, "wall_s": wall,
            "exec_per_cpu_s": execs / cpu if cpu else 0.0, "command": " ".join(cmd)}


def run_properties(a: argparse.Namespace, run_dir: Path) -> list[dict]:
    bin_dir = ROOT / "build" / a.property_preset / "bin"
    suites = fuzzlib.property_suites(bin_dir)
    if not suites:
        raise UsageError(f"no property suites in {bin_dir}")
    params = f"seed={a.seed} max_success={a.property_cases}"
    env = fuzzlib.property_env({"RC_PARAMS": params, "STACKCHECK_COUNTEREXAMPLES": str(run_dir / "counterexamples")})
    rows = []
    for b in suites:
        out = run_dir / f"props-{b.name}.log"
        log(f"properties: {b.name} at {params}")
        code, cpu, wall = cpu_run([str(b)], env, out)
        # A registered property prints `verdicts: N cases, ...` (property.h); a plain
        # RapidCheck one `OK, passed N tests`. Either counts the cases it ran.
        cases = 0
        for line in out.read_text(errors="replace").splitlines():
            m = re.match(r"verdicts: (\d+) cases", line) or re.match(r"OK, passed (\d+) tests?", line)
            if m:
                cases += int(m.group(1))
        rows.append({"suite": b.name, "cases": cases, "cpu_s": cpu, "wall_s": wall, "exit": code})
    return rows


def fmt_num(v: float, digits: int = 0) -> str:
    return f"{v:,.{digits}f}"


def tables(data: dict) -> str:
    lines = []
    benches, lf, props = data["bench"], data.get("libfuzzer", {}), data.get("properties")
    lines += ["## Cost per input, dev beside fuzz", "",
              "| target | inputs | dev ms | fuzz ms | fuzz/dev | dev allocs | fuzz allocs | KB allocated | page faults dev/fuzz "
              "| unbalanced inputs | libFuzzer exec/s | libFuzzer execs per CPU s |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t in data["targets"]:
        d, z = benches["dev"].get(t), benches["fuzz"].get(t)
        if not d or not z:
            continue
        l = lf.get(t)
        lines.append(f"| {t} | {d['inputs']} | {d['ms']:.3f} | {z['ms']:.3f} | {z['ms'] / d['ms']:.1f}x | "
                     f"{fmt_num(d['allocs'])} | {fmt_num(z['allocs'])} | {fmt_num(d['alloc_bytes'] / 1024)} | "
                     f"{d['minflt']:.1f} / {z['minflt']:.1f} | {d['unbalanced']:.0%} | "
                     f"{fmt_num(l['exec_s']) if l else '-'} | "
                     f"{fmt_num(l['exec_per_cpu_s']) if l else '-'} |")
    for t in data["targets"]:
        d, z = benches["dev"].get(t), benches["fuzz"].get(t)
        if not d or not z:
            continue
        lines += ["", f"### {t}: oracle tiers (µs per input; reach: share of inputs with a verdict of the tier)", "",
                  "| tier | dev µs | fuzz µs | fuzz/dev | allocs | reach dev | reach fuzz |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name in dict.fromkeys([*d["tiers"], *z["tiers"]]):
            dt, zt = d["tiers"].get(name, {}), z["tiers"].get(name, {})
            du, zu = dt.get("us", 0.0), zt.get("us", 0.0)
            ratio = f"{zu / du:.1f}x" if du else "-"
            lines.append(f"| {name} | {du:.1f} | {zu:.1f} | {ratio} | {fmt_num(dt.get('allocs', 0))} | "
                         f"{dt.get('reach', 0):.2f} | {zt.get('reach', 0):.2f} |")
    scaling = data.get("scaling")
    if scaling:
        names = list(dict.fromkeys(n for r in scaling for n in r["tiers"]))
        lines += ["", "## fuzz_program: cost per statement as programs grow (dev build, µs per statement)", "",
                  "| k | statements | " + " | ".join(names) + " |", "|---:|---:|" + "---:|" * len(names)]
        for r in scaling:
            lines.append(f"| {r['k']} | {r['stmts']:.1f} | " +
                         " | ".join(f"{r['tiers'].get(n, 0):.1f}" for n in names) + " |")
    if props:
        cases = sum(r["cases"] for r in props)
        cpu = sum(r["cpu_s"] for r in props)
        lines += ["", f"## Properties ({data['property_preset']} preset, {data['property_params']})", "",
                  "| suite | cases | CPU s | cases per CPU s |", "|---|---:|---:|---:|"]
        for r in props:
            rate = r["cases"] / r["cpu_s"] if r["cpu_s"] else 0
            lines.append(f"| {r['suite']}{'' if r['exit'] == 0 else ' (exit ' + str(r['exit']) + ')'} | {r['cases']} | "
                         f"{r['cpu_s']:.1f} | {rate:.0f} |")
        lines.append(f"| **all** | {cases} | {cpu:.1f} | {cases / cpu if cpu else 0:.0f} |")
    lines += ["", "## Bars", "", "| figure | measured | bar | met |", "|---|---:|---:|---|"]
    for t in data["targets"]:
        if t in lf:
            v = lf[t]["exec_s"]
            lines.append(f"| {t} libFuzzer exec/s | {fmt_num(v)} | {EXEC_BAR[t]:,} | {'yes' if v >= EXEC_BAR[t] else 'no'} |")
        d, z = benches["dev"].get(t), benches["fuzz"].get(t)
        if d and z:
            r = z["ms"] / d["ms"]
            lines.append(f"| {t} fuzz/dev cost | {r:.1f}x | {RATIO_BAR:.0f}x | {'yes' if r <= RATIO_BAR else 'no'} |")
        if t in ALLOC_BAR and d:
            lines.append(f"| {t} allocations per input | {fmt_num(d['allocs'])} | {ALLOC_BAR[t]:,} | "
                         f"{'yes' if d['allocs'] <= ALLOC_BAR[t] else 'no'} |")
    if scaling and len(scaling) >= 2:
        first, last = scaling[0], scaling[-1]
        for n in last["tiers"]:
            lo, hi = first["tiers"].get(n, 0), last["tiers"][n]
            if lo <= 0:
                continue
            r = hi / lo
            lines.append(f"| {n}: µs per statement at {last['stmts']:.0f} vs {first['stmts']:.0f} statements | "
                         f"{r:.1f}x | {SCALING_BAR:.0f}x | {'yes' if r <= SCALING_BAR else 'no'} |")
    if props:
        cpu = sum(r["cpu_s"] for r in props)
        rate = sum(r["cases"] for r in props) / cpu if cpu else 0
        lines.append(f"| property cases per CPU s | {rate:.0f} | {PROPERTY_BAR:.0f} | {'yes' if rate >= PROPERTY_BAR else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_dir = a.out / stamp
    run_dir.mkdir(parents=True, exist_ok=True)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    command = "scripts/throughput " + " ".join(argv)
    log(f"seed={a.seed} runs={a.runs} targets: {' '.join(a.targets)}; writing {run_dir}")
    if not a.no_build:
        fuzzlib.build("dev", ["throughput_bench", "stackcheck-report"], log=run_dir / "build.log")
        fuzz_targets = ["throughput_bench", *([] if a.no_libfuzzer else a.targets)]
        fuzzlib.build("fuzz", fuzz_targets, log=run_dir / "build.log")
        if not a.no_properties:
            suites = sorted(f.stem for f in (ROOT / "properties").glob("*_props.cpp"))
            fuzzlib.build(a.property_preset, suites, log=run_dir / "build.log")
    data: dict = {"targets": a.targets, "seed": a.seed, "runs": a.runs, "bench": {}}
    for preset in ("dev", "fuzz"):
        data["bench"][preset] = run_bench(preset, a, run_dir)
    if not a.no_scaling and "fuzz_program" in a.targets:
        data["scaling"] = run_scaling(a, run_dir)
    if not a.no_libfuzzer:
        data["libfuzzer"] = {t: run_libfuzzer(t, a, run_dir) for t in a.targets}
    if not a.no_properties:
        data["property_preset"] = a.property_preset
        data["property_params"] = f"seed={a.seed} max_success={a.property_cases}"
        data["properties"] = run_properties(a, run_dir)
    (run_dir / "throughput.json").write_text(json.dumps(data, indent=1) + "\n")
    body = tables(data)
    print(body)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    run_tsv = [("kind", "throughput"), ("title", "stackcheck throughput"), ("started", started),
               ("finished", datetime.now(timezone.utc).isoformat(timespec="seconds")), ("seed", str(a.seed)),
               ("targets", " ".join(a.targets)), ("command", command), ("commit", commit or "-"),
               ("cores", str(os.cpu_count() or 0)), ("status", "complete")]
    from campaign_report import tsv  # the tables' writer (temp + rename), shared with the campaign

    tsv(run_dir / "run.tsv", ["key", "value"], run_tsv)
    (run_dir / "notes.md").write_text(body)
    report = ROOT / "build" / "dev" / "bin" / "stackcheck-report"
    if report.exists():
        r = subprocess.run([str(report), str(run_dir)], capture_output=True, text=True)
        if r.returncode != 0:
            log(f"report: {r.stderr.strip()}")
    log(f"report: {run_dir / 'report.md'}; replay this run: {command}")
    return 0


if __name__ == "__main__":
    fuzzlib.run_script(PROG, main, lambda: 130)
