#!/bin/sh
# Regenerates the reference data of test_peer_steps (test/physics/test_peer_steps.c) with Debian's
# LAMMPS (`lmp`, package lammps) and LIGGGHTS (`liggghts`): the start configuration
# (start.data, written by LAMMPS) and, for each case, the steps 0, 1, 2, 3, 5, 10 and 20 of
# a 20-step run (CASE.ref, a LAMMPS dump: id x y z vx vy vz wx wy wz fx fy fz tx ty tz).
# The tests never run it (they read the committed files); bench/run.sh installs the peers.
#   sh test/physics/peers/make_reference.sh
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
command -v lmp > /dev/null && command -v liggghts > /dev/null ||
  { echo "make_reference.sh: lmp and liggghts are needed (apt-get install lammps liggghts)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
keep() { # the dump's steps 0 1 2 3 5 10 20, into $HERE/$1.ref (written to a temporary name)
  awk 'BEGIN { want[0]; want[1]; want[2]; want[3]; want[5]; want[10]; want[20] }
       /^ITEM: TIMESTEP/ { getline step; on = (step + 0) in want; if (on) print "ITEM: TIMESTEP\n" step; next }
       on { sub(/ +$/, ""); print }' "$2" > "$HERE/$1.ref.part"
  mv "$HERE/$1.ref.part" "$HERE/$1.ref"
}
lammps() { # case, pair style
  lmp -in "$HERE/in.steps.lammps" -var pair "$2" -var out dump.txt -var data start.data -screen none -log log.txt > /dev/null ||
    { cat log.txt >&2; exit 1; }
  keep "$1" dump.txt
}
liggghts_case() { # case, limit option
  liggghts -in "$HERE/in.steps.liggghts" -var limit "$2" -var out dump.txt -var data "$HERE/start.data" -screen none \
    -log log.txt > /dev/null 2>&1 || { cat log.txt >&2; exit 1; }
  keep "$1" dump.txt
}
# gran/hertz/history: k_n k_t gamma_n gamma_t mu dampflag [limit_damping]
lammps lammps-hertz "gran/hertz/history 1000.0 350.0 50.0 30.0 0.5 1 limit_damping"
cp start.data "$HERE/start.data.part" && mv "$HERE/start.data.part" "$HERE/start.data"
lammps lammps-hertz-undamped "gran/hertz/history 1000.0 350.0 50.0 30.0 0.3 0"
lammps lammps-hooke "gran/hooke/history 2000.0 500.0 50.0 25.0 0.3 1"
liggghts_case liggghts-hertz "limitForce on"
liggghts_case liggghts-hertz-tensile ""
# test_cohesion: static pairs under pair granular dmt and jkr, the forces of step 0 (the jkr run of the
# 2021 release stops with "Neighbor history overflow" once step 0 is written: its dump is complete)
for model in dmt jkr; do
  lmp -in "$HERE/in.cohesion.lammps" -var model $model -var out cohesion.dump -screen none -log log.txt > /dev/null 2>&1 || true
  grep -q "^18 " cohesion.dump || { cat log.txt >&2; exit 1; }
  cp cohesion.dump "$HERE/lammps-$model-static.dump.part" && mv "$HERE/lammps-$model-static.dump.part" "$HERE/lammps-$model-static.dump"
done
# test_cohesion: the impact of two spheres under pair granular dmt and jkr, 3000 steps (the jkr run of
# the 2021 release stops with "Neighbor history overflow" after its last step: its dump is complete)
for model in dmt jkr; do
  lmp -in "$HERE/in.cohesion-impact.lammps" -var model $model -var out impact.dump -screen none -log log.txt > /dev/null 2>&1 || true
  grep -q "^3000$" impact.dump || { cat log.txt >&2; exit 1; }
  cp impact.dump "$HERE/lammps-$model-impact.dump.part" && mv "$HERE/lammps-$model-impact.dump.part" "$HERE/lammps-$model-impact.dump"
done
echo "make_reference.sh: wrote $(cd "$HERE" && ls *.ref start.data | tr '\n' ' ')"
