"""`cmake --install` puts a package that imports and runs from the prefix,
loading the installed library (not the build tree's)."""
import os
import subprocess
import sys

import pytest

BUILD_DIR = os.environ.get("TALUS_BUILD_DIR", "")
CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")


def test_the_installed_package_imports_and_steps(tmp_path):
    if not BUILD_DIR:
        pytest.skip("TALUS_BUILD_DIR is not set (run through ctest)")
    prefix = tmp_path / "prefix"
    subprocess.run([CMAKE, "--install", BUILD_DIR, "--prefix", str(prefix)], check=True,
                   stdout=subprocess.DEVNULL)
    found = [os.path.join(root) for root, dirs, _ in os.walk(prefix) if "talus" in dirs
             and os.path.exists(os.path.join(root, "talus", "__init__.py"))]
    assert len(found) == 1, found
    assert os.path.exists(prefix / "include" / "talus" / "talus.h")
    assert os.path.exists(prefix / "bin" / "talus")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TALUS_LIBRARY")}
    env["PYTHONPATH"] = found[0]
    code = ("import talus\n"
            "w = talus.World(gravity=(0, 0, -9.81), dt=1e-5)\n"
            "w.add_material('glass', density=2500, youngs_modulus=1e7, poisson_ratio=0.25)\n"
            "w.set_law('glass', 'glass', e=0.5)\n"
            "w.add_particle('glass', radius=1e-3, position=(0, 0, 0.01))\n"
            "w.step(100)\n"
            "print(talus.LIBRARY)\n"
            "print(repr(float(w.velocities[0, 2] / w.time)))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path), check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0].startswith(str(prefix)) and os.path.exists(out[0])
    assert float(out[1]) == pytest.approx(-9.81, rel=1e-12)
