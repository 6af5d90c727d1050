"""Only for the mypyc extension modules; everything else is in pyproject.toml."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "_backend"))
import unievent_build

setup(ext_modules=unievent_build.extensions())
