#!/usr/bin/env bash
# The replay driver's contract with the campaign (ctest label `unit`; fuzz_target.h,
# replay_main.cpp): a finding prints exactly its four `#` lines on stderr and aborts;
# --classify prints `<class>\t<path>` per file and never aborts (a crash is a class);
# --text prints the canonical text form headed `# stackcheck <target>`; an unreadable input
# exits 2 with one line; a directory's rejected inputs are counted, not errors (exit 0), its
# files that are no input are (exit 2). On the real targets: the shared plans (fatal codes included) never
# classify as a failure, and comment lines the campaign inserts after the first line change
# no class.
#   replay_contract_test.sh BIN_DIR CORPUS_DIR
set -u
bin="$1"; corpus="$2"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ctl="$bin/replay_control"

mkdir -p "$tmp/ctl"
printf 'hello\n' >"$tmp/ctl/pass.txt"
printf 'fail\n' >"$tmp/ctl/fail.txt"
printf 'inconclusive\n' >"$tmp/ctl/inconclusive.txt"
printf 'reject\n' >"$tmp/ctl/reject.txt"
printf 'crash\n' >"$tmp/ctl/crash.txt"
printf '# stackcheck replay_control\n# oracle: control\n# rule: forced\n# seed: 7\n# found-by: a test\nfail\n' \
  >"$tmp/ctl/text_fail.txt"

# A finding: the four lines, then abort (SIGABRT: 128 + 6).
rc=$( { "$ctl" "$tmp/ctl/fail.txt" >"$tmp/out" 2>"$tmp/err"; echo $?; } 2>/dev/null)  # (no "Aborted" line)
printf '# stackcheck replay_control\n# oracle: control\n# rule: forced\n# message: a forced finding\n' >"$tmp/want"
check "a finding aborts (exit $rc)" "[ $rc = 134 ]"
check "a finding prints its four lines" "grep -A3 -x '# stackcheck replay_control' $tmp/err | cmp -s - $tmp/want"
check "a finding prints nothing on stdout" "[ ! -s $tmp/out ]"
"$ctl" "$tmp/ctl/pass.txt" "$tmp/ctl/inconclusive.txt" "$tmp/ctl/reject.txt" 2>/dev/null; rc=$?
check "pass, inconclusive and rejected inputs run without a finding (exit $rc)" "[ $rc = 0 ]"

# --classify: one line per file (a directory sorted), every class, no abort.
"$ctl" --classify "$tmp/ctl" >"$tmp/classes" 2>"$tmp/err"; rc=$?
printf 'fail:crash/SIGABRT\t%s\nfail:control/forced\t%s\ninconclusive:interpreter-budget\t%s\npass\t%s\nrejected\t%s\nfail:control/forced\t%s\n' \
  "$tmp/ctl/crash.txt" "$tmp/ctl/fail.txt" "$tmp/ctl/inconclusive.txt" "$tmp/ctl/pass.txt" "$tmp/ctl/reject.txt" \
  "$tmp/ctl/text_fail.txt" >"$tmp/want"
check "--classify exits 0 (exit $rc)" "[ $rc = 0 ]"
check "--classify gives every class" "cmp -s $tmp/classes $tmp/want || { diff $tmp/classes $tmp/want; false; }"
"$ctl" --classify "$tmp/ctl/fail.txt" "$tmp/nope" >"$tmp/classes" 2>"$tmp/err"; rc=$?
check "--classify of a missing file: exit 2, the others classified" \
  "[ $rc = 2 ] && [ \$(wc -l <$tmp/classes) = 1 ] && [ \$(wc -l <$tmp/err) = 1 ]"

# --text: the header line first; a text form as it is; exit 2 with one line when unreadable.
"$ctl" --text "$tmp/ctl/pass.txt" >"$tmp/text"; rc=$?
check "--text prints the text form (exit $rc)" \
  "[ $rc = 0 ] && [ \"\$(head -1 $tmp/text)\" = '# stackcheck replay_control' ] && [ \"\$(tail -1 $tmp/text)\" = hello ]"
"$ctl" --text "$tmp/ctl/text_fail.txt" >"$tmp/text"
check "--text keeps a text form as it is" "cmp -s $tmp/text $tmp/ctl/text_fail.txt"
"$ctl" --text "$tmp/nope" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--text of a missing file: exit 2, one line" "[ $rc = 2 ] && [ ! -s $tmp/out ] && [ \$(wc -l <$tmp/err) = 1 ]"
"$ctl" --text "$tmp/ctl" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--text of a directory: exit 2, one line" "[ $rc = 2 ] && [ \$(wc -l <$tmp/err) = 1 ]"
"$ctl" >/dev/null 2>&1; rc=$?
check "no arguments: usage, exit 2" "[ $rc = 2 ]"

# FILE|DIR runs: in a directory a rejected input is an outcome (counted on the last line,
# exit 0); a file that is no input (empty, oversize) exits 2; a finding still aborts. A
# rejected text form named on the command line is a broken corpus file (exit 2).
fill='tensor c: InOut [8]\nsubmit fill(output_existing c, scalar 1)\n'
mkdir -p "$tmp/dir/mixed"
cp "$corpus/plans/example.plan" "$tmp/dir/mixed/valid.plan"
printf "# stackcheck fuzz_bind_plan\n$fill""submit nope(\n" >"$tmp/dir/mixed/rejected.plan"
"$bin/fuzz_bind_plan_replay" "$tmp/dir/mixed" 2>"$tmp/err"; rc=$?
last=$(tail -1 "$tmp/err")
check "a directory of a valid input and a rejected text form: exit 0 ($rc), '$last'" \
  "[ $rc = 0 ] && echo '$last' | grep -q '^replay: 2 input(s) ran without a finding: .*, 1 rejected$'"
check "the rejected input is named with its reason" "grep -q '^replay: .*rejected.plan: rejected: ' $tmp/err"
"$bin/fuzz_bind_plan_replay" "$tmp/dir/mixed/rejected.plan" 2>"$tmp/err"; rc=$?
check "the same rejected text form named on the command line: exit 2 ($rc)" \
  "[ $rc = 2 ] && grep -q 'rejected.plan: a text form fuzz_bind_plan rejects' $tmp/err"
# A libFuzzer mutant of the header is still the target's input (it ignores the name).
sed '1s/.*/# stackcheck fuzz_bind_plXn/' "$tmp/dir/mixed/valid.plan" >"$tmp/dir/mixed/mutated_header.plan"
"$bin/fuzz_bind_plan_replay" "$tmp/dir/mixed" 2>"$tmp/err"; rc=$?
check "a directory file whose header names another target runs: exit 0 ($rc)" \
  "[ $rc = 0 ] && tail -1 $tmp/err | grep -q '^replay: 3 input(s)'"
for bad in empty huge; do
  mkdir -p "$tmp/dir/$bad"
  cp "$tmp/dir/mixed/valid.plan" "$tmp/dir/mixed/rejected.plan" "$tmp/dir/$bad/"
  if [ $bad = empty ]; then : >"$tmp/dir/$bad/zz"; else truncate -s 20M "$tmp/dir/$bad/zz"; fi
  "$bin/fuzz_bind_plan_replay" "$tmp/dir/$bad" 2>"$tmp/err"; rc=$?
  check "a directory with an $bad file: exit 2 ($rc), the others run" \
    "[ $rc = 2 ] && grep -q '^fuzz_bind_plan: .*/zz: ' $tmp/err && tail -1 $tmp/err | grep -q '^replay: 2 input(s).*; 1 error(s) above$'"
done
if [ "$(id -u)" != 0 ]; then  # (root reads a file of mode 000)
  mkdir -p "$tmp/dir/unreadable"
  cp "$tmp/dir/mixed/valid.plan" "$tmp/dir/unreadable/"
  printf 'x' >"$tmp/dir/unreadable/zz" && chmod 000 "$tmp/dir/unreadable/zz"
  "$bin/fuzz_bind_plan_replay" "$tmp/dir/unreadable" 2>/dev/null; rc=$?
  check "a directory with an unreadable file: exit 2 ($rc)" "[ $rc = 2 ]"
fi
# Positive control: a finding in a directory aborts as ever, rejected inputs beside it or not.
mkdir -p "$tmp/dir/finding"
cp "$tmp/ctl/reject.txt" "$tmp/ctl/fail.txt" "$tmp/dir/finding/"
rc=$( { "$ctl" "$tmp/dir/finding" >/dev/null 2>"$tmp/err"; echo $?; } 2>/dev/null)
check "a directory holding a finding: aborts (exit $rc) with its lines" \
  "[ $rc = 134 ] && grep -qx '# rule: forced' $tmp/err"
"$ctl" "$tmp/ctl/pass.txt" "$tmp/ctl/reject.txt" "$tmp/ctl/inconclusive.txt" 2>"$tmp/err"; rc=$?
check "the last line counts each outcome (exit $rc)" \
  "[ $rc = 0 ] && [ \"\$(tail -1 $tmp/err)\" = 'replay: 3 input(s) ran without a finding: 1 passed, 1 inconclusive, 1 rejected' ]"
"$ctl" --bogus x >/dev/null 2>&1; rc=$?
check "an unknown flag: usage, exit 2" "[ $rc = 2 ]"

# The real targets.
for t in fuzz_bind_plan fuzz_attach; do
  "$bin/${t}_replay" --classify "$corpus/plans" >"$tmp/classes" 2>/dev/null; rc=$?
  check "$t --classify corpus/plans: exit 0, one line per plan" \
    "[ $rc = 0 ] && [ \$(wc -l <$tmp/classes) = \$(ls $corpus/plans | wc -l) ]"
  check "$t: no shared plan classifies as a failure" "! grep -q '^fail' $tmp/classes"
  check "$t: every fatal_* plan is inconclusive or passes" \
    "! grep -P '\t.*/fatal_' $tmp/classes | grep -qvP '^(inconclusive:[^\t]+|pass)\t'"
done
"$bin/fuzz_program_replay" --classify "$corpus/programs" >"$tmp/classes" 2>/dev/null
check "fuzz_program: the shared programs pass" "! grep -qv '^pass' $tmp/classes"
# Text forms outside a target's domain are rejected, never a failure.
mkdir -p "$tmp/texts"
printf "# stackcheck fuzz_bind_plan\n# replay: W=64\n$fill" >"$tmp/texts/w_on_plan"
printf "# stackcheck fuzz_bind_plan\n$fill""mutate 0 0\n" >"$tmp/texts/mutate_on_plan"
printf "# stackcheck fuzz_bind_plan\n$fill""submit nope(\n" >"$tmp/texts/bad_plan"
printf "# stackcheck fuzz_attach\n$fill""mutate 100000 1\n" >"$tmp/texts/mutate_past"
printf "# stackcheck fuzz_program\n# replay: seed=x\n" >"$tmp/texts/bad_seed"
printf "# stackcheck fuzz_program\n# replay: schedule=sometimes\n" >"$tmp/texts/bad_schedule"
printf "# stackcheck fuzz_program\n# replay: W=32768\n" >"$tmp/texts/huge_w_gir"
printf "# stackcheck fuzz_bind_plan\nconfig W=524288\n$fill" >"$tmp/texts/huge_w"
for f in w_on_plan mutate_on_plan bad_plan huge_w; do
  c=$("$bin/fuzz_bind_plan_replay" --classify "$tmp/texts/$f" | cut -f1)
  check "fuzz_bind_plan: $f is rejected ($c)" "[ '$c' = rejected ]"
done
c=$("$bin/fuzz_attach_replay" --classify "$tmp/texts/mutate_past" | cut -f1)
check "fuzz_attach: a mutate line past its target is rejected ($c)" "[ '$c' = rejected ]"
printf "# stackcheck fuzz_attach\n# replay: seed=3 schedule=random:9\n$fill""mutate header 0 0\nmutate 0 0\n" >"$tmp/texts/magic"
c=$("$bin/fuzz_attach_replay" --classify "$tmp/texts/magic" | cut -f1)
check "fuzz_attach: an image attach rejects passes ($c)" "[ '$c' = pass ]"
for f in bad_seed bad_schedule huge_w_gir; do
  c=$("$bin/fuzz_program_replay" --classify "$tmp/texts/$f" | cut -f1)
  check "fuzz_program: $f is rejected ($c)" "[ '$c' = rejected ]"
done

# generated=H vouches only for the program or plan it was printed with: a changed one (here
# the mutants that libFuzzer made of two seeds) is judged like any other text, never as a
# false rejection or a clean plan gone wrong.
sed 's/n1: In i64/n0: In i64/' "$corpus/fuzz_program/seed/graph_depth0_create.gir" >"$tmp/texts/dup_param.gir"
c=$("$bin/fuzz_program_replay" --classify "$tmp/texts/dup_param.gir" | cut -f1)
check "fuzz_program: a changed generated program is judged as any text ($c)" "[ '$c' = inconclusive:input-rejected ]"
sed 's/tensor m: InOut \[4, 8\]/tensor m: InOut [3, 8]/' "$corpus/fuzz_bind_plan/seed/graph_slot_offsets_rowsum.plan" \
  >"$tmp/texts/short_m.plan"
c=$("$bin/fuzz_bind_plan_replay" --classify "$tmp/texts/short_m.plan" | cut -f1)
check "fuzz_bind_plan: a changed generated plan is judged as any text ($c)" "[ '$c' = inconclusive:runtime-refused:5 ]"

# Fixed raw bytes (deterministic): a byte pattern repeated to 300 bytes.
yes "$(printf '\x03\x9a\xff\x37\x05\x80\x11\xc4\x01\x6e\x02')" | head -c 300 >"$tmp/raw.bin"
for t in fuzz_parse fuzz_pipeline fuzz_program fuzz_bind_plan fuzz_attach fuzz_relative_ptr; do
  r="$bin/${t}_replay"
  "$r" --text "$tmp/raw.bin" >"$tmp/text.txt"; rc=$?
  check "$t --text of raw bytes: exit 0, headed" "[ $rc = 0 ] && [ \"\$(head -1 $tmp/text.txt)\" = '# stackcheck $t' ]"
  "$r" --text "$tmp/text.txt" >"$tmp/again.txt"
  check "$t --text of its text form is a fixed point" "cmp -s $tmp/text.txt $tmp/again.txt"
  { head -1 "$tmp/text.txt"; printf '# oracle: o\n# rule: r\n# seed: 1\n# found-by: campaign\n'; tail -n +2 "$tmp/text.txt"; } \
    >"$tmp/headed.txt"
  a=$("$r" --classify "$tmp/raw.bin" | cut -f1); b=$("$r" --classify "$tmp/text.txt" | cut -f1)
  c=$("$r" --classify "$tmp/headed.txt" | cut -f1)
  check "$t: raw ($a), text ($b) and campaign-headed text ($c) classify alike" "[ '$a' = '$b' ] && [ '$b' = '$c' ]"
done
exit $fail
