# What YADE's polyhedra cost pair by pair (issue 45; docs/bench.md, "The polyhedra beds both codes
# hold"): PAIRS pairs of the grain (bench/shapes/grain_obj.py's OBJ), each pair turned at random
# and placed along a random direction so that the two support planes overlap by DEPTH, every body
# held still (blockedDOFs), no gravity; the wall-clock time of STEPS steps per pair, YADE's own
# overhead per step included. Prints one JSON line per depth.
#
#   yade -j 1 -n -x bench/peers/yade_pair_cost.py GRAIN.obj [--pairs 40] [--steps 5] [--depths 1e-6,5e-6,2e-5] [--seed 3]
import argparse
import json
import math
import random
import sys
import time

import os

import numpy as np
import yade
from yade import O, log, polyhedra_utils

sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0] if sys.argv and sys.argv[0] else __file__)))
from yade_bench import MU, RHO, matched_kv, read_obj  # noqa: E402  (the bench's material and grain reader)


def random_turn(rng):
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    return yade.Quaternion(math.sqrt(1 - u1) * math.sin(2 * math.pi * u2), math.sqrt(1 - u1) * math.cos(2 * math.pi * u2),
                           math.sqrt(u1) * math.sin(2 * math.pi * u3), math.sqrt(u1) * math.cos(2 * math.pi * u3))


def main():
    ap = argparse.ArgumentParser(prog="yade_pair_cost.py")
    ap.add_argument("obj")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--depths", default="1e-6,5e-6,2e-5", help="the support planes' overlaps (m), comma-separated")
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args(sys.argv[1:])
    log.setDefaultLogLevel(log.ERROR)
    verts = read_obj(a.obj)
    V = np.array(verts)
    rng = random.Random(a.seed)

    def support(q, d):
        return float(((V @ np.array(q.toRotationMatrix()).T) @ d).max())

    for depth in (float(x) for x in a.depths.split(",")):
        O.reset()
        mat = yade.PolyhedraMat(young=2.0 * matched_kv(), poisson=0.3, density=RHO, frictionAngle=math.atan(MU))
        O.materials.append(mat)
        for k in range(a.pairs):
            qa, qb = random_turn(rng), random_turn(rng)
            d = np.array([rng.gauss(0, 1) for _ in range(3)])
            d /= np.linalg.norm(d)
            s = support(qa, d) + support(qb, -d) - depth
            base = np.array([k * 3e-3, 0.0, 0.0])
            for q, p in ((qa, base), (qb, base + s * d)):
                b = polyhedra_utils.polyhedra(mat, v=verts)
                b.state.ori = q * b.state.ori
                b.state.pos = tuple(p)
                b.state.blockedDOFs = "xyzXYZ"
                O.bodies.append(b)
        O.engines = [
            yade.ForceResetter(),
            yade.InsertionSortCollider([yade.Bo1_Polyhedra_Aabb()], verletDist=0.2e-3),
            yade.InteractionLoop([yade.Ig2_Polyhedra_Polyhedra_PolyhedraGeom()],
                                 [yade.Ip2_PolyhedraMat_PolyhedraMat_PolyhedraPhys()],
                                 [yade.Law2_PolyhedraGeom_PolyhedraPhys_Volumetric()]),
            yade.NewtonIntegrator(gravity=(0, 0, 0), damping=0.0),
        ]
        O.dt = 1e-5
        O.run(2, True)  # the collider's first lists, untimed
        t0 = time.monotonic()
        O.run(a.steps, True)
        sec = time.monotonic() - t0
        inter = len(O.interactions)
        sharing = sum(1 for i in O.interactions if i.isReal and i.geom.equivalentPenetrationDepth > 0)
        print(json.dumps({"vertices": len(verts), "depth": depth, "pairs": a.pairs, "interactions": inter,
                          "sharing_volume": sharing, "steps": a.steps,
                          "ms_per_interaction_step": 1e3 * sec / a.steps / max(inter, 1)}))
        sys.stdout.flush()


main()
