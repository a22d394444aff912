"""`kivgraph doctor`: finding analyzers, their versions, and saying how to get the missing ones."""

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli


@pytest.fixture
def bare_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No analyzer anywhere: an empty tools cache and a PATH with only system tools."""
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("KIVGRAPH_TOOLS_CACHE", str(cache))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    for name in ("KIVGRAPH_SCIP_GO", "KIVGRAPH_RUST_ANALYZER", "KIVGRAPH_SCIP_TYPESCRIPT", "KIVGRAPH_SCIP_PYTHON"):
        monkeypatch.delenv(name, raising=False)
    return cache


def script(path: Path, body: str) -> Path:
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def doctor(*args: str):
    return CliRunner().invoke(cli, ["doctor", *args])


def rows(*args: str) -> dict[str, dict[str, str]]:
    result = doctor(*args, "--json")
    assert result.exit_code == 0, result.output
    return {row["language"]: row for row in json.loads(result.stdout)}


def test_an_analyzer_named_by_its_environment_variable_is_found_with_its_version(
    bare_environment, tmp_path, monkeypatch
):
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", str(script(tmp_path / "scip-go", 'echo "scip-go 0.2.9"')))
    go = rows("--languages", "go")["go"]
    assert (go["status"], go["version"], go["path"]) == ("ok", "0.2.9", str(tmp_path / "scip-go"))


def test_the_tools_cache_is_searched_at_the_pinned_version(bare_environment):
    binary = bare_environment / "scip-go-v0.2.9" / "scip-go"
    binary.parent.mkdir()
    script(binary, "echo 0.2.9")
    assert rows("--languages", "go")["go"]["path"] == str(binary)


def test_a_missing_analyzer_says_how_to_install_it_and_strict_fails(bare_environment):
    go = rows("--languages", "go")["go"]
    assert go["status"] == "missing" and "`kivgraph analyzers install --languages go`" in go["detail"]
    strict = doctor("--languages", "go", "--strict")
    assert strict.exit_code == 1 and "no usable analyzer for go" in strict.stderr


def test_a_broken_analyzer_is_reported_with_its_first_error_line(bare_environment, tmp_path, monkeypatch):
    broken = script(tmp_path / "rust-analyzer", "echo 'error: Unknown binary' >&2; echo '  15: <unknown>' >&2; exit 1")
    monkeypatch.setenv("KIVGRAPH_RUST_ANALYZER", str(broken))
    rust = rows("--languages", "rust")["rust"]
    assert rust["status"] == "unusable"
    assert "exited with 1: error: Unknown binary" in rust["detail"]


def test_an_environment_variable_pointing_nowhere_is_named(bare_environment, monkeypatch):
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", "/nowhere/scip-go")
    assert "KIVGRAPH_SCIP_GO points at /nowhere/scip-go" in rows("--languages", "go")["go"]["detail"]


def test_a_version_other_than_the_pinned_one_works_with_a_note(bare_environment, tmp_path, monkeypatch):
    monkeypatch.setenv("KIVGRAPH_SCIP_GO", str(script(tmp_path / "scip-go", "echo 0.3.0")))
    go = rows("--languages", "go")["go"]
    assert go["status"] == "ok" and "not the pinned 0.2.9" in go["detail"]


def test_dart_is_syntax_only_and_never_fails_strict(bare_environment):
    dart = rows("--languages", "dart")["dart"]
    assert dart["status"] == "syntax-only" and "--scip" in dart["detail"]
    assert doctor("--languages", "dart", "--strict").exit_code == 0


def test_without_languages_it_checks_those_of_the_repository(bare_environment, make_repo):
    repo = make_repo({"a.go": "package a\n", "b.dart": "void b() {}\n", "README.md": "hi\n"})
    assert set(rows(str(repo.path))) == {"go", "dart"}
