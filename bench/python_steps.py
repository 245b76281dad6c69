#!/usr/bin/env python3
"""The cost of stepping from Python: a loop of single steps (`w.step(1)` from
Python, a view read between steps) against the same steps in one C call
(`w.step(n)`), on a bed of about 10^4 glass beads settling in a box.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_steps.py [--steps 400] [--reps 3]

The two are run alternately, `reps` times each, on identical worlds; the
ratio of the medians is the Python loop's overhead (docs/python.md). Both
end in the same state, bit for bit (checked).
"""
import argparse
import statistics
import time

import numpy as np

import talus


def bed(n_side, layers, threads):
    w = talus.World(gravity=(0, 0, -9.81), threads=threads)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", normal="hertz", damping="tsuji", tangential="mindlin", e=0.5, mu=0.4)
    w.add_wall("box", "glass", min=(0, 0, 0), max=(n_side * 2.1e-3, n_side * 2.1e-3, 1.0))
    g = np.mgrid[0:n_side, 0:n_side, 0:layers].reshape(3, -1).T * 2.1e-3 + 1.05e-3
    rng = np.random.default_rng(3)
    w.add_particles(g + rng.uniform(-2e-5, 2e-5, g.shape), 1e-3, "glass",
                    velocities=rng.uniform(-0.05, 0.05, g.shape))
    w.step(2000)   # contacts formed: the steady state the loops time
    return w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    w1, w2 = bed(22, 21, a.threads), bed(22, 21, a.threads)
    n = len(w1)
    one, loop = [], []
    for _ in range(a.reps):
        t = time.perf_counter()
        w1.step(a.steps)
        one.append(time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(a.steps):
            w2.step(1)
            w2.positions   # a view read between steps, as a script would
        loop.append(time.perf_counter() - t)
    assert w1.save_state() == w2.save_state(), "the loop changed the result"
    m1, m2 = statistics.median(one), statistics.median(loop)
    print("%d particles, %d contacts, %d steps x %d reps, %d thread(s)"
          % (n, len(w1.contacts()), a.steps, a.reps, a.threads))
    print("one C call      : %.4f s median (%.3g particle-steps/s)" % (m1, n * a.steps / m1))
    print("Python step(1)  : %.4f s median (%.3g particle-steps/s)" % (m2, n * a.steps / m2))
    print("overhead of the Python loop: %+.2f%%" % (100 * (m2 / m1 - 1)))


if __name__ == "__main__":
    main()
