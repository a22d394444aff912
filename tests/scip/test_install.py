"""`kivgraph analyzers install` and `cache-key`: the real npm ci and go install into a throwaway tools
cache, rust-analyzer from a (fake) rustup or else the crates.io build, a missing toolchain."""

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kivgraph.cli import cli
from kivgraph.indexing import index_repository
from kivgraph.model import Confidence, EdgeKind, Provenance
from kivgraph.scip.analyzers import ANALYZERS, NPM_PACKAGE_DIR, checkout_tools, locate, tools_cache
from tests.scip.test_ingest import ANIMALS, named_edges

BUILT_RUST_ANALYZER = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kivgraph/tools/rust-analyzer-0.0.348"
)
"""The crates.io build an earlier install made (20 minutes): the fallback test points at it."""
ENV_VARS = ("KIVGRAPH_SCIP_GO", "KIVGRAPH_RUST_ANALYZER", "KIVGRAPH_SCIP_TYPESCRIPT", "KIVGRAPH_SCIP_PYTHON")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty tools cache, and no analyzer named by environment variable."""
    directory = tmp_path / "tools"
    monkeypatch.setenv("KIVGRAPH_TOOLS_CACHE", str(directory))
    monkeypatch.setenv("npm_config_prefer_offline", "true")  # the npm cache is warm: no revalidation round trips
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    return directory


@pytest.fixture(scope="module")
def npm_installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """One real `npm ci` of the shipped lockfile, shared by the tests that need the npm indexers."""
    directory = tmp_path_factory.mktemp("npm-tools")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KIVGRAPH_TOOLS_CACHE", str(directory))
        patch.setenv("npm_config_prefer_offline", "true")
        result = analyzers("install", "--languages", "python,typescript", "--json")
    return directory, result


def analyzers(*args: str) -> Result:
    return CliRunner().invoke(cli, ["analyzers", *args])


def outcomes(result: Result) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in json.loads(result.stdout)["analyzers"]}


def executable(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def toolbox(tmp_path: Path, *names: str) -> str:
    """A PATH with only these tools of ours (links to them); a fake tool put in `tmp_path/fake-bin`
    comes first."""
    box = tmp_path / "toolbox"
    box.mkdir(exist_ok=True)
    for name in names:
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"needs {name}")
        (box / name).symlink_to(found)
    return f"{tmp_path / 'fake-bin'}:{box}"


def seed_npm(cache: Path, installed: Path) -> None:
    """The shared npm install, linked into this test's cache."""
    [home] = installed.glob("npm-*")
    cache.mkdir(parents=True, exist_ok=True)
    (cache / home.name).symlink_to(home)


@pytest.mark.slow
def test_python_and_typescript_install_from_the_shipped_lockfile_and_index_exactly(
    npm_installed, make_repo, monkeypatch
):
    directory, result = npm_installed
    assert result.exit_code == 0, result.output
    rows = outcomes(result)
    assert set(rows) == {"scip-typescript", "scip-python"}
    assert [(r["status"], r["version"], r["source"]) for r in rows.values()] == [
        ("installed", "0.4.0", "npm"),
        ("installed", "0.6.6", "npm"),
    ]
    assert all(r["path"].startswith(str(directory / "npm-")) for r in rows.values())
    assert "npm ci of the pinned lockfile" in result.stderr

    monkeypatch.setenv("KIVGRAPH_TOOLS_CACHE", str(directory))
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    assert locate(ANALYZERS[1]).path == rows["scip-python"]["path"]  # found there, before tools/ or PATH
    repo = make_repo(
        {f"web/{path}": text for path, text in ANIMALS.items()}
        | {
            "pkg/__init__.py": "",
            "pkg/engine.py": "class Engine:\n    def start(self):\n        return 1\n",
            "pkg/main.py": "from pkg.engine import Engine\n\n\ndef run(e: Engine):\n    return e.start()\n",
        }
    )
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert generation.invisible_scopes == ()
    edges = named_edges(generation)
    exact = Confidence.EXACT_TYPECHECKED
    assert ("run", EdgeKind.CALLS_DIRECT, "Engine.start", exact) in edges
    assert ("speak", EdgeKind.CALLS_DIRECT, "Animal.sound", exact) in edges
    provenances = {edge.provenance for edge in generation.edges}
    assert {Provenance.SCIP_PYTHON, Provenance.SCIP_TYPESCRIPT} <= provenances
    assert {("scip-python", "0.6.6"), ("scip-typescript", "0.4.0")} <= set(generation.header.analyzers)

    again = analyzers("install", "--languages", "py,ts", "--json")
    assert {r["status"] for r in outcomes(again).values()} == {"already"}


@pytest.mark.slow
def test_scip_go_is_built_into_the_tools_cache_whatever_goflags_says(cache, monkeypatch):
    monkeypatch.setenv("GOFLAGS", "-mod=vendor")  # would break `go install pkg@version` if passed on
    result = analyzers("install", "--languages", "go", "--json")
    assert result.exit_code == 0, result.output
    go = outcomes(result)["scip-go"]
    assert (go["status"], go["version"], go["path"]) == ("installed", "0.2.9", str(cache / "scip-go-v0.2.9/scip-go"))
    assert locate(ANALYZERS[2]).path == go["path"]
    assert [p.name for p in cache.iterdir()] == ["scip-go-v0.2.9"]  # no scratch directory left behind


@pytest.mark.slow
def test_a_missing_toolchain_is_one_line_the_others_install_and_the_exit_status_says_so(
    cache, npm_installed, tmp_path, monkeypatch
):
    seed_npm(cache, npm_installed[0])
    monkeypatch.setenv("PATH", toolbox(tmp_path, "node", "npm"))  # no go
    result = analyzers("install", "--languages", "python,go")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["scip-python", "already", "0.6.6"]
    assert lines[1] == f"{'scip-go':<16} {'skipped':<9} {'-':<9} go is not on PATH; scip-go needs Go >= 1.26"
    assert len(lines) == 2
    assert "Error: not installed: scip-go (go)" in result.stderr


def test_rustup_s_component_is_preferred_and_recorded_with_its_own_version(cache, tmp_path, monkeypatch):
    component = executable(
        tmp_path / "toolchain/bin/rust-analyzer",
        'case "$1" in --version) echo "rust-analyzer 1.99.0 (0123abc 2026-05-01)";;'
        ' scip) echo "USAGE: rust-analyzer scip <path>";; *) exit 2;; esac',
    )
    executable(
        tmp_path / "fake-bin/rustup",
        f'case "$1 $2" in "component add") exit 0;; "which rust-analyzer") echo {component};; *) exit 1;; esac',
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'fake-bin'}:{os.environ['PATH']}")
    result = analyzers("install", "--languages", "rust", "--json")
    assert result.exit_code == 0, result.output
    rust = outcomes(result)["rust-analyzer"]
    assert (rust["status"], rust["version"], rust["path"], rust["source"]) == (
        "installed", "1.99.0", str(component), "rustup",
    )  # fmt: skip
    path_lines = [line for line in result.stderr.splitlines() if line.startswith("rust-analyzer:")]
    assert path_lines == [
        "rust-analyzer: the toolchain's component 1.99.0 (`rustup component add rust-analyzer` worked and it "
        "supports `scip`)"
    ]
    assert json.loads((cache / "rust-analyzer-component.json").read_text(encoding="utf-8"))["version"] == "1.99.0"
    doctor = json.loads(CliRunner().invoke(cli, ["doctor", "--languages", "rust", "--json"]).stdout)
    assert (doctor[0]["status"], doctor[0]["version"], doctor[0]["path"], doctor[0]["detail"]) == (
        "ok", "1.99.0", str(component), "",
    )  # fmt: skip
    assert outcomes(analyzers("install", "--languages", "rust", "--json"))["rust-analyzer"]["status"] == "already"


def test_a_component_without_scip_is_not_taken(cache, tmp_path, monkeypatch):
    old = executable(
        tmp_path / "old/rust-analyzer", 'case "$1" in --version) echo "rust-analyzer 1.60.0";; *) exit 1;; esac'
    )
    executable(tmp_path / "fake-bin/rustup", f'case "$1" in component) exit 0;; which) echo {old};; esac')
    executable(tmp_path / "fake-bin/cargo", "exit 99")  # must not be reached: rustc is too old
    executable(tmp_path / "fake-bin/rustc", 'echo "rustc 1.60.0 (7737e0b5c 2022-04-04)"')
    monkeypatch.setenv("PATH", toolbox(tmp_path))
    result = analyzers("install", "--languages", "rust", "--json")
    assert result.exit_code == 1
    rust = outcomes(result)["rust-analyzer"]
    assert rust["status"] == "skipped"
    assert rust["reason"] == (
        "the toolchain's rust-analyzer 1.60.0 has no `scip` command, and the crates.io build of 0.0.348 needs "
        "rustc >= 1.95 (found rustc 1.60.0 (7737e0b5c 2022-04-04))"
    )
    assert not (cache / "rust-analyzer-component.json").exists()


def test_when_rustup_fails_the_crates_io_build_is_used_and_one_line_says_why(cache, tmp_path, monkeypatch):
    seeded = cache / "rust-analyzer-0.0.348"
    cache.mkdir()
    if BUILT_RUST_ANALYZER.is_dir():
        seeded.symlink_to(BUILT_RUST_ANALYZER)  # the real 20-minute build, made earlier: nothing is rebuilt
    else:
        executable(seeded / "bin/rust-analyzer", 'echo "rust-analyzer 0.0.348"')
    executable(
        tmp_path / "fake-bin/rustup",
        'echo "info: downloading component rust-analyzer" >&2\n'
        'echo "error: component download failed for rust-analyzer-x86_64-unknown-linux-gnu" >&2\nexit 1',
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'fake-bin'}:{os.environ['PATH']}")
    result = analyzers("install", "--languages", "rust", "--json")
    assert result.exit_code == 0, result.output
    rust = outcomes(result)["rust-analyzer"]
    binary = str(seeded / "bin/rust-analyzer")
    assert (rust["status"], rust["version"], rust["path"], rust["source"]) == (
        "already", "0.0.348", binary, "crates.io",
    )  # fmt: skip
    why = (
        "`rustup component add rust-analyzer` exited with 1: error: component download failed for "
        "rust-analyzer-x86_64-unknown-linux-gnu"
    )
    assert rust["reason"] == f"the crates.io build, because {why}"
    path_lines = [line for line in result.stderr.splitlines() if line.startswith("rust-analyzer:")]
    assert path_lines == [f"rust-analyzer: the cached crates.io build 0.0.348, because {why}"]
    assert locate(ANALYZERS[3]).path == binary
    assert seeded.is_symlink() or seeded.is_dir()


def test_without_rustup_and_cargo_rust_is_skipped_in_one_line(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", toolbox(tmp_path))
    result = analyzers("install", "--languages", "rust")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{'rust-analyzer':<16} {'skipped':<9} {'-':<9} rustup is not on PATH, and cargo is not on PATH for the "
        "crates.io build (install Rust >= 1.95 with rustup)"
    ]


def test_dart_alone_needs_no_analyzer_and_succeeds(cache):
    result = analyzers("install", "--languages", "dart", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"tools_cache": str(cache), "languages": ["dart"], "analyzers": []}
    assert "dart: no analyzer runs here" in result.stderr


def test_auto_installs_for_the_languages_at_head(cache, make_repo, tmp_path, monkeypatch):
    repo = make_repo({"main.go": "package main\n", "lib.rs": "fn f() {}\n", "README.md": "x\n"})
    monkeypatch.setenv("PATH", toolbox(tmp_path, "git"))  # nothing can install: only the choice is seen
    result = analyzers("install", str(repo.path), "--json")
    assert json.loads(result.stdout)["languages"] == ["go", "rust"]
    assert sorted(outcomes(result)) == ["rust-analyzer", "scip-go"]


def test_the_cache_key_follows_the_pins_of_the_languages_asked_and_names_the_cache(cache, make_repo):
    every = json.loads(analyzers("cache-key", "--languages", "all", "--json").stdout)
    assert every["path"] == str(cache)
    assert every["key"].startswith("kivgraph-tools-") and len(every["key"]) > len("kivgraph-tools-")
    assert set(every["analyzers"]) == {spec.name for spec in ANALYZERS}
    python = json.loads(analyzers("cache-key", "--languages", "python", "--json").stdout)
    assert python["analyzers"] == {"scip-python": every["analyzers"]["scip-python"]}
    assert python["key"] != every["key"]
    repo = make_repo({"app.py": "x = 1\n"})
    assert json.loads(analyzers("cache-key", str(repo.path), "--json").stdout)["key"] == python["key"]
    assert analyzers("cache-key", "--languages", "python").stdout == f"key  {python['key']}\npath {cache}\n"


def test_the_lockfile_ships_in_the_package_once_and_pins_what_discovery_expects():
    manifest = json.loads((NPM_PACKAGE_DIR / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((NPM_PACKAGE_DIR / "package-lock.json").read_text(encoding="utf-8"))
    for spec in ANALYZERS:
        if spec.npm_package:
            assert manifest["dependencies"][spec.npm_package] == spec.pinned
            assert lock["packages"][f"node_modules/{spec.npm_package}"]["version"] == spec.pinned
    for name in ("package.json", "package-lock.json"):
        assert (checkout_tools() / name).resolve() == (NPM_PACKAGE_DIR / name).resolve()


def test_a_missing_analyzer_is_advised_the_install_command(cache):
    assert tools_cache() == cache
    for spec in ANALYZERS:
        assert f"`kivgraph analyzers install --languages {spec.languages[0].value}`" in spec.install_hint


def test_a_failed_npm_ci_leaves_nothing_that_looks_installed(cache, tmp_path, monkeypatch):
    executable(tmp_path / "fake-bin/npm", 'echo "npm error code ENOTFOUND" >&2; exit 1')
    monkeypatch.setenv("PATH", toolbox(tmp_path, "node"))
    result = analyzers("install", "--languages", "typescript", "--json")
    assert result.exit_code == 1
    row = outcomes(result)["scip-typescript"]
    assert (row["status"], row["reason"]) == ("failed", "npm ci exited with 1: npm error code ENOTFOUND")
    assert list(cache.iterdir()) == []
