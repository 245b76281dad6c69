"""Talus from Python: worlds, scenes, the collision lab and calibration.

A soft-sphere discrete element engine whose contact laws are verified
(libtalus, through cffi). The particle state is read as NumPy views of the
engine's memory, without copies; steps run with the GIL released.

>>> import talus
>>> w = talus.World(gravity=(0, 0, -9.81))
>>> glass = w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
>>> w.set_law("glass", "glass", tangential="mindlin", e=0.5, mu=0.4)
>>> w.add_wall("plane", "glass", point=(0, 0, 0), normal=(0, 0, 1))
0
>>> w.add_particle("glass", radius=1e-3, position=(0, 0, 0.01))
1
>>> w.step(1000)
>>> w.positions[0, 2] < 0.01
True

See docs/python.md.
"""
from ._lib import LIBRARY, TalusError, ffi, lib
from .lab import (actm, calibrate_actm, calibrate_lambda, calibrate_restitution, calibrate_timestep, collide,
                  hertz_damped, hertz_damped_approx, hertz_damped_from_restitution, kappa, models, slots, energy_terms)
from .scene import Scene, load_scene, scene_yaml
from ._verbs import STOP
from .world import World

__version__ = ffi.string(lib.tl_version()).decode()

__all__ = ["World", "Scene", "STOP", "load_scene", "scene_yaml", "TalusError", "collide", "calibrate_actm", "calibrate_lambda",
           "calibrate_restitution", "calibrate_timestep", "hertz_damped", "hertz_damped_from_restitution",
           "hertz_damped_approx", "actm", "kappa", "models", "slots", "energy_terms", "LIBRARY", "__version__"]
