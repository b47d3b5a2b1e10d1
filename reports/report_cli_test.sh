#!/usr/bin/env bash
# The stackcheck-report command line: on a good run directory (a scratch copy of testdata/,
# so nothing is written into the tree) exit 0 and the two paths on stdout; on a malformed one
# exit 2 with exactly one line on stderr naming file and line; usage errors exit 2 too.
#   report_cli_test.sh BINARY TESTDATA SCRATCH
set -u
bin=$1; data=$2; scratch=$3
fail() { echo "report_cli_test: $*" >&2; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch" || fail "cannot make $scratch"
cp -r "$data/campaign" "$data/coverage" "$data/malformed" "$scratch/"

out=$("$bin" "$scratch/campaign" --title "CLI test" 2>"$scratch/err") || fail "good dir: exit $?: $(cat "$scratch/err")"
[ "$out" = "$scratch/campaign/report.md
$scratch/campaign/index.html" ] || fail "good dir: stdout was: $out"
[ -s "$scratch/err" ] && fail "good dir: stderr not empty: $(cat "$scratch/err")"
grep -q '<h1>CLI test</h1>' "$scratch/campaign/index.html" || fail "--title not used"

# A reach run (scripts/coverage) without a title in run.tsv: the kind's default title.
"$bin" "$scratch/coverage" >/dev/null 2>"$scratch/err" || fail "coverage dir: exit $?: $(cat "$scratch/err")"
grep -q '^# stackcheck reach (harness-alone coverage)$' "$scratch/coverage/report.md" || fail "coverage dir: title"
grep -q 'Functions only the unit tests reach' "$scratch/coverage/index.html" || fail "coverage dir: no function tables"

"$bin" "$scratch/malformed" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ "$rc" -eq 2 ] || fail "malformed dir: exit $rc, expected 2"
[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "malformed dir: stderr is not one line: $(cat "$scratch/err")"
grep -q 'malformed/targets.tsv:3: column exec_s' "$scratch/err" || fail "malformed dir: stderr: $(cat "$scratch/err")"
[ -s "$scratch/out" ] && fail "malformed dir: stdout not empty"
[ -e "$scratch/malformed/report.md" ] && fail "malformed dir: a report was written"

"$bin" "$scratch/no-such-dir" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "missing dir: expected exit 2 and one line"
"$bin" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] || fail "no arguments: expected exit 2"
"$bin" "$scratch/campaign" --bogus >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] || fail "unknown option: expected exit 2"
echo "report_cli_test: ok"
