"""The index action end to end, as GitHub runs it: index/action.yml's steps with a runner's
environment and a push event, on a real repository (the Go fixture, indexed with scip-go) pushed to
a bare origin, in a workspace checked out as actions/checkout does by default (depth 1). Bursts of
pushes are real commits pushed at once; the notes are read back from origin."""

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.scip.analyzers import tools_cache
from kivgraph.store import load_from_file
from kivgraph.store.codec import decode, decode_columns
from tests.action.actions import INDEX_ACTION, ActionRun, github_environment, run_action
from tests.conftest import FIXTURES, Repo, git
from tests.scip.analyzers import require
from tests.test_shard import TREE as SHARDED_TREE
from tests.test_shard import same

TOKEN = "ghs_" + "1nd3xT0k3n" * 3
GO_CACHE = {"GOCACHE": shutil.which("go") and subprocess.run(["go", "env", "GOCACHE"], capture_output=True,
                                                             text=True).stdout.strip() or ""}  # fmt: skip
"""The machine's Go build cache, as actions/setup-go restores one: scip-go loads packages in seconds, not ten."""
REPOSITORY = "owner/repo"
GEO = "geo/geo.go"


def has_command(*words: str) -> bool:
    group: Any = cli
    for word in words:
        if not isinstance(group, click.Group) or word not in group.commands:
            return False
        group = group.commands[word]
    return True


@dataclass
class Origin:
    """A developer's clone pushing to a bare origin; each run checks out a pushed commit afresh."""

    root: Path
    author: Repo
    origin: Path
    runs: int = 0

    def commit(self, message: str) -> str:
        """A real change of main's code (a new function in geo), committed, not pushed."""
        file = self.author.path / GEO
        name = f"Extra{self.author.git('rev-list', '--count', 'HEAD')}"
        file.write_text(file.read_text(encoding="utf-8") + f"\nfunc {name}() int {{ return 1 }}\n", encoding="utf-8")
        return self.author.commit(message=message)

    def push(self) -> str:
        self.author.git("push", "-q", "origin", "main")
        return self.author.git("rev-parse", "main")

    def checkout(self, sha: str) -> Path:
        """What actions/checkout does by default: init, one commit fetched by id (depth 1), detached."""
        self.runs += 1
        workspace = self.root / f"runner{self.runs}" / "work" / "repo"
        workspace.mkdir(parents=True)
        git(workspace, "init", "-q")
        git(workspace, "remote", "add", "origin", f"file://{self.origin}")
        git(workspace, "fetch", "-q", "--no-tags", "--depth=1", "origin", f"+{sha}:refs/remotes/origin/main")
        git(workspace, "checkout", "-q", "--detach", "refs/remotes/origin/main")
        return workspace

    def notes(self) -> dict[str, bytes]:
        """commit → note bytes, as origin holds them."""
        if not git(self.origin, "for-each-ref", "refs/notes/kivgraph"):
            return {}
        listed = git(self.origin, "notes", "--ref=refs/notes/kivgraph", "list").splitlines()
        found: dict[str, bytes] = {}
        for line in listed:
            blob, commit = line.split()
            found[commit] = blob_bytes(self.origin, blob)
        return found


def blob_bytes(repo: Path, blob: str) -> bytes:
    return subprocess.run(["git", "cat-file", "blob", blob], cwd=repo, capture_output=True, check=True).stdout


@pytest.fixture
def remote(tmp_path: Path) -> Origin:
    require("scip-go")
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    author = Repo(tmp_path / "author")
    shutil.copytree(FIXTURES / "exact" / "go", author.path, dirs_exist_ok=True)
    author.commit(message="main")
    author.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    return Origin(tmp_path, author, tmp_path / "origin.git")


def act(workspace: Path, inputs: dict[str, str] | None = None, **extra: str) -> ActionRun:
    """One job on a push to main: a fresh runner directory beside the workspace, the event file,
    every step of index/action.yml. The tools cache is this machine's, as actions/cache restores it."""
    runner = workspace.parent.parent
    temp = runner / "temp"
    temp.mkdir(exist_ok=True)
    sha = git(workspace, "rev-parse", "HEAD")
    event = runner / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "after": sha, "repository": {"full_name": REPOSITORY}}),
                     encoding="utf-8")  # fmt: skip
    env = github_environment(workspace, temp, "http://127.0.0.1:9", "push", event, REPOSITORY, sha)
    env["KIVGRAPH_TOOLS_CACHE"] = str(tools_cache())
    env.update({name: value for name, value in GO_CACHE.items() if value})
    env.update(extra)
    run = run_action({"install-analyzers": "false", "keep-notes": "0", **(inputs or {})}, env, TOKEN, INDEX_ACTION)
    assert "Traceback" not in run.log, run.log
    return run


def header(blob: bytes) -> Any:
    return decode_columns(blob).header


def test_a_push_is_indexed_with_its_type_checker_and_its_note_published_with_a_summary(remote: Origin):
    sha = remote.push()
    workspace = remote.checkout(sha)

    run = act(workspace)

    assert run.returncode == 0, run.log
    notes = remote.notes()
    assert list(notes) == [sha]
    stored = header(notes[sha])
    assert stored.commit == sha and dict(stored.analyzers)["scip-go"]
    assert run.outputs["commit"] == sha and run.outputs["indexed"] == sha
    assert run.outputs["languages"] == "go" and run.outputs["syntax-only"] == ""
    assert 0.5 < float(run.outputs["exact-share"]) <= 1
    # Go only: Go is set up, Node and Rust are not; no cache without installing analyzers.
    wanted = {step.name: step.wanted for step in run.steps if not step.ran}
    assert wanted["Set up Go (scip-go)"] and not wanted["Set up Node (scip-typescript, scip-python)"]
    assert not wanted["Set up Rust (rust-analyzer)"] and not wanted["Restore the analyzers (tools cache)"]
    summary = run.step("index").summary
    assert summary.startswith(f"### kivgraph index: `{sha[:12]}` indexed, notes pushed")
    assert f"| `{sha[:12]}` | pushed | 5 | 16 | 23 |" in summary
    assert "**Type checkers that ran:** scip-go 0.2.9 · **languages:** go." in summary and "Syntax-only" not in summary
    assert "**Backfill:** nothing to do: the pushed commit has no earlier commit." in summary
    assert "| index |" in summary and "| push notes |" in summary and "| total |" in summary
    assert "$ kivgraph index . --commit " + sha + " --json --require-analyzers" in run.log


def test_a_burst_of_pushes_is_backfilled_back_to_the_last_indexed_commit_within_the_bound(remote: Origin):
    first = remote.push()
    assert act(remote.checkout(first)).returncode == 0
    burst = [remote.commit(f"burst {i}") for i in range(4)]  # four merges, one push: one run, for the last
    assert remote.push() == burst[-1]

    run = act(remote.checkout(burst[-1]), {"backfill": "5"})

    assert run.returncode == 0, run.log
    assert run.outputs["indexed"].split() == [burst[3], burst[2], burst[1], burst[0]]
    assert "units from an indexed ancestor" in run.log  # the history was fetched first: the pushed commit built on it
    assert set(remote.notes()) == {first, *burst}
    summary = run.step("index").summary
    assert f"back to `{first[:12]}` (the last indexed one), had no note" in summary
    assert summary.count("| backfill |") == 3
    # The checkout stayed shallow: only the commits the backfill reads were fetched.
    assert git(remote.checkout(burst[-1]), "rev-parse", "--is-shallow-repository") == "true"

    longer = [remote.commit(f"second burst {i}") for i in range(8)]
    remote.push()
    bounded = act(remote.checkout(longer[-1]), {"backfill": "3", "keep-notes": "0"})

    assert bounded.returncode == 0, bounded.log
    assert bounded.outputs["indexed"].split() == [longer[7], longer[6], longer[5], longer[4]]
    assert set(remote.notes()) == {first, *burst, *longer[4:]}  # older ones of the burst stay without a note
    assert "the bound (backfill: 3) stopped the walk" in bounded.step("index").summary


def test_a_missing_type_checker_fails_the_step_unless_told_and_then_the_summary_says_syntax_only(remote: Origin):
    sha = remote.push()
    missing = str(remote.root / "no-scip-go")

    refused = act(remote.checkout(sha), KIVGRAPH_SCIP_GO=missing)

    assert refused.step("index").returncode == 1 and remote.notes() == {}
    [line] = [line for line in refused.log.splitlines() if line.startswith("::error::")]
    assert f"`kivgraph index . --commit {sha} --json --require-analyzers` failed: a required type checker" in line
    assert refused.step("index").summary.startswith("### kivgraph index: not indexed")

    # The input wins over a KIVGRAPH_REQUIRE_ANALYZERS=1 the job may set for its own tests.
    allowed = act(remote.checkout(sha), {"require-analyzers": "false"}, KIVGRAPH_SCIP_GO=missing,
                  KIVGRAPH_REQUIRE_ANALYZERS="1")  # fmt: skip

    assert allowed.returncode == 0, allowed.log
    assert allowed.outputs["syntax-only"] == "go" and "scip-go" not in dict(header(remote.notes()[sha]).analyzers)
    assert "**Syntax-only:** go (scip-go did not run)" in allowed.step("index").summary


def test_keep_notes_must_leave_the_backfilled_notes(remote: Origin):
    run = act(remote.checkout(remote.push()), {"backfill": "5", "keep-notes": "5"})
    assert run.step("index").returncode == 1 and remote.notes() == {}
    assert "::error::keep-notes (5) must be more than backfill (5), or 0 to never prune" in run.log


@pytest.mark.skipif(not has_command("analyzers", "install"), reason="needs `kivgraph analyzers install`")
def test_the_analyzers_are_installed_from_a_cache_keyed_by_their_pins(remote: Origin):
    sha = remote.push()
    run = act(remote.checkout(sha), {"install-analyzers": "true"})

    assert run.returncode == 0, run.log
    key = run.step("languages").outputs["cache-key"]
    assert key.startswith("kivgraph-tools-") and run.step("languages").outputs["cache-path"] == str(tools_cache())
    assert [step.wanted for step in run.steps if step.name == "Restore the analyzers (tools cache)"] == [True]
    assert "$ kivgraph analyzers install . --languages auto" in run.log
    assert "| install analyzers |" in run.step("index").summary and list(remote.notes()) == [sha]


@pytest.mark.skipif(not has_command("notes", "prune"), reason="needs `kivgraph notes prune`")
def test_old_notes_are_pruned_after_the_push(remote: Origin):
    older = [remote.commit(f"c{i}") for i in range(3)]
    remote.push()
    for commit in older:  # each indexed in its own run, as pushes one at a time would be
        assert act(remote.checkout(commit), {"backfill": "0"}).returncode == 0
    newest = remote.commit("newest")
    remote.push()

    run = act(remote.checkout(newest), {"backfill": "1", "keep-notes": "2"})

    assert run.returncode == 0, run.log
    assert "$ kivgraph notes prune origin --keep 2" in run.log
    assert set(remote.notes()) == {older[2], newest}
    assert "Notes pruned to the last 2 first-parent commits" in run.step("index").summary


@pytest.fixture
def monorepo(tmp_path: Path) -> Origin:
    """Three Go modules (one used by the other two) pushed to a bare origin."""
    require("scip-go")
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    author = Repo(tmp_path / "author")
    author.commit(SHARDED_TREE, message="three modules")
    author.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    return Origin(tmp_path, author, tmp_path / "origin.git")


def test_a_matrix_of_shard_jobs_and_a_merge_job_publish_the_note_one_job_makes(monorepo: Origin, tmp_path: Path):
    sha = monorepo.push()
    files: list[Path] = []
    for k in (1, 2):  # the matrix: each job on a runner of its own, uploading its shard file
        run = act(monorepo.checkout(sha), {"shard": f"{k}/2"})
        assert run.returncode == 0, run.log
        assert monorepo.notes() == {}  # a shard job pushes nothing
        assert f"$ kivgraph index . --commit {sha} --shard {k}/2 --out " in run.log and "--require-analyzers" in run.log
        summary = run.step("index").summary
        assert summary.startswith(f"### kivgraph index: shard {k}/2 of `{sha[:12]}` indexed"), summary
        assert "| index |" in summary and run.outputs["commit"] == sha
        files.append(Path(run.outputs["shard-file"]))
        assert files[-1].is_file() and files[-1].name == f"kivgraph-shard-{k}-of-2.kshard"
    # The merge job: actions/download-artifact puts each artifact in a directory of its name.
    merger = monorepo.checkout(sha)
    downloaded = merger.parent.parent / "artifacts"
    for k, file in enumerate(files, 1):
        (downloaded / f"kivgraph-shard-{k}").mkdir(parents=True)
        shutil.copy(file, downloaded / f"kivgraph-shard-{k}" / file.name)

    run = act(merger, {"merge": str(downloaded), "keep-notes": "200"})

    assert run.returncode == 0, run.log
    notes = monorepo.notes()
    assert list(notes) == [sha]
    one = tmp_path / "one.kgen"
    done = CliRunner().invoke(cli, ["index", str(monorepo.checkout(sha)), "--out", str(one)])  # one job's runner
    assert done.exit_code == 0, done.output
    same(decode(notes[sha], "the pushed note"), load_from_file(str(one)))
    assert run.outputs["commit"] == sha == run.outputs["indexed"] and run.outputs["syntax-only"] == ""
    summary = run.step("index").summary
    assert f"| `{sha[:12]}` | merged from 2 shards |" in summary and "| merge |" in summary
    assert "**Backfill:** none in a sharded run" in summary and "Notes pruned to the last 200" in summary
    # The merge runs no type checker: no toolchain is set up, no analyzer installed.
    wanted = {step.name: step.wanted for step in run.steps if not step.ran}
    assert not wanted["Set up Go (scip-go)"] and "analyzers install" not in run.log
    assert "$ kivgraph merge " in run.log


def test_shard_and_merge_inputs_that_cannot_work_fail_naming_the_input(monorepo: Origin, tmp_path: Path):
    sha = monorepo.push()
    empty = tmp_path / "nothing-downloaded"
    empty.mkdir()
    for inputs, message in (
        ({"shard": "3/2"}, "the input shard must be K/N with 1 ≤ K ≤ N (for example 2/4), not '3/2'"),
        ({"shard": "1/2", "merge": str(empty)}, "give shard (a matrix job indexing one shard) or merge"),
        ({"merge": str(empty)}, "no shard file (*.kshard) under"),
        ({"merge": str(tmp_path / "absent")}, "which is not a directory"),
    ):
        run = act(monorepo.checkout(sha), inputs)
        assert run.returncode == 1 and "::error::" in run.log and message in run.log, run.log
        assert monorepo.notes() == {}
