"""A TypeScript package whose tests import it by its own name, resolved (as on a developer's machine
after `npm install`) to a copy installed in node_modules: its `dist/*.d.ts`, emitted by the real
tsc from the package's sources. scip-typescript names those uses by the installed declaration
file; they must lead back through the package's tsconfig (outDir ← rootDir) to the source
declarations (EXACT_DECLARATION_MAPPED), and what only the installed copy declares must be a blind
spot — never a silent absence.
"""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require

Row = dict[str, Any]
PACKAGE = {"name": "@demo/lib", "version": "1.0.0", "types": "dist/index.d.ts", "main": "dist/index.js"}
TSCONFIG = {
    "compilerOptions": {"target": "es2020", "module": "commonjs", "strict": True,
                        "declaration": True, "declarationMap": True, "outDir": "dist", "rootDir": "src"},
    "include": ["src"],
}  # fmt: skip
SOURCE = """export function total(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export class Cart {
  add(x: number): void {}
}

export function legacy(): number {
  return 1;
}
"""
TEST = """import { total, Cart, legacy } from "@demo/lib";

export function check(): number {
  new Cart().add(1);
  return total([1, 2]) + legacy();
}
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository indexed with its package installed as a copy (not a link) in node_modules;
    the source has since dropped `legacy`, which the installed copy still declares."""
    scip_typescript = require("scip-typescript")
    tsc = Path(scip_typescript).with_name("tsc")
    root = tmp_path_factory.mktemp("own-ts")
    repo = Repo(root / "demo")
    repo.write({"package.json": json.dumps(PACKAGE), "tsconfig.json": json.dumps(TSCONFIG), "src/index.ts": SOURCE})
    subprocess.run([str(tsc), "-p", "."], cwd=repo.path, check=True, capture_output=True, timeout=300)
    copy = repo.path / "node_modules" / "@demo" / "lib"
    copy.mkdir(parents=True)
    shutil.copy(repo.path / "package.json", copy / "package.json")
    shutil.copytree(repo.path / "dist", copy / "dist")
    shutil.rmtree(repo.path / "dist")
    repo.commit({".gitignore": "node_modules/\ndist/\n", "src/index.ts": SOURCE.split("export function legacy")[0],
                 "tests/total.test.ts": TEST, "tsconfig.json": json.dumps({**TSCONFIG, "include": ["src", "tests"]})},
                "the package and its tests")  # fmt: skip
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=True))
    return repo.path


def ask(checkout: Path, tool: str, **arguments: object) -> Row:
    answer: Row = json.loads(run_tool(Catalog([str(checkout)], [], None), TOOL_BY_NAME[tool], arguments))
    return answer


def references(path: Path, qualified_name: str) -> Row:
    return ask(path, "find_references", repository="demo", path="src/index.ts", qualified_name=qualified_name,
               view="full", roles="*")  # fmt: skip


def test_tests_using_the_installed_copy_reference_the_source_declarations(installed: Path):
    total = references(installed, "total")
    rows = total["results"]["references"]
    assert {(r["file_path"], r["qualified_name"], r["edge_kind"]) for r in rows} >= {
        ("tests/total.test.ts", "check", "CALLS_DIRECT"),
    }
    assert {r["confidence"] for r in rows} == {"EXACT_DECLARATION_MAPPED"}
    assert total["completeness"]["verdict"] == "COMPLETE"
    add = references(installed, "Cart.add")["results"]["references"]
    assert ("tests/total.test.ts", "check") in {(r["file_path"], r["qualified_name"]) for r in add}


def test_what_only_the_installed_copy_declares_is_a_blind_spot(installed: Path):
    status = ask(installed, "graph_status")["results"]
    reasons = {row["key"] for row in status["unresolved_by_reason"]}
    assert "PROVIDER_SYMBOL_NOT_FOUND" in reasons
    # No edge points into the installed copy: it is not part of the repository.
    check = ask(installed, "find_references", repository="demo", path="tests/total.test.ts", qualified_name="check",
                direction="outgoing", view="full")["results"]["references"]  # fmt: skip
    assert not [r for r in check if "node_modules" in r["file_path"] or r["file_path"].startswith("dist/")]
    assert {"total", "Cart.add"} <= {r["qualified_name"] for r in check}
