#!/usr/bin/env bash
# Determinism of the CLI (ctest label `unit`): `compile`, `run` and `bind` print the same
# bytes in two processes for every corpus program and plan, under the threaded scheduler
# and a random schedule (their output carries the result: the legalized program, the bind
# figures, the entry tensors' FNV-1a digests, the status). The in-process half is the
# property Determinism.* (properties/determinism_props.cpp).
#   determinism_test.sh STACKCHECK CORPUS_DIR
set -u
sc="$1"; corpus="$2"
fail=0 n=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
twice() {  # twice LABEL ARGS...: run the command in two processes, compare stdout and exit code
  local label=$1; shift
  "$sc" "$@" >"$tmp/a" 2>/dev/null; local ra=$?
  "$sc" "$@" >"$tmp/b" 2>/dev/null; local rb=$?
  n=$((n + 1))
  if [ $ra -ne $rb ] || ! cmp -s "$tmp/a" "$tmp/b"; then
    echo "FAIL: $label: exit $ra then $rb, output differs:"; diff "$tmp/a" "$tmp/b" | head -10; fail=1
  elif [ ! -s "$tmp/a" ]; then
    echo "FAIL: $label: printed nothing (exit $ra)"; fail=1
  fi
}
for f in "$corpus"/programs/*.gir; do
  twice "compile $f" compile "$f"
  twice "compile --emit orch $f" compile "$f" --emit orch
  for s in threaded random:7; do twice "run $f --schedule $s" run "$f" --seed 5 --schedule "$s"; done
done
for f in "$corpus"/plans/*.plan; do
  for s in threaded random:7; do twice "bind $f --schedule $s" bind "$f" --seed 5 --schedule "$s"; done
done
echo "$n commands, each the same twice: $([ $fail = 0 ] && echo yes || echo NO)"
exit $fail
