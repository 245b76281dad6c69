"""Python values to the library's definition structs, and back.

Every struct starts from the library's default constructor (tl_*_default), so
a caller gives only what differs; the library checks every value and its
messages name the parameter and its allowed range. Strings handed to C are
kept alive in a list `keep` for as long as the call needs them.
"""
import math

import numpy as np

from ._lib import TalusError, ffi, lib, text

INTEGRATORS = {"verlet": lib.TL_INTEGRATOR_VERLET, "leapfrog": lib.TL_INTEGRATOR_LEAPFROG,
               "predictor-corrector": lib.TL_INTEGRATOR_PREDICTOR_CORRECTOR}
COULOMB_TESTS = {"total": lib.TL_COULOMB_TOTAL, "spring": lib.TL_COULOMB_SPRING,
                 "spring-capped": lib.TL_COULOMB_SPRING_CAPPED, "lammps": lib.TL_COULOMB_LAMMPS,
                 "liggghts": lib.TL_COULOMB_LIGGGHTS}
CONTACT_POINTS = {"compliance": lib.TL_CONTACT_POINT_COMPLIANCE, "surface": lib.TL_CONTACT_POINT_SURFACE}
ENTRY_DISPLACEMENTS = {"in-contact": lib.TL_ENTRY_IN_CONTACT, "whole-step": lib.TL_ENTRY_WHOLE_STEP}
WALL_KINDS = {"plane": lib.TL_WALL_PLANE, "rectangle": lib.TL_WALL_RECTANGLE, "box": lib.TL_WALL_BOX,
              "mesh": lib.TL_WALL_MESH}
MOTIONS = {"translate": lib.TL_MOTION_TRANSLATE, "rotate": lib.TL_MOTION_ROTATE,
           "oscillate": lib.TL_MOTION_OSCILLATE, "rock": lib.TL_MOTION_ROCK}
BOX_FACES = {"xmin": lib.TL_BOX_XMIN, "xmax": lib.TL_BOX_XMAX, "ymin": lib.TL_BOX_YMIN,
             "ymax": lib.TL_BOX_YMAX, "zmin": lib.TL_BOX_ZMIN, "zmax": lib.TL_BOX_ZMAX}
SHAPE_KINDS = {"sphere": lib.TL_SHAPE_SPHERE, "ellipsoid": lib.TL_SHAPE_ELLIPSOID, "mesh": lib.TL_SHAPE_MESH}
MESH_SOURCES = {"file": lib.TL_MESH_FILE, "icosphere": lib.TL_MESH_ICOSPHERE,
                "ellipsoid": lib.TL_MESH_ELLIPSOID, "arrays": lib.TL_MESH_ARRAYS}
MESH_RADII = {"volume": lib.TL_MESH_RADIUS_VOLUME, "area": lib.TL_MESH_RADIUS_AREA}
MESH_DEPTHS = {"volume": lib.TL_MESH_DEPTH_VOLUME, "potential": lib.TL_MESH_DEPTH_POTENTIAL}
SLOTS = ("normal", "damping", "tangential", "history", "rolling", "twisting")


def name_of(table, value):
    for k, v in table.items():
        if v == value:
            return k
    return int(value)


def choice(table, value, what):
    if isinstance(value, str) and value in table:
        return table[value]
    raise ValueError("%s must be one of %s, got %r" % (what, ", ".join(table), value))


def cstr(value, keep):
    """A char* for value (None -> NULL), kept alive in keep."""
    if value is None:
        return ffi.NULL
    b = ffi.new("char[]", str(value).encode("utf-8"))
    keep.append(b)
    return b


def vec3(value, what):
    try:
        x, y, z = (float(c) for c in value)
    except (TypeError, ValueError):
        raise ValueError("%s must be three numbers [x, y, z], got %r" % (what, value)) from None
    return {"x": x, "y": y, "z": z}


def quat(value, what):
    try:
        w, x, y, z = (float(c) for c in value)
    except (TypeError, ValueError):
        raise ValueError("%s must be four numbers [w, x, y, z], got %r" % (what, value)) from None
    return {"w": w, "x": x, "y": y, "z": z}


def tup3(v):
    return (v.x, v.y, v.z)


def _numbers(value, what, want):
    """value as a float64 NumPy array; refused unless it holds real numbers."""
    try:
        a = np.asarray(value)
        if a.dtype.kind not in "iuf":
            raise TypeError("of %s" % ("booleans" if a.dtype.kind == "b" else "type %s" % a.dtype))
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError("%s must be %s of numbers, got %s" % (what, want, e)) from None


def rows(value, cols, what, n=None):
    """value as a contiguous (n, cols) float64 array. Any other shape is refused
    (ValueError naming `what`): rows are never made by reshaping."""
    shape = "(%s, %d)" % ("n" if n is None else n, cols)
    a = _numbers(value, what, "an array %s" % shape)
    if a.ndim == 1 and a.size == 0:
        a = a.reshape(0, cols)
    if a.ndim != 2 or a.shape[1] != cols or (n is not None and a.shape[0] != n):
        raise ValueError("%s must be an array of shape %s, got shape %s" % (what, shape, a.shape))
    return np.ascontiguousarray(a)


def per_row(value, n, what):
    """A number, or an (n,) array of them, as an (n,) float64 array."""
    a = _numbers(value, what, "a number or an array (%d,)" % n)
    if a.ndim == 0:
        return np.full(n, float(a))
    if a.shape != (n,):
        raise ValueError("%s must be a number or an array of shape (%d,), got shape %s" % (what, n, a.shape))
    return a


def index_rows(value, what, vertices):
    """Triangles as a contiguous (m, 3) uint32 array of vertex indices: whole
    numbers from 0 to 2^32 - 1 (never wrapped), any other shape refused."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as e:
        raise ValueError("%s must be an array (m, 3) of vertex indices: %s" % (what, e)) from None
    if a.ndim == 1 and a.size == 0:
        a = a.reshape(0, 3)
    if a.dtype.kind not in "iuf" or a.ndim != 2 or a.shape[1] != 3:
        raise ValueError("%s must be an array (m, 3) of vertex indices, got %s of shape %s"
                         % (what, a.dtype, a.shape))
    if a.size:
        bad = ~np.isfinite(a) | (a != np.floor(a)) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
        bad |= (a < 0) | (a > 0xFFFFFFFF)
        if bad.any():
            r, c = (int(i) for i in np.argwhere(bad)[0])
            raise ValueError("%s[%d, %d] = %r: vertex indices are whole numbers from 0 to %d (the %d vertices; "
                             "at most 2^32 - 1)" % (what, r, c, a[r, c].item(), vertices - 1, vertices))
    return np.ascontiguousarray(a, dtype=np.uint32)


def set_fields(struct, values, fields, what):
    """Sets struct.<name> = convert(value) for the given keyword values."""
    for key, value in values.items():
        if key not in fields:
            raise TypeError("%s: unknown parameter %r (allowed: %s)" % (what, key, ", ".join(sorted(fields))))
        conv = fields[key]
        setattr(struct, key, conv(value, "%s.%s" % (what, key)) if conv else value)


def _float(v, what):
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number, got %r" % (what, v)) from None


def _int(v, what):
    if isinstance(v, bool) or int(v) != v:
        raise ValueError("%s must be an integer, got %r" % (what, v))
    return int(v)


def _bool(v, what):
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError("%s must be True or False, got %r" % (what, v))
    return bool(v)


# ---- world ----

WORLD_FIELDS = {"gravity": vec3, "dt": _float, "steps_per_contact": _float, "impact_speed": _float,
                "allow_unresolved_contacts": _bool, "allow_initial_overlaps": _bool,
                "blowup_every": _int, "blowup_overlap": _float, "blowup_energy": _float, "contact_boundary_correction": _bool, "skin": _float,
                "threads": _int, "track_energy": _bool, "track_orientation": _bool, "reorder_every": _int,
                "seed": _int}


def world_def(kw):
    d = ffi.new("tl_world_def *", lib.tl_world_default())
    kw = dict(kw)
    if "integrator" in kw:
        d.integrator = choice(INTEGRATORS, kw.pop("integrator"), "integrator")
    if "domain" in kw:
        dom = kw.pop("domain")
        if dom is not None:
            lo, hi = dom
            d.has_domain = True
            d.domain_min = vec3(lo, "domain min")
            d.domain_max = vec3(hi, "domain max")
    if "periodic" in kw:
        per = kw.pop("periodic") or ()
        axes = {"x": 0, "y": 1, "z": 2}
        for a in per:
            if a not in axes:
                raise ValueError("periodic axes are 'x', 'y', 'z', got %r" % (a,))
            d.periodic[axes[a]] = True
    set_fields(d, kw, WORLD_FIELDS, "World")
    return d


# ---- materials and laws ----

MATERIAL_FIELDS = {"density": _float, "youngs_modulus": _float, "poisson_ratio": _float, "k_n": _float,
                   "k_t": _float, "yield_stress": _float}


def material_def(name, kw, keep, struct=None):
    d = struct if struct is not None else ffi.new("tl_material_def *", lib.tl_material_default())
    d.name = cstr(name, keep)
    set_fields(d, kw, MATERIAL_FIELDS, "material %r" % (name,))
    return d


def material_dict(d):
    return {"name": text(d.name), "density": d.density, "youngs_modulus": d.youngs_modulus,
            "poisson_ratio": d.poisson_ratio, "k_n": d.k_n, "k_t": d.k_t, "yield_stress": d.yield_stress}


def law_def(kw, keep, struct=None):
    """A tl_law_def from keywords: the slots (normal, damping, tangential,
    history, rolling, twisting; history also True/False), clamp_tensile, coulomb_test,
    contact_point, entry_displacement, and any coefficient by its name (e=0.5, mu=0.4, ...)."""
    law = ffi.addressof(struct) if struct is not None else ffi.new("tl_law_def *", lib.tl_law_default())
    for key, value in kw.items():
        if key in SLOTS:
            if key == "history" and isinstance(value, bool):
                value = "true" if value else "none"
            setattr(law, key, cstr(value, keep))
        elif key == "clamp_tensile":
            law.clamp_tensile = _bool(value, key)
        elif key == "coulomb_test":
            law.coulomb_test = choice(COULOMB_TESTS, value, key)
        elif key == "contact_point":
            law.contact_point = choice(CONTACT_POINTS, value, key)
        elif key == "entry_displacement":
            law.entry_displacement = choice(ENTRY_DISPLACEMENTS, value, key)
        else:
            if lib.tl_law_set(law, cstr(key, keep), _float(value, key)) != lib.TL_OK:
                raise TalusError("a law takes at most %d coefficients" % lib.TL_LAW_MAX_COEFFS,
                                 "TL_ERROR_ARGUMENT")
    return law


def law_dict(law):
    return {"normal": text(law.normal), "damping": text(law.damping), "tangential": text(law.tangential),
            "history": text(law.history), "rolling": text(law.rolling) or "none",
            "twisting": text(law.twisting) or "none",
            "clamp_tensile": bool(law.clamp_tensile),
            "coulomb_test": name_of(COULOMB_TESTS, law.coulomb_test),
            "contact_point": name_of(CONTACT_POINTS, law.contact_point),
            "entry_displacement": name_of(ENTRY_DISPLACEMENTS, law.entry_displacement),
            "coefficients": {text(law.coeffs[i].name): law.coeffs[i].value for i in range(law.coeff_count)}}


# ---- walls ----

def motion_def(motion, struct):
    """Fills a tl_motion_def from a dict: kind ('rotate', 'oscillate', 'rock',
    'translate'), axis, pivot, angular_speed, amplitude, period, phase."""
    m = dict(motion)
    struct.kind = choice(MOTIONS, m.pop("kind", "translate"), "motion kind")
    set_fields(struct, m, {"axis": vec3, "pivot": vec3, "angular_speed": _float, "amplitude": _float,
                           "period": _float, "phase": _float}, "motion")


WALL_FIELDS = {"point": vec3, "normal": vec3, "axis": vec3, "half_length": _float, "half_width": _float,
               "box_min": vec3, "box_max": vec3, "velocity": vec3, "mesh_scale": _float,
               "mesh_origin": vec3, "mesh_orientation": quat}


def wall_def(kind, material, kw, keep):
    d = ffi.new("tl_wall_def *", lib.tl_wall_default())
    d.kind = choice(WALL_KINDS, kind, "wall kind")
    d.material = material
    kw = dict(kw)
    d.name = cstr(kw.pop("name", None), keep)
    if "open_faces" in kw:
        bits = 0
        for face in kw.pop("open_faces"):
            bits |= choice(BOX_FACES, face, "open face")
        d.open_faces = bits
    if "motion" in kw:
        motion = kw.pop("motion")
        if motion is not None:
            motion_def(motion, d.motion)
    if "mesh_file" in kw:
        d.mesh_file = cstr(kw.pop("mesh_file"), keep)
    if "mesh_vertices" in kw or "mesh_triangles" in kw:
        xyz = rows(kw.pop("mesh_vertices", ()), 3, "mesh_vertices")
        tri = index_rows(kw.pop("mesh_triangles", ()), "mesh_triangles", len(xyz))
        keep += [xyz, tri]
        d.mesh_xyz = ffi.cast("const double *", ffi.from_buffer(xyz))
        d.mesh_vertex_count = len(xyz)
        d.mesh_triangles = ffi.cast("const uint32_t *", ffi.from_buffer(tri))
        d.mesh_triangle_count = len(tri)
    set_fields(d, kw, WALL_FIELDS, "wall")
    return d


def wall_dict(s):
    return {"index": s.index, "name": text(s.name), "kind": name_of(WALL_KINDS, s.kind),
            "material": s.material, "displacement": tup3(s.displacement), "velocity": tup3(s.velocity),
            "angular_velocity": tup3(s.angular_velocity), "angle": s.angle, "force": tup3(s.force),
            "torque": tup3(s.torque), "area": s.area, "servo": bool(s.servo),
            "servo_chatter": s.servo_chatter}


# ---- shapes ----

def shape_def(kind, kw, keep):
    d = ffi.new("tl_shape_def *", lib.tl_shape_default())
    d.kind = choice(SHAPE_KINDS, kind, "shape kind")
    kw = dict(kw)
    d.name = cstr(kw.pop("name", None), keep)
    if "source" in kw:
        d.source = choice(MESH_SOURCES, kw.pop("source"), "mesh source")
    if "mesh_radius" in kw:
        d.mesh_radius = choice(MESH_RADII, kw.pop("mesh_radius"), "mesh_radius")
    if "mesh_depth" in kw:
        d.mesh_depth = choice(MESH_DEPTHS, kw.pop("mesh_depth"), "mesh_depth")
    if "file" in kw:
        d.file = cstr(kw.pop("file"), keep)
        d.source = lib.TL_MESH_FILE
    if "vertex_xyz" in kw or "triangles" in kw:
        xyz = rows(kw.pop("vertex_xyz", ()), 3, "vertex_xyz")
        tri = index_rows(kw.pop("triangles", ()), "triangles", len(xyz))
        keep += [xyz, tri]
        d.source = lib.TL_MESH_ARRAYS
        d.vertex_xyz = ffi.cast("const double *", ffi.from_buffer(xyz))
        d.vertex_count = len(xyz)
        d.triangles = ffi.cast("const uint32_t *", ffi.from_buffer(tri))
        d.triangle_count = len(tri)
    set_fields(d, kw, {"semi_axes": vec3, "scale": _float, "radius": _float, "subdivisions": _int,
                       "vertices": _int}, "shape")
    return d


# ---- particles ----

PARTICLE_FIELDS = {"id": _int, "shape": _int, "radius": _float, "position": vec3, "velocity": vec3,
                   "angular_velocity": vec3, "orientation": quat, "mass": _float}
FLAGS = {"fixed": lib.TL_PARTICLE_FIXED, "prescribed": lib.TL_PARTICLE_PRESCRIBED,
         "lock_rotation": lib.TL_PARTICLE_LOCK_ROTATION}


def particle_def(material, kw):
    d = ffi.new("tl_particle_def *", lib.tl_particle_default())
    d.material = material
    kw = dict(kw)
    flags = 0
    for name, bit in FLAGS.items():
        if _bool(kw.pop(name, False), name):
            flags |= bit
    d.flags = flags
    set_fields(d, kw, PARTICLE_FIELDS, "particle")
    q = d.orientation
    if "orientation" in kw and q.w == 0.0 and q.x == 0.0 and q.y == 0.0 and q.z == 0.0:
        raise ValueError("particle.orientation must not be zero: a quaternion [w, x, y, z] "
                         "(normalised; [1, 0, 0, 0] = not turned), got %r" % (kw["orientation"],))
    return d


def particle_dict(s):
    return {"id": s.id, "material": s.material, "flags": s.flags, "shape": s.shape, "radius": s.radius,
            "mass": s.mass, "inertia": s.inertia, "principal_inertia": tup3(s.principal_inertia),
            "position": tup3(s.position), "velocity": tup3(s.velocity),
            "angular_velocity": tup3(s.angular_velocity), "angular_momentum": tup3(s.angular_momentum),
            "orientation": (s.orientation.w, s.orientation.x, s.orientation.y, s.orientation.z),
            "body_orientation": (s.body_orientation.w, s.body_orientation.x, s.body_orientation.y,
                                 s.body_orientation.z),
            "force": tup3(s.force), "torque": tup3(s.torque)}


def finite_or_inf(v):
    return math.inf if v is None else float(v)
