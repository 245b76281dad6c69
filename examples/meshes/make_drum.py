#!/usr/bin/env python3
"""Writes drum.stl: a rotating-drum liner for examples/drum-*.yaml. A closed cylinder of
radius 0.1 m and length 0.05 m along y, centred at the origin, as an ASCII STL: the curved
side in 72 segments (two triangles each) and each end cap as a fan of 72 triangles around
its centre. The facets are wound counter-clockwise seen from outside (normals out, as for a
closed body); the particles are inside: a mesh wall pushes a body to the side its centre is
on (docs/scene.md).

    python3 examples/meshes/make_drum.py > examples/meshes/drum.stl
"""
import math
import sys

R, L, N = 0.1, 0.05, 72


def facet(out, a, b, c):
    out.write(" facet normal 0 0 0\n  outer loop\n")
    for p in (a, b, c):
        out.write("   vertex %.9g %.9g %.9g\n" % p)
    out.write("  endloop\n endfacet\n")


def main(out):
    out.write("solid drum\n")
    ring = [(R * math.cos(2 * math.pi * k / N), R * math.sin(2 * math.pi * k / N)) for k in range(N)]
    for k in range(N):
        (x0, z0), (x1, z1) = ring[k], ring[(k + 1) % N]
        a, b = (x0, -L / 2, z0), (x1, -L / 2, z1)
        c, d = (x1, L / 2, z1), (x0, L / 2, z0)
        facet(out, a, c, b)
        facet(out, a, d, c)
        facet(out, (0.0, -L / 2, 0.0), a, b)
        facet(out, (0.0, L / 2, 0.0), c, d)
    out.write("endsolid drum\n")


main(sys.stdout)
