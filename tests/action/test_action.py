"""The Action end to end, as GitHub runs it: action.yml's steps with a runner's environment and a
pull_request event payload file, on a real repository (the Go fixture indexed with scip-go, its
note pushed to a bare origin, a pull request branch, the test merge commit checked out), against
a fake of the GitHub REST API on 127.0.0.1 that records every request."""

import json
import re
import shutil
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kivgraph.action import MARKER
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.action.actions import ActionRun, github_environment, run_action
from tests.action.fake_github import FakeGitHub
from tests.conftest import FIXTURES, Repo, git
from tests.scip.analyzers import require

TOKEN = "ghs_" + "k1vgr4phT0k3n" * 3
REPOSITORY = "owner/repo"
NUMBER = 7
SHAPES = "shapes/shapes.go"
SCALE_ROW = "| `Scale` | signature changed |"


@dataclass
class PullRequest:
    """A contributor's clone, the bare origin it pushes to, and the runner's checkout of the PR."""

    root: Path
    author: Repo
    origin: Path
    runs: int = 0

    def edit(self, old: str, new: str, path: str = SHAPES, message: str = "change") -> None:
        file = self.author.path / path
        text = file.read_text(encoding="utf-8")
        assert old in text
        file.write_text(text.replace(old, new), encoding="utf-8")
        self.author.commit(message=message)

    def publish(self) -> tuple[str, str, Path]:
        """Push the branch, make GitHub's test merge commit refs/pull/N/merge, and check that out
        in a fresh workspace as actions/checkout does with fetch-depth 0: (base, head, workspace)."""
        author = self.author
        author.git("push", "-q", "-f", "origin", "pr")
        base, head = author.git("rev-parse", "main"), author.git("rev-parse", "pr")
        author.git("checkout", "-q", "--detach", "main")
        author.git("merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", "pr")
        author.git("push", "-q", "-f", "origin", f"HEAD:refs/pull/{NUMBER}/merge")
        author.git("checkout", "-q", "pr")
        self.runs += 1
        workspace = self.root / f"runner{self.runs}" / "work" / "repo"
        workspace.parent.mkdir(parents=True)
        git(workspace.parent, "clone", "-q", str(self.origin), "repo")
        git(workspace, "fetch", "-q", "origin", f"+refs/pull/{NUMBER}/merge:refs/remotes/pull/{NUMBER}/merge")
        git(workspace, "checkout", "-q", "--detach", f"refs/remotes/pull/{NUMBER}/merge")
        return base, head, workspace


@pytest.fixture
def pr(tmp_path: Path) -> PullRequest:
    """main indexed (scip-go) with its note on origin; the contributor is on branch `pr`."""
    require("scip-go")
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    author = Repo(tmp_path / "author")
    shutil.copytree(FIXTURES / "exact" / "go", author.path, dirs_exist_ok=True)
    author.commit(message="main")
    save_to_notes(open_repository(str(author.path)), index_repository(str(author.path), run_analyzers=True))
    author.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    author.git("push", "-q", "origin", "main", "refs/notes/kivgraph")
    author.git("checkout", "-q", "-b", "pr")
    return PullRequest(tmp_path, author, tmp_path / "origin.git")


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(TOKEN, REPOSITORY).start()
    yield fake
    fake.stop()


def pull_request_event(base: str, head: str, fork: bool = False) -> dict[str, Any]:
    """The fields of a real `pull_request` (synchronize) payload that matter, and a few that do not."""
    head_repo = "contributor/repo" if fork else REPOSITORY
    return {
        "action": "synchronize",
        "number": NUMBER,
        "pull_request": {
            "number": NUMBER,
            "state": "open",
            "title": "Scale takes an int",
            "html_url": f"https://github.com/{REPOSITORY}/pull/{NUMBER}",
            "user": {"login": "contributor", "type": "User"},
            "head": {
                "ref": "pr",
                "sha": head,
                "label": f"{head_repo.split('/')[0]}:pr",
                "repo": {"full_name": head_repo, "fork": fork},
            },
            "base": {
                "ref": "main",
                "sha": base,
                "label": "owner:main",
                "repo": {"full_name": REPOSITORY, "fork": False},
            },
        },  # fmt: skip
        "repository": {"full_name": REPOSITORY, "name": "repo", "owner": {"login": "owner"}, "default_branch": "main"},
        "sender": {"login": "contributor", "type": "User"},
    }


def act(workspace: Path, api_url: str, event_name: str, event: dict[str, Any], inputs: dict[str, str] | None = None,
        sha: str = "") -> ActionRun:  # fmt: skip
    """One job: a fresh runner directory beside the workspace, the event file, every step of action.yml."""
    runner = workspace.parent.parent
    temp = runner / "temp"
    temp.mkdir(exist_ok=True)
    event_path = runner / "event.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    env = github_environment(workspace, temp, api_url, event_name, event_path, REPOSITORY,
                             sha or git(workspace, "rev-parse", "HEAD"))  # fmt: skip
    run = run_action(inputs or {}, env, TOKEN)
    assert TOKEN not in run.log and TOKEN not in run.summary, "the token was printed"
    assert "Traceback" not in run.log, run.log
    return run


def report(run: ActionRun) -> dict[str, Any]:
    return json.loads(Path(run.outputs["report-json"]).read_text(encoding="utf-8"))


def test_the_first_run_creates_the_comment_and_a_later_push_edits_that_same_comment(pr: PullRequest, api: FakeGitHub):
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square", message="Scale takes int")
    base, head, workspace = pr.publish()
    first = act(workspace, api.url, "pull_request", pull_request_event(base, head))

    assert first.returncode == 0, first.log
    [created] = api.made("POST")
    assert created.path == f"/repos/{REPOSITORY}/issues/{NUMBER}/comments"
    body = created.body["body"]
    assert body.startswith(MARKER + "\n") and SCALE_ROW in body
    assert "base exactness" not in body  # the base's note was built with scip-go
    assert f"(https://github.com/{REPOSITORY}/blob/{head}/cmd/app/main.go#L10)" in body
    assert created.headers["authorization"] == f"Bearer {TOKEN}"
    assert created.headers["accept"] == "application/vnd.github+json"
    assert created.headers["x-github-api-version"] == "2022-11-28"
    assert created.headers["user-agent"].startswith("kivgraph-action/")
    assert first.outputs["changed"] == "1" and first.outputs["affected"] == "1" and first.outputs["direct"] == "1"
    assert first.outputs["verdict"] == "IMPACT" and first.outputs["completeness"] == "COMPLETE"
    # The comment is rendered again from report.json: report.md, but for the seconds (report.json keeps 3 decimals).
    timeless = re.compile(r"· [0-9.]+s</sub>")
    assert timeless.sub("", Path(first.outputs["report-path"]).read_text(encoding="utf-8")) == timeless.sub("", body)
    [comment] = api.comments[NUMBER]
    assert first.outputs["comment-url"] == comment["html_url"]
    assert SCALE_ROW in first.summary and "```mermaid" in first.summary
    # The base's note came from origin: nothing was indexed on the runner.
    fetched = report(first)
    assert fetched["base"] == {"commit": base, "generation_commit": base, "stale": False} and fetched["notes"] == []
    assert "fetched refs/notes/kivgraph from origin: 1 indexed commit(s)" in first.log
    assert f"created the kivgraph comment on {REPOSITORY}#{NUMBER}" in first.log

    pr.edit("sum += item.Area()", "sum += 2 * item.Area()", message="Total doubles")
    base, head, workspace = pr.publish()
    second = act(workspace, api.url, "pull_request", pull_request_event(base, head))

    assert second.returncode == 0, second.log
    assert len(api.made("POST")) == 1, "the second run created another comment"
    [edited] = api.made("PATCH")
    assert edited.path == f"/repos/{REPOSITORY}/issues/comments/{comment['id']}"
    assert "| `Total` | body modified |" in edited.body["body"] and SCALE_ROW in edited.body["body"]
    assert [c["body"] for c in api.comments[NUMBER]] == [edited.body["body"]]
    assert second.outputs["changed"] == "2" and f"updated the kivgraph comment on {REPOSITORY}#{NUMBER}" in second.log


def test_the_comment_is_found_on_a_later_page_and_a_quoted_marker_is_not_taken_for_it(pr: PullRequest, api: FakeGitHub):
    for i in range(250):
        api.add_comment(NUMBER, f"review comment {i}")
    api.comments[NUMBER][40]["body"] = f"Why does the bot write `{MARKER}`?"
    ours = api.comments[NUMBER][130]
    ours.update(body=f"{MARKER}\n### kivgraph impact: an older report")
    ours["user"] = {"login": "github-actions[bot]", "type": "Bot"}  # the GITHUB_TOKEN's own, from an earlier run
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()

    run = act(workspace, api.url, "pull_request", pull_request_event(base, head))

    assert run.returncode == 0, run.log
    listings = [r.query for r in api.requests if r.path.endswith("/comments") and r.method == "GET"]
    assert listings == [{"per_page": "100"}, {"per_page": "100", "page": "2"}]  # stops at the page that has it
    assert api.made("POST") == []
    [edited] = api.made("PATCH")
    assert edited.path.endswith(f"/issues/comments/{ours['id']}") and SCALE_ROW in ours["body"]
    assert api.comments[NUMBER][40]["body"].startswith("Why")


@pytest.mark.parametrize("fork", [True, False], ids=["from a fork", "from a branch"])
def test_a_token_that_cannot_comment_is_one_clear_line_and_the_report_is_still_there(
    pr: PullRequest, api: FakeGitHub, fork: bool
):
    api.read_only = True
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()

    run = act(workspace, api.url, "pull_request", pull_request_event(base, head, fork=fork), {"fail-on": "1"})

    problem = (f"the token cannot write comments on {REPOSITORY}#{NUMBER} (403: Resource not accessible by "
               "integration)")  # fmt: skip
    [line] = [line for line in run.step("comment").stdout.splitlines() if problem in line]
    if fork:
        assert line.startswith("::warning::") and run.step("comment").returncode == 0
        assert "pull requests from forks get a read-only token — use the workflow_run split in docs/action.md" in line
        assert run.step("gate").returncode == 3  # the threshold still speaks
    else:
        assert line.startswith("::error::") and run.step("comment").returncode == 1
        assert "`permissions: pull-requests: write`" in line
        assert not run.step("gate").ran
    assert len(api.made("POST")) == 1 and api.comments == {}
    assert SCALE_ROW in run.summary and run.outputs["affected"] == "1" and Path(run.outputs["report-path"]).exists()


def test_the_fail_on_threshold_fails_the_job_after_the_comment_is_posted(pr: PullRequest, api: FakeGitHub):
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()

    gated = act(workspace, api.url, "pull_request", pull_request_event(base, head), {"fail-on": "1"})

    assert gated.step("gate").returncode == 3 and gated.returncode == 3
    assert "::error::1 symbol affected, at or above fail-on 1." in gated.step("gate").stdout
    assert gated.step("comment").returncode == 0 and len(api.made("POST")) == 1
    passed = act(workspace, api.url, "pull_request", pull_request_event(base, head), {"fail-on": "2"})
    assert passed.returncode == 0 and "1 symbol affected, below fail-on 2." in passed.log


def test_the_workflow_run_split_posts_a_forks_report_with_the_base_repositorys_token(pr: PullRequest,
                                                                                     api: FakeGitHub):  # fmt: skip
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()
    # pr-impact-fork.yml: analyze only, with the fork's read-only token; the report is the artifact.
    api.read_only = True
    inputs = {"comment": "false", "report-dir": str(pr.root / "runner1" / "temp" / "kivgraph-report")}
    analyzed = act(workspace, api.url, "pull_request", pull_request_event(base, head, fork=True), inputs)
    assert analyzed.returncode == 0 and api.requests == [] and not analyzed.step("comment").ran
    artifact = Path(analyzed.outputs["report-dir"])
    assert sorted(p.name for p in artifact.iterdir()) == ["pr-number", "report.json", "report.md"]
    assert (artifact / "pr-number").read_text(encoding="utf-8") == f"{NUMBER}\n"

    # pr-comment.yml: a workflow_run job in the base repository, no pull request code checked out.
    api.read_only = False
    api.pulls[NUMBER] = {"number": NUMBER, "head": {"sha": head, "repo": {"full_name": "contributor/repo"}}}
    workflow_run = {
        "action": "completed",
        "workflow_run": {"id": 4242, "name": "kivgraph PR impact (forks)", "event": "pull_request",
                         "head_sha": head, "head_branch": "pr", "conclusion": "success", "pull_requests": [],
                         "head_repository": {"full_name": "contributor/repo"}},
        "repository": {"full_name": REPOSITORY},
    }  # fmt: skip
    default_branch = pr.root / "runner2" / "work" / "repo"
    default_branch.mkdir(parents=True)
    downloaded = pr.root / "runner2" / "temp" / "kivgraph-report"
    shutil.copytree(artifact, downloaded)
    posted = act(default_branch, api.url, "workflow_run", workflow_run,
                 {"mode": "comment-only", "report-dir": str(downloaded)}, sha=base)  # fmt: skip

    assert posted.returncode == 0, posted.log
    assert not posted.step("analyze").ran
    assert [(r.method, r.path) for r in api.requests][:1] == [("GET", f"/repos/{REPOSITORY}/pulls/{NUMBER}")]
    [created] = api.made("POST")
    assert created.path.endswith(f"/issues/{NUMBER}/comments") and SCALE_ROW in created.body["body"]
    assert posted.outputs["comment-url"] == api.comments[NUMBER][0]["html_url"]

    # A report for a commit the pull request has moved past is not posted.
    api.pulls[NUMBER]["head"]["sha"] = "f" * 40
    stale = act(default_branch, api.url, "workflow_run", workflow_run,
                {"mode": "comment-only", "report-dir": str(downloaded)}, sha=base)  # fmt: skip
    assert stale.returncode == 0 and "::notice::" in stale.log and "is not posted" in stale.log
    assert len(api.made("POST")) == 1 and api.made("PATCH") == []


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("problem", ["unreachable", "bad token"])
def test_an_api_that_cannot_be_used_is_one_clear_error(pr: PullRequest, api: FakeGitHub, problem: str):
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()
    if problem == "bad token":
        api.token = "another token"
    url = f"http://127.0.0.1:{closed_port()}" if problem == "unreachable" else api.url

    run = act(workspace, url, "pull_request", pull_request_event(base, head))

    [line] = [line for line in run.step("comment").stdout.splitlines() if line.startswith("::error::")]
    assert run.step("comment").returncode == 1 and run.step("analyze").returncode == 0
    if problem == "unreachable":
        assert f"cannot reach the GitHub API at {url} for GET /repos/{REPOSITORY}/issues/{NUMBER}/comments" in line
        assert "check GITHUB_API_URL" in line
    else:
        assert "the GitHub API refused the token (401: Bad credentials); check the github-token input." in line
    assert SCALE_ROW in run.summary


def test_a_repository_not_indexed_yet_gets_its_base_indexed_on_the_runner(pr: PullRequest, api: FakeGitHub):
    git(pr.origin, "update-ref", "-d", "refs/notes/kivgraph")
    pr.edit("sum += item.Area()", "sum += 2 * item.Area()")
    base, head, workspace = pr.publish()

    refused = act(workspace, api.url, "pull_request", pull_request_event(base, head), {"index-missing": "false"})
    assert refused.step("analyze").returncode == 1 and not refused.step("comment").ran
    assert "::error::no kivgraph generation is stored for" in refused.log and "index-missing" in refused.log
    assert "not analyzed" in refused.summary
    indexed = act(workspace, api.url, "pull_request", pull_request_event(base, head))

    assert indexed.returncode == 0, indexed.log
    assert "origin has no refs/notes/kivgraph yet" in indexed.log
    assert any("indexed it now" in note for note in report(indexed)["notes"])
    assert "| `Total` | body modified |" in api.made("POST")[0].body["body"]


def test_a_base_branch_that_moved_on_is_compared_from_the_merge_base(pr: PullRequest, api: FakeGitHub):
    branch_point = pr.author.git("rev-parse", "main")
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    pr.author.git("checkout", "-q", "main")
    pr.author.commit({"geo/geo.go": (pr.author.path / "geo" / "geo.go").read_text(encoding="utf-8") + "\n"},
                     message="main moves on")  # fmt: skip
    pr.author.git("push", "-q", "origin", "main")
    pr.author.git("checkout", "-q", "pr")
    base, head, workspace = pr.publish()

    missing = pr.author.path.parent / "no-such-consumer"
    run = act(workspace, api.url, "pull_request", pull_request_event(base, head),
              {"consumers": str(missing), "depth": "2"})  # fmt: skip

    assert run.returncode == 0, run.log
    answer = report(run)
    assert answer["base"]["commit"] == branch_point != base and answer["base"]["generation_commit"] == branch_point
    assert any("merge-base" in note for note in answer["notes"]) and answer["depth"] == 2
    assert [c["qualified_name"] for c in answer["changed"]] == ["Scale"]  # main's own commit is not the PR's
    # A consumer that cannot be read is said, and the rest of the answer stands.
    assert any(f"consumer {missing} could not be read" in note for note in answer["notes"])


def test_a_bad_input_is_named(pr: PullRequest, api: FakeGitHub):
    base, head, workspace = pr.publish()
    run = act(workspace, api.url, "pull_request", pull_request_event(base, head), {"depth": "9"})
    assert run.step("analyze").returncode == 1
    assert "::error::the input depth must be a whole number between 1 and 5, not '9'." in run.log


def shallow_checkout(pr: PullRequest, name: str) -> Path:
    """actions/checkout's default on a pull request: the test merge commit alone, depth 1."""
    shallow = pr.root / name / "work" / "repo"
    shallow.mkdir(parents=True)
    git(shallow, "init", "-q")
    git(shallow, "remote", "add", "origin", f"file://{pr.origin}")
    git(shallow, "fetch", "-q", "--no-tags", "--depth=1", "origin",
        f"+refs/pull/{NUMBER}/merge:refs/remotes/pull/{NUMBER}/merge")  # fmt: skip
    git(shallow, "checkout", "-q", "--detach", f"refs/remotes/pull/{NUMBER}/merge")
    return shallow


def test_a_shallow_checkout_fetches_the_base_the_head_and_history_only_down_to_their_merge_base(
    pr: PullRequest, api: FakeGitHub
):
    # 60 commits of main's history, the branch point indexed, then main moves on past it.
    author = pr.author
    author.git("checkout", "-q", "main")
    for i in range(60):
        author.commit(message=f"history {i}")
    save_to_notes(open_repository(str(author.path)), index_repository(str(author.path), run_analyzers=True))
    branch_point = author.git("rev-parse", "main")
    author.git("push", "-q", "origin", "main", "refs/notes/kivgraph")
    author.git("checkout", "-q", "-B", "pr")
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    author.git("checkout", "-q", "main")
    for i in range(3):
        author.commit({"geo/geo.go": (author.path / "geo" / "geo.go").read_text(encoding="utf-8") + f"\n// {i}\n"},
                      message=f"main moves on {i}")  # fmt: skip
    author.git("push", "-q", "origin", "main")
    author.git("checkout", "-q", "pr")
    base, head, _ = pr.publish()
    shallow = shallow_checkout(pr, "shallow")

    run = act(shallow, api.url, "pull_request", pull_request_event(base, head))

    assert run.returncode == 0, run.log
    answer = report(run)
    assert answer["base"] == {"commit": branch_point, "generation_commit": branch_point, "stale": False}
    assert [c["qualified_name"] for c in answer["changed"]] == ["Scale"] and SCALE_ROW in api.made("POST")[0].body[
        "body"
    ]
    assert f"fetched {base[:12]}, {head[:12]} from origin (depth 1)" in run.log
    assert "deepened the checkout (--deepen=50)" in run.log and "--unshallow" not in run.log
    # Still shallow: the 60 commits below the branch point were not all fetched.
    assert git(shallow, "rev-parse", "--is-shallow-repository") == "true"
    assert int(git(shallow, "rev-list", "--count", "--all")) < int(author.git("rev-list", "--count", "--all"))


def test_a_revision_origin_cannot_provide_is_named(pr: PullRequest, api: FakeGitHub):
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, _ = pr.publish()
    shallow = shallow_checkout(pr, "shallow")
    gone = "0123456789abcdef" * 2 + "01234567"

    run = act(shallow, api.url, "pull_request", pull_request_event(base, head), {"head": gone})

    assert run.step("analyze").returncode == 1 and api.requests == []
    assert f"::warning::could not fetch from origin (git fetch --depth=1 origin {gone})" in run.log
    assert f"::error::the head revision {gone} is not in the checkout at ., and origin did not provide it" in run.log


def test_on_impact_creates_no_comment_without_impact_and_updates_the_one_left_when_impact_goes_away(
    pr: PullRequest, api: FakeGitHub
):
    on_impact = {"comment": "on-impact"}
    added = "func Scale(s Square, k float64) Square"
    pr.edit(added, "func Unused() int { return 0 }\n\n" + added, message="an unused function")
    base, head, workspace = pr.publish()

    quiet = act(workspace, api.url, "pull_request", pull_request_event(base, head), on_impact)

    assert quiet.returncode == 0 and quiet.outputs["verdict"] == "NO_IMPACT" and api.made("POST") == []
    assert f"no impact, so no kivgraph comment on {REPOSITORY}#{NUMBER} (comment: on-impact)" in quiet.log
    assert quiet.outputs["comment-url"] == ""

    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()
    loud = act(workspace, api.url, "pull_request", pull_request_event(base, head), on_impact)
    assert loud.outputs["verdict"] == "IMPACT" and len(api.made("POST")) == 1

    pr.edit("func Scale(s Square, k int) Square", "func Scale(s Square, k float64) Square", message="revert")
    base, head, workspace = pr.publish()
    gone = act(workspace, api.url, "pull_request", pull_request_event(base, head), on_impact)

    assert gone.returncode == 0 and gone.outputs["verdict"] == "NO_IMPACT"
    [edited] = api.made("PATCH")  # the old comment no longer shows an impact that is gone
    assert "no declaration uses it" in edited.body["body"] and SCALE_ROW not in edited.body["body"]
    assert len(api.made("POST")) == 1


def test_a_bad_comment_policy_is_named(pr: PullRequest, api: FakeGitHub):
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()
    run = act(workspace, api.url, "pull_request", pull_request_event(base, head), {"comment": "on_impact"})
    assert run.step("comment").returncode == 1 and api.requests == []
    assert "::error::the input comment must be true, false or on-impact, not 'on_impact'." in run.log


def test_a_base_indexed_without_its_type_checker_is_said_in_one_line_that_names_the_fix(pr: PullRequest,
                                                                                      api: FakeGitHub):  # fmt: skip
    # The base's note on origin is one built without analyzers (an index job that installed none).
    git(pr.origin, "update-ref", "-d", "refs/notes/kivgraph")
    pr.author.git("update-ref", "-d", "refs/notes/kivgraph")
    author = str(pr.author.path)
    save_to_notes(open_repository(author), index_repository(author, "main", run_analyzers=False))
    pr.author.git("push", "-q", "origin", "refs/notes/kivgraph")
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, workspace = pr.publish()

    run = act(workspace, api.url, "pull_request", pull_request_event(base, head))

    assert run.returncode == 0, run.log
    line = (f"> base exactness: the base generation {base[:12]} is syntax-only for go (scip-go did not run), so uses "
            "there are CANDIDATE guesses and the counts may be off; index the base with analyzers: the kivgraph "
            "index Action (index/action.yml, docs/action.md), or `kivgraph analyzers install . --languages auto` "
            "before `kivgraph index`\n")  # fmt: skip
    body = api.made("POST")[0].body["body"]
    assert body.count(line) == 1 and line in run.summary
    assert sum("base exactness" in note for note in report(run)["notes"]) == 1


def test_a_partial_clone_checkout_is_analyzed_fetching_the_blobs_it_reads(pr: PullRequest, api: FakeGitHub):
    # actions/checkout with `filter: blob:none`: every commit and tree, no blob beyond the checkout's.
    pr.edit("func Scale(s Square, k float64) Square", "func Scale(s Square, k int) Square")
    base, head, _ = pr.publish()
    git(pr.origin, "config", "uploadpack.allowFilter", "true")
    partial = pr.root / "partial" / "work" / "repo"
    partial.parent.mkdir(parents=True)
    git(partial.parent, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{pr.origin}", "repo")
    git(partial, "fetch", "-q", "origin", f"+refs/pull/{NUMBER}/merge:refs/remotes/pull/{NUMBER}/merge")
    git(partial, "checkout", "-q", "--detach", f"refs/remotes/pull/{NUMBER}/merge")
    missing = git(partial, "rev-list", "--objects", "--missing=print", base)
    assert any(line.startswith("?") for line in missing.splitlines()), "the base's blobs should be absent"

    run = act(partial, api.url, "pull_request", pull_request_event(base, head))

    assert run.step("analyze").returncode == 0, run.log
    assert "Scale" in {symbol["qualified_name"] for symbol in report(run)["changed"]}
