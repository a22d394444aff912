"""SCIP ingestion end to end: real repositories, real indexers where installed, and a hand-built
index that runs everywhere."""

from kivgraph.indexing import index_repository
from kivgraph.languages.resolve import Facts
from kivgraph.model import Confidence, Edge, EdgeKind, Language, Provenance, Unresolved
from kivgraph.scip import scip_subset_pb2 as pb
from kivgraph.scip.index import TextEncoding, load_index
from kivgraph.scip.ingest import Ingested, SourceText, replace_covered
from tests.scip.analyzers import require, run_indexer

ANIMALS = {
    "tsconfig.json": '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n',
    "src/animal.ts": (
        "export interface Animal {\n  sound(): string;\n}\n\n"
        "export class Dog implements Animal {\n  sound(): string {\n    return 'woof';\n  }\n}\n\n"
        "export function speak(a: Animal): string {\n  return a.sound();\n}\n"
    ),
    "src/main.ts": (
        'import { Dog, speak } from "./animal";\n\n'
        "export function main(): string {\n  const d = new Dog();\n  return speak(d) + d.sound();\n}\n"
    ),
}


def named_edges(generation):
    names = {s.key: s.qualified_name for s in generation.symbols}
    return {(names[e.source], e.kind, names[e.target], e.confidence) for e in generation.edges}


def test_scip_typescript_makes_calls_exact_and_lands_interface_calls_on_the_interface(make_repo, tmp_path):
    scip_typescript = require("scip-typescript")
    repo = make_repo(ANIMALS)
    output = tmp_path / "index.scip"
    run_indexer([scip_typescript, "index", "--output", str(output)], repo.path)
    generation = index_repository(str(repo.path), scip_indexes=(load_index(output.read_bytes(), str(output)),))
    edges = named_edges(generation)
    exact = Confidence.EXACT_TYPECHECKED
    assert ("speak", EdgeKind.CALLS_DIRECT, "Animal.sound", exact) in edges
    assert ("Dog.sound", EdgeKind.IMPLEMENTS, "Animal.sound", exact) in edges
    assert ("Dog", EdgeKind.IMPLEMENTS, "Animal", exact) in edges
    assert ("main", EdgeKind.CALLS_DIRECT, "Dog.sound", exact) in edges
    assert ("main", EdgeKind.CALLS_DIRECT, "speak", exact) in edges
    assert ("src.main", EdgeKind.IMPORTS_SYMBOL, "Dog", exact) in edges
    assert not any(e.confidence is Confidence.CANDIDATE for e in generation.edges)
    assert all(e.provenance is Provenance.SCIP_TYPESCRIPT for e in generation.edges if e.kind is not EdgeKind.METHOD_OF)
    assert ("scip-typescript", "0.4.0") in generation.header.analyzers


def test_an_index_replaces_candidates_only_in_the_files_it_covers(make_repo):
    repo = make_repo(
        {
            "lib.py": "def helper():\n    return 1\n",
            "a.py": "from lib import helper\n\n\ndef run():\n    return helper()\n",
            "b.py": "from lib import helper\n\n\ndef other():\n    return helper()\n",
        }
    )
    message = pb.Index()
    message.metadata.tool_info.name = "scip-python"
    message.metadata.tool_info.version = "0.6.6"
    symbol = "scip-python python demo 0.0.0 lib/helper()."
    for path, occurrences in {
        "lib.py": [([0, 4, 10], 1)],
        "a.py": [([0, 16, 22], 2), ([4, 11, 17], 8)],
    }.items():
        document = message.documents.add()
        document.relative_path = path
        for span, role in occurrences:
            occurrence = document.occurrences.add()
            occurrence.range.extend(span)
            occurrence.symbol = symbol
            occurrence.symbol_roles = role
    generation = index_repository(str(repo.path), scip_indexes=(load_index(message.SerializeToString()),))
    edges = named_edges(generation)
    assert ("run", EdgeKind.CALLS_DIRECT, "helper", Confidence.EXACT_TYPECHECKED) in edges
    assert ("a", EdgeKind.IMPORTS_SYMBOL, "helper", Confidence.EXACT_TYPECHECKED) in edges
    # b.py is not in the index: the fallback's candidate edge stands.
    assert ("other", EdgeKind.CALLS_DIRECT, "helper", Confidence.CANDIDATE) in edges
    assert not any(e.confidence is Confidence.CANDIDATE and e.file == "a.py" for e in generation.edges)


def test_uses_of_symbols_the_index_does_not_define_become_external_references(make_repo):
    repo = make_repo({"a.py": "import os\n\n\ndef run():\n    return os.getcwd()\n"})
    message = pb.Index()
    message.metadata.tool_info.name = "scip-python"
    document = message.documents.add()
    document.relative_path = "a.py"
    occurrence = document.occurrences.add()
    occurrence.range.extend([4, 14, 20])
    occurrence.symbol = "scip-python python python-stdlib 3.11 os/getcwd()."
    occurrence.symbol_roles = 8
    generation = index_repository(str(repo.path), scip_indexes=(load_index(message.SerializeToString()),))
    [external] = [x for x in generation.external_references if x.provenance is Provenance.SCIP_PYTHON]
    assert (external.package, external.symbol, external.manager, external.version, external.line) == (
        "python-stdlib", "os.getcwd", "python", "3.11", 5,
    )  # fmt: skip


def test_scip_positions_become_byte_offsets_in_ascii_and_non_ascii_sources():
    ascii_only = SourceText.of(b"ab\ncd\n")
    assert ascii_only.byte(1, 1, TextEncoding.UTF8) == 4
    assert ascii_only.byte(1, 9, TextEncoding.UTF8) == 6  # past the line's end: the next line's start
    assert ascii_only.byte(5, 0, TextEncoding.UTF8) == 6  # past the last line: the end
    mixed = SourceText.of("a\nxé y\n\U0001f600x\n".encode())
    assert mixed.byte(0, 1, TextEncoding.UTF8) == 1  # an ASCII line of a file that is not
    assert mixed.byte(1, 3, TextEncoding.UTF8) == 6  # é is one character of two bytes
    assert mixed.byte(2, 1, TextEncoding.UTF8) == 12  # the emoji is one character…
    assert mixed.byte(2, 2, TextEncoding.UTF16) == 12  # …and two UTF-16 code units


def test_a_line_where_the_fallback_lost_the_thread_keeps_none_of_its_edges_held_or_not():
    """Found on gofiber/contrib: where the syntax layer misread a receiver (`c.Status()` on what it
    took for a websocket.Conn), its edge to Conn says only where its path stopped. One run kept it
    as an unsettled use; a shard, which held the line's record for a name declared out of its sight,
    did not — and the merge lacked two edges. Neither keeps it now, held or not."""
    via = Edge("NEW", "CONN", EdgeKind.REFERENCES, Confidence.CANDIDATE, Provenance.TREE_SITTER, "s/s.go", 9)
    call = Edge("NEW", "HELPER", EdgeKind.CALLS_DIRECT, Confidence.CANDIDATE, Provenance.TREE_SITTER, "s/s.go", 12)
    record = Unresolved("MEMBER_NOT_FOUND", Language.GO, "s/s.go", 9, "", "Status", "NEW", "")
    declared = {"CONN": ("w/w.go", "Conn"), "HELPER": ("h/h.go", "Helper")}.get
    ingested = Ingested(Facts([], [], []), frozenset({"s/s.go"}), frozenset({("s/s.go", 9, "Status")}))
    one_run = replace_covered(Facts([via, call], [], [record]), ingested, declared)
    shard = replace_covered(Facts([call], [], [], [(via, "Status"), (record, "Status")]), ingested, declared)
    assert one_run.edges == [call]  # the type checker did not resolve Helper on line 12: it stays
    assert [row for row, _ in shard.held] == [] and shard.edges == [call]
