"""Per-language fixture repositories, indexed with the real type checker, against
tests/fixtures/exact/<language>.expected: every edge a correct indexer must produce (`+`, exact)
and every edge it must not (`-`, at any confidence)."""

import shutil

import pytest

from kivgraph.indexing import index_repository
from kivgraph.model import Confidence, SymbolKind
from tests.conftest import FIXTURES
from tests.scip.analyzers import require

EXACT = FIXTURES / "exact"
ANALYZER = {"go": "scip-go", "typescript": "scip-typescript", "python": "scip-python", "rust": "rust-analyzer"}
TREE = {
    "go": EXACT / "go",
    "typescript": EXACT / "typescript",
    "python": EXACT / "python",
    "rust": FIXTURES / "rust" / "workspace",
}


def expectations(language: str) -> list[tuple[str, str, str, str, Confidence]]:
    """`sign source KIND target [CONFIDENCE]`; a `+` edge is EXACT_TYPECHECKED unless said otherwise."""
    lines = (EXACT / f"{language}.expected").read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, str, str, str, Confidence]] = []
    for line in lines:
        if line.strip() and not line.startswith("#"):
            sign, source, kind, target, *confidence = line.split()
            found.append((sign, source, kind, target, Confidence(confidence[0] if confidence else "EXACT_TYPECHECKED")))
    return found


@pytest.mark.parametrize("language", sorted(ANALYZER))
def test_the_type_checker_produces_exactly_the_expected_edges(language: str, make_repo):
    require(ANALYZER[language])
    repo = make_repo(name=f"exact-{language}")
    shutil.copytree(TREE[language], repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert generation.invisible_scopes == ()
    name = {
        s.key: f"{s.file}:{'<module>' if s.kind is SymbolKind.MODULE else s.qualified_name}" for s in generation.symbols
    }
    edges = {(name[e.source], e.kind.value, name[e.target]): e.confidence for e in generation.edges}
    missing, forbidden = [], []
    for sign, source, kind, target, confidence in expectations(language):
        found = edges.get((source, kind, target))
        if sign == "+" and found is not confidence:
            missing.append(f"{source} {kind} {target} (found: {found})")
        if sign == "-" and found is not None:
            forbidden.append(f"{source} {kind} {target} ({found})")
    assert not missing and not forbidden, {"missing": missing, "forbidden": forbidden}


def test_every_expectation_file_has_its_fixture():
    assert {expected.stem for expected in EXACT.glob("*.expected")} == set(TREE)
    for expected in EXACT.glob("*.expected"):
        assert TREE[expected.stem].is_dir()
        assert all(sign in "+-" for sign, *_ in expectations(expected.stem))
