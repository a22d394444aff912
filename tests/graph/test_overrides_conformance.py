"""Overrides are declarations, not uses: `find_references` lists them apart. A change to an interface
member breaks the types that implement it where they are used as the interface (CONFORMANCE), in
languages that check conformance at the use. Real repositories (tests/fixtures/conformance/<case>)
indexed by the real analyzers; what must be found is what the compiler reports once the member is
renamed (tsc, go build), written down beside each test."""

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.impact.analysis import analyze
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

CASES = FIXTURES / "conformance"
Row = dict[str, Any]


def committed(base: Path, case: str) -> Repo:
    repo = Repo(base / case)
    shutil.copytree(CASES / case, repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    return repo


def indexed(base: Path, case: str) -> Path:
    repo = committed(base, case)
    result = CliRunner().invoke(cli, ["index", str(repo.path)])
    assert result.exit_code == 0, result.output
    return repo.path


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-python")
    return indexed(tmp_path_factory.mktemp("overrides"), "python")


@pytest.fixture(scope="module")
def typescript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-typescript")
    return indexed(tmp_path_factory.mktemp("conformance"), "typescript")


@pytest.fixture(scope="module")
def go(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-go")
    return indexed(tmp_path_factory.mktemp("conformance"), "go")


def ask(served: Path, tool: str, **arguments: object) -> Row:
    result = CliRunner().invoke(cli, ["query", tool, "--repo", str(served), "--json", json.dumps(arguments)])
    assert result.exit_code == 0, result.output
    answer: Row = json.loads(result.stdout)
    return answer


def rows(answer: Row, group: str) -> set[tuple[str, str, str, str]]:
    """(qualified name, edge kind, confidence, via) of a full answer's group."""
    return {(r["qualified_name"], r["edge_kind"], r["confidence"], r.get("via", "")) for r in answer["results"][group]}


def labels(page: Row) -> Iterator[str]:
    """The qualified names a compact page lists, grouped or not."""
    for section in page.get("groups", [page]):
        for item in section.get("files", []):
            for entry in item["at"]:
                yield (entry if isinstance(entry, str) else entry[0]).rpartition("@")[0]


def reached(answer: Row) -> dict[str, Row]:
    return {r["qualified_name"]: r for r in answer["results"]["symbols"]}


# -- overrides (Python: renaming the base method breaks no override) --------------------------------


def test_an_override_is_listed_apart_from_the_references_of_the_base_method(python: Path):
    answer = ask(python, "find_references", qualified_name="Base.run", view="full")
    assert rows(answer, "references") == {("call", "CALLS_DIRECT", "EXACT_TYPECHECKED", "")}
    # Grandchild.run overrides Child.run, not Base.run; `make` calls Child.run.
    assert rows(answer, "overrides") == {("Child.run", "OVERRIDES", "EXACT_TYPECHECKED", "")}
    assert "conformance" not in answer["results"]  # Python overriding is nominal: no use site breaks
    assert answer["results"]["counts"] == {"references": 1, "overrides": 1, "conformance": 0}
    assert (answer["total"], answer["returned"]) == (2, 2)
    assert answer["completeness"] == {"verdict": "COMPLETE"}


def test_the_compact_and_files_views_keep_the_overrides_under_their_own_key(python: Path):
    compact = ask(python, "find_references", qualified_name="Base.run")["results"]
    assert list(labels(compact)) == ["call"]
    assert list(labels(compact["overrides"])) == ["Child.run"]
    assert compact["overrides"]["edge_kind"] == "OVERRIDES"
    files = ask(python, "find_references", qualified_name="Base.run", view="files")["results"]
    assert files["files"] == [{"file": "pkg/use.py", "count": 1}]
    assert files["overrides"] == {"files": [{"file": "pkg/base.py", "count": 1}]}


def test_the_other_direction_lists_what_a_method_overrides_as_an_override(python: Path):
    answer = ask(python, "find_references", qualified_name="Child.run", direction="outgoing", view="full")
    assert rows(answer, "overrides") == {("Base.run", "OVERRIDES", "EXACT_TYPECHECKED", "")}
    assert rows(answer, "references") == set()


def test_a_method_that_is_only_overridden_says_nothing_uses_it(python: Path):
    answer = ask(python, "find_references", qualified_name="Job.stop")
    assert answer["total"] == 1 and "files" not in answer["results"]
    assert list(labels(answer["results"]["overrides"])) == ["QuickJob.stop"]
    assert answer["guidance"].startswith("no use names this symbol; 1 override is listed apart")


def test_edge_kinds_choose_between_uses_and_overrides(python: Path):
    calls = ask(python, "find_references", qualified_name="Base.run", edge_kinds=["CALLS_DIRECT"], view="full")
    assert rows(calls, "references") == {("call", "CALLS_DIRECT", "EXACT_TYPECHECKED", "")}
    assert "overrides" not in calls["results"] and "counts" not in calls["results"]
    overrides = ask(python, "find_references", qualified_name="Base.run", edge_kinds=["OVERRIDES"], view="full")
    assert rows(overrides, "references") == set()
    assert rows(overrides, "overrides") == {("Child.run", "OVERRIDES", "EXACT_TYPECHECKED", "")}


def test_the_blast_radius_still_follows_an_override_to_its_callers(python: Path):
    found = reached(ask(python, "get_blast_radius", qualified_name="Base.run", view="full"))
    assert (found["Child.run"]["via_kind"], found["Child.run"]["depth"]) == ("OVERRIDES", 1)
    assert (found["make"]["reached_from"], found["make"]["depth"]) == ("Child.run", 2)
    assert found["call"]["via_kind"] == "CALLS_DIRECT"
    assert not any(r["via_kind"] == "CONFORMANCE" for r in found.values())


# -- conformance (TypeScript) ----------------------------------------------------------------------

TS_SITES = {("build", "Square"), ("build", "Circle"), ("indirect", "Cube"), ("indirect", "Square")}
"""What tsc reports once `Shape.area` is renamed, beside shape.ts(22) `s.area` (total) and the classes
Square and Circle, which no longer implement Shape (their `area` members are the overrides):
main.ts(6) twice (build passes a Square and a Circle as Shapes) and main.ts(11) three times
(indirect passes a Cube, the constant `unit` and what `makeSquare()` returns: Squares). Each is a
use of the type named in `via`; label and via use a Square but never as a Shape, and compile."""


def test_renaming_a_typescript_interface_member_reaches_the_uses_of_its_implementations(typescript: Path):
    answer = ask(typescript, "find_references", qualified_name="Shape.area", view="full")
    assert rows(answer, "references") == {("total", "CALLS_DIRECT", "EXACT_TYPECHECKED", "")}
    assert rows(answer, "overrides") == {("Square.area", "IMPLEMENTS", "EXACT_TYPECHECKED", ""),
                                         ("Circle.area", "IMPLEMENTS", "EXACT_TYPECHECKED", "")}  # fmt: skip
    conformance = rows(answer, "conformance")
    assert {(name, via) for name, _, _, via in conformance} == TS_SITES
    # Not label or makeSquare (uses of Square that never meet Shape), not via (member accesses),
    # not main.ts's import, not the classes' own members.
    assert {(kind, confidence) for _, kind, confidence, _ in conformance} == {("CONFORMANCE", "CANDIDATE")}
    assert {name.rpartition(".")[0] for name, *_ in rows(answer, "overrides")} == {"Square", "Circle"}
    assert answer["completeness"] == {"verdict": "COMPLETE"}
    assert answer["coverage"] == {"exact": 3, "candidate": len(answer["results"]["conformance"]),
                                  "unresolved_related": 0, "package_level": 0}  # fmt: skip


def test_conformance_is_a_kind_to_filter_on_and_never_exact(typescript: Path):
    only = ask(typescript, "find_references", qualified_name="Shape.area", edge_kinds=["CONFORMANCE"], view="full")
    assert rows(only, "references") == set() and "overrides" not in only["results"]
    assert {(name, via) for name, _, _, via in rows(only, "conformance")} == TS_SITES
    exact = ask(typescript, "find_references", qualified_name="Shape.area", confidence="EXACT_TYPECHECKED", view="full")
    assert "conformance" not in exact["results"] and exact["total"] == 3


def test_the_blast_radius_of_a_typescript_interface_member_reaches_the_conformance_sites(typescript: Path):
    found = reached(ask(typescript, "get_blast_radius", qualified_name="Shape.area", depth=1, view="full"))
    build = found["build"]
    assert (build["via_kind"], build["via_confidence"], build["via_interface"]) == (
        "CONFORMANCE", "CANDIDATE", "Shape.area")  # fmt: skip
    assert build["reached_from"] in {"Square", "Circle"}
    assert found["indirect"]["via_kind"] == "CONFORMANCE"
    assert {"total", "Square.area", "Circle.area"} <= set(found)
    assert not {"label", "via", "makeSquare"} & set(found)
    without = ask(typescript, "get_blast_radius", qualified_name="Shape.area", depth=1,
                  edge_kinds=["CALLS_DIRECT", "IMPLEMENTS"], view="full")  # fmt: skip
    assert not {"build", "indirect"} & set(reached(without))  # the miss before: neither names Shape.area


# -- conformance (Go: implicit, checked only where a type is used as the interface) ----------------

GO_SITES = {("Build", "Square"), ("Build", "Circle"), ("Convert", "Square"), ("Indirect", "Square"),
            ("Indirect", "Labeled")}  # fmt: skip
"""What go build reports once `Shape.Area` is renamed, beside shapes.go:28 `s.Area` (Total):
shapes.go:34 the `var _ Shape = (*Circle)(nil)` assertion (in the file's module), main.go:8 twice
(Build), main.go:12 (Convert), main.go:17 twice (Indirect: what NewSquare returns, and Labeled,
which embeds Square). Square, Circle, NewSquare, Label and Via compile."""


def test_renaming_a_go_interface_member_reaches_literals_conversions_and_assertions(go: Path):
    answer = ask(go, "find_references", qualified_name="Shape.Area", view="full")
    assert rows(answer, "references") == {("Total", "CALLS_DIRECT", "EXACT_TYPECHECKED", "")}
    assert {name for name, *_ in rows(answer, "overrides")} == {"Square.Area", "Circle.Area"}
    conformance = answer["results"]["conformance"]
    assert {(r["qualified_name"], r["via"]) for r in conformance if r["kind"] != "module"} == GO_SITES
    modules = [(r["file_path"], r["lines"], r["via"]) for r in conformance if r["kind"] == "module"]
    assert modules == [("shapes/shapes.go", [34], "Circle")]  # not app/main.go's import of the package
    assert {(r["edge_kind"], r["confidence"], r["provenance"]) for r in conformance} == {
        ("CONFORMANCE", "CANDIDATE", "SCIP_GO")}  # fmt: skip
    assert answer["completeness"] == {"verdict": "COMPLETE"}


def test_the_blast_radius_of_a_go_interface_member_reaches_the_conformance_sites(go: Path):
    found = reached(ask(go, "get_blast_radius", qualified_name="Shape.Area", depth=1, view="full"))
    assert {"Total", "Build", "Convert", "Indirect"} <= set(found)
    assert {found[name]["via_kind"] for name in ("Build", "Convert", "Indirect")} == {"CONFORMANCE"}
    assert found["Convert"]["reached_from"] == "Square" and found["Convert"]["via_interface"] == "Shape.Area"
    assert not {"Label", "Via", "NewSquare"} & set(found)


def test_diff_impact_of_renaming_a_go_interface_member_names_the_conformance_sites(tmp_path: Path):
    require("scip-go")
    repo = committed(tmp_path, "go")
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    repo.git("checkout", "-q", "-b", "pr")
    shapes = repo.path / "shapes" / "shapes.go"
    shapes.write_text(shapes.read_text(encoding="utf-8").replace("\tArea() int\n", "\tSurface() int\n", 1),
                      encoding="utf-8")  # fmt: skip
    repo.commit(message="rename the interface member")
    impact = analyze(str(repo.path), "main", "HEAD")
    [gone] = [s for s in impact.changed if s.qualified_name == "Shape.Area"]
    assert gone.change == "deleted"
    affected = {(a.qualified_name, a.via_kind, a.via_confidence) for a in gone.affected if a.depth == 1}
    assert {("Total", "CALLS_DIRECT", "EXACT_TYPECHECKED"), ("Build", "CONFORMANCE", "CANDIDATE"),
            ("Convert", "CONFORMANCE", "CANDIDATE"), ("Indirect", "CONFORMANCE", "CANDIDATE")} <= affected  # fmt: skip
    assert not any(a.qualified_name in ("Via", "Label") for a in gone.affected)


# -- Rust: a type is not used where its traits are -------------------------------------------------


@pytest.fixture(scope="module")
def rust(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("rust-analyzer")
    return indexed(tmp_path_factory.mktemp("traits"), "rust")


def dotted(name: str) -> str:
    return name.replace("::", ".")


def test_a_rust_type_is_not_referenced_by_the_uses_of_the_traits_it_alone_implements(rust: Path):
    answer = ask(rust, "find_references", qualified_name="Item", view="full")
    references = answer["results"]["references"]
    names = {dotted(r["qualified_name"]) for r in references}
    assert "make" in names  # `-> Item` and `Item { … }`
    # `impl Named for Item` and `impl Measured for Item`: the module, one row with both lines
    assert [len(r["lines"]) for r in references if r["kind"] == "module"] == [2]
    # Item is the only implementation of Named and of Measured: still, `&dyn Named` and `T: Measured`
    # do not name it, and renaming Item breaks neither.
    assert not names & {"describe", "measure", "Named.name", "Measured.size"}
    assert not any(r.get("via") for r in references) and "dispatch_through" not in answer["results"]
    assert {r["confidence"] for r in references} == {"EXACT_TYPECHECKED"}
    assert answer["completeness"] == {"verdict": "COMPLETE"}
    found = {dotted(name) for name in reached(ask(rust, "get_blast_radius", qualified_name="Item", view="full"))}
    assert {"make", "both"} <= found and not found & {"describe", "measure"}


def test_a_rust_method_still_reaches_the_callers_through_its_trait_method(rust: Path):
    answer = ask(rust, "find_references", qualified_name="Item.name", view="full")
    references = {
        (dotted(r["qualified_name"]), r["edge_kind"], dotted(r.get("via", ""))) for r in answer["results"]["references"]
    }
    assert references == {("describe", "CALLS_DIRECT", "Named.name")}
    assert [dotted(m) for m in answer["results"]["dispatch_through"]] == ["Named.name"]


def test_a_rust_trait_method_lists_its_implementation_apart_and_no_conformance_site(rust: Path):
    answer = ask(rust, "find_references", qualified_name="Named.name", view="full")
    assert {dotted(name) for name, *_ in rows(answer, "references")} == {"describe"}
    assert {(dotted(name), kind, confidence) for name, kind, confidence, _ in rows(answer, "overrides")} == {
        ("Item.name", "IMPLEMENTS", "STRUCTURAL_CERTAIN")}  # fmt: skip
    # Rust holds an impl to its trait where it is written. cargo check once Named::name is renamed:
    # lib.rs:14 and :13 (Item's `name`, its impl) and :27 (describe); no use of Item.
    assert "conformance" not in answer["results"]
    trait = ask(rust, "find_references", qualified_name="Named", view="full")
    # `impl Named for Item` names the trait: a use, not an override.
    assert {dotted(name) for name, *_ in rows(trait, "references")} == {"Item", "describe"}
    assert "overrides" not in trait["results"]
