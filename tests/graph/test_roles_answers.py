"""Roles in answers, on a real Go repository indexed with scip-go: test rows are counted, not listed,
unless asked; totals never move with `roles`; `[roles]` globs override the conventions; one row per
user carries its lines; and a change to a type reaches the types holding a field of it."""

import json
from collections.abc import Callable
from typing import Any

import pytest

from kivgraph.errors import InvalidArgumentError
from kivgraph.graph.arguments import validate
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require

FILES = {
    "go.mod": "module example.com/roles\n\ngo 1.21\n",
    "kivgraph.toml": '[roles]\ntest = ["e2e/"]\n',
    "lib/lib.go": """package lib

type Item struct{ N int }

type Box struct{ item Item }

type Crate struct{ box Box }

func Sum(items []Item) int { return len(items) }

func Use() int {
	a := Sum(nil)
	return a + Sum(nil)
}

func Pack(c Crate) Crate { return c }
""",
    "lib/lib_test.go": """package lib

import "testing"

func TestSum(t *testing.T) {
	Sum(nil)
	Sum(nil)
}

func TestOther(t *testing.T) { Sum(nil) }
""",
    "app/main.go": """package main

import "example.com/roles/lib"

func main() { lib.Sum(nil) }
""",
    "e2e/flow.go": """package e2e

import "example.com/roles/lib"

func Flow() int { return lib.Sum(nil) }
""",
}
Row = dict[str, Any]


@pytest.fixture(scope="module")
def ask(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Row]:
    require("scip-go")
    base = tmp_path_factory.mktemp("roles")
    repo = Repo(base / "roles")
    repo.commit(FILES)
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert {f.path: f.role.value for f in generation.files} == {
        "lib/lib.go": "source", "lib/lib_test.go": "test", "app/main.go": "source", "e2e/flow.go": "test"}  # fmt: skip
    save_to_notes(open_repository(str(repo.path)), generation)
    catalog = Catalog([str(repo.path)])
    catalog.load()
    assert catalog.session is not None, catalog.problems

    def call(tool: str, **arguments: object) -> Row:
        answer: Row = json.loads(run_tool(catalog, TOOL_BY_NAME[tool], arguments))
        return answer

    return call


SUM = {"repository": "roles", "path": "lib/lib.go", "qualified_name": "Sum"}


def labels(results: Row) -> dict[str, list[str]]:
    return {f["file"]: [a if isinstance(a, str) else a[0] for a in f["at"]] for f in results["files"]}


def test_test_rows_are_counted_not_listed_and_the_total_never_moves(ask: Callable[..., Row]):
    default = ask("find_references", **SUM)
    assert default["total"] == 5 and default["returned"] == 2 and default["coverage"]["exact"] == 5
    found = labels(default["results"])
    assert found["app/main.go"] == ["main@5:5"]
    [use] = found["lib/lib.go"]
    assert use.startswith("Use@") and use.count(",") == 1  # one row, both call lines
    assert default["results"]["not_listed"] == {"test": {"rows": 3, "files": 2}}
    tests = ask("find_references", **SUM, roles=["test"])
    assert tests["total"] == 5 and tests["returned"] == 3
    assert tests["results"]["not_listed"] == {"source": {"rows": 2, "files": 2}}
    assert ask("find_references", **SUM, roles="*")["returned"] == 5
    full = ask("find_references", **SUM, view="full")
    assert full["results"]["not_listed"] == {"test": {"rows": 3, "files": {"e2e/flow.go": 1, "lib/lib_test.go": 2}}}
    assert [r["lines"] for r in full["results"]["references"] if r["qualified_name"] == "Use"] == [[12, 13]]
    assert ask("find_references", **SUM, path_prefix="app")["total"] == 1
    with pytest.raises(InvalidArgumentError, match='roles "tests" is unsupported'):
        validate("find_references", TOOL_BY_NAME["find_references"].params, {**SUM, "roles": ["tests"]})


def test_a_change_to_a_type_reaches_the_types_holding_a_field_of_it(ask: Callable[..., Row]):
    blast = ask("get_blast_radius", repository="roles", path="lib/lib.go", qualified_name="Item", view="full")
    reached = {r["qualified_name"] for r in blast["results"]["symbols"]}
    assert {"Box", "Crate", "Pack"} <= reached  # Box holds an Item, Crate a Box, Pack uses Crate
    trace = ask("trace_dependencies", repository="roles", path="lib/lib.go", qualified_name="Crate", view="full")
    assert {"Box", "Item"} <= {r["qualified_name"] for r in trace["results"]["nodes"]}
