"""Joining generations column by column (kivgraph/store/join.py): pieces of one generation, each the
rows of some of its files, join into exactly what the codec writes for the whole — the same bytes —
whatever the split; rows added to a piece are placed and not doubled; pieces that do not make one
generation are refused by name."""

import random
from dataclasses import replace

import pytest

from kivgraph.indexing import index_repository
from kivgraph.model import Edge, Generation
from kivgraph.store import codec
from kivgraph.store.join import JoinError, Piece, join
from tests.conftest import Repo

TREE: dict[str, str | bytes] = {
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "lib/lib.go": "package lib\n\n// Do does.\nfunc Do() int { return 1 }\n\ntype T struct{}\n\nfunc (T) M() {}\n",
    "cmd/main.go": 'package main\n\nimport (\n\t"fmt"\n\t"example.com/m/lib"\n)\n\n'
    "func main() { fmt.Println(lib.Do()) }\n",
    "web/a.ts": "export function a(): number { return b() }\nexport function b(): number { return 1 }\n",
    "web/c.ts": "import { a } from './a'\nexport const c = a() + missing()\n",
    "py/m.py": "import os\n\ndef f():\n    return os.path.join(g(), 'x')\n\ndef g():\n    return undefined_name\n",
    "bad.py": "def broken(:\n",
}


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Generation:
    repo = Repo(tmp_path_factory.mktemp("join") / "repo")
    repo.commit(TREE)
    return index_repository(str(repo.path), run_analyzers=False)


def split(g: Generation, count: int, seed: int) -> list[frozenset[str]]:
    chance = random.Random(seed)
    groups: list[set[str]] = [set() for _ in range(count)]
    for f in g.files:
        groups[chance.randrange(count)].add(f.path)
    return [frozenset(x) for x in groups]


@pytest.mark.parametrize(("count", "seed"), [(1, 0), (2, 1), (3, 2), (4, 3)])
def test_pieces_of_a_generation_join_into_its_very_bytes(whole: Generation, count: int, seed: int):
    assert whole.unresolved and whole.external_references and whole.edges  # rows of every kind
    columns = codec.columns_of(whole)
    pieces = [Piece(columns, files, fileless=k == count - 1) for k, files in enumerate(split(whole, count, seed))]
    assert codec.encode(join(whole.header, pieces, whole.invisible_scopes)) == codec.encode(whole)


def test_each_piece_may_hold_only_its_files_and_what_they_point_at(whole: Generation):
    """A piece holds its files and those their rows point at (a reused ancestor, a shard's reach):
    the rows of the rest stay out, and what a row points at is found in the piece that gives it."""
    groups = split(whole, 2, 7)
    pieces: list[Piece] = []
    for k, files in enumerate(groups):
        keys = {s.key for s in whole.symbols if s.file in files}
        reached = {s.file for e in whole.edges if e.file in files for s in whole.symbols if s.key == e.target}
        kept = files | reached
        own = replace(whole, files=tuple(f for f in whole.files if f.path in kept),
                      symbols=tuple(s for s in whole.symbols if s.file in kept),
                      edges=tuple(e for e in whole.edges if e.file in files or e.source in keys),
                      external_references=tuple(x for x in whole.external_references if x.file in files),
                      unresolved=tuple(u for u in whole.unresolved if u.file in files))  # fmt: skip
        pieces.append(Piece(codec.columns_of(own), files, fileless=k == 1))
    assert codec.encode(join(whole.header, pieces, whole.invisible_scopes)) == codec.encode(whole)


def test_rows_added_to_a_piece_are_placed_in_order_and_an_edge_already_there_is_not_doubled(whole: Generation):
    edge = next(e for e in whole.edges if e.file)
    record = next(u for u in whole.unresolved if u.file)
    without = replace(whole, edges=tuple(e for e in whole.edges if e != edge),
                      unresolved=tuple(u for u in whole.unresolved if u != record))  # fmt: skip
    files = frozenset(f.path for f in whole.files)
    piece = Piece(codec.columns_of(without), files, True, edges=[edge, edge], unresolved=[record])
    assert codec.encode(join(whole.header, [piece], whole.invisible_scopes)) == codec.encode(whole)
    again = Piece(codec.columns_of(whole), files, True, edges=[edge])
    canonical = codec.rows(codec.columns_of(whole)).edges
    assert codec.rows(join(whole.header, [again], whole.invisible_scopes)).edges == canonical


def test_pieces_that_do_not_make_one_generation_are_refused_by_name(whole: Generation):
    columns = codec.columns_of(whole)
    files = frozenset(f.path for f in whole.files)
    with pytest.raises(JoinError, match="is given by two pieces"):
        join(whole.header, [Piece(columns, files), Piece(columns, files)], ())
    file_of = {s.key: s.file for s in whole.symbols}
    target = next(e for e in whole.edges if file_of[e.target] != e.file)
    callee = next(s for s in whole.symbols if s.key == target.target)
    with pytest.raises(JoinError, match="points at a row of symbols"):  # the use's target is in no piece
        join(whole.header, [Piece(columns, files - {callee.file}, True)], ())
    stray = Edge(target.source, "A" * 52, target.kind, target.confidence, target.provenance, target.file, 1)
    with pytest.raises(JoinError, match="ends at a symbol in no piece's files"):
        join(whole.header, [Piece(columns, files, True, edges=[stray])], ())
    kinds = [*columns.vocabularies["edge_kind"], "TELEPORTS"]  # a kind a newer kivgraph wrote
    foreign = replace(columns, vocabularies={**columns.vocabularies, "edge_kind": kinds})
    with pytest.raises(JoinError, match="TELEPORTS"):
        join(whole.header, [Piece(foreign, files, True)], ())
    older = replace(columns, tables={**columns.tables, "files": {k: v for k, v in columns.tables["files"].items()
                                                                 if k != "role"}})  # fmt: skip
    with pytest.raises(JoinError, match="files.role: an older kivgraph"):
        join(whole.header, [Piece(older, files, True)], ())


def test_rows_sorted_by_text_ranks_are_the_rows_sorted_by_their_texts_ties_kept_in_order():
    """The merge sorts the rows it adds with the rows it takes as the codec sorts rows, by texts:
    each text is ranked once and the rows sorted by ranks, which must order them as sorting the
    texts does — equal texts under different numbers, numbers compared as numbers, ties in order."""
    import random

    import numpy as np

    from kivgraph.store.join import _sorted_by_text

    rng = random.Random(15)
    words = ["", "a", "b", "ab", "B", "é", "a/b", "a.b", "z"]
    strings = [rng.choice(words) + rng.choice(words) for _ in range(40)]  # equal texts under several numbers
    rows = 500
    table = {"name": np.array([rng.randrange(40) for _ in range(rows)], dtype=np.int64),
             "line": np.array([rng.randrange(-1, 3) for _ in range(rows)], dtype=np.int64),
             "other": np.array([rng.randrange(40) for _ in range(rows)], dtype=np.int64),
             "row": np.arange(rows, dtype=np.int64)}  # fmt: skip
    text = strings.__getitem__
    got = _sorted_by_text(table, [("name", text), ("line", None), ("other", text)])
    expected = sorted(range(rows), key=lambda r: (strings[table["name"][r]], table["line"][r],
                                                  strings[table["other"][r]]))  # fmt: skip
    assert got["row"].tolist() == expected
