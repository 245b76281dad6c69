#!/usr/bin/env python3
"""Bodies that are not spheres, and a wall that is a triangle mesh, from Python.

Three shapes are made with `World.add_shape`: an ellipsoid (an analytic contact), an
icosphere polyhedron (a mesh the library generates) and a cube given as NumPy arrays of
vertices and triangles. `World.shape` says what the library made of each: the volume, the
principal moments per unit mass, the bounding radius. Three of each are dropped into a
V-shaped trough whose two sides are one open mesh wall given as arrays (`add_wall("mesh",
mesh_vertices=..., mesh_triangles=...)`), closed at its ends by two planes, and stepped
until they rest (at most 3 s). Printed: each shape's volume against its closed form, where the bodies
came to rest, the energy balance.

    python3 examples/python/shapes_and_meshes.py        (about 10 s)
"""
import math

import numpy as np

import talus


def cube(a):
    """A cube of side a centred at the origin: 8 vertices, 12 triangles turning outwards."""
    v = np.array([[x, y, z] for x in (-a / 2, a / 2) for y in (-a / 2, a / 2) for z in (-a / 2, a / 2)])
    # faces by their four corners (vertex index = 4 x + 2 y + z), counter-clockwise seen from outside
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tri = [t for a_, b, c, d in quads for t in ((a_, b, c), (a_, c, d))]
    return v, np.array(tri)


def trough(half_width, depth, length):
    """Two inclined plates meeting along the y axis at z = 0: one open mesh, 4 triangles."""
    w, h, l2 = half_width, depth, length / 2
    v = np.array([[-w, -l2, h], [-w, l2, h], [0, -l2, 0], [0, l2, 0], [w, -l2, h], [w, l2, h]])
    tri = np.array([[0, 2, 3], [0, 3, 1], [2, 4, 5], [2, 5, 3]])
    return v, tri


def main():
    w = talus.World(gravity=(0, 0, -9.81), seed=5)
    w.add_material("abs", density=1050, youngs_modulus=2e6, poisson_ratio=0.35)
    w.set_law("abs", "abs", e=0.3, tangential="mindlin", mu=0.5)

    egg = w.add_shape("ellipsoid", name="egg", semi_axes=(4e-3, 3e-3, 2.5e-3))
    ball = w.add_shape("mesh", name="ico", source="icosphere", radius=3e-3, subdivisions=2)
    cv, ct = cube(5e-3)
    box = w.add_shape("mesh", name="cube", vertex_xyz=cv, triangles=ct)
    closed_form = {"egg": 4 / 3 * math.pi * 4e-3 * 3e-3 * 2.5e-3, "ico": 4 / 3 * math.pi * 3e-3 ** 3,
                   "cube": 5e-3 ** 3}
    for s in (egg, ball, box):
        d = w.shape(s)
        print("shape %-5s %-9s volume %.4e m3 (closed form %.4e: %+.2f %%), radius %.3e m, moments %s m2"
              % (d["name"], d["kind"], d["volume"], closed_form[d["name"]],
                 100 * (d["volume"] / closed_form[d["name"]] - 1), d["radius"],
                 np.array2string(d["moments"], precision=3)))

    tv, tt = trough(0.03, 0.03, 0.06)
    w.add_wall("mesh", "abs", name="trough", mesh_vertices=tv, mesh_triangles=tt)
    w.add_wall("plane", "abs", name="front", point=(0, -0.015, 0), normal=(0, 1, 0))
    w.add_wall("plane", "abs", name="back", point=(0, 0.015, 0), normal=(0, -1, 0))

    rng = np.random.default_rng(2)
    ids = []
    for k, s in enumerate([egg, ball, box] * 3):
        layer, slot = divmod(k, 3)
        x = (slot - 1) * 0.011
        q = rng.normal(size=4)
        ids.append(w.add_particle("abs", shape=s, position=(x, 0.0, 0.03 + 0.011 * layer),
                                  orientation=q / np.linalg.norm(q)))
    w.prepare()
    e0 = w.energy()
    print("%d bodies dropped into the trough; dt = %.3g s" % (len(ids), w.dt))
    # until they rest: at least 0.4 s, then 0.1 s at a time until the kinetic energy is below
    # 1e-10 J (a rolling egg can take a few tenths more), at most 3 s
    w.step(int(0.4 / w.dt))
    while True:
        e = w.energy()
        ke = e["kinetic_translational"] + e["kinetic_rotational"]
        if ke < 1e-10 or w.time > 3.0:
            break
        w.step(int(0.1 / w.dt))
    z = w.positions[:, 2]
    scale = max(abs(e[k]) for k in e.dtype.names if k != "total")
    print("after %.2f s: kinetic energy %.3e J (it fell from %.3e J of potential)" % (w.time, ke,
                                                                                      e0["potential"] - e["potential"]))
    print("heights of the bodies: %.4f to %.4f m; %d contacts, %d with the walls"
          % (z.min(), z.max(), len(w.contacts()), int(w.contacts()["with_wall"].sum())))
    print("energy balance: total changed by %.2e of the largest term" % (abs(e["total"] - e0["total"]) / scale))


if __name__ == "__main__":
    main()
