"""Ownership of a world (or of the scene around it), shared by the World
object and the NumPy views of its particles.

The library object is freed when the last holder goes: World.close() (or
Scene.close()) gives up the Python object's hold, and a view still alive keeps
the memory until it goes too. The views of each fetch of the particle arrays
share a token; when the last view of a token goes, the handle tells the
library that no view of that generation is left, so that array blocks kept for
it (replaced by growth or a loaded state) are freed.

Calls that change the world hold `lock` (re-entrant: a callback of
Scene.run, called inside the run's hold, calls the World's methods); the release of kept blocks only
tries it (a view may die in another thread while a step runs there) and
otherwise waits for the next fetch.
"""
import threading
import weakref
from collections import Counter

from ._lib import TalusError, ffi, lib


class Handle:
    __slots__ = ("world", "scene", "lock", "live", "release_due", "__weakref__")

    def __init__(self, world, scene=None):
        self.world = world  # tl_world *
        self.scene = scene  # tl_scene * owning the world, or None
        self.lock = threading.RLock()  # re-entered by a Scene.run callback's calls
        self.live = Counter()  # generation -> live view tokens
        self.release_due = False

    def ptr(self):
        return self.world

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
        """A new token for views of `generation`."""
        tok = _Token()
        self.live[generation] += 1
        weakref.finalize(tok, _token_gone, weakref.ref(self), generation)
        return tok

    def release(self):
        """Frees the kept blocks that no live view can read (lock held)."""
        self.release_due = False
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
    h.live[generation] -= 1
    if h.live[generation] <= 0:
        del h.live[generation]
    if h.lock.acquire(blocking=False):
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


def closed_error():
    return TalusError("the world is closed", "TL_ERROR_STATE")
