#!/usr/bin/env bash
# The replay driver's contract with the campaign (ctest label `unit`; fuzz_target.h,
# replay_main.cpp): a finding prints exactly its four `#` lines on stderr and aborts;
# --classify prints `<class>\t<path>` per file and never aborts (a crash is a class);
# --text prints the canonical text form headed `# stackcheck <target>`; an unreadable input
# exits 2 with one line. On the real targets: comment lines the campaign inserts after the
# first line change no class.
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
"$ctl" --bogus x >/dev/null 2>&1; rc=$?
check "an unknown flag: usage, exit 2" "[ $rc = 2 ]"

# The real targets.
# Fixed raw bytes (deterministic): a byte pattern repeated to 300 bytes.
yes "$(printf '\x03\x9a\xff\x37\x05\x80\x11\xc4\x01\x6e\x02')" | head -c 300 >"$tmp/raw.bin"
for t in fuzz_parse fuzz_pipeline fuzz_relative_ptr; do
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
