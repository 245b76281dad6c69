#!/usr/bin/env python3
"""Writes drum.stl: a rotating-drum liner for examples/drum-*.yaml. The curved side of a
cylinder of radius 0.1 m and length 0.05 m along y, centred at the origin, as an ASCII STL
in 72 segments (two triangles each), normals pointing out. It is an open surface: a sphere
is pushed to the side its centre is on, so the beads inside stay inside. The end caps are
two planes in the scene, turning with it. (A closed drum with its caps would be a solid
cylinder: a closed mesh wall pushes out what is inside it, and one wound inwards is refused.)

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
    out.write("endsolid drum\n")


main(sys.stdout)
