#!/usr/bin/env bash
# Production pays nothing for the defect zoo (stack/defects/defects.h): outside the zoo build
# no defect name reaches the binary and libstack neither defines nor calls the switch
# (every `if (defects::active(...))` folded away); in the zoo build (the positive control,
# so the check is seen to fail) every name and the switch are there.
#   zero_cost_test.sh BINARY LIBSTACK ZOO(0|1) DEFECTS_CPP
set -u
bin=$1 lib=$2 zoo=$3 table=$4
names=$(grep -oE '^ +\{D::k[A-Za-z]+, "[a-z0-9_]+"' "$table" | grep -oE '"[a-z0-9_]+"' | tr -d '"')
count=$(echo "$names" | grep -c .)
[ "$count" -ge 24 ] || { echo "FAIL: only $count defect names read from $table"; exit 1; }
bin_strings=$(strings -a "$bin")
lib_symbols=$(nm -C "$lib" 2>/dev/null | grep -E 'stackcheck::defects::(active|selection|table|info|find|parse_selection)\(' || true)
found=0
for n in $names; do
  if grep -qxF -e "$n" <<<"$bin_strings"; then found=$((found + 1)); fi
done
if [ "$zoo" = 1 ]; then
  [ "$found" -eq "$count" ] || { echo "FAIL (positive control): $found of $count defect names in $bin"; exit 1; }
  grep -q 'defects::active(' <<<"$lib_symbols" || { echo "FAIL (positive control): no defects::active in $lib"; exit 1; }
  echo "zoo build: all $count defect names in $(basename "$bin"), defects::active in $(basename "$lib")"
else
  [ "$found" -eq 0 ] || { echo "FAIL: $found defect names in $bin (a non-zoo build)"; exit 1; }
  [ -z "$lib_symbols" ] || { echo "FAIL: defect switch symbols in $lib:"; echo "$lib_symbols"; exit 1; }
  echo "non-zoo build: none of the $count defect names in $(basename "$bin"), no switch symbol in $(basename "$lib")"
fi
