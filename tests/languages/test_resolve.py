"""The shared fallback resolver, exercised through real repositories (Python; TypeScript for its re-exports)."""

from kivgraph.indexing import index_repository
from kivgraph.model import EXACT_CONFIDENCES, Confidence, EdgeKind, Provenance


def edges_of(generation):
    names = {s.key: f"{s.file}:{s.qualified_name}" for s in generation.symbols}
    return {(names[e.source], e.kind, names[e.target]) for e in generation.edges}


def test_a_call_binds_to_the_imported_declaration_and_never_to_its_twin(make_repo):
    repo = make_repo(
        {
            "a.py": "def load():\n    pass\n",
            "b.py": "def load():\n    pass\n",
            "main.py": "from a import load\n\n\ndef run():\n    load()\n",
        }
    )
    edges = edges_of(index_repository(str(repo.path)))
    assert ("main.py:run", EdgeKind.CALLS_DIRECT, "a.py:load") in edges
    assert not any(target == "b.py:load" for _, _, target in edges)


def test_two_wildcard_providers_of_one_name_are_never_guessed_between(make_repo):
    repo = make_repo(
        {
            "a.py": "def load():\n    pass\n",
            "b.py": "def load():\n    pass\n",
            "main.py": "from a import *\nfrom b import *\n\n\ndef run():\n    load()\n",
        }
    )
    generation = index_repository(str(repo.path))
    assert not any(kind is EdgeKind.CALLS_DIRECT for _, kind, _ in edges_of(generation))
    [ambiguous] = [u for u in generation.unresolved if u.reason == "AMBIGUOUS_DECLARATION"]
    assert ambiguous.requested_symbol == "load" and ambiguous.line == 6
    assert "a.py:1" in ambiguous.detail and "b.py:1" in ambiguous.detail


def test_a_parameter_shadows_the_module_function_of_the_same_name(make_repo):
    repo = make_repo({"m.py": "def handler():\n    pass\n\n\ndef run(handler):\n    handler()\n"})
    assert not any(kind is EdgeKind.CALLS_DIRECT for _, kind, _ in edges_of(index_repository(str(repo.path))))


def test_a_method_call_on_an_untyped_receiver_is_a_blind_spot_not_an_edge(make_repo):
    repo = make_repo(
        {
            "m.py": "class Engine:\n    def start(self):\n        pass\n\n\ndef run(thing):\n    thing.start()\n",
        }
    )
    generation = index_repository(str(repo.path))
    assert not any(kind is EdgeKind.CALLS_DIRECT for _, kind, _ in edges_of(generation))
    [blind] = [u for u in generation.unresolved if u.reason == "RECEIVER_TYPE_UNKNOWN"]
    assert (blind.requested_symbol, blind.line, blind.file) == ("start", 7, "m.py")


def test_a_method_name_nobody_declares_leaves_no_record(make_repo):
    repo = make_repo({"m.py": "def run(items):\n    items.append(1)\n"})
    assert index_repository(str(repo.path)).unresolved == ()


def test_a_typed_parameter_leads_to_the_method_of_its_type(make_repo):
    repo = make_repo(
        {
            "engine.py": "class Engine:\n    def start(self):\n        pass\n",
            "main.py": "from engine import Engine\n\n\ndef run(e: Engine):\n    e.start()\n",
        }
    )
    assert ("main.py:run", EdgeKind.CALLS_DIRECT, "engine.py:Engine.start") in edges_of(
        index_repository(str(repo.path))
    )


def test_self_calls_reach_methods_inherited_from_a_base_class(make_repo):
    repo = make_repo(
        {
            "base.py": "class Base:\n    def step(self):\n        pass\n",
            "child.py": "from base import Base\n\n\nclass Child(Base):\n    def run(self):\n        self.step()\n",
        }
    )
    edges = edges_of(index_repository(str(repo.path)))
    assert ("child.py:Child.run", EdgeKind.CALLS_DIRECT, "base.py:Base.step") in edges
    assert ("child.py:Child", EdgeKind.EXTENDS, "base.py:Base") in edges


def test_uses_of_outside_packages_become_external_references(make_repo):
    repo = make_repo(
        {"m.py": "import os.path\nfrom json import dumps\n\n\ndef run():\n    os.path.join('a')\n    dumps(1)\n"}
    )
    generation = index_repository(str(repo.path))
    externals = {(x.package, x.symbol, x.line) for x in generation.external_references}
    assert ("os", "path.join", 6) in externals
    assert ("json", "dumps", 7) in externals


def test_an_import_of_a_missing_module_of_this_repository_is_unresolved_with_its_reason(make_repo):
    repo = make_repo({"pkg/__init__.py": "", "pkg/a.py": "from pkg.gone import thing\n"})
    [record] = index_repository(str(repo.path)).unresolved
    assert record.reason == "MODULE_NOT_RESOLVED"
    assert record.requested_package == "pkg.gone"


def test_syntax_edges_are_candidates_and_containment_is_structural(make_repo):
    repo = make_repo(
        {"m.py": "class A:\n    def f(self):\n        return self.g()\n\n    def g(self):\n        pass\n"}
    )
    generation = index_repository(str(repo.path))
    for edge in generation.edges:
        assert edge.provenance is Provenance.TREE_SITTER
        if edge.kind is EdgeKind.METHOD_OF:
            assert edge.confidence is Confidence.STRUCTURAL_CERTAIN
        else:
            assert edge.confidence is Confidence.CANDIDATE
            assert edge.confidence not in EXACT_CONFIDENCES
    assert ("m.py:A.f", EdgeKind.CALLS_DIRECT, "m.py:A.g") in edges_of(generation)


def test_a_stub_beside_its_module_is_the_same_module_not_a_twin(make_repo):
    repo = make_repo(
        {
            "lib/__init__.py": "",
            "lib/core.py": "def load(path):\n    return path\n",
            "lib/core.pyi": "def load(path: str) -> str: ...\n",
            "main.py": "from lib.core import load\n\n\ndef run():\n    load('x')\n",
        }
    )
    generation = index_repository(str(repo.path))
    assert ("main.py:run", EdgeKind.CALLS_DIRECT, "lib/core.py:load") in edges_of(generation)
    assert not [u for u in generation.unresolved if u.reason == "AMBIGUOUS_DECLARATION"]


def test_a_package_importing_its_own_submodule_resolves_to_the_submodule(make_repo):
    repo = make_repo(
        {
            "geo/__init__.py": "from . import shapes\n",
            "geo/shapes.py": "def area():\n    return 1\n",
            "main.py": "import geo\n\n\ndef run():\n    geo.shapes.area()\n",
        }
    )
    generation = index_repository(str(repo.path))
    assert ("main.py:run", EdgeKind.CALLS_DIRECT, "geo/shapes.py:area") in edges_of(generation)
    assert not [u for u in generation.unresolved if u.reason == "RESOLUTION_TOO_DEEP"]


def test_a_field_declared_with_a_type_leads_to_that_types_members(make_repo):
    repo = make_repo(
        {
            "m.py": (
                "class Order:\n    def pay(self):\n        pass\n\n\n"
                "class Cart:\n    order: Order\n\n    def checkout(self):\n        self.order.pay()\n"
            ),
        }
    )
    assert ("m.py:Cart.checkout", EdgeKind.CALLS_DIRECT, "m.py:Order.pay") in edges_of(index_repository(str(repo.path)))


def test_re_exports_that_go_round_end_and_find_what_one_of_them_declares(make_repo):
    # ts-rest's react-query-v5/src/v5.ts is `export * from './v5/'`: resolved as the file itself,
    # re-exports looking for a name went round until the interpreter's stack ran out.
    repo = make_repo(
        {
            "src/a.ts": "export * from './b';\nexport * from './c';\n",
            "src/b.ts": "export * from './a';\n",
            "src/c.ts": "export function load() {}\n",
            "src/self.ts": "export * from './self';\n",
            "src/main.ts": "import { load } from './b';\nimport { missing } from './self';\n\n"
            "export function run() {\n  load();\n  missing();\n}\n",
        }
    )
    generation = index_repository(str(repo.path))
    assert ("src/main.ts:run", EdgeKind.CALLS_DIRECT, "src/c.ts:load") in edges_of(generation)
    missing = [u for u in generation.unresolved if u.requested_symbol == "missing"]
    assert missing and {u.reason for u in missing} == {"EXPORT_NOT_FOUND"}


def test_a_name_not_found_while_re_exports_went_round_is_found_when_asked_again(make_repo):
    # Looking for `load` in a.ts asks b.ts, which asks a.ts again (cut short): b.ts's "not found"
    # then was partial, and b.ts asked first must still find c.ts's `load` through a.ts.
    repo = make_repo(
        {
            "src/a.ts": "export * from './b';\nexport * from './c';\n",
            "src/b.ts": "export * from './a';\n",
            "src/c.ts": "export function load() {}\n",
            "src/first.ts": "import { load } from './a';\n\nexport function viaA() {\n  load();\n}\n",
            "src/second.ts": "import { load } from './b';\n\nexport function viaB() {\n  load();\n}\n",
        }
    )
    edges = edges_of(index_repository(str(repo.path)))
    assert ("src/first.ts:viaA", EdgeKind.CALLS_DIRECT, "src/c.ts:load") in edges
    assert ("src/second.ts:viaB", EdgeKind.CALLS_DIRECT, "src/c.ts:load") in edges


def test_a_specifier_ending_in_a_slash_names_the_directory_index_not_the_file_beside_it(make_repo):
    repo = make_repo(
        {
            "src/v5.ts": "export * from './v5/';\n",
            "src/v5/index.ts": "export function init() {}\n",
            "src/main.ts": "import { init } from './v5';\n\nexport function run() {\n  init();\n}\n",
        }
    )
    edges = edges_of(index_repository(str(repo.path)))
    assert ("src/main.ts:run", EdgeKind.CALLS_DIRECT, "src/v5/index.ts:init") in edges
