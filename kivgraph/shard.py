"""Sharded indexing: `kivgraph index --shard K/N` indexes one shard of the plan's units (with the
units they depend on, for their declarations) and writes their rows to a shard file; `kivgraph
merge` checks that the shards are the N of one commit and composes their rows into the generation
a single run makes, deciding the rows held for a name once every declaration is known."""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import cbor2
import zstandard

from kivgraph import __version__
from kivgraph.compose import Given, PartsDisagree, compose, owner_of_scope
from kivgraph.errors import InvalidArgumentError, KivgraphError
from kivgraph.model import Confidence, Edge, EdgeKind, Language, Provenance, Unresolved
from kivgraph.plan import plan_snapshot
from kivgraph.scip.late import LateDefinition, LateGo, LateRun, LateUse
from kivgraph.scip.projects import require_analyzers_ran
from kivgraph.snapshot import snapshot_at
from kivgraph.store import codec
from kivgraph.store.codec import Columns

if TYPE_CHECKING:
    from kivgraph.indexing import Progress
    from kivgraph.languages.resolve import Held

MAGIC = b"KIVGRAPH-SHARD-3\n"
MAX_EXPANSION = 64
"""A shard may decompress to at most this many times its size."""
MAX_BYTES = 2 << 30


@dataclass(frozen=True, slots=True)
class Timing:
    """One type checker's run in a shard: on one of its units, or on a Go module they depend on."""

    unit: str
    seconds: float
    indexed: bool
    """Whether it produced an index (else its blind spot is recorded)."""
    own: bool
    """Whether the unit is the shard's own (else it ran so the shard's uses of it are exact)."""


@dataclass(frozen=True, slots=True)
class Shard:
    repository: str
    commit: str
    tree: str
    number: int
    count: int
    languages: frozenset[Language] | None
    analyzers: bool
    """Whether the type checkers ran (else the syntax layer alone, `--no-analyzers`)."""
    units: tuple[str, ...]
    generation: Columns
    """Every file the shard parsed (as the codec stores them); those of `units` are its to give."""
    held: "Held"
    timings: tuple[Timing, ...]
    source: str
    """Where it was read from, for messages."""
    late: LateGo | None = None
    """Its Go modules' uses of sibling modules other shards type-check, and its modules'
    declarations others' uses may name (kivgraph/scip/late.py)."""


def parse_shard(value: str) -> tuple[int, int]:
    """`K/N` → (K, N), 1 ≤ K ≤ N."""
    number, _, count = value.partition("/")
    if not (number.isdigit() and count.isdigit()) or not 1 <= int(number) <= int(count):
        raise InvalidArgumentError(f"--shard takes K/N with 1 ≤ K ≤ N (for example 2/4), not {value!r}")
    return int(number), int(count)


def index_shard(path: str, revision: str, number: int, count: int, languages: frozenset[Language] | None,
                out: str, analyzers: bool = True, progress: "Progress | None" = None,
                jobs: int | None = None, require_analyzers: bool = False) -> Shard:  # fmt: skip
    """Index shard `number` of `count` of the commit's plan; write the shard file (with
    `require_analyzers`, only when every type checker of its own units ran)."""
    from kivgraph.units import Dependencies, index_units  # indexing's machinery: a merge never loads it

    snap = snapshot_at(path, revision)
    plan = plan_snapshot(snap, languages)
    depends = Dependencies(plan, snap)
    units = tuple(u.id for u in plan.shards(count, depends.of)[number - 1])
    part = index_units(snap, plan, units, depends, languages, progress, jobs, analyzers, None, late_go=True)
    if require_analyzers:
        own = [
            s for s in part.generation.invisible_scopes if (u := owner_of_scope(plan, s)) is not None and u.id in units
        ]
        require_analyzers_ran(own, "no shard file was written")
    timings = tuple(Timing(r.project.id, r.seconds, r.index is not None, r.project.id in units) for r in part.runs)
    shard = Shard(snap.repository, snap.commit, snap.tree, number, count, languages, analyzers, units,
                  codec.columns_of(part.generation), part.held, timings, out, part.late)  # fmt: skip
    data = encode(shard)
    temporary = Path(f"{out}.tmp")
    try:
        temporary.write_bytes(data)
        temporary.replace(out)
    except OSError as err:
        temporary.unlink(missing_ok=True)
        raise KivgraphError(f"cannot write the shard to {out}: {err.strerror}") from err
    return shard


def encode(shard: Shard) -> bytes:
    edges = [[*_edge_fields(e), name] for e, name in shard.held if isinstance(e, Edge)]
    unresolved = [[u.reason, u.language.value, u.file, u.line, u.requested_package, u.requested_symbol, u.source,
                   u.detail, name] for u, name in shard.held if isinstance(u, Unresolved)]  # fmt: skip
    body = {"kivgraph": __version__, "repository": shard.repository, "commit": shard.commit, "tree": shard.tree,
            "shard": [shard.number, shard.count], "analyzers": shard.analyzers, "units": list(shard.units),
            "languages": None if shard.languages is None else sorted(x.value for x in shard.languages),
            "timings": [[t.unit, t.seconds, t.indexed, t.own] for t in shard.timings],
            "generation": codec.encode(shard.generation), "held_edges": edges,
            "held_unresolved": unresolved, "late": _late_fields(shard.late)}  # fmt: skip
    return MAGIC + zstandard.ZstdCompressor(level=3).compress(cbor2.dumps(body))


def read_shard(path: str) -> Shard:
    """A shard file, every field checked: it is an artifact from another machine, so untrusted."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise InvalidArgumentError(f"cannot read the shard {path}: {err.strerror}") from err
    if not data.startswith(MAGIC):
        older = data.startswith(b"KIVGRAPH-SHARD-")
        raise InvalidArgumentError(
            f"{path} is a shard file of another kivgraph version: index the shards again with this one"
            if older
            else f"{path} is not a kivgraph shard file (write one with `kivgraph index --shard K/N`)"
        )
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
    made_by = _text(fields["kivgraph"])
    if made_by != __version__:
        raise InvalidArgumentError(f"{path} was indexed by kivgraph {made_by}; this is {__version__}: "
                                   "index every shard with the version that merges them")  # fmt: skip
    number, count = (_number(x) for x in _list(fields["shard"], "shard"))
    if number > count:
        raise ValueError(f"shard {number}/{count}")
    names = fields["languages"]
    languages = None if names is None else frozenset(Language(_text(x)) for x in _list(names, "languages"))
    analyzers = fields["analyzers"]
    if not isinstance(analyzers, bool):
        raise ValueError("analyzers is not true or false")
    timings: list[Timing] = []
    for item in _list(fields["timings"], "timings"):
        unit, seconds, indexed, own = _list(item, "a timing")
        if not isinstance(seconds, int | float) or not isinstance(indexed, bool) or not isinstance(own, bool):
            raise ValueError("a timing is not (unit, seconds, indexed, own)")
        timings.append(Timing(_text(unit), float(seconds), indexed, own))
    blob = fields["generation"]
    if not isinstance(blob, bytes):
        raise ValueError("its generation is not bytes")
    try:
        generation = codec.decode_columns(blob, f"the generation in the shard {path}")
    except KivgraphError as err:
        raise InvalidArgumentError(f"the shard {path} is corrupt: {err}") from err
    held: Held = []
    for item in _list(fields["held_edges"], "held edges"):
        *edge, name = _list(item, "a held edge")
        held.append((_edge(edge), _text(name)))
    for item in _list(fields["held_unresolved"], "held unresolved records"):
        reason, language, file, line, package, symbol, source, detail, name = _list(item, "a held record")
        record = Unresolved(_text(reason), Language(_text(language)), _text(file), _line(line), _text(package),
                            _text(symbol), None if source is None else _text(source), _text(detail))  # fmt: skip
        held.append((record, _text(name)))
    return Shard(_text(fields["repository"]), _text(fields["commit"]), _text(fields["tree"]), number, count,
                 languages, analyzers, tuple(_text(u) for u in _list(fields["units"], "units")), generation, held,
                 tuple(timings), path, _late(fields["late"]))  # fmt: skip


def _edge_fields(e: Edge) -> list[object]:
    return [e.source, e.target, e.kind.value, e.confidence.value, e.provenance.value, e.file, e.line]


def _edge(item: object) -> Edge:
    source, target, kind, confidence, provenance, file, line = _list(item, "an edge")
    return Edge(_text(source), _text(target), EdgeKind(_text(kind)), Confidence(_text(confidence)),
                Provenance(_text(provenance)), _text(file), _line(line))  # fmt: skip


def _late_fields(late: LateGo | None) -> dict[str, object] | None:
    if late is None:
        return None

    def definitions(run: LateRun) -> list[list[object]] | None:
        return None if run.definitions is None else [[d.symbol, d.key, d.callable, d.implemented]
                                                     for d in run.definitions]  # fmt: skip

    runs = [[run.root, [list(pair) for pair in run.local_modules], definitions(run)] for run in late.runs]
    uses = [[u.source, u.symbol, u.root, u.kind.value, u.file, u.line, u.relation, u.source_callable]
            for u in late.uses]  # fmt: skip
    return {"exported": sorted(late.exported), "runs": runs, "uses": uses,
            "awaiting": [_edge_fields(e) for e in late.awaiting]}  # fmt: skip


def _late(value: object) -> LateGo | None:
    if value is None:
        return None
    fields = _object(value, "its late uses")
    late = LateGo(frozenset(_text(x) for x in _list(fields["exported"], "exported modules")))
    for item in _list(fields["runs"], "runs"):
        root, modules, definitions = _list(item, "a run")
        pairs = tuple((_text(path), _text(directory)) for path, directory in (_list(m, "a module") for m in
                                                                               _list(modules, "modules")))  # fmt: skip
        given: tuple[LateDefinition, ...] | None = None
        if definitions is not None:
            given = tuple(_definition(d) for d in _list(definitions, "definitions"))
        late.runs.append(LateRun(_text(root), pairs, given))
    for item in _list(fields["uses"], "late uses"):
        source, symbol, root, kind, file, line, relation, source_callable = _list(item, "a late use")
        late.uses.append(LateUse(_text(source), _text(symbol), _text(root), EdgeKind(_text(kind)), _text(file),
                                 _line(line), _flag(relation), _flag(source_callable)))  # fmt: skip
    late.awaiting += [_edge(item) for item in _list(fields["awaiting"], "awaiting edges")]
    return late


def _definition(item: object) -> LateDefinition:
    symbol, key, callable_target, implemented = _list(item, "a definition")
    return LateDefinition(_text(symbol), None if key is None else _text(key), _flag(callable_target),
                          _flag(implemented))  # fmt: skip


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, found {value!r}")
    return value


def merge(path: str, shards: Sequence[Shard]) -> Columns:
    """The generation of the shards' commit (read with `read_shard`), composed of their rows
    (as the codec stores them): refused unless they are the N shards of that commit, each once, and
    split its units between them."""
    if not shards:
        raise InvalidArgumentError("merge needs the shard files of `kivgraph index --shard K/N`")
    first = shards[0]
    for shard in shards[1:]:
        if (shard.commit, shard.count, shard.languages, shard.analyzers) != (
            first.commit, first.count, first.languages, first.analyzers
        ):  # fmt: skip
            raise InvalidArgumentError(
                f"{shard.source} is shard {shard.number}/{shard.count} of commit {shard.commit[:12]}, but "
                f"{first.source} is {first.number}/{first.count} of {first.commit[:12]}, with the same languages "
                "and type checkers: shards of one run are merged together"
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
    plan = plan_snapshot(snap, first.languages)
    _check_partition(shards, {u.id for u in plan.units})
    tools = sorted({tool for shard in shards for tool in shard.generation.header.analyzers})
    header = replace(first.generation.header, analyzers=tuple(tools), remote_url=snap.remote_url,
                     created_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))  # fmt: skip
    parts = [Given(s.generation, frozenset(s.units), s.held, s.late) for s in shards]
    try:
        return compose(snap, plan, parts, header, first.languages, first.analyzers)
    except PartsDisagree as err:
        raise InvalidArgumentError(f"the shards do not make up the commit's tree: {err}") from err


def _check_partition(shards: Sequence[Shard], units: set[str]) -> None:
    """Every unit of the commit's plan is some shard's, and one shard's only: what composing their
    rows needs (which shard holds which unit is the shards' plan, checked when each was indexed)."""
    held: dict[str, str] = {}
    for shard in shards:
        for unit in shard.units:
            if unit not in units:
                raise InvalidArgumentError(
                    f"{shard.source} stands for {unit}, which is not a unit of the commit as this kivgraph plans "
                    "it: index every shard with the same version"
                )
            if unit in held:
                raise InvalidArgumentError(f"{unit} is in two shards, {held[unit]} and {shard.source}")
            held[unit] = shard.source
    missing = sorted(units - held.keys())
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InvalidArgumentError(f"no shard stands for {missing[0]}{more}: index every shard of one plan with the "
                                   "same version")  # fmt: skip


def _line(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"expected a line number, found {value!r}")
    return value


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
