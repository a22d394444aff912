"""Running the real SCIP indexers from tests: skipped when absent, failed when CI requires them
(`KIVGRAPH_REQUIRE_ANALYZERS=1`)."""

import os
import subprocess
from pathlib import Path

import pytest

from kivgraph.scip.analyzers import ANALYZERS, analyzer_environment, locate


def require(name: str) -> str:
    [spec] = [s for s in ANALYZERS if s.name == name]
    found = locate(spec)
    if not found.usable:
        message = f"{name} is not usable: {found.problem}"
        if os.environ.get("KIVGRAPH_REQUIRE_ANALYZERS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found.path


def run_indexer(args: list[str], cwd: Path) -> None:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=analyzer_environment(), timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
