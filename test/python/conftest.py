"""Shared pieces of the Python tests: the paths the build passes (TALUS_CLI,
TALUS_SOURCE_DIR, TALUS_BUILD_DIR) and a small bed of beads."""
import os

import numpy as np
import pytest

import talus

CLI = os.environ.get("TALUS_CLI", "")
SOURCE_DIR = os.environ.get("TALUS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.environ.get("TALUS_BUILD_DIR", "")


def make_bed(n_side=6, layers=4, threads=1, **settings):
    """n_side^2 x layers glass beads (1 mm) on a lattice above a floor, with a
    little random jitter and sideways speed: contacts form within a few
    hundred steps."""
    w = talus.World(gravity=(0, 0, -9.81), threads=threads, **settings)
    w.add_material("glass", density=2500, youngs_modulus=1e7, poisson_ratio=0.25)
    w.set_law("glass", "glass", normal="hertz", damping="tsuji", tangential="mindlin", e=0.5, mu=0.4)
    w.add_wall("plane", "glass", name="floor", point=(0, 0, 0), normal=(0, 0, 1))
    rng = np.random.default_rng(7)
    g = np.mgrid[0:n_side, 0:n_side, 0:layers].reshape(3, -1).T * 2.1e-3 + 1.1e-3
    g = g + rng.uniform(-2e-5, 2e-5, g.shape)
    v = rng.uniform(-0.01, 0.01, g.shape)
    w.add_particles(g, 1e-3, "glass", velocities=v)
    return w


@pytest.fixture
def bed():
    w = make_bed()
    yield w
    w.close()


def need_cli():
    if not CLI or not os.path.exists(CLI):
        pytest.skip("TALUS_CLI does not name the talus command (run through ctest)")
    return CLI
