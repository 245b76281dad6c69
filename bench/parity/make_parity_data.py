#!/usr/bin/env python3
"""The perturbed start of the parity check (bench/parity.sh): a copy of a benchmark data file
(bench/peers/make_bed_data.py format, `id type diameter density x y z`) with a Velocities
section (`id vx vy vz wx wy wz`, atom_style sphere/granular) that LIGGGHTS, LAMMPS and
`talus bench --data` all read, so that the three codes start from the same state.
Every particle gets a velocity uniform in [-V, V] per axis and an angular velocity uniform in
[-V/R, V/R] per axis (R its radius): random, seeded, the same on every machine.
usage: make_parity_data.py IN OUT [--v 0.02] [--seed 5]"""
import argparse
import random

ap = argparse.ArgumentParser()
ap.add_argument("inp")
ap.add_argument("out")
ap.add_argument("--v", type=float, default=0.02, help="m/s")
ap.add_argument("--seed", type=int, default=5)
a = ap.parse_args()

rng = random.Random(a.seed)
text = open(a.inp).read()
head, body = text.split("\nAtoms", 1)
lines = [ln for ln in body.splitlines()[1:] if ln.strip() and not ln.lstrip().startswith("#")]
vel = []
for ln in lines:
    w = ln.split()
    r = 0.5 * float(w[2])
    v = [rng.uniform(-a.v, a.v) for _ in range(3)]
    om = [rng.uniform(-a.v / r, a.v / r) for _ in range(3)]
    vel.append("%s %.16e %.16e %.16e %.16e %.16e %.16e" % (w[0], *v, *om))
with open(a.out, "w") as f:
    f.write(head.rstrip("\n") + "\n\nAtoms\n\n" + "\n".join(lines) + "\n\nVelocities\n\n" + "\n".join(vel) + "\n")
print("wrote %s: %d atoms with random velocities |v_i| <= %g m/s, |w_i| <= %g/R (seed %d)"
      % (a.out, len(lines), a.v, a.v, a.seed))
