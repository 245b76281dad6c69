# YADE as a peer of bench/shapes.sh (issue 45): the beds of Talus's shape benchmark built in YADE
# (Debian's `yade`, 2023.02a, CGAL polyhedra) and timed the way `talus bench` times Talus: a
# warm-up, then the wall-clock time of the timed steps alone.
#
#   yade -j THREADS -n -x bench/peers/yade_bench.py --bed spheres --data bench/work/bed_10k.data ...
#   yade -j THREADS -n -x bench/peers/yade_bench.py --bed polyhedra --obj grain.obj --state state.csv ...
#   yade -j THREADS -n -x bench/peers/yade_bench.py --bed levelset --state lattice.csv ...
#
# Beds:
#   spheres    the 10k settled sphere bed of bench/run.sh (the LAMMPS data file: id type diameter
#              density x y z), 1 mm, density 2500, E = 5e6 Pa, nu = 0.3, mu = 0.5: YADE's
#              Hertz-Mindlin (Ip2_FrictMat_FrictMat_MindlinPhys, Law2_ScGeom_MindlinPhys_Mindlin)
#              with the restitution e = 0.5 (en, es), on a floor of fixed boxes (tiles) at z = 0, in a periodic cell
#              in x and y (20 x 20 mm) as Talus's bed.
#   polyhedra  the grains of bench/shapes/polyhedra.yaml, each the convex polyhedron of
#              bench/shapes/grain_obj.py (an icosphere of 12, 42 or 162 vertices scaled to the
#              ellipsoid 0.75 x 0.5 x 0.5 mm, --obj), at the places and attitudes of a bed in Talus's
#              format (talus bench --write-state, --state), on fixed polyhedral tiles at z = 0 in a
#              periodic cell of --cell in x and y. bench/shapes.sh gives it the small beds polyNb
#              (96 grains, --cell 6.15 mm): Talus's lattice, which YADE settles and writes back
#              (--write-state), or the bed Talus settled (162 vertices).
#              YADE's polyhedra (Elias 2014) have a volumetric law: F_n = k_V V (V the overlap
#              volume), so no Young's modulus matches Hertz exactly; k_V is chosen so that a grain's
#              weight-scale contact overlaps as Hertz's with E = 5e6 Pa would (docs/bench.md gives
#              the arithmetic), ks/kn = 0.3 of the same law, friction mu = 0.5, and
#              NewtonIntegrator's numerical damping (--damping; bench/shapes.sh: 0.8) on the contact
#              forces alone in place of a dashpot (the law has none). A contact is an interaction
#              whose polyhedra share volume (equivalentPenetrationDepth > 0).
#   levelset   the 216 ellipsoids of bench/shapes/ellipsoids_216.yaml (0.75 x 0.5 x 0.5 mm) as
#              level-set superellipsoids with both exponents 1 (the ellipsoid itself), at the places
#              and attitudes of Talus's lattice before its first step (--state), falling onto a floor
#              wall, Hertz-Mindlin with en = es = 0.5: the same start in both codes.
#
# Prints one JSON line at the end: {"code": "yade", "bed", "N", "steps", "warmup", "seconds" (the
# timed steps), "contacts_pp", "contacts_wall", "Z", "ke_warm", "Z_warm", "contacts_wall_warm", "ke_end",
# "threads", "warmup_state": stepped, saved or loaded}. With --warm-state FILE the warm-up is made
# once (bench/shapes.sh: for both thread counts): the scene after it saved by O.save, and loaded in
# a later run in place of building and warming up.
import argparse
import json
import math
import os
import sys
import time

from yade import O, log, utils  # noqa: F401  (yade's own modules: run under `yade -x`)
import yade
from yade import polyhedra_utils


def parse():
    ap = argparse.ArgumentParser(prog="yade_bench.py")
    ap.add_argument("--bed", choices=["spheres", "polyhedra", "levelset"], required=True)
    ap.add_argument("--data", help="the sphere bed's LAMMPS data file")
    ap.add_argument("--obj", help="polyhedra: the grain (bench/shapes/grain_obj.py)")
    ap.add_argument("--state", help="polyhedra, levelset: the bodies' places and attitudes as Talus wrote them (talus bench --write-state)")
    ap.add_argument("--spacing", type=float, default=0.1e-3, help="levelset: the grid spacing of the distance field (m)")
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--dt", type=float, default=1.0e-5)
    ap.add_argument("--warm-state", help="the scene after the warm-up (O.save, FILE ending in .yade.gz, with FILE.json beside it): loaded in "
                    "place of building and warming up when it exists (made with the same --warmup), else saved there")
    ap.add_argument("--warmup-only", action="store_true", help="with --warm-state: build, warm up, save, and stop "
                    "(bench/shapes.sh makes its warm-ups on every core first, then the timed runs load them)")
    ap.add_argument("--kv", type=float, default=0.0, help="polyhedra: the volumetric stiffness (N/m^3); 0: from E")
    ap.add_argument("--damping", type=float, default=0.3, help="polyhedra: NewtonIntegrator's numerical damping")
    ap.add_argument("--ks-ratio", type=float, default=0.3, help="polyhedra: ks / kn of the volumetric law (PolyhedraMat.poisson)")
    ap.add_argument("--ke-every", type=int, default=0, help="a line of kinetic energy and Z on stderr every N warm-up steps")
    ap.add_argument("--cell", type=float, default=0.02, help="spheres, polyhedra: the periodic cell's side in x and y (m)")
    ap.add_argument("--write-state", help="polyhedra: the bed after the warm-up, as talus bench --write-state writes "
                    "one (id, x, y, z, qw, qx, qy, qz: the grain's orientation in its OBJ file's frame): "
                    "the start Talus is given on the beds YADE settles")
    return ap.parse_args(sys.argv[1:])


E, NU, RHO, MU, E_REST = 5.0e6, 0.3, 2500.0, 0.5, 0.5
SEMI = (0.75e-3, 0.5e-3, 0.5e-3)
TILE = 5.0e-3  # the floor: fixed boxes at most TILE wide, 1 mm thick, their tops at z = 0 (a wall,
               # being infinite, cannot lie in a periodic cell: YADE's collider asserts every body's
               # box is under the cell's size); 4 x 4 on the 20 mm cell, 3 x 3 on the small beds'


def tiles(cell):
    """Centres and half-extents of the floor's tiles on the periodic cell cell x cell."""
    k = max(3, int(math.ceil(cell / TILE - 1e-9)))  # each under half the cell, as the collider asks
    h = cell / k / 2.0
    return [((h * (2 * i + 1), h * (2 * j + 1), -0.5e-3), (h, h, 0.5e-3)) for i in range(k) for j in range(k)]


def read_obj(path):
    """The vertices of an OBJ file (v lines), m."""
    v = []
    with open(path) as f:
        for line in f:
            t = line.split()
            if t and t[0] == "v":
                v.append(tuple(float(x) for x in t[1:4]))
    if len(v) < 4:
        raise SystemExit("yade_bench.py: %s: fewer than 4 vertices" % path)
    return v


def read_state(path):
    """Talus's bed (talus bench --write-state): [(id, (x, y, z), (qw, qx, qy, qz))]."""
    out = []
    with open(path) as f:
        head = f.readline().strip().split(",")
        if head[:8] != ["id", "x", "y", "z", "qw", "qx", "qy", "qz"]:
            raise SystemExit("yade_bench.py: %s: not a talus bench --write-state file" % path)
        for line in f:
            t = line.strip().split(",")
            if len(t) == 8:
                out.append((int(t[0]), tuple(float(x) for x in t[1:4]), tuple(float(x) for x in t[4:8])))
    return out


def sphere_bed(args):
    mat = yade.FrictMat(young=E, poisson=NU, density=RHO, frictionAngle=math.atan(MU))
    O.materials.append(mat)
    n = 0
    with open(args.data) as f:
        atoms = False
        for line in f:
            s = line.split()
            if not s:
                continue
            if s[0] == "Atoms":
                atoms = True
                continue
            if atoms and len(s) >= 7:
                d, rho, x, y, z = (float(t) for t in s[2:7])
                O.bodies.append(utils.sphere((x, y, z), d / 2.0, material=mat))
                n += 1
    for c, h in tiles(args.cell):
        O.bodies.append(utils.box(center=c, extents=h, fixed=True, material=mat))
    O.engines = [
        yade.ForceResetter(),
        yade.InsertionSortCollider([yade.Bo1_Sphere_Aabb(), yade.Bo1_Box_Aabb()], verletDist=0.2e-3),
        yade.InteractionLoop(
            [yade.Ig2_Sphere_Sphere_ScGeom(), yade.Ig2_Box_Sphere_ScGeom()],
            [yade.Ip2_FrictMat_FrictMat_MindlinPhys(en=E_REST, es=E_REST)],
            [yade.Law2_ScGeom_MindlinPhys_Mindlin()]),
        yade.NewtonIntegrator(gravity=(0, 0, -9.81), damping=0.0),
    ]
    return n


def matched_kv():
    """k_V: F = k_V V with V ~ pi R delta^2 for a convex cap of curvature radius R pressed by delta;
    Hertz F = 4/3 E* sqrt(R) delta^3/2. Equal at the overlap delta_w of a grain's weight times the
    bed's depth in grains (6): k_V = 4 E* / (3 pi sqrt(R delta_w))."""
    es = E / (2.0 * (1.0 - NU * NU))
    R = SEMI[1]
    mass = RHO * 4.0 / 3.0 * math.pi * SEMI[0] * SEMI[1] * SEMI[2]
    fw = 6.0 * mass * 9.81
    dw = (3.0 * fw / (4.0 * es * math.sqrt(R))) ** (2.0 / 3.0)
    return 4.0 * es / (3.0 * math.pi * math.sqrt(R * dw))


def polyhedra_bed(args):
    kv = args.kv if args.kv > 0.0 else matched_kv()
    # two bodies' young in series: kn = young / 2 (measured: F_n = young / 2 V), ks = poisson kn
    mat = yade.PolyhedraMat(young=2.0 * kv, poisson=args.ks_ratio, density=RHO, frictionAngle=math.atan(MU))
    O.materials.append(mat)
    verts = read_obj(args.obj)
    n = 0
    for _id, pos, q in read_state(args.state):
        b = polyhedra_utils.polyhedra(mat, v=verts)
        # the body's vertices as in the file, turned by Talus's orientation (of the file's frame)
        # and moved to its centre: YADE keeps them in its principal frame, turned by state.ori
        b.state.ori = yade.Quaternion(q[0], q[1], q[2], q[3]) * b.state.ori
        b.state.pos = pos
        O.bodies.append(b)
        n += 1
    for c, h in tiles(args.cell):
        v = [(sx * h[0], sy * h[1], sz * h[2]) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
        t = polyhedra_utils.polyhedra(mat, v=v, fixed=True)
        t.state.pos = c
        O.bodies.append(t)
    O.engines = [
        yade.ForceResetter(),
        yade.InsertionSortCollider([yade.Bo1_Polyhedra_Aabb()], verletDist=0.2e-3),
        yade.InteractionLoop(
            [yade.Ig2_Polyhedra_Polyhedra_PolyhedraGeom()],
            [yade.Ip2_PolyhedraMat_PolyhedraMat_PolyhedraPhys()],
            [yade.Law2_PolyhedraGeom_PolyhedraPhys_Volumetric()]),
        # the damping acts on the contact forces alone (dampGravity=False): YADE's default damps
        # gravity too, and its grains then fall at 0.7 g (docs/bench.md)
        yade.NewtonIntegrator(gravity=(0, 0, -9.81), damping=args.damping, dampGravity=False),
    ]
    return n, kv


def levelset_bed(args):
    """The ellipsoids of bench/shapes/ellipsoids_216.yaml as level-set superellipsoids with both
    exponents 1 (the ellipsoid itself; docs/bench.md "YADE's closest ellipsoid"), at the places and
    attitudes of Talus's lattice (--state, written before any step), on a floor wall at z = 0, no
    periodic cell (YADE 2023.02a's level sets do not meet a wall in one), Hertz-Mindlin with the
    restitution e = 0.5 (en, es) on the level set's boundary nodes."""
    mat = yade.FrictMat(young=E, poisson=NU, density=RHO, frictionAngle=math.atan(MU))
    O.materials.append(mat)
    n = 0
    for _id, pos, q in read_state(args.state):
        b = utils.levelSetBody("superellipsoid", extents=SEMI, epsilons=(1, 1), spacing=args.spacing, material=mat)
        b.state.ori = yade.Quaternion(q[0], q[1], q[2], q[3]) * b.state.ori
        b.state.pos = pos
        O.bodies.append(b)
        n += 1
    O.bodies.append(utils.wall(0, axis=2, sense=1, material=mat))
    O.engines = [
        yade.ForceResetter(),
        yade.InsertionSortCollider([yade.Bo1_LevelSet_Aabb(), yade.Bo1_Wall_Aabb()], verletDist=0.2e-3),
        yade.InteractionLoop(
            [yade.Ig2_LevelSet_LevelSet_ScGeom(), yade.Ig2_Wall_LevelSet_ScGeom()],
            [yade.Ip2_FrictMat_FrictMat_MindlinPhys(en=E_REST, es=E_REST)],
            [yade.Law2_ScGeom_MindlinPhys_Mindlin()]),
        yade.NewtonIntegrator(gravity=(0, 0, -9.81), damping=0.0),
    ]
    return n


def write_state(path, n, ori0):
    """The grains 0..n-1 as talus bench --write-state writes a bed: the centroid wrapped into the
    periodic cell, the orientation of the OBJ file's frame (YADE's state.ori is that of the grain's
    principal frame, ori0 at the build)."""
    q0 = yade.Quaternion(ori0[0], ori0[1], ori0[2], ori0[3]).conjugate()
    cell = O.cell.size
    with open(path + ".part", "w") as f:
        f.write("id,x,y,z,qw,qx,qy,qz\n")
        for b in O.bodies:
            if b.id >= n:
                continue
            q = b.state.ori * q0
            p = b.state.pos
            x, y = p[0] % cell[0], p[1] % cell[1]
            f.write("%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n" % (b.id + 1, x, y, p[2], q[3], q[0], q[1], q[2]))
    os.replace(path + ".part", path)


def warm_steps(steps, every, n):
    """O.run(steps), with a line of kinetic energy and coordination on stderr every `every` steps."""
    if steps <= 0:
        return  # O.run(0) would run without end
    if every <= 0:
        O.run(steps, True)
        return
    done = 0
    while done < steps:
        k = min(every, steps - done)
        O.run(k, True)
        done += k
        pp, wall = counts(n)
        sys.stderr.write(json.dumps({"iter": O.iter, "ke": utils.kineticEnergy(), "Z": 2.0 * pp / n, "wall": wall}) + "\n")
        sys.stderr.flush()


def counts(n):
    pp = wall = 0
    for i in O.interactions:
        if not i.isReal:
            continue
        # a polyhedra interaction stays real while the bodies' boxes meet, and YADE's geometry marks
        # one whose polyhedra share no volume by equivalentPenetrationDepth = 0 (its
        # penetrationVolume then holds the smaller body's whole volume, a placeholder): only the
        # others are contacts
        if hasattr(i.geom, "equivalentPenetrationDepth") and not i.geom.equivalentPenetrationDepth > 0.0:
            continue
        if i.id1 >= n or i.id2 >= n:
            wall += 1
        else:
            pp += 1
    return pp, wall


def main():
    args = parse()
    # YADE's polyhedra intersection warns "Unhandled switch case" tens of thousands of times a
    # step on beds of touching grains (docs/bench.md); the messages are not the work timed
    log.setDefaultLogLevel(log.ERROR)
    extra = {}
    meta = args.warm_state + ".json" if args.warm_state else None
    if meta and not args.warm_state.endswith(".yade.gz"):
        raise SystemExit("yade_bench.py: --warm-state needs a name ending in .yade.gz (O.save's format), got %s"
                         % args.warm_state)
    if args.warmup_only and not meta:
        raise SystemExit("yade_bench.py: --warmup-only needs --warm-state FILE")
    if meta and args.warmup < 1:
        raise SystemExit("yade_bench.py: --warm-state needs --warmup 1 or more")
    if meta and os.path.exists(args.warm_state) and os.path.exists(meta):
        # the warm-up of an earlier run of this bed (bench/shapes.sh: one warm-up for both thread counts)
        m = json.load(open(meta))
        if m.get("bed") != args.bed or m.get("warmup") != args.warmup:
            raise SystemExit("yade_bench.py: --warm-state %s holds bed %s after %s warm-up steps, not %s after %d"
                             % (args.warm_state, m.get("bed"), m.get("warmup"), args.bed, args.warmup))
        O.load(args.warm_state)
        n, extra, warm_from = m["N"], m["extra"], "loaded"
    else:
        n, extra = build(args)
        O.dt = args.dt
        # with --warm-state the last warm-up step is made after the save, in both runs: a loaded
        # scene's first step builds the collider's lists anew (seconds on a big bed), untimed there
        warm_steps(args.warmup - 1 if meta else args.warmup, args.ke_every, n)
        warm_from = "stepped"
        if meta:
            part = args.warm_state[:-len(".yade.gz")] + ".part.yade.gz"  # O.save's format is its name's
            O.save(part)
            os.replace(part, args.warm_state)
            with open(meta + ".part", "w") as f:
                json.dump({"bed": args.bed, "warmup": args.warmup, "N": n, "extra": extra}, f)
            os.replace(meta + ".part", meta)
            warm_from = "saved"
    if args.warmup_only:
        print(json.dumps({"code": "yade-warmup", "bed": args.bed, "N": n, "warmup": args.warmup,
                          "warmup_state": warm_from, "threads": O.numThreads}))
        sys.stdout.flush()
        return
    if meta:
        O.run(1, True)
    ke_warm = utils.kineticEnergy()
    if args.write_state:
        if args.bed != "polyhedra":
            raise SystemExit("yade_bench.py: --write-state is for --bed polyhedra")
        write_state(args.write_state, n, extra["ori0"])
    pp_warm, wall_warm = counts(n)
    t0 = time.monotonic()
    O.run(args.steps, True)
    seconds = time.monotonic() - t0
    pp, wall = counts(n)
    out = {"code": "yade", "bed": args.bed, "N": n, "steps": args.steps, "warmup": args.warmup,
           "warmup_state": warm_from,
           "seconds": seconds, "contacts_pp": pp, "contacts_wall": wall, "Z": 2.0 * pp / n,
           "ke_warm": ke_warm, "Z_warm": 2.0 * pp_warm / n, "contacts_wall_warm": wall_warm, "ke_end": utils.kineticEnergy(), "threads": O.numThreads}
    out.update(extra)
    print(json.dumps(out))
    sys.stdout.flush()


def build(args):
    """The bed in O (its engines included); returns the grain count and the bed's extra fields."""
    extra = {}
    if args.bed != "levelset":
        O.periodic = True
        O.cell.setBox(args.cell, args.cell, 0.1)  # z: far above the bed, so nothing meets its image
    if args.bed == "levelset":
        if not args.state:
            raise SystemExit("yade_bench.py: --bed levelset needs --state FILE")
        n = levelset_bed(args)
        extra = {"spacing": args.spacing}
    elif args.bed == "spheres":
        if not args.data:
            raise SystemExit("yade_bench.py: --bed spheres needs --data FILE")
        n = sphere_bed(args)
    else:
        if not args.obj or not args.state:
            raise SystemExit("yade_bench.py: --bed polyhedra needs --obj FILE and --state FILE")
        n, kv = polyhedra_bed(args)
        q = polyhedra_utils.polyhedra(O.materials[0], v=read_obj(args.obj)).state.ori  # the principal frame's
        extra = {"vertices": len(read_obj(args.obj)), "k_V": kv, "ori0": [q[3], q[0], q[1], q[2]]}
    return n, extra


if __name__ == "__main__":  # yade -x runs it as __main__; yade_pair_cost.py imports it
    main()
