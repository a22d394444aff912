"""The index Action's steps (index/action.yml). `languages`: which toolchains the repository's
analyzers need, and the analyzers' cache key and path. `index`: install the analyzers, index the
pushed commit (and, within `backfill`, the first-parent commits a burst of pushes left without a
note), push the notes, prune old ones, and write the job summary. In a matrix (ci/index-matrix.yml),
`shard: K/N` makes a job index one shard of the commit's units into a shard file for the merge
job, and `merge: DIR` makes the merge job compose the shard files found there and publish them.

Glue only: the analyzers, indexing and pruning are the CLI's (`kivgraph analyzers …`, `kivgraph
index`, `kivgraph notes prune`, run as subprocesses of this interpreter), the push is the notes
sync's. Nothing here decides what a generation holds.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pygit2

from kivgraph.action.runner import REMOTE, Runner
from kivgraph.errors import InvalidArgumentError, KivgraphError, NotesError
from kivgraph.impact.analysis import syntax_only
from kivgraph.model import EXACT_CONFIDENCES, Language
from kivgraph.scip.analyzers import analyzer_for
from kivgraph.shard import parse_shard
from kivgraph.snapshot import languages_at
from kivgraph.store import NOTES_REF
from kivgraph.store.git import first_line, git_dir, lookup, open_repository, resolve_commit, run_git
from kivgraph.store.notes import NotesStore
from kivgraph.store.prune import DEFAULT_KEEP
from kivgraph.store.sync import fetch_notes, push_notes

TOOLCHAINS = {"scip-typescript": "node", "scip-python": "node", "scip-go": "go", "rust-analyzer": "rust"}
"""What each analyzer needs on the runner to be installed and to run: the npm packages Node,
scip-go Go, rust-analyzer a Rust toolchain (rustup, cargo)."""
DEFAULT_BACKFILL = 5
MAX_BACKFILL = 50
"""Notes kept by `kivgraph notes prune` (first-parent commits of the default branch); 0 never prunes."""
INSTALL = ("analyzers", "install", ".", "--languages", "auto")
CACHE_KEY = ("analyzers", "cache-key", "--json")


# -- running the CLI ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ran:
    """One `kivgraph …` run: its exit status, its stdout, and why it failed (its `Error: …` line)."""

    command: str
    returncode: int
    stdout: str = ""
    problem: str = ""


Kivgraph = Callable[[Runner, Sequence[str], str, Mapping[str, str]], Ran]
"""Runs `kivgraph ARGS` in a directory with an environment (the step's; tests pass a stand-in)."""


def run_kivgraph(runner: Runner, args: Sequence[str], cwd: str, env: Mapping[str, str]) -> Ran:
    """`kivgraph ARGS` with this interpreter (the Action's own venv): stderr (progress, errors) is
    copied to the log (`Runner.say`) as it comes, stdout (a command's result, JSON with --json) is
    returned."""
    command = "kivgraph " + " ".join(args)
    runner.say(f"$ {command}")
    lines: list[str] = []
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "kivgraph", *args], cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace",
            )  # fmt: skip
        except OSError as err:
            return Ran(command, 127, "", f"cannot run {sys.executable} ({err.strerror})")
        with process:
            assert process.stderr is not None
            for line in process.stderr:
                runner.say(line)  # through the log's one door: an analyzer may quote a hostile file name
                lines.append(line.strip())
        returncode = process.returncode
        out.seek(0)
        stdout = out.read()
    errors = [line for line in lines if line.startswith("Error:")]
    problem = (errors or [line for line in lines if line] or [f"exit status {returncode}"])[-1]
    return Ran(command, returncode, stdout, problem.removeprefix("Error:").strip().rstrip("."))


# -- languages -----------------------------------------------------------------------------------


def pushed_commit(runner: Runner, path: str) -> pygit2.Commit:
    """The commit the workflow runs for (GITHUB_SHA; HEAD outside a runner)."""
    repo = open_repository(path)
    return resolve_commit(repo, runner.environ.get("GITHUB_SHA", "") or "HEAD")


def toolchains(languages: frozenset[Language]) -> dict[str, list[str]]:
    """toolchain → the analyzers that need it, for these languages (Dart has none: syntax only)."""
    needs: dict[str, list[str]] = {}
    for language in sorted(languages):
        spec = analyzer_for(language)
        if spec is not None and spec.name not in needs.get(TOOLCHAINS[spec.name], []):
            needs.setdefault(TOOLCHAINS[spec.name], []).append(spec.name)
    return needs


def languages_step(runner: Runner, kivgraph: Kivgraph = run_kivgraph) -> int:
    """Outputs `languages`, `node`, `go`, `rust` (true when an analyzer of a present language needs
    it) and, when the analyzers are installed here, `cache-key` and `cache-path` for actions/cache."""
    path = runner.input("path", ".")
    install = runner.input_bool("install-analyzers", True)
    merging = bool(job_kind(runner)[1])
    commit = pushed_commit(runner, path)
    found = languages_at(path, str(commit.id))
    needs = {} if merging else toolchains(found)
    names = sorted(language.value for language in found)
    runner.say(f"languages at {str(commit.id)[:12]}: {', '.join(names) or 'none kivgraph indexes'}")
    if merging:
        runner.say("  merging shards: their jobs ran the type checkers, so no toolchain is set up here")
    for toolchain, analyzers in needs.items():
        runner.say(f"  {toolchain} is set up for {', '.join(analyzers)}")
    runner.set_output("languages", ",".join(names))
    for toolchain in ("node", "go", "rust"):
        runner.set_output(toolchain, "true" if toolchain in needs else "false")
    if install and not merging:
        key, where = cache_key(runner, kivgraph, path)
        if key:
            runner.set_output("cache-key", key)
            runner.set_output("cache-path", where)
    return 0


def cache_key(runner: Runner, kivgraph: Kivgraph, path: str) -> tuple[str, str]:
    """(key, path) from `kivgraph analyzers cache-key --json`; ("", "") with a warning when it cannot
    say, and the analyzers are then installed without a cache."""
    ran = kivgraph(runner, CACHE_KEY, path, runner.environ)
    answer: Any = None
    if ran.returncode == 0:
        try:
            answer = json.loads(ran.stdout)
        except ValueError:
            answer = None
    found = cast(dict[str, Any], answer) if isinstance(answer, dict) else {}
    key, where = found.get("key"), found.get("path")
    if isinstance(key, str) and key and isinstance(where, str) and where:
        runner.say(f"analyzers cache: {key} at {where}")
        return key, where
    why = ran.problem if ran.returncode else 'it did not print {"key": …, "path": …}'
    runner.warning(f"`{ran.command}` gave no cache key ({why}); the analyzers are installed without a cache.")
    return "", ""


# -- index ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class Stages:
    """Seconds per stage of the index step, in the order they ran."""

    seconds: dict[str, float] = field(default_factory=dict[str, float])

    @contextmanager
    def timed(self, name: str) -> Generator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - started


@dataclass(frozen=True, slots=True)
class Indexed:
    """One commit indexed: why (pushed or backfill) and the CLI's JSON summary of its generation."""

    commit: str
    role: str
    summary: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Backfill:
    """The first-parent commits to index after the pushed one, nearest first, and where the walk stopped."""

    commits: tuple[str, ...]
    stopped: str
    """"indexed" (at the last indexed commit), "bound" (backfill reached), "history" (root or shallow end)."""
    last_indexed: str = ""


def backfill_plan(repo: pygit2.Repository, pushed: pygit2.Commit, noted: set[str], bound: int) -> Backfill:
    """Walk first parents from the pushed commit back to the last one with a note: those between
    (at most `bound`, nearest first) are the commits a burst of pushes left unindexed."""
    commits: list[str] = []
    current: object = pushed
    while isinstance(current, pygit2.Commit) and current.parent_ids:
        parent = str(current.parent_ids[0])
        if parent in noted:
            return Backfill(tuple(commits), "indexed", parent)
        if len(commits) >= bound:
            return Backfill(tuple(commits), "bound")
        current = lookup(repo, parent)
        if isinstance(current, pygit2.Commit):
            commits.append(parent)
    return Backfill(tuple(commits), "history")


def index_step(runner: Runner, kivgraph: Kivgraph = run_kivgraph) -> int:
    """Install, index, push, prune; the job summary says what was indexed, how exact, and how long each stage took."""
    stages = Stages()
    try:
        return _index(runner, kivgraph, stages)
    except KivgraphError as err:
        runner.append_summary(f"### kivgraph index: not indexed\n\n{err}\n\n" + _stages_markdown(stages))
        raise


def job_kind(runner: Runner) -> tuple[str, str]:
    """(shard, merge): the `shard` input (K/N, checked) and the `merge` input; at most one is given."""
    shard, merge = runner.input("shard"), runner.input("merge")
    if shard and merge:
        raise InvalidArgumentError("give shard (a matrix job indexing one shard) or merge (the job that merges "
                                   "them), not both.")  # fmt: skip
    if shard:
        try:
            number, count = parse_shard(shard)
        except InvalidArgumentError as err:
            raise InvalidArgumentError(f"the input shard must be K/N with 1 ≤ K ≤ N (for example 2/4), not {shard!r}."
                                       ) from err  # fmt: skip
        shard = f"{number}/{count}"
    return shard, merge


def _index(runner: Runner, kivgraph: Kivgraph, stages: Stages) -> int:
    path = runner.input("path", ".")
    require = runner.input_bool("require-analyzers", True)
    install = runner.input_bool("install-analyzers", True)
    shard, merge = job_kind(runner)
    bound = runner.input_int("backfill", DEFAULT_BACKFILL, 0, MAX_BACKFILL)
    keep = runner.input_int("keep-notes", DEFAULT_KEEP, 0)
    if 0 < keep <= bound:
        raise InvalidArgumentError(f"keep-notes ({keep}) must be more than backfill ({bound}), or 0 to never prune: "
                                   "a prune would drop the notes just backfilled.")  # fmt: skip
    env = dict(runner.environ)
    if not require:  # the input decides, not a KIVGRAPH_REQUIRE_ANALYZERS the job may set for its tests
        env.pop("KIVGRAPH_REQUIRE_ANALYZERS", None)
    pushed = pushed_commit(runner, path)
    if merge:
        return _merge(runner, kivgraph, stages, path, env, str(pushed.id), merge, require, keep)
    if install:
        with stages.timed("install analyzers"), runner.group("Install the analyzers"):
            ran = kivgraph(runner, INSTALL, path, env)
            _echo(runner, ran)
        if ran.returncode != 0:
            raise KivgraphError(
                f"`{ran.command}` failed: {ran.problem}. Without the analyzers the index is not exact; set "
                "install-analyzers: false to use the ones already on the runner."
            )
    if shard:
        return _index_shard(runner, kivgraph, stages, path, env, str(pushed.id), shard, require)
    noted: set[str] | None = None
    if bound:
        with stages.timed("fetch notes"):
            noted = _noted(runner, path)
    if noted:  # the commits before the pushed one, so `kivgraph index` can build on an indexed ancestor's note
        with stages.timed("fetch history"):
            _deepen(runner, path, pushed, bound)
    indexed: list[Indexed] = []
    with stages.timed("index"), runner.group(f"Index {str(pushed.id)[:12]}"):
        indexed.append(_index_commit(runner, kivgraph, path, env, str(pushed.id), "pushed", require))
    with stages.timed("push notes"):
        _push(runner, path)
    plan = Backfill((), "off")
    if noted is not None:
        plan = _backfill(runner, path, pushed, noted, bound)
        for commit in plan.commits:
            with stages.timed("index"), runner.group(f"Backfill {commit[:12]}"):
                try:
                    indexed.append(_index_commit(runner, kivgraph, path, env, commit, "backfill", require))
                except KivgraphError as err:  # an older commit that cannot be indexed does not undo the pushed one
                    runner.warning(f"the backfill commit {commit[:12]} was not indexed: {err}")
        if len(indexed) > 1:
            with stages.timed("push notes"):
                _push(runner, path)
    pruned = _prune(runner, kivgraph, stages, path, env, keep)
    return _published(runner, indexed, plan, bound, stages, keep, pruned)


def _prune(runner: Runner, kivgraph: Kivgraph, stages: Stages, path: str, env: Mapping[str, str], keep: int) -> str:
    """Prune the notes to the last `keep` (none when 0); why it failed, or ""."""
    if not keep:
        return ""
    with stages.timed(f"prune (keep {keep})"), runner.group("Prune old notes"):
        ran = kivgraph(runner, ("notes", "prune", REMOTE, "--keep", str(keep)), path, env)
        _echo(runner, ran)
    pruned = "" if ran.returncode == 0 else ran.problem
    if pruned:
        runner.warning(f"`{ran.command}` failed: {pruned}. The notes are pushed; old ones stay until a later "
                       "run prunes them.")  # fmt: skip
    return pruned


def _published(runner: Runner, indexed: Sequence[Indexed], plan: Backfill, bound: int, stages: Stages, keep: int,
               pruned: str) -> int:  # fmt: skip
    runner.append_summary(index_summary(indexed, plan, bound, stages, keep, pruned))
    first = indexed[0].summary
    runner.set_output("commit", indexed[0].commit)
    runner.set_output("indexed", " ".join(i.commit for i in indexed))
    runner.set_output("exact-share", f"{exact_share(first):.3f}")
    runner.set_output("syntax-only", ",".join(lang for lang, _ in _syntax_only(first)))
    return 0


def _index_shard(runner: Runner, kivgraph: Kivgraph, stages: Stages, path: str, env: Mapping[str, str], commit: str,
                 shard: str, require: bool) -> int:  # fmt: skip
    """One job of a matrix: shard K/N of the pushed commit's units into a shard file (output
    `shard-file`, for actions/upload-artifact); nothing is pushed."""
    number, count = shard.split("/")
    out = os.path.join(runner.temp or tempfile.gettempdir(), f"kivgraph-shard-{number}-of-{count}.kshard")
    args = ["index", ".", "--commit", commit, "--shard", shard, "--out", out, "--json",
            *(["--require-analyzers"] if require else [])]  # fmt: skip
    with stages.timed("index"), runner.group(f"Index shard {shard} of {commit[:12]}"):
        ran = kivgraph(runner, args, path, env)
    found = _json_object(ran)
    if found is None:
        raise KivgraphError(f"`{ran.command}` failed: {ran.problem if ran.returncode else 'it printed no JSON'}.")
    runs = cast(list[dict[str, Any]], found.get("runs") or [])
    units = cast(list[str], found.get("units") or [])
    runner.say(f"shard {shard} of {commit[:12]}: {len(units)} units → {out}")
    lines = [f"### kivgraph index: shard {shard} of `{commit[:12]}` indexed", "",
             f"{len(units)} of the commit's units, for the merge job (`merge:`) to publish; nothing was pushed.", "",
             "| unit | type checker seconds | |", "| --- | ---: | --- |"]  # fmt: skip
    for item in runs:
        what = "its own" if item.get("own") else "what its units use"
        indexed = "" if item.get("indexed") else ", no index (a blind spot)"
        lines.append(f"| `{item.get('unit')}` | {float(item.get('seconds') or 0):.1f} | {what}{indexed} |")
    if not runs:
        lines.append("| (no type checker ran) | | |")
    runner.append_summary("\n".join([*lines, "", _stages_markdown(stages)]))
    runner.set_output("commit", commit)
    runner.set_output("shard-file", out)
    return 0


def _merge(runner: Runner, kivgraph: Kivgraph, stages: Stages, path: str, env: Mapping[str, str], commit: str,
           directory: str, require: bool, keep: int) -> int:  # fmt: skip
    """The matrix's last job: the shard files under `directory` (as actions/download-artifact left
    them) merged into the pushed commit's generation, pushed as its note; old notes pruned."""
    if not os.path.isdir(directory):
        raise InvalidArgumentError(f"the input merge names {directory!r}, which is not a directory: download the "
                                   "shard jobs' artifacts there first (actions/download-artifact).")  # fmt: skip
    files = sorted(str(p.resolve()) for p in Path(directory).rglob("*.kshard") if p.is_file())
    if not files:
        raise InvalidArgumentError(f"no shard file (*.kshard) under {directory!r}: did the shard jobs upload theirs, "
                                   "and did this job download them there?")  # fmt: skip
    args = ["merge", *files, "--repo", ".", "--json", *(["--require-analyzers"] if require else [])]
    with stages.timed("merge"), runner.group(f"Merge {len(files)} shards of {commit[:12]}"):
        ran = kivgraph(runner, args, path, env)
    found = _json_object(ran)
    if found is None:
        raise KivgraphError(f"`{ran.command}` failed: {ran.problem if ran.returncode else 'it printed no JSON'}.")
    if found.get("commit") != commit:
        raise KivgraphError(f"the shards index commit {str(found.get('commit'))[:12]}, but this job runs for "
                            f"{commit[:12]}: merge the shards of the same workflow run.")  # fmt: skip
    runner.say(f"merged {len(files)} shards of {commit[:12]}: {_counts_line(found)}")
    with stages.timed("push notes"):
        _push(runner, path)
    pruned = _prune(runner, kivgraph, stages, path, env, keep)
    return _published(runner, [Indexed(commit, f"merged from {len(files)} shards", found)], Backfill((), "merge"),
                      0, stages, keep, pruned)  # fmt: skip


def _json_object(ran: Ran) -> dict[str, Any] | None:
    """The JSON object a successful command printed, or None."""
    if ran.returncode != 0:
        return None
    try:
        found: Any = json.loads(ran.stdout)
    except ValueError:
        return None
    return cast(dict[str, Any], found) if isinstance(found, dict) else None


def _echo(runner: Runner, ran: Ran) -> None:
    """A command's own result lines (not JSON), into the log."""
    if ran.stdout.strip():
        runner.say(ran.stdout.rstrip("\n"))


def _noted(runner: Runner, path: str) -> set[str] | None:
    """The commits with a note, once origin's notes are merged in; None when they cannot be fetched
    (then nothing is backfilled: what is indexed cannot be told)."""
    try:
        fetch_notes(path, REMOTE, NOTES_REF)
    except NotesError as err:
        runner.warning(f"{NOTES_REF} was not fetched from {REMOTE}, so no earlier commit is backfilled: {err}")
        return None
    return {note.commit for note in NotesStore(open_repository(path), NOTES_REF).entries()}


def _backfill(runner: Runner, path: str, pushed: pygit2.Commit, noted: set[str], bound: int) -> Backfill:
    repo = open_repository(path)  # the pushed commit read afresh: the history may have been deepened since
    plan = backfill_plan(repo, resolve_commit(repo, str(pushed.id)), noted, bound)
    if plan.stopped == "history" and repo.is_shallow:
        if not _deepen(runner, path, pushed, bound):
            return plan
        repo = open_repository(path)  # reopened: libgit2 reads the shallow boundary once
        plan = backfill_plan(repo, resolve_commit(repo, str(pushed.id)), noted, bound)
    if plan.commits:
        runner.say(f"backfill: {len(plan.commits)} first-parent commit(s) before {str(pushed.id)[:12]} have no note")
    return plan


def _deepen(runner: Runner, path: str, pushed: pygit2.Commit, bound: int) -> bool:
    """In a shallow clone (actions/checkout fetches one commit), bring the first `bound` parents and
    the parent of the last: the commits a backfill indexes, and the indexed ancestor a new index
    reuses (whether the last has a note tells "back to the last indexed one" from "stopped by the
    bound"). False, warned, when they could not be fetched."""
    repo = open_repository(path)
    if not repo.is_shallow:
        return True
    done = run_git(git_dir(repo), "fetch", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
                   f"--depth={bound + 2}", REMOTE, str(pushed.id))  # fmt: skip
    if done.returncode != 0:
        runner.warning(f"could not fetch the history before {str(pushed.id)[:12]} from {REMOTE} "
                       f"({first_line(done)}); earlier commits are neither backfilled nor reused.")  # fmt: skip
        return False
    return True


def _index_commit(runner: Runner, kivgraph: Kivgraph, path: str, env: Mapping[str, str], commit: str, role: str,
                  require: bool) -> Indexed:  # fmt: skip
    args = ["index", ".", "--commit", commit, "--json", *(["--require-analyzers"] if require else [])]
    ran = kivgraph(runner, args, path, env)
    summary: Any = None
    if ran.returncode == 0:
        try:
            summary = json.loads(ran.stdout)
        except ValueError:
            summary = None
    if isinstance(summary, dict):
        found = cast(dict[str, Any], summary)
        reused = found.get("reused")
        kept = ""
        if isinstance(reused, dict):
            units = cast(list[dict[str, Any]], cast(dict[str, Any], reused).get("units") or [])
            kept = f"; reused {sum(1 for u in units if u.get('reused'))} of {len(units)} units from an indexed ancestor"
        runner.say(f"indexed {commit[:12]} ({role}): {_counts_line(found)}{kept}")
        return Indexed(commit, role, found)
    problem = ran.problem if ran.returncode else "it printed no JSON summary"
    raise KivgraphError(f"`{ran.command}` failed: {problem}.")


def _push(runner: Runner, path: str) -> None:
    result = push_notes(path, REMOTE, NOTES_REF)
    merged = sum(result.merged.counts().values())
    runner.say(
        f"pushed {NOTES_REF} to {REMOTE}" + (f" after {result.attempts} attempts" if result.attempts > 1 else "")
        + (f", merging {merged} note(s) pushed meanwhile" if merged else "")
        if result.pushed else f"{REMOTE} already has every note"
    )  # fmt: skip


# -- the job summary -----------------------------------------------------------------------------


def exact_share(summary: Mapping[str, Any]) -> float:
    """Edges whose confidence is exact (type-checked, mapped or structurally certain) over all edges."""
    confidence = cast(dict[str, int], summary.get("confidence") or {})
    edges = sum(confidence.values())
    return sum(n for name, n in confidence.items() if name in EXACT_CONFIDENCES) / edges if edges else 0.0


def _syntax_only(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    return syntax_only(cast(dict[str, Any], summary.get("languages") or {}),
                       cast(dict[str, Any], summary.get("analyzers") or {}))  # fmt: skip


def _counts_line(summary: Mapping[str, Any]) -> str:
    c = cast(dict[str, int], summary.get("counts") or {})
    return (f"{c.get('files', 0):,} files, {c.get('symbols', 0):,} symbols, {c.get('edges', 0):,} edges "
            f"({exact_share(summary):.0%} exact)")  # fmt: skip


def index_summary(indexed: Sequence[Indexed], plan: Backfill, bound: int, stages: Stages, keep: int,
                  pruned: str) -> str:  # fmt: skip
    """The job summary: per commit its counts and share of exact edges, which languages stayed
    syntax-only, what the backfill did, and the seconds of each stage."""
    pushed = indexed[0]
    more = f" and {len(indexed) - 1} earlier commit{'s' if len(indexed) > 2 else ''}" if len(indexed) > 1 else ""
    lines = [
        f"### kivgraph index: `{pushed.commit[:12]}`{more} indexed, notes pushed",
        "",
        "| commit | | files | symbols | edges | exact edges | unresolved | invisible scopes | seconds |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for item in indexed:
        c = cast(dict[str, int], item.summary.get("counts") or {})
        seconds = item.summary.get("elapsed_seconds", 0.0)
        lines.append(
            f"| `{item.commit[:12]}` | {item.role} | {c.get('files', 0):,} | {c.get('symbols', 0):,} | "
            f"{c.get('edges', 0):,} | {exact_share(item.summary):.0%} | {c.get('unresolved', 0):,} | "
            f"{c.get('invisible_scopes', 0):,} | {float(seconds):.1f} |"
        )
    lines += ["", *_exactness_lines(pushed.summary), "", _backfill_line(plan, bound), ""]
    lines += _stages_markdown(stages).splitlines()
    if keep and not pruned:
        lines += ["", f"Notes pruned to the last {keep} first-parent commits of the default branch."]
    elif keep:
        lines += ["", f"Notes were not pruned: {pruned}."]
    return "\n".join(lines) + "\n"


def _exactness_lines(summary: Mapping[str, Any]) -> list[str]:
    analyzers = cast(dict[str, str], summary.get("analyzers") or {})
    languages = sorted(cast(dict[str, Any], summary.get("languages") or {}))
    ran = [f"{name} {analyzers[name]}" for name in sorted(analyzers) if name in TOOLCHAINS]
    lines = [
        f"**Type checkers that ran:** {', '.join(ran) or 'none'} · **languages:** {', '.join(languages) or 'none'}."
    ]
    missing = _syntax_only(summary)
    if missing:
        listed = ", ".join(f"{language} ({analyzer} did not run)" for language, analyzer in missing)
        lines.append(
            f"**Syntax-only:** {listed}: edges there are CANDIDATE guesses, and pull requests answered from this note "
            "say so. Install the analyzer (install-analyzers: true) to make them exact."
        )
    without = [language for language in languages if _no_analyzer(language)]
    if without:
        lines.append(f"**No type checker exists here for** {', '.join(without)}: the syntax layer's edges only.")
    invisible = cast(dict[str, int], summary.get("counts") or {}).get("invisible_scopes", 0)
    lines.append(f"**Completeness:** {invisible:,} invisible scope{'' if invisible == 1 else 's'} "
                 "(parts a type checker could not see; `kivgraph show` lists them)." if invisible else
                 "**Completeness:** no invisible scope: every part of the tree was read.")  # fmt: skip
    return lines


def _no_analyzer(language: str) -> bool:
    try:
        return analyzer_for(Language(language)) is None
    except ValueError:
        return True


def _backfill_line(plan: Backfill, bound: int) -> str:
    count = len(plan.commits)
    what = f"{count} first-parent commit{'' if count == 1 else 's'} before the pushed one"
    if plan.stopped == "merge":
        return (
            "**Backfill:** none in a sharded run: commits a burst of pushes left without a note stay without one "
            "(pull requests based there index their base or use the nearest indexed ancestor)."
        )
    if plan.stopped == "off":
        return "**Backfill:** off (backfill: 0), or the notes could not be fetched: earlier commits were not looked at."
    if plan.stopped == "indexed":
        if not count:
            return f"**Backfill:** nothing to do: the pushed commit's parent `{plan.last_indexed[:12]}` has a note."
        return f"**Backfill:** {what}, back to `{plan.last_indexed[:12]}` (the last indexed one), had no note."
    if plan.stopped == "bound":
        return (
            f"**Backfill:** {what} had no note; the bound (backfill: {bound}) stopped the walk, so older commits stay "
            "without one (pull requests based there index their base or use the nearest indexed ancestor)."
        )
    if not count:
        return "**Backfill:** nothing to do: the pushed commit has no earlier commit."
    return f"**Backfill:** {what} had no note, back to the first commit."


def _stages_markdown(stages: Stages) -> str:
    if not stages.seconds:
        return ""
    rows = [f"| {name} | {seconds:.1f} |" for name, seconds in stages.seconds.items()]
    total = sum(stages.seconds.values())
    return "\n".join(["| stage | seconds |", "| --- | ---: |", *rows, f"| total | {total:.1f} |"]) + "\n"
