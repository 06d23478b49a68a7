"""Offline install: `make && pip install --no-build-isolation ./python` (or `make install`).

When ../build/libspt.so (or $SPT_LIB) exists it is copied into the package, so the installed package
finds its library without any environment variable."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithLib(build_py):
    def run(self):
        super().run()
        here = os.path.dirname(os.path.abspath(__file__))
        src = os.environ.get("SPT_LIB") or os.path.join(here, "..", "build", "libspt.so")
        if os.path.exists(src):
            dst = os.path.join(self.build_lib, "spt", "libspt.so")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)


setup(cmdclass={"build_py": BuildWithLib})
