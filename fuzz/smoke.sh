#!/usr/bin/env bash
# fuzz-smoke (ctest label `fuzz-smoke`): runs a libFuzzer binary for a few seconds from its
# seed directories, which it only reads: libFuzzer writes new inputs into the FIRST corpus
# directory, here an emptied one under the build tree, and its artifacts beside it.
#   smoke.sh BIN FUZZ_DIR WORK_DIR SECONDS SEED_DIR...
# The target's .options (max_len, timeout, rss_limit_mb, dict, ...) apply as under ClusterFuzz.
set -euo pipefail
bin="$1"; fuzz_dir="$2"; work="$3"; seconds="$4"; shift 4
name=$(basename "$bin")
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
args=(-max_total_time="$seconds" -seed=1 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
opts="$fuzz_dir/$name.options"
if [ -f "$opts" ]; then  # every `key = value` of [libfuzzer] as a flag, as ClusterFuzz passes them
  while IFS= read -r kv; do
    case "$kv" in dict=*) args+=(-dict="$fuzz_dir/${kv#dict=}") ;; *) args+=(-"$kv") ;; esac
  done < <(awk '/^\[/ { s = ($0 == "[libfuzzer]") } s && /^[a-z_][a-z_0-9]* *= *[^ ]+ *$/ { gsub(/ /, ""); print }' "$opts")
fi
seeds=()
for d in "$@"; do [ -d "$d" ] && seeds+=("$d"); done
exec "$bin" "${args[@]}" "$work/corpus" "${seeds[@]}"
