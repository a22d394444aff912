"""Workspaces on real Go repositories indexed with scip-go: a provider, a local consumer, a remote one
served from a bare repository over file://, and the cases that must never link (twins, a decoy,
version drift) or only link the package (a blank import)."""

import json
import shutil
from pathlib import Path

import pytest

from kivgraph.errors import KivgraphError
from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.graph.workspace import WorkspaceError, read_workspace
from kivgraph.impact.analysis import analyze
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import FIXTURES, Repo
from tests.scip.analyzers import require

PROVIDER = FIXTURES / "exact" / "go"


def go_repo(root: Path, name: str, files: dict[str, str], analyzers: bool = True) -> Repo:
    repo = Repo(root / name)
    repo.commit(files, message=name)
    save_to_notes(open_repository(str(repo.path)), index_repository(str(repo.path), run_analyzers=analyzers))
    return repo


def consumer_files(module: str, body: str, imports: str = '"example.com/exact/shapes"') -> dict[str, str]:
    return {
        "go.mod": f"module {module}\n\ngo 1.22\n\nrequire example.com/exact v0.0.0\n\n"
        "replace example.com/exact => ../shapes\n",
        "use.go": f"package use\n\nimport {imports}\n\n{body}\n",
    }


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("scip-go")
    root = tmp_path_factory.mktemp("workspace")
    provider = Repo(root / "shapes")
    shutil.copytree(PROVIDER, provider.path, dirs_exist_ok=True)
    provider.commit(message="provider")
    save_to_notes(open_repository(str(provider.path)), index_repository(str(provider.path), run_analyzers=True))
    go_repo(
        root,
        "billing",
        consumer_files(
            "example.com/billing",
            "// Bill totals the order.\nfunc Bill(items []shapes.Square) float64 { return shapes.Total(items) }",
        ),
    )
    # Only imported for its side effects: a package dependency, never a use of one symbol.
    go_repo(root, "blank", consumer_files("example.com/blank", "func Noop() {}", '_ "example.com/exact/shapes"'))
    # Declares a module that merely looks like the provider's: nothing may bind to it.
    go_repo(
        root,
        "decoy",
        {
            "go.mod": "module example.com/exactly\n\ngo 1.22\n",
            "shapes/shapes.go": "package shapes\n\nfunc Total() float64 { return 0 }\n",
        },
    )
    # A remote consumer: indexed in its own clone, the note pushed to a bare repository.
    remote = root / "remote" / "reports.git"
    remote.parent.mkdir()
    author = go_repo(
        root,
        "reports-src",
        consumer_files(
            "example.com/reports", "func Report(s shapes.Square) shapes.Square { return shapes.Scale(s, 2) }"
        ),
    )
    (root / "reports-src").rename(root / "reports-work")
    author = Repo(root / "reports-work")
    author.git("init", "-q", "--bare", str(remote))
    author.git("push", "-q", str(remote), "main", "refs/notes/kivgraph")
    (root / "kivgraph.toml").write_text(
        '[[repository]]\npath = "shapes"\n\n[[repository]]\npath = "billing"\n\n[[repository]]\npath = "blank"\n\n'
        f'[[repository]]\npath = "decoy"\n\n[[repository]]\nurl = "file://{remote}"\nname = "reports"\n',
        encoding="utf-8",
    )  # fmt: skip
    return root


def ask(catalog: Catalog, tool: str, **arguments: object) -> dict[str, object]:
    return json.loads(run_tool(catalog, TOOL_BY_NAME[tool], arguments))


def served(root: Path, toml: str = "kivgraph.toml") -> Catalog:
    catalog = Catalog([], [], str(root / toml))
    catalog.load()
    return catalog


def test_consumers_across_local_and_remote_repositories(workspace: Path):
    catalog = served(workspace)
    total = ask(catalog, "find_cross_repo_consumers", repository="shapes", path="shapes/shapes.go",
                qualified_name="Total", view="full")  # fmt: skip
    rows = total["results"]["consumers"]  # type: ignore[index]
    uses = {(c["repository"], c["qualified_name"], c["confidence"]) for c in rows if c["category"] == "exact_symbol"}
    assert uses == {("billing", "Bill", "EXACT_PACKAGE_MAPPED")}
    packages = {c["repository"] for c in rows if c["category"] == "package"}
    assert packages == {"billing", "blank", "reports"}  # every importer; `blank` uses nothing but the package
    assert "decoy" not in {c["repository"] for c in rows}
    scale = ask(catalog, "find_cross_repo_consumers", repository="shapes", path="shapes/shapes.go",
                qualified_name="Scale", view="full")  # fmt: skip
    remote_uses = [c for c in scale["results"]["consumers"] if c["category"] == "exact_symbol"]  # type: ignore[index]
    assert [(c["repository"], c["qualified_name"]) for c in remote_uses] == [("reports", "Report")]
    names = {r["name"]: r for r in ask(catalog, "list_repositories")["results"]}  # type: ignore[union-attr]
    assert set(names) == {"shapes", "billing", "blank", "decoy", "reports"} and names["reports"]["path"] == ""


def test_the_blast_radius_and_diff_impact_cross_into_consumers(workspace: Path):
    catalog = served(workspace)
    radius = ask(catalog, "get_blast_radius", repository="shapes", path="shapes/shapes.go", qualified_name="Total",
                 view="full")  # fmt: skip
    reached = {(s["repository"], s["qualified_name"]) for s in radius["results"]["symbols"]}  # type: ignore[index]
    assert ("billing", "Bill") in reached and not any(repo == "decoy" for repo, _ in reached)
    provider = Repo(workspace / "shapes")
    provider.git("checkout", "-q", "-b", "change")
    source = provider.path / "shapes" / "shapes.go"
    source.write_text(source.read_text(encoding="utf-8").replace("sum += item.Area()", "sum -= item.Area()"),
                      encoding="utf-8")  # fmt: skip
    provider.commit(message="change")
    try:
        impact = analyze(str(provider.path), "main", "HEAD", workspace=str(workspace / "kivgraph.toml"))
    finally:
        provider.git("checkout", "-q", "main")
    assert set(impact.consumers) == {"billing"}
    assert [a.qualified_name for a in impact.consumers["billing"]] == ["Bill"]
    assert set(impact.consumers_searched) == {"billing", "blank", "decoy", "reports"}


def test_twin_providers_never_link_and_say_why(workspace: Path):
    twin = workspace / "twin"
    if not twin.exists():
        repo = Repo(twin)
        shutil.copytree(PROVIDER, twin, dirs_exist_ok=True)
        repo.commit(message="a fork that declares the same module")
        save_to_notes(open_repository(str(twin)), index_repository(str(twin), run_analyzers=False))
    (workspace / "twins.toml").write_text('[[repository]]\npath = "shapes"\n\n[[repository]]\npath = "twin"\nname = '
                                          '"twin"\n\n[[repository]]\npath = "billing"\n', encoding="utf-8")  # fmt: skip
    catalog = served(workspace, "twins.toml")
    answer = ask(catalog, "find_cross_repo_consumers", repository="shapes", path="shapes/shapes.go",
                 qualified_name="Total", view="full")  # fmt: skip
    rows = answer["results"]["consumers"]  # type: ignore[index]
    assert not any(c["category"] == "exact_symbol" for c in rows)
    reasons = {c.get("reason") for c in rows if c["category"] == "unresolved"}
    assert reasons == {"AMBIGUOUS_PACKAGE_PROVIDER"}


def test_a_symbol_the_provider_no_longer_declares_is_drift_not_an_edge(workspace: Path):
    old = workspace / "shapes-old"
    if not old.exists():
        shutil.copytree(PROVIDER, old)
        (old / "shapes" / "legacy.go").write_text("package shapes\n\n// Legacy was removed since.\n"
                                                  "func Legacy() int { return 1 }\n", encoding="utf-8")  # fmt: skip
        files = consumer_files("example.com/legacy", "func Use() int { return shapes.Legacy() }")
        files["go.mod"] = files["go.mod"].replace("../shapes", "../shapes-old")
        go_repo(workspace, "legacy", files)
    (workspace / "drift.toml").write_text('[[repository]]\npath = "shapes"\n\n[[repository]]\npath = "legacy"\n',
                                          encoding="utf-8")  # fmt: skip
    catalog = served(workspace, "drift.toml")
    status = ask(catalog, "graph_status")["results"]
    reasons = {row["key"] for row in status["unresolved_by_reason"]}  # type: ignore[index]
    assert "PROVIDER_SYMBOL_NOT_FOUND" in reasons
    # legacy used only Legacy, which the provider no longer declares: no edge crossed, not even a guess.
    edges = {row["key"] for row in status["edges_by_confidence"]}  # type: ignore[index]
    assert "EXACT_PACKAGE_MAPPED" not in edges
    graph = catalog.session.graph  # type: ignore[union-attr]
    [record] = [u for u in graph.unresolved if u.reason == "PROVIDER_SYMBOL_NOT_FOUND"]
    assert record.requested_symbol.endswith("shapes.Legacy") and record.file == "use.go"


def test_a_remote_without_notes_or_an_unreachable_one_is_reported_and_the_rest_served(workspace: Path):
    bare = workspace / "remote" / "empty.git"
    if not bare.exists():
        Repo(workspace / "empty-src").commit({"a.go": "package a\n"}, message="unindexed")
        Repo(workspace / "empty-src").git("init", "-q", "--bare", str(bare))
        Repo(workspace / "empty-src").git("push", "-q", str(bare), "main")
    (workspace / "broken.toml").write_text(
        f'[[repository]]\npath = "shapes"\n\n[[repository]]\nurl = "file://{bare}"\n\n'
        f'[[repository]]\nurl = "file://{workspace}/remote/nowhere.git"\n', encoding="utf-8")  # fmt: skip
    status = ask(served(workspace, "broken.toml"), "graph_status")["results"]
    assert status["repositories"] == 1  # type: ignore[index]
    problems = " | ".join(status["unavailable"])  # type: ignore[index]
    assert "publishes no generations" in problems and "nowhere.git" in problems


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[repository]]\n", "exactly one of path"),
        ('[[repository]]\npath = "a"\nurl = "file:///x"\n', "exactly one of path"),
        ('[[repository]]\npath = "a"\nbranch = "main"\n', "branch goes with url"),
        ('[[repository]]\npath = "a"\ncolour = "red"\n', "unknown key 'colour'"),
        ('[[repository]]\npath = "a"\nname = "rust:std"\n', "reserved"),
        ('[[repository]]\npath = "a"\nname = "x"\n[[repository]]\npath = "b"\nname = "x"\n', "same name"),
        ("[other]\n", "unknown table"),
        ("repository = [", "not valid TOML"),
        ("", r"lists no \[\[repository\]\]"),
    ],
)
def test_a_malformed_workspace_is_refused_naming_the_problem(tmp_path: Path, text: str, problem: str):
    file = tmp_path / "kivgraph.toml"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(WorkspaceError, match=problem):
        read_workspace(str(file))
    assert issubclass(WorkspaceError, KivgraphError)


def test_dart_consumers_link_through_the_pubspec_name_as_candidates(tmp_path: Path):
    """No Dart analyzer runs here: the syntax layer's uses bind by pubspec name, as CANDIDATE, and
    every answer says the type checker did not run."""
    go_repo(tmp_path, "core", {"pubspec.yaml": "name: shop_core\nversion: 1.0.0\n",
                               "lib/pricing.dart": "int total(int a) => a * 2;\n",
                               "lib/shop_core.dart": "export 'pricing.dart';\n"}, analyzers=False)  # fmt: skip
    go_repo(tmp_path, "app", {"pubspec.yaml": "name: app\ndependencies:\n  shop_core:\n    path: ../core\n",
                              "lib/app.dart": "import 'package:shop_core/pricing.dart' as core;\n\n"
                              "int bill() => core.total(2);\n"},
            analyzers=False)  # fmt: skip
    go_repo(tmp_path, "decoy", {"pubspec.yaml": "name: shop_core_utils\n",
                                "lib/pricing.dart": "int total(int a) => a;\n"}, analyzers=False)  # fmt: skip
    (tmp_path / "kivgraph.toml").write_text('[[repository]]\npath = "core"\n\n[[repository]]\npath = "app"\n\n'
                                            '[[repository]]\npath = "decoy"\n', encoding="utf-8")  # fmt: skip
    answer = ask(served(tmp_path), "find_cross_repo_consumers", repository="core", qualified_name="total", view="full")
    rows = answer["results"]["consumers"]  # type: ignore[index]
    assert {(c["repository"], c["category"], c.get("qualified_name", "")) for c in rows} == {
        ("app", "candidate", "bill"),
        ("app", "package", ""),
    }
    assert answer["completeness"]["verdict"] == "LOWER_BOUND"  # type: ignore[index]
    assert {s["reason"] for s in answer["completeness"]["invisible_scopes"]} == {"NO_TYPE_CHECKER"}  # type: ignore[index]


def test_a_workspace_file_broken_while_serving_is_reported_not_fatal(workspace: Path, tmp_path: Path, monkeypatch):
    from kivgraph.graph import catalog as catalog_module

    monkeypatch.setattr(catalog_module, "RECHECK_SECONDS", 0.0)
    file = tmp_path / "kivgraph.toml"
    file.write_text(f'[[repository]]\npath = "{workspace / "shapes"}"\n', encoding="utf-8")
    catalog = Catalog([str(workspace / "billing")], [], str(file))
    catalog.load()
    assert ask(catalog, "graph_status")["results"]["repositories"] == 2  # type: ignore[index]
    file.write_text("[[repository]\n", encoding="utf-8")
    catalog.load()  # as a refresh would
    status = ask(catalog, "graph_status")["results"]
    assert status["repositories"] == 1 and "not valid TOML" in status["unavailable"][0]  # type: ignore[index]


def test_rows_across_repositories_say_where_the_use_is_and_which_repository_a_file_is_in(workspace: Path):
    catalog = served(workspace)
    full = ask(catalog, "find_cross_repo_consumers", repository="shapes", path="shapes/shapes.go",
               qualified_name="Total", view="full")  # fmt: skip
    [bill] = [c for c in full["results"]["consumers"] if c["category"] == "exact_symbol"]  # type: ignore[index]
    assert bill["lines"][0] > 0  # the line of the call, not only where Bill starts
    compact = ask(catalog, "find_cross_repo_consumers", repository="shapes", path="shapes/shapes.go",
                  qualified_name="Total")  # fmt: skip
    assert f'"lines":{json.dumps(bill["lines"], separators=(",", ":"))}' in json.dumps(compact["results"],
                                                                                    separators=(",", ":"))  # fmt: skip
    # shapes/shapes.go exists in the provider and in the decoy: one file row for each.
    found = ask(catalog, "find_by_intent", keywords=["shapes"])
    rows = [(f.get("repo"), f["file"]) for f in found["results"]["files"]]  # type: ignore[index]
    assert ("shapes", "shapes/shapes.go") in rows and ("decoy", "shapes/shapes.go") in rows
    # A file's module symbol reads `<module>` wherever a row or a subject names it.
    module = ask(catalog, "find_references", repository="shapes", path="shapes/shapes.go", qualified_name="<module>",
                 view="full")  # fmt: skip
    assert module["results"]["subject"]["qualified_name"] == "<module>"  # type: ignore[index]
