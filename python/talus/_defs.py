"""Python values to the library's definition structs, and back.

Every struct starts from the library's default constructor (tl_*_default), so
a caller gives only what differs; the library checks every value and its
messages name the parameter and its allowed range. Strings handed to C are
kept alive in a list `keep` for as long as the call needs them.

The keywords are the scene format's keys (docs/scene.md), taken from the
library's own tables (tl_scene_names: the loader's lists of keys and choices)
and its slot names (tl_slot_name), with the scene's defaults; an unknown
keyword is refused with every accepted name and the library's did-you-mean
(tl_suggest_name). The few names of before that differ from the scene's stay
taken for one release as old names (WALL_OLD_NAMES, SHAPE_OLD_KEYS,
OLD_BOX_FACES, the old motion and servo forms).
"""
import math
import re

import numpy as np

from ._lib import TalusError, ffi, lib, text


def scene_names(table):
    """The scene format's names for `table` (tl_scene_names): the keys of one of
    its mappings, or the values of one of its choices, in the loader's order."""
    out = ffi.new("const char *const **")
    n = lib.tl_scene_names(table.encode(), out)
    if n == 0:
        raise RuntimeError("the library has no table of scene names %r" % table)
    return tuple(text(out[0][i]) for i in range(n))


def _enum_table(table, first=0):
    """{name: value} of a choice whose names follow its enum's order."""
    return {name: first + i for i, name in enumerate(scene_names(table))}


INTEGRATORS = _enum_table("integrator.scheme")
COULOMB_TESTS = _enum_table("law.coulomb_test")
CONTACT_POINTS = _enum_table("law.contact_point")
ENTRY_DISPLACEMENTS = _enum_table("law.entry_displacement")
WALL_KINDS = _enum_table("wall.type")
MOTIONS = _enum_table("wall.motion", lib.TL_MOTION_ROTATE)
BOX_FACES = {name: 1 << i for i, name in enumerate(scene_names("wall.open"))}
# the names of the box faces before the scene's (open_faces=["zmax"]), still taken
OLD_BOX_FACES = {"xmin": lib.TL_BOX_XMIN, "xmax": lib.TL_BOX_XMAX, "ymin": lib.TL_BOX_YMIN,
                 "ymax": lib.TL_BOX_YMAX, "zmin": lib.TL_BOX_ZMIN, "zmax": lib.TL_BOX_ZMAX}
SHAPE_KINDS = _enum_table("shape.kind")
MESH_SOURCES = {"file": lib.TL_MESH_FILE, "icosphere": lib.TL_MESH_ICOSPHERE,
                "ellipsoid": lib.TL_MESH_ELLIPSOID, "arrays": lib.TL_MESH_ARRAYS}
MESH_RADII = _enum_table("shape.contact_radius")
MESH_DEPTHS = _enum_table("shape.contact_depth")
SLOTS = tuple(text(lib.tl_slot_name(s)) for s in range(lib.TL_SLOT_COUNT))
UNITS = dict(zip(scene_names("shape.units"), (1.0, 1e-2, 1e-3, 1e-6)))


def suggest(name, candidates):
    """The candidate closest to name, as the library's messages suggest it (or None)."""
    bufs = [ffi.new("char[]", str(c).encode()) for c in candidates]
    arr = ffi.new("const char *[]", bufs) if bufs else ffi.NULL
    r = lib.tl_suggest_name(str(name).encode(), arr, len(bufs))
    return None if r == ffi.NULL else text(r)


def unknown(what, key, allowed, old=(), extra=""):
    """TypeError for an unknown keyword: every accepted name, and the closest one."""
    sug = suggest(key, list(allowed) + list(old))
    raise TypeError("%s: unknown parameter %r%s (allowed: %s%s)%s"
                    % (what, key, "; did you mean %r?" % sug if sug else "", ", ".join(allowed),
                       "; old names, still taken: " + ", ".join(old) if old else "", extra))


def check_keys(what, values, allowed, old=(), extra=""):
    for key in values:
        if key not in allowed and key not in old:
            unknown(what, key, allowed, old, extra)


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


def set_fields(struct, values, fields, what, old=()):
    """Sets struct.<name> = convert(value) for the given keyword values."""
    for key, value in values.items():
        if key not in fields:
            unknown(what, key, list(fields), old)
        conv = fields[key]
        setattr(struct, key, conv(value, "%s.%s" % (what, key)) if conv else value)


def _float(v, what):
    if isinstance(v, bool):
        raise ValueError("%s must be a number, got %r" % (what, v))
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number, got %r" % (what, v)) from None


def _int(v, what):
    try:
        ok = not isinstance(v, bool) and int(v) == v
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ValueError("%s must be an integer, got %r" % (what, v))
    return int(v)


def _bool(v, what):
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError("%s must be True or False, got %r" % (what, v))
    return bool(v)


def _mapping(v, what, keys):
    """A dict whose keys are among `keys` (a scene mapping given as a dict)."""
    if not isinstance(v, dict):
        raise ValueError("%s must be a dict with the keys %s, got %r" % (what, ", ".join(keys), v))
    check_keys(what, v, keys)
    return v


# ---- world ----

def _dt(v, what):
    if isinstance(v, str) and v == "auto":
        return 0.0
    try:
        return _float(v, what)
    except ValueError:
        raise ValueError("%s must be a number > 0 (s) or 'auto', got %r" % (what, v)) from None


def _seed(v, what):
    v = _int(v, what)
    if not 0 <= v < 2 ** 64:
        raise ValueError("%s must be an integer 0 ... 2^64 - 1, got %d" % (what, v))
    return v


def _periodic(v, what):
    axes = scene_names("domain.periodic")
    names = [v] if isinstance(v, str) and v in axes else list(v or ())
    out = []
    for a in names:
        if a not in axes:
            raise ValueError("%s: the axes are %s (a list, a string such as 'xy', or one name), got %r"
                             % (what, ", ".join(axes), v))
        if a in out:
            raise ValueError("%s: axis %s is listed twice" % (what, a))
        out.append(a)
    return out


# the World keywords: the scene's top-level keys that set the world, and the keys of
# its integrator and neighbor mappings by their own names (the blowup mapping's with
# blowup_ before them); each with the tl_world_def field it sets and its converter
_WORLD_TOP = {"gravity": ("gravity", vec3), "seed": ("seed", _seed), "threads": ("threads", _int),
              "track_energy": ("track_energy", _bool), "track_orientation": ("track_orientation", _bool),
              "allow_initial_overlaps": ("allow_initial_overlaps", _bool)}
_WORLD_NESTED = {"integrator": {"scheme": ("integrator", lambda v, w: choice(INTEGRATORS, v, w)),
                                "dt": ("dt", _dt), "steps_per_contact": ("steps_per_contact", _float),
                                "impact_speed": ("impact_speed", _float),
                                "allow_unresolved_contacts": ("allow_unresolved_contacts", _bool),
                                "contact_boundary_correction": ("contact_boundary_correction", _bool)},
                 "neighbor": {"skin": ("skin", _float), "reorder_every": ("reorder_every", _int),
                              "domain_size": ("domain_size", _int)},
                 "blowup": {"every": ("blowup_every", _int), "overlap": ("blowup_overlap", _float),
                            "energy": ("blowup_energy", _float)}}


def _world_keywords():
    """{keyword: (scene key, field, converter)} in the scene's order."""
    out = {}
    for top in scene_names("top"):
        if top in _WORLD_TOP:
            field, conv = _WORLD_TOP[top]
            out[top] = (top, field, conv)
        elif top in _WORLD_NESTED:
            if top == "integrator":
                out["integrator"] = ("integrator.scheme", "integrator", _WORLD_NESTED[top]["scheme"][1])
            for key in scene_names(top):
                if top == "integrator" and key == "scheme":
                    continue
                field, conv = _WORLD_NESTED[top][key]
                name = "blowup_" + key if top == "blowup" else key
                out[name] = ("%s.%s" % (top, key), field, conv)
            if top != "integrator":
                out[top] = (top, None, None)
        elif top == "domain":
            out["domain"] = ("domain", None, None)
            out["periodic"] = ("domain.periodic", None, None)
    return out


WORLD_KEYWORDS = _world_keywords()


def world_def(kw):
    """A tl_world_def from World's keywords: flat (dt=..., skin=..., blowup_every=...) or the
    scene's mappings (integrator={...}, neighbor={...}, blowup={...}, domain={...})."""
    d = ffi.new("tl_world_def *", lib.tl_world_default())
    check_keys("World", kw, list(WORLD_KEYWORDS))
    flat = {}
    for key, value in kw.items():
        if key in _WORLD_NESTED and (key != "integrator" or isinstance(value, dict)):
            table = _WORLD_NESTED[key]
            for k, v in _mapping(value, "World %s" % key, list(scene_names(key))).items():
                name = "blowup_" + k if key == "blowup" else (k if k != "scheme" else "integrator")
                if name in kw and name != key:
                    raise TypeError("World: %s given twice (%s and %s[%r])" % (name, name, key, k))
                flat[name] = (table[k], "%s[%r]" % (key, k), v)
        elif key == "domain":
            if value is None:
                continue
            if isinstance(value, dict):
                m = _mapping(value, "World domain", list(scene_names("domain")))
                if "min" not in m or "max" not in m:
                    raise ValueError("domain needs min and max (m), got %r" % (value,))
                lo, hi = m["min"], m["max"]
                if "periodic" in m:
                    if "periodic" in kw:
                        raise TypeError("World: periodic given twice (periodic and domain['periodic'])")
                    flat["periodic"] = (None, "domain['periodic']", m["periodic"])
            else:
                try:
                    lo, hi = value
                except (TypeError, ValueError):
                    raise ValueError("domain must be {'min': [x, y, z], 'max': [x, y, z]} or (min, max), got %r"
                                     % (value,)) from None
            d.has_domain = True
            d.domain_min = vec3(lo, "domain min")
            d.domain_max = vec3(hi, "domain max")
        elif key == "periodic":
            flat["periodic"] = (None, "periodic", value)
        else:
            _, field, conv = WORLD_KEYWORDS[key]
            flat[key] = ((field, conv), key, value)
    for name, (target, what, value) in flat.items():
        if name == "periodic":
            for a in _periodic(value, what):
                d.periodic["xyz".index(a)] = True
            continue
        field, conv = target
        setattr(d, field, conv(value, what))
    return d


def python_message(msg):
    """A library message about a world made from Python, with the World keywords where
    it names scene keys ('set allow_initial_overlaps: true', 'integrator.dt')."""
    msg = re.sub(r"\bset (\w+): true\b", r"pass \1=True to talus.World", msg)
    msg = re.sub(r"\((\w+): true accepts it\)", r"(talus.World(\1=True) accepts it)", msg)
    return re.sub(r"\bintegrator\.(\w+)", r"\1", msg)


# ---- materials and laws ----

MATERIAL_KEYS = scene_names("material")
MATERIAL_FIELDS = dict.fromkeys(MATERIAL_KEYS, _float)


def material_def(name, kw, keep, struct=None):
    d = struct if struct is not None else ffi.new("tl_material_def *", lib.tl_material_default())
    d.name = cstr(name, keep)
    set_fields(d, kw, MATERIAL_FIELDS, "material %r" % (name,))
    return d


def material_dict(d):
    return {"name": text(d.name), "density": d.density, "youngs_modulus": d.youngs_modulus,
            "poisson_ratio": d.poisson_ratio, "k_n": d.k_n, "k_t": d.k_t, "yield_stress": d.yield_stress}


# the keys of a law besides its coefficients: the scene's, without `between`
LAW_OPTIONS = tuple(k for k in scene_names("law") if k != "between")
_HISTORY_ALIASES = {"True": "true", "yes": "true", "false": "none", "False": "none", "no": "none"}


def law_models(kw):
    """The sub-model of each slot a law's keywords choose, with the slots' defaults (the library's
    table of slots, tl_law_model: none, and history true with a tangential model, else none).
    `normal`, which a scene requires, is hertz when not given, and a law that names neither
    normal nor damping is hertz + tsuji (the restitution e)."""
    m = {}
    for slot in SLOTS:
        v = kw.get(slot)
        if slot == "history" and isinstance(v, (bool, np.bool_)):
            v = "true" if v else "none"
        if slot == "history" and isinstance(v, str):
            v = _HISTORY_ALIASES.get(v, v)
        if v is not None and not isinstance(v, str):
            raise ValueError("%s must be a model name (talus.models()), got %r" % (slot, v))
        m[slot] = v
    if m["normal"] is None:
        m["normal"] = "hertz"
        if m["damping"] is None:
            m["damping"] = "tsuji"
    law = ffi.new("tl_law_def *")  # the given models by their slot's member (named by its key)
    keep = [ffi.new("char[]", m[slot].encode()) if m[slot] is not None else ffi.NULL for slot in SLOTS]
    for k, slot in enumerate(SLOTS):
        setattr(law, slot, keep[k])
    for k, slot in enumerate(SLOTS):
        if m[slot] is None:
            m[slot] = text(lib.tl_law_model(law, k))
    return m


def law_coefficients(models):
    """The coefficient names the chosen sub-models take (None when a name is not in the registry)."""
    out = []
    for k, slot in enumerate(SLOTS):
        info = lib.tl_registry_find(k, models[slot].encode())
        if info == ffi.NULL:
            return None
        for i in range(info.coeff_count):
            name = text(info.coeffs[i].name)
            if name not in out:
                out.append(name)
    return out


def _tangential_coefficients():
    out = set()
    for i in range(lib.tl_registry_count()):
        info = lib.tl_registry_get(i)
        if info.slot == lib.TL_SLOT_TANGENTIAL:
            out.update(text(info.coeffs[j].name) for j in range(info.coeff_count))
    return out


def law_def(kw, keep, struct=None, what="set_law"):
    """A tl_law_def from keywords, with the meaning a scene's law entry has (docs/scene.md,
    laws): the slots (normal, damping, tangential, history, rolling, twisting; history also
    True/False), the options clamp_tensile, coulomb_test, contact_point,
    entry_displacement, and the coefficients of the chosen sub-models by name (e=0.5, ...).
    Slots not given take the scene's defaults (law_models)."""
    law = ffi.addressof(struct) if struct is not None else ffi.new("tl_law_def *", lib.tl_law_default())
    models = law_models(kw)
    coeffs = law_coefficients(models)
    for key in kw:
        if key in LAW_OPTIONS or coeffs is None or key in coeffs:
            continue
        chosen = " + ".join(models[s] for s in SLOTS[:4])
        for s in SLOTS[4:]:
            if models[s] != "none":
                chosen += " + %s %s" % (s, models[s])
        extra = "; %s take%s" % (chosen, " the coefficients " + ", ".join(coeffs) if coeffs else " no coefficients")
        if key in _tangential_coefficients() and "tangential" not in kw:
            extra += ("; a law without tangential is frictionless, as in a scene: give tangential='mindlin' "
                      "(or another tangential model) for %s" % key)
        unknown(what, key, list(LAW_OPTIONS) + coeffs, extra=extra)
    for slot in SLOTS:
        setattr(law, slot, cstr(models[slot], keep))
    for key, value in kw.items():
        if key in SLOTS:
            continue
        if key == "clamp_tensile":
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


def collide_law(law):
    """The law of `collide`, as ``talus collide`` takes it: without any slot named,
    hertz + tsuji + mindlin (true history) with e = 0.9 and mu = 0.3 unless given; with a
    slot named, the slots not named as in `law_def`."""
    law = dict(law or {})
    if not any(slot in law for slot in SLOTS):
        law = dict({"normal": "hertz", "damping": "tsuji", "tangential": "mindlin", "e": 0.9, "mu": 0.3}, **law)
    return law


def law_dict(law):
    return {**{slot: text(getattr(law, slot)) or "none" for slot in SLOTS},
            "clamp_tensile": bool(law.clamp_tensile),
            "coulomb_test": name_of(COULOMB_TESTS, law.coulomb_test),
            "contact_point": name_of(CONTACT_POINTS, law.contact_point),
            "entry_displacement": name_of(ENTRY_DISPLACEMENTS, law.entry_displacement),
            "coefficients": {text(law.coeffs[i].name): law.coeffs[i].value for i in range(law.coeff_count)}}


# ---- walls ----

_OLD_MOTION_KEYS = ("kind", "axis", "pivot", "angular_speed", "amplitude", "period", "phase")


def _angle(m, rad_key, deg_key, what, required):
    if rad_key in m and deg_key in m:
        raise ValueError("%s: give either %s (rad) or %s, not both" % (what, rad_key, deg_key))
    if deg_key in m:
        return _float(m[deg_key], "%s.%s" % (what, deg_key)) * math.pi / 180.0   # as the scene loader
    if rad_key in m:
        return _float(m[rad_key], "%s.%s" % (what, rad_key))
    if required:
        raise ValueError("%s needs %s (rad) or %s" % (what, rad_key, deg_key))
    return 0.0


def _need(m, key, what):
    if key not in m:
        raise ValueError("%s needs %s" % (what, key))
    return m[key]


def motion_def(motion, struct, what="motion"):
    """Fills a tl_motion_def from the scene's mapping: {'rotate': {'axis', 'point', 'speed'
    (rad/s) or 'rpm'}}, {'oscillate': {'axis', 'amplitude' (m), 'period' (s), 'phase' or
    'phase_deg'}} or {'rock': {'axis', 'point', 'amplitude' (rad) or 'amplitude_deg',
    'period', 'phase' or 'phase_deg'}}; also the old form {'kind': 'rotate', 'axis', 'pivot',
    'angular_speed', 'amplitude', 'period', 'phase'}."""
    kinds = scene_names("wall.motion")
    if isinstance(motion, dict) and "kind" in motion:     # the old form
        m = dict(motion)
        struct.kind = choice(MOTIONS, m.pop("kind"), "%s kind" % what)
        set_fields(struct, m, {"axis": vec3, "pivot": vec3, "angular_speed": _float, "amplitude": _float,
                               "period": _float, "phase": _float}, what)
        return
    if not isinstance(motion, dict) or len(motion) != 1 or next(iter(motion)) not in kinds:
        if isinstance(motion, dict) and len(motion) == 1:
            key = next(iter(motion))
            sug = suggest(key, kinds)
            raise ValueError("%s: unknown motion %r%s (one of: %s)"
                             % (what, key, "; did you mean %r?" % sug if sug else "", ", ".join(kinds)))
        raise ValueError("%s must be {'rotate': {'axis', 'point', 'speed'}}, {'oscillate': {'axis', "
                         "'amplitude', 'period'}} or {'rock': {'axis', 'point', 'amplitude_deg', 'period'}}, "
                         "got %r" % (what, motion))
    kind, m = next(iter(motion.items()))
    where = "%s[%r]" % (what, kind)
    _mapping(m, where, list(scene_names("wall.motion." + kind)))
    struct.kind = MOTIONS[kind]
    struct.axis = vec3(_need(m, "axis", where), where + ".axis")
    if kind in ("rotate", "rock"):
        struct.pivot = vec3(_need(m, "point", where), where + ".point")
    if kind == "rotate":
        if ("speed" in m) == ("rpm" in m):
            raise ValueError("%s: give the angular speed as speed (rad/s) or rpm, once" % where)
        struct.angular_speed = (_float(m["speed"], where + ".speed") if "speed" in m
                                else _float(m["rpm"], where + ".rpm") * 2.0 * math.pi / 60.0)
        return
    if kind == "oscillate":
        struct.amplitude = _float(_need(m, "amplitude", where), where + ".amplitude")
    else:
        struct.amplitude = _angle(m, "amplitude", "amplitude_deg", where, True)
    struct.period = _float(_need(m, "period", where), where + ".period")
    struct.phase = _angle(m, "phase", "phase_deg", where, False)


def servo_mapping(servo, what="servo"):
    """The scene's servo mapping checked: {'direction', 'stress' (Pa) or 'force' (N), 'gain'
    (m/s per N), 'max_speed' (m/s)}; None or 'off' switches it off (returns None)."""
    if servo is None or (isinstance(servo, str) and servo == "off"):
        return None
    _mapping(servo, what, list(scene_names("wall.servo")))
    for key in ("direction", "gain", "max_speed"):
        _need(servo, key, what)
    if ("stress" in servo) == ("force" in servo):
        raise ValueError("%s: give either stress (Pa) or force (N), %s" % (what, "not both" if "stress" in servo
                                                                            else "one of them"))
    return servo


def servo_def(servo, area, wall_label):
    """A tl_servo_def from a checked servo mapping; a stress needs the wall's area."""
    s = ffi.new("tl_servo_def *")
    if servo is None:
        return s
    s.enabled = True
    s.direction = vec3(servo["direction"], "servo direction")
    s.gain = _float(servo["gain"], "servo gain")
    s.max_speed = _float(servo["max_speed"], "servo max_speed")
    if "force" in servo:
        s.target_force = _float(servo["force"], "servo force")
    else:
        stress = _float(servo["stress"], "servo stress")
        if not (area > 0.0 and math.isfinite(area)):
            raise ValueError("servo of wall %s: a stress needs a wall with a finite area (a rectangle); give "
                             "force (N) for this wall" % wall_label)
        if not stress >= 0.0:
            raise ValueError("servo of wall %s: stress must be >= 0 Pa, got %r" % (wall_label, stress))
        s.target_force = stress * area
    return s


def _faces(value, what):
    names = [value] if isinstance(value, str) else list(value)
    bits = 0
    for face in names:
        if face in BOX_FACES:
            bits |= BOX_FACES[face]
        elif face in OLD_BOX_FACES:
            bits |= OLD_BOX_FACES[face]
        else:
            raise ValueError("%s: the faces are %s (old names: %s), got %r"
                             % (what, " ".join(BOX_FACES), " ".join(OLD_BOX_FACES), face))
    return bits


# the old names of wall keywords, still taken for one release: {old: scene key}
WALL_OLD_NAMES = {"rectangle": {"point": "center"},
                  "box": {"box_min": "min", "box_max": "max", "open_faces": "open"},
                  "mesh": {"mesh_file": "file", "mesh_scale": "scale", "mesh_origin": "origin",
                           "mesh_orientation": "orientation"}}
# keywords of Python alone: a mesh wall from arrays
WALL_PYTHON_KEYS = {"mesh": ("mesh_vertices", "mesh_triangles")}
_WALL_FIELDS = {"point": ("point", vec3), "center": ("point", vec3), "normal": ("normal", vec3),
                "axis": ("axis", vec3), "half_length": ("half_length", _float),
                "half_width": ("half_width", _float), "min": ("box_min", vec3), "max": ("box_max", vec3),
                "velocity": ("velocity", vec3), "scale": ("mesh_scale", _float), "origin": ("mesh_origin", vec3),
                "orientation": ("mesh_orientation", quat)}


def wall_keywords(kind):
    """(the keywords, the old names) `add_wall` takes for a wall type."""
    keys = [k for k in scene_names("wall." + kind) if k not in ("type", "material")]
    return keys + list(WALL_PYTHON_KEYS.get(kind, ())), list(WALL_OLD_NAMES.get(kind, {}))


def wall_def(kind, material, kw, keep):
    """A tl_wall_def from add_wall's keywords (the scene's keys of the wall type, the old
    names), and the servo mapping to set once the wall exists (or None)."""
    d = ffi.new("tl_wall_def *", lib.tl_wall_default())
    d.kind = choice(WALL_KINDS, kind, "wall type")
    d.material = material
    what = "add_wall (%s)" % kind
    allowed, old = wall_keywords(kind)
    check_keys(what, kw, allowed, old)
    kw = dict(kw)
    for o, new in WALL_OLD_NAMES.get(kind, {}).items():
        if o in kw:
            if new in kw:
                raise TypeError("%s: give %s (or its old name %s), not both" % (what, new, o))
            kw[new] = kw.pop(o)
    d.name = cstr(kw.pop("name", None), keep)
    if "open" in kw:
        d.open_faces = _faces(kw.pop("open"), "open")
    servo = servo_mapping(kw.pop("servo", None))
    motion = kw.pop("motion", None)
    if motion is not None and not (isinstance(motion, str) and motion == "none"):
        motion_def(motion, d.motion)
        if servo is not None:
            raise ValueError("%s: a force-controlled wall (servo) can only translate; leave out motion" % what)
    if servo is not None and "stress" in servo and kind != "rectangle":
        raise ValueError("%s: servo: a stress needs a wall with a finite area (a rectangle); give force (N)" % what)
    if "units" in kw:
        if "scale" in kw:
            raise TypeError("%s: give either units or scale, not both" % what)
        d.mesh_scale = choice(UNITS, kw.pop("units"), "units")
    if "file" in kw:
        d.mesh_file = cstr(kw.pop("file"), keep)
    if "mesh_vertices" in kw or "mesh_triangles" in kw:
        xyz = rows(kw.pop("mesh_vertices", ()), 3, "mesh_vertices")
        tri = index_rows(kw.pop("mesh_triangles", ()), "mesh_triangles", len(xyz))
        keep += [xyz, tri]
        d.mesh_xyz = ffi.cast("const double *", ffi.from_buffer(xyz))
        d.mesh_vertex_count = len(xyz)
        d.mesh_triangles = ffi.cast("const uint32_t *", ffi.from_buffer(tri))
        d.mesh_triangle_count = len(tri)
    for key, value in kw.items():
        field, conv = _WALL_FIELDS[key]
        setattr(d, field, conv(value, key))
    return d, servo


def wall_dict(s):
    return {"index": s.index, "name": text(s.name), "kind": name_of(WALL_KINDS, s.kind),
            "material": s.material, "displacement": tup3(s.displacement), "velocity": tup3(s.velocity),
            "angular_velocity": tup3(s.angular_velocity), "angle": s.angle, "force": tup3(s.force),
            "torque": tup3(s.torque), "area": s.area, "servo": bool(s.servo),
            "servo_chatter": s.servo_chatter}


# ---- shapes ----

SHAPE_KEYS = scene_names("shape")
MESH_KEYS = scene_names("shape.mesh")
# keywords of Python alone: a mesh from arrays
MESH_PYTHON_KEYS = ("vertex_xyz", "triangles")
# the flat form add_shape(kind, ...) of before, still taken: its keywords by kind
SHAPE_OLD_KEYS = {"ellipsoid": ("name", "semi_axes"),
                  "mesh": ("name", "source", "file", "units", "scale", "radius", "subdivisions", "semi_axes",
                           "vertices", "vertex_xyz", "triangles", "mesh_radius", "mesh_depth", "contact_radius",
                           "contact_depth")}


def _contact_rules(d, radius, depth, what):
    if radius is not None:
        d.mesh_radius = choice(MESH_RADII, radius, "contact_radius")
    if depth is not None:
        d.mesh_depth = choice(MESH_DEPTHS, depth, "contact_depth")
    if radius == "area" and depth != "volume":
        raise ValueError("%s: contact_radius='area' belongs to the paper's polygonal contact model: give "
                         "contact_depth='volume' with it (the default reading, potential, takes the "
                         "volume-equivalent radius)" % what)


def _mesh_arrays(d, vertex_xyz, triangles, keep):
    """A mesh given as arrays: (n, 3) vertices and (m, 3) vertex indices, any other shape,
    and indices outside 0 .. 2^32 - 1, refused (nothing reshaped or wrapped)."""
    xyz = rows(vertex_xyz, 3, "vertex_xyz")
    tri = index_rows(triangles, "triangles", len(xyz))
    keep += [xyz, tri]
    d.source = lib.TL_MESH_ARRAYS
    d.vertex_xyz = ffi.cast("const double *", ffi.from_buffer(xyz))
    d.vertex_count = len(xyz)
    d.triangles = ffi.cast("const uint32_t *", ffi.from_buffer(tri))
    d.triangle_count = len(tri)


def shape_def(kind, kw, keep):
    """A tl_shape_def from add_shape's keywords: the scene's shape mapping (name=...,
    ellipsoid=[a, b, c] or mesh={...}, contact_radius, contact_depth) when kind is None,
    else the flat form of before (kind "ellipsoid" or "mesh" and its keywords)."""
    d = ffi.new("tl_shape_def *", lib.tl_shape_default())
    kw = dict(kw)
    if kind is None:
        check_keys("add_shape", kw, ("name",) + SHAPE_KEYS)
        d.name = cstr(kw.pop("name", None), keep)
        if ("ellipsoid" in kw) == ("mesh" in kw):
            raise TypeError("add_shape: give exactly one of ellipsoid (semi-axes [a, b, c], m) or mesh "
                            "(a dict: file, icosphere or ellipsoid)")
        if "ellipsoid" in kw:
            d.kind = lib.TL_SHAPE_ELLIPSOID
            d.semi_axes = vec3(kw.pop("ellipsoid"), "ellipsoid")
            for key in ("contact_radius", "contact_depth"):
                if key in kw:
                    raise ValueError("add_shape: %s applies to meshes (an ellipsoid's contact comes from its "
                                     "surface)" % key)
            return d
        d.kind = lib.TL_SHAPE_MESH
        m = _mapping(kw.pop("mesh"), "mesh", list(MESH_KEYS) + list(MESH_PYTHON_KEYS))
        given = [k for k in ("file", "icosphere", "ellipsoid", "vertex_xyz") if k in m]
        if len(given) != 1:
            raise ValueError("mesh: give exactly one of file, icosphere or ellipsoid (or vertex_xyz and "
                             "triangles), got %s" % (", ".join(given) or "none"))
        if "units" in m and "file" not in m:
            raise ValueError("mesh: units apply to mesh files only (generated meshes are in m)")
        if "file" in m:
            d.source = lib.TL_MESH_FILE
            d.file = cstr(m["file"], keep)
            if "units" in m and "scale" in m:
                raise ValueError("mesh: give either units or scale, not both")
            d.scale = choice(UNITS, m["units"], "mesh units") if "units" in m else _float(m.get("scale", 1.0),
                                                                                      "mesh scale")
        elif "icosphere" in m:
            d.source = lib.TL_MESH_ICOSPHERE
            d.radius = _float(m["icosphere"], "mesh icosphere")
            d.subdivisions = _int(_need(m, "subdivisions", "mesh (icosphere)"), "mesh subdivisions")
        elif "ellipsoid" in m:
            d.source = lib.TL_MESH_ELLIPSOID
            d.semi_axes = vec3(m["ellipsoid"], "mesh ellipsoid")
            d.vertices = _int(_need(m, "vertices", "mesh (ellipsoid)"), "mesh vertices")
        else:
            _mesh_arrays(d, m["vertex_xyz"], _need(m, "triangles", "mesh (vertex_xyz)"), keep)
        _contact_rules(d, kw.pop("contact_radius", None), kw.pop("contact_depth", None), "add_shape")
        return d
    # the flat form: add_shape("mesh", file=..., scale=...), add_shape("ellipsoid", semi_axes=...)
    d.kind = choice({k: v for k, v in SHAPE_KINDS.items() if k != "sphere"}, kind, "shape kind")
    check_keys("add_shape (%s)" % kind, kw, SHAPE_OLD_KEYS[kind])
    d.name = cstr(kw.pop("name", None), keep)
    if "source" in kw:
        d.source = choice(MESH_SOURCES, kw.pop("source"), "mesh source")
    for new, old, table in (("contact_radius", "mesh_radius", MESH_RADII),
                            ("contact_depth", "mesh_depth", MESH_DEPTHS)):
        if old in kw and new in kw:
            raise TypeError("add_shape: give %s (or its old name %s), not both" % (new, old))
        key = old if old in kw else new
        if key in kw:
            setattr(d, old, choice(table, kw.pop(key), key))
    if "units" in kw:
        if "scale" in kw:
            raise TypeError("add_shape: give either units or scale, not both")
        d.scale = choice(UNITS, kw.pop("units"), "units")
    if "file" in kw:
        d.file = cstr(kw.pop("file"), keep)
        d.source = lib.TL_MESH_FILE
    if "vertex_xyz" in kw or "triangles" in kw:
        _mesh_arrays(d, _need(kw, "vertex_xyz", "add_shape"), _need(kw, "triangles", "add_shape"), keep)
        del kw["vertex_xyz"], kw["triangles"]
    set_fields(d, kw, {"semi_axes": vec3, "scale": _float, "radius": _float, "subdivisions": _int,
                       "vertices": _int}, "shape")
    return d


# ---- particles ----

# the keywords of add_particle: the scene's particle keys but material (a parameter);
# flags and the external force are set apart from the definition's fields
PARTICLE_KEYS = tuple(k for k in scene_names("particle") if k != "material")
PARTICLE_FIELDS = {"id": _int, "shape": _int, "radius": _float, "position": vec3, "velocity": vec3,
                   "angular_velocity": vec3, "orientation": quat, "mass": _float}
FLAGS = {"fixed": lib.TL_PARTICLE_FIXED, "prescribed": lib.TL_PARTICLE_PRESCRIBED,
         "lock_rotation": lib.TL_PARTICLE_LOCK_ROTATION}


def particle_def(material, kw, what="add_particle"):
    """A tl_particle_def from add_particle's keywords (external_force is not a field of the
    definition: the caller sets it once the particle exists)."""
    d = ffi.new("tl_particle_def *", lib.tl_particle_default())
    d.material = material
    check_keys(what, kw, PARTICLE_KEYS)
    kw = dict(kw)
    kw.pop("external_force", None)
    flags = 0
    for name, bit in FLAGS.items():
        if _bool(kw.pop(name, False), name):
            flags |= bit
    d.flags = flags
    set_fields(d, kw, PARTICLE_FIELDS, what)
    q = d.orientation
    if "orientation" in kw and q.w == 0.0 and q.x == 0.0 and q.y == 0.0 and q.z == 0.0:
        raise ValueError("%s.orientation must not be zero: a quaternion [w, x, y, z] "
                         "(normalised; [1, 0, 0, 0] = not turned), got %r" % (what, kw["orientation"]))
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
