"""Missing dependencies: a test that lacks one (the LAMMPS of scripts/lammps.sh, the plugin, ASE,
lammps-data's potentials, the quasar command) skips, saying why, except where the run requires every
dependency (QUASAR_REQUIRE_DEPENDENCIES=1, as CI sets it): there the skip becomes a failure. Tests
marked `gpu` skip without a GPU in any case."""
import os

import pytest

REQUIRED = os.environ.get("QUASAR_REQUIRE_DEPENDENCIES", "") not in ("", "0")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU; skips without one even where dependencies are required")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRED and report.skipped and not hasattr(report, "wasxfail") and item.get_closest_marker("gpu") is None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"{reason} (required here: QUASAR_REQUIRE_DEPENDENCIES is set)"
