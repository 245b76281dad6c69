#!/bin/sh
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS
# (default 60 in all: a quarter each), from the seed corpus, then replays every
# regression input (fuzz/regressions/: each crash found so far, fixed).
#   fuzz/run.sh [SECONDS] [BUILD_DIR]        (fuzz/README.md)
# Exit status: 0 when no target crashed, hung or leaked, else 1.
set -u
secs=${1:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$src/build-fuzz}
if ! command -v clang > /dev/null; then
  echo "fuzz/run.sh: clang is not installed (apt-get install clang): nothing fuzzed"; exit 1
fi
CC=clang cmake -S "$src" -B "$build" -DTALUS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build.log" 2>&1 &&
  cmake --build "$build" -j2 --target fuzz_scene fuzz_data fuzz_mesh fuzz_checkpoint fuzz_checkpoint_seeds >> "$build.log" 2>&1 ||
  { echo "fuzz/run.sh: the build failed, see $build.log"; exit 1; }
# leaks inside assimp's and libfyaml's own code on refused inputs are known
# upstream bugs of Debian's versions (fuzz/lsan.supp); any other leak fails
export LSAN_OPTIONS="suppressions=$src/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scene" "$work/data" "$work/mesh" "$work/checkpoint"
cp "$src"/examples/*.yaml "$work/scene/"
cp "$src"/fuzz/corpus/data/* "$work/data/"
cp "$src"/fuzz/corpus/mesh/* "$work/mesh/"
ASAN_OPTIONS=detect_leaks=0 "$build/fuzz/fuzz_checkpoint_seeds" "$work/checkpoint" || { echo "no checkpoint seeds"; exit 1; }
each=$((secs / 4)); [ "$each" -lt 1 ] && each=1
status=0
for t in scene data mesh checkpoint; do
  mkdir -p "$work/out-$t"
  # the leak suppressions see the library's frames only through the slow unwinder
  # (assimp's and libfyaml's code has no frame pointers)
  unwind=1; case $t in scene|mesh) unwind=0;; esac
  (cd "$work" && ASAN_OPTIONS="fast_unwind_on_malloc=$unwind${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$build/fuzz/fuzz_$t" -max_total_time="$each" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 "$work/out-$t" "$work/$t" > "$work/$t.log" 2>&1)
  rc=$?
  runs=$(grep -o "Done [0-9]* runs" "$work/$t.log" | tail -1)
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz_$t: FAILED (exit $rc); the input and the report:"
    ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* 2>/dev/null
    grep -E "ERROR|runtime error|SUMMARY" "$work/$t.log" | head -5
    mkdir -p "$src/fuzz/found" && cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* "$src/fuzz/found/" 2>/dev/null
  else
    echo "fuzz_$t: ${runs:-no runs} in ${each} s, no crash"
  fi
done
# every input that once crashed a target must now pass it. Replayed without
# libFuzzer's RSS thread (-rss_limit_mb=0; the malloc limit still bounds memory):
# the one thread of a run of a few milliseconds, the likely source of the one
# leak a replay has reported (CI, 2026-11-28: scene-directive-7, refused by the
# text check before Talus allocates anything; never reproduced here in 300
# replays, loaded or not). On a
# failure the whole report is printed, the stacks included.
for f in "$src"/fuzz/regressions/*; do
  [ -e "$f" ] || continue
  t=$(basename "$f" | cut -d- -f1)
  if ! ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$build/fuzz/fuzz_$t" \
      -rss_limit_mb=0 -malloc_limit_mb=2048 "$f" > "$work/replay.log" 2>&1; then
    status=1
    echo "regression $(basename "$f"): FAILED"
    sed -n '/ERROR\|runtime error/,$p' "$work/replay.log" | head -60
  fi
done
[ $status -eq 0 ] && echo "fuzz/run.sh: no crash, hang or leak; regressions replayed"
exit $status
