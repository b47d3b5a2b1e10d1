#!/usr/bin/env bash
# Determinism of every fuzz target (ctest label `unit`): each corpus file run twice in one
# process gives the same class and result digest (`<target>_replay --hash`, which exits 1
# otherwise), and a second process prints the same digests. Positive controls on
# replay_control: a result that drifts between runs in one process must fail the first
# check, and one that differs between processes (the pid) must fail the second.
#   determinism_test.sh BIN_DIR CORPUS_DIR
set -u
bin="$1"; corpus="$2"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
inputs() {  # the files a target's ctest replays (fuzz/CMakeLists.txt)
  local t=$1
  ls -d "$corpus/$t/seed" "$corpus/$t/regression" 2>/dev/null
  case $t in
    fuzz_parse|fuzz_pipeline|fuzz_program) echo "$corpus/programs" ;;
    fuzz_bind_plan|fuzz_attach) echo "$corpus/plans" ;;
    fuzz_props) ls -d "$corpus/fuzz_props"/*/ ;;  # every property input, text forms naming their property
  esac
}
for r in "$bin"/fuzz_*_replay; do
  t=$(basename "$r" _replay)
  mapfile -t dirs < <(inputs "$t")
  "$r" --hash "${dirs[@]}" >"$tmp/$t.1" 2>"$tmp/$t.err"; rc1=$?
  "$r" --hash "${dirs[@]}" >"$tmp/$t.2" 2>>"$tmp/$t.err"; rc2=$?
  n=$(wc -l <"$tmp/$t.1")
  if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
    echo "FAIL: $t: --hash exit $rc1 / $rc2"; cat "$tmp/$t.err"; fail=1
  elif ! cmp -s "$tmp/$t.1" "$tmp/$t.2"; then
    echo "FAIL: $t: two processes gave different digests:"; diff "$tmp/$t.1" "$tmp/$t.2" | head -20; fail=1
  elif [ "$n" -eq 0 ]; then
    echo "FAIL: $t: no input hashed"; fail=1
  else
    echo "ok: $t: $n inputs, the same digest twice in one process and across two processes"
  fi
done

ctl="$bin/replay_control"
printf 'drift\n' >"$tmp/drift.txt"
printf 'per-process\n' >"$tmp/per-process.txt"
printf 'hello\n' >"$tmp/steady.txt"
if "$ctl" --hash "$tmp/steady.txt" >/dev/null 2>&1; then echo "ok: control: a steady input passes"; else
  echo "FAIL: control: a steady input fails --hash"; fail=1; fi
"$ctl" --hash "$tmp/drift.txt" >/dev/null 2>"$tmp/drift.err"; rc=$?
if [ $rc -eq 1 ] && grep -q nondeterministic "$tmp/drift.err"; then
  echo "ok: control: a result drifting within a process is reported (exit 1)"
else echo "FAIL: control: a drifting result went unreported (exit $rc)"; fail=1; fi
"$ctl" --hash "$tmp/per-process.txt" >"$tmp/pp.1" 2>/dev/null
"$ctl" --hash "$tmp/per-process.txt" >"$tmp/pp.2" 2>/dev/null
if ! cmp -s "$tmp/pp.1" "$tmp/pp.2"; then echo "ok: control: a per-process result differs across processes"; else
  echo "FAIL: control: a per-process result printed the same digest twice"; fail=1; fi
exit $fail
