"""Test set-up: find the package in a source checkout and register Hypothesis profiles."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

pytest_plugins = ["tests.transition_coverage"]

if importlib.util.find_spec("unievent") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "decoder"))

# `unievent` (default): no deadline (CI machines vary), the usual example count.
# `ci`: the same examples on every run.  Pick with HYPOTHESIS_PROFILE=<name>.
settings.register_profile("unievent", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "unievent"))
