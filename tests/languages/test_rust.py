"""The Rust syntax layer: declarations, imports, bindings and references from real-looking crates,
module files resolved by Rust's rules, and crates read from Cargo manifests."""

import random
import shutil
from pathlib import Path

import pytest

from kivgraph.indexing import index_repository
from kivgraph.languages import ModuleTarget
from kivgraph.languages.rust.adapter import RustAdapter
from kivgraph.languages.syntax import FileSyntax, Import, Role
from kivgraph.model import Confidence, EdgeKind, Language, SymbolKind
from tests.languages.helpers import declaration, fixture_layout, inside, references

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rust"
ADAPTER = RustAdapter()


def parse_fixture(case: str, path: str) -> FileSyntax:
    return ADAPTER.parse(path, (FIXTURES / case / path).read_bytes())


def parse_text(text: str) -> FileSyntax:
    return ADAPTER.parse("src/lib.rs", text.encode("utf-8"))


# --- declarations --------------------------------------------------------------------------


def test_methods_of_an_impl_block_are_owned_by_its_self_type() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    new = declaration(model, "new")
    assert new.kind == SymbolKind.METHOD
    assert new.owner == "Item"
    assert new.exported
    assert new.signature == "pub fn new(name: &str, price: u64) -> Self"
    assert (new.start_line, new.end_line, new.name_line) == (28, 30, 28)
    assert new.doc == "A new item."  # first paragraph only
    discounted = declaration(model, "discounted")
    assert discounted.owner == "Item" and not discounted.exported


def test_generic_impl_blocks_name_the_type_without_its_arguments() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    assert {d.owner for d in lib.declarations if d.name in ("new", "run", "picker")} == {"Registry"}


def test_trait_items_nest_inside_the_trait_and_need_no_owner() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    trait = declaration(model, "Priced")
    assert trait.kind == SymbolKind.TRAIT and trait.opens_scope
    for name in ("cents", "with_tax"):
        method = [d for d in model.declarations if d.name == name and inside(d, trait)]
        assert len(method) == 1
        assert method[0].kind == SymbolKind.METHOD and method[0].owner == "" and method[0].exported
    assert declaration(model, "with_tax").doc == "The price with tax, rounded down."


def test_trait_impl_methods_are_owned_and_public_through_the_trait() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    impl_cents = [d for d in model.declarations if d.name == "cents" and d.owner == "Item"]
    assert len(impl_cents) == 1 and impl_cents[0].exported


def test_enum_variants_and_struct_fields_are_members_of_their_type() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    status = declaration(model, "Status")
    variants = [d for d in model.declarations if d.kind == SymbolKind.ENUM_MEMBER]
    assert [v.name for v in variants] == ["Open", "Paid", "Cancelled"]
    assert all(inside(v, status) and v.exported for v in variants)
    item = declaration(model, "Item", SymbolKind.STRUCT)
    fields = {d.name: d for d in model.declarations if d.kind == SymbolKind.FIELD and inside(d, item)}
    assert set(fields) == {"name", "price"}
    assert fields["name"].exported and not fields["price"].exported
    assert fields["name"].signature == "pub name: String"


def test_every_item_kind_is_declared_and_impl_blocks_are_not() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    kinds = {d.name: d.kind for d in lib.declarations}
    assert kinds["square"] == SymbolKind.MACRO
    assert kinds["Callback"] == SymbolKind.TYPE_ALIAS
    assert kinds["UNIT"] == SymbolKind.CONSTANT
    assert kinds["Bits"] == SymbolKind.UNION
    assert kinds["Registry"] == SymbolKind.STRUCT
    assert kinds["tests"] == SymbolKind.MODULE
    assert kinds["squared_area"] == SymbolKind.FUNCTION
    geometry = parse_fixture("items", "src/geometry/mod.rs")
    units = declaration(geometry, "units", SymbolKind.MODULE)
    assert inside(declaration(geometry, "PI", SymbolKind.CONSTANT), units)
    assert inside(declaration(geometry, "degrees"), units)
    assert not any(d.signature.startswith("impl") for d in lib.declarations)


def test_nested_functions_and_test_modules_nest_by_byte_range() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    assert inside(declaration(lib, "inner"), declaration(lib, "squared_area"))
    assert declaration(lib, "inner").kind == SymbolKind.FUNCTION
    assert inside(declaration(lib, "squared_area_of_a_unit_circle"), declaration(lib, "tests"))


def test_signatures_stop_where_the_body_or_value_starts() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    assert declaration(lib, "Registry").signature == "pub struct Registry<T: Shape>"
    assert declaration(lib, "run").signature == "pub fn run(&mut self, name: &str, shape: &T) -> Option<f64>"
    assert declaration(lib, "UNIT").signature == "pub static UNIT: f64"
    assert declaration(lib, "square").signature == "macro_rules! square"
    assert declaration(lib, "Callback").signature == "pub type Callback = fn(&dyn Shape) -> f64"


def test_doc_comments_reach_through_attributes_and_ignore_inner_docs() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    assert declaration(model, "Item", SymbolKind.STRUCT).doc == "One thing a customer can buy."
    assert declaration(model, "Status").doc == ""
    syntax = parse_text("//! The crate.\n\nfn undocumented() {}\n\n// plain comment\nfn plain() {}\n")
    assert declaration(syntax, "undocumented").doc == ""
    assert declaration(syntax, "plain").doc == ""
    syntax = parse_text("/** Block doc.\n * More. */\n#[inline]\npub fn blocky() {}\n")
    assert declaration(syntax, "blocky").doc == "Block doc. More."


def test_exported_means_any_pub_visibility() -> None:
    syntax = parse_text("pub fn a() {}\npub(crate) fn b() {}\nfn c() {}\nstruct S { public: u8 }\n")
    assert [d.exported for d in syntax.declarations if d.kind == SymbolKind.FUNCTION] == [True, True, False]
    assert not declaration(syntax, "public").exported


def test_same_named_functions_in_two_crates_are_separate_declarations() -> None:
    library = declaration(parse_fixture("workspace", "core_lib/src/lib.rs"), "version")
    cli = declaration(parse_fixture("workspace", "app/src/cli.rs"), "version")
    assert library.kind == cli.kind == SymbolKind.FUNCTION
    assert library.doc == "The library's version, as shipped."
    assert cli.doc == "The command line's own version, unrelated to the library's."


# --- imports -------------------------------------------------------------------------------


def test_use_declarations_bind_each_name_and_pub_use_reexports() -> None:
    lib = parse_fixture("workspace", "core_lib/src/lib.rs")
    assert lib.imports == (
        Import("self::model", None, "model", 3, 0, 55, reexport=True),
        Import("self::storage", None, "storage", 4, 0, 70, reexport=False),
        Import("model", "Item", "Item", 6, 16, 100, reexport=True),
        Import("model", "Order", "Order", 6, 22, 106, reexport=True),
        Import("storage", "Store", "Warehouse", 7, 8, 122, reexport=True),
    )


def test_use_trees_expand_self_wildcards_aliases_and_extern_crates() -> None:
    syntax = parse_text(
        "use a::b::{self, C, d::E as F};\nuse ::std::io::*;\nuse std::fmt::Write as _;\nextern crate serde as sd;\n"
    )
    shapes = [(i.module, i.name, i.local_name, i.wildcard) for i in syntax.imports]
    assert shapes == [
        ("a::b", None, "b", False),
        ("a::b", "C", "C", False),
        ("a::b::d", "E", "F", False),
        ("std::io", None, None, True),
        ("std::fmt", "Write", None, False),
        ("serde", None, "sd", False),
    ]


def test_use_super_inside_an_inline_test_module_means_the_file_itself() -> None:
    storage = parse_fixture("workspace", "core_lib/src/storage/mod.rs")
    wildcard = [i for i in storage.imports if i.wildcard]
    assert [(i.module, i.line) for i in wildcard] == [("self", 33)]
    assert [i.module for i in storage.imports if i.local_name == "cache"] == ["self::cache"]


# --- references ----------------------------------------------------------------------------


def test_crate_super_and_self_paths_carry_their_leading_keywords_as_module() -> None:
    cache = parse_fixture("workspace", "core_lib/src/storage/cache.rs")
    [call] = references(cache, "version")
    assert (call.module, call.role, call.line) == ("crate", Role.CALL, 5)
    syntax = parse_text("fn f() { super::super::Thing::new(); self::helper(); crate::a::b(); }")
    assert [(r.module, r.names) for r in syntax.references] == [
        ("super::super", ("Thing", "new")),
        ("self", ("helper",)),
        ("crate", ("a", "b")),
    ]


def test_paths_headed_by_a_name_nothing_binds_are_looked_up_as_a_crate() -> None:
    main = parse_fixture("workspace", "app/src/main.rs")
    [version] = [r for r in main.references if r.names == ("version",)]
    assert (version.module, version.role) == ("shop_core", Role.CALL)
    assert [r.module for r in references(main, "cli", "run")] == [""]  # `mod cli;` binds it
    geometry = parse_fixture("items", "src/geometry/mod.rs")
    assert [r.module for r in geometry.references if r.names == ("f64", "consts", "PI")] == ["std"]
    syntax = parse_text("fn f() -> u32 { u32::MAX }")
    assert references(syntax, "u32", "MAX")[0].module == ""


def test_calls_callbacks_assignments_and_returns_get_their_roles() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    area_of = [(r.role, r.line) for r in references(lib, "area_of")]
    assert area_of == [(Role.CALLBACK, 28), (Role.ASSIGN, 39)]
    assert [(r.role, r.line) for r in references(lib, "chosen")] == [(Role.RETURN, 40)]
    assert [r.role for r in references(lib, "handler")] == [Role.CALL]
    assert [r.role for r in references(lib, "Map", "new")] == [Role.CALL]
    assert [r.role for r in references(lib, "self", "handlers", "get")] == [Role.CALL]
    assert [r.role for r in references(lib, "UNIT")] == [Role.READ]


def test_method_calls_on_expressions_have_an_empty_head() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    [collect] = references(lib, "", "collect")
    assert collect.role == Role.CALL and collect.line == 60
    assert references(lib, "shapes", "iter")[0].role == Role.CALL


def test_calls_inside_macro_arguments_are_found() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    assert [r.line for r in references(lib, "circle", "area")] == [59]
    assert [r.line for r in references(lib, "squared_area")] == [71]
    assert [r.role for r in references(lib, "square")] == [Role.CALL]


def test_types_in_signatures_and_struct_literals_are_type_references() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    assert {r.role for r in references(lib, "Callback")} == {Role.TYPE}
    assert [r.line for r in references(lib, "geometry", "Circle")] == [56, 59]
    assert [r.role for r in references(lib, "Registry")] == [Role.TYPE]  # the struct literal
    declared = declaration(lib, "Registry")
    assert all(r.start_byte != declared.start_byte + 11 for r in lib.references)


def test_trait_impls_implement_with_the_impl_type_as_subject_and_supertraits_extend() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    [implements] = references(model, "Priced")[:1]
    assert (implements.role, implements.subject, implements.line) == (Role.IMPLEMENTS, "Item", 37)
    [extends] = references(model, "fmt", "Debug")
    assert extends.role == Role.EXTENDS
    storage = parse_fixture("workspace", "core_lib/src/storage/mod.rs")
    [default] = references(storage, "Default")
    assert (default.role, default.subject) == (Role.IMPLEMENTS, "Store")


def test_generic_parameters_bind_their_names_instead_of_referring() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    generics = [b for b in lib.bindings if b.name == "T"]
    assert len(generics) == 2
    assert all(r.start_byte not in {b.start_byte for b in generics} for r in lib.references)


def test_bindings_carry_the_plain_type_their_syntax_states() -> None:
    lib = parse_fixture("items", "src/lib.rs")
    types = {(b.name, b.type_name) for b in lib.bindings}
    assert ("self", "Registry") in types
    assert ("handlers", "Map") in types  # `Map<String, Callback>`
    assert ("circle", "Circle") in types  # `&geometry::Circle` and `Circle::new(1.0)`
    assert ("shape", "Shape") in types  # `&impl Shape`
    assert ("chosen", "") in types
    storage = parse_fixture("workspace", "core_lib/src/storage/mod.rs")
    assert ("item", "Item") in {(b.name, b.type_name) for b in storage.bindings}
    syntax = parse_text(
        "struct S;\nimpl S { fn f(other: Box<Self>) { let (a, mut b) = (1, 2); match x { Some(v) => {} } } }"
    )
    assert {(b.name, b.type_name) for b in syntax.bindings} == {("other", "S"), ("a", ""), ("b", ""), ("v", "")}


# --- problems ------------------------------------------------------------------------------


def test_a_file_with_syntax_errors_keeps_its_other_declarations() -> None:
    broken = parse_fixture("broken", "src/lib.rs")
    assert [p.line for p in broken.problems] == [8, 12, 12]
    assert [d.name for d in broken.declarations] == ["Parser", "pos", "advance", "peek", "after_errors"]
    assert declaration(broken, "after_errors").doc == "Still found after the errors above."


def test_parse_survives_any_bytes() -> None:
    rng = random.Random(20260101)
    for _ in range(300):
        data = rng.randbytes(rng.randrange(400))
        assert ADAPTER.parse("junk.rs", data).path == "junk.rs"


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe\x00fn \xc3\x28() { let x = \x80; }",
        b"impl<T> for {{{{ use ::{self as , *}; mod ; pub(in) fn",
        bytes(range(256)) * 4,
        "fn naïve() { let é = ünïcode::ok(); }".encode(),
    ],
)
def test_parse_survives_invalid_utf8_and_half_written_code(data: bytes) -> None:
    syntax = ADAPTER.parse("junk.rs", data)
    assert isinstance(syntax.references, tuple)


# --- modules and crates --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "from_file", "target"),
    [
        ("self::model", "core_lib/src/lib.rs", ModuleTarget(files=("core_lib/src/model.rs",))),
        ("model", "core_lib/src/lib.rs", ModuleTarget(files=("core_lib/src/model.rs",))),
        ("storage", "core_lib/src/lib.rs", ModuleTarget(files=("core_lib/src/storage/mod.rs",))),
        ("crate::model", "core_lib/src/storage/mod.rs", ModuleTarget(files=("core_lib/src/model.rs",))),
        ("self::cache", "core_lib/src/storage/mod.rs", ModuleTarget(files=("core_lib/src/storage/cache.rs",))),
        ("super::super::model", "core_lib/src/storage/cache.rs", ModuleTarget(files=("core_lib/src/model.rs",))),
        ("super", "core_lib/src/storage/cache.rs", ModuleTarget(files=("core_lib/src/storage/mod.rs",))),
        ("crate", "core_lib/src/storage/cache.rs", ModuleTarget(files=("core_lib/src/lib.rs",))),
        ("self", "core_lib/src/storage/mod.rs", ModuleTarget(files=("core_lib/src/storage/mod.rs",))),
        ("self::cli", "app/src/main.rs", ModuleTarget(files=("app/src/cli.rs",))),
        ("crate::model::Item", "core_lib/src/lib.rs", ModuleTarget(files=("core_lib/src/model.rs",))),
        ("shop_core", "app/src/main.rs", ModuleTarget(files=("core_lib/src/lib.rs",))),
        ("std::collections", "app/src/main.rs", ModuleTarget(external="std")),
        ("serde", "core_lib/src/model.rs", ModuleTarget(external="serde")),
        ("crate::nothing", "core_lib/src/lib.rs", ModuleTarget(reason="MODULE_NOT_RESOLVED")),
        ("self::missing", "app/src/main.rs", ModuleTarget(reason="MODULE_NOT_RESOLVED")),
        ("super", "core_lib/src/lib.rs", ModuleTarget(reason="MODULE_NOT_RESOLVED")),
    ],
)
def test_module_paths_resolve_by_rust_module_file_rules(spec: str, from_file: str, target: ModuleTarget) -> None:
    assert ADAPTER.resolve_module(spec, from_file, fixture_layout(FIXTURES / "workspace")) == target


def test_inline_modules_and_custom_lib_paths_resolve_to_the_file_that_holds_them() -> None:
    layout = fixture_layout(FIXTURES / "items")
    assert ADAPTER.resolve_module("crate::geometry::units", "src/geometry/circle.rs", layout) == ModuleTarget(
        files=("src/geometry/mod.rs",)
    )
    assert ADAPTER.resolve_module("super::units", "src/geometry/circle.rs", layout) == ModuleTarget(
        files=("src/geometry/mod.rs",)
    )
    assert ADAPTER.resolve_module("self::circle", "src/geometry/mod.rs", layout) == ModuleTarget(
        files=("src/geometry/circle.rs",)
    )


def test_packages_come_from_the_nearest_manifest_and_inherit_the_workspace_version() -> None:
    layout = fixture_layout(FIXTURES / "workspace")
    packages = ADAPTER.packages(layout, ["core_lib/src/storage/cache.rs", "app/src/cli.rs", "Cargo.toml"])
    core = packages["core_lib/src/storage/cache.rs"]
    assert (core.id, core.name, core.root, core.manifest, core.version) == (
        "rust:shop-core",
        "shop-core",
        "core_lib",
        "core_lib/Cargo.toml",
        "0.3.0",
    )
    assert core.language == Language.RUST
    assert packages["app/src/cli.rs"].id == "rust:app"
    assert "Cargo.toml" not in packages  # the virtual workspace manifest declares no crate


def test_the_adapter_states_rusts_rules_as_data() -> None:
    assert ADAPTER.language == Language.RUST
    assert ADAPTER.extensions == (".rs",)
    assert ADAPTER.separator == "::"
    assert ADAPTER.self_names == frozenset({"self", "Self"})
    assert not ADAPTER.imports_visible_as_members and not ADAPTER.implicit_member_scope
    assert {"Vec", "Option", "println", "u8", "String"} <= ADAPTER.builtins
    assert "Item" not in ADAPTER.builtins


# --- trait impl methods --------------------------------------------------------------------


def test_each_method_of_a_trait_impl_refers_to_the_trait_method_of_its_name() -> None:
    model = parse_fixture("workspace", "core_lib/src/model.rs")
    [cents] = references(model, "Priced", "cents")
    assert (cents.role, cents.line, cents.column, cents.subject) == (Role.IMPLEMENTS, 38, 7, "")
    implementing = [r.names for r in model.references if r.role is Role.IMPLEMENTS and len(r.names) > 1]
    assert implementing == [("Priced", "cents")]  # not `new` (inherent), not `with_tax` (provided)
    cache = parse_fixture("workspace", "core_lib/src/storage/cache.rs")
    [(module, names)] = [(r.module, r.names) for r in cache.references if r.names[-1] == "cents"]
    assert (module, names) == ("crate", ("model", "Priced", "cents"))


def test_trait_impl_methods_implement_the_trait_methods_without_the_type_checker(make_repo) -> None:
    repo = make_repo(name="workspace")
    shutil.copytree(FIXTURES / "workspace", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    generation = index_repository(str(repo.path))
    names = {s.key: f"{s.file}:{s.qualified_name}" for s in generation.symbols}
    implements = {
        (names[e.source], names[e.target], e.confidence) for e in generation.edges if e.kind is EdgeKind.IMPLEMENTS
    }
    assert implements == {
        ("core_lib/src/model.rs:Item", "core_lib/src/model.rs:Priced", Confidence.CANDIDATE),
        ("core_lib/src/model.rs:Item::cents", "core_lib/src/model.rs:Priced::cents", Confidence.CANDIDATE),
        (
            "core_lib/src/storage/cache.rs:core_lib.src.storage.cache",
            "core_lib/src/model.rs:Priced",
            Confidence.CANDIDATE,
        ),
        ("core_lib/src/storage/cache.rs:Store::cents", "core_lib/src/model.rs:Priced::cents", Confidence.CANDIDATE),
    }
    # `impl std::fmt::Debug for Store` reaches outside the repository: its `fmt` records nothing more.
    assert not [u for u in generation.unresolved if u.line == 16 and u.file.endswith("cache.rs")]
    assert not [x for x in generation.external_references if x.symbol.endswith("Debug::fmt")]
