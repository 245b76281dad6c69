#!/bin/bash
# The measured inputs of the scaling model (docs/scaling.md, issue 15): `talus bench` on the
# settled beds of bench/run.sh, serially and on MPI ranks of one thread, each run's JSON (with
# the ranks' costs: ghosts, refresh, domain sums, collectives; tl_world_parallel_stats) appended
# to bench/work/scaling.jsonl; then bench/scaling_model.py fits the model and prints its tables.
#
#   bash bench/scaling.sh                       (after `make bench` built the beds)
#   SIZES="100k 1m" RANKS="1 2 3 4" STEPS=300 NWARM=50 bash bench/scaling.sh
#
# Rank counts above the machine's cores are oversubscribed: their counts (ghosts, bytes,
# collectives) are exact, their times are not and the model does not use them.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT" || exit 1
TALUS=${TALUS:-build/talus}
SIZES=${SIZES:-100k 1m}
RANKS=${RANKS:-1 2 3 4}
STEPS=${STEPS:-300}
NWARM=${NWARM:-50}
OUT=bench/work/scaling.jsonl
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
cores=$(nproc)
[ -x "$TALUS" ] || { echo "bench/scaling.sh: $TALUS is not built (make)"; exit 1; }
: > "$OUT.part"
for size in $SIZES; do
  scene=bench/work/bed_$size.yaml data=bench/work/bed_$size.data
  [ -f "$scene" ] && [ -f "$data" ] || { echo "bench/scaling.sh: no $scene or $data (make bench builds them)"; exit 1; }
  for p in $RANKS; do
    if [ "$p" = 1 ]; then
      line=$(OMP_NUM_THREADS=1 "$TALUS" bench "$scene" --data "$data" --threads 1 --warmup "$NWARM" --steps "$STEPS" --json)
    else
      line=$(OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE $MPIRUN -np "$p" "$TALUS" bench "$scene" --data "$data" --threads 1 \
             --warmup "$NWARM" --steps "$STEPS" --json)
    fi || { echo "bench/scaling.sh: $size on $p ranks failed"; exit 1; }
    over=false; [ "$p" -gt "$cores" ] && over=true
    echo "$line" | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); d['size']='$size'; d['oversubscribed']=$([ $over = true ] && echo True || echo False); print(json.dumps(d))" >> "$OUT.part"
    echo "$size on $p rank(s): $(echo "$line" | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('%.3f s' % d['seconds'])")$([ $over = true ] && echo ' (oversubscribed: times not used)')"
  done
done
mv "$OUT.part" "$OUT"
python3 bench/scaling_model.py "$OUT"
