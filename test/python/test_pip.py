"""`pip install ./python` into a fresh venv (issue 41, item 6).

A venv made with --system-site-packages (it sees Debian's numpy, cffi, pytest,
setuptools and wheel) gets the package from `pip install --no-build-isolation
--no-deps --no-index ./python`, offline, with the build's library
(TALUS_LIBRARY); its interpreter then imports talus without PYTHONPATH, loads
the package's own copy of the library, steps a world, and passes the package's
doctests and two of these test files. A library that is missing or built from
other sources is refused with the reason. The sources are copied (python/ and
include/, what the wheel's build reads) so that the source tree is not written.
About 15 s, most of it the venv (ensurepip) and three pip runs.
"""
import filecmp
import os
import shutil
import subprocess
import sys

import pytest
from conftest import BUILD_DIR, SOURCE_DIR

NEEDS = {"ensurepip": "python3-venv", "setuptools": "python3-setuptools", "wheel": "python3-wheel",
         "cffi": "python3-cffi"}


def clean_env(**extra):
    """The environment without what would point at the build tree's package or library."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "TALUS_LIBRARY", "CMAKE_COMMAND") and not k.startswith("PIP_")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    if not BUILD_DIR:
        pytest.skip("TALUS_BUILD_DIR is not set (run through ctest)")
    missing = []
    for module, package in NEEDS.items():
        if subprocess.run([sys.executable, "-c", "import " + module], capture_output=True).returncode:
            missing.append(package)
    if missing:
        pytest.skip("%s cannot make a venv and build a wheel offline: install %s"
                    % (sys.executable, " ".join(missing)))
    tmp = tmp_path_factory.mktemp("pip")
    src = tmp / "src"
    shutil.copytree(os.path.join(SOURCE_DIR, "python"), src / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    shutil.copytree(os.path.join(SOURCE_DIR, "include"), src / "include")
    v = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(v)], check=True,
                   env=clean_env())
    return {"tmp": tmp, "src": src, "python": str(v / "bin" / "python"), "venv": v}


def pip_install(venv, library):
    return subprocess.run([venv["python"], "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                           "--no-index", "./python"], cwd=str(venv["src"]), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=clean_env(TALUS_LIBRARY=library))


def test_a_missing_or_foreign_library_is_refused(venv):
    out = pip_install(venv, str(venv["tmp"] / "no" / "libtalus.so"))
    assert out.returncode != 0
    assert "talus: TALUS_LIBRARY=%s is not a file" % (venv["tmp"] / "no" / "libtalus.so") in out.stdout
    import _cffi_backend
    out = pip_install(venv, _cffi_backend.__file__)  # a shared library, not libtalus: no tl_ function
    assert out.returncode != 0
    assert "lacks" in out.stdout and "functions the headers declare (tl_" in out.stdout, out.stdout[-2000:]
    nothing = subprocess.run([venv["python"], "-c", "import talus"], cwd=str(venv["tmp"]), capture_output=True,
                             text=True, env=clean_env())
    assert "No module named 'talus'" in nothing.stderr
    sources = subprocess.run([venv["python"], "-c", "import talus"], cwd=str(venv["src"] / "python"),
                             capture_output=True, text=True, env=clean_env())
    assert "ImportError: talus: no _cdef.h in %s" % (venv["src"] / "python" / "talus") in sources.stderr


def test_the_pip_installed_package_runs_without_pythonpath(venv):
    built = os.path.join(BUILD_DIR, "libtalus.so")
    out = pip_install(venv, built)
    assert out.returncode == 0, out.stdout[-3000:]
    code = ("import os, sysconfig, talus\n"
            "print(talus.__file__)\n"
            "print(talus.LIBRARY)\n"
            "print(sysconfig.get_paths()['platlib'])\n"
            "w = talus.World(gravity=(0, 0, -9.81), dt=1e-5)\n"
            "w.add_material('glass', density=2500, youngs_modulus=1e7, poisson_ratio=0.25)\n"
            "w.set_law('glass', 'glass', e=0.5, tangential='mindlin', mu=0.4)\n"
            "w.add_particle('glass', radius=1e-3, position=(0, 0, 0.01))\n"
            "w.step(100)\n"
            "print(repr(float(w.velocities[0, 2] / w.time)), talus.__version__)\n")
    got = subprocess.run([venv["python"], "-c", code], cwd=str(venv["tmp"]), capture_output=True, text=True,
                         env=clean_env())
    assert got.returncode == 0, got.stderr
    init, library, platlib, last = got.stdout.splitlines()
    package = os.path.join(platlib, "talus")
    assert platlib.startswith(str(venv["venv"]))
    assert init == os.path.join(package, "__init__.py")
    # the package's own copy of the build's library, not the build's file
    assert os.path.dirname(library) == package and os.path.basename(library).startswith("libtalus.so")
    assert filecmp.cmp(library, os.path.realpath(built), shallow=False)
    accel, version = last.split()
    assert float(accel) == pytest.approx(-9.81, rel=1e-12)
    header = open(os.path.join(SOURCE_DIR, "include", "talus", "talus.h"), encoding="utf-8").read()
    assert '#define TL_VERSION_STRING "%s"' % version in header

    # the package's doctests and two test files, by the venv's interpreter, which
    # imports the installed package first
    tests = os.path.join(SOURCE_DIR, "test", "python")
    run = ("import sys, pytest, talus\n"
           "print(talus.__file__, flush=True)\n"
           "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '--doctest-modules', '--pyargs', 'talus', "
           "%r, %r]))\n" % (os.path.join(tests, "test_lab.py"), os.path.join(tests, "test_shapes.py")))
    got = subprocess.run([venv["python"], "-c", run], cwd=str(venv["tmp"]), capture_output=True, text=True,
                         env=clean_env())
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    assert got.stdout.splitlines()[0] == init
    summary = got.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    assert int(summary.split()[0]) >= 10, summary

    # pip uninstall takes the library too (it is in the wheel's RECORD)
    subprocess.run([venv["python"], "-m", "pip", "uninstall", "-y", "talus"], check=True, capture_output=True,
                   env=clean_env())
    assert not os.path.exists(package)
