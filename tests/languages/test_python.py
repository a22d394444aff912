"""The Python adapter: what it extracts from one file, and how it finds modules and packages."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kivgraph.languages import ModuleTarget
from kivgraph.languages.python.adapter import PythonAdapter
from kivgraph.languages.syntax import Binding, FileSyntax, Import, Reference, Role
from kivgraph.model import Language, Package, SymbolKind
from tests.languages.helpers import fixture_layout, qualified, refs

FIXTURES = Path(__file__).parent.parent / "fixtures" / "python"
ADAPTER = PythonAdapter()


def parse_fixture(case: str, path: str) -> FileSyntax:
    return ADAPTER.parse(path, (FIXTURES / case / path).read_bytes())


def parse_text(text: str, path: str = "mod.py") -> FileSyntax:
    return ADAPTER.parse(path, text.encode("utf-8"))


def bound(syntax: FileSyntax) -> dict[str, str]:
    return {binding.name: binding.type_name for binding in syntax.bindings}


# ---- declarations


def test_methods_nest_in_their_class_and_nested_defs_in_their_method() -> None:
    names = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))

    assert names["Circle.area"].kind is SymbolKind.METHOD
    assert names["Circle.Style"].kind is SymbolKind.CLASS
    assert names["Circle.Style.stroke"].kind is SymbolKind.METHOD
    assert names["Circle.Style.stroke.scaled"].kind is SymbolKind.FUNCTION
    assert names["Square.__init__"].kind is SymbolKind.METHOD
    assert names["register"].kind is SymbolKind.FUNCTION


def test_a_decorated_class_spans_its_decorators_and_names_its_own_line() -> None:
    circle = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))["Circle"]

    assert (circle.start_line, circle.end_line) == (32, 51)
    assert (circle.name_line, circle.name_column) == (34, 6)
    assert circle.opens_scope


def test_signatures_stop_before_the_body() -> None:
    names = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))

    assert names["Circle"].signature == "class Circle(Shape)"
    assert names["Square._grow"].signature == 'def _grow(self, by: float) -> "Square"'
    assert names["Circle.Style.stroke"].signature == "def stroke(self, width: int = 1)"
    assert names["UNIT"].signature == "UNIT = 1.0"


def test_the_first_docstring_paragraph_is_the_doc() -> None:
    names = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))

    assert names["register"].doc == "Remember a shape class by name."
    assert names["Circle.Style"].doc == "How a circle is drawn."
    assert names["Square"].doc == ""


def test_class_level_annotations_are_fields_and_upper_case_names_constants() -> None:
    names = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))

    assert names["Shape.sides"].kind is SymbolKind.FIELD
    assert names["Shape.kind"].kind is SymbolKind.VARIABLE
    assert names["Circle.Style.DASHED"].kind is SymbolKind.CONSTANT
    assert names["UNIT"].kind is SymbolKind.CONSTANT
    assert names["_registry"].kind is SymbolKind.VARIABLE
    assert not names["Shape.sides"].opens_scope


def test_underscore_names_and_defs_inside_functions_are_not_exported() -> None:
    names = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))

    assert names["Circle"].exported
    assert names["Square.__init__"].exported
    assert not names["Square._grow"].exported
    assert not names["_registry"].exported
    assert not names["Circle.Style.stroke.scaled"].exported


def test_members_of_a_private_class_are_not_exported() -> None:
    names = qualified(parse_text("class _Hidden:\n    def run(self): pass\n\nclass Open:\n    def run(self): pass\n"))

    assert not names["_Hidden.run"].exported
    assert names["Open.run"].exported


def test_self_attributes_assigned_in_a_method_are_fields_owned_by_its_class() -> None:
    source = "class Repo:\n    def __init__(self, path):\n        self.store = Store(path)\n        self.store = None\n"
    syntax = parse_text(source)
    store = qualified(syntax)["Repo.store"]

    assert (store.kind, store.owner, store.type_name) == (SymbolKind.FIELD, "Repo", "Store")
    assert (store.start_byte, store.end_byte) == (source.index("self.store"), source.index(" = Store"))
    assert store.signature == "self.store = Store(path)"
    assert ("self.store", Role.READ) in refs(syntax, 4)
    assert ("self.store", Role.READ) not in refs(syntax, 3)


def test_variables_and_fields_carry_the_type_their_syntax_states() -> None:
    names = qualified(parse_fixture("shapes", "src/geometry/shapes.py"))

    assert names["Circle.radius"].type_name == "float"
    assert names["Square.side"].type_name == ""
    assert qualified(parse_text("LOG = Logger()\nlevel: Optional[Level] = None\n"))["level"].type_name == "Level"
    assert qualified(parse_text("LOG = Logger()\n"))["LOG"].type_name == "Logger"


def test_a_literal_dunder_all_decides_what_the_module_exports() -> None:
    syntax = parse_text('__all__ = ["listed"]\n\ndef listed(): pass\n\ndef unlisted(): pass\n')
    names = qualified(syntax)

    assert names["listed"].exported
    assert not names["unlisted"].exported


def test_reassigning_a_name_declares_it_once_and_rebinding_a_def_does_not_declare_it() -> None:
    syntax = parse_text("LIMIT = 1\nLIMIT = 2\n\ndef handler(): pass\nhandler = wrap(handler)\n")

    assert [(d.name, d.start_line) for d in syntax.declarations] == [("LIMIT", 1), ("handler", 4)]


def test_conditional_definitions_of_one_function_are_both_declared() -> None:
    syntax = parse_text("import sys\nif sys.platform == 'win32':\n    def home(): pass\nelse:\n    def home(): pass\n")

    assert [(d.name, d.start_line) for d in syntax.declarations] == [("home", 3), ("home", 5)]


def test_unpacking_at_module_level_declares_each_name_without_nesting_them() -> None:
    syntax = parse_text("width, height = 3, 4\n")
    width, height = syntax.declarations

    assert (width.name, height.name) == ("width", "height")
    assert width.end_byte <= height.start_byte


# ---- references


def test_superclasses_extend_and_decorators_are_calls() -> None:
    syntax = parse_fixture("shapes", "src/geometry/shapes.py")

    assert ("Shape", Role.EXTENDS) in refs(syntax, 34)
    assert refs(syntax, 32) == [("register", Role.CALL)]
    assert refs(syntax, 33) == [("dataclass", Role.CALL)]


def test_a_function_passed_as_an_argument_is_a_callback_and_returned_or_assigned_names_say_so() -> None:
    syntax = parse_fixture("shapes", "src/geometry/util.py")

    assert ("measure", Role.CALLBACK) in refs(syntax, 15)
    assert refs(syntax, 20) == [("area_of", Role.RETURN)]
    assert refs(syntax, 21) == [("_rough", Role.ASSIGN)]
    assert ("gu.area_of", Role.CALLBACK) in refs(parse_fixture("shapes", "scripts/report.py"), 13)


def test_annotations_are_type_uses_including_strings_and_subscripts() -> None:
    syntax = parse_fixture("shapes", "src/geometry/util.py")

    assert refs(syntax, 13) == [
        ("list", Role.TYPE),
        ("Shape", Role.TYPE),
        ("Optional", Role.TYPE),
        ("Callable", Role.TYPE),
        ("Shape", Role.TYPE),
        ("float", Role.TYPE),
        ("float", Role.TYPE),
    ]
    shape_string = next(ref for ref in syntax.references if ref.line == 25 and ref.names == ("Shape",))
    assert (shape_string.role, shape_string.column) == (Role.TYPE, 19)


def test_strings_inside_literal_annotations_are_values_not_types() -> None:
    syntax = parse_text('def f(a: Literal["Foo"], b: t.Literal["Bar"], c: "Baz") -> None: pass\n')

    assert [names for names, role in refs(syntax) if role is Role.TYPE] == ["Literal", "t.Literal", "Baz"]


def test_attribute_paths_keep_their_head_and_calls_on_unnamed_receivers_have_an_empty_head() -> None:
    syntax = parse_fixture("scopes", "locals.py")

    assert ("session.get", Role.CALL) in refs(syntax, 15)
    assert ("self.retries", Role.READ) in refs(syntax, 25)
    parse_call = next(ref for ref in syntax.references if ref.names == ("", "parse"))
    assert (parse_call.role, parse_call.line, parse_call.column) == (Role.CALL, 21, 30)
    assert ("Parser", Role.CALL) in refs(syntax, 21)


def test_declaration_names_parameters_and_keyword_names_are_not_references() -> None:
    syntax = parse_text("def f(a, *, key=1):\n    return g(key=a)\n")

    assert refs(syntax) == [("g", Role.CALL), ("a", Role.CALLBACK)]


def test_match_case_dotted_values_are_reads_and_bare_names_are_captures() -> None:
    syntax = parse_text(
        "def f(x):\n    match x:\n        case Color.RED:\n            pass\n"
        "        case [first, *_]:\n            pass\n"
    )

    assert refs(syntax, 3) == [("Color.RED", Role.READ)]
    assert "first" in bound(syntax)


# ---- bindings


def test_parameters_and_locals_are_bindings_with_their_annotated_or_constructed_type() -> None:
    syntax = parse_fixture("scopes", "locals.py")
    fetch = qualified(syntax)["Client.fetch"]
    names = {b.name: b.type_name for b in syntax.bindings if fetch.start_byte <= b.start_byte < fetch.end_byte}

    assert names["url"] == "str"
    assert names["session"] == "Session"
    for local in ("args", "timeout", "options", "response", "index", "key", "value", "handle", "held"):
        assert local in names
    assert {"data", "parsed", "error", "squares", "item", "size"} <= set(names)
    assert bound(parse_text("def f():\n    s = Server()\n    t = make()\n")) == {"s": "Server", "t": ""}


def test_self_and_global_names_are_never_bindings() -> None:
    syntax = parse_fixture("scopes", "locals.py")
    names = [binding.name for binding in syntax.bindings]

    assert "self" not in names
    assert "counter" not in names
    assert ("counter", Role.READ) in refs(syntax, 14)


def test_optional_annotations_bind_the_class_inside() -> None:
    syntax = parse_text("def f(a: Optional[Foo], b: 'Bar | None' = None, c: Baz | None = None): pass\n")

    assert bound(syntax)["a"] == "Foo"
    assert bound(syntax)["c"] == "Baz"


def test_module_level_loop_variables_are_not_bindings() -> None:
    assert parse_text("for item in range(3):\n    print(item)\n").bindings == ()


def test_binding_positions_point_at_the_name() -> None:
    source = "def f(value: int):\n    total = value\n"
    syntax = parse_text(source)

    assert syntax.bindings == (
        Binding("value", source.index("value"), "int"),
        Binding("total", source.index("total"), ""),
    )


# ---- imports


def test_imports_bind_what_python_binds() -> None:
    syntax = parse_text("import a.b.c\nimport a.b as ab\nfrom .x import y as z\nfrom . import m\nfrom ..p import *\n")

    assert [(i.module, i.name, i.local_name, i.wildcard) for i in syntax.imports] == [
        ("a", None, "a", False),
        ("a.b", None, "ab", False),
        (".x", "y", "z", False),
        (".", "m", "m", False),
        ("..p", None, None, True),
    ]
    assert syntax.imports[2] == Import(".x", "y", "z", 3, 20, syntax.imports[2].start_byte)


def test_names_listed_in_dunder_all_are_reexported() -> None:
    syntax = parse_fixture("shapes", "src/geometry/__init__.py")

    assert [(i.module, i.name, i.local_name, i.reexport) for i in syntax.imports] == [
        (".shapes", "Circle", "Circle", True),
        (".shapes", "Square", "Box", True),
        (".util", "area_of", "area_of", True),
        (".", "shapes", "shapes", True),
    ]
    assert parse_text("from .x import y as y\nfrom .x import w\n").imports[0].reexport
    assert not parse_text("from .x import y as y\nfrom .x import w\n").imports[1].reexport


# ---- modules and packages


def test_relative_imports_resolve_next_to_the_importing_file() -> None:
    layout = fixture_layout(FIXTURES / "shapes")

    assert ADAPTER.resolve_module(".shapes", "src/geometry/util.py", layout) == ModuleTarget(
        files=("src/geometry/shapes.py",)
    )
    assert ADAPTER.resolve_module(".", "src/geometry/util.py", layout) == ModuleTarget(
        files=("src/geometry/__init__.py",)
    )
    assert ADAPTER.resolve_module("...nowhere", "src/geometry/util.py", layout).reason == "MODULE_NOT_RESOLVED"


def test_a_stub_next_to_its_module_resolves_to_both() -> None:
    target = ADAPTER.resolve_module("geometry.util", "scripts/report.py", fixture_layout(FIXTURES / "shapes"))

    assert target == ModuleTarget(files=("src/geometry/util.py", "src/geometry/util.pyi"))


def test_absolute_imports_resolve_under_src_and_packages_to_their_init() -> None:
    target = ADAPTER.resolve_module("geometry", "scripts/report.py", fixture_layout(FIXTURES / "shapes"))

    assert target == ModuleTarget(files=("src/geometry/__init__.py",))


def test_a_missing_module_of_this_repository_is_unresolved_and_anything_else_is_external() -> None:
    layout = fixture_layout(FIXTURES / "shapes")

    assert ADAPTER.resolve_module("geometry.missing", "scripts/report.py", layout) == ModuleTarget(
        reason="MODULE_NOT_RESOLVED"
    )
    assert ADAPTER.resolve_module("os.path", "scripts/report.py", layout) == ModuleTarget(external="os")
    assert ADAPTER.resolve_module("numpy.linalg", "scripts/report.py", layout) == ModuleTarget(external="numpy")


def test_same_named_modules_in_two_packages_resolve_to_their_own_files() -> None:
    layout = fixture_layout(FIXTURES / "same_names")
    billing = ADAPTER.resolve_module("billing.orders", "main.py", layout)
    shipping = ADAPTER.resolve_module("shipping.orders", "main.py", layout)

    assert (billing.files, shipping.files) == (("billing/orders.py",), ("shipping/orders.py",))
    billing_load = qualified(parse_fixture("same_names", "billing/orders.py"))["load"]
    shipping_load = qualified(parse_fixture("same_names", "shipping/orders.py"))["load"]
    assert billing_load.signature == shipping_load.signature == "def load(order_id: int) -> Order"


def test_packages_follow_init_files_and_carry_the_distribution_name_and_version() -> None:
    layout = fixture_layout(FIXTURES / "shapes")
    files = sorted(path for path in layout.paths if path.endswith((".py", ".pyi")))
    packages = ADAPTER.packages(layout, files)

    assert packages["src/geometry/util.py"] == Package(
        id="python:geometry",
        language=Language.PYTHON,
        name="geometry",
        root="src/geometry",
        manifest="pyproject.toml",
        version="1.4.0",
        distribution="geometry",
    )
    assert packages["scripts/report.py"].name == "report"
    assert packages["scripts/report.py"].root == "scripts"


def test_setup_cfg_states_the_version_when_there_is_no_pyproject() -> None:
    layout = fixture_layout(FIXTURES / "same_names")
    packages = ADAPTER.packages(layout, ["billing/orders.py", "main.py"])

    billing = packages["billing/orders.py"]
    assert (billing.name, billing.version) == ("billing", "0.3.1")
    assert billing.distribution == "orders"  # setup.cfg's [metadata] name
    assert packages["main.py"].id == "python:main"
    assert packages["main.py"].manifest == "setup.cfg"


# ---- robustness


def test_a_syntax_error_is_reported_and_the_rest_of_the_file_still_counts() -> None:
    syntax = parse_fixture("broken", "halfway.py")
    names = qualified(syntax)

    assert [problem.line for problem in syntax.problems] == [9]
    assert {"complete", "unfinished", "StillCounts", "StillCounts.method"} <= set(names)
    assert names["unfinished"].signature == "def unfinished(x)"
    assert ("complete", Role.CALL) in refs(syntax, 14)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00\xff\xfe garbage \x80", b"def f(\xff\xfe):\n  return \xc3\x28\n", b"class \x00:\n\tdef", b"(" * 5000],
)
def test_parse_survives_garbage_bytes_and_invalid_utf8(data: bytes) -> None:
    syntax = ADAPTER.parse("junk.py", data)

    assert syntax.path == "junk.py"
    assert all(isinstance(ref, Reference) for ref in syntax.references)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_parse_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    ADAPTER.parse("random.py", b"def f(x):\n    return x.y\n" + data)


def test_non_ascii_names_are_decoded_and_latin1_strings_do_not_hide_later_facts() -> None:
    syntax = ADAPTER.parse("latin.py", "caf\xe9 = 1\n".encode() + b"label = '\xe9t\xe9'\nprint(caf\xc3\xa9)\n")

    assert [d.name for d in syntax.declarations] == ["caf\xe9", "label"]
    assert refs(syntax, 3) == [("print", Role.CALL), ("caf\xe9", Role.CALLBACK)]
