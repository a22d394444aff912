"""The Action's steps, run by action.yml as `python -m kivgraph.action STEP`: analyze (diff-impact
into a report directory, the step summary and outputs), comment (one PR comment, kept up to date)
and gate (the fail-on threshold). Inputs arrive as `INPUT_*` variables; this module and cli.py
are the only places that set exit codes.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

import pygit2

from kivgraph.action.rest import ApiError, GitHub
from kivgraph.action.runner import Event, Runner, dig
from kivgraph.errors import InvalidArgumentError, KivgraphError, NotesError, UnknownRevisionError
from kivgraph.impact.analysis import DEFAULT_DEPTH, Impact, analyze
from kivgraph.impact.report import COMMENT_LIMIT, SUMMARY_LIMIT, to_json, to_markdown, to_text, verdict
from kivgraph.store import NOTES_REF
from kivgraph.store.git import merge_base, open_repository, resolve_commit
from kivgraph.store.sync import fetch_notes

MARKER = "<!-- kivgraph:diff-impact -->"
"""The hidden first line that tells the Action's comment apart from every other on the PR."""
REMOTE = "origin"
REPORT_MD, REPORT_JSON, PR_NUMBER = "report.md", "report.json", "pr-number"
SPLIT = "use the workflow_run split in docs/action.md (ci/pr-impact-fork.yml + ci/pr-comment.yml)"
EXIT_FAILED, EXIT_THRESHOLD = 1, 3
"""1: the step could not do its job; 3: the fail-on threshold was reached (as `diff-impact --fail-on`)."""


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
    _fetch(runner, path)
    base, head, merged_note = revisions(runner, event, path)
    reports = report_directory(runner)
    workspace = consumer_workspace(consumers, reports, runner.server_url)
    impact = analyze(path, base, head, depth, index_missing, NOTES_REF, workspace)
    if merged_note:
        impact.notes.append(merged_note)
    link = _linker(f"{runner.server_url}/{runner.repository}/blob/{impact.head_commit}")
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


def _fetch(runner: Runner, path: str) -> None:
    """The notes of the default branch, pushed by ci/index.yml; a remote without them is fine."""
    try:
        result = fetch_notes(path, REMOTE, NOTES_REF)
    except NotesError as err:
        runner.warning(f"{NOTES_REF} was not fetched, so only the notes already in the checkout are used: {err}")
        return
    if result.fetched:
        runner.say(f"fetched {NOTES_REF} from {REMOTE}: {result.fetched} indexed commit(s)")
    else:
        runner.say(f"{REMOTE} has no {NOTES_REF} yet (ci/index.yml pushes it)")


def revisions(runner: Runner, event: Event, path: str) -> tuple[str | None, str, str]:
    """(base, head, a note for the report): the inputs when given, else the pull request's; the
    event's base becomes its merge-base with the head, what GitHub's "Files changed" compares."""
    repo = open_repository(path)
    head_input = runner.input("head")
    head = _present(repo, head_input or event.head_sha or _pushed(runner, event) or "HEAD", "head", path)
    base_input = runner.input("base")
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


def _pushed(runner: Runner, event: Event) -> str:
    # On a pull request GITHUB_SHA is the test merge commit, not the head; elsewhere it is the commit.
    return "" if event.is_pull_request else runner.environ.get("GITHUB_SHA", "")


def _present(repo: pygit2.Repository, revision: str, which: str, path: str) -> pygit2.Commit:
    try:
        return resolve_commit(repo, revision)
    except UnknownRevisionError:
        raise InvalidArgumentError(
            f"the {which} revision {revision} is not in the checkout at {path}; check out with `fetch-depth: 0` "
            "(actions/checkout) so the pull request's history is there."
        ) from None


def _linker(prefix: str) -> Callable[[str, int], str]:
    return lambda path, line: f"{prefix}/{urllib.parse.quote(path)}#L{line}"


def summary_markdown(impact: Impact, link: Callable[[str, int], str]) -> str:
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
    """Post report.md as the PR's kivgraph comment: edit the one carrying MARKER, else create it."""
    event = runner.event()
    repository = runner.repository
    reports = report_directory(runner)
    number = pr_number(runner, event, reports)
    if number is None:
        runner.notice(f"no pull request to comment on (event {event.name or 'unknown'}); the report is in the "
                      "step summary.")  # fmt: skip
        return 0
    body = comment_body(reports / REPORT_MD)
    token = runner.input("github-token")
    if not token:
        raise InvalidArgumentError("the github-token input is empty; pass `github-token: ${{ github.token }}`.")
    target = f"{repository}#{number}"
    api = GitHub(runner.api_url, token)
    try:
        if event.name == "workflow_run" and not _still_current(runner, api, event, repository, number):
            return 0
        found = find_comment(api.issue_comments(repository, number))
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


def pr_number(runner: Runner, event: Event, reports: Path) -> int | None:
    """The pr-number input, else the pull_request event's, else the pr-number file that the analyze
    step wrote (the workflow_run split, where the event is the finished run, not the PR)."""
    given = runner.input("pr-number")
    if given:
        return runner.input_int("pr-number", 0, 1)
    if event.pr_number is not None:
        return event.pr_number
    try:
        text = (reports / PR_NUMBER).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise KivgraphError(f"cannot read {reports / PR_NUMBER}: {err.strerror}.") from err
    if not text.isdigit() or not 0 < int(text) < 2**31:
        raise InvalidArgumentError(f"{reports / PR_NUMBER} must hold a pull request number, not {text[:40]!r}.")
    return int(text)


def comment_body(path: Path) -> str:
    """report.md with MARKER first, within GitHub's comment limit (a report from another run may be neither)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise KivgraphError(
            f"there is no report at {path} ({err.strerror}); run the analyze step first, or download the "
            "report artifact into report-dir."
        ) from err
    body = text if text.startswith(MARKER) else f"{MARKER}\n{text}"
    if len(body) > COMMENT_LIMIT:
        cut = f"\n\n… cut at GitHub's limit of {COMMENT_LIMIT:,} characters; report.json has everything.\n"
        body = body[: COMMENT_LIMIT - len(cut)] + cut
    return body


def find_comment(comments: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The first comment whose body starts with MARKER (quoting it elsewhere does not count)."""
    for comment in comments:
        body = comment.get("body")
        if isinstance(body, str) and body.lstrip().startswith(MARKER) and isinstance(comment.get("id"), int):
            return comment
    return None


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
    path = report_directory(runner) / REPORT_JSON
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise KivgraphError(f"cannot read the report {path} ({err}); run the analyze step first.") from err
    affected = dig(report, "summary", "affected")
    if not isinstance(affected, int):
        raise KivgraphError(f"the report {path} has no summary.affected count; it is not a diff-impact report.")
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
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one step; 0 done, 1 could not (the reason as one `::error::` line), 2 usage, 3 fail-on reached."""
    parser = argparse.ArgumentParser(
        prog="python -m kivgraph.action",
        description="The steps of kivgraph's GitHub Action (action.yml). Inputs come as INPUT_* variables.",
    )
    parser.add_argument("step", choices=list(STEPS))
    step = cast(str, parser.parse_args(argv).step)
    runner = Runner(os.environ, sys.stdout, sys.stderr)
    try:
        return STEPS[step](runner)
    except KivgraphError as err:
        runner.error(str(err))
        return EXIT_FAILED
