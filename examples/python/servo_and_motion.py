#!/usr/bin/env python3
"""A force-controlled lid and a moving wall, driven from Python.

A bed of glass beads settles in a box open at the top. A lid (a plane) is put on it and
made force-controlled with `World.set_wall_servo`: its speed follows the error between a
target force and the force the beads push back with, so it comes down and holds the load.
Then the servo is switched off and the lid is set shaking with `World.set_wall_motion`
(an oscillation of the given amplitude and period), and the box itself rocked about a
horizontal axis. Printed: the load the lid holds against its target, the amplitude the lid
and the box moved with against the ones given, and the largest force on the lid while it
shook.

    python3 examples/python/servo_and_motion.py        (a few seconds)
"""
import math

import numpy as np

import talus


def main():
    w = talus.World(gravity=(0, 0, -9.81), seed=3)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", e=0.5, tangential="mindlin", mu=0.4)
    w.add_wall("box", "glass", name="box", min=(0, 0, 0), max=(0.02, 0.02, 0.05), open=["+z"])
    rng = np.random.default_rng(1)
    g = np.mgrid[0:5, 0:5, 0:6].reshape(3, -1).T * 3.6e-3 + 2.5e-3
    w.add_particles(g + rng.uniform(-3e-4, 3e-4, g.shape), 1.5e-3, "glass")
    weight = float(w.masses.sum()) * 9.81
    w.prepare()
    w.step(int(0.15 / w.dt))
    top = float(w.positions[:, 2].max() + 1.5e-3)
    print("%d beads settled in %.2f s, %.4f m deep (their weight %.4f N); dt = %.3g s"
          % (len(w), w.time, top, weight, w.dt))

    # the lid: a plane just above the bed, facing down, force-controlled
    w.add_wall("plane", "glass", name="lid", point=(0.01, 0.01, top + 2e-4), normal=(0, 0, -1))
    target = 10 * weight
    max_speed = 0.05
    w.set_wall_servo("lid", direction=(0, 0, -1), target_force=target, gain=max_speed / (0.6 * target),
                     max_speed=max_speed)
    w.step(int(0.1 / w.dt))
    loads = []
    for _ in range(20):                                       # its load over the next 20 ms
        w.step(int(1e-3 / w.dt))
        loads.append(w.wall("lid")["force"][2])   # the beads push it up
    lid = w.wall("lid")
    print("servo: the lid came down %.3f mm and holds %.4f N (target %.4f N: %+.2f %%, spread %.2f %%)"
          % (-1e3 * lid["displacement"][2], np.mean(loads), target, 100 * (np.mean(loads) / target - 1),
             100 * (max(loads) - min(loads)) / target))

    # the servo off, the lid shakes up and down: 0.2 mm at 50 Hz
    w.set_wall_servo("lid", None)
    amplitude, period = 2e-4, 0.02
    z0 = w.wall("lid")["displacement"][2]
    w.set_wall_motion("lid", {"kind": "oscillate", "axis": (0, 0, 1), "amplitude": amplitude, "period": period})
    # and the box rocks by 2 degrees about the y axis through its floor's centre, at 4 Hz
    w.set_wall_motion("box", {"kind": "rock", "axis": (0, 1, 0), "pivot": (0.01, 0.01, 0.0),
                              "amplitude": math.radians(2.0), "period": 0.25})
    z, angle, force = [], [], []
    n = int(round(period / 40 / w.dt))
    for _ in range(int(0.25 / (n * w.dt))):
        w.step(n)
        s = w.wall("lid")
        z.append(s["displacement"][2] - z0)
        force.append(s["force"][2])
        angle.append(w.wall("box")["angle"])
    swing = (max(z) - min(z)) / 2
    print("motion: the lid moved +-%.4f mm (given +-%.4f mm), the box rocked +-%.3f degrees (given +-2)"
          % (1e3 * swing, 1e3 * amplitude, math.degrees((max(angle) - min(angle)) / 2)))
    print("while shaking the lid met up to %.4f N (%.1f times the beads' weight)" % (max(force), max(force) / weight))
    e = w.energy()
    print("work done by the walls on the beads so far: %.4e J" % e["boundary_work"])


if __name__ == "__main__":
    main()
