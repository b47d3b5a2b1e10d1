#!/usr/bin/env bash
# fuzz-smoke (ctest label `fuzz-smoke`): runs a libFuzzer binary for a few seconds from its
# seed directories, which it only reads: libFuzzer writes new inputs into the FIRST corpus
# directory, here an emptied one under the build tree, and its artifacts beside it.
#   smoke.sh BIN FUZZ_DIR WORK_DIR SECONDS SEED_DIR...
# The target's .options (max_len, timeout, rss_limit_mb) and .dict apply as under the campaign.
set -euo pipefail
bin="$1"; fuzz_dir="$2"; work="$3"; seconds="$4"; shift 4
name=$(basename "$bin")
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
args=(-max_total_time="$seconds" -seed=1 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
opts="$fuzz_dir/$name.options"
if [ -f "$opts" ]; then
  for key in max_len timeout rss_limit_mb; do
    v=$(sed -n "s/^$key *= *\([0-9][0-9]*\).*/\1/p" "$opts" | head -1)
    [ -n "$v" ] && args+=(-"$key=$v")
  done
fi
[ -f "$fuzz_dir/$name.dict" ] && args+=(-dict="$fuzz_dir/$name.dict")
seeds=()
for d in "$@"; do [ -d "$d" ] && seeds+=("$d"); done
exec "$bin" "${args[@]}" "$work/corpus" "${seeds[@]}"
