#!/usr/bin/env bash
# CLI contract tests (ctest label `unit`): print is idempotent through a pipe for every
# corpus program; malformed input gives `file:line:column: error[parse]` and exit 1, never a
# signal; usage errors exit 2; verify reports WellFormed codes with exit 1; compile's
# --stop-after, --print-after-all, --report and --emit orch; dot's digraph and exit codes.
set -u
sc="$1"; corpus="$2"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for f in "$corpus"/programs/*.gir; do
  "$sc" print "$f" >"$tmp/a" 2>"$tmp/err"; rc=$?
  check "print $f exits 0" "[ $rc = 0 ]"
  "$sc" print "$f" | "$sc" print - >"$tmp/b"
  check "print $f | print - is a fixed point" "cmp -s $tmp/a $tmp/b"
  "$sc" verify "$f" >"$tmp/v"; rc=$?
  check "verify $f accepts the shared seed (exit $rc)" "[ $rc = 0 ] && [ ! -s $tmp/v ]"
done

for f in "$corpus"/programs/*.gir; do
  "$sc" compile "$f" --emit orch >"$tmp/p.plan"; rc=$?
  check "compile --emit orch $f exits 0" "[ $rc = 0 ]"
  "$sc" interp "$f" --seed 3 2>/dev/null | sed 's/^[^ ]* //' >"$tmp/want"
  "$sc" bind "$tmp/p.plan" --seed 3 --schedule random:5 2>/dev/null | grep fnv1a64 | sed 's/^[^ ]* //' >"$tmp/got"
  check "bind of the emitted plan agrees with interp ($f)" "[ -s $tmp/want ] && cmp -s $tmp/want $tmp/got"
  "$sc" run "$f" --seed 3 >"$tmp/run" 2>/dev/null; rc=$?
  check "run $f: equal, exit 0" "[ $rc = 0 ] && grep -q '^equal' $tmp/run"
done
for f in "$corpus"/plans/*.plan; do
  "$sc" bind "$f" >"$tmp/bind" 2>/dev/null; rc=$?
  name=$(basename "$f")
  case "$name" in
    fatal_*)
      code=$((10#$(echo "$name" | sed 's/fatal_\([0-9]*\)_.*/\1/')))
      check "bind $name: h2d=0, status=-$((1000 + code)), exit 1" \
        "[ $rc = 1 ] && grep -q ' h2d=0 ' $tmp/bind && grep -q '^status=-$((1000 + code)) ' $tmp/bind" ;;
    *)
      check "bind $name: h2d=1, status=0 OK" "[ $rc = 0 ] && grep -q ' h2d=1 ' $tmp/bind && grep -q '^status=0 OK' $tmp/bind" ;;
  esac
done
# dot: the dependency oracle's Graphviz; stdout carries only the digraph.
for f in "$corpus"/plans/*.plan; do
  name=$(basename "$f")
  "$sc" dot "$f" >"$tmp/dot" 2>"$tmp/err"; rc=$?
  case "$name" in
    fatal_*)
      check "dot $name: nothing uploaded, inconclusive, exit 3, no dot" \
        "[ $rc = 3 ] && [ ! -s $tmp/dot ] && grep -q '^dot: inconclusive' $tmp/err" ;;
    *)
      check "dot $name: the oracle passes, exit 0, one digraph without red edges" \
        "[ $rc = 0 ] && head -1 $tmp/dot | grep -q '^digraph G {' && tail -1 $tmp/dot | grep -q '^}' && ! grep -q 'color=red' $tmp/dot && grep -q '^dot: pass' $tmp/err" ;;
  esac
done
for f in "$corpus"/programs/*.gir; do
  "$sc" dot "$f" >"$tmp/dot" 2>/dev/null; rc=$?
  check "dot $(basename "$f"): compiled and bound, the oracle passes, vertices name .gir lines" \
    "[ $rc = 0 ] && grep -q 'gir line' $tmp/dot"
done
"$sc" dot - <"$corpus/programs/example.gir" >"$tmp/dot" 2>/dev/null; rc=$?
check "dot - reads a .gir from stdin (its orchestration function)" "[ $rc = 0 ] && grep -q 'gir line' $tmp/dot"
"$sc" compile "$corpus/programs/example.gir" --emit orch | "$sc" dot - --schedule oldest >"$tmp/dot" 2>/dev/null; rc=$?
check "compile --emit orch | dot -: a plan from stdin passes" "[ $rc = 0 ] && grep -q '^digraph G {' $tmp/dot"
# Task 2's fanin {0, 1} (fanin pool entry 1 at image byte 964) becomes {0, 0}: task 1's write of
# x is unordered with task 2's read, drawn red; the run itself completes.
printf 'config W=16\ntensor x: InOut [8]\ntensor y: InOut [8]\nsubmit fill(output_existing y, scalar 1)\nsubmit fill(output_existing x, scalar 2)\nsubmit acc(input x, inout y)\nmutate 964 0\n' |
  "$sc" dot - >"$tmp/dot" 2>"$tmp/err"; rc=$?
check "dot of a dropped fanin edge: exit 1, a red dashed edge 1->2, both tasks and lines named" \
  "[ $rc = 1 ] && grep -q '^1->2 .*color=red.*style=dashed' $tmp/dot && grep -q 'fail \[deps-order\]: task 1 (fill) at plan line 5 writes arg 0 .* task 2 (acc) at plan line 6 reads arg 0' $tmp/err"
"$sc" dot --fill 1 "$corpus/plans/example.plan" >/dev/null 2>&1; rc=$?
check "dot takes no --fill: exit 2" "[ $rc = 2 ]"
printf 'submit frob(input x)\n' | "$sc" dot - >"$tmp/out" 2>"$tmp/err"; rc=$?
check "dot of a malformed plan: error[parse], exit 1, nothing on stdout" "[ $rc = 1 ] && [ ! -s $tmp/out ] && grep -q '<stdin>:1:[0-9]*: error\[parse\]' $tmp/err"

printf 'submit fill(output o: [8], scalar 1)\nmutate header 0 0\n' | "$sc" bind - >"$tmp/bind" 2>/dev/null; rc=$?
check "bind applies a plan's mutate header line: attach BadMagic, exit 1" "[ $rc = 1 ] && grep -q '^status=-1 GENERIC attach: BadMagic: runtime header' $tmp/bind"
printf 'submit fill(output o: [8], scalar 1)\nmutate 100000 1\n' | "$sc" bind - >"$tmp/bind" 2>/dev/null; rc=$?
check "bind of a mutate offset past the image: nothing uploaded, exit 1" "[ $rc = 1 ] && grep -q ' h2d=0 ' $tmp/bind && grep -q '^status=-1 GENERIC mutate offset 100000 is past the' $tmp/bind"
printf 'config W=3\n' | "$sc" bind - >"$tmp/out" 2>"$tmp/err"; rc=$?
check "bind with a config value out of range: error[parse] at its KEY, exit 1, nothing bound" "[ $rc = 1 ] && [ ! -s $tmp/out ] && grep -q '<stdin>:1:8: error\[parse\]: config W=3 is not a power of two in \[4, 2^19\]' $tmp/err"
printf 'submit frob(input x)\n' | "$sc" bind - >"$tmp/out" 2>"$tmp/err"; rc=$?
check "bind of a malformed plan: error[parse] with line:column, exit 1" "[ $rc = 1 ] && grep -q '<stdin>:1:[0-9]*: error\[parse\]' $tmp/err"

printf 'orchestration m() {\n  a = 1 @ 2\n}\n' >"$tmp/bad.gir"
"$sc" print "$tmp/bad.gir" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "malformed input exits 1" "[ $rc = 1 ]"
check "malformed input gives file:line:column error[parse]" "grep -q 'bad.gir:2:9: error\[parse\]' $tmp/err"
check "malformed input prints nothing on stdout" "[ ! -s $tmp/out ]"

head -c 4096 /dev/urandom >"$tmp/noise"
"$sc" parse "$tmp/noise" >/dev/null 2>&1; rc=$?
check "random bytes: exit 1, no signal (got $rc)" "[ $rc = 1 ]"

printf 'orchestration m() {\n  a = b\n}\n' | "$sc" verify - >"$tmp/out" 2>&1; rc=$?
check "verify reports WellFormed 3 with exit 1" "[ $rc = 1 ] && grep -q '<stdin>:2:7: error\[3\]' $tmp/out"

printf 'orchestration m() {\n  a = b\n}\n' | "$sc" run - >"$tmp/out" 2>/dev/null; rc=$?
check "run of an ill-formed program: its diagnostics, exit 1" "[ $rc = 1 ] && grep -q '<stdin>:2:7: error\[3\]' $tmp/out"
printf 'kernel kacc(x: In tensor<i32>[4], a: InOut tensor<i32>[4]) -> (a) = builtin acc\norchestration m(x: In tensor<i32>[4], c: InOut tensor<i32>[4]) {\n  for i in range(0, 3, 1) {\n    v = slice(c, [i], [4])\n  }\n}\n' | "$sc" run - >"$tmp/out" 2>/dev/null; rc=$?
check "run whose interpreter errs (window out of bounds): inconclusive, exit 3" "[ $rc = 3 ] && grep -q '^inconclusive' $tmp/out"

ex="$corpus/programs/example.gir"
"$sc" compile "$ex" --stop-after Nope >"$tmp/out" 2>"$tmp/err"; rc=$?
check "compile --stop-after an unknown pass: exit 2 with the pipeline's names" \
  "[ $rc = 2 ] && grep -q 'Simplify, NormalizeReturnOrder, LegalizeGraphBoundary' $tmp/err"
"$sc" compile "$ex" --stop-after NormalizeReturnOrder >"$tmp/out" 2>/dev/null; rc=$?
check "compile --stop-after NormalizeReturnOrder: g returns its param, nothing hoisted" \
  "[ $rc = 0 ] && grep -q 'return c$' $tmp/out && ! grep -q '__graph_arg' $tmp/out"
"$sc" compile "$ex" --print-after-all >"$tmp/out" 2>"$tmp/err"; rc=$?
check "compile --print-after-all: a block per pass on stderr, the legalized program on stdout" \
  "[ $rc = 0 ] && [ \$(grep -c '^# after ' $tmp/err) = 3 ] && grep -q '__graph_arg' $tmp/out && ! grep -q '^# after' $tmp/out"
"$sc" compile "$ex" --print-after-all --stop-after Simplify >/dev/null 2>"$tmp/err"; rc=$?
check "compile --print-after-all --stop-after Simplify: one block" "[ $rc = 0 ] && [ \$(grep -c '^# after ' $tmp/err) = 1 ]"
"$sc" compile "$ex" --report >/dev/null 2>"$tmp/err"; rc=$?
check "compile --report: LegalizeGraphBoundary's report on stderr" \
  "[ $rc = 0 ] && grep -q '^# LegalizeGraphBoundary g: nodes=2 appended=2' $tmp/err"
"$sc" compile "$ex" --stop-after Simplify --emit orch >/dev/null 2>&1; rc=$?
check "compile --emit orch without the whole pipeline: exit 2" "[ $rc = 2 ]"

# replay: a counterexample reruns through the oracle its header names.
"$sc" replay "$corpus/../docs/deps_example.plan" >"$tmp/out" 2>/dev/null; rc=$?
check "replay of a failing counterexample exits 1 and names the oracle" "[ $rc = 1 ] && grep -q '^deps: fail' $tmp/out"
{ echo '# stackcheck end-to-end'; echo '# replay: seed=2 schedule=oldest'; cat "$ex"; } > "$tmp/pass.gir"
"$sc" replay "$tmp/pass.gir" >"$tmp/out" 2>/dev/null; rc=$?
check "replay of a passing input exits 0" "[ $rc = 0 ] && grep -q '^end-to-end: pass' $tmp/out"
printf '# stackcheck end-to-end\n# replay: seed=x\n' > "$tmp/bad.gir"
"$sc" replay "$tmp/bad.gir" >/dev/null 2>"$tmp/err"; rc=$?
check "replay of a broken header exits 2 with one line" "[ $rc = 2 ] && [ \$(wc -l < $tmp/err) = 1 ]"

"$sc" print >/dev/null 2>&1; rc=$?
check "missing argument exits 2" "[ $rc = 2 ]"
"$sc" frobnicate x >/dev/null 2>&1; rc=$?
check "unknown command exits 2" "[ $rc = 2 ]"
"$sc" print --seed 3 x >/dev/null 2>&1; rc=$?
check "flag of another command exits 2" "[ $rc = 2 ]"
"$sc" verify --rule Nope "$corpus/programs/example.gir" >/dev/null 2>&1; rc=$?
check "unknown verifier exits 2" "[ $rc = 2 ]"
"$sc" print "$tmp/does-not-exist" >/dev/null 2>&1; rc=$?
check "unreadable file exits 2" "[ $rc = 2 ]"
"$sc" --help | grep -q 'usage: stackcheck'; check "--help prints the flag table" "[ $? = 0 ]"
exit $fail
