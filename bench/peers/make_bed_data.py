#!/usr/bin/env python3
# Copied from /work/shared/peers/bench/make_bed_data.py (the peer measurement made for issue 5, 2026-11-20/21;
# see bench/peers/README.md). Unchanged below this note.
"""Turn a LIGGGHTS/LAMMPS write_data file of a settled bed into a clean benchmark
data file (atom_style sphere/granular: id type diameter density x y z), readable
by both LIGGGHTS and LAMMPS.  Velocities are dropped (bed starts at rest, no
contact history), coordinates are wrapped into the periodic x/y box, the box
top is set to --zhi, and the bed can be replicated nx*ny times in x and y.
usage: make_bed_data.py IN OUT [--nx 1] [--ny 1] [--zhi 0.03]"""
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("inp"); ap.add_argument("out")
ap.add_argument("--nx", type=int, default=1); ap.add_argument("--ny", type=int, default=1)
ap.add_argument("--zhi", type=float, default=0.03)
a = ap.parse_args()

lines = open(a.inp).read().splitlines()
box = {}
atoms = []
sec = None
for ln in lines[1:]:
    s = ln.split("#")[0].strip()
    if not s:
        continue
    w = s.split()
    if w[0] in ("Atoms", "Velocities", "Masses", "Pair", "PairIJ"):
        sec = w[0]; continue
    if sec is None:
        if len(w) == 4 and w[2].endswith("lo"):
            box[w[2][0]] = (float(w[0]), float(w[1]))
        continue
    if sec == "Atoms":
        atoms.append((int(w[1]), float(w[2]), float(w[3]), float(w[4]), float(w[5]), float(w[6])))

(xlo, xhi), (ylo, yhi), (zlo, zhi) = box["x"], box["y"], box["z"]
Lx, Ly = xhi - xlo, yhi - ylo
ztop = max(t[5] + 0.5 * t[1] for t in atoms)
assert ztop < a.zhi, (ztop, a.zhi)
out = []
n = 0
for ix in range(a.nx):
    for iy in range(a.ny):
        for (typ, d, rho, x, y, z) in atoms:
            x = xlo + (x - xlo) % Lx + ix * Lx
            y = ylo + (y - ylo) % Ly + iy * Ly
            n += 1
            out.append("%d %d %.16e %.16e %.16e %.16e %.16e" % (n, typ, d, rho, x, y, z))
with open(a.out, "w") as f:
    f.write("settled bed: %d spheres (from %s, replicated %dx%d)\n\n" % (n, a.inp, a.nx, a.ny))
    f.write("%d atoms\n1 atom types\n\n" % n)
    f.write("%.16e %.16e xlo xhi\n" % (xlo, xlo + a.nx * Lx))
    f.write("%.16e %.16e ylo yhi\n" % (ylo, ylo + a.ny * Ly))
    f.write("%.16e %.16e zlo zhi\n\nAtoms\n\n" % (zlo, a.zhi))
    f.write("\n".join(out) + "\n")
print("wrote %s: %d atoms, box %g x %g x %g, bed top %.5f" % (a.out, n, a.nx * Lx, a.ny * Ly, a.zhi - zlo, ztop))
