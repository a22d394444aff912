"""The `kivgraph` command line: a thin click layer over indexing, store and render.

The only place that prints to the terminal for commands and sets exit codes: a KivgraphError
becomes `Error: …` on stderr with exit 1, or 2 when it is a usage mistake (InvalidArgumentError:
the command line itself is wrong). Progress goes to stderr; stdout is the command's output.
"""

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from kivgraph import __version__
from kivgraph.errors import GenerationNotFoundError, InvalidArgumentError, KivgraphError
from kivgraph.heap import collector_paused
from kivgraph.model import DERIVED_PREFIX, Language, is_derived
from kivgraph.render.summary import render_text, summarize
from kivgraph.store import (
    NOTES_REF,
    codec,
    note_location,
    read_file,
    read_note,
    save_to_file,
    save_to_notes,
)
from kivgraph.store.codec import Columns, decode_columns
from kivgraph.store.git import noted_ancestors, open_repository, resolve_commit
from kivgraph.store.notes import NotesStore
from kivgraph.store.prune import DEFAULT_KEEP

if TYPE_CHECKING:
    from kivgraph.clients import Change
    from kivgraph.indexing import Progress
    from kivgraph.reuse import Reused
    from kivgraph.snapshot import Snapshot
    from kivgraph.store.sync import SyncResult


def use_color(stream: Any) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def parse_languages(value: str | None) -> frozenset[Language] | None:
    if not value:
        return None
    chosen: set[Language] = set()
    for part in value.split(","):
        name = part.strip().lower()
        if not name:
            continue
        aliases = {"ts": "typescript", "js": "javascript", "py": "python", "golang": "go", "rs": "rust"}
        name = aliases.get(name, name)
        try:
            chosen.add(Language(name))
        except ValueError:
            known = ", ".join(lang.value for lang in Language)
            raise InvalidArgumentError(f"unknown language {part.strip()!r}; choose from {known}.") from None
    return frozenset(chosen)


class ProgressLine:
    """One self-overwriting progress line on a terminal; a few plain lines elsewhere."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.monotonic()
        self.last = 0.0
        self.stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        finished = done >= total
        interval = 0.1 if self.tty else 5.0
        if stage == self.stage and not finished and now - self.last < interval:
            return
        self.stage, self.last = stage, now
        text = f"{stage}: {done:,}/{total:,} files" if stage == "parse" else f"{stage}…"
        if self.tty:
            self.stream.write(f"\r\x1b[K{text}")
            if finished and stage != "parse":
                self.stream.write("\r\x1b[K")
        elif now - self.started > 2.0 or finished and total > 500:
            self.stream.write(text + "\n")
        self.stream.flush()


class CommandError(click.ClickException):
    """A KivgraphError on its way to the terminal: click prints `Error: …` and exits with 1."""

    exit_code = 1


class UsageMistake(CommandError):
    """The command line itself is wrong (an unknown name, a malformed or conflicting argument): exit
    2, as for click's own usage errors."""

    exit_code = 2


def command_error(err: KivgraphError) -> CommandError:
    """The one mapping of a KivgraphError to its exit: InvalidArgumentError is a usage mistake."""
    return UsageMistake(str(err)) if isinstance(err, InvalidArgumentError) else CommandError(str(err))


class Interrupted(CommandError):
    exit_code = 130


class InternalError(CommandError):
    """A bug, reported as one line instead of a traceback (KIVGRAPH_DEBUG=1 prints it)."""

    exit_code = 70


class KivgraphGroup(click.Group):
    """Translates errors into messages and exit codes in one place, for every command."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KivgraphError as err:
            raise command_error(err) from err
        except KeyboardInterrupt as err:
            raise Interrupted("interrupted; nothing was stored.") from err
        except Exception as err:  # the one place that turns a bug into a message instead of a traceback
            if os.environ.get("KIVGRAPH_DEBUG"):
                traceback.print_exc()
            raise InternalError(
                f"internal error ({type(err).__name__}: {err}); rerun with KIVGRAPH_DEBUG=1 and report it."
            ) from err


@click.group(cls=KivgraphGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kivgraph")
def cli() -> None:
    """kivgraph: a Git-native code graph that answers "what breaks if I change this?"."""


JOBS = click.option(
    "--jobs", type=click.IntRange(min=1), help="Processes that parse in parallel (default: one per core)."
)


@cli.command()
@click.argument("path", default=".", type=click.Path(file_okay=False))
@click.option("--commit", "revision", default="HEAD", show_default=True, help="Revision whose tree is indexed.")
@click.option("--worktree", is_flag=True, help="Index the working tree (uncommitted changes included); needs --out.")
@click.option(
    "--out", "out", type=click.Path(dir_okay=False), help="Write the generation to FILE instead of git notes."
)
@click.option("--languages", help="Comma-separated languages to index (default: every one found).")
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@JOBS
@click.option(
    "--analyzers/--no-analyzers",
    default=True,
    show_default=True,
    help="Run the installed type checkers (SCIP indexers); without them edges stay CANDIDATE.",
)
@click.option(
    "--require-analyzers",
    is_flag=True,
    default=None,
    help="Fail, storing nothing, when a type checker for a language in the tree is missing, crashes, times out "
    "or indexes nothing (default: on when KIVGRAPH_REQUIRE_ANALYZERS=1).",
)
@click.option(
    "--scip",
    "scip_files",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True),
    help="A SCIP index of this tree (any indexer, repeatable): its files' edges become exact.",
)
@click.option(
    "--shard",
    metavar="K/N",
    help="Index only shard K of N of `kivgraph plan`'s units, writing a shard file to --out; "
    "`kivgraph merge` joins the N into the generation.",
)
@click.option("--full", is_flag=True, help="Index every unit, reusing nothing of an indexed ancestor.")
@click.option(
    "--reuse",
    "reuse_file",
    type=click.Path(dir_okay=False, exists=True),
    help="Reuse this generation file (an ancestor's CI artifact) rather than the nearest indexed ancestor's note.",
)
@collector_paused()
def index(
    path: str,
    revision: str,
    worktree: bool,
    out: str | None,
    languages: str | None,
    ref: str,
    as_json: bool,
    jobs: int | None,
    analyzers: bool,
    require_analyzers: bool | None,
    scip_files: tuple[str, ...],
    shard: str | None,
    full: bool,
    reuse_file: str | None,
) -> None:
    """Index the repository at PATH at a commit and store the generation beside it.

    When an ancestor is indexed (its note, or --reuse FILE), only the units whose files, manifests
    or dependencies' public surface changed since are re-indexed; the rest is kept from it, and the
    generation is the one a full index makes. --full indexes everything."""
    if full and reuse_file:
        raise InvalidArgumentError("--full reuses nothing; it cannot be combined with --reuse.")
    if require_analyzers and not analyzers:
        raise InvalidArgumentError("--require-analyzers needs the analyzers; drop --no-analyzers.")
    if require_analyzers is None:  # the environment's default; an explicit --no-analyzers wins over it
        require_analyzers = analyzers and os.environ.get("KIVGRAPH_REQUIRE_ANALYZERS") == "1"
    if shard is not None:
        index_one_shard(path, revision, worktree, out, languages, scip_files, shard, analyzers, require_analyzers,
                        as_json, jobs)  # fmt: skip
        return
    if worktree and revision != "HEAD":
        raise InvalidArgumentError("--worktree indexes the working tree; it cannot be combined with --commit.")
    if worktree and out is None:
        raise InvalidArgumentError(
            "a working-tree generation matches no commit, so it is not stored in git notes; pass --out FILE."
        )
    from kivgraph.indexing import Progress, index_snapshot
    from kivgraph.scip.index import load_index
    from kivgraph.scip.projects import require_analyzers_ran
    from kivgraph.snapshot import snapshot_at

    chosen = parse_languages(languages)
    started = time.monotonic()
    progress: Progress = ProgressLine(sys.stderr)
    snap = snapshot_at(path, revision, worktree)
    scip_indexes = tuple(load_index(read_file(name), name) for name in scip_files)
    if reuse_file and (worktree or scip_files):
        raise InvalidArgumentError("--reuse builds on an ancestor's generation; --worktree and --scip index in full.")
    reused = None if full or worktree or scip_files else reuse_ancestor(path, snap, ref, reuse_file, chosen,
                                                                         progress, jobs, analyzers)  # fmt: skip
    columns = reused.columns if reused is not None else codec.columns_of(
        index_snapshot(snap, chosen, progress, jobs, scip_indexes, analyzers))  # fmt: skip
    if require_analyzers:
        require_analyzers_ran(codec.invisible_scopes_of(columns))
    extra = None
    if reused is not None:
        extra = {"reused": {"base": reused.base, "rounds": reused.rounds, "units": [u.as_json() for u in reused.units]}}
    store_and_report(columns, path, out, ref, started, as_json, extra)


def reuse_ancestor(path: str, snap: "Snapshot", ref: str, reuse_file: str | None, languages: frozenset[Language] | None,
                   progress: "Progress", jobs: int | None, analyzers: bool) -> "Reused | None":  # fmt: skip
    """The commit's generation built on its nearest indexed ancestor's (or on --reuse FILE), or None
    (said on stderr) when there is none or it cannot be reused: then the caller indexes in full."""
    from kivgraph.graph.load import notes_along
    from kivgraph.reuse import CannotReuse, index_reusing

    repo = open_repository(path)
    if reuse_file is not None:
        base = decode_columns(read_file(reuse_file), reuse_file)
    else:
        base = None
        try:
            for commit, _, blob in notes_along(repo, resolve_commit(repo, snap.commit), ref):
                if commit == snap.commit:
                    continue
                try:
                    base = decode_columns(blob, note_location(commit, ref))
                    break
                except KivgraphError as err:
                    click.echo(f"passing over {commit[:12]}'s generation: {err}", err=True)
        except KivgraphError as err:  # a history that cannot be walked (a shallow clone): nothing to build on
            click.echo(f"indexing every unit: no indexed ancestor could be looked for ({err})", err=True)
        if base is None:
            return None
    started = time.monotonic()
    try:
        reused = index_reusing(repo, snap, base, languages, progress, jobs, analyzers,
                               lambda line: click.echo(f"  unit {line}", err=True))  # fmt: skip
    except CannotReuse as err:
        click.echo(f"indexing every unit: {err}", err=True)
        return None
    kept = sum(u.reused for u in reused.units)
    click.echo(f"reused {kept} of {len(reused.units)} units from {reused.base[:12]} "
               f"({time.monotonic() - started:.1f}s)", err=True)  # fmt: skip
    return reused


def index_one_shard(path: str, revision: str, worktree: bool, out: str | None, languages: str | None,
                    scip_files: tuple[str, ...], shard: str, analyzers: bool, require_analyzers: bool,
                    as_json: bool, jobs: int | None) -> None:  # fmt: skip
    from kivgraph.shard import index_shard, parse_shard

    number, count = parse_shard(shard)
    if out is None or worktree or scip_files:
        raise InvalidArgumentError("--shard indexes a shard of a commit's units and writes it to --out FILE; "
                                   "it takes no --worktree or --scip")  # fmt: skip
    started = time.monotonic()
    click.echo(f"shard {number}/{count}: indexing its units…", err=True)
    done = index_shard(path, revision, number, count, parse_languages(languages), out, analyzers,
                       ProgressLine(sys.stderr), jobs, require_analyzers)  # fmt: skip
    elapsed = time.monotonic() - started
    parsed = done.generation.count("files")
    runs = [{"unit": t.unit, "seconds": round(t.seconds, 3), "indexed": t.indexed, "own": t.own}
            for t in done.timings]  # fmt: skip
    if as_json:
        result = {"shard": f"{number}/{count}", "commit": done.commit, "units": list(done.units), "runs": runs,
                  "files_parsed": parsed, "out": out, "elapsed_seconds": round(elapsed, 3)}  # fmt: skip
        click.echo(json.dumps(result, indent=2))
        return
    for run in runs:
        why = "" if run["own"] else ", for the uses of it"
        click.echo(f"  {run['unit']}: {run['seconds']:.1f} s{'' if run['indexed'] else ' (no index)'}{why}", err=True)
    click.echo(f"Shard {number}/{count} of {done.repository} at {done.commit[:12]}: {len(done.units)} units, "
               f"{parsed} files parsed with what they depend on, in {elapsed:.1f}s → {out}")  # fmt: skip


@cli.command()
@click.argument("shard_files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option("--repo", "path", default=".", show_default=True, type=click.Path(file_okay=False),
              help="The repository the shards index (its commit's tree is read).")  # fmt: skip
@click.option("--out", type=click.Path(dir_okay=False), help="Write the generation to FILE instead of git notes.")
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option(
    "--require-analyzers",
    is_flag=True,
    default=None,
    help="Fail, storing nothing, when a shard's type checker was missing, crashed, timed out or indexed nothing "
    "(default: on when KIVGRAPH_REQUIRE_ANALYZERS=1 and the shards ran the type checkers).",
)
@collector_paused()
def merge(shard_files: tuple[str, ...], path: str, out: str | None, ref: str, as_json: bool,
          require_analyzers: bool | None) -> None:  # fmt: skip
    """Join the N shard files of `kivgraph index --shard K/N` into the commit's generation (the one a
    single `kivgraph index` makes) and store it in git notes or --out."""
    from kivgraph.scip.projects import require_analyzers_ran
    from kivgraph.shard import merge as merge_shards
    from kivgraph.shard import read_shard

    started = time.monotonic()
    shards = sorted((read_shard(f) for f in shard_files), key=lambda s: s.number)
    for shard in shards:
        runs = ", ".join(f"{t.unit} {t.seconds:.1f} s" for t in shard.timings if t.own) or "no type checker"
        click.echo(f"shard {shard.number}/{shard.count} ({shard.source}): {', '.join(shard.units) or 'no units'}; "
                   f"{runs}", err=True)  # fmt: skip
    if require_analyzers and not shards[0].analyzers:
        raise InvalidArgumentError("--require-analyzers needs shards indexed with the analyzers, not --no-analyzers.")
    if require_analyzers is None:
        require_analyzers = shards[0].analyzers and os.environ.get("KIVGRAPH_REQUIRE_ANALYZERS") == "1"
    columns = merge_shards(path, shards)
    if require_analyzers:
        require_analyzers_ran(codec.invisible_scopes_of(columns))
    units = [{"unit": t.unit, "shard": f"{s.number}/{s.count}", "seconds": round(t.seconds, 3),
              "indexed": t.indexed} for s in shards for t in s.timings if t.own]  # fmt: skip
    store_and_report(columns, path, out, ref, started, as_json, {"units": units})


@cli.command("index-rust-std")
@click.option(
    "--sysroot",
    type=click.Path(file_okay=False, exists=True),
    help="Toolchain whose standard library is indexed (default: `rustc --print sysroot`).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    help="Where to write the generation (default: ~/.cache/kivgraph/derived/rust-<release>.kgen).",
)
@JOBS
@click.option(
    "--analyzers/--no-analyzers",
    default=True,
    show_default=True,
    help="Run rust-analyzer (about 2 minutes and 3.5 GB); without it edges stay CANDIDATE.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@collector_paused()
def index_rust_std(sysroot: str | None, out: str | None, jobs: int | None, analyzers: bool, as_json: bool) -> None:
    """Index the Rust standard library as the derived repository rust:<release>."""
    from kivgraph.derived import default_location, index_rust_library

    started = time.monotonic()
    generation = index_rust_library(sysroot, ProgressLine(sys.stderr), jobs, analyzers)
    location = out or str(default_location(generation.header.repository.removeprefix(DERIVED_PREFIX)))
    os.makedirs(os.path.dirname(os.path.abspath(location)), exist_ok=True)
    columns = codec.columns_of(generation)
    blob = save_to_file(columns, location)
    report_indexed(columns, len(blob), location, time.monotonic() - started, as_json)


def store_and_report(columns: Columns, path: str, out: str | None, ref: str, started: float,
                     as_json: bool, extra: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Write the generation to --out, or to the notes of its commit, and print the summary."""
    if out:
        blob = save_to_file(columns, out)
        location = out
    else:
        blob = save_to_notes(open_repository(path), columns, ref)
        location = note_location(columns.header.commit, ref)
    report_indexed(columns, len(blob), location, time.monotonic() - started, as_json, extra)


def report_indexed(columns: Columns, size: int, location: str, elapsed: float, as_json: bool,
                   extra: dict[str, Any] | None = None) -> None:  # fmt: skip
    """The one-line (or JSON) summary of a generation just written in `size` bytes (`extra`: more
    JSON fields)."""
    summary = summarize(columns, size, location)
    summary["elapsed_seconds"] = round(elapsed, 3)
    summary.update(extra or {})
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    color = use_color(sys.stdout)
    c = summary["counts"]
    skipped = sum(n for status, n in summary["file_status"].items() if status.startswith("skipped"))
    where = summary["commit"][:12] or ("the toolchain" if is_derived(summary["repository"]) else "the working tree")
    line = (
        f"Indexed {summary['repository']} at {where}: "
        f"{c['files']:,} files ({skipped:,} skipped), {c['symbols']:,} symbols, {c['edges']:,} edges, "
        f"{c['unresolved']:,} unresolved in {elapsed:.1f}s → {location} ({size:,} bytes)"
    )
    click.echo(click.style(line, fg="green") if color else line, color=color)


@cli.command("plan")
@click.argument("path", default=".", type=click.Path(file_okay=False))
@click.option("--commit", "revision", default="HEAD", show_default=True, help="Revision whose tree is planned.")
@click.option("--languages", help="Comma-separated languages to plan for (default: every one found).")
@click.option("--shards", type=click.IntRange(min=1), help="Also balance the units over N shards, by their work.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def plan_command(path: str, revision: str, languages: str | None, shards: int | None, as_json: bool) -> None:
    """The units of work of the tree at PATH: each analyzer project root (go.mod, topmost tsconfig.json,
    topmost Cargo.toml, the Python tree) and the rest as syntax-only units, with their sizes and what
    they depend on, in dependency order."""
    from kivgraph.plan import plan_snapshot
    from kivgraph.snapshot import snapshot_at
    from kivgraph.units import Dependencies

    snap = snapshot_at(path, revision)
    planned = plan_snapshot(snap, parse_languages(languages))
    depends = Dependencies(planned, snap)
    split = planned.shards(shards, depends.of) if shards else []
    if as_json:
        units = [u.as_json() for u in planned.units]
        result: dict[str, Any] = {"repository": snap.repository, "commit": snap.commit, "units": units,
                                  "cyclic": list(planned.cyclic)}  # fmt: skip
        if shards:
            result["shards"] = [{"shard": f"{k + 1}/{shards}", "units": [u.id for u in shard],
                                 "bytes": sum(u.bytes for u in shard), "work": sum(u.work for u in shard)}
                                for k, shard in enumerate(split)]  # fmt: skip
        click.echo(json.dumps(result, indent=2))
        return
    width = max((len(u.id) for u in planned.units), default=4)
    click.echo(f"{len(planned.units)} units of {snap.repository} at {snap.commit[:12]}, dependencies first:")
    for unit in planned.units:
        needs = f"  ← {', '.join(unit.depends_on)}" if unit.depends_on else ""
        click.echo(f"  {unit.id:<{width}}  {len(unit.files):>6,} files {unit.bytes / 1e6:>8.2f} MB  {unit.name}{needs}")
    if planned.cyclic:
        click.echo(f"in or behind a dependency cycle: {', '.join(planned.cyclic)}")
    for k, shard in enumerate(split):
        size = sum(u.bytes for u in shard) / 1e6
        click.echo(f"shard {k + 1}/{shards}: {size:.2f} MB — {', '.join(u.id for u in shard) or 'nothing'}")


@cli.command()
@click.argument("revision", required=False)
@click.option(
    "--generation",
    "generation_file",
    type=click.Path(dir_okay=False),
    help="Read a generation file (an artifact) instead of git notes.",
)
@click.option(
    "--repo",
    "repo_path",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Repository whose notes are read.",
)
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def show(revision: str | None, generation_file: str | None, repo_path: str, ref: str, as_json: bool) -> None:
    """Print what a generation holds: counts by language, kind, edge kind and confidence."""
    if generation_file and revision:
        raise InvalidArgumentError("pass either a REVISION or --generation FILE, not both.")
    if generation_file:
        location = generation_file
        blob = read_file(generation_file)
    else:
        repo = open_repository(repo_path)
        commit = str(resolve_commit(repo, revision or "HEAD").id)
        location = note_location(commit, ref)
        try:
            blob = read_note(repo, commit, ref)
        except GenerationNotFoundError:
            noted = {n.commit for n in NotesStore(repo, ref).entries()}
            nearest = next(noted_ancestors(repo, resolve_commit(repo, commit), noted), None) if noted else None
            hint = "run `kivgraph index` to create one."
            if nearest is not None:
                hint = (
                    f"the nearest indexed ancestor is {nearest[0][:12]}, {nearest[1]} commits back "
                    f"(`kivgraph show {nearest[0][:12]}`); run `kivgraph index` to index this commit."
                )
            raise GenerationNotFoundError(location, hint) from None
    summary = summarize(decode_columns(blob, location), len(blob), location)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        color = use_color(sys.stdout)
        click.echo(render_text(summary, color), color=color)


@cli.command()
@click.argument("path", default=".", type=click.Path(file_okay=False))
@click.option("--languages", help="Languages to check (default: those found at HEAD of PATH, else all).")
@click.option("--strict", is_flag=True, help="Exit 1 when a checked language has no usable analyzer.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def doctor(path: str, languages: str | None, strict: bool, as_json: bool) -> None:
    """Which type-checking analyzers are installed, their versions, and how to get the missing ones."""
    chosen = parse_languages(languages) or _languages_at(path)
    rows = doctor_rows(chosen)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        color = use_color(sys.stdout)
        for row in rows:
            mark = {"ok": "ok", "missing": "MISSING", "unusable": "BROKEN", "syntax-only": "syntax"}[row["status"]]
            if color:
                mark = click.style(mark, fg="green" if row["status"] == "ok" else "yellow", bold=True)
            line = f"{row['language']:<11} {mark:<8} {row['analyzer'] or '-':<16} {row['version'] or '-':<9}"
            click.echo(f"{line} {row['path'] or row['detail']}", color=color)
            if row["status"] == "ok" and row["detail"]:
                click.echo(f"{'':<11} note: {row['detail']}")
    failing = [row for row in rows if row["status"] in ("missing", "unusable")]
    if strict and failing:
        names = ", ".join(row["language"] for row in failing)
        raise CommandError(f"no usable analyzer for {names}; see the install hints above.")


def _languages_at(path: str) -> frozenset[Language]:
    """The languages of the files at HEAD of the repository at PATH (every language outside one)."""
    from kivgraph.snapshot import languages_at

    try:
        found = languages_at(path)
    except KivgraphError:
        return frozenset(Language)
    return found or frozenset(Language)


def doctor_rows(languages: frozenset[Language]) -> list[dict[str, str]]:
    from kivgraph.scip.analyzers import analyzer_for, locate

    rows: list[dict[str, str]] = []
    for language in sorted(languages):
        spec = analyzer_for(language)
        if spec is None:
            rows.append({
                "language": language.value, "analyzer": "", "status": "syntax-only", "version": "", "path": "",
                "detail": "no type checker runs for it here; edges stay CANDIDATE unless you pass --scip FILE",
            })  # fmt: skip
            continue
        found = locate(spec)
        status = "ok" if found.usable else ("missing" if not found.path else "unusable")
        detail = found.problem
        if found.usable and found.version != found.expected_version:
            detail = f"version {found.version} is not the pinned {found.expected_version}; results may differ"
        rows.append({
            "language": language.value, "analyzer": spec.name, "status": status, "version": found.version,
            "path": found.path if found.usable else "", "detail": detail,
        })  # fmt: skip
    return rows


@cli.group("analyzers")
def analyzers_group() -> None:
    """Install the pinned type checkers (SCIP indexers) a repository's languages need."""


ANALYZER_LANGUAGES = click.option(
    "--languages",
    default="auto",
    show_default=True,
    help="auto (the languages at HEAD of PATH, as doctor finds them), all, or a comma-separated list.",
)


def _requested_languages(path: str, value: str) -> frozenset[Language]:
    word = value.strip().lower()
    if word == "auto":
        return _languages_at(path)
    if word == "all":
        return frozenset(Language)
    chosen = parse_languages(value)
    if not chosen:
        raise InvalidArgumentError("--languages is empty; pass auto, all or a comma-separated list.")
    return chosen


@analyzers_group.command("install")
@click.argument("path", default=".", type=click.Path(file_okay=False))
@ANALYZER_LANGUAGES
@click.option("--json", "as_json", is_flag=True, help="Print the result per analyzer as JSON.")
def analyzers_install(path: str, languages: str, as_json: bool) -> None:
    """Install into the tools cache, pinned, the analyzers the languages need; exit 1 when one of them
    could not be installed (the others still are)."""
    from kivgraph.scip.analyzers import analyzer_for, tools_cache
    from kivgraph.scip.install import install

    chosen = _requested_languages(path, languages)
    names = ", ".join(sorted(lang.value for lang in chosen)) or "none"
    click.echo(f"languages: {names}; tools cache: {tools_cache()}", err=True)
    without = sorted(lang.value for lang in chosen if analyzer_for(lang) is None)
    if without:
        click.echo(f"{', '.join(without)}: no analyzer runs here; edges stay CANDIDATE unless you pass --scip FILE",
                   err=True)  # fmt: skip
    outcomes = install(chosen, path, lambda line: click.echo(line, err=True))
    if as_json:
        result = {"tools_cache": str(tools_cache().absolute()), "languages": sorted(lang.value for lang in chosen),
                  "analyzers": [outcome.as_json() for outcome in outcomes]}  # fmt: skip
        click.echo(json.dumps(result, indent=2))
    else:
        for outcome in outcomes:
            where = outcome.path if outcome.ok else outcome.reason
            click.echo(f"{outcome.name:<16} {outcome.status.value:<9} {outcome.version or '-':<9} {where}")
    failing = [outcome for outcome in outcomes if not outcome.ok]
    if failing:
        listed = ", ".join(f"{o.name} ({'/'.join(lang.value for lang in o.languages)})" for o in failing)
        raise CommandError(f"not installed: {listed}, for the reason given above; the others are installed.")


@analyzers_group.command("cache-key")
@click.argument("path", default=".", type=click.Path(file_okay=False))
@ANALYZER_LANGUAGES
@click.option("--json", "as_json", is_flag=True, help='Print {"key": ..., "path": ..., "analyzers": ...}.')
def analyzers_cache_key(path: str, languages: str, as_json: bool) -> None:
    """The tools cache's key (pins of the analyzers the languages need, and the platform) and path,
    for restoring it in CI (actions/cache)."""
    from kivgraph.scip.install import cache_key

    key = cache_key(_requested_languages(path, languages))
    if as_json:
        click.echo(json.dumps(key, indent=2))
    else:
        click.echo(f"key  {key['key']}\npath {key['path']}")


@cli.command("diff-impact")
@click.argument("path", default=".", type=click.Path(file_okay=False))
@click.option(
    "--base", "base", help="Base revision (default: where HEAD left the default branch; HEAD with --worktree)."
)
@click.option("--head", "head", default="HEAD", show_default=True, help="Head revision.")
@click.option("--worktree", is_flag=True, help="Compare the working tree (uncommitted changes) with the base.")
@click.option("--depth", type=click.IntRange(1, 5), default=3, show_default=True, help="Hops of transitive impact.")
@click.option("--format", "output_format", type=click.Choice(["text", "markdown", "json"]), default="text",
              show_default=True, help="Report format.")  # fmt: skip
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Write the report to FILE instead of stdout.")
@click.option("--fail-on", "fail_on", type=click.IntRange(min=1),
              help="Exit 3 when at least N symbols are affected (a CI gate).")  # fmt: skip
@click.option(
    "--index-missing",
    is_flag=True,
    help="Index the base commit when it has no generation (else the nearest indexed ancestor is used).",
)
@click.option("--link-base", help="URL prefix for markdown links, e.g. https://github.com/o/r/blob/<sha>.")
@click.option("--workspace", type=click.Path(dir_okay=False, exists=True),
              help="A kivgraph.toml: the impact reaches consumers in its other repositories.")  # fmt: skip
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
@collector_paused()
def diff_impact(
    path: str, base: str | None, head: str, worktree: bool, depth: int, output_format: str, out: str | None,
    fail_on: int | None, index_missing: bool, link_base: str | None, workspace: str | None, ref: str,
) -> None:  # fmt: skip
    """What a change breaks: changed symbols between two revisions (or the working tree) and
    everything that transitively depends on them, from the base commit's generation."""
    from kivgraph.impact.analysis import analyze
    from kivgraph.impact.report import to_json, to_markdown, to_text

    if worktree and head != "HEAD":
        raise InvalidArgumentError("--worktree compares the working tree; it cannot be combined with --head.")
    impact = analyze(path, base, None if worktree else head, depth, index_missing, ref, workspace)
    if output_format == "json":
        report = json.dumps(to_json(impact), indent=2) + "\n"
    elif output_format == "markdown":
        prefix = link_base.rstrip("/") if link_base else None
        report = to_markdown(impact, (lambda p, line, _commit: f"{prefix}/{p}#L{line}") if prefix else None)
    else:
        stream = sys.stdout if out is None else None
        color = stream is not None and use_color(stream)
        report = to_text(impact, (lambda text, fg: click.style(text, fg=fg)) if color else (lambda text, _: text))
    if out is not None:
        try:
            with open(out, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as err:
            raise KivgraphError(f"cannot write the report to {out}: {err.strerror}.") from err
    else:
        click.echo(report, nl=False, color=True)
    if fail_on is not None and len(impact.affected) >= fail_on:
        click.echo(f"{len(impact.affected)} symbols affected, at or above --fail-on {fail_on}.", err=True)
        raise SystemExit(3)


@cli.group()
def notes() -> None:
    """Share generations: fetch and push refs/notes/kivgraph (merged per commit, newest wins), and prune it."""


def _sync_line(action: str, result: "SyncResult") -> str:
    merged = ", ".join(f"{n} {what}" for what, n in result.merged.counts().items() if n) or "nothing to merge"
    line = f"{action} {result.remote}: {result.fetched} notes on the remote; merged: {merged}" + (
        f"; pushed after {result.attempts} attempt{'s' if result.attempts != 1 else ''}" if result.pushed else ""
    )
    return "\n".join([line, *(f"  {decision}" for decision in result.merged.decisions)])


@notes.command("fetch")
@click.argument("remote", default="origin")
@click.option("--repo", "repo_path", default=".", type=click.Path(file_okay=False), help="Repository (default .).")
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
def notes_fetch(remote: str, repo_path: str, ref: str) -> None:
    """Fetch REMOTE's notes into refs/notes/remotes/REMOTE/… and merge them into ours."""
    from kivgraph.store.sync import fetch_notes

    click.echo(_sync_line("fetched from", fetch_notes(repo_path, remote, ref)))


@notes.command("push")
@click.argument("remote", default="origin")
@click.option("--repo", "repo_path", default=".", type=click.Path(file_okay=False), help="Repository (default .).")
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
@click.option("--attempts", type=click.IntRange(min=1), default=10, show_default=True,
              help="Fetch-merge-push rounds when the remote moved under us.")  # fmt: skip
def notes_push(remote: str, repo_path: str, ref: str, attempts: int) -> None:
    """Push our notes to REMOTE; when rejected because it moved, fetch, merge and push again."""
    from kivgraph.store.sync import push_notes

    result = push_notes(repo_path, remote, ref, attempts)
    click.echo(_sync_line("pushed to" if result.pushed else "nothing to push to", result))


@notes.command("prune")
@click.argument("remote", required=False)
@click.option("--remote", "remote_option", metavar="NAME", help="The remote to prune (same as REMOTE).")
@click.option("--keep", type=int, default=DEFAULT_KEEP, show_default=True,
              help="First-parent commits of the default branch whose notes stay.")  # fmt: skip
@click.option("--keep-tags", is_flag=True, help="Also keep the notes of tagged commits.")
@click.option("--branch", default="", help="The branch whose history decides (default: the remote's HEAD; "
              "without a remote origin/HEAD, else main or master, else HEAD).")  # fmt: skip
@click.option("--dry-run", is_flag=True, help="List the notes that would go, with their sizes; change nothing.")
@click.option("--repo", "repo_path", default=".", type=click.Path(file_okay=False), help="Repository (default .).")
@click.option("--ref", default=NOTES_REF, show_default=True, help="Notes ref that stores generations.")
@click.option("--attempts", type=click.IntRange(min=1), default=10, show_default=True,
              help="Fetch-merge-prune-push rounds when the remote moved under us.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def notes_prune(remote: str | None, remote_option: str | None, keep: int, keep_tags: bool, branch: str,
                dry_run: bool, repo_path: str, ref: str, attempts: int, as_json: bool) -> None:  # fmt: skip
    """Keep the notes of the last --keep first-parent commits of the default branch, drop the rest in
    one notes commit without parents; with REMOTE, fetch and merge first and push the result with a
    lease (retried when the remote moved), so a note pushed meanwhile is never lost."""
    from kivgraph.store.prune import prune_notes

    if remote and remote_option and remote != remote_option:
        raise InvalidArgumentError(f"two remotes given ({remote} and --remote {remote_option}); give one.")
    result = prune_notes(repo_path, remote or remote_option or "", keep, keep_tags=keep_tags, dry_run=dry_run,
                         branch=branch, ref=ref, attempts=attempts)  # fmt: skip
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
        return
    summary = result.to_json()
    kept, dropped = summary["kept"], summary["dropped"]
    where = f"{ref} on {result.remote}" if result.remote else f"{ref} in this clone"
    window = (f"the last {keep} first-parent commits of {result.branch} at {result.branch_commit[:12]}"
              + (f", {kept['tagged']} tagged" if kept["tagged"] else "")
              + (f", {kept['newer']} newer than it" if kept["newer"] else ""))  # fmt: skip
    if dry_run:
        click.echo(f"would drop {dropped['notes']} note(s) ({dropped['bytes']:,} bytes) of {where}, keeping "
                   f"{kept['notes']} ({kept['bytes']:,} bytes): {window}")  # fmt: skip
        for note in result.dropped:
            size = "size unknown (not in this clone)" if note.size is None else f"{note.size:,} bytes"
            click.echo(f"  {note.commit}  {size}")
        return
    if result.notes_commit is None and not result.pushed:
        click.echo(f"nothing to prune in {where}: {kept['notes']} note(s) ({kept['bytes']:,} bytes), all of {window}")
        return
    line = (f"pruned {where}: kept {kept['notes']} note(s) ({kept['bytes']:,} bytes) of {window}; dropped "
            f"{dropped['notes']} ({dropped['bytes']:,} bytes)")  # fmt: skip
    if result.notes_commit:
        line += f" in one notes commit without parents, {result.notes_commit[:12]}"
    if result.pushed:
        line += f"; pushed after {result.attempts} attempt{'s' if result.attempts != 1 else ''}"
    if result.deepened:
        line += f"; the shallow clone's {result.branch} was fetched {keep} commits deep"
    click.echo(line)


def graph_sources(command: Callable[..., None]) -> Callable[..., None]:
    """--repo, --generation and --workspace: what `serve` and `query` load."""
    for option in reversed(
        (
            click.option("--repo", "repos", multiple=True, type=click.Path(file_okay=False),
                         help="Repository to load (repeatable; default: the current directory)."),
            click.option("--generation", "generation_files", multiple=True,
                         type=click.Path(dir_okay=False, exists=True),
                         help="A generation file (repeatable): a CI artifact, the derived rust: library."),
            click.option("--workspace", type=click.Path(dir_okay=False, exists=True),
                         help="A kivgraph.toml: its repositories (local paths, git URLs) are linked into one graph."),
        )
    ):  # fmt: skip
        command = option(command)
    return command


def _sources(
    repos: tuple[str, ...], files: tuple[str, ...], workspace: str | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """(repositories read from notes, generation files with their working tree).

    With generation files and a single --repo, that repository is the files' working tree (what
    get_source reads); without files, every --repo (default: the current directory, unless a
    workspace names the repositories) is read from notes.
    """
    if not files:
        return list(repos) or ([] if workspace else ["."]), []
    if len(repos) == 1:
        return [], [(f, repos[0]) for f in files]
    return list(repos), [(f, "") for f in files]


@cli.group("mcp")
def mcp_group() -> None:
    """Register `kivgraph serve` with an MCP client (Claude Code, Claude Desktop, Cursor, VS Code, Codex)."""


CLIENT = click.option(
    "--client",
    "client_name",
    required=True,
    type=click.Choice(["claude-code", "claude-desktop", "cursor", "vscode", "codex"]),
    help="The client whose configuration file is written.",
)
CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="Write this file instead of the client's own (a project's .vscode/mcp.json or .mcp.json).",
)
DRY_RUN = click.option("--dry-run", is_flag=True, help="Print the change as a diff and write nothing.")
NAME = click.option("--name", default="kivgraph", show_default=True, help="The server's name in the client.")


@mcp_group.command("install")
@CLIENT
@click.option(
    "--repo",
    "repos",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Repository the server loads (repeatable; default: the folder the client starts it in).",
)
@click.option("--workspace", type=click.Path(dir_okay=False), help="A kivgraph.toml the server links into one graph.")
@CONFIG
@DRY_RUN
@NAME
def mcp_install(client_name: str, repos: tuple[str, ...], workspace: str | None, config_file: str | None,
                dry_run: bool, name: str) -> None:  # fmt: skip
    """Add kivgraph to the client's MCP configuration, by the absolute path of this kivgraph: merged
    into the file (other servers kept), the old file kept as FILE.kivgraph-backup; a second run
    changes nothing."""
    from kivgraph.clients import client, install, server_command

    target = client(client_name)
    command, args = server_command(list(repos), workspace)
    change = install(target, command, args, Path(config_file) if config_file else None, name)
    _apply(change, dry_run, f"{name} starts `{' '.join([command, *args])}` in {target.title}")


@mcp_group.command("uninstall")
@CLIENT
@CONFIG
@DRY_RUN
@NAME
def mcp_uninstall(client_name: str, config_file: str | None, dry_run: bool, name: str) -> None:
    """Remove kivgraph's entry (only it) from the client's MCP configuration."""
    from kivgraph.clients import client, uninstall

    target = client(client_name)
    change = uninstall(target, Path(config_file) if config_file else None, name)
    _apply(change, dry_run, f"{name} removed from {target.title}")


def _apply(change: "Change", dry_run: bool, done: str) -> None:
    if not change.changed:
        click.echo(f"{change.path} already says so; nothing changed.")
        return
    if dry_run:
        click.echo(change.diff(), nl=False)
        click.echo(f"(dry run: {change.path} was not written)")
        return
    backup = change.write()
    click.echo(f"{done}: {change.path} written" + (f"; the previous file is {backup}" if backup else "") + ".")


@cli.command()
@graph_sources
@click.option("--http", "address", metavar="HOST:PORT", help="Serve over streamable HTTP at http://HOST:PORT/mcp.")
@click.option("--token-file", type=click.Path(dir_okay=False),
              help="A file holding the bearer token each HTTP request must carry (required off loopback).")  # fmt: skip
@click.option("--allow-index", is_flag=True, help="Over HTTP, offer index_project too (it writes git notes).")
@click.option("--no-overlay", is_flag=True, help="Answer from the generation alone, without the working tree's edits.")
@click.option("--allow-origin", "origins", multiple=True, metavar="ORIGIN",
              help="A browser origin accepted over HTTP besides loopback ones (repeatable).")  # fmt: skip
def serve(repos: tuple[str, ...], generation_files: tuple[str, ...], workspace: str | None, address: str | None,
          token_file: str | None, allow_index: bool, no_overlay: bool, origins: tuple[str, ...]) -> None:  # fmt: skip
    """Serve the graph over MCP: the generation matching HEAD of each repository, over stdio, or with
    --http over streamable HTTP for a team (read-only tools unless --allow-index)."""
    from kivgraph.server import serve as run_server  # loads the query layer, which other commands never need

    if address is None and (token_file or allow_index or origins):
        raise InvalidArgumentError("--token-file, --allow-index and --allow-origin are options of --http.")
    run_server(*_sources(repos, generation_files, workspace), workspace, address, token_file, allow_index, origins,
               not no_overlay)  # fmt: skip


@cli.command()
@click.argument("tool_name", metavar="TOOL")
@click.option("--json", "arguments", help="The tool's arguments as one JSON object.")
@click.option("--arg", "pairs", multiple=True, metavar="NAME=VALUE",
              help="One argument (repeatable); VALUE is read as JSON when it parses, else as a string.")  # fmt: skip
@graph_sources
def query(
    tool_name: str, arguments: str | None, pairs: tuple[str, ...], repos: tuple[str, ...],
    generation_files: tuple[str, ...], workspace: str | None,
) -> None:  # fmt: skip
    """Run one MCP tool from the shell and print the same answer (JSON, or text for get_source)."""
    from kivgraph.graph.catalog import Catalog, nothing_loaded, run_tool
    from kivgraph.graph.tools import TOOL_BY_NAME

    tool = TOOL_BY_NAME.get(tool_name)
    if tool is None:
        raise InvalidArgumentError(f'unknown tool "{tool_name}"; choose from {", ".join(sorted(TOOL_BY_NAME))}.')
    args: dict[str, Any] = {}
    if arguments:
        try:
            parsed = json.loads(arguments)
        except ValueError as err:
            raise InvalidArgumentError(f"--json is not valid JSON: {err}") from None
        if not isinstance(parsed, dict):
            raise InvalidArgumentError("--json must be a JSON object of named arguments.")
        args.update(cast(dict[str, Any], parsed))
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InvalidArgumentError(f"--arg {pair!r} is not NAME=VALUE.")
        try:
            args[name] = json.loads(value)
        except ValueError:
            args[name] = value
    repositories, files = _sources(repos, generation_files, workspace)
    catalog = Catalog(repositories, files, workspace)
    catalog.load()
    if catalog.session is None:
        raise nothing_loaded(catalog)
    try:
        click.echo(run_tool(catalog, tool, args))
    except KivgraphError as err:
        click.echo(f"{err.code}: {err}", err=True)
        raise SystemExit(command_error(err).exit_code) from None


def main() -> None:
    cli()
