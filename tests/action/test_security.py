"""Nobody turns the Action against its repository: a pull request's file names, an artifact from a
fork's run, another account's comment and an API that redirects, each tried through the real step
functions on real git history (a Dart repository: no type checker to install) against the
recording fake API. The log is read as GitHub's runner reads it (`executed_commands`)."""

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kivgraph.action.index import Ran, index_step, languages_step, run_kivgraph
from kivgraph.action.rest import GitHub
from kivgraph.action.runner import Runner, may_hold_command
from kivgraph.action.steps import MARKER, REPORT_JSON, STEPS, TokenAuthor, run_step
from tests.action.actions import parse_outputs
from tests.action.fake_github import FakeGitHub
from tests.action.test_index_steps import Recorder
from tests.conftest import Repo, git

TOKEN = "ghs_" + "s3cr3tT0k3n" * 3
REPOSITORY = "owner/repo"
NUMBER = 7
PAYLOADS = [
    "::warning title=kivgraph::All clear - safe to merge",
    "::add-mask::kivgraph",
    "::stop-commands::pwned",
    "::set-output name=verdict::NO_IMPACT",
    "::error file=lib.dart,line=1::a fake error",
    "   ::notice::indented",
    "\t::debug::after a tab",
    "##[warning]the older syntax, anywhere in a line",
]
SHAPE = (
    "class Shape{n} {{\n  double side = 1;\n  double area() => side * side;\n}}\n\n"
    "double total{n}(Shape{n} s) => s.area();\n"
)


# -- the runner's parser -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    name: str
    data: str


def parse_command(line: str) -> Command | None:
    """One log line as actions/runner's ActionCommand reads it: `::name[ params]::data` where the
    line's start, past whitespace, is `::` (TryParseV2), else `##[name[ params]]data` anywhere in
    the line (TryParse, the older syntax). Any name counts, not only those the runner registers."""
    trimmed = line.lstrip()
    if trimmed.startswith("::"):
        end = trimmed.find("::", 2)
        if end >= 0:
            return Command(trimmed[2:end].split(" ", 1)[0], trimmed[end + 2 :])
    start = line.find("##[")
    if start >= 0 and (close := line.find("]", start)) >= 0:
        return Command(line[start + 3 : close].split(" ", 1)[0], line[close + 1 :])
    return None


def executed_commands(log: str) -> list[Command]:
    """The workflow commands GitHub would execute in one stream of a step's log, read line by line
    (a line ends at \\r, \\n or \\r\\n, as .NET's ReadLine): after `::stop-commands::TOKEN` nothing
    runs until the command named TOKEN (ActionCommandManager)."""
    found: list[Command] = []
    stopped = ""
    for line in re.split(r"\r\n|\r|\n", log):
        command = parse_command(line)
        if command is None:
            continue
        if stopped:
            if command.name.casefold() == stopped.casefold():
                stopped = ""
            continue
        found.append(command)
        if command.name.casefold() == "stop-commands":
            stopped = command.data or "never resumed"
    return found


def hostile_commands(log: str) -> list[Command]:
    """Executed commands that are not the fences `Runner.say` writes (stop-commands with a random token)."""
    return [c for c in executed_commands(log) if not (c.name == "stop-commands" and re.fullmatch(r"[0-9a-f]{32}",
                                                                                                  c.data))]  # fmt: skip


def test_the_parser_model_reads_the_commands_github_would_run():
    unfenced = "\n".join(f"lib{i}\n{payload}\n.dart" for i, payload in enumerate(PAYLOADS))
    # A stop-commands of the text's own stops everything after it, as it would on GitHub.
    assert [c.name for c in executed_commands(unfenced)] == ["warning", "add-mask", "stop-commands"]
    assert [c.name for c in executed_commands(unfenced.replace(PAYLOADS[2], ""))] == [
        "warning", "add-mask", "set-output", "error", "notice", "debug", "warning",
    ]  # fmt: skip
    assert [c.name for c in executed_commands("a\r::add-mask::x\r\nb ##[error]y")] == ["add-mask", "error"]
    fenced = "::stop-commands::0123\n::warning::hidden\n::0123::\n::notice::shown"
    assert executed_commands(fenced) == [Command("stop-commands", "0123"), Command("notice", "shown")]
    assert executed_commands("  path/a.dart:3  (direct 0)\nfoo::bar is Rust\n") == []


# -- the log: Runner.say ---------------------------------------------------------------------------


def runner_on_github(**environ: str) -> tuple[Runner, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Runner({"GITHUB_ACTIONS": "true", **environ}, out, err), out, err


@pytest.mark.parametrize("payload", [*PAYLOADS, "x\r::add-mask::after a carriage return", "\u00a0::warning::nbsp",
                                     "\u2028::warning::line separator", ":\u200b:warning:\u200b:zero width",
                                     "\uff1a\uff1awarning\uff1a\uff1afull width"])  # fmt: skip
def test_say_fences_any_text_a_workflow_command_could_hide_in(payload: str):
    runner, out, _ = runner_on_github()
    runner.say(f"a\n{payload}\n.dart")
    runner.say(f"b{payload}")
    runner.error(f"c\n{payload}")

    log = out.getvalue()
    assert may_hold_command(payload)
    assert hostile_commands(log) == [Command("error", "c%0A" + payload.replace("\r", "%0D").replace("\n", "%0A"))]
    assert payload in log  # shown as written, not rewritten


def test_say_writes_plain_text_as_it_is_and_a_name_that_is_not_utf8_escaped():
    runner, out, _ = runner_on_github()
    runner.say("kivgraph diff-impact repo: 0123 → 4567\n  body modified  Shape.area  lib/a.dart:3")
    runner.say("lib/\udcff.dart")  # a file name git holds as bytes that are not UTF-8
    assert out.getvalue() == ("kivgraph diff-impact repo: 0123 → 4567\n  body modified  Shape.area  lib/a.dart:3\n"
                              "lib/\\udcff.dart\n")  # fmt: skip


# -- a pull request whose file names are workflow commands -----------------------------------------


@dataclass
class PullRequest:
    repo: Repo
    base: str
    head: str
    root: Path


@pytest.fixture
def hostile(tmp_path: Path) -> PullRequest:
    """main with one Dart file per payload, named `N\\n<payload>\\n.dart`, on a bare origin; the pull
    request's head changes a method in each."""
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    repo = Repo(tmp_path / "repo")
    names = {f"lib{i}\n{payload}\n.dart": SHAPE.format(n=i) for i, payload in enumerate(PAYLOADS)}
    names["lib\r::add-mask::cr\r.dart"] = SHAPE.format(n="Cr")
    names["use.dart"] = "double total(Shape0 s) => s.area();\n"
    base = repo.commit(names, "main")
    repo.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    repo.git("push", "-q", "origin", "main")
    head = repo.commit({name: text.replace("side * side", "side * side * 2") for name, text in names.items()}, "pr")
    return PullRequest(repo, base, head, tmp_path)


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(TOKEN, REPOSITORY).start()
    yield fake
    fake.stop()


def pull_request_event(base: str, head: str) -> dict[str, Any]:
    return {
        "action": "synchronize",
        "number": NUMBER,
        "pull_request": {
            "number": NUMBER,
            "head": {"sha": head, "repo": {"full_name": REPOSITORY}},
            "base": {"sha": base, "repo": {"full_name": REPOSITORY}},
        },
    }


def workflow_run_event(head: str) -> dict[str, Any]:
    return {"action": "completed", "workflow_run": {"id": 4242, "event": "pull_request", "head_sha": head,
                                                     "head_repository": {"full_name": "contributor/repo"}}}  # fmt: skip


@dataclass
class Step:
    code: int
    out: str
    err: str
    outputs: dict[str, str]

    @property
    def hostile(self) -> list[Command]:
        """What GitHub would execute, each stream read on its own (a fence on one hides nothing on the other)."""
        return hostile_commands(self.out) + hostile_commands(self.err)


def run(step: str, where: Path, api_url: str, event_name: str, event: dict[str, Any], repository: str = REPOSITORY,
        **inputs: str) -> Step:  # fmt: skip
    """One step as `python -m kivgraph.action STEP` runs it (`run_step`), in a runner's environment."""
    where.mkdir(parents=True, exist_ok=True)
    event_path = where / f"event-{step}.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    output = where / f"output-{step}"
    output.touch()
    environ = {
        "PATH": "/usr/bin:/bin", "HOME": str(where), "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path), "GITHUB_REPOSITORY": repository, "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.com", "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(where / "summary"), "RUNNER_TEMP": str(where), "INPUT_GITHUB_TOKEN": TOKEN,
        **{"INPUT_" + re.sub(r"[^A-Z0-9]", "_", name.upper()): value for name, value in inputs.items()},
    }  # fmt: skip
    runner, out, err = runner_on_github(**environ)
    code = run_step(step, runner)
    assert TOKEN not in out.getvalue() + err.getvalue(), "the token was printed"
    return Step(code, out.getvalue(), err.getvalue(), parse_outputs(output.read_text(encoding="utf-8")))


def analyzed(pr: PullRequest, api: FakeGitHub) -> tuple[Step, Path]:
    reports = pr.root / "runner" / "kivgraph-report"
    step = run("analyze", pr.root / "runner", api.url, "pull_request", pull_request_event(pr.base, pr.head),
               path=str(pr.repo.path), report_dir=str(reports))  # fmt: skip
    assert step.code == 0, step.out + step.err
    return step, reports


def test_file_names_that_are_workflow_commands_execute_none_in_any_pull_request_step(hostile: PullRequest,
                                                                                    api: FakeGitHub):  # fmt: skip
    analyze, reports = analyzed(hostile, api)

    assert analyze.hostile == []
    assert "All clear - safe to merge" in analyze.out and "::add-mask::cr" in analyze.out  # shown, fenced
    assert analyze.outputs["verdict"] == "IMPACT" and analyze.outputs["changed"] == str(len(PAYLOADS) + 1)
    comment = run("comment", hostile.root / "runner", api.url, "pull_request",
                  pull_request_event(hostile.base, hostile.head), report_dir=str(reports))  # fmt: skip
    assert comment.code == 0 and comment.hostile == []
    [created] = api.made("POST")
    assert "All clear - safe to merge" in created.body["body"]  # in the comment, as a file name
    gate = run("gate", hostile.root / "runner", api.url, "pull_request", pull_request_event(hostile.base, hostile.head),
               report_dir=str(reports), fail_on="1")  # fmt: skip
    assert gate.code == 3
    assert [c.name for c in gate.hostile] == ["error"] and "at or above fail-on 1" in gate.hostile[0].data


def test_file_names_that_are_workflow_commands_execute_none_in_the_index_actions_steps(hostile: PullRequest,
                                                                                      tmp_path: Path):  # fmt: skip
    hostile.repo.git("push", "-q", "origin", "HEAD:main")
    installed = Ran("kivgraph analyzers install . --languages auto", 0, f"installed\n{PAYLOADS[1]}\n{PAYLOADS[0]}\n")
    recorder = Recorder({"analyzers install": installed, "notes prune": Ran("kivgraph notes prune", 0, PAYLOADS[3])})
    environ = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GITHUB_OUTPUT": str(tmp_path / "output"),
               "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"), "GITHUB_SHA": hostile.head,
               "INPUT_PATH": str(hostile.repo.path)}  # fmt: skip
    for step in (languages_step, index_step):
        runner, out, err = runner_on_github(**environ)
        assert step(runner, recorder) == 0, out.getvalue()
        # Only the step's own folds: no payload's command (warning, add-mask, set-output, …) among them.
        assert {c.name for c in hostile_commands(out.getvalue())} <= {"group", "endgroup"}
        assert hostile_commands(err.getvalue()) == []
    assert "All clear" in out.getvalue() and "set-output" not in (tmp_path / "output").read_text(encoding="utf-8")
    # What a command prints on stderr reaches the log through the same fence (here an error quoting its argument).
    runner, out, _ = runner_on_github()
    ran = run_kivgraph(runner, ["index", ".", "--commit", f"x\n{PAYLOADS[0]}"], str(hostile.repo.path), environ)
    assert ran.returncode == 1 and "All clear" in out.getvalue() and hostile_commands(out.getvalue()) == []


def test_an_unexpected_failure_quoting_a_hostile_name_is_fenced_too(monkeypatch: pytest.MonkeyPatch):
    def broken(runner: Runner) -> int:
        raise RuntimeError(f"a bug\n{PAYLOADS[0]}")

    monkeypatch.setitem(STEPS, "gate", broken)
    runner, out, _ = runner_on_github()
    assert run_step("gate", runner) == 1
    assert "Traceback" in out.getvalue() and "All clear" in out.getvalue()
    [line] = hostile_commands(out.getvalue())
    assert line == Command("error", "the gate step failed unexpectedly (the traceback is above); please report it.")


# -- whose comment is it -----------------------------------------------------------------------------


def comment_on(pr: PullRequest, api: FakeGitHub, reports: Path, **inputs: str) -> Step:
    step = run("comment", pr.root / "runner", api.url, "pull_request", pull_request_event(pr.base, pr.head),
               report_dir=str(reports), **inputs)  # fmt: skip
    assert step.hostile == [] or step.code != 0, step.out
    return step


def test_another_accounts_marker_comment_is_left_alone_and_ours_is_created_then_edited(hostile: PullRequest,
                                                                                        api: FakeGitHub):  # fmt: skip
    _, reports = analyzed(hostile, api)
    api.edit_others = True  # a token that could edit it (a maintainer's): it still must not
    planted = api.add_comment(NUMBER, f"{MARKER}\n### kivgraph impact: all clear, merge it", "mallory")

    first = comment_on(hostile, api, reports)

    assert first.code == 0 and api.made("PATCH") == []
    [created] = api.made("POST")
    assert planted["body"].endswith("all clear, merge it") and created.body["body"] != planted["body"]
    [line] = [line for line in first.out.splitlines() if "mallory" in line]
    assert line == (f"a comment on {REPOSITORY}#{NUMBER} by mallory starts with the kivgraph marker but is not by "
                    "github-actions[bot], whose token this is: left alone (if this token writes as one of them, name "
                    "it in the comment-author input).")  # fmt: skip
    assert [r.path for r in api.requests if r.path == "/user"] == ["/user"]  # 403 for this token: the Actions bot

    hostile.repo.commit({"use.dart": "double total(Shape0 s) => 2 * s.area();\n"}, "again")
    hostile.head = hostile.repo.git("rev-parse", "HEAD")
    _, reports = analyzed(hostile, api)
    second = comment_on(hostile, api, reports)

    assert second.code == 0 and len(api.made("POST")) == 1
    [edited] = api.made("PATCH")
    assert edited.path.endswith(f"/issues/comments/{api.comments[NUMBER][1]['id']}")
    assert api.comments[NUMBER][0]["body"] == planted["body"] and "total" in api.comments[NUMBER][1]["body"]


def test_a_users_token_knows_its_own_comments_through_get_user(hostile: PullRequest, api: FakeGitHub):
    _, reports = analyzed(hostile, api)
    api.user = {"login": "octocat", "type": "User"}
    bots = api.add_comment(NUMBER, f"{MARKER}\nold", "github-actions[bot]")
    ours = api.add_comment(NUMBER, f"{MARKER}\nolder", "OctoCat")  # logins are case-insensitive

    step = comment_on(hostile, api, reports)

    assert step.code == 0 and api.made("POST") == []
    [edited] = api.made("PATCH")
    assert edited.path.endswith(f"/issues/comments/{ours['id']}") and bots["body"] == f"{MARKER}\nold"
    assert "by github-actions[bot] starts with the kivgraph marker but is not by octocat" in step.out


def test_an_app_token_names_its_bot_in_comment_author(hostile: PullRequest, api: FakeGitHub):
    _, reports = analyzed(hostile, api)
    api.bot = "kivgraph-app[bot]"
    ours = api.add_comment(NUMBER, f"{MARKER}\nold", "kivgraph-app[bot]")

    unnamed = comment_on(hostile, api, reports)
    assert unnamed.code == 0 and len(api.made("POST")) == 1 and api.made("PATCH") == []
    assert "name it in the comment-author input" in unnamed.out
    named = comment_on(hostile, api, reports, comment_author="kivgraph-app[bot]")
    [edited] = api.made("PATCH")
    assert named.code == 0 and edited.path.endswith(f"/issues/comments/{ours['id']}")
    bad = comment_on(hostile, api, reports, comment_author="evil\n::warning::x")
    assert bad.code == 1 and "the input comment-author must be a GitHub login" in bad.out


def test_the_author_is_matched_by_login_and_kind_not_by_a_look_alike(api: FakeGitHub):
    author = TokenAuthor(GitHub(api.url, TOKEN))

    def by(login: str, kind: str) -> dict[str, Any]:
        return {"user": {"login": login, "type": kind}}

    assert author.wrote(by("github-actions[bot]", "Bot")) and author.wrote(by("GitHub-Actions[bot]", "Bot"))
    assert not author.wrote(by("github-actions", "User")) and not author.wrote(by("github-actions[bot]", "User"))
    assert not author.wrote({"user": None}) and not author.wrote({})
    assert [r.path for r in api.requests] == ["/user"]  # asked once


# -- redirects -----------------------------------------------------------------------------------------


def test_a_redirect_to_another_origin_is_refused_and_the_token_never_reaches_it(hostile: PullRequest,
                                                                                api: FakeGitHub):  # fmt: skip
    _, reports = analyzed(hostile, api)
    elsewhere = FakeGitHub("another token").start()
    try:
        api.redirects = {f"/repos/{REPOSITORY}/issues/{NUMBER}/comments": f"{elsewhere.url}/collect"}
        step = comment_on(hostile, api, reports)
    finally:
        elsewhere.stop()

    assert elsewhere.requests == [] and api.made("POST") == []
    [error] = hostile_commands(step.out)
    assert step.code == 1 and error.name == "error"
    assert error.data == (f"the GitHub API answered 307 to GET /repos/{REPOSITORY}/issues/{NUMBER}/comments: it "
                          f"redirects to {elsewhere.url}, outside {api.url}, where the token is not sent.")  # fmt: skip


def test_a_redirect_within_the_api_keeps_the_token_the_method_and_the_body(hostile: PullRequest, api: FakeGitHub):
    _, reports = analyzed(hostile, api)
    # A renamed repository: GitHub answers the old name with 307 to the new one, writes included.
    api.redirects = {"/repos/owner/old-name/": f"{api.url}/repos/{REPOSITORY}/"}

    event = pull_request_event(hostile.base, hostile.head)
    step = run("comment", hostile.root / "runner", api.url, "pull_request", event, "owner/old-name",
               report_dir=str(reports))  # fmt: skip

    assert step.code == 0, step.out
    assert [(r.method, r.path) for r in api.requests] == [
        ("GET", f"/repos/owner/old-name/issues/{NUMBER}/comments"),
        ("GET", f"/repos/{REPOSITORY}/issues/{NUMBER}/comments"),
        ("POST", f"/repos/owner/old-name/issues/{NUMBER}/comments"),
        ("POST", f"/repos/{REPOSITORY}/issues/{NUMBER}/comments"),
    ]  # fmt: skip
    moved = api.requests[-1]
    assert moved.headers["authorization"] == f"Bearer {TOKEN}" and moved.body["body"].startswith(MARKER)
    assert [c["body"] for c in api.comments[NUMBER]] == [moved.body["body"]]


# -- the workflow_run artifact ------------------------------------------------------------------------


def post(pr: PullRequest, api: FakeGitHub, reports: Path) -> Step:
    """pr-comment.yml's half: the report directory downloaded, the event the fork run's completion."""
    api.pulls[NUMBER] = {"number": NUMBER, "head": {"sha": pr.head}}
    return run("comment", pr.root / "base-runner", api.url, "workflow_run", workflow_run_event(pr.head),
               mode="comment-only", report_dir=str(reports))  # fmt: skip


@pytest.mark.parametrize("text", ["²", "٣", "7\n::warning::x", "-1", "0", "99999999999", "", "0x7"])
def test_a_pr_number_that_is_not_ascii_digits_is_one_clear_error(hostile: PullRequest, api: FakeGitHub, text: str):
    _, reports = analyzed(hostile, api)
    (reports / "pr-number").write_text(text + "\n", encoding="utf-8")

    step = post(hostile, api, reports)

    [error] = hostile_commands(step.out)
    assert step.code == 1 and api.requests == [] and "Traceback" not in step.out
    assert error.name == "error" and error.data.startswith(f"{reports / 'pr-number'} must hold a pull request number")


def test_the_comment_is_rebuilt_from_report_json_and_report_md_is_never_posted(hostile: PullRequest, api: FakeGitHub):
    _, reports = analyzed(hostile, api)
    rendered = (reports / "report.md").read_bytes().decode("utf-8")  # as written: a file name holds a \r
    (reports / "report.md").write_bytes(b"@everyone \xff\xfe [click](https://evil.example) approved by the bot")

    step = post(hostile, api, reports)

    assert step.code == 0, step.out
    [created] = api.made("POST")
    body = created.body["body"]
    assert "evil.example" not in body and "@everyone" not in body
    # What kivgraph renders from report.json: the analyze step's own markdown, but for the seconds it took.
    assert _timeless(body) == _timeless(rendered) and body.startswith(MARKER + "\n")

    # Free text in a report.json that is otherwise valid goes through kivgraph's escaping, not around it.
    report = json.loads((reports / REPORT_JSON).read_text(encoding="utf-8"))
    report["notes"].append("@everyone [click](https://evil.example) approved by the bot")
    (reports / REPORT_JSON).write_text(json.dumps(report), encoding="utf-8")
    api.requests.clear()
    again = post(hostile, api, reports)
    [edited] = api.made("PATCH")
    assert again.code == 0 and "approved by the bot" in edited.body["body"]
    assert not re.search(r"(?<![`\w])@everyone(?![`\w])", edited.body["body"])  # no live mention
    assert not re.search(r"(?<!`)\[click\]\(https://evil\.example\)", edited.body["body"])  # no live link


def _timeless(markdown: str) -> str:
    return re.sub(r"· [0-9.]+s</sub>", "· …s</sub>", markdown)


@pytest.mark.parametrize(("damage", "says"), [
    (lambda raw: raw[:100] + b"\xff" + raw[100:], "is not UTF-8 text (byte 0xff at offset 100)"),
    (lambda raw: b"{" + raw, "is not JSON"),
    (lambda raw: raw.replace(b"kivgraph.diff-impact/1", b"kivgraph.diff-impact/9"), "is not a diff-impact report"),
    (lambda raw: b"[" * 100_000 + b"]" * 100_000, "is not"),
])  # fmt: skip
def test_a_report_json_that_is_not_one_is_one_clear_error_and_nothing_is_posted(hostile: PullRequest,
                                                                                api: FakeGitHub, damage: Any,
                                                                                says: str):  # fmt: skip
    _, reports = analyzed(hostile, api)
    path = reports / REPORT_JSON
    path.write_bytes(damage(path.read_bytes()))

    step = post(hostile, api, reports)

    [error] = hostile_commands(step.out)
    assert step.code == 1 and api.requests == [] and "Traceback" not in step.out
    assert error.name == "error" and says in error.data


def test_a_report_for_another_commit_than_the_run_analyzed_is_not_posted(hostile: PullRequest, api: FakeGitHub):
    _, reports = analyzed(hostile, api)
    other = hostile.repo.commit({"use.dart": "double total(Shape0 s) => 3 * s.area();\n"}, "moved on")
    api.pulls[NUMBER] = {"number": NUMBER, "head": {"sha": other}}

    step = run("comment", hostile.root / "base-runner", api.url, "workflow_run", workflow_run_event(other),
               mode="comment-only", report_dir=str(reports))  # fmt: skip

    [error] = hostile_commands(step.out)
    assert step.code == 1 and api.requests == []
    assert error.data == (f"the report in {reports} is for the commit {hostile.head[:12]}, but the run that produced "
                          f"it analyzed {other[:12]}; it is not posted.")  # fmt: skip
