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
# - the polyhedra beds from the bed Talus left after its warm-up (talus bench --write-state), every
#   grain shrunk about its centroid until no two grains share volume (bench/shapes/shrunk_bed.py:
#   YADE's law pushes with the exact common volume, which Talus's settled beds hold unseen), with
#   its own law (volumetric, Elias 2014) at a stiffness matched to the Hertz overlaps at the bed's
#   load (docs/bench.md); Talus times the same shrunk bed (rows polyNs): both codes start from the
#   same bodies at the same places, at rest, and run the same steps (YADE_WARM, then YADE_STEPS
#   timed) while the bed settles again under each one's law;
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
#   YADE_WARM=200  YADE_STEPS=20 (the shrunk polyhedra beds, in both codes: YADE's 162-vertex
#                       polyhedra cost 10 s a step on one core before they touch and 109 s once
#                       they begin to (2026-11-30), so its timed steps are few and the figures
#                       compared are per particle-step; by step 200 the 162-vertex bed's grains
#                       meet again, the 12- and 42-vertex beds' (shrunk by 27 % and 5 %) are
#                       still falling: docs/bench.md reads those rows as loose beds)
# The whole script took 1 h 50 min on 2026-11-30 (a 2-core AMD EPYC), 1 h 34 min of it YADE's
# 162-vertex bed: its warm-up (34 min on two threads) and its two timed runs (38 and 22 min).
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
YADE_WARM=${YADE_WARM:-200}
WARM_ELL216=${WARM_ELL216:-10000}
YADE_STEPS=${YADE_STEPS:-20}
WORK=bench/work
SCENE_TEMPLATE=bench/bed.yaml
RUNS=$WORK/shapes_runs.txt
LOGS=$WORK/logs
die() { echo "bench/shapes.sh: $*" >&2; exit 1; }
case " $PEERS " in
  *" yade "*)
    # yade, and SciPy for the shrunk beds' linear programmes (bench/shapes/shrunk_bed.py)
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
  case " $PEERS " in *" yade "*) echo "yade: $(dpkg-query -W -f='${Version}' yade 2>/dev/null); spheres: warm-up $WARM_SPHERES, $STEPS timed steps; ellipsoids (ell216, level sets): warm-up $WARM_ELL216, $STEPS timed steps; polyhedra: Talus's warmed-up bed shrunk (both codes), warm-up $YADE_WARM, $YADE_STEPS timed steps" ;; esac
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
    poly12s|poly42s|poly162s) v=${1#poly}; ARGS=("$WORK/shrunk${v%s}.yaml") ;;
  esac
}
yade_args() {
  case $1 in
    spheres) ARGS=(--bed spheres --data "$WORK/bed_10k.data") ;;
    ell216) ARGS=(--bed levelset --state "$WORK/ell216_start.csv") ;;
    poly12s|poly42s|poly162s) v=${1#poly}; v=${v%s}; ARGS=(--bed polyhedra --obj "$WORK/shrunk$v.obj" --state "$WORK/state$v.csv") ;;
  esac
}
warm_of() {
  case $1 in
    spheres) echo "$WARM_SPHERES" ;; ellipsoids) echo "$WARM_ELLIPSOIDS" ;; ell216) echo "$WARM_ELL216" ;;
    meshes|poly12|poly42|poly162) echo "$WARM_MESHES" ;; *) echo "$YADE_WARM" ;;
  esac
}
steps_of() { case $1 in poly12s|poly42s|poly162s) echo "$YADE_STEPS" ;; *) echo "$STEPS" ;; esac; }

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
        # the bed both codes start from: Talus's settled bed, every grain shrunk until no two share volume
        /usr/bin/python3 bench/shapes/shrunk_bed.py "$WORK/grain$v.obj" "$WORK/state$v.csv" "$WORK/polyhedra$v.yaml" \
          --out-obj "$WORK/shrunk$v.obj" --out-scene "$WORK/shrunk$v.yaml" > "$LOGS/shrunk$v.txt" \
          || die "shrunk_bed.py $v failed"
        echo "$(date +%T) shrunk bed=${bed}s $(cat "$LOGS/shrunk$v.txt")" | tee -a "$RUNS"
        talus_args "${bed}s"; talus_warm "${bed}s" "$YADE_WARM" "${ARGS[@]}"
        yade_args "${bed}s"; yade_warm "${bed}s" "$YADE_WARM" "${ARGS[@]}"
        TIMED="$TIMED ${bed}s"
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

python3 - "$RUNS" $WORK/shapes_conditions.txt $WORK/parity.jsonl > "$OUT.part" <<'PY' || die "the summary failed"
import json, sys, statistics
runs, shrunk = [], {}
for ln in open(sys.argv[1]):
    d = dict(w.split("=", 1) for w in ln.split()[1:] if "=" in w)
    if ln.split()[1:2] == ["shrunk"]:
        shrunk[d["bed"]] = d
        continue
    if d.get("rc") != "0" or not d.get("loop_s"):
        continue
    d.setdefault("code", "talus")
    runs.append(d)
cond = open(sys.argv[2]).read().strip().splitlines()
print("# Talus on non-spherical beds, beside YADE (bench/shapes.sh)\n")
print("Generated by `bash bench/shapes.sh` (issue 16 item 3, issue 45); conditions:\n")
for c in cond:
    print("- " + c)
print("\nEach bed is timed by `talus bench` after its warm-up (the grains fall from a lattice and "
      "settle; the sphere bed is settled already), and by YADE (bench/peers/yade_bench.py) with the "
      "wall-clock time of its timed steps alone, on the same bed: the sphere bed from the same data "
      "file; `ell216`, 216 ellipsoids falling from the same lattice (places and attitudes) onto a floor, "
      "as YADE's level-set superellipsoids; `polyNs`, the bed Talus left after its warm-up (row polyN) "
      "with every grain shrunk about its centroid until no two share volume (bench/shapes/shrunk_bed.py; "
      "YADE's volumetric law pushes with the common volume of the exact polyhedra, which Talus's settled "
      "beds hold unseen), timed by both codes over the same steps while it settles again. "
      "Per-particle-step figures are medians over the repetitions; `contacts` counts the touching "
      "pairs at the end (particle pairs Z N / 2 plus the floor's); `contact-steps/s` is contacts "
      "times steps per second. `over the spheres'` is Talus's cost per particle-step over Talus's on "
      "the sphere bed; `YADE / Talus` YADE's over Talus's on the same bed and threads. A YADE bed "
      "whose kinetic energy grows by orders of magnitude did not stay the bed Talus timed (the KE "
      "columns show it: more than 100 times Talus's at the end): its time is shown, not compared. docs/bench.md reads the table.\n")
print("| code | bed | particles | threads | timed steps | loop (s), median | particle-steps/s | us per particle-step | "
      "contacts | contact-steps/s | us per contact-step | over the spheres' | YADE / Talus | KE at the end of the warm-up (J) | KE at the end (J) | Z at the end of the warm-up | Z at the end |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
groups = {}
for d in runs:
    groups.setdefault((d["code"], d["bed"], d["np"]), []).append(d)
order = ["spheres", "ellipsoids", "ell216", "meshes", "poly12", "poly12s", "poly42", "poly42s", "poly162", "poly162s"]
rows, us_of, ke_of = [], {}, {}
for (code, bed, np_), g in groups.items():
    loop = statistics.median(float(d["loop_s"]) for d in g)
    n = int(g[0]["N"]); steps = int(g[0].get("ysteps", g[0]["steps"]))
    contacts = statistics.median(float(d["contacts_pp"]) + float(d["contacts_wall"]) for d in g)
    ps = n * steps / loop
    us = 1e6 / ps
    us_of[(code, bed, np_)] = us
    ke_of[(code, bed, np_)] = statistics.median(float(d["ke_end"]) for d in g)
    cs = contacts * steps / loop
    rows.append((code, bed, n, np_, steps, loop, ps, us, contacts, cs, 1e6 / cs if cs > 0 else float("nan"),
                 statistics.median(float(d["ke_warm"]) for d in g), statistics.median(float(d["ke_end"]) for d in g),
                 statistics.median(float(d.get("Z_warm", "nan")) for d in g), statistics.median(float(d["Z"]) for d in g)))
rows.sort(key=lambda r: (int(r[3]), order.index(r[1]) if r[1] in order else 9, r[0] != "talus"))
for r in rows:
    code, bed, np_ = r[0], r[1], r[3]
    sph = us_of.get(("talus", "spheres", np_))
    rel = r[7] / sph if code == "talus" and sph else float("nan")
    t = us_of.get(("talus", bed, np_))
    grew = r[12] > 100.0 * max(ke_of.get(("talus", bed, np_), 0.0), 1e-30)
    ratio = "%.1f" % (r[7] / t) if code == "yade" and t and not grew else ("(not the same bed)" if code == "yade" else "")
    print("| %s | %s | %d | %s | %d | %.3f | %.3e | %.3f | %.0f | %.3e | %.3f | %s | %s | %.2e | %.2e | %.2f | %.2f |"
          % (code, bed, r[2], np_, r[4], r[5], r[6], r[7], r[8], r[9], r[10],
             "%.1f" % rel if rel == rel else "", ratio, r[11], r[12], r[13], r[14]))
if shrunk:
    print("\nThe shrunk beds (bench/shapes/shrunk_bed.py): the grain pairs within reach of each other in the "
          "bed Talus left, those whose exact polyhedra share volume (or reach below the floor), the least "
          "scale about the centroids at which a pair still meets, and the factor every grain was scaled by.\n")
    print("| bed | pairs tested | overlapping | least scale t* | factor |")
    print("|---|---|---|---|---|")
    for b in sorted(shrunk, key=lambda b: order.index(b) if b in order else 9):
        d = shrunk[b]
        print("| %s | %s | %s | %s | %s |" % (b, d["pairs_tested"], d["pairs_overlapping"], d["t_min"], d["factor"]))
# the targets of issue 45, each from the rows above (one per thread count)
uc_of = {(r[0], r[1], r[3]): r[10] for r in rows}
nps = sorted({r[3] for r in rows}, key=int)
if nps:
    print("\nTargets (issue 45; docs/bench.md gives the roofline reasoning), each ratio against its bound.\n")
    print("| target | bound | " + " | ".join("%s thread%s" % (n, "" if n == "1" else "s") for n in nps) + " |")
    print("|---|---|" + "---|" * len(nps))
    def cell(v, bound, below=True):
        if v != v:
            return "–"
        ok = v <= bound if below else v >= bound
        return "%.1f (%s)" % (v, "met" if ok else "not met")
    def ratio(num, den):
        a, b = num, den
        return a / b if a and b and a == a and b == b else float("nan")
    print("| an ellipsoid contact-step over a sphere contact-step (beds ellipsoids, spheres) | <= 5 | " + " | ".join(
        cell(ratio(uc_of.get(("talus", "ellipsoids", n)), uc_of.get(("talus", "spheres", n))), 5.0) for n in nps) + " |")
    print("| a 162-vertex meshed contact-step over a sphere contact-step (beds meshes, spheres) | <= 20 | " + " | ".join(
        cell(ratio(uc_of.get(("talus", "meshes", n)), uc_of.get(("talus", "spheres", n))), 20.0) for n in nps) + " |")
    for b in ("poly12s", "poly42s", "poly162s"):
        vals = []
        for n in nps:
            y, t = us_of.get(("yade", b, n)), us_of.get(("talus", b, n))
            grew = ke_of.get(("yade", b, n), 0.0) > 100.0 * max(ke_of.get(("talus", b, n), 0.0), 1e-30)
            vals.append("(not the same bed)" if y and t and grew else cell(ratio(y, t), 10.0, below=False))
        print("| YADE's polyhedra over Talus's per particle-step, bed %s | >= 10 | %s |" % (b, " | ".join(vals)))
    print("\nThe fourth target, the meshed Brazil nut's 12 s in under 10 minutes on two cores, is not a bed of this "
          "script: docs/validation.md gives its measured wall time (`talus run examples/000-brazil-nut-mesh.yaml "
          "--threads 2`).")
par = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
if par:
    print("\nThe parity case (bench/shapes/parity.py): the 162-vertex grain pressed into a plane, three "
          "attitudes, its lowest vertex h deep. The reference is computed from the OBJ file alone: the part "
          "below the plane by the divergence theorem over the clipped facets, its volume V, and Talus's "
          "conservative reading of it (docs/geometry.md): delta = 3 Phi / V and the force s (4/3) E* sqrt(R) "
          "delta^(3/2). YADE's law is F_n = k_n V of its own penetration volume: the two codes agree on the "
          "geometry (each against the reference), and differ by their laws, which the table shows.\n")
    print("| attitude (w, x, y, z) | h (m) | V, reference (m3) | YADE's V / reference - 1 | delta, reference (m) | Talus's delta - reference (m) | Talus's force / reference - 1 | Talus's force (N) | YADE's force (N) |")
    print("|---|---|---|---|---|---|---|---|---|")
    key = lambda d: (tuple(d["q"]), d["h"])
    ta = {key(d): d for d in par if d["code"] == "talus"}
    ya = {key(d): d for d in par if d["code"] == "yade"}
    for k in sorted(set(ta) | set(ya)):
        t, y = ta.get(k), ya.get(k)
        r = (t or y)["ref"]
        print("| %s | %.0e | %.4e | %s | %.6e | %s | %s | %s | %s |" % (
            ", ".join("%.4g" % x for x in k[0]), k[1], r["V"],
            "%.1e" % (y["V"] / r["V"] - 1) if y else "–", r["delta"],
            "%.1e" % (t["delta"] - r["delta"]) if t else "–",
            "%.1e" % (t["force"] / r["force"] - 1) if t else "–",
            "%.4e" % t["force"] if t else "–", "%.4e" % y["force"] if y else "–"))
PY
mv "$OUT.part" "$OUT"
echo "wrote $OUT"
