#!/usr/bin/env bash
# Bad corpus files through every replay path (ctest label `unit`): each `<target>_replay`,
# `stackcheck replay` and `scripts/replay` (this build's binaries, --no-build). A file that is
# empty, binary, a truncated text form, headed by an unknown target, or huge gets exit 2 and
# a first stderr line naming the file and what is wrong; never a signal. (A binary file given
# to fuzz_parse or fuzz_pipeline is an input of theirs, raw text: it runs, exit 0.) In a
# directory (a campaign's corpus) only the files that are no input (empty, huge) are errors:
# the rejected text forms and the other target's header run and are counted (exit 0).
#   bad_corpus_test.sh BIN_DIR CORPUS_DIR ROOT
set -u
bin="$1"; corpus="$2"; root="$3"
preset=$(basename "$(dirname "$bin")")
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

mk() {  # mk TARGET: the bad files of one target in $tmp/TARGET/
  local t=$1 d="$tmp/$1"
  mkdir -p "$d"
  : >"$d/empty"
  { printf '# stackcheck %s\n' "$t"; head -c 3000 /dev/urandom; } >"$d/binary"
  local seed
  seed=$(ls "$corpus/$t/seed/"* 2>/dev/null | head -1)
  if [ -n "$seed" ] && head -1 "$seed" | grep -q '^# stackcheck'; then
    head -c $(($(wc -c <"$seed") / 2)) "$seed" >"$d/truncated"
    printf '\n@@@\n' >>"$d/truncated"  # cut mid-statement, so it can never parse
  else
    { printf '# stackcheck %s\n' "$t"; echo 'orchestration m(x: In tensor<i32>[4]) {'; echo '  y = slice(x, [0'; } >"$d/truncated"
  fi
  printf '# stackcheck fuzz_no_such_target\nsubmit fill(output o: [8], scalar 1)\n' >"$d/unknown-target"
  truncate -s 20M "$d/huge"
}

expect_error() {  # expect_error LABEL FILE CMD...: exit 2, one line naming FILE and the problem, no signal
  local label=$1 file=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; local rc=$?
  local line
  line=$(cat "$tmp/err" "$tmp/out" | grep -F -- "$(basename "$file")" |
    grep -E 'empty file|names|larger than|more than an input|rejects|does not parse|cannot replay|not a|header' | head -1)
  check "$label: exit 2 with '${line:0:120}'" "[ $rc = 2 ] && [ -n \"\$line\" ]"
}

for r in "$bin"/fuzz_*_replay; do
  t=$(basename "$r" _replay)
  mk "$t"
  for kind in empty unknown-target huge; do expect_error "$t $kind" "$tmp/$t/$kind" "$r" "$tmp/$t/$kind"; done
  case $t in
    fuzz_parse|fuzz_pipeline)
      for kind in binary truncated; do
        "$r" "$tmp/$t/$kind" >/dev/null 2>&1; rc=$?
        check "$t $kind: raw text for this target, runs (exit $rc)" "[ $rc = 0 ]"
      done ;;
    *)
      for kind in binary truncated; do expect_error "$t $kind" "$tmp/$t/$kind" "$r" "$tmp/$t/$kind"; done ;;
  esac
  # The same files in a directory: exit 2 for the empty and the huge one, the others run;
  # without those two, exit 0 and every one counted on the last line.
  "$r" "$tmp/$t" >/dev/null 2>"$tmp/err"; rc=$?
  check "$t DIR of the bad files: exit 2 ($rc), 2 errors: $(tail -1 "$tmp/err")" \
    "[ $rc = 2 ] && tail -1 $tmp/err | grep -q '^replay: 3 input(s) ran without a finding: .*; 2 error(s) above$'"
  mkdir -p "$tmp/$t-inputs"
  cp "$tmp/$t/binary" "$tmp/$t/truncated" "$tmp/$t/unknown-target" "$tmp/$t-inputs/"
  "$r" "$tmp/$t-inputs" >/dev/null 2>"$tmp/err"; rc=$?
  check "$t DIR of the rejected and misheaded inputs: exit 0 ($rc): $(tail -1 "$tmp/err")" \
    "[ $rc = 0 ] && tail -1 $tmp/err | grep -q '^replay: 3 input(s) ran without a finding: '"
  # --classify and --text on the same files: never a signal.
  "$r" --classify "$tmp/$t" >/dev/null 2>&1; rc=$?
  check "$t --classify of the bad files: no signal (exit $rc)" "[ $rc -lt 128 ]"
  "$r" --text "$tmp/$t/binary" >/dev/null 2>&1; rc=$?
  check "$t --text of the binary file: no signal (exit $rc)" "[ $rc -lt 128 ]"
done

# stackcheck replay: every kind is an error (a file it replays has a property-oracle header).
d="$tmp/cli"; mkdir -p "$d"
: >"$d/empty"
head -c 3000 /dev/urandom >"$d/binary"
{ echo '# stackcheck end-to-end'; echo '# replay: seed=1'; head -c $(($(wc -c <"$corpus/programs/example.gir") / 2)) "$corpus/programs/example.gir"; printf '\n@@@\n'; } >"$d/truncated"
printf '# stackcheck no-such-oracle\n' >"$d/unknown-oracle"
printf '# stackcheck fuzz_program\n' >"$d/fuzz-target"
truncate -s 80M "$d/huge"
for kind in empty binary truncated unknown-oracle fuzz-target huge; do
  expect_error "stackcheck replay $kind" "$d/$kind" "$bin/stackcheck" replay "$d/$kind"
done

# scripts/replay (this preset's drivers, no build): the same files, and one per target folder.
for kind in empty huge unknown-target binary; do
  mkdir -p "$tmp/sr/corpus/fuzz_bind_plan"
  cp "$tmp/fuzz_bind_plan/$kind" "$tmp/sr/corpus/fuzz_bind_plan/$kind"
  expect_error "scripts/replay $kind" "$kind" "$root/scripts/replay" --preset "$preset" --no-build \
    "$tmp/sr/corpus/fuzz_bind_plan/$kind"
done
expect_error "scripts/replay of a file with neither header nor target folder" "noise" \
  bash -c "head -c 100 /dev/urandom >'$tmp/noise' && '$root/scripts/replay' --preset '$preset' --no-build '$tmp/noise'"
exit $fail
