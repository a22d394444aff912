"""Sharded indexing: `kivgraph index --shard K/N` runs the type checkers of one shard of the plan's
units and writes their outputs to a shard file; `kivgraph merge` checks that the shards are the N
of one commit, then indexes the commit with their outputs standing in for the checkers, so the
generation is the one a single run makes."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import cbor2
import zstandard

from kivgraph import __version__
from kivgraph.errors import InvalidArgumentError
from kivgraph.indexing import Progress, analyze_units, index_snapshot, snapshot_at
from kivgraph.model import Generation, InvisibleScope, Language
from kivgraph.plan import plan_snapshot
from kivgraph.scip.analyzers import ANALYZERS
from kivgraph.scip.index import ScipIndexError, load_index
from kivgraph.scip.ingest import LOCALS_FOLLOWED
from kivgraph.scip.run import AnalyzerRun, Project

MAGIC = b"KIVGRAPH-SHARD-1\n"
MAX_EXPANSION = 64
"""A shard may decompress to at most this many times its size (SCIP outputs compress 5–10×)."""
MAX_BYTES = 2 << 30


@dataclass(frozen=True, slots=True)
class Shard:
    repository: str
    commit: str
    tree: str
    number: int
    count: int
    languages: frozenset[Language] | None
    units: tuple[str, ...]
    runs: tuple[AnalyzerRun, ...]
    source: str
    """Where it was read from, for messages."""


def parse_shard(value: str) -> tuple[int, int]:
    """`K/N` → (K, N), 1 ≤ K ≤ N."""
    number, _, count = value.partition("/")
    if not (number.isdigit() and count.isdigit()) or not 1 <= int(number) <= int(count):
        raise InvalidArgumentError(f"--shard takes K/N with 1 ≤ K ≤ N (for example 2/4), not {value!r}")
    return int(number), int(count)


def index_shard(path: str, revision: str, number: int, count: int, languages: frozenset[Language] | None,
                out: str) -> Shard:  # fmt: skip
    """Run the type checkers of shard `number` of `count` of the commit's plan; write the shard file."""
    snap = snapshot_at(path, revision)
    units = tuple(u.id for u in plan_snapshot(snap, languages).shards(count)[number - 1])
    runs = tuple(analyze_units(snap, frozenset(units), languages))
    shard = Shard(snap.repository, snap.commit, snap.tree, number, count, languages, units, runs, out)
    Path(out).write_bytes(encode(shard))
    return shard


def encode(shard: Shard) -> bytes:
    runs = [{"analyzer": r.project.spec.name, "root": r.project.root, "language": r.project.language.value,
             "seconds": r.seconds, "output": r.output if r.index is not None else None,
             "invisible": [[s.reason, s.language.value, s.scope, s.path, s.detail] for s in r.invisible],
             "local_modules": [list(m) for m in r.local_modules]} for r in shard.runs]  # fmt: skip
    body = {"kivgraph": __version__, "repository": shard.repository, "commit": shard.commit, "tree": shard.tree,
            "shard": [shard.number, shard.count], "units": list(shard.units), "runs": runs,
            "languages": None if shard.languages is None else sorted(x.value for x in shard.languages)}  # fmt: skip
    return MAGIC + zstandard.ZstdCompressor(level=3).compress(cbor2.dumps(body))


def read_shard(path: str) -> Shard:
    """A shard file, every field checked: it is an artifact from another machine, so untrusted."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise InvalidArgumentError(f"cannot read the shard {path}: {err.strerror}") from err
    if not data.startswith(MAGIC):
        raise InvalidArgumentError(f"{path} is not a kivgraph shard file (write one with `kivgraph index --shard K/N`)")
    try:
        raw = zstandard.ZstdDecompressor().decompress(
            data[len(MAGIC) :], max_output_size=min(MAX_BYTES, MAX_EXPANSION * len(data))
        )  # fmt: skip
        body = cbor2.loads(raw)
        return _shard(body, path)
    except (zstandard.ZstdError, cbor2.CBORDecodeError, ValueError, KeyError, TypeError) as err:
        raise InvalidArgumentError(f"the shard {path} is corrupt ({type(err).__name__}: {err})") from err


def _shard(body: object, path: str) -> Shard:
    fields = _object(body, "the shard")
    number, count = (_number(x) for x in _list(fields["shard"], "shard"))
    if number > count:
        raise ValueError(f"shard {number}/{count}")
    names = fields["languages"]
    languages = None if names is None else frozenset(Language(_text(x)) for x in _list(names, "languages"))
    runs: list[AnalyzerRun] = []
    for item in _list(fields["runs"], "runs"):
        run = _object(item, "a run")
        spec = next((a for a in ANALYZERS if a.name == _text(run["analyzer"])), None)
        if spec is None:
            raise ValueError(f"unknown analyzer {run['analyzer']!r}")
        project = Project(spec, _text(run["root"]), Language(_text(run["language"])))
        scopes = [[_text(x) for x in _list(item, "a scope")] for item in _list(run["invisible"], "invisible")]
        invisible = tuple(InvisibleScope(r, Language(lang), scope, where, detail)
                          for r, lang, scope, where, detail in scopes)  # fmt: skip
        pairs = [[_text(x) for x in _list(item, "a module")] for item in _list(run["local_modules"], "modules")]
        modules = tuple((module, directory) for module, directory in pairs)
        output = run["output"]
        index = None
        if output is not None:
            if not isinstance(output, bytes):
                raise ValueError("a run's output is not bytes")
            try:
                index = load_index(output, f"{spec.name} output for {project.root or '.'} in {path}",
                                   spec.provenance in LOCALS_FOLLOWED)  # fmt: skip
            except ScipIndexError as err:
                raise ValueError(str(err)) from err
        seconds = run["seconds"]
        if not isinstance(seconds, int | float):
            raise ValueError("a run's seconds is not a number")
        runs.append(AnalyzerRun(project, index, float(seconds), invisible, modules))
    return Shard(_text(fields["repository"]), _text(fields["commit"]), _text(fields["tree"]), number, count,
                 languages, tuple(_text(u) for u in _list(fields["units"], "units")), tuple(runs), path)  # fmt: skip


def _object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a map")
    return cast(dict[str, Any], value)


def _list(value: object, what: str) -> list[object]:
    if not isinstance(value, list):
        raise ValueError(f"{what} is not a list")
    return cast(list[object], value)


def _number(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"expected a positive integer, found {value!r}")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, found {type(value).__name__}")
    return value


def merge(path: str, shards: Sequence[Shard], progress: Progress | None = None, jobs: int | None = None,
          ) -> Generation:  # fmt: skip
    """The generation of the shards' commit (read with `read_shard`), indexed with their type
    checkers' outputs: refused unless they are the N shards of one plan of that commit, each once."""
    if not shards:
        raise InvalidArgumentError("merge needs the shard files of `kivgraph index --shard K/N`")
    first = shards[0]
    for shard in shards[1:]:
        if (shard.commit, shard.count, shard.languages) != (first.commit, first.count, first.languages):
            raise InvalidArgumentError(
                f"{shard.source} is shard {shard.number}/{shard.count} of commit {shard.commit[:12]}, but "
                f"{first.source} is {first.number}/{first.count} of {first.commit[:12]}, with the same languages: "
                "shards of one run are merged together"
            )
    seen: dict[int, str] = {}
    for shard in shards:
        if shard.number in seen:
            raise InvalidArgumentError(
                f"shard {shard.number}/{shard.count} is given twice: {seen[shard.number]} and {shard.source}"
            )
        seen[shard.number] = shard.source
    missing = [f"{k}/{first.count}" for k in range(1, first.count + 1) if k not in seen]
    if missing:
        raise InvalidArgumentError(f"shard {', '.join(missing)} is missing: merge needs all {first.count}")
    snap = snapshot_at(path, first.commit)
    if snap.tree != first.tree:
        raise InvalidArgumentError(
            f"the shards index tree {first.tree[:12]}, but commit {first.commit[:12]} here has {snap.tree[:12]}"
        )
    planned = plan_snapshot(snap, first.languages).shards(first.count)
    for shard in shards:
        expected = tuple(u.id for u in planned[shard.number - 1])
        if shard.units != expected:
            raise InvalidArgumentError(
                f"{shard.source} planned other units for shard {shard.number}/{shard.count} than this kivgraph "
                "plans for the commit; index every shard with the same version"
            )
    runs = [run for shard in shards for run in shard.runs]
    return index_snapshot(snap, first.languages, progress, jobs, (), False, runs)
