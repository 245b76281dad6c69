"""The convex grain of bench/shapes.sh's polyhedra beds, as a Wavefront OBJ both Talus and YADE
read (issue 45): the icosphere of V = 12, 42, 162 or 642 vertices (the icosahedron, subdivided and
projected onto the unit sphere) scaled to the ellipsoid of semi-axes a, b, c, so each vertex lies
on the ellipsoid and the hull is convex. Its facets are the icosphere's (outward, counter-clockwise).

    python3 bench/shapes/grain_obj.py V OUT.obj [a b c]     (default 0.00075 0.0005 0.0005 m)
"""
import math
import sys


def icosphere(n):
    p = (1.0 + 5.0 ** 0.5) / 2.0
    v = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p), (0, -1, -p), (0, 1, -p),
         (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    v = [tuple(c / math.sqrt(sum(x * x for x in a)) for c in a) for a in v]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
         (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
         (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    while len(v) < n:
        mid = {}

        def m(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                c = [(v[a][i] + v[b][i]) / 2.0 for i in range(3)]
                r = math.sqrt(sum(x * x for x in c))
                v.append(tuple(x / r for x in c))
                mid[key] = len(v) - 1
            return mid[key]

        nf = []
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    if len(v) != n:
        raise SystemExit("grain_obj.py: no icosphere of %d vertices (12, 42, 162, 642)" % n)
    return v, f


def main():
    if len(sys.argv) not in (3, 6):
        raise SystemExit(__doc__)
    n = int(sys.argv[1])
    semi = [float(x) for x in sys.argv[3:6]] if len(sys.argv) == 6 else [0.00075, 0.0005, 0.0005]
    v, f = icosphere(n)
    tmp = sys.argv[2] + ".part"
    with open(tmp, "w") as out:
        out.write("# icosphere of %d vertices scaled to the ellipsoid %r m (bench/shapes/grain_obj.py)\n" % (n, semi))
        for x in v:
            out.write("v %.17g %.17g %.17g\n" % (x[0] * semi[0], x[1] * semi[1], x[2] * semi[2]))
        for a, b, c in f:
            out.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))
    import os
    os.replace(tmp, sys.argv[2])


main()
