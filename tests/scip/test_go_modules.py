"""Go across module boundaries, with the real scip-go: an import no go.mod requires is an invisible
scope charged to its package, a second module of the repository (through `replace` or a go.work)
is linked by exact edges, and a Go scope lowers only the answers it could hide a use from."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.languages.go.modules import dated, go_version
from kivgraph.model import InvisibleScope, Language
from kivgraph.scip import run
from kivgraph.scip.analyzers import ANALYZERS
from kivgraph.scip.index import Document, Occurrence, ScipIndex, Span, TextEncoding
from kivgraph.scip.projects import Project
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

Row = dict[str, Any]
GO = FIXTURES / "go"
UNREACHABLE_PROXY = "http://127.0.0.1:9"
"""Nothing listens there: a fetch would fail with a dial error, not with go's own verdict."""


def committed(root: Path, case: str, name: str = "") -> Repo:
    repo = Repo(root / (name or case))
    shutil.copytree(GO / case, repo.path, dirs_exist_ok=True)
    repo.commit(message=case)
    return repo


def indexed(repo: Repo) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        # Offline: whatever go would fetch must fail loudly, and GOFLAGS must not let it add modules.
        patch.setenv("GOPROXY", UNREACHABLE_PROXY)
        patch.setenv("GOFLAGS", "-mod=mod")
        patch.delenv("GOWORK", raising=False)
        result = CliRunner().invoke(cli, ["index", str(repo.path)])
    assert result.exit_code == 0, result.output
    return repo.path


def ask(served: Path, tool: str, **arguments: object) -> Row:
    result = CliRunner().invoke(cli, ["query", tool, "--repo", str(served), "--json", json.dumps(arguments)])
    assert result.exit_code == 0, result.output
    answer: Row = json.loads(result.stdout)
    return answer


def at(served: Path, path: str, qualified_name: str) -> Row:
    return {"repository": served.name, "path": path, "qualified_name": qualified_name, "view": "full"}


def references(served: Path, path: str, qualified_name: str) -> tuple[set[tuple[str, str, str, str, str]], Row]:
    """(file, referrer, edge kind, confidence, provenance) of each reference — implementations,
    which find_references lists apart from the uses, included — and the verdict."""
    answer = ask(served, "find_references", **at(served, path, qualified_name))
    results = answer["results"]
    rows = {
        (r["file_path"], r["qualified_name"], r["edge_kind"], r["confidence"], r["provenance"])
        for r in [*results["references"], *results.get("overrides", [])]
    }
    return rows, answer["completeness"]


def scopes(verdict: Row) -> set[tuple[str, str]]:
    return {(s["reason"], s["path"]) for s in verdict.get("invisible_scopes", [])}


EXACT_CALL = ("CALLS_DIRECT", "EXACT_TYPECHECKED", "SCIP_GO")
CANDIDATE_CALL = ("CALLS_DIRECT", "CANDIDATE", "TREE_SITTER")


# -- an import no go.mod requires -----------------------------------------------------------------


@pytest.fixture(scope="module")
def unrequired(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-go")
    return indexed(committed(tmp_path_factory.mktemp("go-unrequired"), "unrequired"))


def test_an_import_no_go_mod_requires_makes_its_package_an_invisible_scope(unrequired: Path):
    rows, verdict = references(unrequired, "greet/greet.go", "Hello")
    assert rows == {("cmd/app/main.go", "main", *EXACT_CALL)}  # what did load is still linked, exactly
    assert verdict["verdict"] == "LOWER_BOUND"
    details = {s["detail"] for s in verdict["invisible_scopes"] if s["path"] == "cmd/app"}
    assert scopes(verdict) == {("PACKAGE_NOT_LOADED", "cmd/app")}
    # Each import that did not load is named, at its line, in go's own words — nothing was fetched.
    assert any("cmd/app/main.go:6:" in d and "example.invalid/missing/thing" in d for d in details), details
    assert any("cmd/app/main.go:5:" in d and "example.com/tools/lint" in d for d in details), details
    assert all("no required module provides package" in d for d in details), details
    assert verdict["fallback"]["paths"] == ["cmd/app"]


def test_a_module_of_the_repository_that_is_not_required_is_no_false_complete(unrequired: Path):
    rows, verdict = references(unrequired, "tools/lint/lint.go", "Check")
    # go cannot load it from shop, so no type checker saw the call: the syntax layer's is a candidate
    assert rows == {("cmd/app/main.go", "main", *CANDIDATE_CALL)}
    assert verdict["verdict"] == "LOWER_BOUND"
    assert ("PACKAGE_NOT_LOADED", "cmd/app") in scopes(verdict)


def test_a_package_that_imports_nothing_of_the_symbol_is_not_charged(unrequired: Path):
    rows, verdict = references(unrequired, "lone/lone.go", "Tally")
    assert rows == {("worker/worker.go", "Run", *EXACT_CALL)}
    assert verdict == {"verdict": "COMPLETE"}
    blast = ask(unrequired, "get_blast_radius", **at(unrequired, "lone/lone.go", "Tally"))
    assert {r["qualified_name"] for r in blast["results"]["symbols"]} == {"Run"}
    assert blast["completeness"] == {"verdict": "COMPLETE"}
    dependencies = ask(unrequired, "trace_dependencies", **at(unrequired, "worker/worker.go", "Run"))
    assert dependencies["completeness"] == {"verdict": "COMPLETE"}


def test_the_unloaded_package_still_lowers_what_it_could_reach(unrequired: Path):
    dependencies = ask(unrequired, "trace_dependencies", **at(unrequired, "cmd/app/main.go", "main"))
    assert dependencies["completeness"]["verdict"] == "LOWER_BOUND"
    reached = {r["qualified_name"]: r["via_confidence"] for r in dependencies["results"]["nodes"]}
    assert reached["Hello"] == "EXACT_TYPECHECKED" and reached["Check"] == "CANDIDATE"
    assert not reached.keys() & {"Tally", "Run"}


def test_a_package_the_symbols_package_imports_cannot_hide_a_use_of_it_but_can_hide_a_dependency(unrequired: Path):
    rows, verdict = references(unrequired, "user/user.go", "Answer")
    assert rows == set()
    assert verdict == {"verdict": "COMPLETE"}  # broken is imported by user: Go forbids it to import user back
    dependencies = ask(unrequired, "trace_dependencies", **at(unrequired, "user/user.go", "Use"))
    assert dependencies["completeness"]["verdict"] == "LOWER_BOUND"
    assert ("PACKAGE_NOT_LOADED", "broken") in scopes(dependencies["completeness"])


# -- a second module of the repository, through `replace` ---------------------------------------


@pytest.fixture(scope="module")
def nested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-go")
    repo = committed(tmp_path_factory.mktemp("go-nested"), "nested")
    # The working tree moves on: what is indexed is the commit's lib, not this one.
    (repo.path / "lib/greet/greet.go").write_text('package greet\n\nfunc Renamed() string { return "" }\n', "utf-8")
    return indexed(repo)


def test_uses_across_a_replaced_module_of_the_repository_are_exact_edges(nested: Path):
    hello, verdict = references(nested, "lib/greet/greet.go", "Hello")
    assert hello == {("cmd/app/main.go", "main", *EXACT_CALL)}
    assert verdict == {"verdict": "COMPLETE"}
    twice, _ = references(nested, "lib/greet/greet.go", "Twice")
    assert twice == {("cmd/app/main.go", "main", *EXACT_CALL)}


def test_a_type_of_one_module_implements_an_interface_of_the_other(nested: Path):
    greet, verdict = references(nested, "lib/greet/greet.go", "Greeter.Greet")
    assert ("cmd/app/main.go", "Loud.Greet", "IMPLEMENTS", "EXACT_TYPECHECKED", "SCIP_GO") in greet
    assert ("lib/greet/greet.go", "Twice", *EXACT_CALL) in greet
    assert verdict == {"verdict": "COMPLETE"}


def test_what_nothing_in_either_module_uses_has_no_reference(nested: Path):
    unused, verdict = references(nested, "lib/greet/greet.go", "Unused")
    assert unused == set()
    assert verdict == {"verdict": "COMPLETE"}
    renamed = ask(nested, "find_symbol", name="Renamed")["results"]
    assert renamed["symbols"] == []  # the working tree's edit is not what was indexed


# -- a go.work beside the modules ---------------------------------------------------------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-go")
    return indexed(committed(tmp_path_factory.mktemp("go-workspace"), "workspace"))


def test_a_committed_go_work_links_the_modules_it_uses(workspace: Path):
    hello, verdict = references(workspace, "lib/greet/greet.go", "Hello")
    assert hello == {("app/cmd/main.go", "main", *EXACT_CALL)}
    assert verdict == {"verdict": "COMPLETE"}


def test_a_module_the_go_work_does_not_use_is_still_analysed_on_its_own(workspace: Path):
    pad, verdict = references(workspace, "tools/pad/pad.go", "Pad")
    assert pad == {("tools/pad/pad.go", "Padded", *EXACT_CALL)}
    assert verdict == {"verdict": "COMPLETE"}


def test_an_untracked_go_work_in_the_working_tree_is_honoured(tmp_path: Path):
    require("scip-go")
    repo = committed(tmp_path, "workspace", "untracked")
    work = (repo.path / "go.work").read_text(encoding="utf-8")
    repo.git("rm", "-q", "--cached", "go.work")
    repo.commit({".gitignore": "go.work\n"}, message="go.work is local")
    assert (repo.path / "go.work").read_text(encoding="utf-8") == work
    served = indexed(repo)
    hello, verdict = references(served, "lib/greet/greet.go", "Hello")
    assert hello == {("app/cmd/main.go", "main", *EXACT_CALL)}
    assert verdict == {"verdict": "COMPLETE"}


def test_without_the_go_work_the_same_modules_are_not_linked_and_say_so(tmp_path: Path):
    require("scip-go")
    repo = committed(tmp_path, "workspace", "alone")
    repo.git("rm", "-q", "go.work")
    repo.commit(message="no workspace")
    served = indexed(repo)
    hello, verdict = references(served, "lib/greet/greet.go", "Hello")
    assert hello == {("app/cmd/main.go", "main", *CANDIDATE_CALL)}  # what the code says, unproven
    assert verdict["verdict"] == "LOWER_BOUND"
    assert scopes(verdict) == {("PACKAGE_NOT_LOADED", "app/cmd")}
    pad, verdict = references(served, "tools/pad/pad.go", "Pad")  # tools imports nothing of app
    assert verdict == {"verdict": "COMPLETE"}


# -- merging the modules' indexes ---------------------------------------------------------------


def go_run(root: str, occurrences: list[tuple[str, int]], local: tuple[tuple[str, str], ...]) -> run.AnalyzerRun:
    [spec] = [s for s in ANALYZERS if s.name == "scip-go"]
    document = Document("x.go", "go", tuple(Occurrence(Span(0, 0, 0, 1), s, r, None) for s, r in occurrences), ())
    index = ScipIndex("scip-go", "0.2.9", "", TextEncoding.UTF8, (document,), ())
    return run.AnalyzerRun(Project(spec, root, Language.GO), index, 1.0, (), local)


def test_two_copies_of_one_module_path_keep_their_uses_apart():
    hello = "scip-go gomod example.com/lib . `example.com/lib/greet`/Hello()."
    runs = [
        go_run("app", [(hello, 0)], (("example.com/app", "app"), ("example.com/lib", "lib"))),
        go_run("lib", [(hello, 1)], (("example.com/lib", "lib"),)),
        go_run("old/lib", [(hello, 1)], (("example.com/lib", "old/lib"),)),
    ]
    [merged] = run.merge_go(runs, {"app", "lib", "old/lib"})
    assert merged.index is not None
    symbols = {d.path: d.occurrences[0].symbol for d in merged.index.documents}
    assert symbols["app/x.go"] == symbols["lib/x.go"] != symbols["old/lib/x.go"]


def test_a_use_of_a_module_that_did_not_run_never_meets_its_twins_declaration():
    """app uses the lib it replaces, whose indexer did not run here (another shard's, or it
    crashed); old/lib, of the same module path, did run. The use must not meet old/lib's
    declaration: the tree's modules, not the runs, tell the two directories apart."""
    hello = "scip-go gomod example.com/lib . `example.com/lib/greet`/Hello()."
    runs = [
        go_run("app", [(hello, 0)], (("example.com/app", "app"), ("example.com/lib", "lib"))),
        go_run("old/lib", [(hello, 1)], (("example.com/lib", "old/lib"),)),
    ]
    [merged] = run.merge_go(runs, {"app", "lib", "old/lib"})
    assert merged.index is not None
    symbols = {d.path: d.occurrences[0].symbol for d in merged.index.documents}
    assert symbols["app/x.go"] != symbols["old/lib/x.go"]


def test_a_failed_module_keeps_its_own_run_and_scope_beside_the_merged_ones():
    crashed = run.AnalyzerRun(
        go_run("tools", [], ()).project, None, 1.0, (InvisibleScope("ANALYZER_CRASHED", Language.GO, "tools", "tools"),)
    )
    merged = run.merge_go([go_run("", [], (("example.com/app", ""),)), crashed], {"", "tools"})
    assert [(r.project.root, r.index is None) for r in merged] == [("", False), ("tools", True)]


@pytest.mark.parametrize(
    ("go_mod", "version", "dated_text"),
    [
        ("module a\n\ngo 1.21.0\n", "1.21.0", "module a\n\ngo 1.21.0\n"),
        ("module a\n\ngo 1.19 // as built\n\ntoolchain go1.22.1\n", "1.19", None),
        ("module a\n\nrequire x.org/m v0.1.0\n", "1.16", "module a\n\nrequire x.org/m v0.1.0\n\ngo 1.16\n"),
        ('module "gopkg.in/yaml.v3"\n', "1.16", 'module "gopkg.in/yaml.v3"\n\ngo 1.16\n'),
    ],
    ids=["stated", "with a comment and a toolchain line", "none: what the go command assumes", "none, quoted module"],
)  # fmt: skip
def test_a_go_mod_s_go_version_is_the_one_the_go_command_reads(go_mod: str, version: str, dated_text: str | None):
    assert go_version(go_mod) == version
    assert dated(go_mod) == (dated_text or go_mod)
    assert go_version(dated(go_mod)) == version  # the copy download runs on means the same
