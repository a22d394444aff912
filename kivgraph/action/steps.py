"""The Action's steps, run by action.yml as `python -m kivgraph.action STEP`: analyze (diff-impact
into a report directory, the step summary and outputs), comment (one PR comment, kept up to date)
and gate (the fail-on threshold); the index Action's steps (languages, index) live in
kivgraph/action/index.py. Inputs arrive as `INPUT_*` variables; this module and cli.py are the
only places that set exit codes.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import traceback
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

import pygit2

from kivgraph.action.index import index_step, languages_step
from kivgraph.action.rest import ApiError, GitHub
from kivgraph.action.runner import EXIT_FAILED, REMOTE, Event, Runner, dig
from kivgraph.errors import InvalidArgumentError, KivgraphError, NotesError, UnknownRevisionError
from kivgraph.impact.analysis import DEFAULT_DEPTH, Impact, analyze
from kivgraph.impact.report import (
    COMMENT_LIMIT,
    SUMMARY_LIMIT,
    from_json,
    to_json,
    to_markdown,
    to_text,
    verdict,
)
from kivgraph.store import NOTES_REF
from kivgraph.store.git import first_line, git_dir, lookup, merge_base, open_repository, resolve_commit, run_git
from kivgraph.store.sync import fetch_notes_for

MARKER = "<!-- kivgraph:diff-impact -->"
"""The hidden first line that tells the Action's comment apart from every other on the PR."""
REPORT_MD, REPORT_JSON, PR_NUMBER = "report.md", "report.json", "pr-number"
SPLIT = "use the workflow_run split in docs/action.md (ci/pr-impact-fork.yml + ci/pr-comment.yml)"
EXIT_THRESHOLD = 3
"""The fail-on threshold was reached (as `diff-impact --fail-on`)."""
COMMENT_POLICIES = ("true", "false", "on-impact")
DEEPEN = (50, 100, 200, 400, 800)
"""Commits a shallow checkout is deepened by, round after round, until the merge-base is in it;
then the rest of the history (`--unshallow`)."""
FULL_SHA = re.compile(r"[0-9a-f]{40}")
ACTIONS_BOT = "github-actions[bot]"
"""The account the GITHUB_TOKEN of Actions writes as; that token may not read GET /user."""
LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
PR_NUMBER_TEXT = re.compile(r"[0-9]{1,10}")
"""ASCII digits: str.isdigit() also takes "²", which int() then refuses."""
MAX_REPORT_BYTES = 64 * 1024 * 1024
"""The largest report.json the comment and gate steps read (it may come from another run's artifact)."""


# -- analyze ---------------------------------------------------------------------------------------


def analyze_step(runner: Runner) -> int:
    """diff-impact of the pull request: report.json + report.md (+ pr-number) in the report
    directory, the markdown in the step summary, the counts as step outputs."""
    try:
        return _analyze(runner)
    except KivgraphError as err:
        runner.append_summary(f"### kivgraph impact: not analyzed\n\n{err}\n")
        raise


def _analyze(runner: Runner) -> int:
    path = runner.input("path", ".")
    depth = runner.input_int("depth", DEFAULT_DEPTH, 1, 5)
    index_missing = runner.input_bool("index-missing", True)
    consumers = runner.input_list("consumers")
    event = runner.event()
    base, head, merged_note = revisions(runner, event, path)
    _fetch(runner, path, [base or head])
    reports = report_directory(runner)
    workspace = consumer_workspace(consumers, reports, runner.server_url)
    impact = analyze(path, base, head, depth, index_missing, NOTES_REF, workspace)
    if merged_note:
        impact.notes.append(merged_note)
    link = _linker(f"{runner.server_url}/{runner.repository}/blob")
    _write(reports / REPORT_JSON, json.dumps(to_json(impact), indent=2) + "\n")
    _write(reports / REPORT_MD, to_markdown(impact, link, COMMENT_LIMIT, MARKER))
    if event.pr_number is not None:
        _write(reports / PR_NUMBER, f"{event.pr_number}\n")
    runner.say(to_text(impact).rstrip("\n"))
    runner.append_summary(summary_markdown(impact, link))
    affected = impact.affected
    outputs = {
        "changed": str(len(impact.changed)),
        "affected": str(len(affected)),
        "direct": str(sum(1 for a in affected if a.depth == 1)),
        "verdict": verdict(impact),
        "completeness": str(impact.completeness["verdict"]),
        "report-dir": str(reports),
        "report-path": str(reports / REPORT_MD),
        "report-json": str(reports / REPORT_JSON),
    }
    for name, value in outputs.items():
        runner.set_output(name, value)
    return 0


def consumer_workspace(consumers: Sequence[str], reports: Path, server_url: str = "") -> str | None:
    """The workspace the consumers input names: a kivgraph.toml as is, or git URLs (`URL#branch`),
    `owner/repo` on this GitHub server, and local paths written into one."""
    if not consumers:
        return None
    files = [c for c in consumers if c.endswith(".toml")]
    if files:
        if len(consumers) > 1:
            raise InvalidArgumentError("consumers: give one kivgraph.toml, or repositories, not both.")
        return files[0]
    entries: list[str] = []
    for consumer in consumers:
        shorthand = server_url and re.fullmatch(r"[\w.-]+/[\w.-]+(#.+)?", consumer) and not os.path.exists(consumer)
        if shorthand:
            consumer = f"{server_url.rstrip('/')}/{consumer.partition('#')[0]}.git" + (
                "#" + consumer.partition("#")[2] if "#" in consumer else ""
            )
        if "://" in consumer or consumer.startswith("git@"):
            url, _, branch = consumer.partition("#")
            entries.append(f"[[repository]]\nurl = {json.dumps(url)}" + (f"\nbranch = {json.dumps(branch)}" if branch
                                                                           else ""))  # fmt: skip
        else:
            entries.append(f"[[repository]]\npath = {json.dumps(os.path.abspath(consumer))}")
    workspace = reports / "kivgraph.toml"
    _write(workspace, "\n\n".join(entries) + "\n")
    return str(workspace)


def _fetch(runner: Runner, path: str, commits: Sequence[str]) -> None:
    """The notes the analysis reads, pushed by ci/index.yml: the ref without its history, and the note
    of the base (or of its nearest indexed ancestor) alone where the server filters blobs. A remote
    without them is fine."""
    try:
        result = fetch_notes_for(path, REMOTE, commits, NOTES_REF)
    except NotesError as err:
        runner.warning(f"{NOTES_REF} was not fetched, so only the notes already in the checkout are used: {err}")
        return
    if result.fetched:
        runner.say(result.line)
    else:
        runner.say(f"{REMOTE} has no {NOTES_REF} yet (ci/index.yml pushes it)")


def revisions(runner: Runner, event: Event, path: str) -> tuple[str | None, str, str]:
    """(base, head, a note for the report): the inputs when given, else the pull request's; the
    event's base becomes its merge-base with the head, what GitHub's "Files changed" compares.
    A shallow checkout is completed first with just what that needs (see `complete_history`)."""
    head_revision = runner.input("head") or event.head_sha or _pushed(runner, event) or "HEAD"
    base_input = runner.input("base")
    base_revision = base_input or event.base_sha
    complete_history(runner, path, base_revision, head_revision, merge_base_needed=not base_input)
    repo = open_repository(path)
    head = _present(repo, head_revision, "head", path)
    if base_input:
        return str(_present(repo, base_input, "base", path).id), str(head.id), ""
    if not event.base_sha:
        return None, str(head.id), ""
    base = _present(repo, event.base_sha, "base", path)
    found = merge_base(repo, base.id, head.id)
    if found is None or found == str(base.id):
        return str(base.id), str(head.id), ""
    note = f"base: the merge-base of {str(base.id)[:12]} and the head, as GitHub's Files changed compares"
    return found, str(head.id), note


def complete_history(runner: Runner, path: str, base: str, head: str, merge_base_needed: bool) -> None:
    """Fetch from origin what the analysis reads and the checkout lacks, and no more: the base and
    head commits by id (a pull request's head and base are not in actions/checkout's default
    depth-1 checkout of the test merge commit), then, in a shallow checkout, history in rounds
    (DEEPEN) until their merge-base is in it. A fetch that fails is a warning; what is missing
    then is an error further on, naming the revision."""
    repo = open_repository(path)
    wanted = [r for r in dict.fromkeys((base, head)) if r and FULL_SHA.fullmatch(r)]
    missing = [r for r in wanted if lookup(repo, r) is None]
    shallow = repo.is_shallow
    if missing:
        depth = ["--depth=1"] if shallow else []  # in a full clone: their whole history, like the rest
        together = _fetch_history(runner, repo, [*depth, REMOTE, *missing], warn=len(missing) == 1)
        # One fetch for both; when one of them is refused, the other is still worth having.
        got = missing if together else [r for r in missing if _fetch_history(runner, repo, [*depth, REMOTE, r])]
        if got:
            runner.say(f"fetched {', '.join(r[:12] for r in got)} from {REMOTE}" + (" (depth 1)" if shallow else ""))
        if len(got) < len(missing):
            return
    if not (merge_base_needed and shallow and len(wanted) == 2):
        return
    for rounds, step in enumerate([*DEEPEN, 0]):
        repo = open_repository(path)  # reopened: libgit2 reads the shallow boundary once
        if not repo.is_shallow or merge_base(repo, wanted[0], wanted[1]) is not None:
            if rounds:
                runner.say(f"the merge-base of {wanted[0][:12]} and {wanted[1][:12]} is in the checkout now")
            return
        deepen = f"--deepen={step}" if step else "--unshallow"
        if not _fetch_history(runner, repo, [deepen, REMOTE, *wanted]):
            return
        runner.say(f"deepened the checkout ({deepen}) to reach the merge-base of the base and the head")


def _fetch_history(runner: Runner, repo: pygit2.Repository, args: list[str], warn: bool = True) -> bool:
    done = run_git(git_dir(repo), "fetch", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", *args)
    if done.returncode != 0 and warn:
        runner.warning(f"could not fetch from {REMOTE} (git fetch {' '.join(args)}): {first_line(done)}; "
                       "the checkout is used as it is.")  # fmt: skip
    return done.returncode == 0


def _pushed(runner: Runner, event: Event) -> str:
    # On a pull request GITHUB_SHA is the test merge commit, not the head; elsewhere it is the commit.
    return "" if event.is_pull_request else runner.environ.get("GITHUB_SHA", "")


def _present(repo: pygit2.Repository, revision: str, which: str, path: str) -> pygit2.Commit:
    try:
        return resolve_commit(repo, revision)
    except UnknownRevisionError:
        raise InvalidArgumentError(
            f"the {which} revision {revision} is not in the checkout at {path}, and {REMOTE} did not provide it; "
            "fetch it before this step, or check out with `fetch-depth: 0` (actions/checkout)."
        ) from None


def _linker(prefix: str) -> Callable[[str, int, str], str]:
    """Links to `prefix/<commit>/<path>#L<line>`: the report names the commit each line is in."""
    return lambda path, line, commit: f"{prefix}/{commit}/{urllib.parse.quote(path)}#L{line}"


def summary_markdown(impact: Impact, link: Callable[[str, int, str], str]) -> str:
    """The report within the step summary's limit, which GitHub counts in bytes, not characters."""
    limit = SUMMARY_LIMIT
    while True:
        text = to_markdown(impact, link, limit)
        excess = len(text.encode("utf-8")) - SUMMARY_LIMIT
        if excess <= 0:
            return text
        limit -= excess


def report_directory(runner: Runner) -> Path:
    chosen = runner.input("report-dir") or os.path.join(runner.temp or tempfile.gettempdir(), "kivgraph")
    return Path(chosen).absolute()


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise KivgraphError(f"cannot write the report {path}: {err.strerror}.") from err


# -- comment ---------------------------------------------------------------------------------------


def comment_step(runner: Runner) -> int:
    """Post the report as the PR's kivgraph comment: edit the one that starts with MARKER and that
    this token's own account wrote (`TokenAuthor`), else create it. The body is rebuilt from
    report.json (`read_report`), never taken from report.md. With `comment: on-impact` a report
    without impact creates no comment, but still edits an existing one, so a comment never goes
    on showing an impact that is gone."""
    policy = runner.input("comment", "true")
    if policy not in COMMENT_POLICIES:
        raise InvalidArgumentError(f"the input comment must be true, false or on-impact, not {policy!r}.")
    event = runner.event()
    repository = runner.repository
    reports = report_directory(runner)
    number = pr_number(runner, event, reports)
    if number is None:
        runner.notice(f"no pull request to comment on (event {event.name or 'unknown'}); the report is in the "
                      "step summary.")  # fmt: skip
        return 0
    report = read_report(reports / REPORT_JSON)
    if event.name == "workflow_run" and report.head_commit != event.head_sha:
        raise KivgraphError(
            f"the report in {reports} is for the commit {report.head_commit[:12] or '(none)'}, but the run that "
            f"produced it analyzed {event.head_sha[:12] or 'no commit'}; it is not posted."
        )
    link = _linker(f"{runner.server_url}/{repository}/blob")
    body = to_markdown(report, link, COMMENT_LIMIT, MARKER)
    impact = policy != "on-impact" or verdict(report) == "IMPACT"
    token = runner.input("github-token")
    if not token:
        raise InvalidArgumentError("the github-token input is empty; pass `github-token: ${{ github.token }}`.")
    target = f"{repository}#{number}"
    api = GitHub(runner.api_url, token)
    author = TokenAuthor(api, comment_author(runner))
    try:
        if event.name == "workflow_run" and not _still_current(runner, api, event, repository, number):
            return 0
        found, others = find_comment(api.issue_comments(repository, number), author.wrote)
        if others:
            runner.say(foreign_line(others, author.login, target))
        if found is None and not impact:
            runner.say(f"no impact, so no kivgraph comment on {target} (comment: on-impact); the report is in the "
                       "step summary.")  # fmt: skip
            return 0
        if found is None:
            made = api.create_comment(repository, number, body)
            runner.say(f"created the kivgraph comment on {target}: {made.get('html_url', '')}")
        elif found.get("body") == body:
            made = found
            runner.say(f"the kivgraph comment on {target} is already up to date: {found.get('html_url', '')}")
        else:
            made = api.update_comment(repository, int(found["id"]), body)
            runner.say(f"updated the kivgraph comment on {target}: {made.get('html_url', '')}")
    except ApiError as err:
        message = explain(err, target, event.from_fork)
        if err.forbidden and event.from_fork:
            # Expected on every fork PR under `pull_request`: the summary has the report; not the author's fault.
            runner.warning(message)
            return 0
        runner.error(message)
        return EXIT_FAILED
    runner.set_output("comment-url", str(made.get("html_url", "")))
    return 0


def comment_author(runner: Runner) -> str:
    """The comment-author input: a GitHub login (`octocat`, `my-app[bot]`), or empty."""
    given = runner.input("comment-author")
    if given and not LOGIN.fullmatch(given):
        raise InvalidArgumentError(f"the input comment-author must be a GitHub login such as my-app[bot], not "
                                   f"{given[:60]!r}.")  # fmt: skip
    return given


class TokenAuthor:
    """The account whose comments the token may take for its own, asked once and only when a
    marker comment needs telling apart: the comment-author input when given; else GET /user (a
    user's token); else, when the token may not read /user (the GITHUB_TOKEN of Actions; a GitHub
    App's installation token, whose account `<app-slug>[bot]` the input names), github-actions[bot]."""

    def __init__(self, api: GitHub, given: str = "") -> None:
        self._api = api
        self._given = given
        self._known: tuple[str, bool] | None = None

    @property
    def login(self) -> str:
        return self._identity()[0]

    def wrote(self, comment: dict[str, Any]) -> bool:
        """The comment's author is this account: the same login (GitHub ignores case) and kind (a bot or not)."""
        login, bot = self._identity()
        by, kind = dig(comment, "user", "login"), dig(comment, "user", "type")
        return isinstance(by, str) and by.casefold() == login.casefold() and (kind == "Bot") == bot

    def _identity(self) -> tuple[str, bool]:
        if self._known is None:
            self._known = self._ask()
        return self._known

    def _ask(self) -> tuple[str, bool]:
        if self._given:
            return self._given, self._given.endswith("[bot]")
        try:
            me = self._api.user()
        except ApiError as err:
            if not err.forbidden:
                raise
            return ACTIONS_BOT, True
        login = me.get("login")
        if not isinstance(login, str) or not LOGIN.fullmatch(login):
            raise ApiError("GET", f"{self._api.api_url}/user", 200, "the answer names no login")
        return login, me.get("type") == "Bot"


def foreign_line(others: Sequence[dict[str, Any]], login: str, target: str) -> str:
    """One line for the marker comments that are not this token's, which are left alone."""
    authors = sorted({str(dig(c, "user", "login") or "someone") for c in others})
    what = "a comment" if len(others) == 1 else f"{len(others)} comments"
    return (
        f"{what} on {target} by {', '.join(authors)} start{'s' if len(others) == 1 else ''} with the kivgraph marker "
        f"but {'is' if len(others) == 1 else 'are'} not by {login}, whose token this is: left alone (if this "
        "token writes as one of them, name it in the comment-author input)."
    )


def pr_number(runner: Runner, event: Event, reports: Path) -> int | None:
    """The pr-number input, else the pull_request event's, else the pr-number file that the analyze
    step wrote (the workflow_run split, where the event is the finished run, not the PR, and the
    file comes from an artifact: ASCII digits only)."""
    given = runner.input("pr-number")
    if given:
        return runner.input_int("pr-number", 0, 1)
    if event.pr_number is not None:
        return event.pr_number
    text = read_artifact(reports / PR_NUMBER, 64)
    if text is None:
        return None
    text = text.strip(" \t\r\n")
    if not PR_NUMBER_TEXT.fullmatch(text) or not 0 < int(text) < 2**31:
        raise InvalidArgumentError(f"{reports / PR_NUMBER} must hold a pull request number (digits 0-9), not "
                                   f"{text[:40]!r}.")  # fmt: skip
    return int(text)


def read_artifact(path: Path, limit: int) -> str | None:
    """A file of the report directory as text, None when it is not there. In the workflow_run split
    that directory is an artifact the pull request's own code produced: at most `limit` bytes of
    strict UTF-8, else an error that says so."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise KivgraphError(f"cannot read {path}: {err.strerror}.") from err
    if len(raw) > limit:
        raise KivgraphError(f"{path} is larger than {limit:,} bytes; it is not what the analyze step writes.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise KivgraphError(
            f"{path} is not UTF-8 text (byte {raw[err.start]:#04x} at offset {err.start}); it is not what the "
            "analyze step writes."
        ) from None


def read_report(path: Path) -> Impact:
    """report.json as data, whoever wrote it: checked against the diff-impact schema (`from_json`)
    so that what is posted is the comment kivgraph renders from it, whatever the file says."""
    text = read_artifact(path, MAX_REPORT_BYTES)
    if text is None:
        raise KivgraphError(f"there is no report at {path}; run the analyze step first, or download the report "
                            "artifact into report-dir.")  # fmt: skip
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise KivgraphError(f"the report {path} is not JSON ({err}); it is not what the analyze step writes.") from None
    try:
        return from_json(data)
    except KivgraphError as err:
        raise KivgraphError(f"the report {path} is not a diff-impact report: {err}") from None


def find_comment(
    comments: Iterable[dict[str, Any]], ours: Callable[[dict[str, Any]], bool]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The first comment whose body starts with MARKER (quoting it elsewhere does not count) and
    that `ours` accepts, and the marker comments before it that it did not: someone else's."""
    others: list[dict[str, Any]] = []
    for comment in comments:
        body = comment.get("body")
        if isinstance(body, str) and body.lstrip().startswith(MARKER) and isinstance(comment.get("id"), int):
            if ours(comment):
                return comment, others
            others.append(comment)
    return None, others


def _still_current(runner: Runner, api: GitHub, event: Event, repository: str, number: int) -> bool:
    """Under workflow_run the PR number comes from an artifact the PR's own code produced: post only
    when that PR's head is the commit the run analyzed."""
    pull = api.pull_request(repository, number)
    current = dig(pull, "head", "sha")
    if event.head_sha and current == event.head_sha:
        return True
    runner.notice(
        f"{repository}#{number} is at {str(current)[:12]}, not at {event.head_sha[:12] or 'the analyzed commit'}; "
        "this report is not posted (the run for its current head posts its own)."
    )
    return False


def explain(err: ApiError, target: str, from_fork: bool) -> str:
    """One line that says what the token could not do and what to change."""
    reason = f"{err.status}: {err.detail}"
    if err.status == 0:
        return str(err)
    if err.rate_limited:
        return f"the GitHub API rate limit stopped the comment on {target} ({reason}); rerun the job later."
    if err.status == 401:
        return f"the GitHub API refused the token ({reason}); check the github-token input."
    if not err.forbidden:
        return str(err)
    if err.method in ("POST", "PATCH"):
        what = f"write comments on {target}"
    elif "/pulls/" in err.url:
        what = f"read the pull request {target}"
    else:
        what = f"read the comments of {target}"
    if from_fork:
        return f"the token cannot {what} ({reason}); pull requests from forks get a read-only token — {SPLIT}."
    return (
        f"the token cannot {what} ({reason}); give the job `permissions: pull-requests: write` — or, for pull "
        f"requests from forks, which get a read-only token, {SPLIT}."
    )


# -- gate ---------------------------------------------------------------------------


def gate_step(runner: Runner) -> int:
    """Exit 3 when at least `fail-on` symbols are affected (0 = never), after the comment is posted."""
    fail_on = runner.input_int("fail-on", 0, 0)
    if fail_on == 0:
        return 0
    affected = len(read_report(report_directory(runner) / REPORT_JSON).affected)
    counted = f"{affected} symbol{'' if affected == 1 else 's'} affected"
    if affected >= fail_on:
        runner.error(f"{counted}, at or above fail-on {fail_on}.")
        return EXIT_THRESHOLD
    runner.say(f"{counted}, below fail-on {fail_on}.")
    return 0


# -- main ------------------------------------------------------------------------------------------

STEPS: dict[str, Callable[[Runner], int]] = {
    "analyze": analyze_step,
    "comment": comment_step,
    "gate": gate_step,
    "languages": languages_step,
    "index": index_step,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one step; 0 done, 1 could not (the reason as one `::error::` line), 2 usage, 3 fail-on reached."""
    parser = argparse.ArgumentParser(
        prog="python -m kivgraph.action",
        description="The steps of kivgraph's GitHub Actions (action.yml, index/action.yml). Inputs come as INPUT_* "
        "variables.",
    )
    parser.add_argument("step", choices=list(STEPS))
    step = cast(str, parser.parse_args(argv).step)
    return run_step(step, Runner(os.environ, sys.stdout, sys.stderr))


def run_step(step: str, runner: Runner) -> int:
    """One step of STEPS, its failure turned into one `::error::` line and exit code 1."""
    try:
        return STEPS[step](runner)
    except KivgraphError as err:
        runner.error(str(err))
        return EXIT_FAILED
    except Exception:  # a bug; its traceback may quote a hostile file name, so it goes through the fenced log too
        runner.say(traceback.format_exc())
        runner.error(f"the {step} step failed unexpectedly (the traceback is above); please report it.")
        return EXIT_FAILED
