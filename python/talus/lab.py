"""The collision lab and calibration: functions returning dicts.

`collide` runs one collision of two bodies (sphere-sphere or sphere-wall)
through the library's lab (include/talus/lab.h, docs/lab.md). The
``calibrate_*`` functions are the modes of ``talus calibrate`` (actm,
lambda, restitution, timestep) built on the same public calls, and return
what its ``--json`` prints, as dicts.
"""
import math

import numpy as np

from . import _defs, _structs
from ._lib import TalusError, ffi, lib, status_name, text

GLASS = {"density": 2500.0, "youngs_modulus": 70e9, "poisson_ratio": 0.25}


def _material(struct, spec, default_name, keep):
    spec = dict(spec)
    name = spec.pop("name", default_name)
    _defs.material_def(name, spec, keep, struct=struct)


def _tup(v):
    return (v.x, v.y, v.z)


def collide(material_a=None, material_b=None, law=None, wall=False, radius_a=0.01, radius_b=None, mass_a=0.0,
            mass_b=0.0, speed=1.0, angle=0.0, spin_a=(0.0, 0.0, 0.0), spin_b=(0.0, 0.0, 0.0),
            steps_per_contact=None, dt=None, integrator=None, contact_boundary_correction=None,
            record=False):
    """One collision, measured (Li et al. 2022 eq. 20-23).

    Body b sits at the origin (a sphere at rest, or the plane z = 0); body a
    arrives with `speed` at `angle` from the normal in the x-z plane.

    Parameters
    ----------
    material_a : dict, optional
        ``name`` and material properties (``density``, ``youngs_modulus``,
        ``poisson_ratio``, ``k_n``, ``k_t``, ``yield_stress``); default glass
        (2500 kg/m3, 70 GPa, 0.25), as ``talus collide``.
    material_b : dict, optional
        Of sphere b or of the wall: keys over a copy of a's; default a's.
    law : dict, optional
        The law between a and b, as ``talus collide`` takes it: a dict of
        `World.set_law`'s keywords. Without any slot named, hertz + tsuji +
        mindlin with true history and e = 0.9, mu = 0.3 (unless given: ``{"e":
        0.5}`` changes only e), as the command; with a slot named, the slots
        not named as in `World.set_law` (none; history true with a tangential
        model).
    wall : bool
        b is a flat wall (else a sphere).
    radius_a, radius_b : float
        m (radius_b defaults to radius_a).
    mass_a, mass_b : float
        kg; 0 = density x volume.
    speed : float
        Impact speed, m/s.
    angle : float
        Impact angle from the normal, degrees, in [0, 90), as ``talus collide
        --angle``.
    spin_a, spin_b : sequence of 3 floats
        Initial angular velocities, rad/s.
    steps_per_contact, dt : float, optional
        Resolution of the collision (default 1000 steps), or the step (s).
    integrator : str, optional
    contact_boundary_correction : bool, optional
    record : bool
        Keep the time series: ``samples`` in the result, a structured array
        (t, overlap, overlap_rate, fn, fn_elastic, fn_damping, ft, ft_normal).

    Returns
    -------
    dict
        e_n, e_t, duration, max_overlap, max_normal_force, v_in, v_out,
        omega_out, omega_out_b, vc_out, alpha_v, alpha_c (rad), alpha_v_deg,
        alpha_c_deg (degrees, as ``talus collide --json``), psi1, psi2, kappa,
        energy_in, energy_out_translational, energy_out_rotational,
        diss_normal, diss_plastic, diss_tangential_damping, diss_friction,
        integration_residual, energy_error, dt, steps, energy (the pair's ledger at the end: a dict
        of every term of ``talus.energy_terms()`` and the total) (and samples).

    Raises
    ------
    TalusError
        With the lab's message when the collision cannot be run.
    """
    keep = []
    d = ffi.new("tl_collide_def *", lib.tl_collide_default())
    a = dict(GLASS, name="glass")
    a.update(material_a or {})
    _material(d.material_a, a, "a", keep)
    if material_b is not None:
        b = dict(a, name="wall" if wall else "b")
        b.update(material_b)
        _material(d.material_b, b, "b", keep)
        d.same_material = False
    _defs.law_def(_defs.collide_law(law), keep, struct=d.law, what="collide law")
    d.wall = bool(wall)
    d.radius_a = float(radius_a)
    d.radius_b = float(radius_a if radius_b is None else radius_b)
    d.mass_a, d.mass_b = float(mass_a), float(mass_b)
    angle = _defs._float(angle, "angle")
    if not 0.0 <= angle < 90.0:
        raise ValueError("angle is the impact angle from the normal in degrees, 0 <= angle < 90, got %r" % angle)
    d.speed, d.angle = float(speed), math.radians(angle)
    d.spin_a = _defs.vec3(spin_a, "spin_a")
    d.spin_b = _defs.vec3(spin_b, "spin_b")
    if steps_per_contact is not None:
        d.steps_per_contact = float(steps_per_contact)
    if dt is not None:
        d.dt = float(dt)
    if integrator is not None:
        d.integrator = _defs.choice(_defs.INTEGRATORS, integrator, "integrator")
    if contact_boundary_correction is not None:
        d.contact_boundary_correction = bool(contact_boundary_correction)
    d.record = bool(record)
    return _run(d, record)


def _run(d, record=False):
    r = ffi.new("tl_collide_result *")
    err = ffi.new("char[]", 1024)
    st = lib.tl_collide(d, r, err, 1024)
    if st != lib.TL_OK:
        raise TalusError(text(err) or status_name(st), status_name(st))
    try:
        out = {k: getattr(r, k) for k in (
            "e_n", "e_t", "duration", "max_overlap", "max_normal_force", "alpha_v", "alpha_c", "psi1", "psi2",
            "kappa", "energy_in", "energy_out_translational", "energy_out_rotational", "diss_normal",
            "diss_plastic", "diss_tangential_damping", "diss_friction", "integration_residual", "energy_error",
            "dt", "steps")}
        for k in ("v_in", "v_out", "omega_out", "omega_out_b", "vc_out"):
            out[k] = _tup(getattr(r, k))
        out["alpha_v_deg"], out["alpha_c_deg"] = math.degrees(r.alpha_v), math.degrees(r.alpha_c)
        # the pair's whole ledger at the end, by the library's table of terms (a slot's own among them)
        out["energy"] = {text(lib.tl_energy_term_get(k).name): r.energy.term[k] for k in range(lib.TL_ENERGY_TERM_COUNT)}
        out["energy"]["total"] = r.energy.total
        if record:
            out["samples"] = _structs.read_array(r.samples, r.nsamples, _structs.SAMPLE, _structs.SAMPLE_PACKED)
    finally:
        lib.tl_collide_result_free(r)
    return out


# ---- the damped Hertz collision (Ray, Kempe & Froehlich 2015) ----

def hertz_damped(lam):
    """e and the dimensionless duration tau_c of z'' + 2 lambda z' + z^3/2 = 0
    (eq. 6) at damping `lam`: dict lambda, restitution, tau_c, z_max."""
    s = ffi.new("tl_hertz_damped *")
    st = lib.tl_hertz_damped_solve(float(lam), s)
    if st != lib.TL_OK:
        raise TalusError("no solution of eq. 6 for lambda = %g (lambda >= 0)" % lam, status_name(st))
    return {"lambda": getattr(s[0], "lambda"), "restitution": s.restitution, "tau_c": s.tau_c, "z_max": s.z_max}


def hertz_damped_from_restitution(e):
    """The lambda that gives restitution e (0 < e <= 1) exactly, as
    `hertz_damped` returns it."""
    s = ffi.new("tl_hertz_damped *")
    st = lib.tl_hertz_damped_from_restitution(float(e), s)
    if st != lib.TL_OK:
        raise TalusError("no lambda for e = %g (0 < e <= 1)" % e, status_name(st))
    return {"lambda": getattr(s[0], "lambda"), "restitution": s.restitution, "tau_c": s.tau_c, "z_max": s.z_max}


def hertz_damped_approx(lam):
    """The paper's approximations (eq. 43, 44): (e, tau_c)."""
    e, tau = ffi.new("double *"), ffi.new("double *")
    lib.tl_hertz_damped_approx(float(lam), e, tau)
    return e[0], tau[0]


def actm(e, tc, mass, speed, method="exact"):
    """Stiffness k (N/m^1.5) and damping d (N s/m) of a damped Hertz contact
    giving restitution e and collision time tc (s) at impact speed `speed`
    for mass (kg; the reduced mass between two particles): by the paper's
    direct formulas (``method="direct"``, eq. 51-54) or exactly. Returns a
    dict k, d, lambda."""
    fn = {"direct": lib.tl_actm_direct, "exact": lib.tl_actm_exact}.get(method)
    if fn is None:
        raise ValueError("method is 'direct' or 'exact', got %r" % (method,))
    k, d, lam = ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
    st = fn(float(e), float(tc), float(mass), float(speed), k, d, lam)
    if st != lib.TL_OK:
        raise TalusError("no %s solution for e = %g, T_c = %g s, m = %g kg, u = %g m/s" % (method, e, tc, mass, speed),
                         status_name(st))
    return {"k": k[0], "d": d[0], "lambda": lam[0]}


# ---- talus calibrate, as functions ----

def _sphere_volume(r):
    return 4.0 / 3.0 * math.pi * r * r * r


class _Bodies:
    """The bodies of the calibrate modes: material a (default glass), b's own
    keys over a copy of a's, a wall or two equal spheres (as the CLI)."""

    def __init__(self, material, material_b, wall, radius, mass, speed, steps):
        self.a = dict(GLASS)
        self.a.update(material or {})
        self.name_a = self.a.pop("name", "glass")
        self.b_given = material_b is not None
        self.b = dict(self.a)
        if self.b_given:
            self.b.update(material_b)
        self.name_b = self.b.pop("name", self.name_a)
        if self.name_b == self.name_a:
            self.name_b = "wall" if wall else "b"
        self.wall, self.radius, self.mass, self.speed, self.steps = bool(wall), float(radius), mass, float(speed), steps

    def definition(self, keep):
        d = ffi.new("tl_collide_def *", lib.tl_collide_default())
        _defs.material_def(self.name_a, self.a, keep, struct=d.material_a)
        _defs.material_def(self.name_b, self.b, keep, struct=d.material_b)
        d.same_material = not self.b_given
        d.wall = self.wall
        d.radius_a = d.radius_b = self.radius
        d.mass_a = d.mass_b = float(self.mass) if self.mass is not None else 0.0
        d.speed = self.speed
        if self.steps is not None and self.steps > 0:
            d.steps_per_contact = float(self.steps)
        d.law.tangential = cs("none", keep)
        d.law.history = cs("none", keep)
        return d


def cs(v, keep):
    return _defs.cstr(v, keep)


def _has(slot, name):
    return lib.tl_registry_find(slot, name.encode()) != ffi.NULL


def calibrate_actm(e, tc, speed=1.0, mass=None, density=None, radius=0.01, methods=("direct", "exact"), run=True):
    """``talus calibrate actm``: k, d and lambda of a damped Hertz contact for
    restitution e and collision time tc (s), each checked by solving eq. 6
    and (run=True) by a collision on a wall with hertz-adaptive(-direct) +
    viscous-adaptive.

    Parameters
    ----------
    e, tc : float
    speed : float
        Impact speed, m/s.
    mass : float, optional
        kg (the reduced mass between two particles); or from
    density, radius : float
        kg/m3 and m (a sphere).
    methods : sequence of {"direct", "exact"}

    Returns
    -------
    dict
        e, tc, mass, speed, and per method a dict lambda, k, d, e_solved,
        tc_solved (and e_run, tc_run).
    """
    if mass is None and density is None:
        raise ValueError("calibrate_actm needs mass, or density (and radius)")
    if not (0.0 < e <= 1.0) or not (tc > 0.0) or not (speed > 0.0) or not (radius > 0.0):
        raise ValueError("calibrate_actm needs 0 < e <= 1, tc > 0 s, speed > 0 m/s, radius > 0 m")
    m = float(mass) if mass is not None else float(density) * _sphere_volume(radius)
    models = {"direct": "hertz-adaptive-direct", "exact": "hertz-adaptive"}
    out = {"e": e, "tc": tc, "mass": m, "speed": speed}
    mat = dict(GLASS)
    if density is not None:
        mat["density"] = float(density)
    for method in methods:
        r = actm(e, tc, m, speed, method)
        solved = hertz_damped(r["lambda"])
        tstar = (m * m / (r["k"] * r["k"] * speed)) ** 0.2  # eq. 5
        way = {"lambda": r["lambda"], "k": r["k"], "d": r["d"], "e_solved": solved["restitution"],
               "tc_solved": solved["tau_c"] * tstar}
        if run and _has(lib.TL_SLOT_NORMAL, models[method]) and _has(lib.TL_SLOT_DAMPING, "viscous-adaptive"):
            b = _Bodies(mat, None, True, radius, m, speed, None)
            keep = []
            d = b.definition(keep)
            d.law.normal = cs(models[method], keep)
            d.law.damping = cs("viscous-adaptive", keep)
            lib.tl_law_set(ffi.addressof(d, "law"), cs("T_c", keep), float(tc))
            lib.tl_law_set(ffi.addressof(d, "law"), cs("e", keep), float(e))
            res = _run(d)
            way["e_run"], way["tc_run"] = res["e_n"], res["duration"]
        out[method] = way
    return out


def calibrate_lambda(lambdas):
    """``talus calibrate lambda``: e and tau_c of eq. 6, exact and by the
    paper's eq. 43-44, for each damping in `lambdas`.

    Returns
    -------
    dict of arrays
        lambda, e, e_eq43, tau_c, tau_c_eq44.
    """
    lam = np.atleast_1d(np.asarray(lambdas, dtype=np.float64))
    out = {k: np.empty(len(lam)) for k in ("e", "e_eq43", "tau_c", "tau_c_eq44")}
    for i, v in enumerate(lam):
        s = hertz_damped(v)
        out["e"][i], out["tau_c"][i] = s["restitution"], s["tau_c"]
        out["e_eq43"][i], out["tau_c_eq44"][i] = hertz_damped_approx(v)
    out["lambda"] = lam
    return out


def calibrate_restitution(e, normal="hertz", damping="tsuji", coefficients=None, clamp=False, material=None,
                          material_b=None, wall=False, radius=0.01, mass=None, speed=1.0, steps=None):
    """``talus calibrate restitution``: the restitution the engine achieves
    in one head-on collision for the requested e, with a normal and damping
    model (and coefficients); ``clamp=True`` adds the run with
    clamp_tensile.

    Returns
    -------
    dict
        normal, damping, e, speed, e_achieved (and e_achieved_clamped).
    """
    b = _Bodies(material, material_b, wall, radius, mass, speed, steps)
    out = {"normal": normal, "damping": damping, "e": e, "speed": speed}
    for clamped in ((False, True) if clamp else (False,)):
        keep = []
        d = b.definition(keep)
        d.law.normal = cs(normal, keep)
        d.law.damping = cs(damping, keep)
        d.law.clamp_tensile = clamped
        lib.tl_law_set(ffi.addressof(d, "law"), cs("e", keep), float(e))
        for name, value in (coefficients or {}).items():
            lib.tl_law_set(ffi.addressof(d, "law"), cs(name, keep), float(value))
        out["e_achieved_clamped" if clamped else "e_achieved"] = _run(d)["e_n"]
    return out


def _hertz_time(m_eff, r_eff, inv_estar, v):
    """Li et al. 2022 eq. 24: t_c = 2.9432 (15 m* / (16 E* sqrt(R* v)))^(2/5)."""
    tcon = 0.8 * math.gamma(0.4) * math.gamma(0.5) / math.gamma(0.9)
    return tcon * (15.0 * m_eff * inv_estar / (16.0 * math.sqrt(r_eff * v))) ** 0.4


def calibrate_timestep(material=None, material_b=None, wall=False, radius=0.01, mass=None, speed=1.0, steps=20,
                       soften=()):
    """``talus calibrate timestep``: the Hertz contact time (Li et al. 2022
    eq. 24 with 1/E* = sum (1 - nu^2)/E), the step resolving it with `steps`
    steps, and for each softening factor c (E -> c E) the contact time, the
    step, its ratio to c = 1, and a collision run's contact time and peak
    overlap.

    Returns
    -------
    dict
        speed, radius, steps, and arrays c, contact_time, dt, dt_ratio,
        contact_time_run, peak_overlap_over_radius.
    """
    if not (steps >= 1) or not (speed > 0.0) or not (radius > 0.0):
        raise ValueError("calibrate_timestep needs steps >= 1, speed > 0 m/s, radius > 0 m")
    b = _Bodies(material, material_b, wall, radius, mass, speed, steps)
    ma = mass if mass is not None else b.a["density"] * _sphere_volume(radius)
    mb = mass if mass is not None else b.b["density"] * _sphere_volume(radius)
    m_eff = ma if wall else ma * mb / (ma + mb)
    r_eff = radius if wall else 0.5 * radius
    cs_ = [1.0] + [float(c) for c in soften if c != 1.0]
    rows = {k: [] for k in ("c", "contact_time", "dt", "dt_ratio", "contact_time_run", "peak_overlap_over_radius")}
    for c in cs_:
        inv_estar = ((1.0 - b.a["poisson_ratio"] ** 2) / b.a["youngs_modulus"] +
                     (1.0 - b.b["poisson_ratio"] ** 2) / b.b["youngs_modulus"]) / c
        tcon = _hertz_time(m_eff, r_eff, inv_estar, speed)
        dt = tcon / steps
        keep = []
        d = b.definition(keep)
        d.material_a.youngs_modulus *= c
        d.material_b.youngs_modulus *= c
        d.steps_per_contact = lib.tl_collide_default().steps_per_contact
        d.law.normal = cs("hertz", keep)
        d.law.damping = cs("none", keep)
        res = _run(d)
        rows["c"].append(c)
        rows["contact_time"].append(tcon)
        rows["dt"].append(dt)
        rows["dt_ratio"].append(dt / rows["dt"][0] if rows["dt"][:-1] else 1.0)
        rows["contact_time_run"].append(res["duration"])
        rows["peak_overlap_over_radius"].append(res["max_overlap"] / radius)
    out = {"speed": speed, "radius": radius, "steps": steps}
    out.update({k: np.asarray(v) for k, v in rows.items()})
    return out


def kappa(material_a, material_b=None):
    """Li et al. 2022 eq. 3: the tangential/normal compliance ratio of two
    materials (dicts of properties; b defaults to a)."""
    keep = []
    a, b = dict(material_a), dict(material_b if material_b is not None else material_a)
    a = _defs.material_def(a.pop("name", "a"), a, keep)
    b = _defs.material_def(b.pop("name", "b"), b, keep)
    return lib.tl_kappa(a, b)


def slots():
    """The slots of a contact law, in the order a law evaluates them (the library's table of
    slots): dicts key, summary, default (the model a law that names none gets; None: a law must
    name one; history's depends on the tangential model)."""
    out = []
    for k in range(lib.TL_SLOT_COUNT):
        r = lib.tl_slot_get(k)
        out.append({"key": text(r.key), "summary": text(r.summary),
                    "default": text(r.default_model) if r.default_model != ffi.NULL else None})
    return out


_ENERGY_KINDS = ("kinetic", "potential", "elastic", "dissipated", "work", "residual")


def energy_terms():
    """The terms of the energy ledger in energy.csv's order (the library's table of energy terms):
    dicts name, label, meaning, kind (kinetic, potential, elastic, dissipated, work, residual),
    sign (how it enters the conserved total) and slot (the law slot that books it, or None)."""
    out = []
    for k in range(lib.TL_ENERGY_TERM_COUNT):
        t = lib.tl_energy_term_get(k)
        out.append({"name": text(t.name), "label": text(t.label), "meaning": text(t.meaning),
                    "kind": _ENERGY_KINDS[t.kind], "sign": t.sign,
                    "slot": text(lib.tl_slot_name(t.slot)) if t.slot >= 0 else None})
    return out


def models():
    """The contact sub-models of the registry (what ``talus models`` lists):
    dicts slot, name, summary, source, history_count, and coefficients (dicts
    name, unit, default, required, min, max, min_open, max_open, meaning)."""
    out = []
    for i in range(lib.tl_registry_count()):
        s = lib.tl_registry_get(i)
        coeffs = []
        for j in range(s.coeff_count):
            c = s.coeffs[j]
            coeffs.append({"name": text(c.name), "unit": text(c.unit), "default": c.default_value,
                           "required": bool(c.required), "min": c.min, "max": c.max, "min_open": bool(c.min_open),
                           "max_open": bool(c.max_open), "meaning": text(c.meaning)})
        out.append({"slot": text(lib.tl_slot_name(s.slot)), "name": text(s.name), "summary": text(s.summary),
                    "source": text(s.source), "history_count": s.history_count, "coefficients": coeffs})
    return out
