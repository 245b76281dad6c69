"""Ownership of a world (or of the scene around it), shared by the World
object and the NumPy views of its particles.

The library object is freed when the last holder goes: World.close() (or
Scene.close()) gives up the Python object's hold, and a view still alive keeps
the memory until it goes too. The views of each fetch of the particle arrays
share a token; when the last view of a token goes, the handle tells the
library that no view of that generation is left, so that array blocks kept for
it (replaced by growth or a loaded state) are freed.

Every call into the library holds `lock` (a WorldLock: reentrant, and fair,
so that a thread reading between another's steps is not starved): a step, a
scene's run, and every read, so that no read meets a step of another thread
halfway. Reentrant, because a callback of Scene.run or World.step, called
inside the hold of the run or step, calls the World's methods. The release of
kept blocks only tries it (a view may die in another thread while a step runs
there, or in the thread that holds it) and otherwise waits for the next call
that holds it.
"""
import threading
import weakref
from collections import Counter, deque

from ._lib import TalusError, ffi, lib


class WorldLock:
    """The lock of one world.

    Reentrant for the thread that holds it (a progress callback of a run reads
    the world the run holds), and fair: a thread that wants it passes a gate
    first, and holds the gate while it waits, so that when the lock is released
    the waiting thread has it before a thread stepping in a loop can take it
    back. Built on the interpreter's own locks (acquired and released in C): a
    wait interrupted by Ctrl-C leaves nothing behind.
    """
    __slots__ = ("_lock", "_gate")

    def __init__(self):
        self._lock = threading.RLock()
        self._gate = threading.Lock()

    def acquire(self):
        lock = self._lock
        if not self._gate.locked() and lock.acquire(False):  # free (or this thread's): no one waits
            return True
        if lock._is_owned():
            lock.acquire()
            return True
        with self._gate:
            lock.acquire()
        return True

    def try_acquire(self):
        """Takes the lock if no thread holds it, this one included."""
        return not self._lock._is_owned() and self._lock.acquire(blocking=False)

    def release(self):
        self._lock.release()

    def pause(self):
        """Lets a thread that waits for the lock have it, then takes it back at
        the depth it was held (by the calling thread, which holds it)."""
        if not self._gate.locked() or not self._lock._is_owned():
            return
        state = self._lock._release_save()
        pending = None
        while True:  # the lock must come back, whatever is raised while waiting
            try:
                with self._gate:
                    self._lock._acquire_restore(state)
                break
            except BaseException as e:
                if self._lock._is_owned():
                    break
                pending = e
        if pending is not None:
            raise pending

    def held(self):
        """Whether the calling thread holds the lock."""
        return self._lock._is_owned()

    __enter__ = acquire

    def __exit__(self, *exc):
        self._lock.release()


class Handle:
    __slots__ = ("world", "scene", "lock", "live", "gone", "release_due", "running", "__weakref__")

    def __init__(self, world, scene=None):
        self.world = world  # tl_world *
        self.scene = scene  # tl_scene * owning the world, or None
        self.lock = WorldLock()
        self.live = Counter()  # generation -> live view tokens (changed with the lock held)
        self.gone = deque()    # generations of tokens gone, not yet counted in live
        self.release_due = False
        self.running = None    # the thread whose Scene.run runs the world (it holds the lock)

    def ptr(self):
        return self.world

    def __enter__(self):
        """Holds the lock; the handle itself (the world may not be closed)."""
        self.lock.acquire()
        return self

    def __exit__(self, *exc):
        self.lock.release()

    def free(self):
        w, s = self.world, self.scene
        self.world = self.scene = None
        if s is not None:
            lib.tl_scene_destroy(s)
        elif w is not None:
            lib.tl_world_destroy(w)

    def __del__(self):
        try:
            self.free()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    # ---- views ----

    def token(self, generation):
        """A new token for views of `generation` (lock held)."""
        tok = _Token()
        self.live[generation] += 1
        weakref.finalize(tok, _token_gone, weakref.ref(self), generation)
        return tok

    def release(self):
        """Frees the kept blocks that no live view can read (lock held)."""
        self.release_due = False
        while self.gone:
            generation = self.gone.popleft()
            self.live[generation] -= 1
            if self.live[generation] <= 0:
                del self.live[generation]
        if self.world is None:
            return
        if self.live:
            oldest = min(self.live)
        else:
            a = ffi.new("tl_particle_arrays *")
            lib.tl_world_particle_arrays(self.world, a)
            oldest = a.generation
        lib.tl_world_release_particle_arrays(self.world, oldest)


class _Token:
    __slots__ = ("__weakref__",)


def _token_gone(href, generation):
    h = href()
    if h is None:
        return
    h.gone.append(generation)  # counted in live by release, with the lock held
    if h.lock.try_acquire():
        try:
            h.release()
        finally:
            h.lock.release()
    else:
        h.release_due = True


class ArrayView:
    """The base object of one NumPy view: the raw memory and what keeps it
    valid (the handle, and the token of its generation)."""
    __slots__ = ("__array_interface__", "handle", "token")

    def __init__(self, handle, token, address, shape, typestr):
        self.handle = handle
        self.token = token
        self.__array_interface__ = {"data": (address, True), "shape": shape, "typestr": typestr,
                                    "version": 3}


class Change:
    """``with Change(handle) as h:`` holds the lock for a call that changes the
    world: refused while a scene's run, in another thread, lets readers in
    between two of its chunks (`WorldLock.pause`)."""
    __slots__ = ("h",)

    def __init__(self, h):
        self.h = h

    def __enter__(self):
        h = self.h
        h.lock.acquire()
        if h.running is not None and h.running != threading.get_ident():
            h.lock.release()
            raise running_error()
        return h

    def __exit__(self, *exc):
        self.h.lock.release()


def running_error():
    return TalusError("Scene.run is running this world: until it ends the world is read, not stepped, and "
                      "changed only from the run's callbacks (progress, callback)", "TL_ERROR_STATE")


def refuse_step(h):
    """Raises why a world that Scene.run runs (h.running set) cannot be stepped: from
    another thread, or from the run's own callbacks (as the library says of on_steps)."""
    if h.running == threading.get_ident():
        raise TalusError("step: the world is being run by tl_scene_run (Scene.run), whose callbacks may read "
                         "and change it but not step it (return talus.STOP from callback= to stop the run)",
                         "TL_ERROR_STATE")
    raise running_error()


def closed_error():
    return TalusError("the world is closed", "TL_ERROR_STATE")
