"""The TypeScript/JavaScript syntax layer: declarations, imports, bindings, references, resolution."""

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kivgraph.indexing import index_repository
from kivgraph.languages import ModuleTarget, RepoLayout, adapter, language_of
from kivgraph.languages.syntax import Declaration, ExportAlias, FileSyntax, Import, Role
from kivgraph.languages.typescript.adapter import JavaScriptAdapter, TypeScriptAdapter
from kivgraph.model import Confidence, EdgeKind, Language, SymbolKind
from tests.languages.helpers import fixture_layout, qualified_all

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "typescript"
TS = TypeScriptAdapter()
JS = JavaScriptAdapter()
JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs")


def layout_of(files: dict[str, str]) -> RepoLayout:
    data = {path: text.encode("utf-8") for path, text in files.items()}
    return RepoLayout(data, data.get)


def parse_fixture(case: str, path: str) -> FileSyntax:
    language = JS if path.endswith(JS_EXTENSIONS) else TS
    return language.parse(path, (FIXTURES / case / path).read_bytes())


def parse_source(path: str, text: str) -> FileSyntax:
    language = JS if path.endswith(JS_EXTENSIONS) else TS
    return language.parse(path, text.encode("utf-8"))


def one(syntax: FileSyntax, name: str) -> Declaration:
    matches = qualified_all(syntax).get(name, [])
    assert len(matches) == 1, f"{name}: {matches}"
    return matches[0]


def uses(syntax: FileSyntax) -> list[tuple[str, Role, int]]:
    return [(".".join(r.names), r.role, r.line) for r in syntax.references]


def used_names(syntax: FileSyntax) -> set[str]:
    return {".".join(r.names) for r in syntax.references}


# ---- declarations ---------------------------------------------------------------------------


def test_classes_interfaces_enums_namespaces_and_aliases_are_declared_with_their_kinds() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    kinds = {name: [d.kind for d in found] for name, found in qualified_all(syntax).items()}
    assert kinds["Shape"] == [SymbolKind.INTERFACE]
    assert kinds["Point"] == [SymbolKind.TYPE_ALIAS]
    assert kinds["Color"] == [SymbolKind.ENUM]
    assert kinds["Color.Red"] == [SymbolKind.ENUM_MEMBER]
    assert kinds["Base"] == [SymbolKind.CLASS]
    assert kinds["Circle"] == [SymbolKind.CLASS]
    assert kinds["Geometry"] == [SymbolKind.NAMESPACE]
    assert kinds["scale"] == [SymbolKind.FUNCTION]
    assert kinds["square"] == [SymbolKind.FUNCTION]


def test_members_nest_under_their_container_by_byte_range() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    names = qualified_all(syntax)
    assert names["Shape.area"][0].kind is SymbolKind.METHOD
    assert names["Shape.name"][0].kind is SymbolKind.PROPERTY
    assert names["Point.x"][0].kind is SymbolKind.PROPERTY
    assert names["Base.count"][0].kind is SymbolKind.PROPERTY
    assert names["Base.constructor"][0].kind is SymbolKind.CONSTRUCTOR
    assert names["Base.area"][0].kind is SymbolKind.METHOD
    assert [d.kind for d in names["Circle.radius"]] == [SymbolKind.GETTER, SymbolKind.SETTER]
    assert names["Circle.#radius"][0].kind is SymbolKind.PROPERTY
    assert names["Geometry.ORIGIN"][0].kind is SymbolKind.CONSTANT
    assert names["Geometry.distance"][0].kind is SymbolKind.FUNCTION
    assert "distance" not in names


def test_constructor_parameter_properties_are_properties_owned_by_the_class() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    name = one(syntax, "Base.name")
    assert name.kind is SymbolKind.PROPERTY
    assert name.owner == "Base"
    assert name.exported
    assert not one(syntax, "Base.color").exported
    assert "Base.constructor.name" not in qualified_all(syntax)


def test_overload_signatures_fold_into_one_declaration_spanning_all_of_them() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    scale = one(syntax, "scale")
    assert (scale.start_line, scale.end_line, scale.name_line) == (62, 70, 64)
    assert scale.signature == "export function scale(shape: Shape, factor: number): Shape"


def test_signature_only_overloads_keep_the_first_and_cover_the_rest() -> None:
    syntax = parse_fixture("monorepo", "types/globals.d.ts")
    track = one(syntax, "track")
    assert (track.start_line, track.end_line) == (7, 8)
    assert track.signature == "declare function track(event: string): void"


def test_exported_follows_the_export_keyword_and_member_privacy() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    exported = {name for name, found in qualified_all(syntax).items() if found[0].exported}
    assert {"Shape", "Shape.area", "Point", "Color.Green", "Base", "Base.describe", "Circle", "scale"} <= exported
    assert {"Geometry", "Geometry.distance", "Geometry.ORIGIN", "Circle.area", "Base.count"} <= exported
    assert "square" not in exported
    assert "Circle.reset" not in exported  # private
    assert "Circle.#radius" not in exported  # ECMAScript private name
    assert "Geometry.internal" not in exported  # no `export` inside the namespace


def test_signatures_stop_at_the_body_and_docs_keep_the_first_jsdoc_paragraph() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    base = one(syntax, "Base")
    assert base.signature == "export abstract class Base implements Shape"
    assert base.doc == "The common base of every shape."
    assert one(syntax, "Shape").doc == "Anything with an area."
    assert one(syntax, "Base.describe").signature == "describe(): string"
    assert one(syntax, "Base.describe").doc == ""
    assert one(syntax, "Geometry.ORIGIN").signature == "export const ORIGIN: Point = { x: 0, y: 0 }"


def test_ranges_include_the_export_keyword_and_positions_are_one_based_lines() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    circle = one(syntax, "Circle")
    assert (circle.start_line, circle.end_line, circle.name_line, circle.name_column) == (37, 60, 37, 13)
    source = (FIXTURES / "classes" / "src/shapes.ts").read_bytes()
    assert source[circle.start_byte : circle.end_byte].startswith(b"export class Circle extends Base {")
    assert source[circle.start_byte : circle.end_byte].endswith(b"}")


def test_functions_classes_and_methods_open_scopes_and_properties_do_not() -> None:
    syntax = parse_fixture("classes", "src/shapes.ts")
    assert one(syntax, "scale").opens_scope
    assert one(syntax, "Circle").opens_scope
    assert one(syntax, "Circle.area").opens_scope
    assert not one(syntax, "Base.count").opens_scope
    assert not one(syntax, "Color.Red").opens_scope


def test_module_level_arrow_functions_are_functions_and_other_consts_are_constants() -> None:
    syntax = parse_source(
        "m.ts",
        "export const f = async (x: number) => x;\nconst g = function () {};\nconst n = 1;\n"
        "let counter = 0;\nvar legacy;\nexport const Klass = class { run() {} };\n",
    )
    kinds = {name: found[0].kind for name, found in qualified_all(syntax).items()}
    assert kinds == {
        "f": SymbolKind.FUNCTION,
        "g": SymbolKind.FUNCTION,
        "n": SymbolKind.CONSTANT,
        "counter": SymbolKind.VARIABLE,
        "legacy": SymbolKind.VARIABLE,
        "Klass": SymbolKind.CLASS,
        "Klass.run": SymbolKind.METHOD,
    }
    assert one(syntax, "f").signature == "export const f = async (x: number) =>"


def test_functions_nested_in_functions_are_declarations_but_local_variables_are_not() -> None:
    syntax = parse_source(
        "m.ts",
        "function outer() {\n  const local = 1;\n  function inner() { return local; }\n  return inner();\n}\n",
    )
    assert set(qualified_all(syntax)) == {"outer", "outer.inner"}
    assert not one(syntax, "outer.inner").exported
    assert [b.name for b in syntax.bindings] == ["local"]


def test_ambient_modules_and_global_declaration_files_are_exported() -> None:
    vendor = parse_fixture("monorepo", "types/vendor.d.ts")
    assert one(vendor, "legacy-charts").kind is SymbolKind.NAMESPACE
    assert one(vendor, "legacy-charts.createChart").exported
    assert one(vendor, "legacy-charts.Chart.draw").exported
    globals_file = parse_fixture("monorepo", "types/globals.d.ts")
    assert one(globals_file, "__VERSION__").exported
    assert one(globals_file, "Window.acme").exported


def test_ambient_namespaces_without_exports_export_everything_they_declare() -> None:
    syntax = parse_source(
        "lib.ts",
        "declare namespace Lib {\n  function go(): void;\n  namespace Inner { const v: number; }\n}\n"
        "declare namespace Explicit {\n  export function shown(): void;\n  function hidden(): void;\n}\n"
        "namespace Plain {\n  function hidden(): void {}\n}\nexport = Lib;\n",
    )
    assert one(syntax, "Lib").exported  # through `export =`
    assert one(syntax, "Lib.go").exported
    assert one(syntax, "Lib.Inner.v").exported
    assert one(syntax, "Explicit.shown").exported
    assert not one(syntax, "Explicit.hidden").exported
    assert not one(syntax, "Plain.hidden").exported
    assert syntax.exports == (ExportAlias("default", "Lib", 12),)


def test_same_named_functions_in_two_modules_are_separate_declarations() -> None:
    core = parse_fixture("monorepo", "packages/core/src/format.ts")
    app = parse_fixture("monorepo", "packages/app/src/lib/format.ts")
    assert one(core, "format").signature == "export function format(value: number, digits = 2): string"
    assert one(app, "format").signature == "export function format(value: number): string"
    assert one(core, "format").doc == "Formats a number with fixed decimals."


# ---- imports and exports ----------------------------------------------------------------------


def test_named_default_namespace_and_side_effect_imports_bind_their_local_names() -> None:
    syntax = parse_fixture("monorepo", "packages/app/src/main.ts")
    shapes = {(i.module, i.name, i.local_name) for i in syntax.imports}
    assert shapes == {
        ("./polyfills", None, None),
        ("@acme/core", "add", "add"),
        ("@acme/core", "formatNumber", "formatNumber"),
        ("@acme/core", "Logger", "Logger"),
        ("@acme/core/math", "circleArea", "circleArea"),
        ("node:fs", "readFileSync", "readFileSync"),
        ("lodash/debounce", "default", "debounce"),
        ("@app/config", "settings", "settings"),
        ("./lib/format", "format", "format"),
        ("./lib/format", "Options", "Options"),
    }
    assert not any(i.wildcard or i.reexport for i in syntax.imports)
    debounce = next(i for i in syntax.imports if i.local_name == "debounce")
    assert (debounce.line, debounce.column) == (5, 7)


def test_aliased_and_namespace_imports_keep_both_names() -> None:
    syntax = parse_source("m.ts", 'import def, { a as b } from "m";\nimport * as ns from "n";\n')
    assert [(i.module, i.name, i.local_name) for i in syntax.imports] == [
        ("m", "default", "def"),
        ("m", "a", "b"),
        ("n", None, "ns"),
    ]


def test_export_from_statements_are_reexports() -> None:
    syntax = parse_fixture("monorepo", "packages/core/src/index.ts")
    assert [(i.module, i.name, i.local_name, i.wildcard, i.reexport) for i in syntax.imports] == [
        ("./math.js", None, None, True, True),
        ("./format", "format", "formatNumber", False, True),
        ("./logger", "default", "Logger", False, True),
        ("./units", None, "units", False, True),
    ]
    assert syntax.declarations == ()


def test_export_lists_and_export_default_create_aliases_and_mark_declarations_exported() -> None:
    syntax = parse_source(
        "m.ts",
        'import { shared } from "./shared";\nfunction a() {}\nconst b = 1;\nfunction hidden() {}\n'
        "export { a as renamed, b, shared };\nexport default a;\n",
    )
    assert set(syntax.exports) == {
        ExportAlias("renamed", "a", 5),
        ExportAlias("shared", "shared", 5),
        ExportAlias("default", "a", 6),
    }
    assert one(syntax, "a").exported
    assert one(syntax, "b").exported
    assert not one(syntax, "hidden").exported


def test_export_default_of_a_named_declaration_aliases_it_and_anonymous_defaults_are_named_default() -> None:
    named = parse_fixture("commonjs", "src/Counter.jsx")
    assert named.exports == (ExportAlias("default", "Counter", 1),)
    assert one(named, "Counter").exported
    anonymous = parse_source("m.ts", "export default class {\n  run() {}\n}\n")
    assert one(anonymous, "default").kind is SymbolKind.CLASS
    assert one(anonymous, "default.run").exported
    arrow = parse_source("a.ts", "export default () => 1;\n")
    assert one(arrow, "default").kind is SymbolKind.FUNCTION


def test_require_binds_the_module_or_destructured_members() -> None:
    syntax = parse_fixture("commonjs", "lib/index.js")
    assert [(i.module, i.name, i.local_name) for i in syntax.imports] == [
        ("./store", "Store", "Store"),
        ("./util", None, "util"),
        ("events", None, "events"),
        ("#internal/math", "clamp", "clamp"),
    ]
    assert "util" not in qualified_all(syntax)  # an import binding, not a constant


def test_a_member_of_a_required_module_is_an_import_of_that_member() -> None:
    syntax = parse_source("m.js", "const EventEmitter = require('events').EventEmitter\n")
    assert [(i.module, i.name, i.local_name) for i in syntax.imports] == [("events", "EventEmitter", "EventEmitter")]
    assert syntax.declarations == ()
    assert used_names(syntax) == {"require"}


def test_assignments_to_other_module_level_members_stay_references() -> None:
    syntax = parse_source("m.js", "app.locals.title = 'x'\nfunction F () {}\nF.helper = 1\n")
    assert ("app.locals.title", Role.READ, 1) in uses(syntax)
    assert one(syntax, "F.helper").kind is SymbolKind.PROPERTY
    assert "F.helper" not in used_names(syntax)


def test_import_equals_require_dynamic_import_and_bare_require_are_imports() -> None:
    syntax = parse_source(
        "m.ts", 'import fs = require("fs");\nasync function f() { await import("./lazy"); require("./side"); }\n'
    )
    assert [(i.module, i.name, i.local_name) for i in syntax.imports] == [
        ("fs", None, "fs"),
        ("./lazy", None, None),
        ("./side", None, None),
    ]


def test_commonjs_exports_become_declarations_and_aliases() -> None:
    index = parse_fixture("commonjs", "lib/index.js")
    assert set(index.exports) == {ExportAlias("create", "createStore", 21), ExportAlias("Store", "Store", 21)}
    assert one(index, "createStore").exported
    assert not one(index, "onChange").exported
    store = parse_fixture("commonjs", "lib/store.js")
    assert one(store, "Store").exported
    assert one(store, "VERSION").kind is SymbolKind.CONSTANT
    util = parse_fixture("commonjs", "lib/util.js")
    assert one(util, "defaults").kind is SymbolKind.FUNCTION
    assert one(util, "defaults").exported


def test_prototype_and_static_assignments_declare_members_of_the_function() -> None:
    syntax = parse_fixture("commonjs", "lib/store.js")
    describe = one(syntax, "Legacy.describe")
    assert (describe.kind, describe.owner, describe.exported) == (SymbolKind.METHOD, "Legacy", True)
    assert one(syntax, "Legacy.create").owner == "Legacy"
    assert "Legacy.prototype.describe" not in used_names(syntax)


# ---- references -------------------------------------------------------------------------------


def test_reference_roles_distinguish_calls_callbacks_assignments_returns_and_types() -> None:
    syntax = parse_fixture("classes", "src/render.ts")
    found = uses(syntax)
    assert ("describeOne", Role.CALLBACK, 5) in found
    assert ("items.map", Role.CALL, 5) in found
    assert ("Circle", Role.CALL, 15) in found  # new Circle(2)
    assert ("scale", Role.CALL, 16) in found
    assert ("Circle", Role.TYPE, 16) in found  # `as Circle`
    assert ("report", Role.CALLBACK, 21) in found
    assert ("report", Role.ASSIGN, 28) in found
    assert ("lines", Role.RETURN, 7) in found
    assert ("Shape", Role.TYPE, 10) in found


def test_member_paths_keep_this_and_namespace_heads() -> None:
    shapes = parse_fixture("classes", "src/shapes.ts")
    assert ("this.log.info", Role.CALL, 32) in uses(shapes)
    assert ("this.#radius", Role.RETURN, 46) in uses(shapes)
    render = parse_fixture("classes", "src/render.ts")
    assert ("Geometry.distance", Role.CALL, 18) in uses(render)
    assert ("shapes.Base", Role.TYPE, 19) in uses(render)
    # inner parts of a member path are not references of their own
    assert "this.log" not in used_names(shapes)
    assert "Geometry" not in used_names(render)


def test_a_reference_is_placed_at_its_last_name() -> None:
    syntax = parse_source("m.ts", "Geometry.distance(a);\n")
    reference = next(r for r in syntax.references if r.names == ("Geometry", "distance"))
    assert (reference.line, reference.column, reference.start_byte) == (1, 9, 9)


def test_complex_receivers_become_an_empty_head() -> None:
    syntax = parse_source("m.ts", "a.b[0].c();\nf().g.h;\n")
    found = uses(syntax)
    assert ("", Role.CALL, 1) not in found
    assert (".c", Role.CALL, 1) in found
    assert ("a.b", Role.READ, 1) in found
    assert ("f", Role.CALL, 2) in found
    assert (".g.h", Role.READ, 2) in found


def test_literal_and_super_receivers_are_not_references() -> None:
    syntax = parse_source("m.ts", 'class A extends B { m() { super.m(); "a,b".split(","); [1].map(String); } }\n')
    names = used_names(syntax)
    assert "super.m" not in names
    assert ".split" not in names and ".map" not in names
    assert "String" in names


def test_heritage_clauses_are_extends_and_implements_references() -> None:
    syntax = parse_source(
        "m.ts",
        "class A extends mixins.Base<T> implements I, ns.J<U> {}\ninterface K extends L<M>, N {}\n",
    )
    found = uses(syntax)
    assert ("mixins.Base", Role.EXTENDS, 1) in found
    assert ("T", Role.TYPE, 1) in found
    assert ("I", Role.IMPLEMENTS, 1) in found
    assert ("ns.J", Role.IMPLEMENTS, 1) in found
    assert ("L", Role.EXTENDS, 2) in found
    assert ("N", Role.EXTENDS, 2) in found
    javascript = parse_fixture("commonjs", "lib/store.js")
    assert ("EventEmitter", Role.EXTENDS, 3) in uses(javascript)


def test_jsx_components_are_calls_and_intrinsic_elements_are_not() -> None:
    syntax = parse_fixture("monorepo", "packages/app/src/View.tsx")
    found = uses(syntax)
    assert ("Panel", Role.CALL, 9) in found
    assert ("Panel.Footer", Role.CALL, 11) in found
    assert ("onSelect", Role.CALLBACK, 9) in found  # a function passed as a prop
    assert "span" not in used_names(syntax)
    assert syntax.problems == ()
    jsx = parse_fixture("commonjs", "src/App.jsx")
    assert ("Counter", Role.CALL, 8) in uses(jsx)
    assert "main" not in used_names(jsx)


def test_decorators_are_calls() -> None:
    syntax = parse_source(
        "m.ts",
        "@Component({ selector: 'x' })\nexport class C {\n  @Input() name: string;\n  @HostListener\n  run() {}\n}\n",
    )
    found = uses(syntax)
    assert ("Component", Role.CALL, 1) in found
    assert ("Input", Role.CALL, 3) in found
    assert ("HostListener", Role.CALL, 4) in found
    assert one(syntax, "C.run").start_line == 4  # a method's range starts at its decorators


def test_declaration_names_import_names_and_string_literals_are_not_references() -> None:
    syntax = parse_fixture("classes", "src/render.ts")
    names = used_names(syntax)
    assert "render" in names  # used on line 21
    assert not any(r.line == 1 for r in syntax.references)  # the import line binds, it does not use
    declared = {(d.name_line, d.name_column) for d in syntax.declarations}
    assert not any((r.line, r.column) in declared for r in syntax.references)
    assert "utf-8" not in used_names(parse_fixture("monorepo", "packages/app/src/main.ts"))


# ---- bindings ---------------------------------------------------------------------------------


def test_parameters_and_locals_are_bindings_with_plain_type_names() -> None:
    syntax = parse_fixture("classes", "src/render.ts")
    types = {(b.name, b.type_name) for b in syntax.bindings}
    assert ("item", "Shape") in types  # item: Shape
    assert ("circle", "Circle") in types  # = new Circle(2)
    assert ("big", "Circle") in types  # = … as Circle
    assert ("items", "") in types  # Shape[] is not a plain name
    main = parse_fixture("monorepo", "packages/app/src/main.ts")
    assert ("options", "Options") in {(b.name, b.type_name) for b in main.bindings}  # options?: Options


def test_generic_and_nullable_annotations_state_their_plain_type() -> None:
    syntax = parse_source(
        "m.ts", "function f(a: Map<string, X>, b: Foo | undefined, c: Bar | null, d: A | B, e: ns.T) {}\n"
    )
    assert [(b.name, b.type_name) for b in syntax.bindings] == [
        ("a", "Map"),
        ("b", "Foo"),
        ("c", "Bar"),
        ("d", ""),
        ("e", ""),
    ]


def test_destructuring_catch_loop_and_type_parameters_are_bindings() -> None:
    syntax = parse_source(
        "m.ts",
        "function f<T>({ a, b: c }: Opts, [d, ...e]: T[]) {\n"
        "  for (const [k, { v }] of pairs) {}\n  try {} catch (err) {}\n  items.forEach(item => item);\n}\n",
    )
    assert [b.name for b in syntax.bindings] == ["T", "a", "c", "d", "e", "k", "v", "err", "item"]
    # binding sites are not uses; the arrow's body `item` is one
    assert used_names(syntax) == {"Opts", "T", "pairs", "items.forEach", "item"}


def test_module_level_variables_are_declarations_not_bindings() -> None:
    syntax = parse_fixture("monorepo", "packages/app/src/main.ts")
    assert one(syntax, "logger").kind is SymbolKind.CONSTANT
    assert "logger" not in {b.name for b in syntax.bindings}
    assert {"values", "sum", "path"} <= {b.name for b in syntax.bindings}


# ---- robustness -------------------------------------------------------------------------------


def test_a_syntax_error_is_reported_and_the_rest_of_the_file_still_counts() -> None:
    syntax = parse_fixture("broken", "src/half.ts")
    assert syntax.problems
    assert {p.line for p in syntax.problems} <= {8, 9, 10, 11}
    assert one(syntax, "before").exported
    assert one(syntax, "after").exported
    assert ("helper", Role.CALL, 14) in uses(syntax)
    assert [(i.name, i.local_name) for i in syntax.imports] == [("helper", "helper")]


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe\x00\x00garbage\x80\x81",
        bytes(range(256)) * 4,
        b"export function f(\xc3\x28: \xe2\x82) { return \xf0\x28\x8c\x28; }",
        b"class { { { ( [ <div> </span> export default",
        b"",
    ],
)
def test_parse_survives_garbage_bytes_and_invalid_utf8(data: bytes) -> None:
    for language, path in ((TS, "x.ts"), (TS, "x.tsx"), (TS, "x.d.ts"), (JS, "x.js")):
        syntax = language.parse(path, data)
        assert syntax.path == path


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(["x.ts", "x.tsx", "x.js"]))
def test_parse_never_raises_on_arbitrary_bytes(data: bytes, path: str) -> None:
    language = JS if path.endswith(".js") else TS
    assert language.parse(path, data).path == path


def test_parse_never_raises_on_truncated_fixture_sources() -> None:
    for case, path in (
        ("classes", "src/shapes.ts"),
        ("monorepo", "packages/app/src/View.tsx"),
        ("commonjs", "lib/store.js"),
    ):
        source = (FIXTURES / case / path).read_bytes()
        language = JS if path.endswith(JS_EXTENSIONS) else TS
        for end in range(0, len(source), 7):
            language.parse(path, source[:end])


# ---- module resolution ----------------------------------------------------------------------


def test_relative_specifiers_try_extensions_index_files_and_ts_sources_for_js() -> None:
    layout = fixture_layout(FIXTURES / "monorepo")
    main = "packages/app/src/main.ts"
    assert TS.resolve_module("./lib/format", main, layout) == ModuleTarget(files=("packages/app/src/lib/format.ts",))
    assert TS.resolve_module("./lib/panel.js", "packages/app/src/View.tsx", layout) == ModuleTarget(
        files=("packages/app/src/lib/panel.tsx",)
    )
    core = "packages/core/src/index.ts"
    assert TS.resolve_module("./math.js", core, layout).files == ("packages/core/src/math.ts",)
    assert TS.resolve_module(".", "packages/core/src/math.ts", layout).files == ("packages/core/src/index.ts",)
    assert TS.resolve_module("../src/units", core, layout).files == ("packages/core/src/units.ts",)


def test_an_unresolvable_relative_specifier_is_module_not_resolved() -> None:
    layout = fixture_layout(FIXTURES / "monorepo")
    main = "packages/app/src/main.ts"
    assert TS.resolve_module("./nowhere", main, layout) == ModuleTarget(reason="MODULE_NOT_RESOLVED")
    assert TS.resolve_module("../../../../outside", main, layout) == ModuleTarget(reason="MODULE_NOT_RESOLVED")


def test_workspace_package_names_resolve_to_the_package_source() -> None:
    layout = fixture_layout(FIXTURES / "monorepo")
    main = "packages/app/src/main.ts"
    # exports["."] names dist/index.d.ts, which is not checked in: its source is src/index.ts
    assert TS.resolve_module("@acme/core", main, layout).files == ("packages/core/src/index.ts",)
    assert TS.resolve_module("@acme/core/math", main, layout).files == ("packages/core/src/math.ts",)
    assert TS.resolve_module("@acme/core/missing", main, layout).reason == "MODULE_NOT_RESOLVED"


def test_tsconfig_paths_map_aliases_and_an_alias_without_files_is_not_resolved() -> None:
    layout = fixture_layout(FIXTURES / "monorepo")
    main = "packages/app/src/main.ts"
    assert TS.resolve_module("@app/config", main, layout).files == ("packages/app/src/config.ts",)
    assert TS.resolve_module("@missing/thing", main, layout).reason == "MODULE_NOT_RESOLVED"
    # baseUrl "." makes tree paths importable by their full name
    assert TS.resolve_module("packages/core/src/units", main, layout).files == ("packages/core/src/units.ts",)


def test_bare_and_node_specifiers_are_external_packages() -> None:
    layout = fixture_layout(FIXTURES / "monorepo")
    main = "packages/app/src/main.ts"
    assert TS.resolve_module("lodash/debounce", main, layout) == ModuleTarget(external="lodash")
    assert TS.resolve_module("node:fs", main, layout) == ModuleTarget(external="node:fs")
    assert TS.resolve_module("node:fs/promises", main, layout) == ModuleTarget(external="node:fs")
    assert TS.resolve_module("@types/react/jsx-runtime", main, layout) == ModuleTarget(external="@types/react")
    assert JS.resolve_module("events", "lib/index.js", fixture_layout(FIXTURES / "commonjs")) == ModuleTarget(
        external="events"
    )


def test_package_imports_resolve_hash_specifiers() -> None:
    layout = fixture_layout(FIXTURES / "commonjs")
    assert JS.resolve_module("#internal/math", "lib/index.js", layout).files == ("lib/internal/math.js",)
    assert JS.resolve_module("#internal/none", "lib/index.js", layout).reason == "MODULE_NOT_RESOLVED"
    assert JS.resolve_module("./store", "lib/index.js", layout).files == ("lib/store.js",)


def test_tsconfig_with_comments_trailing_commas_and_extends_provides_paths() -> None:
    layout = layout_of(
        {
            "tsconfig.base.json": '{\n  // shared\n  "compilerOptions": {\n    "baseUrl": "./src",\n'
            '    "paths": { "~/*": ["*"], },\n  },\n}\n',
            "web/tsconfig.json": '{ "extends": "../tsconfig.base.json", /* nothing else */ }',
            "src/util/strings.ts": "export const x = 1;\n",
            "web/app.ts": 'import { x } from "~/util/strings";\n',
        }
    )
    assert TS.resolve_module("~/util/strings", "web/app.ts", layout).files == ("src/util/strings.ts",)
    assert TS.resolve_module("util/strings", "web/app.ts", layout).files == ("src/util/strings.ts",)


def test_a_package_entry_falls_back_to_src_index_when_manifest_fields_name_build_output() -> None:
    layout = layout_of(
        {
            "libs/a/package.json": '{ "name": "a", "main": "lib/main.js" }',
            "libs/a/src/main.ts": "export {};\n",
            "libs/b/package.json": '{ "name": "b" }',
            "libs/b/index.js": "module.exports = 1;\n",
            "app.ts": "",
        }
    )
    assert TS.resolve_module("a", "app.ts", layout).files == ("libs/a/src/main.ts",)
    assert TS.resolve_module("b", "app.ts", layout).files == ("libs/b/index.js",)


def test_two_workspace_packages_with_one_name_are_ambiguous_unless_one_contains_the_importer() -> None:
    layout = layout_of(
        {
            "one/package.json": '{ "name": "twin" }',
            "one/index.ts": "",
            "two/package.json": '{ "name": "twin" }',
            "two/index.ts": "",
            "app.ts": "",
        }
    )
    assert TS.resolve_module("twin", "app.ts", layout) == ModuleTarget(reason="AMBIGUOUS_PACKAGE_PROVIDER")
    assert TS.resolve_module("twin", "two/index.ts", layout).files == ("two/index.ts",)


# ---- packages and the adapters themselves -----------------------------------------------------


def test_files_belong_to_the_nearest_named_package_json() -> None:
    layout = fixture_layout(FIXTURES / "monorepo")
    files = ["packages/core/src/math.ts", "packages/app/src/View.tsx", "types/globals.d.ts"]
    packages = TS.packages(layout, files)
    core = packages["packages/core/src/math.ts"]
    assert (core.id, core.name, core.version, core.root, core.manifest) == (
        "typescript:@acme/core",
        "@acme/core",
        "2.0.0",
        "packages/core",
        "packages/core/package.json",
    )
    assert packages["packages/app/src/View.tsx"].name == "@acme/app"
    assert packages["types/globals.d.ts"].id == "typescript:acme-monorepo"
    assert packages["types/globals.d.ts"].root == ""


def test_files_under_no_named_package_get_no_package() -> None:
    layout = layout_of(
        {
            "package.json": '{ "name": "outer", "version": "1.0.0" }',
            "esm/package.json": '{ "type": "module" }',
            "esm/a.js": "",
            "other/b.js": "",
            "loose/package.json": "not json",
        }
    )
    assert JS.packages(layout, ["esm/a.js"])["esm/a.js"].id == "javascript:outer"
    lonely = layout_of({"src/c.ts": "", "src/package.json": '{ "private": true }'})
    assert TS.packages(lonely, ["src/c.ts"]) == {}


def test_adapters_declare_their_languages_extensions_and_rules() -> None:
    assert TS.language is Language.TYPESCRIPT
    assert JS.language is Language.JAVASCRIPT
    assert set(TS.extensions) == {".ts", ".tsx", ".mts", ".cts"}
    assert set(JS.extensions) == {".js", ".jsx", ".mjs", ".cjs"}
    for language in (TS, JS):
        assert language.separator == "."
        assert language.self_names == frozenset({"this"})
        assert not language.imports_visible_as_members
        assert not language.package_scope
        assert {"console", "Promise", "Object", "window", "string", "Record", "undefined"} <= language.builtins


def test_the_registry_finds_both_adapters_and_declaration_files_are_typescript() -> None:
    assert isinstance(adapter(Language.TYPESCRIPT), TypeScriptAdapter)
    assert isinstance(adapter(Language.JAVASCRIPT), JavaScriptAdapter)
    assert language_of("types/globals.d.ts") is Language.TYPESCRIPT
    assert language_of("src/App.jsx") is Language.JAVASCRIPT
    assert language_of("src/View.tsx") is Language.TYPESCRIPT


def test_tsx_files_parse_with_the_tsx_grammar_and_ts_files_with_the_typescript_grammar() -> None:
    source = "const a = <Foo>bar;\n"
    assert parse_source("m.ts", source).problems == ()  # a type assertion in .ts
    assert ("Foo", Role.TYPE, 1) in uses(parse_source("m.ts", source))
    assert parse_source("m.tsx", source).problems != ()  # an unclosed element in .tsx


def test_import_records_carry_their_position() -> None:
    syntax = parse_fixture("monorepo", "packages/core/src/index.ts")
    first = syntax.imports[0]
    assert isinstance(first, Import)
    assert (first.line, first.column) == (2, 14)
    source = (FIXTURES / "monorepo" / "packages/core/src/index.ts").read_bytes()
    assert source[first.start_byte :].startswith(b'"./math.js"')


# ---- object literals ------------------------------------------------------------------------


def test_methods_and_function_properties_of_a_module_level_object_literal_are_its_members() -> None:
    syntax = parse_fixture("objects", "src/handlers.ts")
    names = qualified_all(syntax)
    assert one(syntax, "handlers.open").kind is SymbolKind.METHOD
    assert one(syntax, "handlers.close").kind is SymbolKind.METHOD
    assert one(syntax, "add.run").kind is SymbolKind.METHOD
    assert one(syntax, "handlers.open").exported  # a member of an exported object is public
    assert "handlers.save" not in names  # a shorthand names a binding; it declares nothing
    assert "add.kind" not in names  # data keys are not declarations
    assert "commit.run" not in names  # `run: flush` holds a function declared elsewhere
    assert "named.run" not in names  # literals inside functions are values, not declarations


def test_nested_literals_getters_string_keys_defaults_and_static_fields_declare_members() -> None:
    syntax = parse_fixture("objects", "src/routes.ts")
    names = qualified_all(syntax)
    assert one(syntax, "api.users").kind is SymbolKind.PROPERTY
    assert one(syntax, "api.users.list").kind is SymbolKind.METHOD
    assert one(syntax, "api.ready").kind is SymbolKind.GETTER
    assert one(syntax, "api.quoted").kind is SymbolKind.METHOD
    assert one(syntax, "default.start").kind is SymbolKind.METHOD
    assert one(syntax, "Router.table.route").kind is SymbolKind.METHOD
    assert "api.limits" not in names  # a nested record of data declares nothing
    assert "api.limits.max" not in names


def test_keys_of_a_literal_typed_beside_it_name_the_members_of_that_type() -> None:
    syntax = parse_fixture("objects", "src/handlers.ts")
    keys = {(r.names, r.role, r.line) for r in syntax.references if len(r.names) == 2 and r.names[0] == "Command"}
    assert (("Command", "kind"), Role.READ, 31) in keys
    assert (("Command", "run"), Role.IMPLEMENTS, 32) in keys  # `add.run` is declared: it implements
    assert (("Command", "run"), Role.READ, 37) in keys  # `run: flush` only names the member
    assert (("Command", "run"), Role.READ, 39) in keys  # `… satisfies Command`
    assert (("Command", "run"), Role.READ, 49) in keys  # the shorthand `{ run }`
    assert (("Command", "run"), Role.READ, 52) in keys  # a local `const command: Command = {…}`
    assert not any(line in (42, 61) for _, _, line in keys)  # no type written beside the literal
    assert ("run", Role.ASSIGN, 49) in uses(syntax)  # the shorthand still uses its binding


def named_edges(generation) -> set[tuple[str, str, str]]:
    name = {
        s.key: f"{s.file}:{'<module>' if s.kind is SymbolKind.MODULE else s.qualified_name}" for s in generation.symbols
    }
    return {(name[e.source], e.kind.value, name[e.target]) for e in generation.edges}


def test_without_analyzers_object_literal_members_own_their_calls_and_keys_reach_members(make_repo) -> None:
    repo = make_repo(name="objects")
    shutil.copytree(FIXTURES / "objects", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    generation = index_repository(str(repo.path))
    assert all(e.confidence is Confidence.CANDIDATE for e in generation.edges if e.kind is not EdgeKind.METHOD_OF)
    edges = named_edges(generation)
    h, r, sc = "src/handlers.ts", "src/routes.ts", "src/scope.ts"
    must = {
        (f"{sc}:tasks.start", "CALLS_DIRECT", f"{sc}:flush"),
        (f"{sc}:tasks.start", "CALLS_DIRECT", f"{sc}:tasks.flush"),
        (f"{h}:handlers.open", "CALLS_DIRECT", f"{h}:log"),
        (f"{h}:handlers.close", "CALLS_DIRECT", f"{h}:save"),
        (f"{h}:handlers", "ASSIGNS_FUNCTION", f"{h}:save"),
        (f"{h}:use", "CALLS_DIRECT", f"{h}:handlers.open"),
        (f"{h}:add.run", "IMPLEMENTS", f"{h}:Command.run"),
        (f"{h}:add.run", "CALLS_DIRECT", f"{h}:log"),
        (f"{h}:add", "REFERENCES", f"{h}:Command.kind"),
        (f"{h}:commit", "REFERENCES", f"{h}:Command.run"),
        (f"{h}:commit", "ASSIGNS_FUNCTION", f"{h}:flush"),
        (f"{h}:quick", "REFERENCES", f"{h}:Command.run"),
        (f"{h}:short", "REFERENCES", f"{h}:Command.run"),
        (f"{h}:short", "ASSIGNS_FUNCTION", f"{h}:run"),
        (f"{h}:wrap", "REFERENCES", f"{h}:Command.run"),
        (f"{h}:argument", "ASSIGNS_FUNCTION", f"{h}:run"),
        (f"{r}:api.users.list", "CALLS_DIRECT", f"{h}:log"),
        (f"{r}:default.start", "CALLS_DIRECT", f"{h}:handlers.open"),
        (f"{r}:Router.table.route", "CALLS_DIRECT", f"{h}:log"),
        (f"{r}:visit", "CALLS_DIRECT", f"{r}:api.users.list"),
        (f"{r}:visit", "CALLS_DIRECT", f"{h}:handlers.close"),
        (f"{r}:visit", "CALLS_DIRECT", f"{r}:fetch"),
    }
    must_not = {
        (f"{h}:<module>", "CALLS_DIRECT", f"{h}:log"),
        (f"{h}:handlers", "CALLS_DIRECT", f"{h}:log"),
        (f"{h}:add", "CALLS_DIRECT", f"{h}:log"),
        (f"{h}:add", "REFERENCES", f"{h}:Command.run"),
        (f"{h}:commit", "IMPLEMENTS", f"{h}:Command.run"),
        (f"{h}:short", "ASSIGNS_FUNCTION", f"{h}:Command.run"),
        (f"{r}:<module>", "CALLS_DIRECT", f"{h}:handlers.open"),
        (f"{r}:api", "CALLS_DIRECT", f"{h}:log"),
    }
    assert must <= edges, must - edges
    assert not must_not & edges, must_not & edges
