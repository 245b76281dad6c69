#!/usr/bin/env python3
"""Writes anvil.stl: the triangulated glass anvil of examples/000-kharaz-faceted.yaml, a flat
square of 10 mm in the plane z = 0 (metres), 43 x 43 cells each cut along a diagonal chosen
at random (fixed seed): 1936 vertices and 3698 facets (the paper's anvil: 1906 / 3638, an open
surface; docs/readings.md#li-brazil-nut). The same plate as the faceted section of `talus
validate` (app/validate_facets.c). Facets wound counter-clockwise seen from +z, binary STL.

    python3 examples/meshes/make_anvil.py > examples/meshes/anvil.stl
"""
import struct
import sys

N, L = 43, 0.01


def main(out):
    def vertex(i, j):
        return (-0.5 * L + L * i / N, -0.5 * L + L * j / N, 0.0)

    s = 12345
    tris = []
    for j in range(N):
        for i in range(N):
            p, q, r, u = vertex(i, j), vertex(i + 1, j), vertex(i, j + 1), vertex(i + 1, j + 1)
            s = (s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            if s >> 63:
                tris += [(p, q, u), (p, u, r)]
            else:
                tris += [(p, q, r), (q, u, r)]
    out.write(b"anvil: 10 mm plate, 43 x 43 cells, random diagonals".ljust(80, b" "))
    out.write(struct.pack("<I", len(tris)))
    for t in tris:
        out.write(struct.pack("<3f", 0.0, 0.0, 1.0))
        for v in t:
            out.write(struct.pack("<3f", *v))
        out.write(struct.pack("<H", 0))


if __name__ == "__main__":
    main(sys.stdout.buffer)
