"""A verdict is charged only with what could hide a use of the symbol asked about: a JavaScript
file no checker saw lowers answers about JavaScript and TypeScript, never about Python."""

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.graph.answer import could_reference
from tests.conftest import Repo
from tests.scip.analyzers import require

FILES = {
    "pkg/__init__.py": "",
    "pkg/lib.py": "def helper():\n    return 1\n",
    "pkg/app.py": "from pkg.lib import helper\n\n\ndef main():\n    return helper()\n",
    "web/a.js": "export function render() {\n  return 1\n}\nrender()\n",
}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-python")
    require("scip-typescript")
    repo = Repo(tmp_path_factory.mktemp("verdicts") / "mixed")
    repo.commit(FILES)
    result = CliRunner().invoke(cli, ["index", str(repo.path)])
    assert result.exit_code == 0, result.output
    return repo.path


def ask(served: Path, tool: str, **arguments: object) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["query", tool, "--repo", str(served), "--json", json.dumps(arguments)])
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def test_an_unconfigured_javascript_file_does_not_lower_answers_about_python(mixed: Path):
    selector = {"repository": "mixed", "path": "pkg/lib.py", "qualified_name": "helper"}
    for tool in ("find_references", "get_blast_radius", "trace_dependencies"):
        answer = ask(mixed, tool, **selector)
        assert answer["completeness"] == {"verdict": "COMPLETE"}, (tool, answer["completeness"])


def test_the_same_scope_still_lowers_answers_about_javascript(mixed: Path):
    verdict = ask(mixed, "find_references", name="render")["completeness"]
    assert verdict["verdict"] == "LOWER_BOUND"
    assert {s["reason"] for s in verdict["invisible_scopes"]} == {"PROJECT_NOT_CONFIGURED", "NO_TYPE_CHECKER"}


@pytest.mark.parametrize(
    ("scope", "touched", "charged"),
    [
        ("javascript", {"python"}, False),
        ("javascript", {"typescript"}, True),
        ("typescript", {"javascript"}, True),
        ("go", {"rust"}, False),
        ("go", {"go", "python"}, True),
        ("kotlin", {"python"}, True),  # a language this kivgraph does not know: assume it could
        ("python", None, True),
    ],
)
def test_which_scopes_could_hide_a_use(scope: str, touched: set[str] | None, charged: bool):
    assert could_reference(scope, touched) is charged
