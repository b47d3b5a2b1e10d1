#!/bin/bash -eu
# Builds stackcheck's libFuzzer targets the OSS-Fuzz / ClusterFuzzLite way. Runs inside the
# base-builder image (.clusterfuzzlite/Dockerfile) as `compile` does, or locally through
# scripts/oss-fuzz-check. Reads the environment the base builder sets:
#   CC CXX CFLAGS CXXFLAGS   compilers and flags, sanitizers and -fsanitize=fuzzer-no-link included
#   LIB_FUZZING_ENGINE       how a fuzz target links its engine (-fsanitize=fuzzer for libFuzzer)
#   SRC WORK OUT             sources ($SRC/stackcheck), scratch space, the build's products
# and writes to $OUT, per fuzz target (every fuzz/fuzz_*.cpp, as CMake lists them; fuzz_props
# runs every property, an input's first byte picking it, seeded by corpus/fuzz_props/<Suite.Name>/):
#   <target>                  the libFuzzer binary
#   <target>_seed_corpus.zip  corpus/<target>/{seed,regression}/*, plus the shared seeds:
#                             corpus/programs/* (.gir targets), corpus/plans/* (.plan targets)
#   <target>.dict, <target>.options   copied from fuzz/ when they exist
# Nothing is written into the source tree: the CMake build lives in $WORK.
#
# libc++: the base builder compiles C++ with -stdlib=libc++ (its CXXFLAGS_EXTRA). This build
# replaces that flag by -stdlib=libstdc++, the system's library, as every other build of the
# project uses:
#  - apt's libfmt is built against libstdc++, so with libc++ its std::string-taking symbols
#    would not link;
#  - the stack relies on C++20 library pieces (std::atomic_ref, ...) that libstdc++ has had
#    since GCC 10 and libc++ only since LLVM 19, so with libc++ the fuzz build would depend on
#    how new the image's LLVM is and could not be reproduced by scripts/oss-fuzz-check on a
#    machine with an older libc++; with libstdc++ that check builds what CI builds;
#  - what is given up is MSan, which needs the image's MSan-instrumented libc++; ASan and UBSan
#    (what the workflows run) and the coverage build do not care which library is used.
# The runner image that executes the targets has neither libfmt nor (we do not assume) the same
# libstdc++: fmt is used header-only (STACKCHECK_FMT_HEADER_ONLY: fmt::fmt-header-only) and
# libstdc++ is linked statically, so a target needs nothing beyond libc (scripts/oss-fuzz-check
# checks that). Boost.Graph is header-only.
# The sanitizers come only from CXXFLAGS (STACKCHECK_SANITIZE is empty): OSS-Fuzz's build check
# rejects an ASan build that also carries UBSan instrumentation, and vice versa.
set -o pipefail

# The tree to build: $SRC/stackcheck in the image (the Dockerfile's COPY); scripts/oss-fuzz-check
# points STACKCHECK_SRC at the work tree instead.
src="${STACKCHECK_SRC:-$SRC/stackcheck}"
build="$WORK/stackcheck-build"
jobs="$(nproc)"

CXXFLAGS=$(echo " $CXXFLAGS " | sed 's/ -stdlib=libc++ / -stdlib=libstdc++ /g; s/^ *//; s/ *$//')  # see above
echo "build.sh: CXX=$CXX"
echo "build.sh: CXXFLAGS=$CXXFLAGS"
echo "build.sh: LIB_FUZZING_ENGINE=$LIB_FUZZING_ENGINE"

# No CMAKE_BUILD_TYPE: the base builder's flags (-O1 -gline-tables-only ...) are the whole
# optimisation and debug-info story. The compiler and flags are passed explicitly so that a
# reused $WORK (scripts/oss-fuzz-check) follows a change of the environment. The project is
# C++ only (project(... LANGUAGES CXX)), so $CC and $CFLAGS have nothing to compile.
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++" \
  -DSTACKCHECK_FUZZ=ON \
  -DSTACKCHECK_SANITIZE= \
  -DSTACKCHECK_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DSTACKCHECK_FUZZ_TARGETS_ONLY=ON \
  -DSTACKCHECK_FUZZ_PROPS=ON \
  -DSTACKCHECK_FMT_HEADER_ONLY=ON

# The fuzz targets as fuzz/CMakeLists.txt found them (a ;-list in the cache, leading ';').
targets=$(sed -n 's/^STACKCHECK_FUZZ_TARGETS:INTERNAL=//p' "$build/CMakeCache.txt" | tr ';' ' ')
targets=$(echo $targets)
if [ -z "$targets" ]; then
  echo "build.sh: CMake lists no fuzz target (STACKCHECK_FUZZ_TARGETS is empty)" >&2
  exit 1
fi
echo "build.sh: fuzz targets: $targets"

# Only the libFuzzer binaries (not the replay drivers, the CLI or anything else).
cmake --build "$build" -j"$jobs" --target $targets

corpus="$src/corpus"
stage="$WORK/stackcheck-seeds"
for t in $targets; do
  cp "$build/bin/$t" "$OUT/$t"

  # Seed corpus: flat (libFuzzer and ClusterFuzz take the files, not the folders), each file
  # named after where it came from, so equal names in two folders cannot collide.
  dirs=("$corpus/$t/seed" "$corpus/$t/regression")
  case "$t" in
    fuzz_parse|fuzz_pipeline|fuzz_program) dirs+=("$corpus/programs") ;;
    fuzz_bind_plan|fuzz_attach) dirs+=("$corpus/plans") ;;
    fuzz_props) dirs=("$corpus"/fuzz_props/*.*/) ;;  # each property's inputs (text forms naming it), not the control's
  esac
  rm -rf "$stage/$t" "$OUT/${t}_seed_corpus.zip"
  mkdir -p "$stage/$t"
  n=0
  for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    label=$(realpath --relative-to="$corpus" "$d" | tr '/' '_')
    while IFS= read -r -d '' f; do
      rel=$(realpath --relative-to="$d" "$f" | tr '/' '_')
      cp "$f" "$stage/$t/${label}_$rel"
      n=$((n + 1))
    done < <(find "$d" -type f ! -name '.*' -print0)   # not .gitkeep and the like
  done
  if [ "$n" -gt 0 ]; then
    (cd "$stage/$t" && zip -q -X -r "$OUT/${t}_seed_corpus.zip" .)
  fi
  echo "build.sh: $t: $n seed file(s)"

  for ext in dict options; do
    if [ -f "$src/fuzz/$t.$ext" ]; then cp "$src/fuzz/$t.$ext" "$OUT/$t.$ext"; fi
  done
done
echo "build.sh: done, $OUT has: $(cd "$OUT" && ls | tr '\n' ' ')"
