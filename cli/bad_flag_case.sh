#!/usr/bin/env bash
# One bad command line as a test (ctest label `unit`, one case per flag and bad value):
# `stackcheck ARGS...` must exit 2 (usage) with a message on stderr that names what was
# wrong (PATTERN, an extended regex), nothing on stdout, and never a signal.
#   bad_flag_case.sh STACKCHECK PATTERN ARGS...
set -u
sc=$1 pattern=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sc" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
echo "stackcheck $*: exit $rc: $(head -1 "$tmp/err")"
[ "$rc" -eq 2 ] || { echo "FAIL: exit $rc, want 2 (usage)"; cat "$tmp/err"; exit 1; }
[ ! -s "$tmp/out" ] || { echo "FAIL: a usage error printed on stdout:"; head -5 "$tmp/out"; exit 1; }
head -1 "$tmp/err" | grep -Eq -- "$pattern" || { echo "FAIL: the first stderr line does not match '$pattern'"; exit 1; }
