"""The wheel of the package talus (`pip install ./python`), with its own libtalus.

pip builds it in place from a Talus source tree (python/ beside include/ and
the top CMakeLists.txt). Besides the package's modules, the wheel holds

- ``_cdef.h``: the cffi declarations, generated from the public headers by
  gen_cdef.py as the CMake build does (the headers python/CMakeLists.txt lists
  in TALUS_HEADERS, in its order);
- a copy of libtalus.so, which ``_paths.py`` names beside the package, so the
  installed package depends on no build tree or PYTHONPATH.

The library is the file named by the environment variable ``TALUS_LIBRARY``
(a build tree's ``build/libtalus.so`` or an installed ``P/lib/libtalus.so``),
or, when it is not set, one CMake builds from this source tree in
``python/build/cmake`` (the target talus_shared: a minute or two the first
time, then only what changed). Either way the library must have every function
the headers declare and report the headers' version, or the build stops with
the reason. Nothing is downloaded: ``pip install --no-build-isolation`` uses
the setuptools, wheel and cffi already installed (Debian's python3-setuptools,
python3-wheel, python3-cffi). Editable installs and sdists are refused: the
package needs the generated files next to it.
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
WHERE = ("build the package from a Talus source tree: python/ beside include/talus/ and the "
         "top CMakeLists.txt (pip install ./python in the repository)")


def fail(message):
    raise SystemExit("talus: " + message)


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        fail("cannot read %s (%s); %s" % (path, e.strerror, WHERE))


def headers():
    """The public headers of the cffi declarations, as python/CMakeLists.txt lists them."""
    m = re.search(r"set\(TALUS_HEADERS\s+([^)]*)\)", read(os.path.join(HERE, "CMakeLists.txt")))
    if not m:
        fail("python/CMakeLists.txt has no set(TALUS_HEADERS ...): the headers of the declarations")
    paths = [os.path.join(SOURCE, h.replace("${PROJECT_SOURCE_DIR}/", "")) for h in m.group(1).split()]
    for p in paths:
        if not os.path.isfile(p):
            fail("the header %s is missing; %s" % (p, WHERE))
    return paths


def version():
    """The version the headers declare (TL_VERSION_STRING, include/talus/talus.h)."""
    m = re.search(r'#define\s+TL_VERSION_STRING\s+"([^"]+)"',
                  read(os.path.join(SOURCE, "include", "talus", "talus.h")))
    if not m:
        fail("include/talus/talus.h does not #define TL_VERSION_STRING")
    return m.group(1)


def cmake_library(build_dir):
    """Builds libtalus.so from this source tree with CMake; returns its path."""
    cmake = os.environ.get("CMAKE_COMMAND") or shutil.which("cmake")
    if not cmake:
        fail("no libtalus to put in the package: TALUS_LIBRARY is not set and there is no cmake "
             "to build one. Set TALUS_LIBRARY to a built or installed library (build/libtalus.so "
             "after `make`, P/lib/libtalus.so after `cmake --install build --prefix P`), or install "
             "cmake and the build's Debian packages (`make deps`).")
    if not os.path.isfile(os.path.join(SOURCE, "CMakeLists.txt")):
        fail("no CMakeLists.txt in %s to build libtalus from; set TALUS_LIBRARY, or %s" % (SOURCE, WHERE))
    jobs = [] if os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") else ["-j", str(os.cpu_count() or 2)]
    print("talus: building libtalus with CMake in %s (TALUS_LIBRARY is not set)" % build_dir, flush=True)
    for cmd in ([cmake, "-S", SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"],
                [cmake, "--build", build_dir, "--target", "talus_shared"] + jobs):
        if subprocess.run(cmd, stdout=sys.stderr).returncode != 0:
            fail("`%s` failed (its output is above); `make deps` installs the Debian packages "
                 "the build needs, or set TALUS_LIBRARY to a built library" % " ".join(cmd))
    return os.path.join(build_dir, "libtalus.so")


def check_library(path, cdef, want):
    """Refuses a library that lacks a declared function or has another version."""
    from cffi import FFI

    ffi = FFI()
    ffi.cdef(cdef)
    try:
        lib = ffi.dlopen(path)
    except OSError as e:
        fail("cannot load the library %s: %s" % (path, e))
    missing = []
    for name in dir(lib):
        try:
            getattr(lib, name)
        except AttributeError:
            missing.append(name)
    if missing:
        fail("%s lacks %d functions the headers declare (%s%s): it was built from other "
             "sources; rebuild it from this tree" % (
                 path, len(missing), ", ".join(missing[:5]), ", ..." if len(missing) > 5 else ""))
    got = ffi.string(lib.tl_version()).decode()
    if got != want:
        fail("%s is version %s, the headers are %s; rebuild it from this tree" % (path, got, want))
    ffi.dlclose(lib)


class build_py(_build_py):
    """The modules, then _cdef.h, the library and the _paths.py that names it."""

    def run(self):
        super().run()
        sys.path.insert(0, HERE)
        import gen_cdef

        pkg = os.path.join(self.build_lib, "talus")
        cdef_path = os.path.join(pkg, "_cdef.h")
        gen_cdef.main(["gen_cdef.py", cdef_path] + headers())
        env = os.environ.get("TALUS_LIBRARY")
        if env:
            if not os.path.isfile(env):
                fail("TALUS_LIBRARY=%s is not a file%s; name libtalus.so of a build tree "
                     "(build/libtalus.so) or of an installed prefix (P/lib/libtalus.so), or leave "
                     "it unset to build the library with CMake" % (env, "" if os.path.isabs(env) else
                     " (a relative path is taken from %s, where pip runs the build: give an "
                     "absolute one, e.g. $PWD/build/libtalus.so)" % os.getcwd()))
            src = env
        else:
            build_base = os.path.abspath(self.get_finalized_command("build").build_base)
            src = cmake_library(os.path.join(build_base, "cmake"))
        src = os.path.realpath(src)
        check_library(src, read(cdef_path), version())
        for old in os.listdir(pkg):  # an earlier build's copy, maybe of another version
            if old.startswith("libtalus"):
                os.remove(os.path.join(pkg, old))
        name = os.path.basename(src)
        shutil.copyfile(src, os.path.join(pkg, name))
        os.chmod(os.path.join(pkg, name), 0o755)
        with open(os.path.join(pkg, "_paths.py"), "w", encoding="utf-8") as f:
            f.write("# written by setup.py (pip install): the package's own libtalus, beside it\n"
                    "# (a copy of %s)\n"
                    "import os\n\n\n"
                    "def library(here):\n"
                    "    return os.path.join(here, %r)\n" % (src, name))


try:  # setuptools >= 70.1 has it; before, the package wheel
    from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel as _bdist_wheel
    except ImportError:
        _bdist_wheel = None

cmdclass = {"build_py": build_py}
if _bdist_wheel is not None:
    class bdist_wheel(_bdist_wheel):
        """py3-none-<platform>: any Python 3 (cffi's ABI mode), this machine's library."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = bdist_wheel


def refused(base):
    """Editable installs and sdists: the package needs the files the wheel's build makes."""
    class Refused(base):
        def run(self):
            fail("only wheels are built (pip install ./python): an editable install or an sdist "
                 "would lack the generated _cdef.h and the library; for development use the build "
                 "tree's package (PYTHONPATH=build/python)")
    return Refused


cmdclass["sdist"] = refused(sdist)
try:  # setuptools >= 64
    from setuptools.command.editable_wheel import editable_wheel

    cmdclass["editable_wheel"] = refused(editable_wheel)
except ImportError:
    pass


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # a platform wheel: it holds libtalus.so
        return True


setup(version=version(), packages=["talus"], cmdclass=cmdclass, distclass=BinaryDistribution)
