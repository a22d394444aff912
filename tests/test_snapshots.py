"""Every fixture tree under tests/fixtures/<language>/<case>/ has an annotated snapshot under
tests/snapshots/<language>/<case>.txt; indexing it must reproduce the snapshot exactly."""

import os
from pathlib import Path

import pytest

from tests.annotate import annotate, index_fixture
from tests.conftest import FIXTURES

SNAPSHOTS = Path(__file__).parent / "snapshots"
LANGUAGES = ("python", "go", "typescript", "javascript", "rust", "dart")
CASES = sorted(
    case
    for language in LANGUAGES
    if (FIXTURES / language).is_dir()
    for case in (FIXTURES / language).iterdir()
    if case.is_dir()
)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_indexing_the_fixture_reproduces_its_annotated_snapshot(case: Path, make_repo):
    generation, root = index_fixture(case, make_repo)
    actual = annotate(generation, root)
    snapshot = SNAPSHOTS / case.parent.name / f"{case.name}.txt"
    if os.environ.get("KIVGRAPH_UPDATE_SNAPSHOTS") or not snapshot.exists():
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(actual, encoding="utf-8")
        if not os.environ.get("KIVGRAPH_UPDATE_SNAPSHOTS"):
            pytest.fail(f"wrote a new snapshot {snapshot}; review it and commit it")
    assert actual == snapshot.read_text(encoding="utf-8")
