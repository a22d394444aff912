"""The Dart syntax layer: declarations rebuilt from sibling runs, member chains rebuilt from selector
events, imports with show/as/export/part, library URIs resolved against pubspecs."""

import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kivgraph.indexing import index_repository
from kivgraph.languages import ModuleTarget
from kivgraph.languages.dart.adapter import DartAdapter
from kivgraph.languages.syntax import FileSyntax, Import, Role
from kivgraph.model import Confidence, EdgeKind, Generation, Language, SymbolKind
from tests.languages.helpers import declaration, fixture_layout, inside, references

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "dart"
ADAPTER = DartAdapter()
MODELS = "shop_models/lib/src"
APP = "shop_app/lib"
SRC = "lib/src"


def parse_fixture(path: str, case: str = "workspace") -> FileSyntax:
    return ADAPTER.parse(path, (FIXTURES / case / path).read_bytes())


def parse_text(text: str) -> FileSyntax:
    return ADAPTER.parse("lib/sample.dart", text.encode("utf-8"))


# --- declarations --------------------------------------------------------------------------


def test_class_members_nest_inside_the_class_with_their_kinds() -> None:
    item = parse_fixture(f"{MODELS}/item.dart")
    cls = declaration(item, "Item", SymbolKind.CLASS)
    members = {(d.name, d.kind) for d in item.declarations if inside(d, cls) and d is not cls}
    assert members == {
        ("name", SymbolKind.FIELD),
        ("_cents", SymbolKind.FIELD),
        ("new", SymbolKind.CONSTRUCTOR),
        ("fromJson", SymbolKind.CONSTRUCTOR),
        ("cents", SymbolKind.GETTER),
        ("toJson", SymbolKind.METHOD),
        ("_round", SymbolKind.METHOD),
    }
    assert cls.opens_scope and cls.doc == "One thing a customer can buy."


def test_a_method_spans_its_signature_and_its_sibling_body() -> None:
    item = parse_fixture(f"{MODELS}/item.dart")
    from_json = declaration(item, "fromJson")
    assert (from_json.start_line, from_json.end_line, from_json.name_line) == (22, 24, 22)
    assert from_json.signature == "factory Item.fromJson(Map<String, dynamic> json)"
    assert from_json.doc == "Reads an item from its JSON form."
    assert declaration(item, "_round").signature == "static int _round(Object? value)"


def test_unnamed_constructors_are_called_new_so_they_do_not_shadow_the_class() -> None:
    cart = parse_fixture(f"{APP}/cart.dart")
    constructors = [(d.name, d.signature) for d in cart.declarations if d.kind == SymbolKind.CONSTRUCTOR]
    assert constructors == [("new", "Cart(this._client)"), ("offline", "Cart.offline()")]


def test_exported_means_the_name_is_not_private() -> None:
    item = parse_fixture(f"{MODELS}/item.dart")
    assert declaration(item, "name").exported
    assert not declaration(item, "_cents").exported
    assert not declaration(item, "_round").exported
    cart_total = parse_fixture(f"{APP}/src/cart_total.dart")
    assert not declaration(cart_total, "_total").exported


def test_top_level_kinds_cover_mixins_enums_extensions_typedefs_and_variables() -> None:
    item = parse_fixture(f"{MODELS}/item.dart")
    assert declaration(item, "Priced").kind == SymbolKind.MIXIN
    assert declaration(item, "FromJson").kind == SymbolKind.TYPE_ALIAS
    assert declaration(item, "FromJson").signature == "typedef FromJson<T> = T Function(Map<String, dynamic> json)"
    order = parse_fixture(f"{MODELS}/order.dart")
    assert declaration(order, "maxItems").kind == SymbolKind.CONSTANT
    assert declaration(order, "maxItems").signature == "const int maxItems"
    status = declaration(order, "OrderStatus", SymbolKind.ENUM)
    values = [d.name for d in order.declarations if d.kind == SymbolKind.ENUM_MEMBER and inside(d, status)]
    assert values == ["open", "paid", "cancelled"]
    summary = declaration(order, "OrderSummary", SymbolKind.EXTENSION)
    assert inside(declaration(order, "summary"), summary)
    assert declaration(order, "formatCents").kind == SymbolKind.FUNCTION


def test_variables_split_into_one_declaration_per_name() -> None:
    syntax = parse_text("var a = 1, b = 2;\nfinal String c = 'x';\nlate int d;\nclass K { int e = 0, f; }\n")
    kinds = [(d.name, d.kind, d.signature) for d in syntax.declarations]
    assert kinds == [
        ("a", SymbolKind.VARIABLE, "var a"),
        ("b", SymbolKind.VARIABLE, "var b"),
        ("c", SymbolKind.CONSTANT, "final String c"),
        ("d", SymbolKind.VARIABLE, "late int d"),
        ("K", SymbolKind.CLASS, "class K"),
        ("e", SymbolKind.FIELD, "int e"),
        ("f", SymbolKind.FIELD, "int f"),
    ]
    a, b = syntax.declarations[0], syntax.declarations[1]
    assert a.end_byte <= b.start_byte  # never the same range: one would look nested in the other


def test_getters_setters_operators_and_local_functions() -> None:
    syntax = parse_text(
        "class V {\n  int get x => 1;\n  set x(int v) {}\n  bool operator ==(Object o) => true;\n}\n"
        "String get version => '1';\nvoid main() {\n  int twice(int n) => n * 2;\n  twice(2);\n}\n"
    )
    kinds = {(d.name, d.kind) for d in syntax.declarations}
    assert {("x", SymbolKind.GETTER), ("x", SymbolKind.SETTER), ("==", SymbolKind.METHOD)} <= kinds
    assert ("version", SymbolKind.GETTER) in kinds
    assert inside(declaration(syntax, "twice"), declaration(syntax, "main"))


def test_unnamed_extensions_get_a_private_placeholder_name() -> None:
    syntax = parse_text("extension on int {\n  int twice() => this * 2;\n}\n")
    extension = syntax.declarations[0]
    assert (extension.name, extension.kind, extension.exported) == ("<extension on int>", SymbolKind.EXTENSION, False)
    assert inside(declaration(syntax, "twice"), extension)


def test_same_named_functions_in_two_packages_are_separate_declarations() -> None:
    models = declaration(parse_fixture(f"{MODELS}/order.dart"), "formatCents")
    app = declaration(parse_fixture(f"{APP}/format.dart"), "formatCents")
    assert models.doc == "Cents as a decimal string."
    assert app.doc == "The app's own rendering of cents, with a currency sign."


# --- imports and library clauses -----------------------------------------------------------


def test_imports_bind_prefixes_shown_names_or_everything() -> None:
    cart = parse_fixture(f"{APP}/cart.dart")
    shapes = [(i.module, i.name, i.local_name, i.wildcard, i.reexport) for i in cart.imports]
    assert shapes == [
        ("dart:math", "max", "max", False, False),
        ("package:http/http.dart", None, "http", False, False),
        ("package:shop_models/shop_models.dart", None, None, True, False),
        ("format.dart", None, "fmt", False, False),
        ("src/cart_total.dart", None, None, True, False),  # the `part`: its names are in scope here
        ("src/cart_total.dart", None, None, True, True),  # and are the library's own to its importers
    ]
    assert cart.imports[0] == Import("dart:math", "max", "max", 1, 24, 24)


def test_exports_are_reexports_and_show_lists_name_them() -> None:
    library = parse_fixture("shop_models/lib/shop_models.dart")
    shapes = [(i.module, i.name, i.wildcard, i.reexport) for i in library.imports]
    assert shapes == [
        ("src/item.dart", None, True, True),
        ("src/order.dart", "Order", False, True),
        ("src/order.dart", "OrderStatus", False, True),
        ("src/order.dart", "formatCents", False, True),
    ]
    assert library.package_clause == "shop_models"


def test_part_of_names_the_library_in_the_package_clause() -> None:
    assert parse_fixture(f"{APP}/src/cart_total.dart").package_clause == "../cart.dart"
    assert parse_text("part of my.library;\n").package_clause == "my.library"
    assert parse_fixture(f"{SRC}/crate.dart", case="library").package_clause == "geometry"


def test_exports_with_hide_and_conditional_uris_republish_the_first_uri() -> None:
    syntax = parse_text("export 'a.dart' hide X;\nexport 'b.dart' if (dart.library.io) 'b_io.dart' show Y;\n")
    shapes = [(i.module, i.name, i.wildcard, i.reexport) for i in syntax.imports]
    assert shapes == [("a.dart", None, True, True), ("b.dart", "Y", False, True)]


def test_an_extension_types_representation_is_its_field() -> None:
    units = parse_fixture(f"{SRC}/units.dart", case="library")
    meters = declaration(units, "Meters", SymbolKind.CLASS)
    value = declaration(units, "value")
    assert (value.kind, value.signature, value.exported, value.name_line) == (SymbolKind.FIELD, "int value", True, 2)
    assert inside(value, meters) and not value.opens_scope
    label = declaration(units, "Label", SymbolKind.CLASS)
    assert inside(declaration(units, "text", SymbolKind.FIELD), label)
    assert "_" not in {d.name for d in units.declarations}  # `Label._` names a constructor, not a field
    syntax = parse_text("extension type Pair(List<int> items) {}\n")
    assert [(d.name, d.kind, d.signature) for d in syntax.declarations][1:] == [
        ("items", SymbolKind.FIELD, "List<int> items")
    ]


def test_enum_values_are_members_of_their_enum_even_with_arguments_and_members() -> None:
    palette = parse_fixture(f"{SRC}/palette.dart", case="library")
    planet = declaration(palette, "Planet", SymbolKind.ENUM)
    values = [d.name for d in palette.declarations if d.kind == SymbolKind.ENUM_MEMBER and inside(d, planet)]
    assert values == ["earth", "mars"]
    assert declaration(palette, "mass").kind == SymbolKind.FIELD
    assert declaration(palette, "warm").kind == SymbolKind.GETTER


# --- references ----------------------------------------------------------------------------


def test_field_formals_use_the_field_of_their_own_class() -> None:
    box = parse_fixture(f"{SRC}/box.dart", case="library")
    assert [(r.role, r.line, r.column) for r in references(box, "this", "value")] == [
        (Role.READ, 8, 6),
        (Role.READ, 10, 37),  # `{required this.value}`
    ]
    assert [r.line for r in references(box, "this", "label")] == [10]
    syntax = parse_text("class P {\n  int x, y;\n  P(int this.x, [this.y = 0]);\n}\n")
    assert [(r.names, r.line) for r in syntax.references if r.names[0] == "this"] == [
        (("this", "x"), 3),
        (("this", "y"), 3),
    ]


def test_super_formals_use_the_superclass_field_of_their_name() -> None:
    crate = parse_fixture(f"{SRC}/crate.dart", case="library")
    assert [(r.names, r.role, r.line) for r in crate.references if r.line == 7] == [
        (("Box", "value"), Role.READ, 7),
        (("this", "inner"), Role.READ, 7),
    ]
    syntax = parse_text("class A extends p.Base<int> with M {\n  A({super.key});\n}\nclass B {\n  B(super.x);\n}\n")
    formals = [r.names for r in syntax.references if r.line in (2, 5) and r.role == Role.READ]
    assert formals == [("p", "Base", "key")]  # without `extends`, `super` is Object: nothing to name


def test_enum_values_in_patterns_are_reads_of_the_qualified_name() -> None:
    palette = parse_fixture(f"{SRC}/palette.dart", case="library")
    pattern_lines = (20, 21, 26)
    found = [(r.names, r.role, r.line) for r in palette.references if r.line in pattern_lines]
    assert found == [
        (("Color", "red"), Role.READ, 20),
        (("Color", "green"), Role.READ, 21),
        (("Color", "green"), Role.READ, 26),
    ]
    syntax = parse_text("void f(Object o) {\n  if (o case p.Color.red) {}\n}\n")
    assert [r.names for r in syntax.references if r.line == 2 and len(r.names) > 1] == [("p", "Color", "red")]
    assert not [r for r in syntax.references if r.role == Role.TYPE and r.names[-1] == "Color"]


def test_member_chains_are_rebuilt_from_selectors() -> None:
    cart = parse_fixture(f"{APP}/cart.dart")
    assert [r.line for r in references(cart, "order", "add")] == [33]
    assert references(cart, "order", "add")[0].role == Role.CALL
    assert [r.role for r in references(cart, "fmt", "formatCents")] == [Role.CALL]
    assert [r.role for r in references(cart, "response", "statusCode")] == [Role.READ]
    assert [r.role for r in references(cart, "_client", "post")] == [Role.CALL]
    assert [(r.role, r.line) for r in references(cart, "notify")] == [(Role.CALL, 34)]


def test_constructor_calls_name_the_class_and_the_named_constructor() -> None:
    main = parse_fixture("shop_app/bin/main.dart")
    assert [r.role for r in references(main, "Cart", "offline")] == [Role.CALL]
    assert [r.role for r in references(main, "Item")] == [Role.CALL]
    syntax = parse_text("void f() { new Foo(); const Bar.named(); p.Baz.make(); }")
    assert [r.names for r in syntax.references] == [("Foo",), ("Bar", "named"), ("p", "Baz", "make")]


def test_calls_on_expressions_and_cascades() -> None:
    syntax = parse_text("void f() {\n  make().run();\n  list[0].go();\n  a..b()..c.d();\n  (x).y();\n  z!.w();\n}\n")
    calls = [(r.names, r.line) for r in syntax.references if r.role == Role.CALL]
    assert calls == [
        (("make",), 2),
        (("", "run"), 2),
        (("", "go"), 3),
        (("a", "b"), 4),
        (("a", "c", "d"), 4),
        (("", "y"), 5),
        (("z", "w"), 6),
    ]
    assert [r.role for r in references(syntax, "list")] == [Role.READ]


def test_callbacks_assignments_and_returns_get_their_roles() -> None:
    syntax = parse_text(
        "void f(Handler h) {\n  register(onTap);\n  final g = helper;\n  h.cb = other.fn;\n"
        "  retry(attempts: backoff);\n}\n"
        "Function pick() { return chosen; }\nint get answer => value;\n"
    )
    roles = {r.names: r.role for r in syntax.references}
    assert roles[("onTap",)] == Role.CALLBACK
    assert roles[("backoff",)] == Role.CALLBACK
    assert roles[("helper",)] == Role.ASSIGN
    assert roles[("other", "fn")] == Role.ASSIGN
    assert roles[("chosen",)] == Role.RETURN
    assert roles[("value",)] == Role.RETURN
    assert roles[("h", "cb")] == Role.READ


def test_heritage_clauses_extend_and_implement() -> None:
    cart = parse_fixture(f"{APP}/cart.dart")
    assert [(r.role, r.line) for r in references(cart, "Observable")] == [(Role.EXTENDS, 24)]
    assert [r.role for r in references(cart, "Comparable")] == [Role.IMPLEMENTS]
    item = parse_fixture(f"{MODELS}/item.dart")
    assert [r.role for r in references(item, "Priced")] == [Role.EXTENDS]  # `with Priced`
    order = parse_fixture(f"{MODELS}/order.dart")
    assert [r.role for r in references(order, "Order")] == [Role.EXTENDS]  # `extension … on Order`
    syntax = parse_text("mixin Walk on Animal implements Mover {}\n")
    assert [(r.names, r.role) for r in syntax.references] == [
        (("Animal",), Role.EXTENDS),
        (("Mover",), Role.IMPLEMENTS),
    ]


def test_prefixed_types_keep_their_prefix_and_doc_comments_are_not_prefixes() -> None:
    cart = parse_fixture(f"{APP}/cart.dart")
    assert [r.role for r in references(cart, "http", "Client")] == [Role.TYPE, Role.CALL]
    item = parse_fixture(f"{MODELS}/item.dart")
    assert not [r for r in item.references if len(r.names) == 2 and r.role == Role.TYPE]


def test_annotations_are_reads_or_calls() -> None:
    syntax = parse_text("@immutable\nclass A {\n  @JsonKey(name: 'x')\n  final int a = 0;\n}\n")
    assert [(r.names, r.role) for r in syntax.references if r.role != Role.TYPE] == [
        (("immutable",), Role.READ),
        (("JsonKey",), Role.CALL),
    ]


def test_declared_names_and_type_parameters_are_not_references() -> None:
    item = parse_fixture(f"{MODELS}/item.dart")
    typedef = declaration(item, "FromJson")
    assert all(r.start_byte != typedef.start_byte + len("typedef ") for r in item.references)
    assert [b.name for b in item.bindings if b.name == "T"] == ["T"]


def test_bindings_carry_plain_and_constructed_types() -> None:
    main = parse_fixture("shop_app/bin/main.dart")
    types = {(b.name, b.type_name) for b in main.bindings}
    assert {("arguments", "List"), ("cart", "Cart"), ("item", "Item")} <= types
    total = parse_fixture(f"{APP}/src/cart_total.dart")
    assert {("cart", "Cart"), ("sum", ""), ("item", "Item")} <= {(b.name, b.type_name) for b in total.bindings}
    syntax = parse_text("void f(p.Model m, {this.x, Foo? y}) { final paint = Paint()..color = red; }")
    assert {(b.name, b.type_name) for b in syntax.bindings} == {("m", ""), ("x", ""), ("y", "Foo"), ("paint", "Paint")}


# --- problems ------------------------------------------------------------------------------


def test_a_file_with_syntax_errors_keeps_its_other_declarations() -> None:
    broken = parse_fixture("lib/parser.dart", case="broken")
    assert [(p.line, p.detail) for p in broken.problems] == [(6, "missing ;"), (13, "syntax error")]
    assert [d.name for d in broken.declarations] == ["Parser", "pos", "advance", "afterErrors"]
    assert declaration(broken, "afterErrors").doc == "Still found after the errors above."


def test_parse_survives_any_bytes() -> None:
    rng = random.Random(20260101)
    for _ in range(300):
        data = rng.randbytes(rng.randrange(400))
        assert ADAPTER.parse("junk.dart", data).path == "junk.dart"


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfeclass \xc3\x28 { void m() { a..b(\x80; } }",
        b"import 'x' as ; export ; part of ; class { operator ( => ; factory . ( = ;",
        b"void f() { a.b.c.d..e..f!.g?.h[0](1)(2)<int>(); }",
        bytes(range(256)) * 4,
        "String naïve() => 'ünïcode ${é.ok}';".encode(),
    ],
)
def test_parse_survives_invalid_utf8_and_half_written_code(data: bytes) -> None:
    assert isinstance(ADAPTER.parse("junk.dart", data).references, tuple)


# --- libraries and packages ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "from_file", "target"),
    [
        ("package:shop_app/cart.dart", "shop_app/bin/main.dart", ModuleTarget(files=(f"{APP}/cart.dart",))),
        (
            "package:shop_models/shop_models.dart",
            f"{APP}/cart.dart",
            ModuleTarget(files=("shop_models/lib/shop_models.dart",)),
        ),
        ("format.dart", f"{APP}/cart.dart", ModuleTarget(files=(f"{APP}/format.dart",))),
        ("src/cart_total.dart", f"{APP}/cart.dart", ModuleTarget(files=(f"{APP}/src/cart_total.dart",))),
        ("../cart.dart", f"{APP}/src/cart_total.dart", ModuleTarget(files=(f"{APP}/cart.dart",))),
        ("./item.dart", f"{MODELS}/order.dart", ModuleTarget(files=(f"{MODELS}/item.dart",))),
        ("package:http/http.dart", f"{APP}/cart.dart", ModuleTarget(external="http")),
        ("dart:math", f"{APP}/cart.dart", ModuleTarget(external="dart:math")),
        ("package:shop_app/missing.dart", f"{APP}/cart.dart", ModuleTarget(reason="MODULE_NOT_RESOLVED")),
        ("missing.dart", f"{APP}/cart.dart", ModuleTarget(reason="MODULE_NOT_RESOLVED")),
        ("https://example.invalid/x.dart", f"{APP}/cart.dart", ModuleTarget(reason="MODULE_NOT_RESOLVED")),
    ],
)
def test_library_uris_resolve_against_the_pubspecs_of_the_tree(spec: str, from_file: str, target: ModuleTarget) -> None:
    assert ADAPTER.resolve_module(spec, from_file, fixture_layout(FIXTURES / "workspace")) == target


def test_packages_come_from_the_nearest_pubspec() -> None:
    layout = fixture_layout(FIXTURES / "workspace")
    packages = ADAPTER.packages(layout, [f"{APP}/src/cart_total.dart", f"{MODELS}/item.dart", "README.md"])
    app = packages[f"{APP}/src/cart_total.dart"]
    assert (app.id, app.name, app.root, app.manifest, app.version) == (
        "dart:shop_app",
        "shop_app",
        "shop_app",
        "shop_app/pubspec.yaml",
        "1.2.0",
    )
    models = packages[f"{MODELS}/item.dart"]
    assert (models.id, models.version, models.language) == ("dart:shop_models", "0.4.0", Language.DART)
    assert "README.md" not in packages


def test_the_adapter_states_darts_rules_as_data() -> None:
    assert ADAPTER.language == Language.DART
    assert ADAPTER.extensions == (".dart",)
    assert ADAPTER.separator == "."
    assert ADAPTER.implicit_member_scope and not ADAPTER.package_scope
    assert ADAPTER.self_names == frozenset({"this", "super"})
    assert {"int", "String", "List", "print", "override"} <= ADAPTER.builtins


# --- resolution without a type checker -----------------------------------------------------


def index_case(case: str, make_repo: Callable[..., Any]) -> Generation:
    repo = make_repo(name=case)
    shutil.copytree(FIXTURES / case, repo.path, dirs_exist_ok=True)
    repo.commit(message=f"fixture {case}")
    return index_repository(str(repo.path))


def named_edges(generation: Generation) -> set[tuple[str, str, str]]:
    name = {
        s.key: f"{s.file}:{'<module>' if s.kind is SymbolKind.MODULE else s.qualified_name}" for s in generation.symbols
    }
    return {(name[e.source], e.kind.value, name[e.target]) for e in generation.edges}


def test_formals_enum_values_representation_fields_exports_and_parts_resolve_from_syntax(make_repo) -> None:
    generation = index_case("library", make_repo)
    edges = named_edges(generation)
    lib, box, crate = "lib/geometry.dart", f"{SRC}/box.dart", f"{SRC}/crate.dart"
    palette, units, main = f"{SRC}/palette.dart", f"{SRC}/units.dart", "bin/main.dart"
    must = {
        # `this.x` and `super.x` formals
        (f"{box}:Box.new", "REFERENCES", f"{box}:Box.value"),
        (f"{box}:Box.labelled", "REFERENCES", f"{box}:Box.label"),
        (f"{box}:Box.labelled", "REFERENCES", f"{box}:Box.value"),
        (f"{crate}:Crate.new", "REFERENCES", f"{crate}:Crate.inner"),
        (f"{crate}:Crate.new", "REFERENCES", f"{box}:Box.value"),
        (f"{palette}:Planet.new", "REFERENCES", f"{palette}:Planet.mass"),
        # enum values, in expressions and in patterns
        (f"{palette}:Color.warm", "REFERENCES", f"{palette}:Color.red"),
        (f"{palette}:describe", "REFERENCES", f"{palette}:Color.red"),
        (f"{palette}:describe", "REFERENCES", f"{palette}:Color.green"),
        (f"{palette}:isGreen", "REFERENCES", f"{palette}:Color.green"),
        (f"{main}:main", "REFERENCES", f"{palette}:Color.green"),
        (f"{main}:main", "REFERENCES", f"{palette}:Planet.mars"),
        # extension-type representation fields
        (f"{units}:Meters.+", "REFERENCES", f"{units}:Meters.value"),
        (f"{units}:Meters.centimeters", "REFERENCES", f"{units}:Meters.value"),
        (f"{units}:Label.shout", "REFERENCES", f"{units}:Label.text"),
        (f"{main}:main", "REFERENCES", f"{units}:Meters.centimeters"),
        # exports: the whole library, or the names shown
        (f"{lib}:<module>", "REEXPORTS", f"{palette}:<module>"),
        (f"{lib}:<module>", "REEXPORTS", f"{units}:Meters"),
        (f"{main}:main", "CALLS_DIRECT", f"{palette}:describe"),
        (f"{main}:main", "CALLS_DIRECT", f"{units}:Meters"),
        # parts: one scope with their library (either `part of` form), public through its importers
        (f"{lib}:<module>", "IMPORTS_SYMBOL", f"{box}:<module>"),
        (f"{lib}:<module>", "REEXPORTS", f"{crate}:<module>"),
        (f"{lib}:starter", "CALLS_DIRECT", f"{box}:Box"),
        (f"{box}:Box.volume", "CALLS_DIRECT", f"{lib}:_volume"),
        (f"{crate}:Crate", "EXTENDS", f"{box}:Box"),
        (f"{crate}:Crate.height", "CALLS_DIRECT", f"{units}:Meters"),
        (f"{main}:main", "CALLS_DIRECT", f"{box}:Box"),
        (f"{main}:main", "CALLS_DIRECT", f"{crate}:Crate"),
        (f"{main}:main", "REFERENCES", f"{box}:Box.value"),
    }
    must_not = {
        (f"{units}:Meters.centimeters", "REFERENCES", f"{units}:Meters"),  # `this.value` is the field
        (f"{crate}:Crate.new", "REFERENCES", f"{box}:Box.new"),  # `super.value` names no constructor
        (f"{main}:main", "REFERENCES", f"{units}:Meters.value"),  # `box.value` is the Box's
        (f"{lib}:<module>", "REEXPORTS", f"{units}:<module>"),  # `show Meters` republishes Meters only
        (f"{main}:main", "CALLS_DIRECT", f"{lib}:_volume"),
    }
    assert must <= edges, must - edges
    assert not must_not & edges, must_not & edges
    # Certain from syntax alone: containment, `part of`, and `this.x` naming the class's own member
    # (Dart's `this` is always that instance); everything else found by following names is a candidate.
    name = {x.key: f"{x.file}:{'<module>' if x.kind is SymbolKind.MODULE else x.qualified_name}"
            for x in generation.symbols}  # fmt: skip
    certain = {(name[e.source], e.kind.value, name[e.target]) for e in generation.edges
               if e.confidence is Confidence.STRUCTURAL_CERTAIN and e.kind is not EdgeKind.METHOD_OF}  # fmt: skip
    assert {(f"{box}:<module>", "PART_OF", f"{lib}:<module>"), (f"{crate}:<module>", "PART_OF", f"{lib}:<module>"),
            (f"{box}:Box.new", "REFERENCES", f"{box}:Box.value"),
            (f"{box}:Box.labelled", "REFERENCES", f"{box}:Box.label"),
            (f"{crate}:Crate.new", "REFERENCES", f"{crate}:Crate.inner"),
            (f"{palette}:Planet.new", "REFERENCES", f"{palette}:Planet.mass"),
            (f"{units}:Meters.centimeters", "REFERENCES", f"{units}:Meters.value")} <= certain  # fmt: skip
    assert (f"{crate}:Crate.new", "REFERENCES", f"{box}:Box.value") not in certain  # `super.value`: inherited
    assert (f"{main}:main", "REFERENCES", f"{box}:Box.value") not in certain  # `box.value`: a receiver's type
    assert {kind for _, kind, _ in certain} == {"PART_OF", "REFERENCES"}  # no call, import or heritage
    blind = {(u.reason, u.requested_symbol) for u in generation.unresolved}
    assert not {r for r in blind if r[0] in ("NAME_NOT_RESOLVED", "MEMBER_NOT_FOUND")}, blind
