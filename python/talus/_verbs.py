"""The verbs of a World that change many particles at once, find rows by id,
and spread it over MPI ranks (mixed into talus.World), and the step callback
of Scene.run (World.step's is in world.py, in its loop of chunks);
docs/python.md, "Changing many particles", "Callbacks while stepping", "MPI".

Every change here is all or nothing: the library checks every id and every
value before it changes anything (tl_world_set_particles,
tl_world_remove_particles).
"""
import numpy as np

from ._lib import TalusError, ffi, lib, libc, status_name

_UINT32_MAX = 2 ** 32 - 1


class _Stop:
    """The value a step callback returns to stop (talus.STOP)."""

    __slots__ = ()

    def __repr__(self):
        return "talus.STOP"


STOP = _Stop()


def _ids(ids, what="ids"):
    """ids as a contiguous uint32 array (1-D), and whether a single id was given."""
    a = np.asarray(ids)
    single = a.ndim == 0
    if a.ndim > 1:
        raise ValueError("%s must be one id or a 1-D array of ids, got an array of shape %s" % (what, a.shape))
    if a.dtype == np.bool_ or a.dtype.kind not in "iu":
        if a.size == 0:
            a = a.astype(np.int64)
        else:
            raise TypeError("%s must be integers (particle ids), got %s" % (what, a.dtype))
    a = a.reshape(-1)
    if a.size and (a.min() < 0 or a.max() > _UINT32_MAX):
        bad = a[(a < 0) | (a > _UINT32_MAX)][0]
        raise ValueError("%s: %d is not a particle id (ids are 1 to 2^31 - 1)" % (what, bad))
    return np.ascontiguousarray(a, dtype=np.uint32), single


def _vectors(values, n, what):
    """values as a contiguous (n, 3) float64 array: an (n, 3) array, or one (3,) vector for all."""
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("%s must be numbers, an array (n, 3) or one vector (3,)" % what) from None
    if v.shape == (3,):
        v = np.broadcast_to(v, (n, 3))
    elif v.shape != (n, 3):
        raise ValueError("%s must be an array of shape (%d, 3), one row per id, or one vector (3,) for all; "
                         "got shape %s" % (what, n, v.shape))
    return np.ascontiguousarray(v)


def check_every(every):
    if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
        raise ValueError("every must be an integer >= 1 (steps between the callback's calls), got %r" % (every,))
    return int(every)


def check_callback(callback):
    if not callable(callback):
        raise TypeError("callback must be callable (it is called with the World), got %r" % (callback,))
    return callback


_GATHERED = ("id", "material", "shape", "radius", "mass", "position", "velocity", "angular_velocity", "force",
             "torque")


class WorldVerbs:
    """Mixed into talus.World (which provides _w, _hold, _change, _read, _check, _view, step)."""

    # ---- rows by id ----

    def index_of(self, ids):
        """The rows of the particle arrays that hold the given ids.

        The arrays (`positions`, `velocities`, ...) are in storage order,
        which changes when particles are added, removed or reordered along
        the cells (docs/engine.md); ``w.positions[w.index_of(ids)]`` reads
        them in the order of `ids` at any time.

        Parameters
        ----------
        ids : int or array_like of int

        Returns
        -------
        int or numpy.ndarray (intp)
            A row for each id (an int for a single id).

        Raises
        ------
        KeyError
            When an id names no particle (the message lists the first ones).
        """
        want, single = _ids(ids)
        with self._hold():  # the ids and their generation of the same instant
            have = self._view("ids")
            key = (self.generation, len(have))
            cached = getattr(self, "_index_cache", None)
            if cached is None or cached[0] != key:
                order = np.argsort(have, kind="stable")
                cached = (key, np.asarray(have)[order], order)
                self._index_cache = cached
        _, sorted_ids, order = cached
        pos = np.searchsorted(sorted_ids, want)
        pos_c = np.minimum(pos, max(len(sorted_ids) - 1, 0))
        found = (pos < len(sorted_ids)) & (sorted_ids[pos_c] == want) if len(sorted_ids) else np.zeros(len(want), bool)
        if not found.all():
            missing = want[~found]
            raise KeyError("no particle with id %s (%d of the %d ids given are not in the world)"
                           % (", ".join(str(int(i)) for i in missing[:5]) + (", ..." if len(missing) > 5 else ""),
                              len(missing), len(want)))
        rows = order[pos_c].astype(np.intp)
        return int(rows[0]) if single else rows

    # ---- many particles at once ----

    def _set_many(self, field, ids, values, what):
        idv, _ = _ids(ids)
        vals = _vectors(values, len(idv), what)
        if len(idv) == 0:
            return
        with self._change():
            self._check(lib.tl_world_set_particles(self._w, field, ffi.cast("const uint32_t *", ffi.from_buffer(idv)),
                                                   len(idv), ffi.cast("const double *", ffi.from_buffer(vals))))

    def set_positions(self, ids, positions):
        """Moves particles: new positions (m) for the given ids.

        Parameters
        ----------
        ids : int or array_like of int (n,)
        positions : array_like (n, 3), or (3,) for all of them

        All or nothing: an unknown or repeated id, a shape other than (n, 3),
        a value that is not finite, beyond 1e12 m or outside the domain on an
        axis that is not periodic refuses the call and changes nothing. The
        next step rebuilds the neighbor lists if a particle moved more than
        half the skin; a move is energy given by hand (not in the ledger).
        """
        self._set_many(lib.TL_SET_POSITION, ids, positions, "positions")

    def set_velocities(self, ids, velocities):
        """New velocities (m/s) for the given ids: an array (n, 3), or (3,) for all.

        All or nothing (as `set_positions`); a fixed particle is refused (a
        prescribed one moves with the velocity it is given).
        """
        self._set_many(lib.TL_SET_VELOCITY, ids, velocities, "velocities")

    def set_angular_velocities(self, ids, angular_velocities):
        """New angular velocities (rad/s, world frame) for the given ids: an
        array (n, 3), or (3,) for all. All or nothing; a fixed particle is refused."""
        self._set_many(lib.TL_SET_ANGULAR_VELOCITY, ids, angular_velocities, "angular_velocities")

    def set_forces(self, ids, forces):
        """Constant external forces (N) on the given ids, added to their
        contact forces every step until changed (a zero row removes one): an
        array (n, 3), or (3,) for all. All or nothing. As
        `set_particle_force`, counted as the potential -F.x in the energy."""
        self._set_many(lib.TL_SET_EXTERNAL_FORCE, ids, forces, "forces")

    def remove_particles(self, ids):
        """Removes particles by id (one, or an array), all or nothing.

        Their contacts go with them, the contacts' history too, and the
        energy they carry (kinetic, potential, the elastic energy of their
        contacts) is booked as leaving through the boundary
        (``energy()["boundary_work"]`` falls by it), so ``energy()["total"]``
        stays. Automatic ids are never given again. `particles_removed`
        counts only the particles that left the domain.

        Raises
        ------
        TalusError
            For an unknown or repeated id (nothing is removed then).
        """
        idv, _ = _ids(ids)
        if len(idv) == 0:
            return
        with self._change():
            self._check(lib.tl_world_remove_particles(self._w, ffi.cast("const uint32_t *", ffi.from_buffer(idv)),
                                                      len(idv)))

    # ---- MPI ----

    def distribute(self, comm=None):
        """Spreads the world over MPI ranks (docs/parallel.md): every rank
        builds the same world, calls this before the first step, then steps
        it; the run ends in the serial run's bits.

        Parameters
        ----------
        comm : mpi4py.MPI.Comm, optional
            The communicator whose ranks share the world (the world works on
            a duplicate of it); default MPI_COMM_WORLD. MPI must be started:
            ``from mpi4py import MPI`` does it.

        Notes
        -----
        Once spread, each rank's views and `particle` see its own particles
        and the ghost copies of its neighbours' (`gather_particles` collects
        them all on rank 0); `energy`, `step`, `contacts` on rank 0's record
        view and `save_state` are collective (every rank calls them).
        `set_positions` and the other many-particle verbs and
        `remove_particles` are refused once the world is prepared.
        """
        with self._change() as h:
            if comm is None:
                st = lib.tl_world_distribute(h.world)
            else:
                py2f = getattr(comm, "py2f", None)
                if py2f is None:
                    raise TypeError("comm must be an mpi4py communicator (e.g. mpi4py.MPI.COMM_WORLD), got %r"
                                    % (comm,))
                st = lib.tl_world_distribute_comm(h.world, int(py2f()))
            msg = ffi.string(lib.tl_world_error(h.world)).decode() if st != lib.TL_OK else ""
        if st != lib.TL_OK:
            if "MPI_Init" in msg:
                msg += " (from Python: `from mpi4py import MPI` starts MPI; run under mpirun)"
            raise TalusError(msg, status_name(st))

    @property
    def rank(self):
        """This process's rank in the world's communicator (0 when serial)."""
        return self._read(lib.tl_world_rank)

    @property
    def ranks(self):
        """The ranks the world is spread over (1 when serial)."""
        return self._read(lib.tl_world_ranks)

    @property
    def particle_total(self):
        """The particles of all ranks (`particle_count` in a serial world)."""
        return self._read(lib.tl_world_particle_total)

    def gather_particles(self):
        """Every rank's particles on rank 0, in the serial run's storage
        order, as a structured array (id, material, shape, radius, mass,
        position, velocity, angular_velocity, force, torque); None on the
        other ranks. Collective: every rank calls it. In a serial world: all
        the particles."""
        from ._structs import packed, read_array, struct_dtype

        out = ffi.new("tl_particle_state **")
        n = ffi.new("size_t *")
        with self._hold():
            self._check(lib.tl_world_gather_particles(self._w, out, n))
        dt = struct_dtype("tl_particle_state", list(_GATHERED))
        try:
            if out[0] == ffi.NULL:
                return None
            return read_array(out[0], n[0], dt, packed(dt))
        finally:
            if out[0] != ffi.NULL:
                libc.free(out[0])


# ---- Scene.run's step callback ----

def run_callback(world, callback, every, opt, keep):
    """Sets opt.on_steps to call callback(world) after every `every` steps of
    a scene's run; returns the state that `run_callback_outcome` reads (None
    without a callback). No exception leaves the C callback: one raised in
    the callback (KeyboardInterrupt included) stops the run and is raised by
    Scene.run once the outputs are committed."""
    if callback is None:
        return None
    check_callback(callback)
    every = check_every(every)
    state = {"stop": False, "error": None}

    def on_error(exc_type, exc_value, tb):
        state["error"] = exc_value if exc_value is not None else exc_type()
        return True

    @ffi.callback("bool(tl_world *, void *)", error=True, onerror=on_error)
    def on_steps(w, user):
        if callback(world) is STOP:
            state["stop"] = True
            return True
        return False

    keep.append(on_steps)
    opt.on_steps = on_steps
    opt.step_every = every
    return state


def run_callback_outcome(state, status, message):
    """After tl_scene_run: raises the callback's exception; True when the
    callback stopped the run (Scene.run then returns its summary). On MPI
    ranks rank 0's answer stops every rank: the run's message says so."""
    if state is None:
        return False
    if state["error"] is not None:
        raise state["error"]
    return status == lib.TL_INTERRUPTED and (state["stop"] or "stopped by the step callback" in message)
