"""The overlaps of a settled bed of convex polyhedra as the exact shapes have them, beside the
contacts Talus's mesh contact finds on the same state (issue 45: why YADE, whose polyhedra law
intersects the polyhedra exactly, cannot start from Talus's bed of coarse polyhedra).

    PYTHONPATH=build/python /usr/bin/python3 bench/shapes/true_overlaps.py GRAIN.obj STATE.csv \
        [--depth potential|volume] [--samples 20000]

GRAIN.obj: bench/shapes/grain_obj.py's grain; STATE.csv: `talus bench --write-state` of the bed
of bench/shapes/polyhedra.yaml (a 20 x 20 mm cell, periodic in x and y). For every pair of grains
whose centres are within twice the bounding radius, the volume common to the two convex
polyhedra is estimated by Monte Carlo (points uniform in the intersection of their boxes, inside
both when on the inner side of every facet plane of both; its resolution is the box's volume over
the number of points, so overlaps of a settled Hertzian contact are mostly below it and counted
as none). Then the same grains are put in a Talus world (the same positions and orientations, the
mesh contact of the scene, prepared: the contacts of the state as it is) and its contacts listed. Printed: the overlapping
pairs, their volume over a grain's (median, 90 %, largest), the overlapping pairs Talus does not
see, and Talus's overlap delta on the pairs whose common volume is more than 1 % of a grain's.
"""
import argparse
import csv
import math

import numpy as np

import talus
from grain_io import CELL, read_obj, rot

def planes(verts, tris, p, q):
    """World vertices and outward facet planes (n, n . v0) of the grain at p turned by q."""
    wv = verts @ rot(q).T + p
    n = np.cross(wv[tris[:, 1]] - wv[tris[:, 0]], wv[tris[:, 2]] - wv[tris[:, 0]])
    n /= np.linalg.norm(n, axis=1)[:, None]
    d = np.einsum("ij,ij->i", n, wv[tris[:, 0]])
    s = np.sign(n @ wv.mean(0) - d)  # the centroid lies on the inner side of an outward plane
    return wv, n * -s[:, None], d * -s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("obj")
    ap.add_argument("state")
    ap.add_argument("--depth", default="potential", choices=["volume", "potential"])
    ap.add_argument("--samples", type=int, default=20000)
    a = ap.parse_args()
    verts, tris = read_obj(a.obj)
    with open(a.state) as fh:
        rows = list(csv.reader(fh))[1:]
    ids = [int(r[0]) for r in rows]
    pos = np.array([[float(x) for x in r[1:4]] for r in rows])
    ori = np.array([[float(x) for x in r[4:8]] for r in rows])
    reach = np.max(np.linalg.norm(verts, axis=1))
    rng = np.random.default_rng(1)
    true = {}
    for i in range(len(rows)):
        wa, na, da = planes(verts, tris, pos[i], ori[i])
        for j in range(i + 1, len(rows)):
            dd = pos[j] - pos[i]
            shift = np.array([-CELL * round(dd[0] / CELL), -CELL * round(dd[1] / CELL), 0.0])
            if np.linalg.norm(dd + shift) > 2.0 * reach:
                continue
            wb, nb, db = planes(verts, tris, pos[j] + shift, ori[j])
            lo, hi = np.maximum(wa.min(0), wb.min(0)), np.minimum(wa.max(0), wb.max(0))
            if (hi <= lo).any():
                continue
            x = rng.uniform(lo, hi, (a.samples, 3))
            inside = (x @ na.T <= da).all(1) & (x @ nb.T <= db).all(1)
            v = float(np.prod(hi - lo) * inside.mean())
            if v > 0.0:
                true[(min(ids[i], ids[j]), max(ids[i], ids[j]))] = v
    w = talus.World(gravity=(0, 0, -9.81), seed=5, allow_initial_overlaps=True,
                    domain={"min": [0, 0, 0], "max": [CELL, CELL, 0.03], "periodic": ["x", "y"]})
    w.add_material("glass", density=2500, youngs_modulus=5e6, poisson_ratio=0.3)
    w.set_law("glass", "glass", e=0.5, tangential="mindlin", mu=0.5)
    g = w.add_shape(name="grain", mesh={"file": a.obj}, contact_depth=a.depth)
    grain_volume = w.shape(g)["volume"]
    for k in range(len(rows)):
        w.add_particle("glass", id=ids[k], shape=g, position=list(pos[k]), orientation=list(ori[k]))
    w.prepare()  # the contacts and forces of the state as it is (t = 0)
    found = {}
    for c in w.contacts():
        if not c[2]:
            found[(min(int(c[0]), int(c[1])), max(int(c[0]), int(c[1])))] = float(c[3])
    tv = np.array(sorted(true.values())) / grain_volume
    missed = [v / grain_volume for k, v in true.items() if k not in found]
    big = sorted(((v / grain_volume, found.get(k, 0.0)) for k, v in true.items() if v > 0.01 * grain_volume),
                 reverse=True)
    print("grain: %d vertices, volume %.4g m3; %d grains" % (len(verts), grain_volume, len(rows)))
    print("pairs overlapping (exact shapes, Monte Carlo): %d; Talus's contacts between grains: %d"
          % (len(true), len(found)))
    if len(tv):
        print("common volume / grain volume: median %.3g, 90%% %.3g, largest %.3g"
              % (np.median(tv), np.quantile(tv, 0.9), tv.max()))
    print("overlapping pairs Talus does not see: %d (largest %.3g of a grain, together %.3g grains)"
          % (len(missed), max(missed or [0.0]), sum(missed)))
    print("pairs sharing more than 1 %% of a grain's volume: %d" % len(big))
    for v, d in big[:8]:
        print("  common volume %.4f of a grain; Talus's delta %.3g m (%.3g of the grain's volume radius)"
              % (v, d, d / (3.0 * grain_volume / (4.0 * math.pi)) ** (1.0 / 3.0)))


main()
