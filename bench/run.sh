#!/bin/bash
# The Talus benchmark against LIGGGHTS and LAMMPS (issue 5): the same settled bed, the same
# physics, the same step, timed the same way. `make bench` runs it; docs/bench.md explains it.
#
#   1. installs the peers (Debian packages liggghts lammps openmpi-bin) when missing and run
#      as root; otherwise prints the apt-get line and stops
#   2. builds the beds into bench/work/: 10k (bench/peers/bed_10k.data.gz), 100k and 1M (the
#      10k bed replicated 5 x 2 and 10 x 10 in x, y by bench/peers/make_bed_data.py) and the
#      Talus scene of each (bench/bed.yaml with the domain set to the data file's box)
#   3. runs the parity check (bench/parity.sh) and stops if it fails
#   4. for each size, REPS repetitions, each of them: 1 thread / 1 rank, then 2 threads /
#      2 ranks (mpirun), each time talus, liggghts, lammps in turn, so that machine noise hits
#      all alike; every run appends one line to bench/work/runs.txt (timed-run seconds, Z,
#      memory, CPU and the foreign load of other processes during the run)
#   5. bench/summarize.py writes bench/RESULTS.md
#
# Environment (all optional):
#   TALUS=build/talus   the command to time        SIZES="10k 100k 1m"   beds to run
#   REPS=3              repetitions per size        STEPS=2000 NWARM=200   timed / warm-up steps
#   NPS="1 2"           threads (Talus) / ranks (LIGGGHTS, LAMMPS)
#   PARITY=1            0 skips the parity check    PEERS_1M=1   0: the 1M bed for Talus only
#   CODES="talus talus-mpi liggghts lammps"         SUMMARY=1    0: no RESULTS.md
#                       (talus-mpi: Talus on NP MPI ranks of one thread, for NP > 1)
#   SCENE_TEMPLATE=bench/bed.yaml                   the scene the per-size scenes come from
# At 1M the peers run once per rank count (about 8 min each at 1 rank and 2000 steps on this
# kind of machine); Talus runs every repetition and thread count. Quick check of the pipeline:
#   SIZES=10k REPS=1 STEPS=200 bash bench/run.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT" || exit 1
TALUS=${TALUS:-build/talus}
SIZES=${SIZES:-10k 100k 1m}
REPS=${REPS:-3}
STEPS=${STEPS:-2000}
NWARM=${NWARM:-200}
NPS=${NPS:-1 2}
PARITY=${PARITY:-1}
PEERS_1M=${PEERS_1M:-1}
CODES=${CODES:-talus talus-mpi liggghts lammps}
SUMMARY=${SUMMARY:-1}
SCENE_TEMPLATE=${SCENE_TEMPLATE:-bench/bed.yaml}
WORK=bench/work
RUNS=$WORK/runs.txt
LOGS=$WORK/logs
MPIRUN="mpirun --allow-run-as-root --oversubscribe"

die() { echo "bench/run.sh: $*" >&2; exit 1; }

# ---- 1. the peers ----
PACKAGES="liggghts lammps openmpi-bin"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing missing Debian packages:$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing \
      || die "apt-get install$missing failed"
  else
    echo "Missing Debian packages:$missing"
    echo "Install them with:"
    echo "  sudo apt-get install -y$missing"
    exit 1
  fi
fi
command -v python3 > /dev/null || die "python3 is needed (apt-get install -y python3)"
[ -x "$TALUS" ] || die "no talus command at $TALUS (make build, or TALUS=path)"

# ---- 2. the beds and their scenes ----
mkdir -p "$WORK" "$LOGS"
. bench/beds.sh   # size_n, size_rep, make_bed

make_bed 10k   # the parity check's
for s in $SIZES; do make_bed "$s"; done

# ---- versions and machine, for RESULTS.md ----
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(uname -srm); $(nproc) cores; $(awk -F: '/model name/{print $2; exit}' /proc/cpuinfo | sed 's/^ *//')"
  echo "memory: $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "talus: $("$TALUS" version)"
  echo "liggghts: $(cd $WORK && liggghts -log none -h < /dev/null 2>&1 | grep -m1 'LIGGGHTS' | sed 's/^ *//')"
  echo "lammps: LAMMPS $(cd $WORK && lmp -log none -h < /dev/null 2>&1 | grep -m1 'Large-scale' | sed 's/.*Simulator - //')"
  echo "openmpi: $(mpirun --version 2>&1 | head -1)"
  for p in liggghts lammps openmpi-bin; do echo "package $p: $(dpkg-query -W -f='${Version}' $p)"; done
  echo "steps: $NWARM warm-up + $STEPS timed; reps $REPS; sizes $SIZES; threads/ranks $NPS"
} > $WORK/conditions.txt

# ---- 3. parity ----
if [ "$PARITY" = 1 ]; then
  TALUS=$TALUS SCENE=$WORK/bed_10k.yaml bash bench/parity.sh || die "the parity check failed: the codes do not run the same physics (PARITY=0 skips it)"
fi

# ---- 4. the timed runs ----
# RESULTS.md summarizes this invocation's runs only: an earlier one's lines are kept aside
[ -s "$RUNS" ] && mv "$RUNS" "$RUNS.prev"
: > "$RUNS"
export OMP_NUM_THREADS=1   # the peers are MPI only; Talus's runs get OMP_NUM_THREADS = its threads
talus_fields() { # the fields of a `talus bench --json` report (its last line)
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
    print("loop_s=%.6f Z=%.4f builds=%d N_end=%d engine_B_per_p=%.1f rss_B_per_p=%.1f"
          % (d["seconds"], d["Z"], d["neighbor_builds"], d["N"], d["engine_bytes_per_particle"],
             d["peak_rss_bytes_per_particle"]))
except Exception as e:
    print("loop_s= error=%s" % type(e).__name__)
PY
}
one_run() { # CODE SIZE NP REP
  local code=$1 size=$2 np=$3 rep=$4
  local data=$WORK/bed_$size.data scene=$WORK/bed_$size.yaml
  local base=$LOGS/${code}_${size}_np${np}_s${STEPS}_rep${rep}
  local launch=""
  [ "$np" -gt 1 ] && launch="$MPIRUN -np $np"
  local m extra=""
  case $code in
    talus)
      m=$(OMP_NUM_THREADS=$np python3 bench/measure.py --stdout "$base.out" -- "$TALUS" bench "$scene" --data "$data" \
            --threads "$np" --warmup "$NWARM" --steps "$STEPS" --json)
      extra=$(talus_fields "$base.out") ;;
    talus-mpi)
      # Talus on np MPI ranks of one thread each (1 rank: the talus row already)
      [ "$np" -gt 1 ] || return 0
      m=$(OMP_NUM_THREADS=1 python3 bench/measure.py --stdout "$base.out" -- $MPIRUN -np "$np" "$TALUS" bench "$scene" \
            --data "$data" --threads 1 --warmup "$NWARM" --steps "$STEPS" --json)
      extra=$(talus_fields "$base.out") ;;
    liggghts|lammps)
      local exe=liggghts inp=bench/peers/in.bench.liggghts
      [ "$code" = lammps ] && exe=lmp inp=bench/peers/in.bench.lammps
      m=$(python3 bench/measure.py --stdout "$base.out" -- $launch $exe -in $inp -var data "$data" \
            -var nsteps "$STEPS" -var nwarm "$NWARM" -screen none -log "$base.log")
      extra=$(awk '/^Loop time/{loop=$4} /BENCH_DONE/{for(i=1;i<=NF;i++) if ($i ~ /^Zavg=/) z=substr($i,6)}
                   /^Neighbor list builds/{b=$5}
                   /Memory usage per processor/{mem=$(NF-1)} /Per MPI rank memory allocation/{mem=$(NF-1)}
                   END{printf "loop_s=%s Z=%s builds=%s code_mem_MB=%s", loop, z, b, mem}' "$base.log") ;;
  esac
  local n
  n=$(size_n "$size")
  local rss
  rss=$(echo "$m" | sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p')
  echo "$(date +%T) $code N=$size np=$np steps=$STEPS rep=$rep $m $extra rss_kB_per_rank=$rss particles=$n" | tee -a $RUNS
}

for size in $SIZES; do
  for rep in $(seq 1 "$REPS"); do
    for np in $NPS; do
      for code in $CODES; do
        if [ "$size" = 1m ] && [ "$code" != talus ] && [ "$code" != talus-mpi ]; then
          # the peers at 1M: once per rank count, if PEERS_1M=1
          [ "$PEERS_1M" = 1 ] && [ "$rep" = 1 ] || continue
        fi
        one_run "$code" "$size" "$np" "$rep"
      done
    done
  done
done

# ---- 5. the summary ----
if [ "$SUMMARY" = 1 ]; then
  python3 bench/summarize.py "$RUNS" --conditions $WORK/conditions.txt --parity $WORK/parity.txt \
    --out bench/RESULTS.md || die "summarize.py failed"
  echo "wrote bench/RESULTS.md"
fi
