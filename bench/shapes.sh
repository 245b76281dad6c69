#!/bin/bash
# The non-spherical path beside the spheres (issue 16 item 3) and beside YADE (issue 45): the 10k
# sphere bed of bench/run.sh, a bed of 10,140 analytic ellipsoids (bench/shapes/ellipsoids.yaml),
# one of 1,014 meshed grains of 162 vertices (bench/shapes/meshes.yaml), and beds of 1,014 convex
# polyhedra of 12, 42 and 162 vertices (bench/shapes/polyhedra.yaml with the grain of
# bench/shapes/grain_obj.py), each timed by `talus bench` (CLOCK_MONOTONIC around the steps only)
# after a warm-up long enough for the falling grains to settle (the kinetic energy and coordination
# at the end of the warm-up and of the timed run are recorded to show it). The warm-ups come
# first, all of them, on every core and untimed (each bed once per code; nothing else need be idle
# then); the timed runs, every thread count and repetition, then start from the saved warm-ups
# (talus bench --warm-state: the loaded state continues bit for bit, as test_checkpoint and test_cli
# check; yade_bench.py --warm-state, O.save and O.load).
# YADE (Debian's `yade`, CGAL polyhedra and level sets; installed here when missing and run as root,
# else the apt-get line is printed and the script stops) runs, with bench/peers/yade_bench.py:
# - the sphere bed, from the same data file;
# - the polyhedra beds polyNb (docs/bench.md, "The polyhedra beds both codes hold"): a small bed of
#   96 grains (bench/shapes/polyhedra.yaml on a 6.15 mm periodic cell, 4 x 4 x 6 grains) that both
#   codes start from at rest, at the same places and attitudes, then run YADE_WARM steps and time
#   YADE_STEPS (YADE_STEPS_162 for 162 vertices). For 12 and 42 vertices the start is the bed YADE
#   itself settled from Talus's lattice (YADE_SETTLE steps): Talus's settled beds hold common volumes
#   of the exact polyhedra that its law never sees (up to 11 % of a 12-vertex grain), which YADE's
#   volumetric law (Elias 2014) would push apart. YADE cannot settle the 162-vertex bed (about 10 s
#   a step once its grains touch, the first one 150 s), so there the start is the bed Talus settled
#   (WARM_MESHES steps), whose exact common volumes are small (bench/shapes/true_overlaps.py). YADE's law has no dashpot: its
#   NewtonIntegrator damping (YADE_DAMPING, on the contact forces alone, dampGravity=False) settles
#   the beds; at 0.3 its 12-vertex beds gained energy without bound once the pile formed;
# - the ellipsoids as level-set superellipsoids (bed ell216: 216 grains falling from Talus's
#   lattice, the same places and attitudes in both codes, WARM_ELL216 steps, then STEPS timed).
# The big ellipsoid bed and the meshes bed are Talus's alone.
# Writes bench/work/shapes_runs.txt (one line per run) and bench/SHAPES.md. `make bench-shapes`.
#
# Environment (all optional):
#   TALUS=build/talus   REPS=1   STEPS=1000 (timed)   NPS="1 2" (threads)
#   WARM_SPHERES=200  WARM_ELLIPSOIDS=10000  WARM_MESHES=10000 (warm-up steps: by then the
#                       grains' kinetic energy has fallen 1000-fold from its peak and Z is within
#                       2 % of its value 2000 steps later, on both beds)
#   WARM_THREADS=$(nproc) (threads of the warm-up only: the results do not depend on the
#                       thread count, so the untimed settling uses every core)
#   WARM_ELL216=10000 (the 216 ellipsoids' fall and settling in both codes)
#   BEDS="spheres ellipsoids meshes ell216 poly12 poly42 poly162"   OUT=bench/SHAPES.md
#   PEERS=yade (or "" for Talus alone)
#   YADE_SETTLE=8000  YADE_DAMPING=0.8  YADE_WARM=20  YADE_STEPS=1000  YADE_WARM_162=1
#   YADE_STEPS_162=5 (the
#                       polyNb beds; YADE's 162-vertex bed costs about 10 s a step on one core, so its
#                       window is short and the figures compared are per particle-step)
# The whole script took 31 minutes on 2026-11-30 (03:46-04:17, a 2-core AMD EPYC): about 11 of
# them YADE's 42-vertex bed (its settling and timed runs), 5 its 162-vertex bed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT" || exit 1
TALUS=${TALUS:-build/talus}
REPS=${REPS:-1}
STEPS=${STEPS:-1000}
NPS=${NPS:-1 2}
WARM_SPHERES=${WARM_SPHERES:-200}
WARM_ELLIPSOIDS=${WARM_ELLIPSOIDS:-10000}
WARM_MESHES=${WARM_MESHES:-10000}
WARM_THREADS=${WARM_THREADS:-$(nproc)}
OUT=${OUT:-bench/SHAPES.md}
BEDS=${BEDS:-spheres ellipsoids meshes ell216 poly12 poly42 poly162}
PEERS=${PEERS-yade}
YADE_WARM=${YADE_WARM:-20}
WARM_ELL216=${WARM_ELL216:-10000}
YADE_STEPS=${YADE_STEPS:-1000}
YADE_STEPS_162=${YADE_STEPS_162:-5}
YADE_WARM_162=${YADE_WARM_162:-1}
YADE_SETTLE=${YADE_SETTLE:-8000}
YADE_DAMPING=${YADE_DAMPING:-0.8}
SMALL_CELL=0.0061538461538461538  # 4 lattice cells of bench/shapes/polyhedra.yaml's 20/13 mm
WORK=bench/work
SCENE_TEMPLATE=bench/bed.yaml
RUNS=$WORK/shapes_runs.txt
LOGS=$WORK/logs
die() { echo "bench/shapes.sh: $*" >&2; exit 1; }
case " $PEERS " in
  *" yade "*)
    # yade, and SciPy for the start beds' linear programmes (bench/shapes/shrunk_bed.py)
    missing=""
    for p in yade python3-scipy; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
      if [ "$(id -u)" = 0 ]; then
        echo "Installing the missing Debian packages:$missing"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
          || die "apt-get install$missing failed"
      else
        echo "Missing Debian packages:$missing (PEERS= runs Talus alone)"
        echo "Install them with:"
        echo "  sudo apt-get install -y --no-install-recommends$missing"
        exit 1
      fi
    fi ;;
esac
command -v python3 > /dev/null || die "python3 is needed (apt-get install -y python3)"
[ -x "$TALUS" ] || die "no talus command at $TALUS (make build, or TALUS=path)"
mkdir -p "$WORK" "$LOGS"
. bench/beds.sh
# the kinetic energy is sampled every gcd(warm-up, steps) steps: at the end of the warm-up and of
# the timed run both
gcd() { local a=$1 b=$2 t; while [ "$b" -gt 0 ]; do t=$((a % b)); a=$b; b=$t; done; echo "$a"; }
make_bed 10k

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(uname -srm); $(nproc) cores; $(awk -F: '/model name/{print $2; exit}' /proc/cpuinfo | sed 's/^ *//')"
  echo "talus: $("$TALUS" version)"
  echo "steps: $STEPS timed; warm-up spheres $WARM_SPHERES, ellipsoids $WARM_ELLIPSOIDS, meshes and polyhedra $WARM_MESHES (on $WARM_THREADS threads); reps $REPS; threads $NPS"
  case " $PEERS " in *" yade "*) echo "yade: $(dpkg-query -W -f='${Version}' yade 2>/dev/null); spheres: warm-up $WARM_SPHERES, $STEPS timed steps; ellipsoids (ell216, level sets): warm-up $WARM_ELL216, $STEPS timed steps; polyhedra (polyNb, 96 grains): YADE's settled bed (12, 42 vertices: $YADE_SETTLE steps, damping $YADE_DAMPING) or Talus's (162: $WARM_MESHES steps), then in both codes warm-up $YADE_WARM and $YADE_STEPS timed steps (162: $YADE_WARM_162 and $YADE_STEPS_162)" ;; esac
} > $WORK/shapes_conditions.txt

# one Talus run: talus_row BED NP REP WARM STEPS SCENE-ARGS...
talus_row() {
  local bed=$1 np=$2 rep=$3 warm=$4 steps=$5; shift 5
  local out=$LOGS/shapes_${bed}_np${np}_rep${rep}.out m f
  # the kinetic energy and Z at the end of the warm-up and of the timed run
  m=$(OMP_NUM_THREADS=$np python3 bench/measure.py --stdout "$out" -- "$TALUS" bench "$@" --threads "$np" \
        --warmup-threads "$WARM_THREADS" --warmup "$warm" --steps "$steps" --ke-every "$(gcd "$warm" "$steps")" \
        --warm-state "$WORK/warm_$bed.st" --json)
  f=$(python3 - "$out" <<'PY'
import json, sys
try:
    d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
    ke = d.get("ke", [])
    end_warm = [k for k in ke if k[0] <= d.get("warmup", 0)]
    w = end_warm[-1] if end_warm else [0, float("nan"), float("nan"), float("nan")]
    e = ke[-1] if ke else w
    print("loop_s=%.6f N=%d Z=%.4f contacts_pp=%d contacts_wall=%d builds=%d ke_warm=%.4e Z_warm=%.4f ke_end=%.4e"
          % (d["seconds"], d["N"], d["Z"], d["contacts_pp"], d["contacts_wall"], d["neighbor_builds"],
             w[1] + w[2], w[3], e[1] + e[2]))
except Exception as ex:
    print("loop_s= error=%s" % type(ex).__name__)
PY
)
  echo "$(date +%T) code=talus bed=$bed np=$np steps=$steps warm=$warm rep=$rep $m $f" | tee -a "$RUNS"
}

# one YADE run on the same bed: yade_row BED NP REP WARM STEPS YADE-BENCH-ARGS...
yade_row() {
  local bed=$1 np=$2 rep=$3 warm=$4 steps=$5; shift 5
  local yout=$LOGS/shapes_${bed}_yade_np${np}_rep${rep}.out m f
  m=$(python3 bench/measure.py --stdout "$yout" -- yade -j "$np" -n -x bench/peers/yade_bench.py "$@" \
        --warmup "$warm" --steps "$steps" --warm-state "$WORK/warm_${bed}_yade.yade.gz")
  f=$(python3 - "$yout" <<'PY'
import json, sys
try:
    d = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"code": "yade"')][-1]
    print("loop_s=%.6f N=%d Z=%.4f contacts_pp=%d contacts_wall=%d ke_warm=%.4e Z_warm=%.4f ke_end=%.4e ysteps=%d"
          % (d["seconds"], d["N"], d["Z"], d["contacts_pp"], d["contacts_wall"], d["ke_warm"], d["Z_warm"],
             d["ke_end"], d["steps"]))
except Exception as ex:
    print("loop_s= error=%s" % type(ex).__name__)
PY
)
  echo "$(date +%T) code=yade bed=$bed np=$np steps=$steps warm=$warm rep=$rep $m $f" | tee -a "$RUNS"
}

yade_on() { case " $PEERS " in *" yade "*) return 0 ;; esac; return 1; }

# the warm-ups, all first and on every core (not timed): talus_warm BED WARM SCENE-ARGS... makes
# $WORK/warm_BED.st, yade_warm BED WARM YADE-BENCH-ARGS... $WORK/warm_BED_yade.yade.gz; the timed
# runs below load them (talus bench --warm-state, yade_bench.py --warm-state)
talus_warm() {
  local bed=$1 warm=$2; shift 2
  echo "$(date +%T) warm-up: talus bed=$bed steps=$warm threads=$WARM_THREADS" | tee -a "$LOGS/warmups.txt"
  "$TALUS" bench "$@" --threads "$WARM_THREADS" --warmup "$warm" --steps 1 --warm-state "$WORK/warm_$bed.st" \
    --json > "$LOGS/warm_$bed.out" 2>&1 || die "the warm-up of bed $bed failed: $(tail -3 "$LOGS/warm_$bed.out")"
}
yade_warm() {
  local bed=$1 warm=$2; shift 2
  echo "$(date +%T) warm-up: yade bed=$bed steps=$warm threads=$WARM_THREADS" | tee -a "$LOGS/warmups.txt"
  yade -j "$WARM_THREADS" -n -x bench/peers/yade_bench.py "$@" --warmup "$warm" --warmup-only \
    --warm-state "$WORK/warm_${bed}_yade.yade.gz" > "$LOGS/warm_${bed}_yade.out" 2>&1 \
    || die "YADE's warm-up of bed $bed failed: $(tail -3 "$LOGS/warm_${bed}_yade.out")"
}

# each bed's arguments: talus_args BED / yade_args BED set ARGS
talus_args() {
  case $1 in
    spheres) ARGS=("$WORK/bed_10k.yaml" --data "$WORK/bed_10k.data") ;;
    ellipsoids) ARGS=(bench/shapes/ellipsoids.yaml) ;;
    meshes) ARGS=(bench/shapes/meshes.yaml) ;;
    ell216) ARGS=(bench/shapes/ellipsoids_216.yaml) ;;
    poly12|poly42|poly162) ARGS=("$WORK/polyhedra${1#poly}.yaml") ;;
    poly12b|poly42b|poly162b) v=${1#poly}; ARGS=("$WORK/start${v%b}.yaml") ;;
  esac
}
yade_args() {
  case $1 in
    spheres) ARGS=(--bed spheres --data "$WORK/bed_10k.data") ;;
    ell216) ARGS=(--bed levelset --state "$WORK/ell216_start.csv") ;;
    poly12b|poly42b|poly162b) v=${1#poly}; v=${v%b}
      ARGS=(--bed polyhedra --obj "$WORK/start$v.obj" --state "$WORK/start$v.csv" --cell "$SMALL_CELL" --damping "$YADE_DAMPING") ;;
  esac
}
warm_of() {
  case $1 in
    spheres) echo "$WARM_SPHERES" ;; ellipsoids) echo "$WARM_ELLIPSOIDS" ;; ell216) echo "$WARM_ELL216" ;;
    meshes|poly12|poly42|poly162) echo "$WARM_MESHES" ;; poly162b) echo "$YADE_WARM_162" ;; *) echo "$YADE_WARM" ;;
  esac
}
steps_of() { case $1 in poly162b) echo "$YADE_STEPS_162" ;; poly12b|poly42b) echo "$YADE_STEPS" ;; *) echo "$STEPS" ;; esac; }

# each bed is warmed up once per code and run, so the warm-ups of an earlier run, or of another
# build, are removed first
rm -f "$WORK"/warm_*.st "$WORK"/warm_*.yade.gz "$WORK"/warm_*.yade.gz.json
: > "$RUNS"
: > "$LOGS/warmups.txt"
TIMED=""  # the beds timed, in order
for bed in $BEDS; do
  case $bed in
    spheres|ellipsoids|meshes)
      talus_args "$bed"; talus_warm "$bed" "$(warm_of "$bed")" "${ARGS[@]}"
      TIMED="$TIMED $bed"
      if [ "$bed" = spheres ] && yade_on; then yade_args spheres; yade_warm spheres "$WARM_SPHERES" "${ARGS[@]}"; fi ;;
    ell216)
      # the same start in both codes: Talus's lattice (places and attitudes) before its first step
      "$TALUS" bench bench/shapes/ellipsoids_216.yaml --warmup 0 --steps 1 --write-state "$WORK/ell216_start.csv" \
        > /dev/null || die "talus bench --write-state (ell216) failed"
      talus_args ell216; talus_warm ell216 "$WARM_ELL216" "${ARGS[@]}"
      yade_on && { yade_args ell216; yade_warm ell216 "$WARM_ELL216" "${ARGS[@]}"; }
      TIMED="$TIMED ell216" ;;
    poly12|poly42|poly162)
      v=${bed#poly}
      python3 bench/shapes/grain_obj.py "$v" "$WORK/grain$v.obj" || die "grain_obj.py $v failed"
      sed "s/GRAIN_OBJ/grain$v.obj/" bench/shapes/polyhedra.yaml > "$WORK/polyhedra$v.yaml"
      talus_args "$bed"; talus_warm "$bed" "$WARM_MESHES" "${ARGS[@]}" --write-state "$WORK/state$v.csv"
      TIMED="$TIMED $bed"
      if yade_on; then
        # the small bed both codes start from (polyNb): bench/shapes/polyhedra.yaml on the small cell
        sed -e "s/GRAIN_OBJ/grain$v.obj/" \
            -e "s/max: \[0.02, 0.02, 0.03\]/max: [$SMALL_CELL, $SMALL_CELL, 0.03]/" \
            -e "s/max: \[0.02, 0.02, 0.0096\], count: \[13, 13, 6\]/max: [$SMALL_CELL, $SMALL_CELL, 0.0096], count: [4, 4, 6]/" \
            bench/shapes/polyhedra.yaml > "$WORK/small$v.yaml"
        grep -q "count: \[4, 4, 6\]" "$WORK/small$v.yaml" || die "the small bed's scene was not made (bench/shapes/polyhedra.yaml changed?)"
        if [ "$v" = 162 ]; then
          # Talus's settled bed: YADE cannot settle it (about 10 s a step once its grains touch)
          "$TALUS" bench "$WORK/small$v.yaml" --threads "$WARM_THREADS" --warmup "$WARM_MESHES" --steps 1 \
            --write-state "$WORK/start$v.csv" > "$LOGS/settle$v.out" 2>&1 || die "Talus's settling of the small bed $v failed"
          who="talus settled=$WARM_MESHES"
        else
          # YADE's own bed, settled from Talus's lattice (places and attitudes before the first step)
          "$TALUS" bench "$WORK/small$v.yaml" --warmup 0 --steps 1 --write-state "$WORK/lattice$v.csv" > /dev/null \
            || die "talus bench --write-state (small bed $v) failed"
          echo "$(date +%T) settle: yade bed=${bed}b steps=$YADE_SETTLE threads=$WARM_THREADS" | tee -a "$LOGS/warmups.txt"
          yade -j "$WARM_THREADS" -n -x bench/peers/yade_bench.py --bed polyhedra --obj "$WORK/grain$v.obj" \
            --state "$WORK/lattice$v.csv" --cell "$SMALL_CELL" --damping "$YADE_DAMPING" --warmup "$YADE_SETTLE" \
            --steps 1 --ke-every 500 --write-state "$WORK/start$v.csv" > "$LOGS/settle$v.out" 2> "$LOGS/settle$v.err" \
            || die "YADE's settling of the small bed $v failed: $(tail -3 "$LOGS/settle$v.err")"
          who="yade settled=$YADE_SETTLE"
        fi
        # Talus's scene of that bed (the grains as they are; the exact polyhedra's common volumes counted)
        /usr/bin/python3 bench/shapes/shrunk_bed.py "$WORK/grain$v.obj" "$WORK/start$v.csv" "$WORK/small$v.yaml" \
          --factor none --out-obj "$WORK/start$v.obj" --out-scene "$WORK/start$v.yaml" > "$LOGS/start$v.txt" \
          || die "shrunk_bed.py $v failed"
        echo "$(date +%T) start bed=${bed}b by=$who $(cat "$LOGS/start$v.txt")" | tee -a "$RUNS"
        talus_args "${bed}b"; talus_warm "${bed}b" "$(warm_of "${bed}b")" "${ARGS[@]}"
        yade_args "${bed}b"; yade_warm "${bed}b" "$(warm_of "${bed}b")" "${ARGS[@]}"
        TIMED="$TIMED ${bed}b"
      fi ;;
    *) die "unknown bed '$bed' (spheres, ellipsoids, meshes, ell216, poly12, poly42, poly162)" ;;
  esac
done

# the timed runs, each from its bed's warm-up
for rep in $(seq 1 "$REPS"); do
  for np in $NPS; do
    for bed in $TIMED; do
      talus_args "$bed"; talus_row "$bed" "$np" "$rep" "$(warm_of "$bed")" "$(steps_of "$bed")" "${ARGS[@]}"
      case $bed in ellipsoids|meshes|poly12|poly42|poly162) continue ;; esac
      yade_on && { yade_args "$bed"; yade_row "$bed" "$np" "$rep" "$(warm_of "$bed")" "$(steps_of "$bed")" "${ARGS[@]}"; }
    done
  done
done

# the parity case: one polyhedron (the 162-vertex grain) pressed into a plane in nine poses, its
# overlap measured by an exact reference, by Talus and by YADE (bench/shapes/parity.py)
: > $WORK/parity.jsonl
case " $PEERS " in *" yade "*)
  python3 bench/shapes/grain_obj.py 162 "$WORK/grain162.obj" || die "grain_obj.py 162 failed"
  PYTHONPATH="$(dirname "$TALUS")/python" /usr/bin/python3 bench/shapes/parity.py talus "$WORK/grain162.obj" \
    >> $WORK/parity.jsonl 2> $LOGS/parity_talus.err || echo "bench/shapes.sh: the parity case in Talus failed (its Python module: make build)"
  yade -n -x bench/shapes/parity.py yade "$WORK/grain162.obj" 2> $LOGS/parity_yade.err | grep '^{"code"' >> $WORK/parity.jsonl
  ;;
esac

python3 bench/shapes/summarize.py "$RUNS" $WORK/shapes_conditions.txt $WORK/parity.jsonl > "$OUT.part" \
  || die "the summary failed"
mv "$OUT.part" "$OUT"
echo "wrote $OUT"
