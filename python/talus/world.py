"""talus.World: a simulation built and stepped from Python."""
import os
import time as _time

import numpy as np

from . import _defs, _handle, _structs, _verbs
from ._handle import ArrayView, Handle, closed_error
from ._lib import TalusError, check_world, ffi, lib, libc, status_name, text
from ._verbs import WorldVerbs

# the particle arrays: attribute of tl_particle_arrays, columns, NumPy type
_ARRAYS = {
    "ids": ("id", None, "<u4"),
    "materials": ("material", None, "<i4"),
    "shapes": ("shape", None, "<i4"),
    "flags": ("flags", None, "|u1"),
    "radii": ("radius", None, "<f8"),
    "masses": ("mass", None, "<f8"),
    "positions": ("position", 3, "<f8"),
    "velocities": ("velocity", 3, "<f8"),
    "angular_velocities": ("angular_velocity", 3, "<f8"),
    "forces": ("force", 3, "<f8"),
    "torques": ("torque", 3, "<f8"),
    "orientations": ("orientation", 4, "<f8"),
}

# a call of `step` runs at most about this many seconds of steps in one call into
# the library: Ctrl-C stops a long step(n) after it, and other threads read between
_STEP_CHUNK_SECONDS = 0.05


def _covers(entry, i, j):
    """Whether a law entry (level, a, b, keywords) covers the pair of materials i, j (None = any)."""
    _, a, b, _ = entry
    return (a in (None, i) and b in (None, j)) or (a in (None, j) and b in (None, i))


def _array_property(name, doc):
    def get(self):
        return self._view(name)

    get.__name__ = name
    get.__doc__ = doc
    return property(get)


class World(WorldVerbs):
    """A simulation: materials, laws, particles and walls, stepped in time.

    Parameters
    ----------
    **settings
        The scene's world keys (docs/scene.md, docs/python.md has the table),
        with the scene's defaults and units: ``gravity`` (m/s2, [0, 0, 0]),
        ``seed`` (1), ``threads`` (1; 0 = all cores), ``track_energy``
        (True), ``track_orientation`` (True), ``allow_initial_overlaps``
        (False), ``domain`` (``{"min": [x, y, z], "max": [x, y, z],
        "periodic": axes}`` or ``(min, max)``, m: particles leaving it are
        removed), ``periodic`` (axes: ``"xz"``, ``["x", "z"]`` or ``"y"``);
        the keys of the scene's ``integrator``, ``neighbor`` and ``blowup``
        mappings, given as those mappings (``integrator={"scheme":
        "leapfrog", "dt": 1e-6}``) or one by one: ``integrator`` (the scheme:
        ``"verlet"``, ``"leapfrog"``, ``"predictor-corrector"``), ``dt`` (s,
        or ``"auto"``: from the shortest contact time), ``steps_per_contact``
        (20), ``impact_speed`` (m/s; 0 = estimated),
        ``allow_unresolved_contacts`` (False), ``contact_boundary_correction``
        (True), ``skin`` (m; 0 = automatic), ``reorder_every`` (0 =
        automatic), ``domain_size`` (0 = 16384), ``blowup_every`` (10),
        ``blowup_overlap`` (1), ``blowup_energy`` (100).

    Raises
    ------
    TypeError
        An unknown keyword (the message lists every keyword).
    TalusError
        When the library refuses a setting; the message names it and its
        allowed range.

    Notes
    -----
    The particle arrays (`positions`, `velocities`, ...) are read-only NumPy
    views of the engine's own memory, in storage order (`ids` gives the
    particle of each row, `index_of(ids)` the rows of given ids). The order
    changes when particles are reordered along a space-filling curve or
    removed; take the property again after
    adding particles, loading a state or stepping, it costs one call and
    returns the same arrays while nothing moved. A view taken earlier keeps
    readable memory: it keeps the world alive after `close`, and after the
    arrays were replaced it reads a frozen copy.

    Every call holds the world's lock, reads too: a thread reading while
    another steps waits for the step's current chunk (about 0.05 s) and reads
    between two steps, never halfway. `step` releases the GIL, so other Python
    threads run while it steps; Ctrl-C stops a long `step` after its current
    chunk (KeyboardInterrupt). A view handed out earlier is the engine's live
    memory: read while another thread steps, it shows the step as it goes; hold
    `locked()` for a consistent copy.
    """

    def __init__(self, **settings):
        d = _defs.world_def(settings)
        out = ffi.new("tl_world **")
        st = lib.tl_world_create(d, out)
        if st != lib.TL_OK:
            msg = text(lib.tl_world_error(out[0])) if out[0] != ffi.NULL else ""
            lib.tl_world_destroy(out[0])
            raise TalusError("cannot create the world: %s" % (_defs.python_message(msg) or status_name(st)),
                             status_name(st))
        self._attach(Handle(out[0]))

    @classmethod
    def _of(cls, handle):
        """The World of a handle that exists already (a scene's world)."""
        self = cls.__new__(cls)
        self._attach(handle)
        return self

    def _attach(self, handle):
        self._h = handle
        self._cache_key = None
        self._cache = {}
        self._arrays = ffi.new("tl_particle_arrays *")
        # the laws set with `any` and by pair, as a scene's entries: (level, a, b, keywords)
        self._laws = []
        self._rate = 1e6  # particle-steps per second, as last measured: the size of a step chunk

    # ---- life ----

    @property
    def _w(self):
        h = self._h
        if h is None or h.world is None:
            raise closed_error()
        return h.world

    def _hold(self):
        """The handle, for ``with self._hold() as h:`` (its lock held in the block)."""
        h = self._h
        if h is None or h.world is None:
            raise closed_error()
        return h

    def _change(self):
        """The handle, for ``with self._change() as h:``: its lock held in the
        block, for a call that changes the world; refused while Scene.run runs
        the world in another thread (the run's own callback may change it)."""
        return _handle.Change(self._hold())

    def locked(self):
        """The world's lock, held in a ``with`` block: no other thread steps,
        changes or reads the world inside it, so that copies of several views
        (``np.array(w.positions)``, ...) and results read in it belong to the
        same instant. Reentrant: calls of this World inside the block take it
        again. Hold it briefly: a thread that steps waits for it."""
        return self._hold().lock

    def _read(self, fn):
        """fn(world) with the lock held."""
        h = self._h
        if h is None or h.world is None:
            raise closed_error()
        lock = h.lock
        lock.acquire()
        try:
            return fn(h.world)
        finally:
            lock.release()

    def close(self):
        """Gives up this object's hold on the world.

        The library's world is freed now, or when the last NumPy view of its
        particles goes. Any later call on this object raises TalusError.
        """
        self._h = None
        self._cache = {}
        self._cache_key = None

    @property
    def closed(self):
        return self._h is None or self._h.world is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check(self, st):
        if st != lib.TL_OK:
            self._fail(st, self._h)

    @staticmethod
    def _fail(st, h):
        """Raises the library's message; for a world made from Python, with the World
        keywords where it names scene keys."""
        try:
            check_world(st, h.world)
        except TalusError as e:
            if h.scene is None:
                raise TalusError(_defs.python_message(e.message), e.status) from None
            raise

    # ---- materials and laws ----

    def add_material(self, name, **properties):
        """Adds a material; returns its index.

        Parameters
        ----------
        name : str
            Unique name.
        **properties
            The scene's material keys: ``density`` (kg/m3), ``youngs_modulus``
            (Pa), ``poisson_ratio`` (default 0.3), ``k_n``, ``k_t`` (N/m, per
            body, for linear laws), ``yield_stress`` (Pa).

        Returns
        -------
        int

        Notes
        -----
        The laws set with ``"any"`` (`set_law`) cover the new material too,
        as they cover every material of a scene: its pairs take the most
        specific of them, at once.
        """
        if isinstance(name, str) and name == "any":
            raise ValueError("'any' cannot name a material: in set_law it matches every material")
        keep = []
        d = _defs.material_def(name, properties, keep)
        idx = ffi.new("int *")
        with self._change():
            self._check(lib.tl_world_add_material(self._w, d, idx))
            m = idx[0]
            for other in range(lib.tl_world_material_count(self._w)):
                entry = self._law_for(m, other)
                if entry is None:
                    continue
                try:
                    self._check(lib.tl_world_set_law(self._w, m, other, _defs.law_def(entry[3], keep)))
                except TalusError as e:
                    raise TalusError("material %r was added, but the law set_law(%r, %r, ...) does not take it: %s"
                                     % (name, self._law_label(entry[1]), self._law_label(entry[2]), e.message),
                                     e.status) from None
        return m

    def material(self, name):
        """The index of a material given by name (an int is returned as is)."""
        if isinstance(name, (int, np.integer)):
            return int(name)
        idx = ffi.new("int *")
        with self._hold() as h:
            w = h.world
            if lib.tl_world_find_material(w, str(name).encode(), idx) != lib.TL_OK:
                known = [text(lib.tl_world_material_name(w, i)) for i in range(lib.tl_world_material_count(w))]
                raise TalusError("unknown material %r (known: %s)" % (name, ", ".join(known)),
                                 "TL_ERROR_NOT_FOUND")
        return idx[0]

    @property
    def materials(self):
        """The material names, by index."""
        with self._hold() as h:
            w = h.world
            return [text(lib.tl_world_material_name(w, i)) for i in range(lib.tl_world_material_count(w))]

    def set_law(self, a, b, **law):
        """Sets the contact law between materials a and b, as a scene's law entry
        ``{between: [a, b], ...}`` does (docs/scene.md, laws): the same keys,
        defaults and meaning.

        Parameters
        ----------
        a, b : str or int
            Material names or indices; ``"any"`` matches every material, as in a
            scene: ``("glass", "any")`` covers glass with every material,
            ``("any", "any")`` every pair.
        **law
            The slots ``normal``, ``damping``, ``tangential``, ``history``,
            ``rolling``, ``twisting`` (registry names, `talus.models`; history
            also True/False), the options ``clamp_tensile`` (False),
            ``coulomb_test`` (``"total"``, ``"spring"``, ``"spring-capped"``,
            ``"lammps"``, ``"liggghts"``), ``contact_point`` (``"compliance"``,
            ``"surface"``), ``entry_displacement`` (``"in-contact"``,
            ``"whole-step"``), and the coefficients of the chosen sub-models by
            name, e.g. ``e=0.5``.

            The scene's defaults: a slot not given is ``none``, and
            ``history`` is ``true`` with a tangential model, else ``none``; so
            a law without ``tangential`` is frictionless (``mu`` is refused:
            give ``tangential="mindlin"``). ``normal``, which a scene
            requires, defaults to ``hertz``, and a law that names neither
            normal nor damping is hertz + tsuji: ``set_law(a, b, e=0.5)`` is
            the entry ``{normal: hertz, damping: tsuji, e: 0.5}``.

        Notes
        -----
        As in a scene, each pair takes the most specific law that covers it,
        whatever the order of the calls: a pair's own law beats one with a
        single ``any``, which beats ``("any", "any")``; between two of the
        same specificity the later call wins (a scene refuses such a tie).
        A law with ``any`` is given to the pairs of the materials that exist
        now and, as in a scene, where every material is known before the laws,
        to those of materials added later (`add_material`). On the world of a
        `Scene`, the laws the file set count as set before the first call
        here.

        Raises
        ------
        TypeError
            A keyword the law does not take (the message lists those it takes).
        TalusError
            A model or coefficient the library refuses, with its message.
        """
        keep = []
        d = _defs.law_def(law, keep)
        ia = None if isinstance(a, str) and a == "any" else self.material(a)
        ib = None if isinstance(b, str) and b == "any" else self.material(b)
        if (ia is None and ib is not None) or (ia is not None and ib is not None and ib < ia):
            ia, ib = ib, ia   # one entry per pair, the specific material first
        level = (ia is not None) + (ib is not None)
        entry = (level, ia, ib, dict(law))
        with self._change():
            w = self._w
            n = lib.tl_world_material_count(w)
            pairs = [(i, j) for i in range(n) for j in range(i, n)
                     if _covers(entry, i, j) and not any(e[0] > level and _covers(e, i, j) for e in self._laws)]
            if not pairs:
                self._validate_law(d)
            for i, j in pairs:
                self._check(lib.tl_world_set_law(w, i, j, d))
            self._laws = [e for e in self._laws if e[:3] != entry[:3]] + [entry]

    def _law_for(self, i, j):
        """The most specific law set here that covers the pair (the later of a tie), or None."""
        best = None
        for e in self._laws:
            if _covers(e, i, j) and (best is None or e[0] >= best[0]):
                best = e
        return best

    def _law_label(self, m):
        return "any" if m is None else text(lib.tl_world_material_name(self._w, m))

    @staticmethod
    def _validate_law(d):
        """The library's checks of a law no pair takes yet (a law with any before its materials)."""
        out = ffi.new("tl_world **")
        lib.tl_world_create(ffi.new("tl_world_def *", lib.tl_world_default()), out)
        try:
            m = ffi.new("tl_material_def *", lib.tl_material_default())
            name = ffi.new("char[]", b"any")
            m.name = name
            idx = ffi.new("int *")
            lib.tl_world_add_material(out[0], m, idx)
            check_world(lib.tl_world_set_law(out[0], idx[0], idx[0], d), out[0])
        finally:
            lib.tl_world_destroy(out[0])

    def get_law(self, a, b):
        """The law between two materials as used, with every coefficient
        (NaN: derived from the materials), as a dict."""
        d = ffi.new("tl_law_def *")
        with self._hold() as h:
            self._check(lib.tl_world_get_law(h.world, self.material(a), self.material(b), d))
            return _defs.law_dict(d)

    # ---- shapes, particles, walls ----

    def add_shape(self, kind=None, **definition):
        """Adds a non-spherical shape; returns its index for `add_particle`
        (whose ``shape`` also takes its name).

        Parameters
        ----------
        **definition
            A scene's shape (docs/scene.md, shapes): ``name``, and
            ``ellipsoid=[a, b, c]`` (semi-axes, m) or ``mesh`` (a dict:
            ``{"file": path, "units": "mm"}`` or ``"scale"`` (m per file
            unit), ``{"icosphere": R, "subdivisions": k}``, ``{"ellipsoid":
            [a, b, c], "vertices": V}``, or Python's ``{"vertex_xyz": (n, 3),
            "triangles": (m, 3)}``), with ``contact_radius`` (``"volume"``,
            ``"area"``) and ``contact_depth`` (``"potential"``, the default,
            or ``"volume"``: docs/geometry.md).
        kind : {"ellipsoid", "mesh"}, optional
            The flat form of before, still taken: ``add_shape("ellipsoid",
            semi_axes=...)``, ``add_shape("mesh", file=..., scale=...)``,
            ``source="icosphere"`` with ``radius`` and ``subdivisions``,
            ``source="ellipsoid"`` with ``semi_axes`` and ``vertices``,
            ``vertex_xyz`` and ``triangles``; ``mesh_radius`` and
            ``mesh_depth`` are the old names of ``contact_radius`` and
            ``contact_depth``.
        """
        keep = []
        d = _defs.shape_def(kind, definition, keep)
        idx = ffi.new("int *")
        with self._change():
            self._check(lib.tl_world_add_shape(self._w, d, idx))
        return idx[0]

    def shape(self, shape):
        """What the library made of a shape (by index or name), as a dict.

        Returns
        -------
        dict
            ``index``, ``name``, ``kind`` (``"ellipsoid"``, ``"mesh"``), ``volume`` (m3),
            ``radius`` (bounding radius about the centroid, m), ``volume_radius`` (m),
            ``moments`` (NumPy (3,): the principal moments of inertia per unit mass,
            m2, ascending for a mesh), ``semi_axes`` (ellipsoid, m), ``vertices`` and
            ``facets`` (mesh), and where the body frame (the principal axes) lies in
            the frame the shape was given in: ``origin`` (NumPy (3,), the centroid,
            m), ``frame`` (NumPy (4,), the quaternion w, x, y, z) and ``rotation``
            (NumPy (3, 3), its matrix E, whose columns are the principal axes): the
            body point b is the given point ``origin + rotation @ b``. A body whose
            ``orientation`` is q has its principal axes at q * frame.
        """
        s = ffi.new("tl_shape_info *")
        with self._hold() as h:
            index = self._shape_index(shape)
            if lib.tl_world_get_shape(h.world, index, s) != lib.TL_OK:
                raise TalusError("no shape %r" % (shape,), "TL_ERROR_NOT_FOUND")
            name = text(s.name)
        kinds = {v: k for k, v in _defs.SHAPE_KINDS.items()}  # the scene's names
        q = np.array([s.frame.w, s.frame.x, s.frame.y, s.frame.z])
        w, x, y, z = q
        rotation = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                             [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                             [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        return {"index": index, "name": name, "kind": kinds.get(s.kind, s.kind),
                "volume": s.volume, "radius": s.radius, "volume_radius": s.volume_radius,
                "moments": np.array(_defs.tup3(s.inertia)), "semi_axes": np.array(_defs.tup3(s.semi_axes)),
                "vertices": int(s.vertices), "facets": int(s.facets),
                "origin": np.array(_defs.tup3(s.origin)), "frame": q, "rotation": rotation}

    @property
    def shape_count(self):
        """The largest shape index (shapes are numbered from 1; 0 is the sphere)."""
        return self._read(lib.tl_world_shape_count)

    def _shape_index(self, shape):
        if isinstance(shape, str):
            s = ffi.new("tl_shape_info *")
            with self._hold() as h:
                for k in range(1, lib.tl_world_shape_count(h.world) + 1):
                    if lib.tl_world_get_shape(h.world, k, s) == lib.TL_OK and text(s.name) == shape:
                        return k
            raise TalusError("no shape named %r" % shape, "TL_ERROR_NOT_FOUND")
        if isinstance(shape, bool) or not isinstance(shape, (int, np.integer)):
            raise TypeError("shape: an index (int) or a name (str), got %r" % (shape,))
        return int(shape)

    def add_particle(self, material=0, **particle):
        """Adds one particle; returns its id.

        Parameters
        ----------
        material : str or int
        **particle
            A scene's particle keys (docs/scene.md, particles): ``id`` (0 = the
            next free), ``radius`` (m), ``position`` (m), ``velocity`` (m/s),
            ``angular_velocity`` (rad/s), ``shape`` (a name or index from
            `add_shape`; default a sphere), ``orientation`` (w, x, y, z: the
            rotation of the shape as given, a mesh as in its file, about its
            centroid; the position is the centroid: see `shape`), ``mass``
            (kg; default density x volume), the flags ``fixed``,
            ``prescribed``, ``lock_rotation`` (False), and ``external_force``
            (N, a constant force: `set_particle_force`).

        Returns
        -------
        int
        """
        force = particle.get("external_force")
        f = None if force is None else _defs.vec3(force, "external_force")
        d = self._particle_def(material, particle)
        out = ffi.new("uint32_t *")
        with self._change():
            self._check(lib.tl_world_add_particle(self._w, d, out))
            if f is not None:
                self._check(lib.tl_world_set_particle_force(self._w, out[0], f))
        return out[0]

    def _particle_def(self, material, kw, what="add_particle"):
        if isinstance(kw.get("shape"), str):
            kw = dict(kw, shape=self._shape_index(kw["shape"]))
        return _defs.particle_def(self.material(material), kw, what)

    def add_particles(self, positions, radius, material=0, velocities=None, **common):
        """Adds many particles, all or none; returns their ids.

        Parameters
        ----------
        positions : array_like, (n, 3)
        radius : float or array_like (n,)
        material : str or int
        velocities : array_like (n, 3), optional
        **common
            Other `add_particle` keywords, the same for all (not ``id``, when
            n > 1; not ``position``, ``velocity`` beside ``velocities``).

        Raises
        ------
        ValueError
            An array of another shape (nothing is reshaped), or not of numbers.
        TalusError
            A particle the library refuses (its row and the library's
            message): every particle is checked by the library's own rules
            (`tl_world_check_particle`) before the first is added, so that a
            refused batch adds none.
        """
        x = _defs.rows(positions, 3, "positions")
        n = len(x)
        r = _defs.per_row(radius, n, "radius")
        v = None if velocities is None else _defs.rows(velocities, 3, "velocities", n)
        if "position" in common:
            raise TypeError("add_particles: the positions are given by `positions` (an (n, 3) array); "
                            "`position` is add_particle's")
        if v is not None and "velocity" in common:
            raise TypeError("add_particles: give `velocities` (n, 3) or `velocity` (the same for all), not both")
        if n > 1 and common.get("id", 0):
            raise ValueError("add_particles: id=%r would give %d particles the same id (leave it out: each "
                             "takes the next free one)" % (common["id"], n))
        if "external_force" in common:
            raise TypeError("add_particles: external_force is set per particle: add_particle(..., "
                            "external_force=...) or set_particle_force, or set_forces(ids, forces) for many")
        m = self.material(material)
        d = self._particle_def(m, common, "add_particles")
        ids = np.empty(n, dtype=np.uint32)
        if n == 0:
            return ids
        # n definitions: copies of d, with each row's radius, position, velocity
        defs = ffi.new("tl_particle_def[]", n)
        size = ffi.sizeof("tl_particle_def")
        raw = np.frombuffer(ffi.buffer(defs), dtype=np.uint8).reshape(n, size)
        raw[:] = np.frombuffer(ffi.buffer(d), dtype=np.uint8)
        cols = np.ndarray((n,), dtype=np.dtype({
            "names": ["radius", "position", "velocity"], "formats": [np.float64, (np.float64, 3), (np.float64, 3)],
            "offsets": [ffi.offsetof("tl_particle_def", f) for f in ("radius", "position", "velocity")],
            "itemsize": size}), buffer=ffi.buffer(defs))
        cols["radius"] = r
        cols["position"] = x
        if v is not None:
            cols["velocity"] = v
        out = ffi.new("uint32_t *")
        with self._change() as h:
            w = h.world
            for i in range(n):  # the library's checks first: a refused row adds nothing
                st = lib.tl_world_check_particle(w, defs + i)
                if st != lib.TL_OK:
                    raise TalusError("add_particles: row %d of %d: %s (none was added)"
                                     % (i, n, text(lib.tl_world_error(w))), status_name(st))
            for i in range(n):
                st = lib.tl_world_add_particle(w, defs + i, out)
                if st != lib.TL_OK:  # only what the checks cannot foresee: memory
                    added = "none was added" if i == 0 else "the %d rows before it were added: ids %d to %d" % (
                        i, ids[0], ids[i - 1])
                    raise TalusError("add_particles: row %d of %d: %s (%s)"
                                     % (i, n, text(lib.tl_world_error(w)), added), status_name(st))
                ids[i] = out[0]
        return ids

    def add_wall(self, type="plane", material=0, **wall):
        """Adds a wall; returns its index.

        Parameters
        ----------
        type : {"plane", "rectangle", "box", "mesh"}
            The scene's ``type`` (``kind=`` is its old name, still taken).
        material : str or int
        **wall
            The scene's keys of the wall type (docs/scene.md, walls): any:
            ``name``, ``velocity`` (m/s), ``motion`` (below), ``servo`` (a
            force-controlled wall from the start: ``{"direction": [x, y, z],
            "stress": Pa (rectangles) or "force": N, "gain": m/s per N,
            "max_speed": m/s}``); plane: ``point`` (m, default the origin),
            ``normal`` (default +z); rectangle: ``center`` (m), ``normal``,
            ``axis``, ``half_length``, ``half_width`` (m); box: ``min``,
            ``max`` (m), ``open`` (faces left out, any of ``-x +x -y +y -z
            +z``); mesh: ``file`` (STL or OBJ), ``units`` (``"m"``, ``"cm"``,
            ``"mm"``, ``"um"``) or ``scale`` (m per file unit), ``origin``
            (m), ``orientation`` (w, x, y, z), or Python's ``mesh_vertices``
            (n x 3, m) and ``mesh_triangles`` (m x 3) instead of the file.

            ``motion`` is the scene's mapping: ``{"rotate": {"axis": [x, y,
            z], "point": [x, y, z], "speed": rad/s}}`` (or ``"rpm"``),
            ``{"oscillate": {"axis", "amplitude": m, "period": s, "phase":
            rad}}`` (or ``"phase_deg"``), ``{"rock": {"axis", "point",
            "amplitude": rad}}`` (or ``"amplitude_deg"``, with ``"period"``,
            ``"phase"``).

            Old names, still taken for one release: rectangle ``point``
            (``center``), box ``box_min``, ``box_max``, ``open_faces`` with
            ``"xmin"`` ... ``"zmax"`` (``min``, ``max``, ``open``), mesh
            ``mesh_file``, ``mesh_scale``, ``mesh_origin``,
            ``mesh_orientation`` (``file``, ``scale``, ``origin``,
            ``orientation``), and the motion ``{"kind": "rotate", "axis",
            "pivot", "angular_speed", "amplitude", "period", "phase"}``.
        """
        if "kind" in wall:
            if type != "plane":
                raise TypeError("add_wall: give type (or its old name kind), not both")
            type = wall.pop("kind")
        keep = []
        d, servo = _defs.wall_def(type, self.material(material), wall, keep)
        idx = ffi.new("int *")
        with self._change():
            self._check(lib.tl_world_add_wall(self._w, d, idx))
            if servo is not None:
                self._set_servo(idx[0], servo)
        return idx[0]

    def _set_servo(self, index, servo):
        """Sets a checked servo mapping (or None: off) on a wall (lock held)."""
        s = ffi.new("tl_wall_state *")
        self._check(lib.tl_world_get_wall(self._w, index, s))
        label = "%d%s" % (index, " (%r)" % text(s.name) if s.name != ffi.NULL else "")
        self._check(lib.tl_world_set_wall_servo(self._w, index, _defs.servo_def(servo, s.area, label)))

    def _wall_index(self, wall):
        if isinstance(wall, (int, np.integer)):
            return int(wall)
        s = ffi.new("tl_wall_state *")
        with self._hold() as h:
            for i in range(lib.tl_world_wall_count(h.world)):
                lib.tl_world_get_wall(h.world, i, s)
                if text(s.name) == wall:
                    return i
        raise TalusError("no wall named %r" % (wall,), "TL_ERROR_NOT_FOUND")

    def wall(self, wall):
        """The state of a wall (index or name) as a dict: displacement,
        velocity, angular_velocity, angle, force and torque of the particles
        on it, area, servo."""
        s = ffi.new("tl_wall_state *")
        with self._hold() as h:
            i = self._wall_index(wall)
            if lib.tl_world_get_wall(h.world, i, s) != lib.TL_OK:
                raise TalusError("no wall %d (the world has %d)" % (i, lib.tl_world_wall_count(h.world)),
                                 "TL_ERROR_NOT_FOUND")
            return _defs.wall_dict(s)

    @property
    def walls(self):
        """Every wall's state (see `wall`)."""
        with self._hold() as h:
            return [self.wall(i) for i in range(lib.tl_world_wall_count(h.world))]

    def set_wall_velocity(self, wall, velocity):
        """Sets a wall's translation velocity (m/s)."""
        with self._change():
            self._check(lib.tl_world_set_wall_velocity(self._w, self._wall_index(wall),
                                                       _defs.vec3(velocity, "velocity")))

    def set_wall_motion(self, wall, motion, velocity=(0.0, 0.0, 0.0)):
        """Starts a motion of a wall now, from where it is, with a translation
        velocity (m/s), as a stage's ``set: {walls: [{wall, motion,
        velocity}]}`` does: `motion` is the scene's mapping, as in
        `add_wall`; ``None`` or ``"none"`` leaves the wall translating."""
        m = ffi.new("tl_motion_def *")
        if motion is not None and not (isinstance(motion, str) and motion == "none"):
            _defs.motion_def(motion, m)
        with self._change():
            self._check(lib.tl_world_set_wall_motion(self._w, self._wall_index(wall),
                                                     _defs.vec3(velocity, "velocity"), m))

    def set_wall_servo(self, wall, direction=None, target_force=None, gain=None, max_speed=None, *, force=None,
                       stress=None):
        """Makes a wall force-controlled along `direction`, as the scene's
        ``servo`` does: its velocity follows gain x (F_target - F), clamped
        to max_speed.

        Parameters
        ----------
        wall : int or str
        direction : sequence of 3 floats, dict, "off" or None
            The way the wall presses on the particles; or the scene's servo
            mapping as a dict (``{"direction", "stress" or "force", "gain",
            "max_speed"}``); ``None`` or ``"off"`` switches the servo off.
        force : float
            The target force, N (``target_force`` is its old name).
        stress : float
            Or the target stress, Pa, times the wall's area (rectangles).
        gain : float
            m/s per N, > 0.
        max_speed : float
            m/s, > 0.
        """
        if isinstance(direction, dict):
            if any(v is not None for v in (target_force, gain, max_speed, force, stress)):
                raise TypeError("set_wall_servo: give the servo as a dict or as keywords, not both")
            servo = direction
        elif direction is None or (isinstance(direction, str) and direction == "off"):
            servo = None
        else:
            if target_force is not None:
                if force is not None:
                    raise TypeError("set_wall_servo: give force (or its old name target_force), not both")
                force = target_force
            servo = {k: v for k, v in (("direction", direction), ("force", force), ("stress", stress),
                                       ("gain", gain), ("max_speed", max_speed)) if v is not None}
        servo = _defs.servo_mapping(servo, "set_wall_servo")
        with self._change():
            self._set_servo(self._wall_index(wall), servo)

    def set_particle_velocity(self, id, velocity, angular_velocity=(0.0, 0.0, 0.0)):
        """Sets a particle's velocity and angular velocity."""
        with self._change():
            self._check(lib.tl_world_set_particle_velocity(self._w, id, _defs.vec3(velocity, "velocity"),
                                                           _defs.vec3(angular_velocity, "angular_velocity")))

    def set_particle_force(self, id, force):
        """A constant external force on a particle (N; zero removes it)."""
        with self._change():
            self._check(lib.tl_world_set_particle_force(self._w, id, _defs.vec3(force, "force")))

    def particle(self, id):
        """The full state of one particle (by id) as a dict."""
        s = ffi.new("tl_particle_state *")
        with self._hold() as h:
            if lib.tl_world_get_particle(h.world, id, s) != lib.TL_OK:
                raise TalusError("no particle with id %d" % id, "TL_ERROR_NOT_FOUND")
            return _defs.particle_dict(s)

    # ---- stepping ----

    def prepare(self):
        """Validates the world and derives the time step (the first step does
        it too); call it to read `dt` or `timestep` before stepping."""
        with self._change():
            self._check(lib.tl_world_prepare(self._w))

    def step(self, steps=1, callback=None, every=1):
        """Advances the world by `steps` time steps.

        The GIL is released during the call: other Python threads run. Many
        steps are run in chunks of about 0.05 s each (one call into the
        library; the same result, bit for bit, as one call of all of them):
        between two chunks other threads have the world, and Ctrl-C stops the
        steps there, raising KeyboardInterrupt with the world at the end of a
        chunk (`step_count` says where). A world spread over MPI ranks
        (`distribute`) is not cut by time, since every rank must step the
        same chunks: each `step` call (or each `every` steps, with a
        callback) is one call into the library.

        With a `callback`, ``callback(world)`` is called after every `every`
        steps (steps every, 2 every, ...; none after a last shorter span),
        with the world's lock held (its calls of this World take it again):
        it reads and changes the world at that step. Returning `talus.STOP`
        stops there, an exception raised in it stops and propagates. The
        steps are the same bits as one call. Returns the steps taken then
        (None without a callback).

        Raises
        ------
        ValueError
            `steps` not an integer >= 0, `every` not an integer >= 1.
        TalusError
            When the world cannot step (a missing law, an unresolved time
            step, ...), with the library's message; while Scene.run runs the
            world (from another thread, or from the run's own callbacks).
        KeyboardInterrupt
            Ctrl-C, after the current chunk.
        """
        if type(steps) is not int and (isinstance(steps, bool) or not isinstance(steps, np.integer)):
            raise ValueError("steps must be an integer >= 0, got %r" % (steps,))
        n = int(steps)
        if n < 0:
            raise ValueError("steps must be an integer >= 0, got %r" % (steps,))
        if callback is not None:
            _verbs.check_callback(callback)
            every = _verbs.check_every(every)
        h = self._hold()
        lock = h.lock
        if n <= 1 and callback is None:  # nothing to cut: the shortest way (a loop of step(1) costs little)
            lock.acquire()
            try:
                if h.running is not None:
                    _handle.refuse_step(h)
                st = lib.tl_world_step(h.world, n)
                if st != lib.TL_OK:
                    self._fail(st, h)
                if h.release_due:
                    h.release()
            finally:
                lock.release()
            return None
        done = 0
        due = every if callback is not None else None  # steps to the callback's next call
        stop = False
        while done < n and not stop:
            elapsed = 0.0
            with lock:
                if h.running is not None:
                    _handle.refuse_step(h)
                w = h.world
                count = max(lib.tl_world_particle_count(w), 1)
                k = n - done if due is None else min(n - done, due)
                if lib.tl_world_ranks(w) <= 1:  # ranks step the same chunks: not cut by their own clocks
                    k = min(k, max(1, int(self._rate * _STEP_CHUNK_SECONDS / count)))
                t0 = _time.perf_counter()
                st = lib.tl_world_step(w, k)
                elapsed = _time.perf_counter() - t0
                if st != lib.TL_OK:
                    self._fail(st, h)
                if h.release_due:
                    h.release()
                done += k
                if due is not None:
                    due -= k
                    if due == 0:
                        due = every
                        stop = callback(self) is _verbs.STOP  # the lock held: the world at this step
            if elapsed > 0.0:
                self._rate = k * count / elapsed
        return done if callback is not None else None

    @property
    def threads(self):
        """Worker threads the steps use (set 0 for all available; results are
        the same bits for any count)."""
        return self._read(lib.tl_world_threads)

    @threads.setter
    def threads(self, n):
        with self._change():
            self._check(lib.tl_world_set_threads(self._w, int(n)))

    @property
    def time(self):
        """Simulated time, s."""
        return self._read(lib.tl_world_time)

    @property
    def step_count(self):
        """Steps taken."""
        return self._read(lib.tl_world_step_count)

    @property
    def dt(self):
        """The time step in use, s (0 before `prepare`)."""
        return self._read(lib.tl_world_dt)

    def timestep(self):
        """How the time step was chosen, as a dict (dt, dt_bound,
        contact_time, impact_speed, steps_per_contact, the bounding pair)."""
        t = ffi.new("tl_timestep_info *")
        with self._hold() as h:
            self._check(lib.tl_world_timestep(h.world, t))
        return {"dt": t.dt, "dt_bound": t.dt_bound, "contact_time": t.contact_time,
                "impact_speed": t.impact_speed, "impact_speed_estimated": bool(t.impact_speed_estimated),
                "material_a": t.material_a, "material_b": t.material_b, "wall": bool(t.wall),
                "steps_per_contact": t.steps_per_contact}

    @property
    def memory_bytes(self):
        """Bytes the world has allocated now."""
        return self._read(lib.tl_world_bytes)

    @property
    def neighbor_builds(self):
        return self._read(lib.tl_world_neighbor_builds)

    @property
    def contact_count(self):
        """The touching contacts now (the length of `contacts()` read at the same instant)."""
        return self._read(lib.tl_world_contact_count)

    # ---- particle arrays: views without copies ----

    def __len__(self):
        return self._read(lib.tl_world_particle_count)

    @property
    def particle_count(self):
        return self._read(lib.tl_world_particle_count)

    @property
    def particles_removed(self):
        """Particles removed so far because they left the domain."""
        return self._read(lib.tl_world_particles_removed)

    @property
    def generation(self):
        """Changes whenever particles are added, removed, reordered or loaded."""
        a = ffi.new("tl_particle_arrays *")
        with self._hold() as h:
            lib.tl_world_particle_arrays(h.world, a)
        return a.generation

    def _view(self, name):
        with self._hold() as h:
            a = self._arrays
            lib.tl_world_particle_arrays(h.world, a)
            n = a.count
            key = (n, int(ffi.cast("uintptr_t", a.position)))
            if key != self._cache_key:
                self._cache = {}
                self._cache_key = key
                self._token = h.token(a.generation) if n else None
                if h.release_due:
                    h.release()
            arr = self._cache.get(name)
            if arr is None:
                field, cols, typestr = _ARRAYS[name]
                shape = (n,) if cols is None else (n, cols)
                if n == 0:
                    arr = np.zeros(shape, dtype=typestr)
                    arr.flags.writeable = False
                else:
                    address = int(ffi.cast("uintptr_t", getattr(a, field)))
                    arr = np.asarray(ArrayView(h, self._token, address, shape, typestr))
                self._cache[name] = arr
            return arr

    positions = _array_property("positions", "Positions (n, 3), m: a read-only view.")
    velocities = _array_property("velocities", "Velocities (n, 3), m/s: a read-only view.")
    angular_velocities = _array_property("angular_velocities",
                                         "Angular velocities (n, 3), rad/s, world frame: a read-only view.")
    forces = _array_property("forces", "Total forces of the last step (n, 3), N: a read-only view.")
    torques = _array_property("torques", "Total torques of the last step (n, 3), N m: a read-only view.")
    body_orientations = _array_property(
        "orientations",
        "Attitudes of the body frames (n, 4), quaternions w, x, y, z: a read-only view of the\n"
        "engine's own (principal axes: `orientations` times the shape's ``frame``).")

    @property
    def orientations(self):
        """Orientations (n, 4), quaternions w, x, y, z, read-only: each body's shape as given
        (a mesh as in its file) turned about its centroid, as `add_particle` takes them.

        A view of the engine's memory (`body_orientations`) where no body's shape has a
        frame apart from the shape as given (spheres, ellipsoids, meshes given in their
        principal axes); else a copy with those rows turned back, q = q_body conj(frame)."""
        with self._hold():
            return self._orientations()

    def _orientations(self):
        qb = self._view("orientations")
        frames = self._shape_frames()
        if not frames or len(qb) == 0:
            return qb
        shapes = self._view("shapes")
        out = None
        for index, f in frames.items():
            rows = shapes == index
            if not rows.any():
                continue
            if out is None:
                out = np.array(qb)
            a = qb[rows]
            w, x, y, z = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
            # a * conj(f), Hamilton product (the library's tl_shape_given_attitude)
            fw, fx, fy, fz = f[0], -f[1], -f[2], -f[3]
            out[rows] = np.stack([w * fw - x * fx - y * fy - z * fz,
                                  w * fx + x * fw + y * fz - z * fy,
                                  w * fy - x * fz + y * fw + z * fx,
                                  w * fz + x * fy - y * fx + z * fw], axis=1)
        if out is None:
            return qb
        out.flags.writeable = False
        return out

    def _shape_frames(self):
        """{shape index: frame quaternion} of the shapes whose frame is not the identity."""
        frames = {}
        info = ffi.new("tl_shape_info *")
        with self._hold() as h:
            for k in range(1, lib.tl_world_shape_count(h.world) + 1):
                if lib.tl_world_get_shape(h.world, k, info) != lib.TL_OK:
                    continue
                f = info.frame
                if (f.w, f.x, f.y, f.z) != (1.0, 0.0, 0.0, 0.0):
                    frames[k] = (f.w, f.x, f.y, f.z)
        return frames
    radii = _array_property("radii", "Radii (n,), m (bounding radius of other shapes): a read-only view.")
    masses = _array_property("masses", "Masses (n,), kg: a read-only view.")
    ids = _array_property("ids", "Particle ids (n,) of the rows of the other arrays: a read-only view.")
    material_indices = _array_property("materials", "Material index (n,) of each particle: a read-only view.")
    shape_indices = _array_property("shapes", "Shape index (n,) of each particle (0 = sphere): a read-only view.")
    flags = _array_property("flags", "Flags (n,) of each particle (fixed 1, prescribed 2, lock_rotation 4).")

    # ---- contacts, energy, collisions ----

    def contacts(self):
        """The touching contacts as a structured array.

        Fields: ``id_a``, ``id_b`` (a particle id, or the wall index when
        ``with_wall``), ``with_wall``, ``overlap`` (m), ``normal`` (3, from a
        to b), ``point`` (3, m), ``normal_force`` (N, > 0 repulsive),
        ``normal_damping_force`` (N; NaN without energy tracking),
        ``tangential_force`` (3, N, on a), ``sliding``.
        """
        with self._hold() as h:
            w = h.world
            n = lib.tl_world_contact_count(w)
            buf = ffi.new("tl_contact_info[]", max(n, 1))
            for i in range(n):
                self._check(lib.tl_world_get_contact(w, i, buf + i))
        return _structs.read_array(buf, n, _structs.CONTACT, _structs.CONTACT_PACKED)

    def energy(self):
        """The energy ledger (J) as a structured record.

        Fields: every term of the library's table of energy terms, in
        energy.csv's order (talus.energy_terms(): kinetic_translational,
        kinetic_rotational, potential, the elastic and dissipated terms of
        each law slot, boundary_work, integration_residual (the
        integration's error, docs/outputs.md), curvature_work (ellipsoid
        pairs, docs/ellipsoid.md), tangential_stiffness_work (what a
        total-form tangential spring's changing stiffness put in,
        docs/models.md)), then total (conserved).
        """
        e = ffi.new("tl_energy *")
        with self._hold() as h:
            self._check(lib.tl_world_energy(h.world, e))
        return _structs.read_array(e, 1, _structs.ENERGY, _structs.ENERGY_PACKED)[0]

    # ---- pictures ----

    _CAMERA_KEYS = ("view", "up", "center", "extent", "zoom")
    _CUT_KEYS = ("point", "normal", "thickness")

    def render(self, file, *, width=1024, height=768, camera="auto", color_by="material", range=None,
               color_bar=True, walls=True, cut=None, antialias=1):
        """Draws the world as it is into a PNG file (the scene's image output,
        docs/outputs.md "image"; the library's tl_world_render): spheres and
        ellipsoids shaded exactly per pixel, mesh bodies as their facets, with a
        depth buffer; walls as outlines (mesh walls translucent).

        width, height: pixels, 1 .. 16384 each, at most 8192 x 8192 in all;
        antialias: 1 .. 4, k x k samples averaged per pixel (smooth edges).
        camera: "auto" (fitted to the particles and the finite walls, looking
        along +y with z up) or a dict of the scene's camera keys: view, up
        (directions), center (m) and extent (m, the width shown) together, or
        neither (fitted), zoom (> 0).
        color_by: material, id, shape, radius, speed, angular_speed, force,
        torque, kinetic_energy, x, y, z or none. range: (min, max) of the colour
        map (None: the drawn particles'). color_bar, walls: draw them.
        cut: {"point": [...], "normal": [...], "thickness": m}: only the
        particles whose centre lies in that slab.

        The file is written as file.part and renamed when whole. Options out of
        range raise ValueError or TypeError (a bad keyword), a file that cannot
        be written TalusError."""
        o = ffi.new("tl_render_options *", lib.tl_render_default())
        keep = []
        for name, value in (("width", width), ("height", height)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError("render: %s must be a whole number of pixels, got %r" % (name, value))
            if not 1 <= int(value) <= lib.TL_RENDER_MAX_SIDE:
                raise ValueError("render: %s must be 1 .. %d pixels, got %d" % (name, lib.TL_RENDER_MAX_SIDE, value))
            setattr(o, name, int(value))
        if int(width) * int(height) > lib.TL_RENDER_MAX_PIXELS:
            raise ValueError("render: width x height must be at most %d pixels (8192 x 8192), got %d x %d"
                             % (lib.TL_RENDER_MAX_PIXELS, width, height))
        if isinstance(antialias, bool) or not isinstance(antialias, (int, np.integer)):
            raise TypeError("render: antialias must be a whole number 1 .. 4, got %r" % (antialias,))
        if not 1 <= int(antialias) <= 4:
            raise ValueError("render: antialias must be 1 .. 4 (samples across a pixel), got %d" % antialias)
        o.antialias = int(antialias)
        if isinstance(camera, str):
            if camera != "auto":
                raise ValueError("render: camera must be 'auto' or a dict with keys %s, got %r"
                                 % (", ".join(self._CAMERA_KEYS), camera))
        elif isinstance(camera, dict):
            _defs.check_keys("render: camera", camera, self._CAMERA_KEYS)
            for key in ("view", "up"):
                if key in camera:
                    setattr(o, key, _defs.vec3(camera[key], "render: camera %s" % key))
            if ("center" in camera) != ("extent" in camera):
                raise ValueError("render: give the camera's center (m) and extent (m, the width shown) together; "
                                 "without both the camera is fitted")
            if "center" in camera:
                o.fit = False
                o.center = _defs.vec3(camera["center"], "render: camera center")
                o.extent = self._number(camera["extent"], "render: camera extent")
            if "zoom" in camera:
                o.zoom = self._number(camera["zoom"], "render: camera zoom")
        else:
            raise TypeError("render: camera must be 'auto' or a dict, got %r" % (camera,))
        if not isinstance(color_by, str):
            raise TypeError("render: color_by must be a name (str), got %r" % (color_by,))
        o.color_by = _defs.cstr(color_by, keep)
        if range is not None:
            try:
                lo, hi = (float(v) for v in range)
            except (TypeError, ValueError):
                raise ValueError("render: range must be two numbers (min, max), got %r" % (range,)) from None
            o.color_min, o.color_max = lo, hi
        o.color_bar = bool(color_bar)
        o.walls = bool(walls)
        if cut is not None:
            if not isinstance(cut, dict):
                raise TypeError("render: cut must be a dict {point, normal, thickness}, got %r" % (cut,))
            _defs.check_keys("render: cut", cut, self._CUT_KEYS)
            missing = [k for k in self._CUT_KEYS if k not in cut]
            if missing:
                raise ValueError("render: cut needs %s" % ", ".join(missing))
            o.cut = True
            o.cut_point = _defs.vec3(cut["point"], "render: cut point")
            o.cut_normal = _defs.vec3(cut["normal"], "render: cut normal")
            o.cut_thickness = self._number(cut["thickness"], "render: cut thickness")
        path = os.fsencode(file)
        if not path or b"\0" in path:
            raise ValueError("render: file must be a path, got %r" % (file,))
        with self._hold() as h:
            st = lib.tl_world_render(h.world, path, o)
            if st == lib.TL_ERROR_ARGUMENT:
                raise ValueError(text(lib.tl_world_error(h.world)))
            self._check(st)

    @staticmethod
    def _number(value, what):
        if isinstance(value, bool):
            raise TypeError("%s must be a number, got %r" % (what, value))
        try:
            return float(value)
        except (TypeError, ValueError):
            raise TypeError("%s must be a number, got %r" % (what, value)) from None

    @property
    def log_collisions(self):
        return self._log

    @log_collisions.setter
    def log_collisions(self, enable):
        with self._change() as h:
            lib.tl_world_log_collisions(h.world, bool(enable))
            self._log = bool(enable)

    _log = False

    def collisions(self, clear=False):
        """The contacts that ended while `log_collisions` was on, as a
        structured array (id_a, id_b, with_wall, t_begin, t_end,
        normal_speed_in, normal_speed_out, restitution, max_overlap,
        max_normal_force); ``clear=True`` empties the log after reading."""
        with (self._change() if clear else self._hold()) as h:
            w = h.world
            n = lib.tl_world_collision_count(w)
            out = _structs.read_array(lib.tl_world_collisions(w), n, _structs.COLLISION,
                                      _structs.COLLISION_PACKED)
            if clear:
                lib.tl_world_clear_collisions(w)
        return out

    def estimate_pair(self, a, b, radius_a, mass_a, radius_b=None, mass_b=None, impact_speed=0.0):
        """What the law between materials a and b derives for two bodies (a
        wall when radius_b and mass_b are None): m_eff, r_eff, stiffness,
        damping, contact_time, max_overlap, ... as a dict."""
        o = ffi.new("tl_pair_estimate *")
        with self._hold():
            self._check(lib.tl_world_estimate_pair(self._w, self.material(a), self.material(b), float(radius_a),
                                                   float(mass_a), _defs.finite_or_inf(radius_b),
                                                   _defs.finite_or_inf(mass_b), float(impact_speed), o))
        return {k: getattr(o, k) for k in ("m_eff", "r_eff", "impact_speed", "stiffness", "damping",
                                           "contact_time", "max_overlap", "tangential_stiffness")}

    # ---- checkpoints ----

    def save_state(self):
        """The complete state as bytes (particles, contacts with their
        history, walls, time, energy ledger, random generator): a world built
        from the same definitions that loads them continues bit for bit."""
        data = ffi.new("void **")
        size = ffi.new("size_t *")
        with self._hold():
            self._check(lib.tl_world_save_state(self._w, data, size))
        try:
            return bytes(ffi.buffer(data[0], size[0]))
        finally:
            libc.free(data[0])

    def load_state(self, data):
        """Loads bytes from `save_state` (refused, leaving the world as it
        was, when they are truncated or of other definitions)."""
        buf = ffi.from_buffer(bytes(data))
        with self._change():
            self._check(lib.tl_world_load_state(self._w, buf, len(buf)))

    def save_checkpoint(self, path):
        """Writes `save_state` to a file (through a temporary name renamed
        into place)."""
        data = self.save_state()
        tmp = "%s.tmp%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    def load_checkpoint(self, path):
        """Loads a file written by `save_checkpoint`."""
        with open(path, "rb") as f:
            self.load_state(f.read())

    def __repr__(self):
        if self.closed:
            return "<talus.World (closed)>"
        with self._hold() as h:
            w = h.world
            return "<talus.World: %d particles, %d walls, t = %.6g s, %d steps>" % (
                lib.tl_world_particle_count(w), lib.tl_world_wall_count(w), lib.tl_world_time(w),
                lib.tl_world_step_count(w))
