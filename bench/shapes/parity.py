"""The parity case of bench/shapes.sh's polyhedra (issue 45): one convex polyhedron pressed into a
plane, in one pose, measured three ways:

  reference  the exact overlap, computed here from the OBJ file alone (no Talus, no YADE): the part
             of the body below the plane z = 0, by the divergence theorem over the body's facets
             clipped to z <= 0 (the section at z = 0 adds nothing): its volume V = int z n_z dA,
             the first moment of its depth Phi = -1/2 int z^2 n_z dA and the section's area
             A = -int n_z dA; then Talus's conservative reading (docs/geometry.md, `contact_depth:
             potential`): delta = 3 Phi / V, r = Phi A / V^2, s = 3 (1 - r), and Hertz's force on
             the body s (4/3) E* sqrt(R) delta^(3/2), R the volume-equivalent sphere's radius;
  talus      the same pose in Talus (its Python module), a plane wall of the same material;
  yade       the same pose in YADE: the polyhedron on a fixed slab whose top is z = 0; its
             penetration volume (Eliáš 2014: the intersection polyhedron's, which the reference
             computes exactly) and its force k_n V.

    PYTHONPATH=build/python /usr/bin/python3 bench/shapes/parity.py talus GRAIN.obj   (reference and Talus)
    yade -n -x bench/shapes/parity.py yade GRAIN.obj                                (reference and YADE)

Each prints one JSON line per pose: the depth h of the lowest vertex, and the quantities above.
"""
import json
import math
import sys

E, NU, RHO = 5.0e6, 0.3, 2500.0
# poses: (w, x, y, z) orientations of the grain as in its file, and depths of its lowest vertex
POSES = [(1.0, 0.0, 0.0, 0.0), (0.9238795325112867, 0.0, 0.3826834323650898, 0.0),
         (0.8, 0.36, 0.48, 0.0)]
DEPTHS = [2e-6, 1e-5, 4e-5]


def read_obj(path):
    v, f = [], []
    for line in open(path):
        t = line.split()
        if t and t[0] == "v":
            v.append(tuple(float(x) for x in t[1:4]))
        elif t and t[0] == "f":
            f.append(tuple(int(i.split("/")[0]) - 1 for i in t[1:4]))
    return v, f


def qrot(q, v):
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    tx, ty, tz = 2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx))


def volume_and_centroid(v, f):
    vol = 0.0
    c = [0.0, 0.0, 0.0]
    for a, b, d in f:
        p, q, r = v[a], v[b], v[d]
        det = (p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0]) + p[2] * (q[0] * r[1] - q[1] * r[0]))
        vol += det / 6.0
        for k in range(3):
            c[k] += det * (p[k] + q[k] + r[k]) / 24.0
    return vol, [x / vol for x in c]


def clip_below(poly):
    """The part of a polygon (list of points) with z <= 0 (Sutherland-Hodgman)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        pin, qin = p[2] <= 0.0, q[2] <= 0.0
        if pin:
            out.append(p)
        if pin != qin:
            t = p[2] / (p[2] - q[2])
            out.append(tuple(p[k] + t * (q[k] - p[k]) for k in range(3)))
    return out


def reference(world, f, R):
    V = Phi = A = 0.0
    for a, b, d in f:
        p, q, r = world[a], world[b], world[d]
        e1 = [q[k] - p[k] for k in range(3)]
        e2 = [r[k] - p[k] for k in range(3)]
        n = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
        ln = math.sqrt(sum(x * x for x in n))
        nz = n[2] / ln
        poly = clip_below([p, q, r])
        for i in range(1, len(poly) - 1):
            t = (poly[0], poly[i], poly[i + 1])
            u = [t[1][k] - t[0][k] for k in range(3)]
            w = [t[2][k] - t[0][k] for k in range(3)]
            cr = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
            area = 0.5 * math.sqrt(sum(x * x for x in cr))
            z = [t[0][2], t[1][2], t[2][2]]
            iz = area * sum(z) / 3.0
            iz2 = area / 6.0 * (z[0] ** 2 + z[1] ** 2 + z[2] ** 2 + z[0] * z[1] + z[1] * z[2] + z[2] * z[0])
            V += iz * nz
            Phi += -0.5 * iz2 * nz
            A += -area * nz
    delta = 3.0 * Phi / V
    r = Phi * A / (V * V)
    s = 3.0 * (1.0 - r)
    es = E / (2.0 * (1.0 - NU * NU))
    force = s * 4.0 / 3.0 * es * math.sqrt(R) * delta ** 1.5
    return {"V": V, "Phi": Phi, "A": A, "delta": delta, "s": s, "force": force}


def poses(path):
    v, f = read_obj(path)
    vol, c = volume_and_centroid(v, f)
    R = (3.0 * vol / (4.0 * math.pi)) ** (1.0 / 3.0)
    body = [tuple(p[k] - c[k] for k in range(3)) for p in v]  # about the centroid
    for q in POSES:
        turned = [qrot(q, p) for p in body]
        low = min(p[2] for p in turned)
        for h in DEPTHS:
            pos = (0.0, 0.0, -low - h)
            world = [(p[0], p[1], p[2] + pos[2]) for p in turned]
            yield q, h, pos, c, world, f, R, v


def run_talus(path):
    import talus
    for q, h, pos, c, world, f, R, _v in poses(path):
        ref = reference(world, f, R)
        w = talus.World(gravity=(0, 0, 0), dt=1e-9)
        m = w.add_material("m", density=RHO, youngs_modulus=E, poisson_ratio=NU)
        w.set_law(m, m, normal="hertz", damping="none", tangential="none")
        sh = w.add_shape(name="g", mesh={"file": path}, contact_depth="potential")
        w.add_particle(m, id=1, shape=sh, position=pos, orientation=q)
        w.add_wall(type="plane", material=m, point=(0, 0, 0), normal=(0, 0, 1))
        w.prepare()
        w.step(1)
        k = w.contacts()
        out = {"code": "talus", "h": h, "q": q, "ref": ref,
               "delta": float(k["overlap"][0]) if len(k) else float("nan"),
               "force": float(k["normal_force"][0]) if len(k) else float("nan")}
        print(json.dumps(out))


def run_yade(path):
    import yade
    from yade import O, polyhedra_utils
    for q, h, pos, c, world, f, R, v in poses(path):
        ref = reference(world, f, R)
        O.reset()
        mat = yade.PolyhedraMat(young=2.0e10, poisson=0.3, density=RHO, frictionAngle=0.5)
        O.materials.append(mat)
        b = polyhedra_utils.polyhedra(mat, v=[tuple(p[k] - c[k] for k in range(3)) for p in v])
        b.state.ori = yade.Quaternion(*q) * b.state.ori
        b.state.pos = pos
        slab = [(sx * 0.01, sy * 0.01, sz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-0.002, 0.0)]
        t = polyhedra_utils.polyhedra(mat, v=slab, fixed=True)
        O.bodies.append((b, t))
        O.engines = [yade.ForceResetter(), yade.InsertionSortCollider([yade.Bo1_Polyhedra_Aabb()]),
                     yade.InteractionLoop([yade.Ig2_Polyhedra_Polyhedra_PolyhedraGeom()],
                                          [yade.Ip2_PolyhedraMat_PolyhedraMat_PolyhedraPhys()],
                                          [yade.Law2_PolyhedraGeom_PolyhedraPhys_Volumetric()]),
                     yade.NewtonIntegrator(gravity=(0, 0, 0))]
        O.dt = 1e-12
        O.step()
        i = O.interactions[0, 1] if O.interactions.has(0, 1) else None
        out = {"code": "yade", "h": h, "q": q, "ref": ref,
               "V": i.geom.penetrationVolume if i is not None and i.isReal else 0.0,
               "force": i.phys.normalForce.norm() if i is not None and i.isReal else 0.0,
               "kn": i.phys.kn if i is not None and i.isReal else float("nan")}
        print(json.dumps(out))


if len(sys.argv) < 3 or sys.argv[1] not in ("talus", "yade"):
    raise SystemExit(__doc__)
if sys.argv[1] == "talus":
    run_talus(sys.argv[2])
else:
    run_yade(sys.argv[2])
