#!/bin/bash
# From what size MPI ranks pay (issue 42, item 11; docs/parallel.md "When ranks pay"): the
# settled sphere beds of the benchmark (bench/run.sh) of 10^4 to 10^5 particles timed by
# `talus bench` serially and on 2 ranks of one thread each, alternately, REPS times; the medians
# of the step time, and on ranks where a step's time goes (tl_world_parallel_stats: the ghost
# refresh, the wait in the gather of the domain sums, which holds any imbalance between the
# ranks, and the rest: the rank's own contacts and moves).
#
#   bash bench/ranks.sh                         (builds the beds when missing)
#   SIZES="10k 20k 50k 100k" REPS=3 STEPS=300 bash bench/ranks.sh
#
# A rank owns whole domains (docs/parallel.md): 10^4 particles make 2, 2 x 10^4 2, 5 x 10^4 4,
# 10^5 8; below 8,192 a bed makes one and the second rank has nothing to do.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT" || exit 1
TALUS=${TALUS:-build/talus}
SIZES=${SIZES:-10k 20k 50k 100k}
REPS=${REPS:-3}
STEPS=${STEPS:-300}
NWARM=${NWARM:-50}
WORK=bench/work
SCENE_TEMPLATE=bench/bed.yaml
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
die() { echo "bench/ranks.sh: $*" >&2; exit 1; }
[ -x "$TALUS" ] || die "$TALUS is not built (make)"
command -v mpirun > /dev/null || die "no mpirun (apt-get install openmpi-bin)"
mkdir -p "$WORK"
. bench/beds.sh
OUT=$WORK/ranks.jsonl
: > "$OUT.part"
for size in $SIZES; do
  make_bed "$size"
  scene=$WORK/bed_$size.yaml
  for rep in $(seq "$REPS"); do
    for p in 1 2; do
      if [ "$p" = 1 ]; then
        line=$(OMP_NUM_THREADS=1 "$TALUS" bench "$scene" --data "$WORK/bed_$size.data" --threads 1 \
               --warmup "$NWARM" --steps "$STEPS" --json) || die "$size serially failed"
      else
        line=$(OMP_NUM_THREADS=1 $MPIRUN -np 2 "$TALUS" bench "$scene" --data "$WORK/bed_$size.data" --threads 1 \
               --warmup "$NWARM" --steps "$STEPS" --json) || die "$size on 2 ranks failed"
      fi
      echo "$line" | python3 -c "import json,sys; d=json.load(sys.stdin); d['size']='$size'; print(json.dumps(d))" >> "$OUT.part"
    done
  done
done
mv "$OUT.part" "$OUT"
python3 - "$OUT" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
sizes = []
for r in runs:
    if r['size'] not in sizes: sizes.append(r['size'])
print("| particles | serial step (ms) | 2 ranks step (ms) | speed-up | refresh (ms) | sums wait (ms) | own work (ms) | own work x 2 / serial |")
print("|---|---|---|---|---|---|---|---|")
for s in sizes:
    one = [r for r in runs if r['size'] == s and r['ranks'] == 1]
    two = [r for r in runs if r['size'] == s and r['ranks'] == 2]
    t1 = statistics.median(1e3 * r['seconds'] / r['steps'] for r in one)
    t2 = statistics.median(1e3 * r['seconds'] / r['steps'] for r in two)
    ref = statistics.median(1e3 * (r['parallel']['pack_s'] + r['parallel']['exchange_s'] + r['parallel']['unpack_s']) / r['steps'] for r in two)
    sw = statistics.median(1e3 * r['parallel']['sums_s'] / r['steps'] for r in two)
    own = t2 - ref - sw
    print(f"| {one[0]['N']:,} | {t1:.3f} | {t2:.3f} | {t1 / t2:.2f} | {ref:.3f} | {sw:.3f} | {own:.3f} | {2 * own / t1:.2f} |")
print(f"\n(medians of {len(one)} runs each; {runs[0]['steps']} steps after {runs[0]['warmup']}; 1 thread per rank)")
PY
