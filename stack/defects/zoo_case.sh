#!/usr/bin/env bash
# One defect-zoo reproducer as a test: small (at most 15 statements or plan lines), failing
# `stackcheck replay` (exit 1) with its defect selected and passing (exit 0) without it.
#   zoo_case.sh STACKCHECK FILE
set -u
cli=$1 file=$2
defect=$(sed -n 's/^# defect: *//p' "$file" | head -1)
[ -n "$defect" ] || { echo "FAIL: $file has no '# defect: NAME' line"; exit 1; }
head -1 "$file" | grep -q '^# stackcheck ' || { echo "FAIL: $file does not start with '# stackcheck <oracle>'"; exit 1; }
# Statements: lines that are not blank, a comment, a lone '}' or (.gir) a function header.
size=$(grep -vE '^\s*(#.*)?$|^\s*}\s*$|^(kernel|graph|orchestration) ' "$file" | grep -c .)
[ "$size" -le 15 ] || { echo "FAIL: $file has $size statements (at most 15)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STACKCHECK_DEFECT= "$cli" replay "$file" >/dev/null 2>"$tmp/clean.err"
clean=$?
STACKCHECK_DEFECT=$defect "$cli" replay "$file" >"$tmp/defect.out" 2>"$tmp/defect.err"
with=$?
echo "$(basename "$file"): $size statements; without the defect exit $clean, with $defect exit $with: $(head -c 300 "$tmp/defect.out")"
[ "$clean" -eq 0 ] || { echo "FAIL: the reproducer fails without its defect:"; cat "$tmp/clean.err"; exit 1; }
[ "$with" -eq 1 ] || { echo "FAIL: the reproducer does not fail (exit 1) with $defect:"; cat "$tmp/defect.err"; exit 1; }
