"""What scip-python leaves unsaid, filled in honestly: uses of `__slots__` fields reach the fields
(scip-python names the class), a call on a receiver declared `A | B` reaches each member's method,
names listed in `__all__` are exported, and an `@overload` set is one declaration.

One real repository, indexed with the real scip-python; edges are read from the generation, answers
through `kivgraph query` as a user would ask them.
"""

import json
from typing import Any

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.indexing import index_repository
from kivgraph.languages.python.extract import python_syntax
from kivgraph.model import Confidence, Generation, SymbolKind
from tests.conftest import Repo
from tests.scip.analyzers import require

Row = dict[str, Any]
SLOTS = """class Inner:
    __slots__ = ("lock", "count")

    def __init__(self) -> None:
        self.lock = 1
        self.count = 0

    def take(self) -> int:
        return self.lock


class Conn:
    __slots__ = ["inner"]

    def __init__(self, inner: Inner) -> None:
        self.inner = inner


def use(conn: Conn) -> int:
    return conn.inner.lock


def make() -> Inner:
    return Inner()
"""
SHAPES = """class Circle:
    def area(self) -> float:
        return 3.14

    def perimeter(self) -> float:
        return 6.28


class Square:
    def area(self) -> float:
        return 1.0

    def perimeter(self) -> float:
        return 4.0


class Base:
    def area(self) -> float:
        return 0.0


class Tri(Base):
    pass


def total(shape: Circle | Square) -> float:
    return shape.area()


def inherited(shape: "Circle | Tri") -> float:
    return shape.area()


def checked(shape: Circle | Square) -> float:
    if isinstance(shape, Square):
        return 0.0
    return shape.perimeter()
"""
API = """from pkg import slots
from pkg.shapes import Circle as Round

__all__ = ["Round", "slots", "helper", "LIMIT"]

LIMIT = 3


def helper() -> int:
    return LIMIT


def unlisted() -> int:
    return 1
"""
PARSE = """from typing import overload


@overload
def parse(raw: int) -> int: ...
@overload
def parse(raw: str) -> str: ...
def parse(raw: int | str) -> int | str:
    return raw


class Reader:
    @overload
    def read(self, n: int) -> bytes: ...
    @overload
    def read(self, n: None = None) -> str: ...
    def read(self, n: int | None = None) -> bytes | str:
        return b"" if n else ""


def run() -> int:
    return parse(1)
"""
FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": "",
    "pkg/slots.py": SLOTS,
    "pkg/shapes.py": SHAPES,
    "pkg/api.py": API,
    "pkg/parse.py": PARSE,
}
EXACT = Confidence.EXACT_TYPECHECKED
CERTAIN = Confidence.STRUCTURAL_CERTAIN
STRUCTURE = ("METHOD_OF", "CONTAINS")


class Indexed:
    def __init__(self, repo: Repo, generation: Generation) -> None:
        self.repo, self.generation = repo, generation
        name = {s.key: f"{s.file}:{'<module>' if s.kind is SymbolKind.MODULE else s.qualified_name}"
                for s in generation.symbols}  # fmt: skip
        self.edges: dict[tuple[str, str, str], Confidence] = {}
        for e in generation.edges:
            self.edges.setdefault((name[e.source], e.kind.value, name[e.target]), e.confidence)

    def edge(self, source: str, kind: str, target: str) -> Confidence | None:
        return self.edges.get((source, kind, target))

    def sources_of(self, target: str) -> set[tuple[str, str]]:
        """Every use of `target` (containment is structure, not a use)."""
        return {(source, kind) for source, kind, t in self.edges if t == target and kind not in STRUCTURE}

    def ask(self, tool: str, **arguments: object) -> Row:
        args = ["query", tool, "--repo", str(self.repo.path), "--json", json.dumps(arguments)]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        answer: Row = json.loads(result.stdout)
        return answer

    def references(self, path: str, qualified_name: str, **options: object) -> Row:
        return self.ask("find_references", repository="exactness", path=path, qualified_name=qualified_name,
                        view="full", **options)  # fmt: skip


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    require("scip-python")
    repo = Repo(tmp_path_factory.mktemp("python-exactness") / "exactness")
    repo.commit(FILES)
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert generation.invisible_scopes == ()
    result = CliRunner().invoke(cli, ["index", str(repo.path)])
    assert result.exit_code == 0, result.output
    return Indexed(repo, generation)


def rows(answer: Row) -> set[tuple[str, str, str]]:
    return {(r["qualified_name"], r["edge_kind"], r["confidence"]) for r in answer["results"]["references"]}


# -- __slots__ ---------------------------------------------------------------------------------------


def test_a_slots_entry_declares_a_field_of_its_class():
    syntax = python_syntax("pkg/slots.py", SLOTS.encode())
    fields = {(d.name, d.owner, d.name_line, d.name_column) for d in syntax.declarations if d.kind is SymbolKind.FIELD}
    assert fields == {("lock", "Inner", 2, 18), ("count", "Inner", 2, 26), ("inner", "Conn", 13, 18)}


def test_uses_of_slots_reach_the_field_not_the_class(indexed: Indexed):
    lock = "pkg/slots.py:Inner.lock"
    assert indexed.edge("pkg/slots.py:use", "REFERENCES", lock) is EXACT
    assert indexed.edge("pkg/slots.py:use", "REFERENCES", "pkg/slots.py:Conn.inner") is EXACT
    assert indexed.edge("pkg/slots.py:Inner.take", "REFERENCES", lock) is EXACT
    assert indexed.edge("pkg/slots.py:Inner.__init__", "REFERENCES", lock) is EXACT
    assert indexed.edge("pkg/slots.py:Conn.__init__", "REFERENCES", "pkg/slots.py:Conn.inner") is EXACT
    # Must not: scip-python's class symbol at `self.lock` / `conn.inner.lock` is not a use of the class.
    assert indexed.sources_of("pkg/slots.py:Inner") == {
        ("pkg/slots.py:Conn.__init__", "TYPE_USES"),
        ("pkg/slots.py:make", "TYPE_USES"),
        ("pkg/slots.py:make", "CALLS_DIRECT"),
    }
    assert ("pkg/slots.py:use", "REFERENCES") not in indexed.sources_of("pkg/slots.py:Conn")


def test_find_references_on_a_slot_lists_every_use_and_is_complete(indexed: Indexed):
    answer = indexed.references("pkg/slots.py", "Inner.lock")
    assert rows(answer) == {
        ("use", "REFERENCES", "EXACT_TYPECHECKED"),
        ("Inner.take", "REFERENCES", "EXACT_TYPECHECKED"),
        ("Inner.__init__", "REFERENCES", "EXACT_TYPECHECKED"),
    }
    assert answer["completeness"] == {"verdict": "COMPLETE"}
    on_class = indexed.references("pkg/slots.py", "Inner")
    assert {name for name, _, _ in rows(on_class)} == {"Conn.__init__", "make"}
    assert on_class["completeness"] == {"verdict": "COMPLETE"}


# -- union receivers ---------------------------------------------------------------------------------


def test_a_call_on_a_union_receiver_reaches_every_member_that_declares_the_method(indexed: Indexed):
    assert indexed.edge("pkg/shapes.py:total", "CALLS_DIRECT", "pkg/shapes.py:Circle.area") is EXACT
    # Derived from the annotation, whose classes the type checker resolved: certain, not type-checked.
    assert indexed.edge("pkg/shapes.py:total", "CALLS_DIRECT", "pkg/shapes.py:Square.area") is CERTAIN
    # A member that inherits the method reaches the base's (quoted annotations count too).
    assert indexed.edge("pkg/shapes.py:inherited", "CALLS_DIRECT", "pkg/shapes.py:Circle.area") is EXACT
    assert indexed.edge("pkg/shapes.py:inherited", "CALLS_DIRECT", "pkg/shapes.py:Base.area") is CERTAIN
    # Must not: a class the annotation does not name.
    assert indexed.edge("pkg/shapes.py:total", "CALLS_DIRECT", "pkg/shapes.py:Base.area") is None
    assert indexed.edge("pkg/shapes.py:inherited", "CALLS_DIRECT", "pkg/shapes.py:Square.area") is None


def test_find_references_on_the_other_member_of_a_union_is_complete(indexed: Indexed):
    answer = indexed.references("pkg/shapes.py", "Square.area")
    assert rows(answer) == {("total", "CALLS_DIRECT", "STRUCTURAL_CERTAIN")}
    assert answer["completeness"] == {"verdict": "COMPLETE"}


def test_a_receiver_the_function_narrows_is_not_guessed_but_a_blind_spot(indexed: Indexed):
    # After `if isinstance(shape, Square): return`, pyright sees a Circle: no edge to Square.perimeter…
    assert indexed.edge("pkg/shapes.py:checked", "CALLS_DIRECT", "pkg/shapes.py:Circle.perimeter") is EXACT
    assert indexed.edge("pkg/shapes.py:checked", "CALLS_DIRECT", "pkg/shapes.py:Square.perimeter") is None
    # …and since syntax cannot tell in general, the answer about it says it may be incomplete.
    answer = indexed.references("pkg/shapes.py", "Square.perimeter")
    assert rows(answer) == set()
    verdict = answer["completeness"]
    assert verdict["verdict"] == "LOWER_BOUND"
    assert [spot["reason"] for spot in verdict["blind_spots"]] == ["RECEIVER_TYPE_UNION"]


# -- __all__ -----------------------------------------------------------------------------------------


def test_names_listed_in_dunder_all_are_exported_from_the_module(indexed: Indexed):
    module = "pkg/api.py:<module>"
    assert indexed.edge(module, "EXPORTS", "pkg/api.py:helper") is CERTAIN
    assert indexed.edge(module, "EXPORTS", "pkg/api.py:LIMIT") is CERTAIN
    assert indexed.edge(module, "EXPORTS", "pkg/shapes.py:Circle") is CERTAIN  # bound by `import … as Round`
    assert indexed.edge(module, "EXPORTS", "pkg/slots.py:<module>") is CERTAIN
    # Must not: what the list does not name, and nothing from another module's scope.
    assert indexed.edge(module, "EXPORTS", "pkg/api.py:unlisted") is None
    assert indexed.edge(module, "EXPORTS", "pkg/shapes.py:Square") is None
    assert {source for source, kind, _ in indexed.edges if kind == "EXPORTS"} == {module}


def test_find_references_counts_the_export_as_a_use(indexed: Indexed):
    answer = indexed.references("pkg/api.py", "helper", edge_kinds=["EXPORTS"])
    [row] = answer["results"]["references"]
    assert (row["kind"], row["file_path"], row["edge_kind"], row["confidence"]) == (
        "module", "pkg/api.py", "EXPORTS", "STRUCTURAL_CERTAIN"
    )  # fmt: skip
    assert answer["completeness"] == {"verdict": "COMPLETE"}


# -- @overload ---------------------------------------------------------------------------------------


def test_an_overload_set_is_one_declaration_keeping_every_signature(indexed: Indexed):
    parse = [s for s in indexed.generation.symbols if s.qualified_name == "parse"]
    assert len(parse) == 1
    answer = indexed.ask("get_symbol", repository="exactness", path="pkg/parse.py", qualified_name="parse")
    symbol = answer["results"]
    assert (symbol["kind"], symbol["start_line"], symbol["end_line"]) == ("function", 4, 9)
    assert symbol["signature"] == (
        "def parse(raw: int | str) -> int | str; @overload def parse(raw: int) -> int; "
        "@overload def parse(raw: str) -> str"
    )
    method = indexed.ask("get_symbol", repository="exactness", path="pkg/parse.py", qualified_name="Reader.read")
    assert method["results"]["signature"].startswith("def read(self, n: int | None = None) -> bytes | str; @overload")


def test_overload_stubs_are_not_references_to_the_implementation(indexed: Indexed):
    assert indexed.sources_of("pkg/parse.py:parse") == {("pkg/parse.py:run", "CALLS_DIRECT")}
    assert indexed.sources_of("pkg/parse.py:Reader.read") == set()
    answer = indexed.references("pkg/parse.py", "parse")
    assert rows(answer) == {("run", "CALLS_DIRECT", "EXACT_TYPECHECKED")}
    assert answer["completeness"] == {"verdict": "COMPLETE"}
    assert indexed.references("pkg/parse.py", "Reader.read")["results"]["references"] == []
