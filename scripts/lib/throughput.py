"""scripts/throughput: what one input of each deep fuzz target costs (HARNESS.md §7).

Runs bench/throughput_bench (Google Benchmark over corpus/bench/<target>/) in four presets: dev
(gcc, uninstrumented: the allocation figures), clang-o1 (clang -O1, uninstrumented: the fast
lane's reference), fuzz-fast (the campaign's fast lane: libFuzzer coverage, assertions, no
sanitizer) and fuzz (the sanitized lane: ASan + UBSan + coverage); --no-fast-lane leaves out
clang-o1 and fuzz-fast. Prints them side by side with their ratios and the per-tier table, then
runs each libFuzzer target of both lanes (fuzz-fast and fuzz) on the same corpus with a fixed
seed and run count (its .options applied) and reads its exec/s, and runs every property suite
at a fixed max_success to give cases per CPU second. Ends with the bars of the fast-lane issue,
met or not. Writes build/throughput/<timestamp>/ (throughput.json, run.tsv, notes.md, and
report.md + index.html from stackcheck-report). Python standard library only.
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
# The lanes' presets: the sanitized lane and its uninstrumented reference always run (dev also
# gives the allocation counts); the fast lane and its reference unless --no-fast-lane.
SANITIZED, FAST, CLANG = "fuzz", "fuzz-fast", "clang-o1"

# The bars of the fast-lane issue. The sanitized lane's exec/s and its fuzz/dev ratio are figures
# of the cost table without a bar: the issue sets none for them (docs/throughput.md).
# Per target: the fast lane's libFuzzer exec/s, at least.
EXEC_BAR = {"fuzz_program": 800, "fuzz_bind_plan": 2000, "fuzz_attach": 4000}
# Per target: fast-lane ms over clang-o1 ms, at most (what coverage and assertions may cost).
FAST_RATIO_BAR = 1.6
# dev ms per input, at most: the cost of the stack itself, without any instrumentation.
DEV_MS_BAR = {"fuzz_program": 0.6}
# Allocations per input in the dev build, at most.
ALLOC_BAR = {"fuzz_program": 1000}
# Property cases per CPU second, all suites together, at least.
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
    p.add_argument("--no-fast-lane", action="store_true",
                   help="skip the fast lane: no clang-o1 or fuzz-fast benchmark, no fuzz-fast libFuzzer runs")
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


def bench_presets(a: argparse.Namespace) -> list[str]:
    """The presets whose throughput_bench runs, least instrumented first."""
    return ["dev", SANITIZED] if a.no_fast_lane else ["dev", CLANG, FAST, SANITIZED]


def libfuzzer_presets(a: argparse.Namespace) -> list[str]:
    """The presets whose libFuzzer binaries run: the lanes."""
    if a.no_libfuzzer:
        return []
    return [SANITIZED] if a.no_fast_lane else [FAST, SANITIZED]


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


def run_libfuzzer(preset: str, target: str, a: argparse.Namespace, run_dir: Path) -> dict:
    """One libFuzzer binary of `preset` over the bench corpus: its exec/s and CPU time. Both
    lanes get the same seed, run count and corpus, so their figures compare."""
    binary = ROOT / "build" / preset / "bin" / target
    if not binary.exists():
        raise UsageError(f"{binary} is not built (drop --no-build)")
    scratch = Path(tempfile.mkdtemp(prefix=f"{preset}-{target}-", dir=run_dir))
    cmd = [str(binary), *fuzzlib.libfuzzer_flags(target), f"-seed={a.seed}", f"-runs={a.runs}",
           "-print_final_stats=1", f"-artifact_prefix={scratch}/", str(scratch), str(ROOT / "corpus" / "bench" / target)]
    log(f"libFuzzer {preset}: {' '.join(cmd)}")
    out = run_dir / f"libfuzzer-{preset}-{target}.log"
    code, cpu, wall = cpu_run(cmd, fuzzlib.sanitizer_env(), out)
    shutil.rmtree(scratch, ignore_errors=True)
    text = out.read_text(errors="replace")
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M))
    if code != 0 or "average_exec_per_sec" not in stats:
        raise UsageError(f"libFuzzer {preset} {target} failed (exit {code}): see {out}")
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


def opt(v: float | None, spec: str, suffix: str = "") -> str:
    """`v` formatted, or `-` for a figure this run did not measure."""
    return "-" if v is None else f"{v:{spec}}{suffix}"


def bench_row(data: dict, preset: str, target: str) -> dict | None:
    return data["bench"].get(preset, {}).get(target)


def libfuzzer_figure(data: dict, preset: str, target: str, key: str) -> float | None:
    run = data.get("libfuzzer", {}).get(preset, {}).get(target)
    return run[key] if run else None


def ratio(num: dict | None, den: dict | None) -> float | None:
    """num's ms per input over den's, or None when either was not measured."""
    if not num or not den or not den["ms"]:
        return None
    return num["ms"] / den["ms"]


def cost_table(data: dict) -> list[str]:
    """One row per target with both the dev and the fuzz benchmark; the fast lane's figures and
    both lanes' libFuzzer figures beside them, `-` where they were not measured."""
    lines = ["## Cost per input: dev and the sanitized lane (fuzz), clang-o1 and the fast lane (fuzz-fast)", "",
             "| target | inputs | dev ms | fuzz ms | fuzz/dev | clang-o1 ms | fast ms | fast/clang-o1 | dev allocs "
             "| fuzz allocs | KB allocated | page faults dev/fuzz | unbalanced inputs | fast exec/s | fuzz exec/s "
             "| fast execs per CPU s | fuzz execs per CPU s |",
             "|---|" + "---:|" * 16]
    for t in data["targets"]:
        d, z = bench_row(data, "dev", t), bench_row(data, SANITIZED, t)
        if not d or not z:
            continue
        c, f = bench_row(data, CLANG, t), bench_row(data, FAST, t)
        execs = [opt(libfuzzer_figure(data, lane, t, key), ",.0f")
                 for key in ("exec_s", "exec_per_cpu_s") for lane in (FAST, SANITIZED)]
        lines.append(f"| {t} | {d['inputs']} | {d['ms']:.3f} | {z['ms']:.3f} | {opt(ratio(z, d), '.1f', 'x')} | "
                     f"{opt(c['ms'] if c else None, '.3f')} | {opt(f['ms'] if f else None, '.3f')} | "
                     f"{opt(ratio(f, c), '.2f', 'x')} | "
                     f"{fmt_num(d['allocs'])} | {fmt_num(z['allocs'])} | {fmt_num(d['alloc_bytes'] / 1024)} | "
                     f"{d['minflt']:.1f} / {z['minflt']:.1f} | {d['unbalanced']:.0%} | " + " | ".join(execs) + " |")
    return lines


def tier_tables(data: dict) -> list[str]:
    lines = []
    for t in data["targets"]:
        d, z, f = bench_row(data, "dev", t), bench_row(data, SANITIZED, t), bench_row(data, FAST, t)
        if not d or not z:
            continue
        lines += ["", f"### {t}: oracle tiers (µs per input; reach: share of inputs with a verdict of the tier)", "",
                  "| tier | dev µs | fuzz µs | fuzz/dev | fast µs | allocs | reach dev | reach fuzz |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name in dict.fromkeys([*d["tiers"], *z["tiers"], *(f["tiers"] if f else [])]):
            dt, zt = d["tiers"].get(name, {}), z["tiers"].get(name, {})
            du, zu = dt.get("us", 0.0), zt.get("us", 0.0)
            fu = f["tiers"].get(name, {}).get("us", 0.0) if f else None
            tier_ratio = f"{zu / du:.1f}x" if du else "-"
            lines.append(f"| {name} | {du:.1f} | {zu:.1f} | {tier_ratio} | {opt(fu, '.1f')} | "
                         f"{fmt_num(dt.get('allocs', 0))} | {dt.get('reach', 0):.2f} | {zt.get('reach', 0):.2f} |")
    return lines


def scaling_table(data: dict) -> list[str]:
    scaling = data.get("scaling")
    if not scaling:
        return []
    names = list(dict.fromkeys(n for r in scaling for n in r["tiers"]))
    lines = ["", "## fuzz_program: cost per statement as programs grow (dev build, µs per statement)", "",
             "| k | statements | " + " | ".join(names) + " |", "|---:|---:|" + "---:|" * len(names)]
    for r in scaling:
        lines.append(f"| {r['k']} | {r['stmts']:.1f} | " + " | ".join(f"{r['tiers'].get(n, 0):.1f}" for n in names) + " |")
    return lines


def property_rate(props: list[dict]) -> float:
    cpu = sum(r["cpu_s"] for r in props)
    return sum(r["cases"] for r in props) / cpu if cpu else 0


def properties_table(data: dict) -> list[str]:
    props = data.get("properties")
    if not props:
        return []
    lines = ["", f"## Properties ({data['property_preset']} preset, {data['property_params']})", "",
             "| suite | cases | CPU s | cases per CPU s |", "|---|---:|---:|---:|"]
    for r in props:
        rate = r["cases"] / r["cpu_s"] if r["cpu_s"] else 0
        lines.append(f"| {r['suite']}{'' if r['exit'] == 0 else ' (exit ' + str(r['exit']) + ')'} | {r['cases']} | "
                     f"{r['cpu_s']:.1f} | {rate:.0f} |")
    lines.append(f"| **all** | {sum(r['cases'] for r in props)} | {sum(r['cpu_s'] for r in props):.1f} | "
                 f"{property_rate(props):.0f} |")
    return lines


def bar_row(figure: str, measured: str, bar: str, met: bool) -> str:
    return f"| {figure} | {measured} | {bar} | {'yes' if met else 'no'} |"


def target_bars(data: dict, t: str) -> list[str]:
    """The bars of one target whose figures this run measured."""
    rows = []
    execs = libfuzzer_figure(data, FAST, t, "exec_s")
    if execs is not None:
        rows.append(bar_row(f"{t} fast-lane libFuzzer exec/s", fmt_num(execs), f"{EXEC_BAR[t]:,}", execs >= EXEC_BAR[t]))
    r = ratio(bench_row(data, FAST, t), bench_row(data, CLANG, t))
    if r is not None:  # two decimals: a ratio just over the bar must not print as the bar
        rows.append(bar_row(f"{t} fast/clang-o1 cost", f"{r:.2f}x", f"{FAST_RATIO_BAR}x", r <= FAST_RATIO_BAR))
    d = bench_row(data, "dev", t)
    if d and t in DEV_MS_BAR:
        rows.append(bar_row(f"{t} dev ms per input", f"{d['ms']:.3f}", f"{DEV_MS_BAR[t]}", d["ms"] <= DEV_MS_BAR[t]))
    if d and t in ALLOC_BAR:
        rows.append(bar_row(f"{t} allocations per input", fmt_num(d["allocs"]), f"{ALLOC_BAR[t]:,}",
                            d["allocs"] <= ALLOC_BAR[t]))
    return rows


def bars(data: dict) -> list[str]:
    lines = ["", "## Bars", "", "| figure | measured | bar | met |", "|---|---:|---:|---|"]
    for t in data["targets"]:
        lines += target_bars(data, t)
    scaling = data.get("scaling")
    if scaling and len(scaling) >= 2:
        first, last = scaling[0], scaling[-1]
        for n in last["tiers"]:
            lo, hi = first["tiers"].get(n, 0), last["tiers"][n]
            if lo > 0:
                lines.append(bar_row(f"{n}: µs per statement at {last['stmts']:.0f} vs {first['stmts']:.0f} statements",
                                     f"{hi / lo:.1f}x", f"{SCALING_BAR:.0f}x", hi / lo <= SCALING_BAR))
    if data.get("properties"):
        rate = property_rate(data["properties"])
        lines.append(bar_row("property cases per CPU s", f"{rate:.0f}", f"{PROPERTY_BAR:.0f}", rate >= PROPERTY_BAR))
    return lines


def tables(data: dict) -> str:
    body = cost_table(data) + tier_tables(data) + scaling_table(data) + properties_table(data) + bars(data)
    return "\n".join(body) + "\n"


def build_step(a: argparse.Namespace, run_dir: Path) -> None:
    """Builds what the run measures and only that: the benchmark in every preset, the report
    tool in dev, the libFuzzer targets in the lanes, the property suites in their preset."""
    build_log = run_dir / "build.log"
    for preset in bench_presets(a):
        report = ["stackcheck-report"] if preset == "dev" else []
        fuzzers = a.targets if preset in libfuzzer_presets(a) else []
        fuzzlib.build(preset, ["throughput_bench", *report, *fuzzers], log=build_log)
    if not a.no_properties:
        suites = sorted(f.stem for f in (ROOT / "properties").glob("*_props.cpp"))
        fuzzlib.build(a.property_preset, suites, log=build_log)


def measure(a: argparse.Namespace, run_dir: Path) -> dict:
    """Every figure of the run: throughput.json's content."""
    data: dict = {"targets": a.targets, "seed": a.seed, "runs": a.runs, "bench": {}}
    for preset in bench_presets(a):
        data["bench"][preset] = run_bench(preset, a, run_dir)
    if not a.no_scaling and "fuzz_program" in a.targets:
        data["scaling"] = run_scaling(a, run_dir)
    if libfuzzer_presets(a):
        data["libfuzzer"] = {p: {t: run_libfuzzer(p, t, a, run_dir) for t in a.targets} for p in libfuzzer_presets(a)}
    if not a.no_properties:
        data["property_preset"] = a.property_preset
        data["property_params"] = f"seed={a.seed} max_success={a.property_cases}"
        data["properties"] = run_properties(a, run_dir)
    return data


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    # The committed bench corpus decodes as it did before swarm generation (judges.h), so its
    # figures compare across commits: every child (bench, libFuzzer) inherits this.
    os.environ["STACKCHECK_NO_SWARM"] = "1"
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    run_dir = a.out / stamp
    run_dir.mkdir(parents=True, exist_ok=True)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    command = "scripts/throughput " + " ".join(argv)
    log(f"seed={a.seed} runs={a.runs} targets: {' '.join(a.targets)}; writing {run_dir}")
    if not a.no_build:
        build_step(a, run_dir)
    data = measure(a, run_dir)
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
