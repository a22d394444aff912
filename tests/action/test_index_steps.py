"""The index action's steps on their own, with the CLI commands they run recorded: the languages
step's toolchains and cache key, the exact command lines, and what a failing command costs (the
step, or only a warning). Real git and a bare origin; `kivgraph index` runs for real."""

import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from kivgraph.action.index import Ran, index_step, languages_step, run_kivgraph
from kivgraph.action.runner import Runner
from kivgraph.errors import KivgraphError
from tests.action.actions import parse_outputs
from tests.conftest import Repo, git

DART = "library shapes;\n\nclass Square {\n  double side = 1;\n  double area() => side * side;\n}\n"


class Recorder:
    """Stands in for the CLI where told to, runs it for real elsewhere, and records every command."""

    def __init__(self, answers: Mapping[str, Ran]) -> None:
        self.answers = answers
        self.commands: list[tuple[str, ...]] = []

    def __call__(self, runner: Runner, args: Sequence[str], cwd: str, env: Mapping[str, str]) -> Ran:
        self.commands.append(tuple(args))
        for prefix, ran in self.answers.items():
            if " ".join(args).startswith(prefix):
                return ran
        return run_kivgraph(runner, args, cwd, env)


def step_runner(tmp_path: Path, repo: Repo, **inputs: str) -> tuple[Runner, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "GITHUB_SHA": repo.git("rev-parse", "HEAD"),
        "INPUT_PATH": str(repo.path),
        **{f"INPUT_{name.upper()}": value for name, value in inputs.items()},
    }
    return Runner(environ, out, err), out, err


def outputs(tmp_path: Path) -> dict[str, str]:
    return parse_outputs((tmp_path / "output").read_text(encoding="utf-8"))


@pytest.fixture
def pushed(tmp_path: Path) -> Repo:
    """A Dart repository (no type checker runs for Dart: indexing is quick and needs none) on origin."""
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    repo = Repo(tmp_path / "repo")
    repo.commit({"lib/shapes.dart": DART}, "main")
    repo.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    repo.git("push", "-q", "origin", "main")
    return repo


def test_the_languages_step_sets_up_only_the_toolchains_the_present_languages_analyzers_need(tmp_path: Path):
    many = Repo(tmp_path / "many")
    many.commit({"a.py": "x = 1\n", "b.ts": "export const b = 1;\n", "c.go": "package c\n", "d.dart": DART})
    key = '{"key": "kivgraph-tools-linux-x", "path": "/cache"}'
    recorder = Recorder({"analyzers cache-key": Ran("kivgraph analyzers cache-key --json", 0, key)})
    runner, out, _ = step_runner(tmp_path, many)

    assert languages_step(runner, recorder) == 0

    assert outputs(tmp_path) == {
        "languages": "dart,go,python,typescript", "node": "true", "go": "true", "rust": "false",
        "cache-key": "kivgraph-tools-linux-x", "cache-path": "/cache",
    }  # fmt: skip
    assert recorder.commands == [("analyzers", "cache-key", "--json")]
    assert "node is set up for scip-python, scip-typescript" in out.getvalue()


def test_a_dart_only_repository_needs_no_toolchain_and_no_cache_without_installing(tmp_path: Path, pushed: Repo):
    recorder = Recorder({})
    runner, _, _ = step_runner(tmp_path, pushed, install_analyzers="false")

    assert languages_step(runner, recorder) == 0

    assert outputs(tmp_path) == {"languages": "dart", "node": "false", "go": "false", "rust": "false"}
    assert recorder.commands == []


def test_no_cache_key_is_a_warning_and_the_analyzers_install_without_a_cache(tmp_path: Path, pushed: Repo):
    recorder = Recorder({"analyzers cache-key": Ran("kivgraph analyzers cache-key --json", 2, "", "No such command")})
    runner, out, _ = step_runner(tmp_path, pushed)

    assert languages_step(runner, recorder) == 0

    assert "cache-key" not in outputs(tmp_path)
    assert "::warning::`kivgraph analyzers cache-key --json` gave no cache key (No such command)" in out.getvalue()


def test_the_index_step_runs_the_cli_commands_as_spelled_and_a_failed_prune_is_only_a_warning(tmp_path: Path,
                                                                                          pushed: Repo):  # fmt: skip
    recorder = Recorder({
        "analyzers install": Ran("kivgraph analyzers install . --languages auto", 0),
        "notes prune": Ran("kivgraph notes prune origin --keep 200", 2, "", "No such command 'prune'"),
    })  # fmt: skip
    runner, out, _ = step_runner(tmp_path, pushed)
    sha = pushed.git("rev-parse", "HEAD")

    assert index_step(runner, recorder) == 0

    assert recorder.commands == [
        ("analyzers", "install", ".", "--languages", "auto"),
        ("index", ".", "--commit", sha, "--json", "--require-analyzers"),
        ("notes", "prune", "origin", "--keep", "200"),
    ]
    assert git(tmp_path / "origin.git", "notes", "--ref=refs/notes/kivgraph", "list").split()[1] == sha
    assert "::warning::`kivgraph notes prune origin --keep 200` failed: No such command 'prune'." in out.getvalue()
    summary = (tmp_path / "summary").read_text(encoding="utf-8")
    assert "Notes were not pruned: No such command 'prune'.\n" in summary
    assert "| install analyzers |" in summary and "| prune (keep 200) |" in summary
    assert "**No type checker exists here for** dart" in summary
    assert outputs(tmp_path)["indexed"] == sha and outputs(tmp_path)["syntax-only"] == ""


def test_analyzers_that_cannot_be_installed_stop_the_step_before_anything_is_indexed(tmp_path: Path, pushed: Repo):
    recorder = Recorder({"analyzers install": Ran("kivgraph analyzers install . --languages auto", 1, "",
                                                  "not installed: scip-go (go)")})  # fmt: skip
    runner, _, _ = step_runner(tmp_path, pushed)

    with pytest.raises(KivgraphError, match="failed: not installed: scip-go"):
        index_step(runner, recorder)

    assert recorder.commands == [("analyzers", "install", ".", "--languages", "auto")]
    assert (tmp_path / "summary").read_text(encoding="utf-8").startswith("### kivgraph index: not indexed")
    assert not (tmp_path / "output").exists()  # no output: nothing was indexed
