#!/bin/bash
# The parity check of the benchmark (run first by bench/run.sh; docs/bench.md): Talus, LIGGGHTS
# and LAMMPS run the same 10k bed with the same physics for NWARM + NSTEPS steps, printing the
# kinetic energy (translational, rotational) and the coordination number Z every EVERY steps,
# from two starts:
#   rest       the benchmark's own start: the settled bed, at rest, no contact history;
#              its kinetic energy is small (1e-9 to 1e-8 J) but deterministic: the bed
#              relaxes and rings after losing its tangential history;
#   perturbed  the same bed with random velocities (|v_i| <= V m/s per axis) and spins
#              (|w_i| <= V/R), identical in the three codes (a Velocities section in the data
#              file, parity/make_parity_data.py): collisions, sliding and rolling everywhere,
#              the kinetic energy decays by a factor 20-50 in 1200 steps.
# parity/compare.py compares Talus with LIGGGHTS (whose conventions bench/bed.yaml reproduces,
# but for two documented edge cases) and prints a table; it exits non-zero, loudly, when they
# differ beyond its tolerances. LAMMPS is shown beside them with a looser bound (its Coulomb
# test differs, see docs/bench.md).
# Environment: TALUS=build/talus SCENE=bench/bed.yaml NWARM=200 NSTEPS=1000 EVERY=100 V=0.02
#              SEED=5 TALUS_INPUT=scene (or data)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.." || exit 1
TALUS=${TALUS:-build/talus}
NWARM=${NWARM:-200}
NSTEPS=${NSTEPS:-1000}
EVERY=${EVERY:-100}
V=${V:-0.02}
SEED=${SEED:-5}
WORK=bench/work
OUT=$WORK/parity
mkdir -p "$OUT"
die() { echo "bench/parity.sh: $*" >&2; exit 1; }
[ -x "$TALUS" ] || die "no talus command at $TALUS"
command -v liggghts > /dev/null && command -v lmp > /dev/null || die "liggghts and lmp are needed (bench/run.sh installs them)"

[ -s $WORK/bed_10k.data ] || gunzip -c bench/peers/bed_10k.data.gz > $WORK/bed_10k.data || die "gunzip failed"
python3 bench/parity/make_parity_data.py $WORK/bed_10k.data $WORK/bed_10k_perturbed.data --v "$V" --seed "$SEED" \
  > /dev/null || die "make_parity_data.py failed"
SCENE=${SCENE:-bench/bed.yaml}   # the physics; its domain must be the 10k bed's box
# Talus reads the bed through the scene (`particles: - {file: ..., format: lammps-data}`), not
# through `talus bench --data`: a scene computes the forces at t = 0 when it is loaded, as
# LIGGGHTS and LAMMPS do in their setup, while particles added after the load enter the first
# step without them (docs/bench.md). TALUS_INPUT=data uses --data instead, to see the difference.
TALUS_INPUT=${TALUS_INPUT:-scene}
grep -q '^walls:' "$SCENE" || die "$SCENE has no 'walls:' line to put the particles before"
grep -q '^particles:' "$SCENE" && die "$SCENE already has particles"

export OMP_NUM_THREADS=1
for state in rest perturbed; do
  data=$WORK/bed_10k.data
  [ $state = perturbed ] && data=$WORK/bed_10k_perturbed.data
  # the scene beside the data file: a scene reads files in its own folder or below
  scene=$WORK/parity_bed_$state.yaml
  awk -v f="$(basename $data)" '/^walls:/{print "particles:"; print "  - {file: " f ", format: lammps-data, types: {1: glass}}"; print ""} {print}' \
    "$SCENE" > "$scene"
  # the same with LIGGGHTS's own readings of the two edge cases (docs/models.md, "To reproduce
  # LAMMPS and LIGGGHTS"): its Coulomb test (friction under tension, sliding only beyond the
  # limit) and the whole first step of a new contact
  peer=$WORK/parity_bed_${state}_liggghts_readings.yaml
  grep -q '^    coulomb_test: spring$' "$scene" || die "$scene has no '    coulomb_test: spring' line to change"
  sed 's/^    coulomb_test: spring$/    coulomb_test: liggghts\n    entry_displacement: whole-step/' "$scene" > "$peer"
  if [ "$TALUS_INPUT" = data ]; then talus_args=("$SCENE" --data "$data"); else talus_args=("$scene"); fi
  echo "parity: $state start, $NWARM + $NSTEPS steps, every $EVERY"
  "$TALUS" bench "${talus_args[@]}" --warmup "$NWARM" --steps "$NSTEPS" --ke-every "$EVERY" --threads 1 \
    --json > $OUT/talus_$state.json 2> $OUT/talus_$state.err || { cat $OUT/talus_$state.err >&2; die "talus bench failed ($state)"; }
  "$TALUS" bench "$peer" --warmup "$NWARM" --steps "$NSTEPS" --ke-every "$EVERY" --threads 1 \
    --json > $OUT/talus-liggghts_$state.json 2> $OUT/talus-liggghts_$state.err ||
    { cat $OUT/talus-liggghts_$state.err >&2; die "talus bench failed ($state, LIGGGHTS's readings)"; }
  liggghts -in bench/parity/in.parity.liggghts -var data $data -var nwarm "$NWARM" -var nsteps "$NSTEPS" \
    -var every "$EVERY" -screen none -log $OUT/liggghts_$state.log > /dev/null 2>&1 || die "liggghts failed ($state): $OUT/liggghts_$state.log"
  lmp -in bench/parity/in.parity.lammps -var data $data -var nwarm "$NWARM" -var nsteps "$NSTEPS" \
    -var every "$EVERY" -screen none -log $OUT/lammps_$state.log > /dev/null 2>&1 || die "lmp failed ($state): $OUT/lammps_$state.log"
done
python3 bench/parity/compare.py $OUT --summary $WORK/parity.txt
