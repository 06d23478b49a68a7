# SPDX-License-Identifier: Apache-2.0
"""Build the spt wheel: the Python package and its own copy of libspt.so.

    pip install ./python                          # from the repository root
    pip install --no-build-isolation ./python     # offline, with setuptools and wheel from Debian

The library is $SPT_LIB when set; otherwise ../build/libspt.so, brought up to date by running `make`
in the repository first (so a fresh clone needs no prior make; it needs a C compiler, libzip-dev and
libpng-dev: `sh tools/install-deps.sh build`). The version is the one of include/spt.h. The wheel is a
platform wheel (py3-none-linux_<arch>): it holds a compiled library but no Python extension module, so
any Python 3 on that platform can load it."""
import importlib.util
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel package: pip builds the wheel through setuptools' own copy
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    """SPT_VERSION_MAJOR.MINOR.PATCH of include/spt.h (or, in an unpacked sdist, its PKG-INFO)."""
    header = os.path.join(ROOT, "include", "spt.h")
    spec = importlib.util.spec_from_file_location("spt_version", os.path.join(HERE, "spt", "_version.py"))
    reader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader)
    v = reader.from_header(header)
    if v:
        return v
    info = os.path.join(HERE, "PKG-INFO")
    if os.path.exists(info):
        with open(info, encoding="utf-8") as f:
            m = re.search(r"^Version:\s*(\S+)", f.read(), re.M)
        if m:
            return m.group(1)
    raise SystemExit("spt setup.py: cannot find the version (include/spt.h is not at %s)" % header)


def library():
    """The path of the libspt.so to put in the wheel, built by make when needed."""
    env = os.environ.get("SPT_LIB")
    if env:
        if not os.path.isfile(env):
            raise SystemExit("spt setup.py: $SPT_LIB=%s is not a file" % env)
        return env
    lib = os.path.join(ROOT, "build", "libspt.so")
    if os.path.exists(os.path.join(ROOT, "Makefile")):
        # make rebuilds only what changed, so the wheel never carries a stale library. The make variables
        # of a calling make (its jobserver) do not apply here.
        menv = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        jobs = str(max(1, min(4, os.cpu_count() or 1)))
        try:
            subprocess.check_call(["make", "-C", ROOT, "-j" + jobs, "--no-print-directory", "build/libspt.so"],
                                  env=menv)
        except FileNotFoundError:
            if not os.path.isfile(lib):
                raise SystemExit("spt setup.py: `make` is not installed and %s does not exist" % lib) from None
        except subprocess.CalledProcessError as e:
            raise SystemExit("spt setup.py: building libspt.so failed (make exit %d); "
                             "install the build dependencies with `sh tools/install-deps.sh build`" % e.returncode)
    if not os.path.isfile(lib):
        raise SystemExit("spt setup.py: %s does not exist (set SPT_LIB to a libspt.so)" % lib)
    return lib


class BuildWithLib(build_py):
    """build_py, then the library (and the license) copied into the package."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "spt")
        os.makedirs(pkg, exist_ok=True)
        shutil.copyfile(library(), os.path.join(pkg, "libspt.so"))
        os.chmod(os.path.join(pkg, "libspt.so"), 0o755)
        lic = os.path.join(ROOT, "LICENSE")
        if os.path.exists(lic):
            shutil.copyfile(lic, os.path.join(pkg, "LICENSE"))


class PlatformDistribution(Distribution):
    """The wheel holds a compiled library: never a pure (any-platform) distribution."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildWithLib}
if bdist_wheel is not None:

    class PlatformWheel(bdist_wheel):
        """Tagged py3-none-<platform>: the library is loaded with ctypes, so no Python ABI is involved."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            plat = super().get_tag()[2]
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel

setup(version=version(), cmdclass=cmdclass, distclass=PlatformDistribution)
