"""A bed of convex polyhedra that both Talus and YADE can start from (issue 45), from a bed in
talus bench --write-state's format: Talus's scene of it, with the pairs whose exact polyhedra share
volume counted.

    /usr/bin/python3 bench/shapes/shrunk_bed.py GRAIN.obj STATE.csv SCENE.yaml \
        --out-obj OUT.obj --out-scene OUT.yaml [--factor apart|none] [--margin 1e-4]

--factor apart (the default): every grain shrunk about its centroid by the one factor that leaves
no two of them sharing volume. Why: YADE's polyhedra law pushes with k_V times the volume the exact
polyhedra share, and a bed settled under Talus's law holds common volumes that law never sees
(docs/bench.md, "Why the beds Talus leaves do not hold in YADE"): started there, YADE's bed
explodes. --factor none: the grains as they are (bench/shapes.sh's polyNb beds: a bed YADE settled,
whose common volumes are YADE's own contacts, or Talus's 162-vertex bed, whose are small); the
pairs are still counted.

The factor: for two convex polyhedra A and B, with outward facet planes n . x <= d and centroids
c, the bodies scaled by t about their centroids meet while t >= t*, the least t for which
n . (x - c) <= t (d - n . c) holds at some x for every facet of both: a linear programme in
(x, t) (scipy.optimize.linprog). A pair shares volume when t* < 1. The factor is the smallest t*
over the pairs (with their periodic images in x and y: the cell's side is the scene's domain's),
times 1 - margin; 1 when no pair overlaps.

Writes the grain (OBJ, the vertices scaled about the grain's centroid, so Talus and YADE put its
centroid where the state says) and SCENE with the lattice replaced by the state's particles
(position and orientation as given, at rest), the grain's file by the written one, and the
integrator's impact_speed by the free fall from the bed's top (the grains start at rest). Prints one
line: pairs tested, pairs overlapping, the smallest t*, the factor.
"""
import argparse
import os
import sys

import numpy as np
from scipy.optimize import linprog

from grain_io import read_obj, rot

def centroid(v, f):
    """The volume centroid of a closed triangle mesh (the divergence theorem over its facets)."""
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    vol6 = np.einsum("ij,ij->i", a, np.cross(b, c))
    return (vol6[:, None] * (a + b + c)).sum(0) / (4.0 * vol6.sum())


def read_state(path):
    out = []
    with open(path) as fh:
        head = fh.readline().strip().split(",")
        if head[:8] != ["id", "x", "y", "z", "qw", "qx", "qy", "qz"]:
            sys.exit("shrunk_bed.py: %s: not a talus bench --write-state file" % path)
        for line in fh:
            t = line.strip().split(",")
            if len(t) == 8:
                out.append((int(t[0]), np.array([float(x) for x in t[1:4]]), [float(x) for x in t[4:8]]))
    return out


def scene_cell(path):
    """The periodic cell's side in x (= y) from the scene's `domain: {min: [0, 0, 0], max: [X, Y, Z], ...}` line."""
    for line in open(path):
        if line.startswith("domain:") and "max: [" in line:
            return float(line.split("max: [")[1].split(",")[0])
    sys.exit("shrunk_bed.py: %s: no domain line with max: [...]" % path)


def body_planes(vc, f, p, q):
    """Outward facet normals and their heights above the centroid (n . (v0 - c) > 0) of the grain
    (vertices vc about its centroid) at p turned by q."""
    wv = vc @ rot(q).T
    n = np.cross(wv[f[:, 1]] - wv[f[:, 0]], wv[f[:, 2]] - wv[f[:, 0]])
    n /= np.linalg.norm(n, axis=1)[:, None]
    h = np.einsum("ij,ij->i", n, wv[f[:, 0]])
    s = np.sign(h)  # the centroid lies inside: an outward plane has h > 0
    return n * s[:, None], h * s


def t_star(na, ha, ca, nb, hb, cb):
    """The least scale about the centroids at which the two bodies meet."""
    A = np.vstack([np.hstack([na, -ha[:, None]]), np.hstack([nb, -hb[:, None]])])
    b = np.concatenate([na @ ca, nb @ cb])
    r = linprog(c=[0, 0, 0, 1], A_ub=A, b_ub=b, bounds=[(None, None)] * 3 + [(0, None)], method="highs")
    if r.status != 0:
        sys.exit("shrunk_bed.py: the linear programme failed (%s)" % r.message)
    return r.x[3]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("obj")
    ap.add_argument("state")
    ap.add_argument("scene", help="bench/shapes/polyhedra.yaml as bench/shapes.sh wrote it for this grain")
    ap.add_argument("--out-obj", required=True)
    ap.add_argument("--out-scene", required=True)
    ap.add_argument("--margin", type=float, default=1e-4)
    ap.add_argument("--factor", choices=["apart", "none"], default="apart",
                    help="apart: the shrink that leaves no two grains sharing volume (the default); none: the grains "
                    "as they are (a bed the peer settled: its own overlaps kept), the pairs still counted")
    a = ap.parse_args()
    v, f = read_obj(a.obj)
    c0 = centroid(v, f)
    vc = v - c0
    cell = scene_cell(a.scene)
    reach = np.linalg.norm(vc, axis=1).max()
    bed = read_state(a.state)
    planes = [body_planes(vc, f, p, q) for _, p, q in bed]
    pos = np.array([p for _, p, _ in bed])
    tested = overlapping = 0
    tmin = 1.0
    for i in range(len(bed)):
        for j in range(i + 1, len(bed)):
            d = pos[j] - pos[i]
            for k in (0, 1):  # the nearest periodic image in x and y
                d[k] -= cell * round(d[k] / cell)
            if np.dot(d, d) > (2.0 * reach) ** 2:
                continue
            tested += 1
            t = t_star(planes[i][0], planes[i][1], pos[i], planes[j][0], planes[j][1], pos[i] + d)
            if t < 1.0:
                overlapping += 1
                tmin = min(tmin, t)
    # the floor (z = 0): a grain reaching below it is shrunk clear of it too
    for i, (_, p, q) in enumerate(bed):
        low = (vc @ rot(q).T)[:, 2].min()
        if p[2] + low < 0.0:
            overlapping += 1
            tmin = min(tmin, p[2] / -low)
    if a.factor == "none":
        factor = 1.0
    else:
        factor = tmin * (1.0 - a.margin) if tmin < 1.0 else 1.0
    with open(a.out_obj + ".part", "w") as fh:
        fh.write("# %s shrunk by %.9f about its centroid (bench/shapes/shrunk_bed.py)\n" % (os.path.basename(a.obj), factor))
        for x in c0 + factor * vc:
            fh.write("v %.17g %.17g %.17g\n" % tuple(x))
        for t in f:
            fh.write("f %d %d %d\n" % tuple(t + 1))
    os.replace(a.out_obj + ".part", a.out_obj)
    # the grains start at rest, so none falls faster than from the bed's top to the floor: the
    # speed the scene's check of dt against the shortest Hertz contact is given (it would take the
    # free fall over the domain's 30 mm otherwise, which a 12-vertex bed shrunk by 0.73 fails by a
    # hair: 9.98 steps per contact against 10)
    top = max(p[2] + factor * (vc @ rot(q).T)[:, 2].max() for _, p, q in bed)
    impact = float(np.sqrt(2.0 * 9.81 * top))
    scene = open(a.scene).read().splitlines()
    out, skip = [], False
    for line in scene:
        if line.startswith("integrator: {") and "impact_speed" not in line:
            line = line.rstrip()
            assert line.endswith("}"), line
            line = line[:-1] + ", impact_speed: %.6g}   # sqrt(2 g z_top), z_top = %.6g m" % (impact, top)
        if line.startswith("  grain: {mesh: {file:"):
            line = "  grain: {mesh: {file: %s}}" % os.path.relpath(a.out_obj, os.path.dirname(os.path.abspath(a.out_scene)))
        if line.startswith("particles:"):
            out.append("particles:   # the bed of %s, every grain shrunk by %.9f (bench/shapes/shrunk_bed.py)"
                       % (os.path.basename(a.state), factor))
            for pid, p, q in bed:
                out.append("  - {id: %d, material: glass, shape: grain, position: [%.17g, %.17g, %.17g], "
                           "orientation: [%.17g, %.17g, %.17g, %.17g]}" % (pid, p[0], p[1], p[2], q[0], q[1], q[2], q[3]))
            skip = True
            continue
        if skip and line.startswith("  "):
            continue
        skip = False
        out.append(line)
    with open(a.out_scene + ".part", "w") as fh:
        fh.write("\n".join(out) + "\n")
    os.replace(a.out_scene + ".part", a.out_scene)
    print("pairs_tested=%d pairs_overlapping=%d t_min=%.9f factor=%.9f" % (tested, overlapping, tmin, factor))


if __name__ == "__main__":
    main()
